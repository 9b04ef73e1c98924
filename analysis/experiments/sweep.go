package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Sweep is a grid split into shards for a batch system: which
// experiments, on which grid, in how many shards, run by which binary
// against which database, writing to which folder. It is written as
// sweep.json beside the shards, so that placelab merge can tell a whole
// sweep from one with a shard missing, and say how to rerun it.
type Sweep struct {
	// Scheduler is "slurm", "k8s" or "local" (placelab experiment --jobs).
	Scheduler   string   `json:"scheduler"`
	Experiments []string `json:"experiments"`
	Grid        Grid     `json:"grid"`
	Shards      int      `json:"shards"`
	// Points is the size of each experiment's grid.
	Points  map[string]int `json:"points"`
	Version string         `json:"version"`
	// Binary, DB and Dir are the paths the shard tasks use (inside the
	// container for k8s).
	Binary  string    `json:"binary"`
	DB      string    `json:"db"`
	Dir     string    `json:"dir"`
	Created time.Time `json:"created"`
	// MemoryLimit is the --memory-limit the tasks pass on ("" : theirs).
	MemoryLimit string `json:"memory_limit,omitempty"`
	// Scripts are the files written for the scheduler: the array's and the
	// merge's sbatch scripts, or the two Job manifests.
	Scripts []string `json:"scripts,omitempty"`
}

// SweepFile is the manifest's name in a sweep's folder.
const SweepFile = "sweep.json"

// PlanSweep sizes a sweep of exps: shards 0 means one shard per point of
// the largest grid (every task has work); more shards than that are
// refused, since the extra tasks would run nothing.
func PlanSweep(exps []*Experiment, quick bool, shards int) (*Sweep, error) {
	if len(exps) == 0 {
		return nil, errors.New("experiments: sweep: no experiments")
	}
	s := &Sweep{Grid: GridOf(quick), Points: map[string]int{}}
	most := 0
	for _, e := range exps {
		n := len(e.Points(quick))
		s.Experiments = append(s.Experiments, e.Name)
		s.Points[e.Name] = n
		most = max(most, n)
	}
	switch {
	case shards < 0:
		return nil, fmt.Errorf("experiments: sweep: %d shards: want at least 1", shards)
	case shards == 0:
		shards = most
	case shards > most:
		return nil, fmt.Errorf("experiments: sweep: %d shards for a largest grid of %d points: at most %d (more tasks would run nothing)", shards, most, most)
	}
	s.Shards = shards
	return s, nil
}

// ReadSweep reads dir's sweep.json; its Dir is set to dir as given.
func ReadSweep(dir string) (*Sweep, error) {
	b, err := os.ReadFile(filepath.Join(dir, SweepFile))
	if err != nil {
		return nil, err
	}
	var s Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", filepath.Join(dir, SweepFile), err)
	}
	if s.Shards < 1 || len(s.Experiments) == 0 {
		return nil, fmt.Errorf("experiments: %s: no shards or experiments", filepath.Join(dir, SweepFile))
	}
	s.Dir = filepath.Clean(dir)
	return &s, nil
}

// WriteSweep writes the manifest to dir.
func (s *Sweep) WriteSweep(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SweepFile), append(b, '\n'), 0o644)
}

// PrepareDir creates dir for a new sweep and refuses one that already holds
// a sweep or shard files (their points would mix with the new ones').
func PrepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if _, err := os.Stat(filepath.Join(dir, SweepFile)); err == nil || len(old) > 0 {
		return fmt.Errorf("experiments: %s already holds a sweep (sweep.json or *.parquet): give a new --out folder, or merge and remove that one", dir)
	}
	return nil
}

// label names the sweep in job names: the experiments joined by '-'.
func (s *Sweep) label() string {
	l := strings.Join(s.Experiments, "-")
	if len(s.Experiments) == len(registry) {
		l = "all"
	}
	return l
}

// dbArgs are the global placelab arguments of every task.
func (s *Sweep) dbArgs() []string {
	args := []string{"--db", s.DB, "--quiet"}
	if s.MemoryLimit != "" {
		args = append(args, "--memory-limit", s.MemoryLimit)
	}
	return args
}

// shardArgs are the placelab arguments of every shard task but the shard.
func (s *Sweep) shardArgs() []string {
	args := append(s.dbArgs(), "experiment", strings.Join(s.Experiments, ","))
	if s.Grid == GridQuick {
		args = append(args, "--quick")
	}
	return args
}

// rerunHint tells how to rerun shards (nil: every shard that holds a point
// of experiment name) of this sweep.
func (s *Sweep) rerunHint(name string, shards []int) string {
	if shards == nil {
		for i := 0; i < s.Shards && i < s.Points[name]; i++ {
			shards = append(shards, i)
		}
	}
	which := fmt.Sprintf(" (shard %s of %d)", joinInts(shards), s.Shards)
	switch s.Scheduler {
	case "slurm":
		if len(s.Scripts) > 0 {
			return which + fmt.Sprintf(": rerun them with sbatch --array=%s %s, then placelab --db %s merge %s",
				joinInts(shards), s.Scripts[0], s.DB, s.Dir)
		}
	}
	var cmds []string
	for _, i := range shards {
		cmds = append(cmds, shellJoin(append(append([]string{"placelab"}, s.shardArgs()...), "--shard", ShardLabel(i, s.Shards), "--out", s.Dir)))
	}
	return which + ": rerun " + strings.Join(cmds, "; ")
}

// SlurmOptions are the sbatch settings of a sweep's jobs.
type SlurmOptions struct {
	Partition, Time, Mem, Account, QOS string
	CPUsPerTask                        int
	// Extra are further #SBATCH options, e.g. "--constraint=skylake".
	Extra []string
}

// WriteSlurm writes the array job's and the merge job's sbatch scripts and
// the manifest into s.Dir (which must be the absolute path the tasks see).
func (s *Sweep) WriteSlurm(o SlurmOptions) error {
	if o.CPUsPerTask < 0 {
		return fmt.Errorf("experiments: --cpus-per-task %d: want at least 1", o.CPUsPerTask)
	}
	for _, x := range o.Extra {
		if !strings.HasPrefix(x, "--") || strings.ContainsAny(x, "\n\r") {
			return fmt.Errorf("experiments: --sbatch %q: want one sbatch option such as --constraint=skylake", x)
		}
	}
	s.Scheduler = "slurm"
	logs := filepath.Join(s.Dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	common := func(b *strings.Builder) {
		for _, kv := range [][2]string{{"partition", o.Partition}, {"time", o.Time}, {"mem", o.Mem}, {"account", o.Account}, {"qos", o.QOS}} {
			if kv[1] != "" {
				fmt.Fprintf(b, "#SBATCH --%s=%s\n", kv[0], kv[1])
			}
		}
		if o.CPUsPerTask > 0 {
			fmt.Fprintf(b, "#SBATCH --cpus-per-task=%d\n", o.CPUsPerTask)
		}
		for _, x := range o.Extra {
			fmt.Fprintf(b, "#SBATCH %s\n", x)
		}
	}
	var a strings.Builder
	fmt.Fprintf(&a, "#!/bin/bash\n# placelab sweep: %s, %s grid, %d shards (written by placelab %s).\n", strings.Join(s.Experiments, ", "), s.Grid, s.Shards, s.Version)
	fmt.Fprintf(&a, "# Task i runs the grid points whose index is i mod %d and writes them to\n# %s as Parquet; %s merges them once every task has succeeded.\n", s.Shards, s.Dir, "merge.sbatch")
	fmt.Fprintf(&a, "#SBATCH --job-name=placelab-%s\n#SBATCH --array=0-%d\n#SBATCH --output=%s\n", s.label(), s.Shards-1, filepath.Join(logs, "shard-%a.out"))
	common(&a)
	fmt.Fprintf(&a, "set -euo pipefail\nexec %s --shard \"${SLURM_ARRAY_TASK_ID}/%d\" --out %s\n",
		shellJoin(append([]string{s.Binary}, s.shardArgs()...)), s.Shards, shellQuote(s.Dir))
	var m strings.Builder
	fmt.Fprintf(&m, "#!/bin/bash\n# Merges the shards of %s into %s in one transaction; placelab refuses\n# (and changes nothing) when a shard is missing.\n", s.Dir, s.DB)
	fmt.Fprintf(&m, "#SBATCH --job-name=placelab-%s-merge\n#SBATCH --output=%s\n", s.label(), filepath.Join(logs, "merge.out"))
	common(&m)
	fmt.Fprintf(&m, "set -euo pipefail\nexec %s\n", shellJoin(append(append([]string{s.Binary}, s.dbArgs()...), "merge", s.Dir)))
	s.Scripts = []string{filepath.Join(s.Dir, "shards.sbatch"), filepath.Join(s.Dir, "merge.sbatch")}
	if err := os.WriteFile(s.Scripts[0], []byte(a.String()), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(s.Scripts[1], []byte(m.String()), 0o755); err != nil {
		return err
	}
	return s.WriteSweep(s.Dir)
}

// SubmitCommands are the shell commands that submit a Slurm sweep: the
// array, then the merge once every task has succeeded (afterok; the merge
// is cancelled if a task fails).
func (s *Sweep) SubmitCommands() []string {
	return []string{
		"jid=$(sbatch --parsable " + shellQuote(s.Scripts[0]) + ")",
		"sbatch --parsable --dependency=afterok:${jid%%;*} --kill-on-invalid-dep=yes " + shellQuote(s.Scripts[1]),
	}
}

// K8sOptions are the Kubernetes settings of a sweep's Jobs.
type K8sOptions struct {
	// Image holds placelab (its entrypoint is not used: the Jobs run
	// Command).
	Image     string
	Command   string // placelab inside the image (default "placelab")
	Namespace string
	// PVC is the claim mounted at Mount in every pod: it holds the database
	// and the shards (ReadWriteMany when pods land on several nodes).
	PVC, Mount    string
	Parallelism   int
	CPU, Memory   string
	BackoffLimit  int
	LocalManifest string // where the manifests were written (set by WriteK8s)
}

var dnsLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// jobName is a DNS-1123 name for the sweep's Job with suffix.
func (s *Sweep) jobName(suffix string) string {
	base := strings.Trim(dnsLabel.ReplaceAllString(strings.ToLower("placelab-"+s.label()), "-"), "-")
	if max := 63 - len(suffix) - 1; len(base) > max {
		base = strings.TrimRight(base[:max], "-")
	}
	return base + "-" + suffix
}

// WriteK8s writes two Job manifests into local (a folder on this machine):
// the shards as an Indexed Job (completions = shards, the index from
// JOB_COMPLETION_INDEX) and the merge. s.DB and s.Dir are paths inside the
// pods, on the volume.
func (s *Sweep) WriteK8s(local string, o K8sOptions) error {
	if o.Image == "" {
		return errors.New("experiments: --k8s needs --image: a container image that holds placelab")
	}
	if o.PVC == "" {
		return errors.New("experiments: --k8s needs --pvc: the PersistentVolumeClaim that holds the database and the shards")
	}
	if o.Parallelism < 0 || o.BackoffLimit < 0 {
		return fmt.Errorf("experiments: --parallelism %d, --backoff-limit %d: want ≥ 0", o.Parallelism, o.BackoffLimit)
	}
	if o.Parallelism == 0 || o.Parallelism > s.Shards {
		o.Parallelism = s.Shards
	}
	if o.Command == "" {
		o.Command = "placelab"
	}
	s.Scheduler = "k8s"
	shardArgs := append(s.shardArgs(), "--shards", strconv.Itoa(s.Shards), "--out", s.Dir)
	shards := s.job(o, "shards", []string{o.Command}, shardArgs, true)
	merge := s.job(o, "merge", []string{o.Command}, append(s.dbArgs(), "merge", s.Dir), false)
	s.Scripts = []string{filepath.Join(local, "shards-job.yaml"), filepath.Join(local, "merge-job.yaml")}
	if err := os.WriteFile(s.Scripts[0], []byte(shards), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(s.Scripts[1], []byte(merge), 0o644); err != nil {
		return err
	}
	return s.WriteSweep(local)
}

// KubectlCommands apply the shards' Job, wait for it, then apply the merge.
func (s *Sweep) KubectlCommands(namespace string) []string {
	ns := ""
	if namespace != "" {
		ns = " -n " + shellQuote(namespace)
	}
	return []string{
		"kubectl apply" + ns + " -f " + shellQuote(s.Scripts[0]),
		"kubectl wait" + ns + " --for=condition=complete --timeout=24h job/" + s.jobName("shards"),
		"kubectl apply" + ns + " -f " + shellQuote(s.Scripts[1]),
	}
}

// job renders one batch/v1 Job as YAML. Strings are written as JSON
// strings, which YAML reads as they are.
func (s *Sweep) job(o K8sOptions, suffix string, command, args []string, indexed bool) string {
	q := func(x string) string { b, _ := json.Marshal(x); return string(b) }
	list := func(xs []string) string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = q(x)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# placelab sweep: %s, %s grid, %d shards (written by placelab %s).\n", strings.Join(s.Experiments, ", "), s.Grid, s.Shards, s.Version)
	if indexed {
		fmt.Fprintf(&b, "# Pod i (JOB_COMPLETION_INDEX) runs the grid points whose index is i mod %d.\n", s.Shards)
	} else {
		b.WriteString("# Apply once the shards' Job is complete: it refuses, changing nothing, if a shard is missing.\n")
	}
	b.WriteString("apiVersion: batch/v1\nkind: Job\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", q(s.jobName(suffix)))
	if o.Namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", q(o.Namespace))
	}
	labels := fmt.Sprintf("    app.kubernetes.io/name: placelab\n    placelab.sweep: %s\n", q(s.jobName("sweep")))
	b.WriteString("  labels:\n" + labels)
	b.WriteString("spec:\n")
	if indexed {
		fmt.Fprintf(&b, "  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n", s.Shards, o.Parallelism)
	} else {
		b.WriteString("  completions: 1\n  parallelism: 1\n")
	}
	fmt.Fprintf(&b, "  backoffLimit: %d\n", o.BackoffLimit)
	b.WriteString("  template:\n    metadata:\n      labels:\n" + strings.ReplaceAll(labels, "    ", "        "))
	b.WriteString("    spec:\n      restartPolicy: Never\n      containers:\n")
	fmt.Fprintf(&b, "        - name: %s\n          image: %s\n          command: %s\n          args: %s\n", q(suffix), q(o.Image), list(command), list(args))
	if o.CPU != "" || o.Memory != "" {
		b.WriteString("          resources:\n            requests:\n")
		if o.CPU != "" {
			fmt.Fprintf(&b, "              cpu: %s\n", q(o.CPU))
		}
		if o.Memory != "" {
			fmt.Fprintf(&b, "              memory: %s\n", q(o.Memory))
		}
	}
	fmt.Fprintf(&b, "          volumeMounts:\n            - name: data\n              mountPath: %s\n", q(o.Mount))
	fmt.Fprintf(&b, "      volumes:\n        - name: data\n          persistentVolumeClaim:\n            claimName: %s\n", q(o.PVC))
	return b.String()
}

// shellQuote quotes x for a POSIX shell when it needs it.
func shellQuote(x string) string {
	if x != "" && strings.IndexFunc(x, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return x
	}
	return "'" + strings.ReplaceAll(x, "'", `'\''`) + "'"
}

func shellJoin(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = shellQuote(x)
	}
	return strings.Join(out, " ")
}

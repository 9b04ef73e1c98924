package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis/experiments"
	store "placelab/sql"
)

func experimentCommand() *cli.Command {
	return &cli.Command{
		Name:      "experiment",
		Usage:     "run the experiment grids that reproduce the papers' headline figures, here or on a cluster",
		ArgsUsage: "NAME[,NAME...]|all|list",
		Description: `Each experiment is a named, seeded grid; every point is stored as a run (engine
"experiment", policy NAME, its parameters as JSON, its figures in run_metric; view
experiment_results) and shown by placelab report. Experiments:
   buckets            Protean Table 5: packing density, candidates after BestFit, p99
                      conflicts/min for BestFit buckets 1-5 and ∞, the LP interval on density beside
   inventory-scaling  Protean Figs 11-12: latency and memory vs machines, cache on/off
   agents             Protean Figs 13-15: burst span, conflicts, throughput vs agents, speed-up
   violations         König et al. Fig 9: violations per policy over tenant density
   oversubscription   Resource Central §6.2: the arms' readings above 100% and failures
   paragon            Paragon: QoS shares per scenario and policy, classification accuracy
   characterize       the workload views over every loaded dataset
--quick runs a reduced grid (all of them in about 15 seconds); without it each
experiment states its expected time in placelab experiment list.

Four ways to run a grid (see the README, "Running sweeps on a cluster"):

--jobs N (default: every core) runs the points in N worker processes on this machine,
  handing each point to the next free worker; they read the database read-only and
  write Parquet, merged into the database in one transaction at the end. The points
  of an experiment with wall-clock figures (inventory-scaling, characterize) run
  alone, so their timings are not taken on shared cores. --jobs 1 runs every point
  in this process. Figures equal the sequential run's but for the timings.

--slurm writes a Slurm job array (one task per shard, --array=0-(n-1)) and a merge
  job to --out DIR; --submit also submits them, the merge with
  --dependency=afterok so it runs once every task has succeeded. Task i runs
  --shard $SLURM_ARRAY_TASK_ID/n. Paths in the scripts are absolute: DIR, --db and
  --bin must be visible to the compute nodes (a shared file system).

--k8s writes two Kubernetes Jobs to --out DIR: the shards as an Indexed Job
  (completionMode: Indexed, completions: n; pod i reads JOB_COMPLETION_INDEX) and
  the merge. The pods mount --pvc at --mount, where the database (its file name)
  and the shards folder (DIR's name) must live; --image holds placelab.

--shard i/n runs the points whose index is i mod n (--shards n takes i from
  $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX), reading --db read-only, and
  writes DIR/NAME-shard-i-of-n.parquet per experiment (--out DIR): one row per
  figure with the run's parameters, readable as it is by DuckDB, Spark or Trino.
  placelab merge DIR loads the shards and refuses, changing nothing, while a point
  is missing (it names the shards to rerun).

Examples:
   placelab experiment all --quick                      # every core of this machine
   placelab experiment buckets,agents --jobs 1
   placelab experiment all --slurm --partition short --time 1:00:00 --out /shared/sweep1 --submit
   placelab experiment buckets --k8s --image registry/placelab:v1 --pvc placelab-data --out k8s/
   placelab experiment buckets --shard 0/4 --out shards/ && placelab merge shards/
   placelab sql "SELECT experiment, metric, avg(value) FROM read_parquet('shards/*.parquet') GROUP BY ALL"
   placelab experiment list`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quick", Usage: "reduced grids (tests, the demo)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "worker processes on this machine (1: every point in this process)"},
			&cli.StringFlag{Name: "shard", Usage: "run slice `i/n` of the grid (points whose index is i mod n) and write its Parquet files"},
			&cli.IntFlag{Name: "shards", Usage: "run slice i of `n`, i from $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX"},
			&cli.StringFlag{Name: "out", Usage: "folder `DIR` of the shards' Parquet files and (--slurm, --k8s) the job scripts; with --jobs, keep the workers' Parquet files there"},
			&cli.BoolFlag{Name: "slurm", Usage: "write a Slurm job array and a merge job (to --out)"},
			&cli.BoolFlag{Name: "submit", Usage: "with --slurm: submit them with sbatch and print the job ids"},
			&cli.StringFlag{Name: "partition", Usage: "with --slurm: sbatch --partition `P`"},
			&cli.StringFlag{Name: "time", Usage: "with --slurm: sbatch --time `T` (per task, e.g. 1:00:00)"},
			&cli.StringFlag{Name: "mem", Usage: "with --slurm: sbatch --mem `M` (per task, e.g. 8G)"},
			&cli.StringFlag{Name: "account", Usage: "with --slurm: sbatch --account `A`"},
			&cli.StringFlag{Name: "qos", Usage: "with --slurm: sbatch --qos `Q`"},
			&cli.IntFlag{Name: "cpus-per-task", Usage: "with --slurm: sbatch --cpus-per-task `N`"},
			&cli.StringSliceFlag{Name: "sbatch", Usage: "with --slurm: one more sbatch `OPTION` (repeatable), e.g. --sbatch=--constraint=skylake"},
			&cli.BoolFlag{Name: "k8s", Usage: "write Kubernetes Jobs: an Indexed Job of shards and a merge Job (to --out)"},
			&cli.StringFlag{Name: "image", Usage: "with --k8s: container `IMAGE` that holds placelab"},
			&cli.StringFlag{Name: "pvc", Usage: "with --k8s: PersistentVolumeClaim `NAME` holding the database and the shards"},
			&cli.StringFlag{Name: "mount", Value: "/data", Usage: "with --k8s: where the claim is mounted in the pods (`PATH`)"},
			&cli.StringFlag{Name: "namespace", Usage: "with --k8s: the Jobs' `NAMESPACE`"},
			&cli.IntFlag{Name: "parallelism", Usage: "with --k8s: pods at once (default: every shard)"},
			&cli.StringFlag{Name: "cpu", Usage: "with --k8s: each pod's CPU request, e.g. 1"},
			&cli.StringFlag{Name: "memory", Usage: "with --k8s: each pod's memory request, e.g. 4Gi"},
			&cli.StringFlag{Name: "bin", Usage: "with --slurm: placelab's `PATH` on the compute nodes (default: this binary); with --k8s: its command in the image (default placelab)"},
			&cli.StringFlag{Name: "worker", Hidden: true, Usage: "internal: worker k/N of --jobs (tasks on stdin, reports on stdout)"},
			formatFlag("table", "json"),
		},
		Action: experimentAction,
	}
}

// experimentNames resolves NAME[,NAME...] or all.
func experimentNames(arg string) ([]*experiments.Experiment, error) {
	if arg == "all" {
		return experiments.All(), nil
	}
	var exps []*experiments.Experiment
	seen := map[string]bool{}
	for _, n := range strings.Split(arg, ",") {
		n = strings.TrimSpace(n)
		e, err := experiments.Lookup(n)
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			exps = append(exps, e)
		}
	}
	return exps, nil
}

func experimentAction(c *cli.Context) error {
	name := c.Args().First()
	if name == "" {
		return errors.New("give an experiment NAME, NAME,NAME, all, or list (see placelab experiment --help)")
	}
	if c.NArg() > 1 {
		return fmt.Errorf("one NAME argument (names separated by commas), got %q", c.Args().Slice())
	}
	if name == "list" {
		for _, e := range experiments.All() {
			fmt.Fprintf(c.App.Writer, "%-18s %-28s full grid: %s\n", e.Name, e.Reproduces, e.FullTime)
		}
		return nil
	}
	exps, err := experimentNames(name)
	if err != nil {
		return err
	}
	modes := 0
	for _, m := range []string{"slurm", "k8s", "shard", "shards", "worker"} {
		if c.IsSet(m) {
			modes++
		}
	}
	if modes > 1 || (modes == 1 && c.IsSet("jobs")) {
		return errors.New("choose one of --jobs, --shard/--shards, --slurm and --k8s")
	}
	slurm, k8s := c.Bool("slurm"), c.Bool("k8s")
	for _, f := range []string{"submit", "partition", "time", "mem", "account", "qos", "cpus-per-task", "sbatch"} {
		if err := onlyWith(c, f, slurm, "with --slurm"); err != nil {
			return err
		}
	}
	for _, f := range []string{"image", "pvc", "mount", "namespace", "parallelism", "cpu", "memory"} {
		if err := onlyWith(c, f, k8s, "with --k8s"); err != nil {
			return err
		}
	}
	if err := onlyWith(c, "bin", slurm || k8s, "with --slurm or --k8s"); err != nil {
		return err
	}
	quick := c.Bool("quick")
	switch {
	case c.IsSet("worker"):
		return experimentWorker(c, exps, quick)
	case c.IsSet("shard") || c.IsSet("shards"):
		return experimentShard(c, exps, quick)
	case slurm || k8s:
		return experimentSweep(c, exps, quick)
	}
	return experimentLocal(c, exps, quick)
}

// shardIndex reads the shard to run: --shard i/n, or --shards n with i from
// the batch system's environment.
func shardIndex(c *cli.Context) (int, int, error) {
	if s := c.String("shard"); s != "" {
		return parseShard(s)
	}
	n := c.Int("shards")
	if n < 1 {
		return 0, 0, fmt.Errorf("--shards %d: want at least 1", n)
	}
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
		if x, ok := os.LookupEnv(v); ok {
			i, err := strconv.Atoi(strings.TrimSpace(x))
			if err != nil || i < 0 || i >= n {
				return 0, 0, fmt.Errorf("$%s=%q: want a shard index 0 ≤ i < %d", v, x, n)
			}
			return i, n, nil
		}
	}
	return 0, 0, errors.New("--shards n takes the shard index from $SLURM_ARRAY_TASK_ID (Slurm job arrays) or $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs); neither is set: give --shard i/n")
}

// readOnlyDB opens --db read-only for shards and workers, which run many at
// once and never write it.
func readOnlyDB(c *cli.Context) (*store.DB, error) {
	path := c.String("db")
	db, err := store.OpenReadOnly(c.Context, path, memoryLimit(c))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--db %s does not exist: shards read the database but cannot create it (many run at once); create it first, e.g. placelab --db %s generate", path, path)
	}
	return db, inUse(flagged(err))
}

// experimentShard runs one static shard of each experiment into a scratch
// database and writes its Parquet files.
func experimentShard(c *cli.Context, exps []*experiments.Experiment, quick bool) error {
	i, n, err := shardIndex(c)
	if err != nil {
		return err
	}
	dir := c.String("out")
	if dir == "" {
		return errors.New("--shard needs --out DIR, the folder of the shard's Parquet files")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := readOnlyDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	scratch, err := store.Open(c.Context, ":memory:")
	if err != nil {
		return err
	}
	defer scratch.Close()
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	type written struct {
		Experiment string  `json:"experiment"`
		Grid       string  `json:"grid"`
		Shard      string  `json:"shard"`
		Points     int     `json:"points"`
		File       string  `json:"file,omitempty"`
		Seconds    float64 `json:"seconds"`
	}
	var outs []written
	for _, e := range exps {
		bar := newProgress(fmt.Sprintf("experiment %s shard %d/%d", e.Name, i, n), "points", c.Bool("quiet"))
		o, err := experiments.Run(c.Context, db, e, experiments.Options{Quick: quick, Shard: i, Shards: n, Out: scratch, Version: version, Progress: bar.Update,
			Placements: filepath.Join(dir, experiments.PlacementsDir)})
		bar.Done()
		if err != nil {
			return err
		}
		w := written{Experiment: e.Name, Grid: string(o.Grid), Shard: experiments.ShardLabel(i, n), Points: o.Points, Seconds: o.Seconds}
		if o.Points > 0 {
			w.File = experiments.ShardFile(dir, e.Name, i, n)
			if err := experiments.ExportShard(c.Context, scratch, e, o, len(e.Points(quick)), w.Shard, names, w.File); err != nil {
				return err
			}
		}
		outs = append(outs, w)
	}
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, outs)
	}
	for _, w := range outs {
		file := w.File
		if file == "" {
			file = "(no point of this grid falls in this shard)"
		}
		fmt.Fprintf(c.App.Writer, "%-18s %-5s shard %-5s %3d points in %6.1fs  %s\n", w.Experiment, w.Grid, w.Shard, w.Points, w.Seconds, file)
	}
	return nil
}

// experimentWorker is one worker of --jobs: tasks on stdin, reports on
// stdout.
func experimentWorker(c *cli.Context, exps []*experiments.Experiment, quick bool) error {
	k, n, err := parseShard(c.String("worker"))
	if err != nil {
		return fmt.Errorf("--worker: %w", err)
	}
	db, err := readOnlyDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	return experiments.Worker(c.Context, db, experiments.WorkerOptions{Quick: quick, Version: version, Dir: c.String("out"), Job: k, Jobs: n, Sweep: names},
		os.Stdin, c.App.Writer)
}

// selfCommand runs this placelab with args (the tests replace it, so that
// the test binary stands in for placelab).
var selfCommand = func(args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, args...), nil
}

// experimentLocal runs the grids on this machine: in this process with
// --jobs 1, else in worker processes merged at the end.
func experimentLocal(c *cli.Context, exps []*experiments.Experiment, quick bool) error {
	jobs := c.Int("jobs")
	if jobs < 1 {
		return fmt.Errorf("--jobs %d: want at least 1", jobs)
	}
	path := c.String("db")
	if path == "" || path == ":memory:" {
		if c.IsSet("jobs") && jobs > 1 {
			return errors.New("--jobs > 1 needs a database file: the workers read it from their own processes (use --jobs 1 with :memory:)")
		}
		jobs = 1
	}
	if err := onlyWith(c, "out", jobs > 1, "with --jobs > 1, --shard, --slurm or --k8s"); err != nil {
		return err
	}
	// Opening read-write migrates the database and installs the views the
	// workers will read.
	db, err := openDB(c)
	if err != nil {
		return err
	}
	points := 0
	for _, e := range exps {
		points += len(e.Points(quick))
	}
	if jobs == 1 || points == 1 {
		defer db.Close()
		var outs []*experiments.Outcome
		for _, e := range exps {
			bar := newProgress("experiment "+e.Name, "points", c.Bool("quiet"))
			o, err := experiments.Run(c.Context, db, e, experiments.Options{Quick: quick, Version: version, Progress: bar.Update})
			bar.Done()
			if err != nil {
				return err
			}
			o.Jobs = 1
			outs = append(outs, o)
		}
		return printOutcomes(c, outs)
	}
	db.Close()
	dir, keep := c.String("out"), c.IsSet("out")
	if keep {
		if err := experiments.PrepareDir(dir); err != nil {
			return err
		}
	} else {
		if dir, err = os.MkdirTemp("", "placelab-jobs-"); err != nil {
			return err
		}
	}
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	jobs = min(jobs, points)
	start := time.Now()
	secs := map[string]float64{}
	bar := newProgress(fmt.Sprintf("experiment %s, %d workers", name(names), jobs), "points", c.Bool("quiet"))
	err = experiments.RunPool(c.Context, exps, experiments.PoolOptions{Jobs: jobs, Quick: quick,
		Spawn: func(k int) (*exec.Cmd, error) {
			args := []string{"--db", path, "--quiet"}
			if m := c.String("memory-limit"); m != "" {
				args = append(args, "--memory-limit", m)
			}
			args = append(args, "experiment", strings.Join(names, ","), "--worker", experiments.ShardLabel(k, jobs), "--out", dir)
			if quick {
				args = append(args, "--quick")
			}
			cmd, err := selfCommand(args...)
			if err == nil {
				cmd.Stderr = os.Stderr
			}
			return cmd, err
		},
		Progress: bar.Update,
		OnReport: func(r experiments.Report) { secs[r.Experiment] += r.Seconds },
	})
	bar.Done()
	if err != nil {
		if files, _ := filepath.Glob(filepath.Join(dir, "*.parquet")); len(files) > 0 {
			return fmt.Errorf("%w (the points the workers finished are in %s; nothing was merged)", err, dir)
		}
		if !keep {
			os.RemoveAll(dir)
		}
		return err
	}
	db, err = openDB(c)
	if err != nil {
		return fmt.Errorf("%w (the workers' results are in %s: placelab merge %s)", err, dir, dir)
	}
	defer db.Close()
	sum, err := experiments.Merge(c.Context, db, []string{dir})
	if err != nil {
		return fmt.Errorf("%w (the workers' results are in %s)", err, dir)
	}
	if !keep {
		os.RemoveAll(dir)
	}
	wall := time.Since(start).Seconds()
	var outs []*experiments.Outcome
	for _, e := range exps {
		for _, g := range sum.Experiments {
			if g.Experiment == e.Name {
				outs = append(outs, &experiments.Outcome{Experiment: g.Experiment, Grid: g.Grid, Points: g.Points, Runs: g.Runs,
					Seconds: secs[e.Name], Jobs: jobs, WallSeconds: wall})
			}
		}
	}
	return printOutcomes(c, outs)
}

func name(names []string) string {
	if len(names) == len(experiments.All()) {
		return "all"
	}
	return strings.Join(names, ",")
}

func printOutcomes(c *cli.Context, outs []*experiments.Outcome) error {
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, outs)
	}
	for _, o := range outs {
		fmt.Fprintf(c.App.Writer, "%-18s %-5s grid %3d points in %6.1fs  runs %v\n", o.Experiment, o.Grid, o.Points, o.Seconds, o.Runs)
	}
	if len(outs) > 0 && outs[0].Jobs > 1 {
		fmt.Fprintf(c.App.Writer, "%d workers: %.1fs wall clock (the seconds above are each experiment's points, summed)\n", outs[0].Jobs, outs[0].WallSeconds)
	}
	return nil
}

// experimentSweep writes (and with --submit submits) the Slurm or
// Kubernetes jobs of a sweep.
func experimentSweep(c *cli.Context, exps []*experiments.Experiment, quick bool) error {
	dir := c.String("out")
	if dir == "" {
		return errors.New("--slurm and --k8s need --out DIR, the folder of the job scripts and the shards")
	}
	if c.Bool("k8s") && c.String("image") == "" {
		return errors.New("--k8s needs --image: a container image that holds placelab")
	}
	if c.Bool("k8s") && c.String("pvc") == "" {
		return errors.New("--k8s needs --pvc: the PersistentVolumeClaim that holds the database and the shards")
	}
	sw, err := experiments.PlanSweep(exps, quick, 0)
	if err != nil {
		return err
	}
	sw.Version, sw.Created = version, time.Now().UTC().Truncate(time.Second)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := experiments.PrepareDir(abs); err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("slurm") {
		db, err := filepath.Abs(c.String("db"))
		if err != nil {
			return err
		}
		// The tasks open the database read-only: create and migrate it now.
		d, err := store.Open(c.Context, db, memoryLimit(c))
		if err != nil {
			return flagged(err)
		}
		d.Close()
		bin := c.String("bin")
		if bin == "" {
			if bin, err = os.Executable(); err != nil {
				return err
			}
		}
		sw.Binary, sw.DB, sw.Dir, sw.MemoryLimit = bin, db, abs, c.String("memory-limit")
		if err := sw.WriteSlurm(experiments.SlurmOptions{Partition: c.String("partition"), Time: c.String("time"), Mem: c.String("mem"),
			Account: c.String("account"), QOS: c.String("qos"), CPUsPerTask: c.Int("cpus-per-task"), Extra: c.StringSlice("sbatch")}); err != nil {
			return err
		}
		if !c.Bool("submit") {
			fmt.Fprintf(w, "wrote %s (array of %d tasks) and %s; submit them with:\n", sw.Scripts[0], sw.Shards, sw.Scripts[1])
			for _, l := range sw.SubmitCommands() {
				fmt.Fprintln(w, "  "+l)
			}
			return nil
		}
		arr, merge, err := submitSlurm(c.Context, sw)
		if err != nil {
			return err
		}
		if c.String("format") == "json" {
			return printJSON(w, map[string]any{"array_job": arr, "merge_job": merge, "shards": sw.Shards, "dir": sw.Dir, "scripts": sw.Scripts})
		}
		fmt.Fprintf(w, "submitted array job %s (%d tasks) and merge job %s (afterok); shards in %s, logs in %s\n",
			arr, sw.Shards, merge, sw.Dir, filepath.Join(sw.Dir, "logs"))
		return nil
	}
	mount := c.String("mount")
	if !filepath.IsAbs(mount) {
		return fmt.Errorf("--mount %q: want an absolute path in the pods", mount)
	}
	if err := store.CheckMemoryLimit(c.String("memory-limit")); err != nil {
		return flagged(err)
	}
	sw.Binary, sw.MemoryLimit = c.String("bin"), c.String("memory-limit")
	sw.DB = filepath.Join(mount, filepath.Base(c.String("db")))
	sw.Dir = filepath.Join(mount, filepath.Base(abs))
	if err := sw.WriteK8s(abs, experiments.K8sOptions{Image: c.String("image"), Command: c.String("bin"), Namespace: c.String("namespace"),
		PVC: c.String("pvc"), Mount: mount, Parallelism: c.Int("parallelism"), CPU: c.String("cpu"), Memory: c.String("memory"), BackoffLimit: 3}); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (Indexed Job, %d completions) and %s.\nPut the database at %s and make %s on claim %s; then:\n",
		sw.Scripts[0], sw.Shards, sw.Scripts[1], sw.DB, sw.Dir, c.String("pvc"))
	for _, l := range sw.KubectlCommands(c.String("namespace")) {
		fmt.Fprintln(w, "  "+l)
	}
	return nil
}

// submitSlurm submits the array, then the merge with afterok on it.
func submitSlurm(ctx context.Context, sw *experiments.Sweep) (string, string, error) {
	sbatch := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "sbatch", args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		if _, err := strconv.Atoi(id); err != nil {
			return "", fmt.Errorf("sbatch %s: unexpected answer %q", strings.Join(args, " "), out)
		}
		return id, nil
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return "", "", fmt.Errorf("--submit: sbatch not found on PATH (run placelab on a Slurm login node, or submit the scripts in %s yourself)", sw.Dir)
	}
	arr, err := sbatch("--parsable", sw.Scripts[0])
	if err != nil {
		return "", "", err
	}
	merge, err := sbatch("--parsable", "--dependency=afterok:"+arr, "--kill-on-invalid-dep=yes", sw.Scripts[1])
	if err != nil {
		return arr, "", fmt.Errorf("%w (array job %s was submitted; merge by hand: placelab merge %s)", err, arr, sw.Dir)
	}
	return arr, merge, nil
}

// parseShard reads "i/n" with 0 ≤ i < n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 ≤ i < n, e.g. 0/4", s)
	}
	return i, n, nil
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "load experiment shards (placelab experiment --shard) into the database",
		ArgsUsage: "DIR|FILE.parquet...",
		Description: `Reads the Parquet files that placelab experiment --shard, --slurm, --k8s or --jobs wrote
(a folder stands for its *.parquet files) and stores their points as runs, all in one
transaction. It refuses, changing nothing, when a file is not a shard, when a grid has a
point missing (a shard failed or was not run: the message names the shards and the
command to rerun) or twice, when shards of one grid come from different placelab
versions, or when a point was merged before.

Examples:
   placelab merge shards/
   placelab merge shards/buckets-shard-*.parquet`,
		Flags: []cli.Flag{formatFlag("table", "json")},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if c.NArg() == 0 {
				return errors.New("give the shard folder or files to merge, e.g. placelab merge shards/")
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			sum, err := experiments.Merge(c.Context, db, c.Args().Slice())
			if err != nil {
				return err
			}
			if format == "json" {
				return printJSON(c.App.Writer, sum)
			}
			fmt.Fprintf(c.App.Writer, "merged %d files: %d runs, %d figures\n", sum.Files, sum.Runs, sum.Figures)
			for _, g := range sum.Experiments {
				fmt.Fprintf(c.App.Writer, "  %-18s %-5s grid %3d points  runs %v\n", g.Experiment, g.Grid, g.Points, g.Runs)
			}
			return nil
		},
	}
}

package experiments

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	store "placelab/sql"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func lookup(t *testing.T, names ...string) []*Experiment {
	t.Helper()
	var out []*Experiment
	for _, n := range names {
		e, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestPlanSweep: shards default to the largest grid's points; more than
// that, or fewer than one, is refused.
func TestPlanSweep(t *testing.T) {
	exps := lookup(t, "buckets", "oversubscription")
	s, err := PlanSweep(exps, true, 0)
	if err != nil || s.Shards != 7 || s.Points["buckets"] != 6 || s.Grid != GridQuick {
		t.Fatalf("plan %+v, %v", s, err)
	}
	if _, err := PlanSweep(exps, true, 8); err == nil {
		t.Error("8 shards of a 7-point grid accepted")
	}
	if _, err := PlanSweep(exps, true, -1); err == nil {
		t.Error("-1 shards accepted")
	}
	if s, err := PlanSweep(exps, true, 3); err != nil || s.Shards != 3 {
		t.Errorf("3 shards: %+v %v", s, err)
	}
}

// TestK8sManifestsValidate decodes both manifests strictly into the
// Kubernetes API's batch/v1 Job (an unknown or misspelt field fails) and
// checks what an Indexed Job of shards needs: completionMode Indexed,
// completions = shards, restartPolicy Never, the claim mounted where the
// database and the shards are, the shard count in the arguments (the index
// comes from JOB_COMPLETION_INDEX), names within DNS-1123, and a merge Job
// of one pod over the same folder.
func TestK8sManifestsValidate(t *testing.T) {
	dir := t.TempDir()
	s, err := PlanSweep(lookup(t, "buckets", "inventory-scaling"), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Version, s.DB, s.Dir = "test", "/data/placelab.duckdb", "/data/sweep 1"
	err = s.WriteK8s(dir, K8sOptions{Image: "registry.example/placelab:v1", Namespace: "research", PVC: "placelab-data", Mount: "/data",
		Parallelism: 4, CPU: "1", Memory: "4Gi", BackoffLimit: 3})
	if err != nil {
		t.Fatal(err)
	}
	read := func(f string) *batchv1.Job {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(b, &j); err != nil {
			t.Fatalf("%s does not decode as a batch/v1 Job: %v\n%s", f, err, b)
		}
		if j.APIVersion != "batch/v1" || j.Kind != "Job" {
			t.Errorf("%s: %s/%s", f, j.APIVersion, j.Kind)
		}
		if len(j.Name) > 63 || strings.Trim(dnsLabel.ReplaceAllString(j.Name, ""), "-") != j.Name {
			t.Errorf("%s: name %q is not DNS-1123", f, j.Name)
		}
		if j.Namespace != "research" {
			t.Errorf("%s: namespace %q", f, j.Namespace)
		}
		p := j.Spec.Template.Spec
		if p.RestartPolicy != corev1.RestartPolicyNever || len(p.Containers) != 1 || len(p.Volumes) != 1 {
			t.Fatalf("%s: pod %+v", f, p)
		}
		c := p.Containers[0]
		if c.Image != "registry.example/placelab:v1" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != p.Volumes[0].Name ||
			c.VolumeMounts[0].MountPath != "/data" || p.Volumes[0].PersistentVolumeClaim == nil || p.Volumes[0].PersistentVolumeClaim.ClaimName != "placelab-data" {
			t.Errorf("%s: container %+v volumes %+v", f, c, p.Volumes)
		}
		if q := c.Resources.Requests.Memory(); q.String() != "4Gi" {
			t.Errorf("%s: memory request %v", f, q)
		}
		if !strings.Contains(strings.Join(c.Args, " "), "--db /data/placelab.duckdb") {
			t.Errorf("%s: args %q", f, c.Args)
		}
		return &j
	}
	shards, merge := read(s.Scripts[0]), read(s.Scripts[1])
	sp := shards.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion || sp.Completions == nil || int(*sp.Completions) != s.Shards ||
		sp.Parallelism == nil || *sp.Parallelism != 4 || sp.BackoffLimit == nil || *sp.BackoffLimit != 3 {
		t.Errorf("shards spec %+v", sp)
	}
	args := strings.Join(shards.Spec.Template.Spec.Containers[0].Args, "\x00")
	if !strings.Contains(args, "experiment\x00buckets,inventory-scaling") || !strings.Contains(args, "--shards\x00"+strconv.Itoa(s.Shards)) ||
		!strings.Contains(args, "--out\x00/data/sweep 1") || strings.Contains(args, "--quick") {
		t.Errorf("shard args %q", shards.Spec.Template.Spec.Containers[0].Args)
	}
	if merge.Spec.CompletionMode != nil || *merge.Spec.Completions != 1 || strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " ") != "--db /data/placelab.duckdb --quiet merge /data/sweep 1" {
		t.Errorf("merge job %+v", merge.Spec)
	}
	// The manifest records the sweep; the commands wait for the shards.
	m, err := ReadSweep(dir)
	if err != nil || m.Scheduler != "k8s" || m.Shards != s.Shards {
		t.Errorf("sweep.json %+v %v", m, err)
	}
	if cmds := s.KubectlCommands("research"); !strings.Contains(cmds[1], "--for=condition=complete") || !strings.Contains(cmds[1], shards.Name) {
		t.Errorf("kubectl commands %q", cmds)
	}
	// What an Indexed Job cannot run without is refused.
	if err := s.WriteK8s(t.TempDir(), K8sOptions{PVC: "x", Mount: "/data"}); err == nil {
		t.Error("no image accepted")
	}
	if err := s.WriteK8s(t.TempDir(), K8sOptions{Image: "x", Mount: "/data"}); err == nil {
		t.Error("no claim accepted")
	}
}

// TestSlurmScripts: the array covers every shard, each task takes its
// index from SLURM_ARRAY_TASK_ID, paths are quoted for the shell, the
// options reach #SBATCH lines, and the merge runs over the same folder;
// an option that is not one is refused.
func TestSlurmScripts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my sweep")
	s, err := PlanSweep(lookup(t, "oversubscription"), true, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Version, s.Binary, s.DB, s.Dir = "test", "/opt/placelab/bin/placelab", "/shared/db's.duckdb", dir
	if err := s.WriteSlurm(SlurmOptions{Partition: "short", Time: "0:30:00", Mem: "4G", CPUsPerTask: 2, Extra: []string{"--constraint=skylake"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.Scripts[0])
	script := string(b)
	for _, want := range []string{"#SBATCH --array=0-6\n", "#SBATCH --partition=short\n", "#SBATCH --time=0:30:00\n", "#SBATCH --mem=4G\n",
		"#SBATCH --cpus-per-task=2\n", "#SBATCH --constraint=skylake\n",
		`exec /opt/placelab/bin/placelab --db '/shared/db'\''s.duckdb' --quiet experiment oversubscription --quick --shard "${SLURM_ARRAY_TASK_ID}/7" --out '` + dir + "'\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("array script lacks %q:\n%s", want, script)
		}
	}
	b, _ = os.ReadFile(s.Scripts[1])
	if !strings.Contains(string(b), "merge '"+dir+"'") || strings.Contains(string(b), "--array") {
		t.Errorf("merge script:\n%s", b)
	}
	if out, err := exec.Command("bash", "-n", s.Scripts[0]).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v %s", err, out)
	}
	if c := s.SubmitCommands(); !strings.Contains(c[1], "--dependency=afterok:${jid%%;*}") {
		t.Errorf("submit commands %q", c)
	}
	if err := s.WriteSlurm(SlurmOptions{Extra: []string{"constraint=x"}}); err == nil {
		t.Error("an sbatch option without -- accepted")
	}
	// A --memory-limit given to the sweep reaches every task.
	s.MemoryLimit = "3GB"
	if err := s.WriteSlurm(SlurmOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Scripts {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), "--quiet --memory-limit 3GB ") {
			t.Errorf("%s lacks --memory-limit 3GB:\n%s", f, b)
		}
	}
}

// TestPoolWorkerDies: a worker that exits in the middle of a point fails
// the pool with a message naming it, and does not hang.
func TestPoolWorkerDies(t *testing.T) {
	err := RunPool(context.Background(), lookup(t, "paragon"), PoolOptions{Jobs: 2, Quick: true,
		Spawn: func(k int) (*exec.Cmd, error) {
			if k == 1 {
				return exec.Command("sh", "-c", "read x; exit 3"), nil
			}
			// A worker that answers every task it reads.
			return exec.Command("sh", "-c", `while read x; do echo "{\"experiment\":\"paragon\",\"point\":0,\"seconds\":0}"; done`), nil
		}})
	if err == nil || !strings.Contains(err.Error(), "worker 1") {
		t.Fatalf("pool with a dying worker: %v", err)
	}
	// A worker that reports a point's error fails the pool with it.
	err = RunPool(context.Background(), lookup(t, "paragon"), PoolOptions{Jobs: 1, Quick: true,
		Spawn: func(int) (*exec.Cmd, error) {
			return exec.Command("sh", "-c", `read x; echo '{"experiment":"paragon","point":0,"error":"boom"}'; exit 1`), nil
		}})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("pool with a failing point: %v", err)
	}
	if err := RunPool(context.Background(), lookup(t, "paragon"), PoolOptions{Jobs: 0}); err == nil {
		t.Error("--jobs 0 accepted")
	}
}

// TestPlacementsExported: a point that stores a replay (as buckets does)
// has its placements written to Parquet with the point's parameters; the
// file holds exactly the run's placement rows, each with its VM's type,
// and exactly its gang_vm rows on the VMs of the rejected requests of
// several VMs (the zone is small for its VMs, so that there are some).
func TestPlacementsExported(t *testing.T) {
	ctx := context.Background()
	cfg := zoneConfig(true, 7)
	cfg.Machines, cfg.VMs, cfg.Days = 20, 2000, 1
	var zdb *store.DB
	var runID int64
	e := &Experiment{Name: "test-placements", Points: func(bool) []Point { return []Point{{Index: 0, Params: map[string]any{"k": 3}, Seed: 7}} },
		Run: func(ctx context.Context, _ *store.DB, p Point, _ bool) ([]replay.MetricRow, error) {
			var err error
			if zdb, err = scratchZone(ctx, cfg); err != nil {
				return nil, err
			}
			res, err := analysis.Run(ctx, zdb, analysis.DefaultSpec("zone"), analysis.RunOptions{Version: "test"})
			if err != nil {
				return nil, err
			}
			runID = res.Summary.RunID
			storedReplay(ctx, zdb, runID)
			return []replay.MetricRow{fig("x", 1)}, nil
		}}
	dir := t.TempDir()
	if _, err := Run(ctx, testkit.MemDB(t), e, Options{Quick: true, Placements: dir, Version: "v"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "test-placements-point-0.parquet")
	var n, typed, stored int
	var params string
	if err := zdb.SQL().QueryRowContext(ctx, "SELECT count(*), count(vm_type), any_value(params) FROM read_parquet("+quote(file)+") WHERE point = 0 AND experiment = 'test-placements' AND version = 'v'").Scan(&n, &typed, &params); err != nil {
		t.Fatal(err)
	}
	if err := zdb.SQL().QueryRowContext(ctx, "SELECT count(*) FROM placement WHERE run_id = ?", runID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n != stored || typed != n || !strings.Contains(params, `"k":3`) || !strings.Contains(params, `"point":0`) {
		t.Errorf("exported %d placements (%d typed, params %s), the run stored %d", n, typed, params, stored)
	}
	// The VMs of rejected requests of several VMs carry their gang_vm rows,
	// exactly those the run stored; every other VM has none.
	var gangs, requests, failed int
	if err := zdb.SQL().QueryRowContext(ctx, "SELECT count(*), count(DISTINCT request_id), count(*) FILTER (WHERE role = 'failed') FROM gang_vm WHERE run_id = ?", runID).Scan(&gangs, &requests, &failed); err != nil {
		t.Fatal(err)
	}
	if gangs == 0 || failed != requests {
		t.Fatalf("the zone rejected no request of several VMs (%d gang_vm rows, %d requests, %d failed VMs): make it smaller", gangs, requests, failed)
	}
	var exported, differ, notRejected int
	if err := zdb.SQL().QueryRowContext(ctx, "SELECT count(gang_role), count(*) FILTER (WHERE gang_role IS NOT NULL AND outcome <> 'rejected') FROM read_parquet("+quote(file)+")").Scan(&exported, &notRejected); err != nil {
		t.Fatal(err)
	}
	exp := "SELECT vm_id, gang_request_id, gang_position, gang_role, gang_machine_id FROM read_parquet(" + quote(file) + ") WHERE gang_role IS NOT NULL"
	got := "SELECT vm_id, request_id, position, role, machine_id FROM gang_vm WHERE run_id = $1"
	if err := zdb.SQL().QueryRowContext(ctx, "SELECT count(*) FROM (("+exp+" EXCEPT ALL "+got+") UNION ALL ("+got+" EXCEPT ALL "+exp+"))", runID).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if exported != gangs || differ != 0 || notRejected != 0 {
		t.Errorf("exported %d gang rows (%d differ from the run's, %d on VMs not rejected), the run stored %d", exported, differ, notRejected, gangs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.partial")); len(left) > 0 {
		t.Errorf("left behind %v", left)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"placelab/analysis/experiments"
	store "placelab/sql"
)

// TestMain lets the test binary act as placelab when PLACELAB_AS_CLI is set,
// so tests can run the command as separate processes.
func TestMain(m *testing.M) {
	if os.Getenv("PLACELAB_AS_CLI") != "" {
		os.Args = append([]string{"placelab"}, strings.Fields(os.Getenv("PLACELAB_AS_CLI"))...)
		main()
		os.Exit(0)
	}
	// placelab experiment --jobs starts itself as its workers: here the test
	// binary, acting as placelab.
	selfCommand = func(args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PLACELAB_AS_CLI="+strings.Join(args, " "))
		return cmd, nil
	}
	os.Exit(m.Run())
}

// asProcess runs placelab with args in a child process.
func asProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PLACELAB_AS_CLI="+strings.Join(args, " "))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("placelab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// deterministicFigures reads every experiment figure but the timings
// (Experiment.Timings), as sorted "experiment point params metric value"
// lines.
func deterministicFigures(t *testing.T, path string) []string {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.QueryView(context.Background(), "experiment_results", "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	idx := map[string]int{}
	for i, c := range res.Columns {
		idx[c] = i
	}
	for _, r := range res.Rows {
		m, exp := r[idx["metric"]].(string), r[idx["experiment"]].(string)
		e, err := experiments.Lookup(exp)
		if err != nil {
			t.Fatal(err)
		}
		if e.IsTiming(m) {
			continue // wall-clock figures differ from run to run
		}
		out = append(out, strings.Join([]string{exp, strings.TrimSpace(fmtAny(r[idx["point"]])),
			r[idx["params"]].(string), m, fmtAny(r[idx["value"]])}, " "))
	}
	sort.Strings(out)
	return out
}

func fmtAny(x any) string { return fmt.Sprint(x) }

// runCount counts the stored runs.
func runCount(t *testing.T, path string) int {
	t.Helper()
	out := mustRun(t, path, "sql", "SELECT count(*) AS n FROM run", "--format", "csv")
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(out, "n\n")))
	if err != nil {
		t.Fatalf("run count %q: %v", out, err)
	}
	return n
}

// TestExperimentShardsMerge runs the oversubscription grid (quick) whole in
// one process, and as three shards in three other processes that read a
// fourth database read-only; their Parquet files merge into it. A merge
// with a shard missing refuses, names the shard and the command that
// reruns it, and changes nothing; rerunning that shard alone completes the
// sweep, whose merged figures equal the single run's. Merging twice, or a
// file that is not a shard, is refused too. The shard folder is readable by
// placelab sql through read_parquet, without a merge.
func TestExperimentShardsMerge(t *testing.T) {
	dir := t.TempDir()
	single, merged := filepath.Join(dir, "single.duckdb"), filepath.Join(dir, "merged.duckdb")
	shards := filepath.Join(dir, "shards")
	asProcess(t, "--quiet", "--db", single, "experiment", "oversubscription", "--quick", "--jobs", "1")
	// Shards read the database and never create it.
	if _, err := run(t, merged, "experiment", "oversubscription", "--quick", "--shard", "0/3", "--out", shards); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a shard on a missing database: %v", err)
	}
	mustRun(t, merged, "sql", "SELECT 1")
	for i := 0; i < 3; i++ {
		asProcess(t, "--quiet", "--db", merged, "experiment", "oversubscription", "--quick", "--shard", strconv.Itoa(i)+"/3", "--out", shards)
	}
	files, _ := filepath.Glob(filepath.Join(shards, "*.parquet"))
	if len(files) != 3 {
		t.Fatalf("shard files %v", files)
	}
	// Without a merge, the folder reads as one table.
	out := mustRun(t, merged, "sql", "SELECT count(DISTINCT point) AS points, count(DISTINCT shard) AS shards, min(grid_points) AS grid FROM read_parquet('"+shards+"/*.parquet')", "--format", "csv")
	if strings.TrimSpace(out) != "points,shards,grid\n7,3,7" {
		t.Errorf("read_parquet over the shards: %q", out)
	}
	// Shard 1 failed: its file is missing.
	lost := experimentsShardFile(shards, "oversubscription", 1, 3)
	if err := os.Remove(lost); err != nil {
		t.Fatal(err)
	}
	before := runCount(t, merged)
	_, err := run(t, merged, "merge", shards)
	if err == nil || !strings.Contains(err.Error(), "points 1,4 of 7 missing") || !strings.Contains(err.Error(), "--shard 1/3 --out "+shards) {
		t.Fatalf("merge with shard 1 missing: %v", err)
	}
	if n := runCount(t, merged); n != before {
		t.Fatalf("a refused merge changed the database: %d runs, had %d", n, before)
	}
	// Rerunning just that shard completes the sweep.
	asProcess(t, "--quiet", "--db", merged, "experiment", "oversubscription", "--quick", "--shard", "1/3", "--out", shards)
	out = mustRun(t, merged, "merge", shards)
	if !strings.Contains(out, "merged 3 files: 7 runs") {
		t.Errorf("merge said %q", out)
	}
	a, b := deterministicFigures(t, single), deterministicFigures(t, merged)
	if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("single run and merged shards differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	// Twice is refused.
	if _, err := run(t, merged, "merge", shards); err == nil || !strings.Contains(err.Error(), "already merged") {
		t.Errorf("merging the same shards again: %v", err)
	}
	// A file that is not a shard changes nothing.
	bad := write(t, dir, "bad.parquet", "not parquet")
	if _, err := run(t, merged, "merge", bad); err == nil {
		t.Error("merging a bad file succeeded")
	}
	if c := deterministicFigures(t, merged); len(c) != len(b) {
		t.Errorf("a failed merge changed the database: %d figures, had %d", len(c), len(b))
	}
}

func experimentsShardFile(dir, name string, i, n int) string {
	return experiments.ShardFile(dir, name, i, n)
}

// TestExperimentJobsEqualSequential runs four quick grids (one of them
// timed) with --jobs 1 in this process and with --jobs 2 in two worker
// processes: the figures but the timings are equal, the runs come in the
// same order, and every point of the timed experiment ran alone (no other
// point's run overlaps it).
func TestExperimentJobsEqualSequential(t *testing.T) {
	dir := t.TempDir()
	seq, par := filepath.Join(dir, "seq.duckdb"), filepath.Join(dir, "par.duckdb")
	const names = "inventory-scaling,agents,paragon,violations"
	mustRun(t, seq, "experiment", names, "--quick", "--jobs", "1")
	out := mustRun(t, par, "experiment", names, "--quick", "--jobs", "2", "--format", "json")
	var outs []experiments.Outcome
	if err := json.Unmarshal([]byte(out), &outs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(outs) != 4 || outs[0].Jobs != 2 || outs[0].WallSeconds <= 0 {
		t.Fatalf("outcomes %+v", outs)
	}
	a, b := deterministicFigures(t, seq), deterministicFigures(t, par)
	if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("--jobs 1 and --jobs 2 differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	order := "SELECT string_agg(policy || ':' || (params->>'point'), ' ' ORDER BY run_id) AS o FROM run"
	if x, y := mustRun(t, seq, "sql", order, "--format", "csv"), mustRun(t, par, "sql", order, "--format", "csv"); x != y {
		t.Errorf("run order differs:\n%s\n%s", x, y)
	}
	overlap := `SELECT count(*) AS n FROM run a JOIN run b ON a.run_id <> b.run_id
		AND a.started_at < b.started_at + to_microseconds(CAST(b.seconds * 1e6 AS BIGINT))
		AND b.started_at < a.started_at + to_microseconds(CAST(a.seconds * 1e6 AS BIGINT))
		WHERE a.policy = 'inventory-scaling'`
	if out := mustRun(t, par, "sql", overlap, "--format", "csv"); strings.TrimSpace(out) != "n\n0" {
		t.Errorf("timed points shared the machine: %q overlapping runs", out)
	}
	// Some untimed points did run at once (else --jobs 2 did nothing).
	both := strings.Replace(overlap, "WHERE a.policy = 'inventory-scaling'", "WHERE a.policy <> 'inventory-scaling' AND b.policy <> 'inventory-scaling'", 1)
	if out := mustRun(t, par, "sql", both, "--format", "csv"); strings.TrimSpace(out) == "n\n0" {
		t.Errorf("no two points ran at once under --jobs 2")
	}
}

// TestWorkersGetMemoryLimit: --memory-limit reaches the worker processes of
// experiment --jobs.
func TestWorkersGetMemoryLimit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.duckdb")
	mustRun(t, db, "generate", "--machines", "20", "--vms", "50")
	saved := selfCommand
	defer func() { selfCommand = saved }()
	var mu sync.Mutex
	var got [][]string
	selfCommand = func(args ...string) (*exec.Cmd, error) {
		mu.Lock()
		got = append(got, args)
		mu.Unlock()
		return exec.Command("false"), nil // dies at once: the pool fails
	}
	if _, err := run(t, db, "--memory-limit", "3GB", "experiment", "paragon", "--quick", "--jobs", "2"); err == nil {
		t.Fatal("a pool of dead workers succeeded")
	}
	if len(got) == 0 {
		t.Fatal("no worker started")
	}
	for _, args := range got {
		if !strings.Contains(strings.Join(args, " "), "--memory-limit 3GB") {
			t.Errorf("worker args %q lack --memory-limit 3GB", args)
		}
	}
}

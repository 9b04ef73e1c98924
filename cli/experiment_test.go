package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"context"

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

// deterministicFigures reads every experiment figure but the timings, as
// sorted "experiment point params metric value" lines.
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
		m := r[idx["metric"]].(string)
		if strings.HasSuffix(m, "_us") || strings.HasSuffix(m, "_s") {
			continue // wall-clock figures differ from run to run
		}
		out = append(out, strings.Join([]string{r[idx["experiment"]].(string), strings.TrimSpace(fmtAny(r[idx["point"]])),
			r[idx["params"]].(string), m, fmtAny(r[idx["value"]])}, " "))
	}
	sort.Strings(out)
	return out
}

func fmtAny(x any) string { return fmt.Sprint(x) }

// TestExperimentShardsMerge runs the oversubscription grid (quick) whole in
// one process, and as three shards in three other processes whose Parquet
// files are merged into a fourth database: the merged figures equal the
// single run's.
func TestExperimentShardsMerge(t *testing.T) {
	dir := t.TempDir()
	single, merged := filepath.Join(dir, "single.duckdb"), filepath.Join(dir, "merged.duckdb")
	shards := filepath.Join(dir, "shards")
	asProcess(t, "--quiet", "--db", single, "experiment", "oversubscription", "--quick")
	for i := 0; i < 3; i++ {
		db := filepath.Join(dir, "shard"+string(rune('0'+i))+".duckdb")
		asProcess(t, "--quiet", "--db", db, "experiment", "oversubscription", "--quick", "--shard", string(rune('0'+i))+"/3", "--out", shards)
	}
	files, _ := filepath.Glob(filepath.Join(shards, "*.parquet"))
	if len(files) != 3 {
		t.Fatalf("shard files %v", files)
	}
	out := asProcess(t, append([]string{"--quiet", "--db", merged, "merge"}, files...)...)
	if !strings.Contains(out, "merged 3 files: 7 runs") {
		t.Errorf("merge said %q", out)
	}
	a, b := deterministicFigures(t, single), deterministicFigures(t, merged)
	if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("single run and merged shards differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
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

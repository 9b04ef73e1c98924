package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	store "placelab/sql"
)

// goldenUpdateEnv rewrites testdata/explain_golden.txt when set to 1.
const goldenUpdateEnv = "PLACELAB_UPDATE_GOLDEN"

// clustersZone writes three clusters — c1 with two healthy machines, c2
// with one healthy and one unhealthy, c3 with one unhealthy machine only —
// and four 4-core VMs, so that explanations have several clusters, a
// cluster rule's rejection, and machines of every kind to compare with.
func clustersZone(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Ingest(ctx, store.IngestInfo{Dataset: "mc", Format: "test", Source: "test"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		for i, m := range []struct{ name, cluster, health string }{
			{"A", "c1", "healthy"}, {"B", "c1", "healthy"}, {"C", "c2", "healthy"}, {"D", "c2", "unhealthy"}, {"E", "c3", "unhealthy"},
		} {
			if err := w.Append("machine", int32(i), m.name, "z", "dc", m.cluster, "r"+m.name, int16(0), "s10", m.health); err != nil {
				return err
			}
		}
		if err := w.Append("vm_type", "c4", nil, 4.0, 4.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i := range 4 {
			if err := w.Append("vm", int64(i), fmt.Sprintf("vm%d", i), "t", nil, "c4", int16(0), float64(i), 1000.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExplainGolden pins placelab explain --vm, text and JSON, for VMs
// placed by the preference rules, by eviction, rejected, of a rejected
// gang, by a baseline policy and compared with other machines, against
// testdata/explain_golden.txt (latencies masked), with the stored explain
// rows they were read from.
// PLACELAB_UPDATE_GOLDEN=1 rewrites the file.
func TestExplainGolden(t *testing.T) {
	dir := t.TempDir()
	ev, gang, mc := filepath.Join(dir, "ev.duckdb"), filepath.Join(dir, "gang.duckdb"), filepath.Join(dir, "mc.duckdb")
	explainZone(t, ev)
	mustRun(t, ev, "replay", "--dataset", "ev")
	mustRun(t, ev, "replay", "--dataset", "ev", "--policy", "bestfit")
	gangZone(t, gang)
	mustRun(t, gang, "replay", "--dataset", "gang")
	clustersZone(t, mc)
	mustRun(t, mc, "replay", "--dataset", "mc", "--k", "1")
	mustRun(t, mc, "replay", "--dataset", "mc")

	cases := []struct {
		db   string
		args []string
	}{
		{ev, []string{"--run", "1", "--vm", "0"}},
		{ev, []string{"--run", "1", "--vm", "2"}},
		{ev, []string{"--run", "1", "--vm", "3"}},
		{ev, []string{"--run", "1", "--vm", "4"}},
		{ev, []string{"--run", "1", "--vm", "5"}},
		{ev, []string{"--run", "1", "--vm", "5", "--machine", "0"}},
		{ev, []string{"--run", "1", "--vm", "5", "--machine", "1"}},
		{ev, []string{"--run", "2", "--vm", "2"}},
		{ev, []string{"--run", "2", "--vm", "4"}},
		{ev, []string{"--run", "2", "--vm", "5", "--machine", "0"}},
		{ev, []string{"--run", "2", "--vm", "5", "--machine", "1"}},
		{gang, []string{"--run", "1", "--vm", "0"}},
		{gang, []string{"--run", "1", "--vm", "1"}},
		{gang, []string{"--run", "1", "--vm", "3"}},
		{gang, []string{"--run", "1", "--vm", "4"}},
		{mc, []string{"--run", "1", "--vm", "0"}},
		{mc, []string{"--run", "1", "--vm", "0", "--machine", "2"}},
		{mc, []string{"--run", "1", "--vm", "3", "--machine", "2"}},
		{mc, []string{"--run", "1", "--vm", "3", "--machine", "3"}},
		{mc, []string{"--run", "2", "--vm", "1"}},
		{mc, []string{"--run", "2", "--vm", "3", "--machine", "0"}},
	}
	latency := regexp.MustCompile(`decided in [0-9.]+ µs|"latency_us": [0-9.e+-]+`)
	var b strings.Builder
	for _, c := range cases {
		for _, format := range []string{"table", "json"} {
			args := append([]string{"explain"}, c.args...)
			args = append(args, "--format", format)
			out := mustRun(t, c.db, args...)
			fmt.Fprintf(&b, "== %s %s\n%s\n", filepath.Base(c.db), strings.Join(args, " "), latency.ReplaceAllString(out, "LATENCY"))
		}
	}
	// The stored rows themselves, byte for byte.
	for _, db := range []string{ev, gang, mc} {
		q := "SELECT run_id, vm_id, level, candidates, rejected, top, failed_rule FROM explain ORDER BY run_id, vm_id, level"
		fmt.Fprintf(&b, "== %s sql explain\n%s\n", filepath.Base(db), mustRun(t, db, "sql", q, "--format", "csv"))
	}
	golden := filepath.Join("testdata", "explain_golden.txt")
	if os.Getenv(goldenUpdateEnv) == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (%s=1 writes it)", err, goldenUpdateEnv)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("explain output differs from %s at line %d:\n got: %s\nwant: %s", golden, i+1, g, w)
			}
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"placelab/optimizer"
	store "placelab/sql"
)

// explainZone writes two 10-core machines (one per rack, so both are
// among the best machines an explanation keeps) and six VMs, all
// alive until t = 1000, arriving one per second:
//
//	0 low c8, 1 low c8   fill a machine each (8 of 10 cores)
//	2 high c4            fits nowhere: evicts a low c8 (placed by eviction)
//	3 high c8            fits nowhere: evicts the other low c8
//	4 high c8            fits nowhere, nothing left to evict: rejected, short of cores
//	5 high c2            goes to the machine with 2 free cores (BestFit)
func explainZone(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Ingest(ctx, store.IngestInfo{Dataset: "ev", Format: "test", Source: "test"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		for i, name := range []string{"A", "B"} {
			if err := w.Append("machine", int32(i), name, "z", "dc", "c1", "r"+name, int16(0), "s10", "healthy"); err != nil {
				return err
			}
		}
		for _, ty := range [][]any{{"c8", 8.0, 8.0}, {"c4", 4.0, 4.0}, {"c2", 2.0, 2.0}} {
			if err := w.Append("vm_type", ty[0], nil, ty[1], ty[2], nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for i, v := range []struct {
			typ string
			pri int16
		}{{"c8", 1}, {"c8", 1}, {"c4", 0}, {"c8", 0}, {"c8", 0}, {"c2", 0}} {
			if err := w.Append("vm", int64(i), "v", string(rune('a'+i)), nil, v.typ, v.pri, float64(i), 1000.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExplainSaysWhatHappened: explain reads the rule order and the pick
// from the stored record, prints a VM placed by eviction as such, names the
// short dimension of a rejection, never calls a better-scoring machine
// tied, and explains a baseline run too.
func TestExplainSaysWhatHappened(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	explainZone(t, db)
	mustRun(t, db, "replay", "--dataset", "ev")
	mustRun(t, db, "replay", "--dataset", "ev", "--policy", "bestfit")

	for _, run := range []string{"1", "2"} {
		out := mustRun(t, db, "explain", "--run", run, "--vm", "2")
		if !strings.Contains(out, "placed by eviction") || strings.Contains(out, "failed:") ||
			!strings.Contains(out, "AreNodeResourcesValid emptied the candidate set; short of cores on 2 machines") {
			t.Errorf("run %s, VM 2 (placed by eviction):\n%s", run, out)
		}
		out = mustRun(t, db, "explain", "--run", run, "--vm", "4")
		if !strings.Contains(out, "rejected") || !strings.Contains(out, "failed: AreNodeResourcesValid emptied the candidate set; short of cores on 2 machines") {
			t.Errorf("run %s, VM 4 (rejected):\n%s", run, out)
		}
	}

	// VM 5 went to the machine with 2 free cores; the other scored worse
	// on BestFit, by the rule name the run stored.
	var rec explainRecord
	if err := json.Unmarshal([]byte(mustRun(t, db, "explain", "--run", "1", "--vm", "5", "--format", "json")), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Machine == nil || rec.Pick != "best" || len(rec.RuleOrder) != 3 || rec.RuleOrder[1] != "BestFit" || len(rec.Top) != 2 {
		t.Fatalf("VM 5 record: %+v", rec)
	}
	for _, tm := range rec.Top {
		if len(tm.Scores) != 3 || tm.Scores[1].Rule != "BestFit" {
			t.Fatalf("scores without rule names: %+v", tm)
		}
	}
	other := 1 - *rec.Machine
	out := mustRun(t, db, "explain", "--run", "1", "--vm", "5", "--machine", string(rune('0'+other)))
	if !strings.Contains(out, "it lost on BestFit") || strings.Contains(out, "tied with") {
		t.Errorf("compare:\n%s", out)
	}
	out = mustRun(t, db, "explain", "--run", "2", "--vm", "5", "--machine", string(rune('0'+other)))
	if !strings.Contains(out, "bestfit policy") || strings.Contains(out, "tied with") {
		t.Errorf("baseline compare:\n%s", out)
	}

	// A flag a baseline cannot honour is refused, not recorded.
	if _, err := run(t, db, "replay", "--dataset", "ev", "--policy", "bestfit", "--k", "16"); err == nil ||
		!strings.Contains(err.Error(), "cannot honour it") {
		t.Errorf("bestfit --k 16: %v", err)
	}
}

// TestCompareScores: the verdict on another machine follows how the chosen
// machine was picked; it never calls two machines tied when the other
// scored better (a conflict-avoidance or safety pick is not the best by the
// preference rules, so the best recorded machine is not the chosen one).
func TestCompareScores(t *testing.T) {
	sc := func(a, b int64) []optimizer.RuleScore {
		return []optimizer.RuleScore{{Rule: "PreferNonEmptyMachines", Score: a}, {Rule: "BestFit", Score: b}}
	}
	chosen := int64(7)
	top := []optimizer.TopMachine{{Machine: 3, Scores: sc(0, 1)}, {Machine: 5, Scores: sc(0, 2)}}
	for _, tc := range []struct {
		name, pick string
		top        []optimizer.TopMachine
		other      int64
		want, not  string
	}{
		{"avoidance: the best recorded machine beat the chosen one", "avoidance", top, 3, "conflict avoidance", "tied with"},
		{"safety", "safety", top, 3, "safety score", "tied with"},
		{"best: the chosen machine tied with the best", "best", top, 5, "it lost on BestFit: score 2 vs 1", "tied with"},
		{"best: a tie", "best", top, 3, "tied with the chosen machine on every rule", "lost"},
		{"chosen recorded and worse", "avoidance", append(top, optimizer.TopMachine{Machine: 7, Scores: sc(0, 2)}), 3,
			"it scored better on BestFit (1 vs 2", "tied with"},
		{"eviction", "eviction", top, 3, "evicting 2 low-priority VMs", "tied with"},
		{"old record without a pick", "", top, 3, "not recorded", "tied with"},
	} {
		rec := &explainRecord{Machine: &chosen, Pick: tc.pick, Top: tc.top, Evicted: 2, FailedRule: "AreNodeResourcesValid"}
		got := compareScores(rec, tc.other)
		if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}

// TestExplainByName: explain takes a VM's and a machine's names as well as
// their ids (issue 52: --vm vm01483 was a flag parse error and --machine
// east-m006 was refused), with the same answer; an unknown name is one
// line naming it.
func TestExplainByName(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	explainZone(t, db)
	mustRun(t, db, "replay", "--dataset", "ev")
	// The zone's VMs share one name: refused, asking for the vm_id.
	shared := strings.TrimSpace(lastLine(mustRun(t, db, "sql", "SELECT name FROM vm WHERE vm_id = 5", "--format", "csv")))
	if _, err := run(t, db, "explain", "--run", "1", "--vm", shared); err == nil || !strings.Contains(err.Error(), "give the vm_id") {
		t.Errorf("a name 6 VMs share: %v", err)
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SQL().Exec("UPDATE vm SET name = 'vm-' || lpad(CAST(vm_id AS VARCHAR), 3, '0')"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	name := "vm-005"
	byID := mustRun(t, db, "explain", "--run", "1", "--vm", "5", "--machine", "0", "--format", "json")
	byName := mustRun(t, db, "explain", "--run", "1", "--vm", name, "--machine", "A", "--format", "json")
	if byID != byName {
		t.Errorf("by id:\n%s\nby name:\n%s", byID, byName)
	}
	if _, err := run(t, db, "explain", "--run", "1", "--vm", "no-such-vm"); err == nil || !strings.Contains(err.Error(), `no VM named "no-such-vm"`) {
		t.Errorf("unknown VM: %v", err)
	}
	if _, err := run(t, db, "explain", "--run", "1", "--vm", name, "--machine", "Z"); err == nil || !strings.Contains(err.Error(), `no machine named "Z"`) {
		t.Errorf("unknown machine: %v", err)
	}
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

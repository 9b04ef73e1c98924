package analysis_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/lpinterval"
	"placelab/analysis/replay"
	"placelab/analysis/whatif"
	"strings"
	"testing"
)

// TestStoredPlacementsWithinCapacity is the "done when" of issue 13: on a
// trace whose requests mix VM sizes, the independent SQL check (CheckRun)
// finds no machine over capacity in any dimension at any time for single-
// and multi-agent runs, in simulated and real time; and every VM a
// multi-agent run stores as placed and never departing is where the
// authoritative commit store has it. Before the fix the agent paths stored
// the machines of a request's VMs in ORDER's order against the VMs in
// request order, putting large VMs on the small VMs' machines.
func TestStoredPlacementsWithinCapacity(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 3000, 1)
	cases := []struct {
		name string
		spec func() analysis.Spec
	}{
		{"protean", func() analysis.Spec { return analysis.DefaultSpec("mixed") }},
		{"bestfit", func() analysis.Spec { s := analysis.DefaultSpec("mixed"); s.Policy = "bestfit"; return s }},
		{"agents 1 sim", func() analysis.Spec { return analysis.DefaultSpec("mixed").WithAgents(1, replay.TimeSim) }},
		{"agents 4 sim x50", func() analysis.Spec {
			s := analysis.DefaultSpec("mixed").WithAgents(4, replay.TimeSim)
			s.Agents.Speedup = 50
			return s
		}},
		{"agents 1 real", func() analysis.Spec { return analysis.DefaultSpec("mixed").WithAgents(1, replay.TimeReal) }},
		{"agents 4 real", func() analysis.Spec { return analysis.DefaultSpec("mixed").WithAgents(4, replay.TimeReal) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec()
			if spec.Agents != nil {
				spec.Agents.CheckEvery = true
			}
			res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Accepted == 0 || res.Summary.Rejected == 0 {
				t.Fatalf("the zone should both place and reject: %+v", res.Summary)
			}
			rep, err := analysis.CheckRun(ctx, db, res.Summary.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Fatalf("run %d breaks capacity on %d (machine, dimension) pairs, first %+v", rep.Run, len(rep.Violations), rep.Violations[0])
			}
			if rep.Placements != int64(res.Summary.VMs) {
				t.Fatalf("check read %d placements, the run stored %d VMs", rep.Placements, res.Summary.VMs)
			}
			if res.Store != nil {
				checkAgainstStore(t, res)
			}
		})
	}
}

// checkAgainstStore compares a multi-agent run's stored rows with the
// authoritative state: a VM placed and never departing is on the machine
// its row names; an evicted or rejected VM is nowhere.
func checkAgainstStore(t *testing.T, res *replay.Result) {
	t.Helper()
	end := map[int64]float64{}
	for _, v := range res.Trace.VMs {
		end[v.ID] = v.End
	}
	idx := map[int32]int32{}
	for i, id := range res.Trace.MachineIDs {
		idx[id] = int32(i)
	}
	compared := 0
	for _, p := range res.Placements {
		got, in := res.Store.Lookup(p.VM)
		switch {
		case p.Outcome == "placed" && math.IsInf(end[p.VM], 1):
			if !in || got.Machine != idx[p.Machine] {
				t.Fatalf("VM %d: stored on machine %d, the commit store has it on %d (present %v)", p.VM, p.Machine, res.Trace.MachineIDs[got.Machine], in)
			}
			compared++
		case p.Outcome != "placed" && in:
			t.Fatalf("VM %d is %s in the run but on machine %d in the commit store", p.VM, p.Outcome, got.Machine)
		}
	}
	if compared == 0 {
		t.Fatal("no censored VM compared: the fixture lost its censored lifetimes")
	}
}

// TestCheckRunFindsOvercommit: the check can fail. A run stored by hand
// with two 16-core VMs on one 16-core machine at overlapping times is
// reported on cores (peak 2) at the second arrival, and one on a machine the
// load lacks as unknown_machine.
func TestCheckRunFindsOvercommit(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 50, 2)
	tr, err := analysis.LoadTrace(ctx, db, "mixed", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	var big []int64
	for _, v := range tr.VMs {
		if tr.TypeNames[v.Type] == "f16" || tr.TypeNames[v.Type] == "d16" {
			big = append(big, v.ID)
		}
	}
	if len(big) < 3 {
		t.Fatalf("fixture has %d 16-core VMs", len(big))
	}
	res := &replay.Result{Trace: tr, Placements: []replay.PlacementRow{
		{VM: big[0], T: 0, Machine: 0, Outcome: "placed", EvictedAt: math.NaN(), ResponseS: math.NaN()},
		{VM: big[1], T: 10, Machine: 0, Outcome: "placed", EvictedAt: math.NaN(), ResponseS: math.NaN()},
		{VM: big[2], T: 10, Machine: 999, Outcome: "placed", EvictedAt: math.NaN(), ResponseS: math.NaN()},
	}}
	id, err := analysis.WriteRun(ctx, db, analysis.RunMeta{Engine: "replay", Policy: "hand", Dataset: "mixed", LoadID: tr.LoadID, Version: "test"}, res)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.CheckRun(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]analysis.CapacityViolation{}
	for _, v := range rep.Violations {
		got[fmt.Sprintf("%d/%s", v.MachineID, v.Problem)] = v
	}
	// Machine 0 is a gen4 (16 cores): both 16-core VMs end after t = 10.
	if v, ok := got["0/cores"]; !ok || math.Abs(v.Peak-2) > 1e-9 || v.AtS != 10 {
		t.Fatalf("want machine 0 over cores at peak 2 at t=10, got %+v", rep.Violations)
	}
	if _, ok := got["999/unknown_machine"]; !ok {
		t.Fatalf("want machine 999 reported unknown, got %+v", rep.Violations)
	}
	// whatif put a VM of an unknown machine id on machine 0 (defect 7): now
	// it refuses, naming the VM and the machine.
	if _, err := whatif.Migrate(ctx, db, id, whatif.MigrateOptions{At: 10, Budget: 5}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("VM %d on machine 999", big[2])) {
		t.Fatalf("whatif over a placement on machine 999: %v", err)
	}
}

// TestRunPinsItsLoad: a run records the load it read; after the dataset is
// re-ingested, reading the run against the data is refused rather than
// re-pointed at the new rows (defect 7).
func TestRunPinsItsLoad(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 300, 3)
	res, err := analysis.Run(ctx, db, analysis.DefaultSpec("mixed"), analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := analysis.LoadRunInput(ctx, db, res.Summary.RunID)
	if err != nil || in.LoadID != res.Summary.LoadID || in.LoadID == 0 {
		t.Fatalf("run input %+v, %v; summary load %d", in, err, res.Summary.LoadID)
	}
	testkit.MixedZone(t, db, "mixed", 300, 4) // re-ingest: a new load replaces the old
	if _, err := analysis.CheckRun(ctx, db, res.Summary.RunID); !errors.Is(err, analysis.ErrLoadGone) {
		t.Fatalf("check of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
	if _, err := whatif.Migrate(ctx, db, res.Summary.RunID, whatif.DefaultMigrateOptions()); !errors.Is(err, analysis.ErrLoadGone) {
		t.Fatalf("whatif of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
	if _, err := lpinterval.Run(ctx, db, lpinterval.DefaultOptions().For(res.Summary.RunID)); !errors.Is(err, analysis.ErrLoadGone) {
		t.Fatalf("lpbound of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
}

package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"placelab/analysis/replay"
	"strings"
	"testing"

	store "placelab/sql"
)

// mixedZone writes a zone whose service requests mix VM sizes — the case
// the synthetic trace never produces and that hid defect 1 of issue 13 (the
// agents stored machines by position while Protean places the largest VM
// first). Three SKUs (one memory-heavy), 4 clusters × 2 racks × 5 machines,
// eight VM types from 1 to 16 cores with different memory and SSD shapes;
// requests of 1–6 VMs of random types; a tenth low priority; a fifth
// censored (still alive at the end); a few alive before collection began
// (negative start). Load is high enough to reject and to evict.
func mixedZone(t testing.TB, db *store.DB, name string, vms int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: name, Format: "test", Source: "mixed"}, func(w *store.Writer) error {
		skus := [][]any{{"gen4", 16.0, 64.0, 400.0}, {"gen5", 32.0, 128.0, 800.0}, {"mem", 8.0, 256.0, 200.0}}
		for i, s := range skus {
			if err := w.Append("sku", s[0], int32(i+4), s[1], s[2], s[3], 0.0, 0.0, 0.0, nil); err != nil {
				return err
			}
		}
		id := int32(0)
		for c := 0; c < 4; c++ {
			sku := skus[c%len(skus)][0]
			for r := 0; r < 2; r++ {
				for m := 0; m < 5; m++ {
					if err := w.Append("machine", id, fmt.Sprintf("m%d", id), "z", "dc", fmt.Sprintf("c%d", c), fmt.Sprintf("r%d", r),
						int16(m%2), sku, "healthy"); err != nil {
						return err
					}
					id++
				}
			}
		}
		types := []struct {
			name             string
			cores, mem, disk float64
		}{{"a1", 1, 2, 10}, {"a2", 2, 4, 20}, {"d4", 4, 16, 50}, {"d8", 8, 32, 100}, {"e4", 4, 64, 20},
			{"e8", 8, 128, 40}, {"f16", 16, 32, 200}, {"d16", 16, 64, 300}}
		for _, ty := range types {
			if err := w.Append("vm_type", ty.name, nil, ty.cores, ty.mem, ty.disk, nil, nil, nil); err != nil {
				return err
			}
		}
		vm, tenant := int64(0), 0
		tm := -3600.0
		for vm < int64(vms) {
			tm += rng.ExpFloat64() * 40
			n := 1 + rng.IntN(6)
			prio := int16(0)
			if rng.Float64() < 0.1 {
				prio = 1
			}
			for k := 0; k < n && vm < int64(vms); k++ {
				ty := types[rng.IntN(len(types))].name
				var end any
				if rng.Float64() > 0.2 {
					end = tm + 60 + rng.ExpFloat64()*6*3600
				}
				if err := w.Append("vm", vm, fmt.Sprintf("v%d", vm), fmt.Sprintf("t%d", tenant), nil, ty, prio, tm, end,
					nil, nil, nil, nil, nil); err != nil {
					return err
				}
				vm++
			}
			tenant++
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

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
	db := memDB(t)
	mixedZone(t, db, "mixed", 3000, 1)
	cases := []struct {
		name string
		spec func() Spec
	}{
		{"protean", func() Spec { return DefaultSpec("mixed") }},
		{"bestfit", func() Spec { s := DefaultSpec("mixed"); s.Policy = "bestfit"; return s }},
		{"agents 1 sim", func() Spec { return DefaultSpec("mixed").WithAgents(1, replay.TimeSim) }},
		{"agents 4 sim x50", func() Spec {
			s := DefaultSpec("mixed").WithAgents(4, replay.TimeSim)
			s.Agents.Speedup = 50
			return s
		}},
		{"agents 1 real", func() Spec { return DefaultSpec("mixed").WithAgents(1, replay.TimeReal) }},
		{"agents 4 real", func() Spec { return DefaultSpec("mixed").WithAgents(4, replay.TimeReal) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec()
			if spec.Agents != nil {
				spec.Agents.CheckEvery = true
			}
			res, err := Run(ctx, db, spec, RunOptions{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Accepted == 0 || res.Summary.Rejected == 0 {
				t.Fatalf("the zone should both place and reject: %+v", res.Summary)
			}
			rep, err := CheckRun(ctx, db, res.Summary.RunID)
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
	db := memDB(t)
	mixedZone(t, db, "mixed", 50, 2)
	tr, err := LoadTrace(ctx, db, "mixed", math.Inf(-1), math.Inf(1))
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
	id, err := WriteRun(ctx, db, RunMeta{Engine: "replay", Policy: "hand", Dataset: "mixed", LoadID: tr.LoadID, Version: "test"}, res)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CheckRun(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]CapacityViolation{}
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
	if _, err := WhatIfMigrate(ctx, db, id, MigrateOptions{At: 10, Budget: 5}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("VM %d on machine 999", big[2])) {
		t.Fatalf("whatif over a placement on machine 999: %v", err)
	}
}

// TestRunPinsItsLoad: a run records the load it read; after the dataset is
// re-ingested, reading the run against the data is refused rather than
// re-pointed at the new rows (defect 7).
func TestRunPinsItsLoad(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	mixedZone(t, db, "mixed", 300, 3)
	res, err := Run(ctx, db, DefaultSpec("mixed"), RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := LoadRunInput(ctx, db, res.Summary.RunID)
	if err != nil || in.LoadID != res.Summary.LoadID || in.LoadID == 0 {
		t.Fatalf("run input %+v, %v; summary load %d", in, err, res.Summary.LoadID)
	}
	mixedZone(t, db, "mixed", 300, 4) // re-ingest: a new load replaces the old
	if _, err := CheckRun(ctx, db, res.Summary.RunID); !errors.Is(err, ErrLoadGone) {
		t.Fatalf("check of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
	if _, err := WhatIfMigrate(ctx, db, res.Summary.RunID, DefaultMigrateOptions()); !errors.Is(err, ErrLoadGone) {
		t.Fatalf("whatif of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
	if _, err := LPBoundRun(ctx, db, res.Summary.RunID, DefaultLPBoundOptions()); !errors.Is(err, ErrLoadGone) {
		t.Fatalf("lpbound of a run whose load was replaced: %v, want ErrLoadGone", err)
	}
}

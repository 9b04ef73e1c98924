package lpinterval

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/datasets/synth"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// TestLPBoundRunByHand bounds a worst-fit replay of the hand zone (two
// 10-core machines). At t=150 VM 0 (4 cores) and VM 1 (2 cores) are alive
// and worst fit has spread them over both machines: 6 of 20 cores, density
// 0.3; one machine holds both, so LB = UB = 1 machine, 10 cores, density
// 0.6 both ways, and one machine could have been emptied. At t=4500 four
// 4-core VMs need two machines whatever the policy: nothing to empty.
func TestLPBoundRunByHand(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	id := replayHand(t, db, "hand", 9000)
	var packingRuns []int64
	for pass := 0; pass < 2; pass++ { // the second pass replaces the first's rows
		o := DefaultOptions()
		o.Every = 150
		rep, err := Run(ctx, db, o.For(id))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, s := range rep.Snapshots {
			if s.VMs == 0 {
				continue
			}
			if !(s.LBMachines <= s.UBMachines && s.UBMachines <= float64(s.OnlineMachines) && s.LBDensity <= s.UBDensity+1e-12 && s.OnlineDensity <= s.LBDensity+1e-12) {
				t.Errorf("t=%v: interval out of order: %+v", s.T, s)
			}
			switch s.T {
			case 150:
				checked++
				if s.VMs != 2 || s.OnlineMachines != 2 || s.LBMachines != 1 || s.UBMachines != 1 || s.LBCores != 10 || s.UBCores != 10 ||
					math.Abs(s.OnlineDensity-0.3) > 1e-9 || math.Abs(s.LBDensity-0.6) > 1e-9 || math.Abs(s.UBDensity-0.6) > 1e-9 ||
					s.EmptiableMachines != 1 || !s.Converged {
					t.Errorf("t=150: %+v", s)
				}
			case 4500:
				checked++
				if s.VMs != 4 || s.OnlineMachines != 2 || s.LBMachines != 2 || s.UBMachines != 2 || s.LBCores != 20 || s.EmptiableMachines != 0 {
					t.Errorf("t=4500: %+v", s)
				}
			}
		}
		if checked != 2 {
			t.Fatalf("snapshots %+v", rep.Snapshots)
		}
		var rows, withVMs int
		db.SQL().QueryRow("SELECT count(*) FROM run_metric WHERE run_id = ? AND metric LIKE 'lp!_%' ESCAPE '!'", id).Scan(&rows)
		for _, s := range rep.Snapshots {
			if s.VMs > 0 {
				withVMs++
			}
		}
		if rows != withVMs*len(lpMetrics) {
			t.Fatalf("pass %d: %d lp_* rows for %d snapshots with VMs × %d metrics", pass, rows, withVMs, len(lpMetrics))
		}
		// The peak's packing is stored, once: an earlier call's is replaced.
		var ids []int64
		for _, s := range rep.Snapshots {
			if s.PackingRun > 0 {
				ids = append(ids, s.PackingRun)
			}
		}
		var offline int
		db.SQL().QueryRow("SELECT count(*) FROM run WHERE engine = 'offline'").Scan(&offline)
		if len(ids) != 1 || offline != 1 {
			t.Fatalf("pass %d: packing runs %v, %d offline runs stored", pass, ids, offline)
		}
		packingRuns = append(packingRuns, ids[0])
	}
	// The stored packing passes the SQL capacity check and holds every VM
	// alive at the peak (t=4500: four).
	chk, err := analysis.CheckRun(ctx, db, packingRuns[1])
	if err != nil || len(chk.Violations) != 0 || chk.Placements != 4 {
		t.Fatalf("check of the packing run: %+v %v", chk, err)
	}
	if _, err := Run(ctx, db, DefaultOptions().For(packingRuns[1])); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Errorf("bounding an offline packing: %v", err)
	}
	if _, err := Run(ctx, db, DefaultOptions().For(id+100)); !errors.Is(err, analysis.ErrNoRun) {
		t.Errorf("missing run: %v", err)
	}
	for _, bad := range []func(*Options){
		func(o *Options) { o.Every = 0 },
		func(o *Options) { o.Every = math.NaN() },
		func(o *Options) { o.Every = math.Inf(1) },
		func(o *Options) { o.Packings = "some" },
		func(o *Options) { o.Solve.TimeLimit = -time.Second },
	} {
		o := DefaultOptions()
		bad(&o)
		if _, err := Run(ctx, db, o.For(id)); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// replayHand replays dataset ds of the hand zone's shape through worst fit
// (which spreads VMs, leaving room to pack) and stores the run.
func replayHand(t *testing.T, db *store.DB, ds string, to float64) int64 {
	t.Helper()
	ctx := context.Background()
	spec := analysis.DefaultSpec(ds)
	spec.Policy = "worstfit"
	spec.To, spec.Interval = to, 3600 // samples to the last hour before to: the snapshots' span
	res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Summary.RunID
}

// TestLPBoundStartsAtFirstPlacement: on a trace whose times start at day 24,
// the snapshots start at the run's first placement, not at t = 0, so none
// of them is empty while VMs live (the old loop made 24 days of empty
// snapshots, 2,073 of them at --every 1000s).
func TestLPBoundStartsAtFirstPlacement(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	const offset = 24 * 86400
	_, err := db.Ingest(ctx, store.IngestInfo{Dataset: "late", Format: "test", Source: "late"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		for i, name := range []string{"A", "B"} {
			if err := w.Append("machine", int32(i), name, "z", "dc", "c1", "r1", int16(0), "s10", "healthy"); err != nil {
				return err
			}
		}
		if err := w.Append("vm_type", "c4", nil, 4.0, 8.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i, v := range [][2]float64{{0, 3000}, {10, 5000}, {20, 5000}} {
			if err := w.Append("vm", int64(i), "v", string(rune('a'+i)), nil, "c4", int16(0), offset+v[0], offset+v[1], nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
	id := replayHand(t, db, "late", math.Inf(1))
	o := DefaultOptions()
	o.Every = 1000
	rep, err := Run(ctx, db, o.For(id))
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != offset || len(rep.Snapshots) == 0 || rep.Snapshots[0].T != offset {
		t.Fatalf("from %v, first snapshot %+v", rep.From, rep.Snapshots[:min(1, len(rep.Snapshots))])
	}
	for _, s := range rep.Snapshots {
		if s.T < offset+5000 && s.VMs == 0 {
			t.Errorf("empty snapshot at t=%v while VMs live", s.T)
		}
	}
	if len(rep.Snapshots) > 7 {
		t.Errorf("%d snapshots over a 5000 s run at every 1000 s", len(rep.Snapshots))
	}
	// The means of densities are weighted by allocated cores (issue 52: a
	// first snapshot of one VM at 4% dragged the plain mean below every
	// loaded snapshot's), recomputed here from the snapshots.
	var alloc, online, ub, lb float64
	for _, s := range rep.Snapshots {
		if s.VMs > 0 {
			alloc, online, ub, lb = alloc+s.AllocatedCores, online+s.OnlineCores, ub+s.UBCores, lb+s.LBCores
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	if !near(rep.MeanOnlineDensity, alloc/online) || !near(rep.MeanLBDensity, alloc/ub) || !near(rep.MeanUBDensity, alloc/lb) {
		t.Errorf("means %v %v %v, want Σ allocated / Σ cores: %v %v %v", rep.MeanOnlineDensity, rep.MeanLBDensity, rep.MeanUBDensity,
			alloc/online, alloc/ub, alloc/lb)
	}
}

// TestLPBoundRunSynthetic bounds a Protean replay of a small synthetic zone
// (four hardware generations, five dimensions, VM types some SKUs cannot
// host): at every snapshot LB ≤ UB ≤ what Protean used, and every UB packing,
// stored as an offline run, passes the SQL capacity check and holds exactly
// the VMs alive at its snapshot.
func TestLPBoundRunSynthetic(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 300, 6000, 2, 0
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	spec := analysis.DefaultSpec("s")
	res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Every, o.Packings, o.Solve.TimeLimit = 12*3600, PackingsAll, 10*time.Second
	rep, err := Run(ctx, db, o.For(res.Summary.RunID))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		n++
		if !(s.LBMachines <= s.UBMachines && s.UBMachines <= float64(s.OnlineMachines)) ||
			!(s.LBCores <= s.UBCores && s.UBCores <= s.OnlineCores) || s.UBDensity > 1+1e-9 ||
			!(s.OnlineDensity <= s.LBDensity+1e-12 && s.LBDensity <= s.UBDensity+1e-12) {
			t.Errorf("t=%v: interval out of order: %+v", s.T, s)
		}
		if !s.Converged {
			t.Errorf("t=%v: %s (the bound stays valid, but this small zone should solve)", s.T, s.Stop)
		}
		if s.PackingRun == 0 {
			t.Fatalf("t=%v: no packing stored", s.T)
		}
		chk, err := analysis.CheckRun(ctx, db, s.PackingRun)
		if err != nil || len(chk.Violations) != 0 || chk.Placements != int64(s.VMs) {
			t.Fatalf("t=%v: check of packing run %d: %+v %v", s.T, s.PackingRun, chk, err)
		}
		// Independently of the engine: the machines the stored packing
		// uses, counted in SQL, are UB.
		var used float64
		db.SQL().QueryRow("SELECT count(DISTINCT machine_id) FROM placement WHERE run_id = ?", s.PackingRun).Scan(&used)
		if used != s.UBMachines {
			t.Errorf("t=%v: packing run uses %v machines, UB %v", s.T, used, s.UBMachines)
		}
	}
	if n < 4 {
		t.Fatalf("%d snapshots with VMs", n)
	}
	// Reproducible: a second call gives the same interval, snapshot by
	// snapshot (CBC stops on node limits, not on the clock).
	o.Packings = PackingsNone
	again, err := Run(ctx, db, o.For(res.Summary.RunID))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range rep.Snapshots {
		a := again.Snapshots[i]
		if s.LBMachines != a.LBMachines || s.UBMachines != a.UBMachines || s.LBCores != a.LBCores || s.UBCores != a.UBCores {
			t.Errorf("t=%v: first call [%v, %v] machines, [%v, %v] cores; second [%v, %v], [%v, %v]", s.T,
				s.LBMachines, s.UBMachines, s.LBCores, s.UBCores, a.LBMachines, a.UBMachines, a.LBCores, a.UBCores)
		}
	}
	t.Logf("online %.2f%%, interval [%.2f%%, %.2f%%], emptiable %.1f, widest machine interval %.2f%%, %.2fs",
		100*rep.MeanOnlineDensity, 100*rep.MeanLBDensity, 100*rep.MeanUBDensity, rep.MeanEmptiable, rep.MaxIntervalGapPct, rep.Seconds)
}

// TestBindingDims: on a 10-core, 40 GB, 100 GB-SSD machine, a type asking 8
// GB per core (the machine has 4) makes memory bind; SSD at most 5 GB per
// core (the machine has 10) cannot bind and is dropped.
func TestBindingDims(t *testing.T) {
	sku := optimizer.SKU{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 10, optimizer.Memory: 40, optimizer.SSD: 100}}
	types := []optimizer.VMType{
		{Name: "t1", Demand: []optimizer.Vec{{optimizer.Cores: 2, optimizer.Memory: 4, optimizer.SSD: 10}}, Supported: []bool{true}},
		{Name: "t2", Demand: []optimizer.Vec{{optimizer.Cores: 1, optimizer.Memory: 8, optimizer.SSD: 5}}, Supported: []bool{true}},
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{sku}, []optimizer.MachineSpec{{Name: "m", Cluster: "c", Rack: "r", SKU: 0, Healthy: true}}, types)
	if err != nil {
		t.Fatal(err)
	}
	_, skus, dims := lpBins(inv)
	got := bindingDims(inv, skus, dims)
	if len(got) != 2 || got[0] != optimizer.Cores || got[1] != optimizer.Memory {
		t.Fatalf("binding dims %v of %v", got, dims)
	}
}

// TestLPSolveOverCommittedRun: a run whose packing exceeds a machine (three
// 4-core VMs on one 10-core machine, as an over-committed run leaves it)
// cannot seed UB; the snapshot says so and is bounded without it: two
// machines, LB = UB.
func TestLPSolveOverCommittedRun(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	tr, err := analysis.LoadTrace(ctx, db, "hand", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	z := NewZone(tr.Inv)
	c4 := -1
	for i, vt := range tr.Inv.Types {
		if vt.Name == "c4" {
			c4 = i
		}
	}
	a := &lpAlive{snap: Snapshot{T: 1, VMs: 3, AllocatedCores: 12, OnlineMachines: 1, OnlineCores: 10, OnlineDensity: 1.2},
		counts: make([]int, len(tr.Inv.Types)), vms: make([][]int64, len(tr.Inv.Types)),
		online: []lpbound.Pattern{{Bin: "s10", Items: []string{"c4"}, Counts: []int{3}, X: 1}}}
	a.counts[c4] = 3
	if _, err := z.solve(ctx, a, lpbound.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if s := a.snap; !s.OnlineOverCapacity || s.LBMachines != 2 || s.UBMachines != 2 || !s.Converged {
		t.Fatalf("%+v", s)
	}
}

package analysis

import (
	"context"
	"errors"
	"math"
	"placelab/analysis/replay"
	"testing"
	"time"

	"placelab/datasets/synth"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
)

// TestLPBoundRunByHand bounds a worst-fit replay of the hand zone (two
// 10-core machines). At t=150 VM 0 (4 cores) and VM 1 (2 cores) are alive
// and worst fit has spread them over both machines: 6 of 20 cores, density
// 0.3; one machine holds both, so the bound is 1 machine, 10 cores, density
// 0.6, a gap of 0.3. At t=4500 four 4-core VMs need two machines whatever
// the policy: no gap.
func TestLPBoundRunByHand(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	handZone(t, db)
	tr, err := LoadTrace(ctx, db, "hand", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	wf, err := replay.NewAllocator("worstfit", tr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Replay(ctx, tr, wf, replay.ReplayOptions{Interval: 3600, To: 9000})
	if err != nil {
		t.Fatal(err)
	}
	id, err := WriteRun(ctx, db, RunMeta{Engine: "replay", Policy: "worstfit", Dataset: "hand", Version: "test", Seed: 1}, res)
	if err != nil {
		t.Fatal(err)
	}
	for pass := 0; pass < 2; pass++ { // the second pass replaces the first's rows
		rep, err := LPBoundRun(ctx, db, id, 150, lpbound.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, s := range rep.Snapshots {
			if s.VMs > 0 && (s.BoundMachines > float64(s.OnlineMachines) || s.BoundDensity < s.OnlineDensity-1e-9) {
				t.Errorf("t=%v: bound %v machines / density %v against online %d / %v", s.T, s.BoundMachines, s.BoundDensity, s.OnlineMachines, s.OnlineDensity)
			}
			switch s.T {
			case 150:
				checked++
				if s.VMs != 2 || s.OnlineMachines != 2 || s.BoundMachines != 1 || s.BoundCores != 10 ||
					math.Abs(s.OnlineDensity-0.3) > 1e-9 || math.Abs(s.BoundDensity-0.6) > 1e-9 || math.Abs(s.Gap-0.3) > 1e-9 {
					t.Errorf("t=150: %+v", s)
				}
			case 4500:
				checked++
				if s.VMs != 4 || s.OnlineMachines != 2 || s.BoundMachines != 2 || s.BoundCores != 20 || math.Abs(s.Gap) > 1e-9 {
					t.Errorf("t=4500: %+v", s)
				}
			}
		}
		if checked != 2 {
			t.Fatalf("snapshots %+v", rep.Snapshots)
		}
		var rows, withVMs int
		db.SQL().QueryRow("SELECT count(*) FROM run_metric WHERE run_id = ? AND metric = 'lp_bound_density'", id).Scan(&rows)
		for _, s := range rep.Snapshots {
			if s.VMs > 0 {
				withVMs++
			}
		}
		if rows != withVMs {
			t.Fatalf("pass %d: %d lp_bound_density rows for %d snapshots with VMs", pass, rows, withVMs)
		}
	}
	res2, err := db.QueryView(ctx, "lpbound_gap", "")
	if err != nil || len(res2.Rows) != 1 {
		t.Fatalf("lpbound_gap: %v %v", res2, err)
	}
	if _, err := LPBoundRun(ctx, db, id+100, 3600, lpbound.Options{}, nil); !errors.Is(err, ErrNoRun) {
		t.Errorf("missing run: %v", err)
	}
	if _, err := LPBoundRun(ctx, db, id, 0, lpbound.Options{}, nil); err == nil {
		t.Error("every = 0 accepted")
	}
}

// TestLPBoundRunSynthetic bounds a Protean replay of a small synthetic zone
// (four hardware generations, VM types some SKUs cannot host): at every
// snapshot the bound stays at or below what Protean used.
func TestLPBoundRunSynthetic(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 300, 6000, 2, 0
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTrace(ctx, db, "s", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	ocfg := optimizer.DefaultConfig()
	ocfg.Weights = replay.ScarcityWeights(tr)
	alloc, err := replay.NewAllocator("protean", tr, ocfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Replay(ctx, tr, alloc, replay.ReplayOptions{From: math.Inf(-1), To: math.Inf(1), Interval: 3600})
	if err != nil {
		t.Fatal(err)
	}
	id, err := WriteRun(ctx, db, RunMeta{Engine: "replay", Policy: "protean", Dataset: "s", Version: "test", Seed: 1}, res)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := LPBoundRun(ctx, db, id, 12*3600, lpbound.Options{TimeLimit: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		n++
		if s.BoundMachines > float64(s.OnlineMachines) || s.BoundDensity < s.OnlineDensity-1e-9 || s.BoundDensity > 1+1e-9 {
			t.Errorf("t=%v: bound %v machines, density %.4f; Protean %d machines, density %.4f", s.T, s.BoundMachines, s.BoundDensity, s.OnlineMachines, s.OnlineDensity)
		}
		if !s.Converged {
			t.Logf("t=%v: column generation did not converge (bound still valid)", s.T)
		}
	}
	if n < 4 {
		t.Fatalf("%d snapshots with VMs", n)
	}
	t.Logf("mean gap %.2f points, worst %.2f, mean machines over the bound %.1f, %.2fs", 100*rep.MeanGap, 100*rep.MaxGap, rep.MeanMachineGap, rep.Seconds)
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

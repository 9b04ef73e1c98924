package analysis_test

import (
	"context"
	"math"
	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/whatif"
	"testing"

	"placelab/datasets/synth"
	"placelab/optimizer"
	store "placelab/sql"
)

// TestReplayByHand checks a replay worked out by hand: placements,
// the rejection, and the packing density and utilization samples.
func TestReplayByHand(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	tr, err := analysis.LoadTrace(ctx, db, "hand", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	alloc, err := replay.NewAllocator("protean", tr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Replay(ctx, tr, alloc, replay.ReplayOptions{Interval: 3600, To: 9000})
	if err != nil {
		t.Fatal(err)
	}
	pl := res.Placements
	if len(pl) != 6 {
		t.Fatalf("%d placement rows", len(pl))
	}
	// VM 1 joins VM 0's machine (PreferNonEmptyMachines), VM 2 too (4+4 ≤ 10
	// after VM 1 left); VM 3 and VM 4 take the other machine (8 of 10);
	// VM 5 finds 2 free cores on each machine: rejected by resources.
	m0 := pl[0].Machine
	if pl[1].Machine != m0 || pl[2].Machine != m0 {
		t.Errorf("VMs 1, 2 on %d, %d; want VM 0's machine %d", pl[1].Machine, pl[2].Machine, m0)
	}
	if pl[3].Machine == m0 || pl[4].Machine != pl[3].Machine {
		t.Errorf("VMs 3, 4 on %d, %d", pl[3].Machine, pl[4].Machine)
	}
	if pl[5].Outcome != "rejected" || pl[5].Reason != "AreNodeResourcesValid" {
		t.Errorf("VM 5: %+v", pl[5])
	}
	if res.Summary.Accepted != 5 || res.Summary.Rejected != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
	// Sample at t=3600: VM 0 alone → density 4/10, utilization 4/20.
	// Sample at t=7200 (VM 0 ends at 7200, departures first): VMs 3, 4 on one
	// machine → 8/10, 8/20.
	want := map[float64][2]float64{3600: {0.4, 0.2}, 7200: {0.8, 0.4}}
	got := map[float64][2]float64{}
	for _, m := range res.Metrics {
		v := got[m.T]
		switch m.Metric {
		case "packing_density":
			v[0] = m.Value
		case "utilization":
			v[1] = m.Value
		}
		got[m.T] = v
	}
	for ts, w := range want {
		if g := got[ts]; math.Abs(g[0]-w[0]) > 1e-9 || math.Abs(g[1]-w[1]) > 1e-9 {
			t.Errorf("t=%v: density, utilization = %v, want %v", ts, g, w)
		}
	}
	// Stored and read back.
	id, err := analysis.WriteRun(ctx, db, analysis.RunMeta{Engine: "replay", Policy: "protean", Dataset: "hand", LoadID: tr.LoadID, Version: "test", Seed: 1}, res)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	db.SQL().QueryRow("SELECT count(*) FROM placement WHERE run_id = ?", id).Scan(&n)
	if n != 6 {
		t.Fatalf("placement rows %d", n)
	}
	db.SQL().QueryRow("SELECT count(*) FROM explain WHERE run_id = ? AND level = 'machine'", id).Scan(&n)
	if n != 6 {
		t.Fatalf("explain rows %d", n)
	}
	var failed string
	db.SQL().QueryRow("SELECT failed_rule FROM explain WHERE run_id = ? AND vm_id = 5 AND level = 'machine'", id).Scan(&failed)
	if failed != "AreNodeResourcesValid" {
		t.Fatalf("failed rule %q", failed)
	}
	// What-if at t=4500: VMs 0, 2 on one machine and 3, 4 on the other, 8 of
	// 10 cores each; neither can be emptied into the other's 2 free cores.
	rep, err := whatif.Migrate(ctx, db, id, whatif.MigrateOptions{At: 4500, Budget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.VMs != 4 || len(rep.Moves) != 0 || math.Abs(rep.DensityBefore-0.8) > 1e-9 {
		t.Fatalf("what-if %+v", rep)
	}
	// Worst fit spreads: VM 1 goes to the empty machine.
	wf, _ := replay.NewAllocator("worstfit", tr, cfg)
	res, err = replay.Replay(ctx, tr, wf, replay.ReplayOptions{From: math.Inf(-1), To: math.Inf(1), Interval: 3600})
	if err != nil {
		t.Fatal(err)
	}
	if res.Placements[1].Machine == res.Placements[0].Machine {
		t.Error("worst fit packed VM 1 next to VM 0")
	}
}

// TestReplayAllPoliciesSynthetic replays a small synthetic zone through every
// policy; each VM ends accepted or rejected exactly once, the state keeps
// its invariants, and the same seed gives the same placements.
func TestReplayAllPoliciesSynthetic(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfgS := synth.DefaultConfig()
	cfgS.Machines, cfgS.VMs, cfgS.Days, cfgS.SeriesVMs = 300, 6000, 2, 0
	if _, err := db.Ingest(ctx, store.IngestInfo{Dataset: "s", Format: "synthetic", Source: "test"}, func(w *store.Writer) error {
		_, err := synth.Write(ctx, w, cfgS, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tr, err := analysis.LoadTrace(ctx, db, "s", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range replay.Policies {
		t.Run(pol, func(t *testing.T) {
			run := func() *replay.Result {
				cfg := optimizer.DefaultConfig()
				cfg.Weights = replay.ScarcityWeights(tr)
				a, err := replay.NewAllocator(pol, tr, cfg)
				if err != nil {
					t.Fatal(err)
				}
				res, err := replay.Replay(ctx, tr, a, replay.DefaultReplayOptions())
				if err != nil {
					t.Fatal(err)
				}
				if err := a.State().CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				return res
			}
			a, b := run(), run()
			s := a.Summary
			if s.VMs != len(tr.VMs) || s.Accepted+s.Rejected != s.VMs {
				t.Fatalf("VMs %d, accepted %d, rejected %d, trace %d", s.VMs, s.Accepted, s.Rejected, len(tr.VMs))
			}
			if s.PackingDensityMean <= 0 || s.PackingDensityMean > 1 || s.UtilizationMean <= 0 {
				t.Fatalf("density %v utilization %v", s.PackingDensityMean, s.UtilizationMean)
			}
			for i := range a.Placements {
				if a.Placements[i].Machine != b.Placements[i].Machine || a.Placements[i].Outcome != b.Placements[i].Outcome {
					t.Fatalf("same seed, placement %d differs", i)
				}
			}
		})
	}
}

// TestReplayRealTraces replays Huawei-East-1 (with a synthetic inventory)
// and Alibaba openb (its own nodes) end to end through the loaders.
func TestReplayRealTraces(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, format string
		files        []string
		inventory    string
	}{
		{"huawei", "huawei", []string{"huawei-east-1/Huawei-East-1-lt.csv"}, "synthetic:400"},
		{"alibaba", "alibaba-openb", []string{"alibaba-gpu-v2023/openb_node_list_all_node.csv", "alibaba-gpu-v2023/openb_pod_list_default.csv"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, tr := testkit.IngestShared(t, tc.name, tc.format, tc.inventory, tc.files...)
			for _, pol := range []string{"protean", "bestfit"} {
				cfg := optimizer.DefaultConfig()
				cfg.Weights = replay.ScarcityWeights(tr)
				a, _ := replay.NewAllocator(pol, tr, cfg)
				res, err := replay.Replay(ctx, tr, a, replay.DefaultReplayOptions())
				if err != nil {
					t.Fatal(err)
				}
				if err := a.State().CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				if res.Summary.Accepted == 0 || res.Summary.VMs != len(tr.VMs) {
					t.Fatalf("%s: %+v", pol, res.Summary)
				}
				if _, err := analysis.WriteRun(ctx, db, analysis.RunMeta{Engine: "replay", Policy: pol, Dataset: tc.name, Version: "test"}, res); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

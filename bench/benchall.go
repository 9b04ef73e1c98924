package bench

import (
	"context"
	"math"
	"placelab/analysis"
	"slices"
	"time"

	"placelab/analysis/characterize"
	"placelab/analysis/lpinterval"
	"placelab/analysis/replay"
	"placelab/analysis/timing"
	"placelab/datasets"
	"placelab/datasets/synth"
	"placelab/optimizer/lpbound"
	"placelab/optimizer/paragon"
	"placelab/optimizer/violation"
)

// BenchAll is placelab bench all: each engine's figure that an issue asked
// for, with its baseline measured in the same run where one exists.
type BenchAll struct {
	Quick     bool                       `json:"quick"`
	Allocator timing.AllocatorComparison `json:"allocator"`
	// Replay: one zone replayed end to end by Protean and by best fit on
	// equal terms — one spec through the run pipeline: the same validators,
	// eviction on for both, explanations off for both — with Protean's
	// background refresh on as in `placelab replay`. Seconds are the wall time of the
	// whole replay (decisions, departures, refreshes, metric samples);
	// placements per wall second are VMs placed over that time.
	Replay struct {
		VMs                  int     `json:"vms"`
		Machines             int     `json:"machines"`
		Evict                bool    `json:"evict"`
		Explain              bool    `json:"explain"`
		ProteanSeconds       float64 `json:"protean_seconds"`
		BestFitSeconds       float64 `json:"bestfit_seconds_baseline"`
		ProteanPlacementsPS  float64 `json:"protean_placements_per_wall_sec"`
		BestFitPlacementsPS  float64 `json:"bestfit_placements_per_wall_sec_baseline"`
		ProteanDecisionP99US float64 `json:"protean_decision_latency_p99_us"`
		BestFitDecisionP99US float64 `json:"bestfit_decision_latency_p99_us_baseline"`
		PackingDensity       float64 `json:"protean_packing_density_mean"`
		BestFitDensity       float64 `json:"bestfit_packing_density_mean"`
	} `json:"replay"`
	Views struct {
		VMs     int     `json:"vms"`
		Seconds float64 `json:"seconds"`
	} `json:"views"`
	LP struct {
		Instance        string  `json:"instance"`
		InstanceSeconds float64 `json:"instance_seconds"`
		InstanceBound   float64 `json:"instance_bound"`
		Snapshots       int     `json:"snapshots"`
		SnapshotSeconds float64 `json:"snapshots_seconds"`
		// Per snapshot with VMs: both LPs and their packings.
		SnapshotMedianSeconds float64 `json:"snapshot_median_seconds"`
		SnapshotMaxSeconds    float64 `json:"snapshot_max_seconds"`
		Converged             int     `json:"converged_snapshots"`
		MaxIntervalGapPct     float64 `json:"max_interval_gap_pct"`
	} `json:"lp"`
	PrV struct {
		Nodes                  int     `json:"nodes"`
		MsPerPlacement         float64 `json:"prv_worstfit_ms_per_placement"`
		BaselineMsPerPlacement float64 `json:"worstfit_max_ms_per_placement_baseline"`
	} `json:"prv"`
	Paragon struct {
		Apps      int     `json:"apps"`
		Columns   int     `json:"columns"`
		FoldInUS  float64 `json:"fold_in_us"`
		RetrainMS float64 `json:"retrain_ms_baseline"`
	} `json:"paragon"`
	Seconds float64 `json:"seconds"`
}

// RunBenchAll measures every engine; quick uses smaller sizes (seconds, not
// minutes). shared is the ../shared/data directory (for the Falkenauer
// u1000 instance; a generated instance otherwise). production, when not
// nil, adds the allocator's production-size point (RunProduction: minutes,
// not part of the default run).
func RunBenchAll(ctx context.Context, quick bool, shared string, production *timing.ProductionOptions, progress func(done, total int64)) (*BenchAll, error) {
	start := time.Now()
	b := &BenchAll{Quick: quick}
	step := func(i int64) {
		if progress != nil {
			progress(i, 6)
		}
	}
	// 1. Allocator: cache on against off on the same requests, upkeep
	// timed, three reps.
	step(0)
	ao := timing.DefaultOptions()
	ao.VMs, ao.Explain = 10000, false
	if quick {
		ao.Machines, ao.VMs = 3000, 2000
	}
	var err error
	if b.Allocator, err = timing.CompareCache(ctx, ao); err != nil {
		return nil, err
	}
	if production != nil {
		if b.Allocator.Production, err = timing.RunProduction(ctx, *production); err != nil {
			return nil, err
		}
	}
	// 2. Replay end to end: Protean against best fit on one zone.
	step(1)
	db, err := benchReplayZone(ctx, synth.DefaultConfig(), quick)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tr, err := analysis.LoadTrace(ctx, db, "b", math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	b.Replay.VMs, b.Replay.Machines = len(tr.VMs), len(tr.Inv.Machines)
	var runID int64
	// Both policies through the run pipeline, from one spec: the same
	// validators, eviction setting, window and inventory.
	for _, pol := range []string{"protean", "bestfit"} {
		spec := analysis.DefaultSpec("b")
		spec.Policy = pol
		spec.Engine.Explain = false
		b.Replay.Evict, b.Replay.Explain = spec.Engine.Evict, spec.Engine.Explain
		res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "bench"})
		if err != nil {
			return nil, err
		}
		secs, pps := res.Summary.Seconds, res.Summary.PlacementsPerSec
		if pol == "protean" {
			runID = res.Summary.RunID
			b.Replay.ProteanSeconds, b.Replay.ProteanPlacementsPS = secs, pps
			b.Replay.ProteanDecisionP99US, b.Replay.PackingDensity = res.Summary.LatencyP99US, res.Summary.PackingDensityMean
		} else {
			b.Replay.BestFitSeconds, b.Replay.BestFitPlacementsPS = secs, pps
			b.Replay.BestFitDecisionP99US, b.Replay.BestFitDensity = res.Summary.LatencyP99US, res.Summary.PackingDensityMean
		}
	}
	// 3. Every characterization view.
	step(2)
	t0 := time.Now()
	if _, _, err := characterize.Run(ctx, db, "", nil); err != nil {
		return nil, err
	}
	b.Views.VMs, b.Views.Seconds = len(tr.VMs), time.Since(t0).Seconds()
	// 4. LP: one instance, and hourly snapshots of the replay.
	step(3)
	inst := shared + "/binpacking/falkenauer_u/Falkenauer_u1000_00.txt"
	var p *lpbound.Problem
	if in, err := datasets.ReadInstance(inst); err == nil {
		counts := make([]int, len(in.Counts))
		for i, n := range in.Counts {
			counts[i] = int(n)
		}
		p = lpbound.NewBinPacking(in.Capacity, in.Sizes, counts)
		b.LP.Instance = "falkenauer_u/Falkenauer_u1000_00"
	} else {
		sizes, counts := [][]float64{}, []int{}
		for s := 20.0; s <= 100; s += 4 {
			sizes, counts = append(sizes, []float64{s}), append(counts, 50)
		}
		p = lpbound.NewBinPacking([]float64{150}, sizes, counts)
		b.LP.Instance = "generated: 21 sizes × 50, capacity 150"
	}
	t0 = time.Now()
	lr, err := lpbound.Solve(ctx, p, lpbound.Options{Objective: lpbound.MinCount})
	if err != nil && lr == nil {
		return nil, err
	}
	b.LP.InstanceSeconds, b.LP.InstanceBound = time.Since(t0).Seconds(), lr.Bound
	// Hourly snapshots (issue 14: the demo zone's 336 in ≤ 60 s), every
	// six hours in quick mode; the offline packings are not stored.
	lo := lpinterval.DefaultOptions()
	lo.Packings = lpinterval.PackingsNone
	if quick {
		lo.Every = 6 * 3600
	}
	lp, err := lpinterval.Run(ctx, db, lo.For(runID))
	if err != nil {
		return nil, err
	}
	b.LP.Snapshots, b.LP.SnapshotSeconds = len(lp.Snapshots), lp.Seconds
	b.LP.Converged, b.LP.MaxIntervalGapPct = lp.Converged, lp.MaxIntervalGapPct
	var secs []float64
	for _, s := range lp.Snapshots {
		if s.VMs > 0 {
			secs = append(secs, s.Seconds)
		}
	}
	if len(secs) > 0 {
		b.LP.SnapshotMedianSeconds, b.LP.SnapshotMaxSeconds = replay.Quantile(secs, 0.5), slices.Max(secs)
	}
	// 5. PrV placement against its baseline in one simulation.
	step(4)
	sim := violation.DefaultSimConfig()
	sim.Seeds, sim.Hours = 1, 100
	if quick {
		sim.Hours = 30
	}
	b.PrV.Nodes = sim.Nodes
	hist, arrivals := violation.Synthetic(7, 2000), violation.Synthetic(8, 2000)
	repo, err := violation.NewRepository(hist)
	if err != nil {
		return nil, err
	}
	pols, err := violation.NewPolicies([]string{violation.NamePrVWorstFit, violation.NameWorstFitMax}, repo, violation.PolicyParams{})
	if err != nil {
		return nil, err
	}
	sr, err := violation.Simulate(ctx, repo, arrivals, sim, pols, nil)
	if err != nil {
		return nil, err
	}
	b.PrV.MsPerPlacement = sr.Policy(violation.NamePrVWorstFit).MsPerPlacement
	b.PrV.BaselineMsPerPlacement = sr.Policy(violation.NameWorstFitMax).MsPerPlacement
	// 6. Paragon: fold-in of new apps against retraining with one more app.
	step(5)
	apps, cols := 5000, 40
	if quick {
		apps = 1000
	}
	syn, err := paragon.Synthesize(paragon.SynthOptions{Apps: apps + 200, Configs: cols, Density: 0.25, Dense: apps / 10, Seed: 1})
	if err != nil {
		return nil, err
	}
	rows := make([]map[int]float64, apps+1)
	for i := range rows {
		rows[i] = syn.Perf.Row(i)
	}
	// The classifier as placelab paragon builds it, profiling set forced
	// (cover) so that its cross-validation (once per training set, not
	// per app) stays out of the per-app figure.
	popts := paragon.DefaultPlatformOptions()
	popts.Method = paragon.SelectCover
	cl, err := paragon.TrainPlatform(rows[:apps], nil, cols, popts)
	if err != nil {
		return nil, err
	}
	// Baseline: refit the model with the new app as one more row.
	t0 = time.Now()
	if _, err := paragon.FitLogPCA(rows, cols, popts.Rank); err != nil {
		return nil, err
	}
	b.Paragon.RetrainMS = float64(time.Since(t0).Microseconds()) / 1000
	b.Paragon.Apps, b.Paragon.Columns = apps, cols
	t0 = time.Now()
	n := 0
	for i := apps; i < apps+200; i++ {
		row := syn.Perf.Row(i)
		known := map[int]float64{}
		for c := 0; c < cols && len(known) < paragon.DefaultKnown; c++ {
			if v, ok := row[c]; ok {
				known[c] = v
			}
		}
		cl.Classify(known)
		n++
	}
	b.Paragon.FoldInUS = float64(time.Since(t0).Nanoseconds()) / 1e3 / float64(n)
	step(6)
	b.Seconds = time.Since(start).Seconds()
	return b, nil
}

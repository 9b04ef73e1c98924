package bench

import (
	"context"
	"fmt"
	"placelab/analysis"
	"slices"
	"time"

	"placelab/analysis/lpinterval"
	"placelab/analysis/replay"
	"placelab/datasets/synth"
	store "placelab/sql"
)

// BenchLP is placelab bench lp: the LP interval over every snapshot of
// replays of the demo's zone, timed as a user waits for it (loading the
// run, both solves and the integer master per snapshot, storing the
// figures), beside the trivial interval a user has without the LP.
type BenchLP struct {
	Machines int          `json:"machines"`
	VMs      int          `json:"vms"`
	Every    float64      `json:"every_s"`
	Runs     []BenchLPRun `json:"runs"`
}

// BenchLPRun is one policy's replay, bounded.
type BenchLPRun struct {
	Policy    string `json:"policy"`
	Snapshots int    `json:"snapshots"` // with VMs
	Converged int    `json:"converged"` // both LPs optimal
	// Seconds is LPBoundRun end to end; the per-snapshot figures are
	// both solves of one snapshot.
	Seconds               float64 `json:"seconds"`
	SnapshotMedianSeconds float64 `json:"snapshot_median_seconds"`
	SnapshotMaxSeconds    float64 `json:"snapshot_max_seconds"`
	MaxVMs                int     `json:"max_vms_alive"`
	// The interval on machines, 100 (UB − LB) / LB: mean and worst.
	MeanIntervalGapPct float64 `json:"mean_interval_gap_pct"`
	MaxIntervalGapPct  float64 `json:"max_interval_gap_pct"`
	// The baseline, from the same snapshots: without the LP a user knows
	// only the volume bound (allocated cores over the largest SKU's
	// cores) and the online machines; the mean width of that interval.
	MeanTrivialGapPct float64 `json:"mean_trivial_gap_pct"`
}

// BenchLPOptions size placelab bench lp's zone; start from
// DefaultBenchLPOptions.
type BenchLPOptions struct {
	Quick bool // 600 machines, 12,000 VMs, 2 days (Machines and VMs ignored)
	// Machines and VMs of the generated zone (synth.Config); the demo's by
	// default. More VMs over the same days means more alive per snapshot.
	Machines, VMs int
	Every         float64 // seconds between snapshots, > 0
}

// DefaultBenchLPOptions: the demo's zone, hourly snapshots.
func DefaultBenchLPOptions() BenchLPOptions {
	cfg := synth.DefaultConfig()
	return BenchLPOptions{Machines: cfg.Machines, VMs: cfg.VMs, Every: 3600}
}

// RunBenchLP generates a zone (synth.DefaultConfig with o's sizes), replays
// it through Protean and best fit, and bounds each run every o.Every
// seconds.
func RunBenchLP(ctx context.Context, o BenchLPOptions, progress func(done, total int64)) (*BenchLP, error) {
	if !(o.Every > 0) || o.Every > 1e12 {
		return nil, fmt.Errorf("bench: lp: every = %v s, want a finite time > 0", o.Every)
	}
	if !o.Quick && (o.Machines < 1 || o.VMs < 1) {
		return nil, fmt.Errorf("bench: lp: %d machines, %d VMs: want at least 1 of each", o.Machines, o.VMs)
	}
	every := o.Every
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs = o.Machines, o.VMs
	db, err := benchReplayZone(ctx, cfg, o.Quick)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := &BenchLP{Every: every}
	pols := []string{"protean", "bestfit"}
	for i, pol := range pols {
		if progress != nil {
			progress(int64(i), int64(len(pols)))
		}
		spec := analysis.DefaultSpec("b")
		spec.Policy = pol
		res, err := analysis.Run(ctx, db, spec, analysis.RunOptions{Version: "bench"})
		if err != nil {
			return nil, err
		}
		out.VMs = res.Summary.VMs
		lo := lpinterval.DefaultOptions()
		lo.Every, lo.Packings = every, lpinterval.PackingsNone
		t0 := time.Now()
		rep, err := lpinterval.Run(ctx, db, lo.For(res.Summary.RunID))
		if err != nil {
			return nil, err
		}
		r := BenchLPRun{Policy: pol, Seconds: time.Since(t0).Seconds(), Converged: rep.Converged}
		tr, err := analysis.LoadTrace(ctx, db, "b", -1e300, 1e300)
		if err != nil {
			return nil, err
		}
		out.Machines = len(tr.Inv.Machines)
		largest := lpinterval.LargestBinCost(tr.Inv)
		var secs []float64
		for _, s := range rep.Snapshots {
			if s.VMs == 0 {
				continue
			}
			r.Snapshots++
			secs = append(secs, s.Seconds)
			r.MaxVMs = max(r.MaxVMs, s.VMs)
			r.MeanIntervalGapPct += s.IntervalGapPct
			r.MaxIntervalGapPct = max(r.MaxIntervalGapPct, s.IntervalGapPct)
			vol := float64(int(s.AllocatedCores/largest-1e-9) + 1)
			r.MeanTrivialGapPct += 100 * (float64(s.OnlineMachines) - vol) / vol
		}
		if r.Snapshots == 0 {
			return nil, fmt.Errorf("bench: lp: run %d has no snapshot with VMs", res.Summary.RunID)
		}
		r.MeanIntervalGapPct /= float64(r.Snapshots)
		r.MeanTrivialGapPct /= float64(r.Snapshots)
		r.SnapshotMedianSeconds, r.SnapshotMaxSeconds = replay.Quantile(secs, 0.5), slices.Max(secs)
		out.Runs = append(out.Runs, r)
	}
	if progress != nil {
		progress(int64(len(pols)), int64(len(pols)))
	}
	return out, nil
}

// benchReplayZone generates cfg's zone as dataset "b" in an in-memory
// database, without CPU series; quick replaces its size with 600 machines,
// 12,000 VMs over 2 days. bench all and bench lp replay the same zones.
func benchReplayZone(ctx context.Context, cfg synth.Config, quick bool) (*store.DB, error) {
	cfg.SeriesVMs = 0
	if quick {
		cfg.Machines, cfg.VMs, cfg.Days = 600, 12000, 2
	}
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	if err := synth.Ingest(ctx, db, "b", "bench", cfg); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

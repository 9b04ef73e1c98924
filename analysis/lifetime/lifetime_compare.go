package lifetime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"placelab/analysis"
	"placelab/predict/client"
	store "placelab/sql"
)

// DefaultSeeds are the engine seeds a lifetime comparison runs
// every arm with: figures are medians over them, with their ranges.
var DefaultSeeds = []uint64{1, 2, 3, 4, 5}

// CompareOptions configure LifetimeCompare.
type CompareOptions struct {
	Arms  []string
	Seeds []uint64
	// From and To bound the window (From −Inf: the latest training cut of
	// the arms with a model, or the trace's start when none has one).
	From, To float64
	// InSample allows a window that starts before a model arm's training
	// cut; the comparison is then labelled in-sample.
	InSample bool
	// Approach is the bucket classifier's approach for the model arm.
	Approach       string
	RepredictEvery float64
	Version        string
	// Workers is how many runs replay at once (0: GOMAXPROCS; never more
	// than the runs). Every run is seeded and the runs are stored in arm,
	// then seed order, so the figures and run ids do not depend on it.
	Workers int
	// Progress, when set, is told how many runs have finished out of all
	// of them (arms × seeds), one call at a time.
	Progress func(done, total int64)
}

// ArmSummary is one arm over the seeds.
type ArmSummary struct {
	Arm           string         `json:"arm"`
	Runs          []int64        `json:"run_ids"`
	EmptyMachines analysis.Range `json:"empty_machines_time_mean"`
	PackingPct    analysis.Range `json:"packing_density_mean_pct"`
	Rejected      analysis.Range `json:"rejected"`
	StrandedCores analysis.Range `json:"stranded_cores_pct_mean"`
	StrandedMem   analysis.Range `json:"stranded_memory_pct_mean"`
	CoveragePct   analysis.Range `json:"coverage_pct"`
	AccuracyPct   analysis.Range `json:"accuracy_pct"`
	// GainVsOff is, per seed, empty machines minus the off arm's.
	// OracleGainShare is that gain over the gain of the arm's own oracle on
	// the same seed — the same rule on true lifetimes: oracle for model,
	// nilas-oracle for nilas, lava-oracle for lava (1 for an oracle arm) —
	// and BestOracleGainShare over the best oracle arm's gain on that seed.
	// Both need off and the oracle among the arms (null without).
	GainVsOff           analysis.Range `json:"empty_gain_vs_off"`
	OracleGainShare     analysis.Range `json:"oracle_gain_share"`
	BestOracleGainShare analysis.Range `json:"best_oracle_gain_share"`
	// LosesToOff counts the seeds on which the arm had fewer empty machines
	// than off by more than off's own spread over the seeds (max − min).
	LosesToOff int `json:"seeds_losing_to_off_beyond_spread"`
}

// Comparison is placelab lifetime's result.
type Comparison struct {
	Dataset  string       `json:"dataset"`
	From     float64      `json:"from_s"`
	To       float64      `json:"to_s"`
	Cut      float64      `json:"training_cut_s"`
	InSample bool         `json:"in_sample"`
	Seeds    []uint64     `json:"seeds"`
	Arms     []ArmSummary `json:"arms"`
	Results  []*Result    `json:"results"`
}

// Compare runs every arm on every seed under one window and sums
// them up. Model arms (model, nilas, lava) are evaluated out of sample: the
// window starts at or after their training cut unless InSample.
func Compare(ctx context.Context, db *store.DB, dataset string, o CompareOptions) (*Comparison, error) {
	if len(o.Arms) == 0 {
		return nil, fmt.Errorf("%w: no arms", analysis.ErrBadSpec)
	}
	if len(o.Seeds) == 0 {
		return nil, fmt.Errorf("%w: no seeds (want at least one)", analysis.ErrBadSpec)
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("%w: %d workers (want 0 for one per processor, or more)", analysis.ErrBadSpec, o.Workers)
	}
	for i, a := range o.Arms {
		if slices.Contains(o.Arms[:i], a) {
			return nil, fmt.Errorf("%w: arm %s given twice", analysis.ErrBadSpec, a)
		}
	}
	cmp := &Comparison{Dataset: dataset, Seeds: o.Seeds, InSample: o.InSample}
	base := DefaultOptions()
	if o.RepredictEvery > 0 {
		base.RepredictEvery = o.RepredictEvery
	}
	base.From, base.To = o.From, o.To
	// Resolve every arm (predictors, cuts) before any runs. The model arms
	// share one RC client: the dataset's models and feature data load
	// once, and a VM's prediction computed for one arm is a cache hit for
	// the next.
	var arms []Options
	var shared *client.Client
	defer func() {
		if shared != nil {
			shared.Close()
		}
	}()
	getClient := func() (*client.Client, error) {
		if shared == nil {
			c, err := analysis.DatasetClient(ctx, db, dataset)
			if err != nil {
				return nil, err
			}
			shared = c
		}
		return shared, nil
	}
	cut := math.Inf(-1)
	for _, arm := range o.Arms {
		ao, c, err := lifetimeArm(dataset, arm, o.Approach, base, getClient)
		if err != nil {
			return nil, fmt.Errorf("arm %s: %w", arm, err)
		}
		arms = append(arms, ao)
		if c > 0 {
			cut = math.Max(cut, c)
		}
	}
	from := o.From
	if !math.IsInf(cut, -1) {
		cmp.Cut = cut
		switch {
		case math.IsInf(from, -1) && !o.InSample:
			from = cut
		case from < cut && !o.InSample:
			return nil, fmt.Errorf("%w: the window starts at %.0f s, before the models' training cut %.0f s: their predictions would be in sample (give --in-sample to run it anyway, labelled so)", analysis.ErrBadSpec, from, cut)
		}
		cmp.InSample = o.InSample && from < cut
	}
	cmp.From, cmp.To = from, o.To
	// Every run, arm by arm and seed by seed, replayed by the workers and
	// then stored in that order.
	var runs []Options
	for _, a := range arms {
		for _, seed := range o.Seeds {
			lo := a
			lo.Seed, lo.From, lo.InSample = seed, from, cmp.InSample
			if err := lo.Validate(); err != nil {
				return nil, err
			}
			runs = append(runs, lo)
		}
	}
	results, err := replayRuns(ctx, db, dataset, runs, o.Workers, o.Progress)
	if err != nil {
		return nil, err
	}
	byArm := map[string][]*Result{}
	for i, r := range results {
		if err := storeLifetime(ctx, db, dataset, runs[i], r, o.Version); err != nil {
			return nil, fmt.Errorf("arm %s, seed %d: %w", runs[i].Arm, runs[i].Seed, err)
		}
		cmp.Results = append(cmp.Results, r)
		byArm[r.Arm] = append(byArm[r.Arm], r)
	}
	if len(cmp.Results) > 0 {
		// The window the runs covered (an open end is the last arrival).
		cmp.From, cmp.To = cmp.Results[0].WindowFrom, cmp.Results[0].WindowTo
	}
	off := byArm["off"]
	oracleOf := map[string]string{"model": "oracle", "oracle": "oracle", "nilas": "nilas-oracle", "nilas-oracle": "nilas-oracle",
		"lava": "lava-oracle", "lava-oracle": "lava-oracle"}
	offSpread := 0.0
	if len(off) > 0 {
		r := analysis.RangeOf(collect(off, func(r *Result) float64 { return r.EmptyMachinesTimeMean }))
		offSpread = r.Max - r.Min
	}
	for _, a := range arms {
		rs := byArm[a.Arm]
		s := ArmSummary{Arm: a.Arm}
		for _, r := range rs {
			s.Runs = append(s.Runs, r.RunID)
		}
		s.EmptyMachines = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.EmptyMachinesTimeMean }))
		s.PackingPct = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.PackingPct }))
		s.Rejected = analysis.RangeOf(collect(rs, func(r *Result) float64 { return float64(r.Rejected) }))
		s.StrandedCores = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.StrandedCoresPct }))
		s.StrandedMem = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.StrandedMemoryPct }))
		s.CoveragePct = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.CoveragePct }))
		s.AccuracyPct = analysis.RangeOf(collect(rs, func(r *Result) float64 { return r.AccuracyPct }))
		oracle := byArm[oracleOf[a.Arm]]
		var gain, share, best []float64
		for i, r := range rs {
			if i >= len(off) {
				break
			}
			g := r.EmptyMachinesTimeMean - off[i].EmptyMachinesTimeMean
			gain = append(gain, g)
			if g < -offSpread {
				s.LosesToOff++
			}
			if i < len(oracle) {
				if og := oracle[i].EmptyMachinesTimeMean - off[i].EmptyMachinesTimeMean; og != 0 {
					share = append(share, g/og)
				}
			}
			bg := math.Inf(-1)
			for _, name := range []string{"oracle", "nilas-oracle", "lava-oracle"} {
				if o := byArm[name]; i < len(o) {
					bg = math.Max(bg, o[i].EmptyMachinesTimeMean-off[i].EmptyMachinesTimeMean)
				}
			}
			if bg > 0 {
				best = append(best, g/bg)
			}
		}
		s.GainVsOff, s.OracleGainShare, s.BestOracleGainShare = analysis.RangeOf(gain), analysis.RangeOf(share), analysis.RangeOf(best)
		cmp.Arms = append(cmp.Arms, s)
	}
	return cmp, nil
}

// replayRuns replays runs on up to workers goroutines (0: GOMAXPROCS) and
// returns their results in the order of runs. The first run to fail, in
// that order, stops the others and is the error.
func replayRuns(ctx context.Context, db *store.DB, dataset string, runs []Options, workers int, progress func(done, total int64)) ([]*Result, error) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(runs)))
	results := make([]*Result, len(runs))
	errs := make([]error, len(runs))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(runs) || rctx.Err() != nil {
					return
				}
				r, err := Run(rctx, db, runs[i].For(dataset))
				if err != nil {
					errs[i] = err
					cancel()
					return
				}
				results[i] = r
				if progress != nil {
					mu.Lock()
					progress(done.Add(1), int64(len(runs)))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	// The first failure in run order that is not another's cancellation.
	var first error
	for i, err := range errs {
		if err == nil {
			continue
		}
		err = fmt.Errorf("arm %s, seed %d: %w", runs[i].Arm, runs[i].Seed, err)
		if first == nil || (errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

func collect(rs []*Result, f func(*Result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

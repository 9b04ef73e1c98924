package bench

import (
	"context"
	"fmt"
	"math"
	"placelab/analysis"
	"slices"

	"placelab/datasets/synth"
	store "placelab/sql"
)

// AvailabilityBenchOptions size placelab bench availability.
type AvailabilityBenchOptions struct {
	// Dataset is replayed when loaded in the database (the Azure V1 dev
	// split of the issue: azure-flavor-dev); otherwise a generated zone of
	// Machines machines and VMs VMs over Days days is.
	Dataset       string
	Machines, VMs int
	Days          float64
	Reps          int
	// Failures, FaultDomains and UpdateDomains are the timed arm's
	// availability settings (the issue's: default, 3, 5).
	Failures                    string
	FaultDomains, UpdateDomains int32
}

// DefaultAvailabilityBenchOptions are the settings: the Azure V1
// dev split with the default failure model, 3 fault and 5 update domains,
// three repetitions; the fallback zone has 2,500 machines.
func DefaultAvailabilityBenchOptions() AvailabilityBenchOptions {
	return AvailabilityBenchOptions{Dataset: "azure-flavor-dev", Machines: 2500, VMs: 60000, Days: 4, Reps: 3,
		Failures: "default", FaultDomains: 3, UpdateDomains: 5}
}

// AvailabilityBench is the cost of availability in a replay: the same
// spec without and with failures and domains (Protean, explanations off,
// one agent), each timed end to end by the run pipeline (Summary.Seconds:
// decisions, departures, outages, heals, cache upkeep and every sample),
// medians over the repetitions; and the share of the plain replay's time
// spent in its healable-failure samples.
type AvailabilityBench struct {
	Dataset  string `json:"dataset"`
	VMs      int    `json:"vms"`
	Machines int    `json:"machines"`
	Reps     int    `json:"reps"`
	Failures string `json:"failures"`
	FD       int32  `json:"fault_domains"`
	UD       int32  `json:"update_domains"`
	// PlainSeconds: the replay without failures or domains (the baseline);
	// AvailSeconds: with them; CostX = AvailSeconds / PlainSeconds, per rep,
	// median (target ≤ 1.5).
	PlainSeconds float64 `json:"plain_seconds_baseline"`
	AvailSeconds float64 `json:"availability_seconds"`
	CostX        float64 `json:"availability_cost_x"`
	// HealableShare: healable sample seconds / replay seconds of the plain
	// replay, per rep, median (target ≤ 0.10): the samples' work, which
	// runs beside the replay on a goroutine of its own.
	// HealableWaitShare: the part of the plain replay's seconds it spent
	// on them (replay.Summary.HealableWaitSeconds), per rep, median.
	HealableShare       float64 `json:"healable_sample_share"`
	HealableSeconds     float64 `json:"healable_sample_seconds"`
	HealableWaitShare   float64 `json:"healable_wait_share"`
	HealableWaitSeconds float64 `json:"healable_wait_seconds"`
	Samples             int     `json:"samples"`
	HealVMs             int     `json:"heal_vms"`
	Outages             int     `json:"outages"`
}

// RunAvailabilityBench measures AvailabilityBench on db (a loaded dataset)
// or on a generated zone in memory.
func RunAvailabilityBench(ctx context.Context, db *store.DB, o AvailabilityBenchOptions) (*AvailabilityBench, error) {
	if o.Reps < 1 {
		return nil, fmt.Errorf("%w: reps = %d, want ≥ 1", analysis.ErrBadSpec, o.Reps)
	}
	ds := o.Dataset
	if _, err := analysis.LoadTrace(ctx, db, ds, math.Inf(-1), math.Inf(1)); err != nil || ds == "" {
		cfg := synth.DefaultConfig()
		cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = o.Machines, o.VMs, o.Days, 0
		mem, err := store.Open(ctx, ":memory:")
		if err != nil {
			return nil, err
		}
		defer mem.Close()
		if err := synth.Ingest(ctx, mem, "zone", "bench", cfg); err != nil {
			return nil, err
		}
		db, ds = mem, "zone"
	}
	tr, err := analysis.LoadTrace(ctx, db, ds, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	b := &AvailabilityBench{Dataset: ds, VMs: len(tr.VMs), Machines: len(tr.Inv.Machines), Reps: o.Reps,
		Failures: o.Failures, FD: o.FaultDomains, UD: o.UpdateDomains}
	var plain, avail, cost, share, heal, waitShare, wait []float64
	for rep := 0; rep < o.Reps; rep++ {
		for _, on := range []bool{false, true} {
			spec := analysis.DefaultSpec(ds)
			spec.Engine.Explain = false
			if on {
				spec.Failures, spec.FaultDomains, spec.UpdateDomains = o.Failures, o.FaultDomains, o.UpdateDomains
			}
			res, err := analysis.RunTrace(ctx, tr, &spec, analysis.RunOptions{NoWrite: true})
			if err != nil {
				return nil, err
			}
			s := res.Summary
			if on {
				avail = append(avail, s.Seconds)
				cost = append(cost, s.Seconds/plain[len(plain)-1])
				b.HealVMs, b.Outages = s.HealVMs, len(res.Outages)
			} else {
				plain = append(plain, s.Seconds)
				share = append(share, s.HealableSampleSeconds/s.Seconds)
				heal = append(heal, s.HealableSampleSeconds)
				waitShare = append(waitShare, s.HealableWaitSeconds/s.Seconds)
				wait = append(wait, s.HealableWaitSeconds)
				b.Samples = 0
				for _, m := range res.Metrics {
					if m.Metric == "healable_machine_failures_pct" {
						b.Samples++
					}
				}
			}
		}
	}
	b.PlainSeconds, b.AvailSeconds, b.CostX = median(plain), median(avail), median(cost)
	b.HealableShare, b.HealableSeconds = median(share), median(heal)
	b.HealableWaitShare, b.HealableWaitSeconds = median(waitShare), median(wait)
	return b, nil
}

// median is the middle value (the upper one of an even count) of xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

package timing

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/datasets/synth"
	"placelab/optimizer"
	store "placelab/sql"
)

// The production-size point of `placelab bench allocator --production` and
// `placelab bench all --production`: a zone of Protean's size ("an entire
// availability zone (10–100k machines)", §1) with the arrivals of a 2M-VM
// trace (`placelab generate --machines 100000 --vms 2000000 --series 0`).
const (
	ProductionMachines = 100_000
	ProductionVMs      = 2_000_000
	// ProductionOffVMs is the subset of the same arriving VMs the
	// cache-off engine is timed on (it costs milliseconds per VM here).
	ProductionOffVMs = 2_000
)

// ProductionOptions configure RunProduction. Start from
// DefaultProductionOptions; tests shrink the sizes.
type ProductionOptions struct {
	Machines, VMs int
	// OffVMs is how many of the first arriving VMs the cache-off engine
	// is timed on, from the same starting state as the cache-on pass.
	OffVMs  int
	Reps    int
	Seed    uint64
	Explain bool
}

// DefaultProductionOptions are the production point: 100,000 machines,
// 2M VMs, one rep, explanations off (as `replay --no-explain`).
func DefaultProductionOptions() ProductionOptions {
	return ProductionOptions{Machines: ProductionMachines, VMs: ProductionVMs, OffVMs: ProductionOffVMs, Reps: 1, Seed: 1}
}

// ProductionPoint is the production-size point. The cache-on pass is all
// the work of the trace's arrivals, timed as AllocatorArm describes
// (departures, background refresh, decisions); the initial population (the
// VMs alive at t = 0) is placed first and timed apart (WarmupSeconds). The
// cache-off engine runs the first OffVMs of the same arriving VMs from the
// same state; SameDecisions says its decisions equal the cache-on pass's
// on that subset. Memory: MemoryMB is the heap the engine holds after the
// pass (state and caches, against before its warm-up), PeakRSSMB the
// process's peak resident set (VmHWM: trace, DuckDB and both passes
// included).
type ProductionPoint struct {
	Machines      int    `json:"machines"`
	TraceVMs      int    `json:"trace_vms"`
	Seed          uint64 `json:"seed"`
	Explain       bool   `json:"explain"`
	Reps          int    `json:"reps"`
	WarmupVMs     int    `json:"warmup_vms"`
	ArrivingVMs   int    `json:"arriving_vms"`
	OffVMs        int    `json:"cache_off_vms"`
	WarmupSeconds Spread `json:"warmup_seconds"`
	// CacheOn over every arrival; CacheOff over the subset.
	CacheOn  ArmSummary `json:"cache_on"`
	CacheOff ArmSummary `json:"cache_off"`
	// CacheSpeedup is the cache-off cost per placement over the cache-on
	// one (different request sets: the subset and all arrivals).
	CacheSpeedup    Spread  `json:"cache_speedup"`
	SameDecisions   bool    `json:"same_decisions"`
	PeakRSSMB       float64 `json:"peak_rss_mb"`
	GenerateSeconds float64 `json:"generate_seconds"`
	Seconds         float64 `json:"seconds"`
}

// RunProduction generates the zone and trace in an in-memory DuckDB, loads
// them as a replay would and measures the production point.
func RunProduction(ctx context.Context, o ProductionOptions) (*ProductionPoint, error) {
	if o.Machines < 1 || o.VMs < 1 || o.OffVMs < 1 || o.Reps < 1 {
		return nil, fmt.Errorf("%w: production point: machines %d, VMs %d, cache-off VMs %d, reps %d: each at least 1",
			ErrOptions, o.Machines, o.VMs, o.OffVMs, o.Reps)
	}
	start := time.Now()
	tr, err := productionTrace(ctx, o)
	if err != nil {
		return nil, err
	}
	pp := &ProductionPoint{Machines: len(tr.Inv.Machines), TraceVMs: len(tr.VMs), Seed: o.Seed, Explain: o.Explain,
		Reps: o.Reps, GenerateSeconds: time.Since(start).Seconds(), SameDecisions: true}
	w, err := newBenchWorkload(tr, 0)
	if err != nil {
		return nil, err
	}
	pp.WarmupVMs, pp.ArrivingVMs = w.warmVMs, w.arrivingVMs
	offStop := w.warm
	for n := 0; offStop < w.stop && n < o.OffVMs; offStop++ {
		n += len(w.reqs[offStop].VMs)
		pp.OffVMs = n
	}
	cfg := optimizer.DefaultConfig()
	cfg.Seed, cfg.Explain = o.Seed, o.Explain
	cfg.Weights = replay.ScarcityWeights(tr)
	var ons, offs []AllocatorArm
	var warm, speed []float64
	for rep := 0; rep < o.Reps; rep++ {
		cfg.Cache = true
		on, err := w.measure(ctx, cfg, time.Now, w.stop, offStop)
		if err != nil {
			return nil, err
		}
		cfg.Cache = false
		off, err := w.measure(ctx, cfg, time.Now, offStop, -1)
		if err != nil {
			return nil, err
		}
		warm = append(warm, on.warmSeconds)
		pp.SameDecisions = pp.SameDecisions && on.prefix == off.decisions && on.startState == off.startState
		ons, offs = append(ons, on), append(offs, off)
		speed = append(speed, off.CostPerPlacementUS/on.CostPerPlacementUS)
	}
	pp.WarmupSeconds = analysis.RangeOf(warm)
	pp.CacheOn, pp.CacheOff, pp.CacheSpeedup = summarizeArms(ons), summarizeArms(offs), analysis.RangeOf(speed)
	pp.PeakRSSMB = peakRSSMB()
	pp.Seconds = time.Since(start).Seconds()
	return pp, nil
}

// productionTrace generates the point's zone and trace as `placelab
// generate --machines M --vms N --series 0` does (14 days, 65% load).
func productionTrace(ctx context.Context, o ProductionOptions) (*replay.Trace, error) {
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.SeriesVMs, cfg.Seed = o.Machines, o.VMs, 0, o.Seed
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := synth.Ingest(ctx, db, "production", "production", cfg); err != nil {
		return nil, err
	}
	return analysis.LoadTrace(ctx, db, "production", math.Inf(-1), math.Inf(1))
}

// peakRSSMB is the process's peak resident set (VmHWM of
// /proc/self/status), or NaN where there is none.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return math.NaN()
			}
			return kb / 1024
		}
	}
	return math.NaN()
}

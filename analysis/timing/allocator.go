package timing

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"placelab/analysis"
	"placelab/analysis/replay"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"placelab/datasets/synth"
	"placelab/optimizer"
	store "placelab/sql"
)

// Zone generates a synthetic zone of the given size with a one-day
// trace (the initial population fills Load of its cores), loads it through
// an in-memory DuckDB exactly as a replay would, and returns the trace.
func Zone(ctx context.Context, machines int, seed uint64) (*replay.Trace, error) {
	cfg := synth.DefaultConfig()
	cfg.Machines = machines
	cfg.Seed = seed
	cfg.Days = 1
	cfg.SeriesVMs = 0
	// Enough VMs for the initial population at Load plus a day of arrivals.
	cfg.VMs = machines * 12
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := synth.Ingest(ctx, db, "bench", "bench", cfg); err != nil {
		return nil, err
	}
	return analysis.LoadTrace(ctx, db, "bench", math.Inf(-1), math.Inf(1))
}

// Options configure CompareCache (`placelab bench allocator`).
// Start from DefaultOptions.
type Options struct {
	// Machines in the generated zone.
	Machines int
	// VMs is how many arriving VMs are timed: the first whole requests
	// after t = 0 that hold at least VMs VMs. Cache on and cache off run
	// on exactly this set.
	VMs int
	// Reps is how many times each arm is timed (each rep times cache on
	// and cache off on the same requests from the same starting state).
	Reps int
	// Seed of the zone and of the engine's tie-breaks.
	Seed uint64
	// Explain builds each decision's explanation inside the timed section.
	Explain bool
}

// DefaultOptions are the defaults of `placelab bench allocator`.
func DefaultOptions() Options {
	return Options{Machines: 30000, VMs: 20000, Reps: 3, Seed: 1, Explain: true}
}

// ErrOptions marks an allocator benchmark option out of range.
var ErrOptions = errors.New("bench: allocator")

// Validate refuses options out of range.
func (o Options) Validate() error {
	switch {
	case o.Machines < 1:
		return fmt.Errorf("%w: machines = %d, need at least 1", ErrOptions, o.Machines)
	case o.VMs < 1:
		return fmt.Errorf("%w: vms = %d, need at least 1 timed VM", ErrOptions, o.VMs)
	case o.Reps < 1:
		return fmt.Errorf("%w: reps = %d, need at least 1 repetition", ErrOptions, o.Reps)
	}
	return nil
}

// AllocatorArm is one timed pass of the engine (cache on or off) over the
// timed requests. The timed section is everything the allocator does while
// the requests arrive, in the order a replay does it: the departures due
// before each request (state and journal upkeep), the background cache
// refresh in each idle gap of at least RefreshGap trace seconds (§5.2.4;
// the cache-on engine only — the uncached one has nothing to refresh), and
// the decision itself. WallSeconds is the wall time of that whole section.
type AllocatorArm struct {
	Cache bool `json:"cache"`
	// Requests and VMs timed; Placements the VMs placed, Rejected the VMs
	// of refused requests, Evicted the low-priority VMs evicted.
	Requests   int `json:"requests"`
	VMs        int `json:"vms"`
	Placements int `json:"placements"`
	Rejected   int `json:"rejected"`
	Evicted    int `json:"evicted"`
	// Releases are the departures processed, Refreshes the background
	// Refresh calls and RefreshedCells the cells they brought up to date,
	// all inside the timed section.
	Releases       int   `json:"releases"`
	Refreshes      int   `json:"refreshes"`
	RefreshedCells int64 `json:"refreshed_cells"`
	// MachineChanges are the machines' changes recorded in the journal
	// (placements, departures, evictions) in the timed section, and
	// CellUpdatesBackground and CellUpdatesAtDecision the cache's upkeep
	// for them in machines (optimizer.Protean.CellUpdates): changed
	// machines re-evaluated in cells by Refresh and by the decisions that
	// read cells behind the journal. Deterministic for a seed, so they
	// compare builds where wall times are noisy; the cell updates are 0
	// with the cache off.
	MachineChanges        int64 `json:"machine_changes"`
	CellUpdatesBackground int64 `json:"cell_updates_background"`
	CellUpdatesAtDecision int64 `json:"cell_updates_at_decision"`
	// CellUpdatesByOutcome splits their sum by what each re-evaluation
	// found (optimizer.UpdateOutcomes); nil with the cache off.
	CellUpdatesByOutcome *optimizer.UpdateOutcomes `json:"cell_updates_by_outcome,omitempty"`
	// WallSeconds is the timed section's wall time; DecisionSeconds,
	// RefreshSeconds and ReleaseSeconds the parts of it spent in Allocate,
	// Refresh and Release (the rest is the loop's own bookkeeping), where
	// the background refresh's changes that a decision applies (Refresh
	// only marks the cells; optimizer.Protean.IdleUpkeep) count as
	// refresh, not as decision.
	WallSeconds float64 `json:"wall_seconds"`
	// CPUSeconds is the process's CPU time (user and system, every
	// thread) over the timed section, the GC's included.
	CPUSeconds      float64 `json:"cpu_seconds"`
	DecisionSeconds float64 `json:"decision_seconds"`
	RefreshSeconds  float64 `json:"refresh_seconds"`
	ReleaseSeconds  float64 `json:"release_seconds"`
	// CostPerPlacementUS is WallSeconds per placed VM (µs), upkeep
	// included; PlacementsPerWallSec is placements / WallSeconds.
	CostPerPlacementUS   float64 `json:"cost_per_placement_us"`
	PlacementsPerWallSec float64 `json:"placements_per_wall_sec"`
	// Decision latency per VM (a request's Allocate time divided by its
	// VMs), without upkeep: what Protean Figs 11–12 plot.
	DecisionLatencyP50US  float64 `json:"decision_latency_p50_us"`
	DecisionLatencyP99US  float64 `json:"decision_latency_p99_us"`
	DecisionLatencyMeanUS float64 `json:"decision_latency_mean_us"`
	// CacheHitRate of RuleEvaluation lookups during the timed section.
	CacheHitRate float64 `json:"cache_hit_rate"`
	// MemoryMB is the heap the engine holds (state and caches) after the
	// pass, against before its warm-up.
	MemoryMB float64 `json:"memory_mb"`

	requestIDs []int64 // the timed requests, in order
	startState uint64  // fingerprint of the state the timing started from
	decisions  uint64  // fingerprint of the decisions taken
	prefix     uint64  // ... and of those up to allocatorRun.markAt
	// warmSeconds is the untimed warm-up's wall time (start).
	warmSeconds float64
}

// AllocatorRep is one repetition: cache on and cache off on the same
// requests, run in the order Order.
type AllocatorRep struct {
	Rep   int          `json:"rep"`
	Order string       `json:"order"`
	On    AllocatorArm `json:"cache_on"`
	Off   AllocatorArm `json:"cache_off"`
	// CacheSpeedup is Off.WallSeconds / On.WallSeconds (the same VMs, so
	// the ratio of cost per timed VM, upkeep included); DecisionSpeedup is
	// the ratio of time in Allocate alone.
	CacheSpeedup    float64 `json:"cache_speedup"`
	DecisionSpeedup float64 `json:"decision_speedup"`
	// SameDecisions: both arms placed every VM on the same machine (the
	// cache is transparent).
	SameDecisions bool `json:"same_decisions"`
}

// Spread is the median and range of a figure over repetitions.
type Spread = analysis.Range

// ArmSummary is an arm's figures over the repetitions.
type ArmSummary struct {
	CostPerPlacementUS   Spread `json:"cost_per_placement_us"`
	PlacementsPerWallSec Spread `json:"placements_per_wall_sec"`
	WallSeconds          Spread `json:"wall_seconds"`
	CPUSeconds           Spread `json:"cpu_seconds"`
	RefreshSeconds       Spread `json:"refresh_seconds"`
	ReleaseSeconds       Spread `json:"release_seconds"`
	DecisionLatencyP50US Spread `json:"decision_latency_p50_us"`
	DecisionLatencyP99US Spread `json:"decision_latency_p99_us"`
	CacheHitRate         Spread `json:"cache_hit_rate"`
	MemoryMB             Spread `json:"memory_mb"`
}

func summarizeArms(arms []AllocatorArm) ArmSummary {
	f := func(get func(AllocatorArm) float64) Spread {
		xs := make([]float64, len(arms))
		for i, a := range arms {
			xs[i] = get(a)
		}
		return analysis.RangeOf(xs)
	}
	return ArmSummary{
		CostPerPlacementUS:   f(func(a AllocatorArm) float64 { return a.CostPerPlacementUS }),
		PlacementsPerWallSec: f(func(a AllocatorArm) float64 { return a.PlacementsPerWallSec }),
		WallSeconds:          f(func(a AllocatorArm) float64 { return a.WallSeconds }),
		CPUSeconds:           f(func(a AllocatorArm) float64 { return a.CPUSeconds }),
		RefreshSeconds:       f(func(a AllocatorArm) float64 { return a.RefreshSeconds }),
		ReleaseSeconds:       f(func(a AllocatorArm) float64 { return a.ReleaseSeconds }),
		DecisionLatencyP50US: f(func(a AllocatorArm) float64 { return a.DecisionLatencyP50US }),
		DecisionLatencyP99US: f(func(a AllocatorArm) float64 { return a.DecisionLatencyP99US }),
		CacheHitRate:         f(func(a AllocatorArm) float64 { return a.CacheHitRate }),
		MemoryMB:             f(func(a AllocatorArm) float64 { return a.MemoryMB }),
	}
}

// AllocatorComparison is what `placelab bench allocator` prints.
type AllocatorComparison struct {
	Machines int    `json:"machines"`
	Explain  bool   `json:"explain"`
	Seed     uint64 `json:"seed"`
	Reps     int    `json:"reps"`
	// GoMaxProcs is the processors the Go runtime ran on (the GC and,
	// in a replay, the healable sampler use a second one).
	GoMaxProcs int `json:"gomaxprocs"`
	// WarmupVMs were alive at t = 0 and placed, untimed, before each pass.
	WarmupVMs int `json:"warmup_vms"`
	// The timed set, identical for cache on and off: Requests requests
	// (ids FirstRequestID..LastRequestID) holding VMs VMs, the first
	// arrivals after t = 0 out of ArrivingVMs in the trace.
	Requests       int    `json:"requests"`
	VMs            int    `json:"vms"`
	FirstRequestID int64  `json:"first_request_id"`
	LastRequestID  int64  `json:"last_request_id"`
	ArrivingVMs    int    `json:"arriving_vms"`
	TimedSet       string `json:"timed_set"`
	// CacheOn and CacheOff: each arm's figures over the reps (median,
	// min, max); CacheSpeedup and DecisionSpeedup are computed per rep.
	CacheOn         ArmSummary `json:"cache_on"`
	CacheOff        ArmSummary `json:"cache_off"`
	CacheSpeedup    Spread     `json:"cache_speedup"`
	DecisionSpeedup Spread     `json:"decision_speedup"`
	// SameDecisions: in every rep both arms took identical decisions.
	SameDecisions bool           `json:"same_decisions"`
	Runs          []AllocatorRep `json:"runs"`
	Seconds       float64        `json:"seconds"`
	// Production is the production-size point (--production), nil when
	// not asked for.
	Production *ProductionPoint `json:"production,omitempty"`
}

// CompareCache generates a zone of o.Machines machines and times the
// Protean engine with the cache on and off, o.Reps times, on the same
// requests from the same starting state (see AllocatorArm for what is
// timed). Reps alternate which arm runs first.
func CompareCache(ctx context.Context, o Options) (AllocatorComparison, error) {
	if err := o.Validate(); err != nil {
		return AllocatorComparison{}, err
	}
	start := time.Now()
	tr, err := Zone(ctx, o.Machines, o.Seed)
	if err != nil {
		return AllocatorComparison{}, err
	}
	c, err := compareCacheOn(ctx, tr, o, time.Now)
	if err != nil {
		return c, err
	}
	c.Seconds = time.Since(start).Seconds()
	return c, nil
}

// compareCacheOn is CompareCache on a loaded trace with the clock now.
func compareCacheOn(ctx context.Context, tr *replay.Trace, o Options, now func() time.Time) (AllocatorComparison, error) {
	if err := o.Validate(); err != nil {
		return AllocatorComparison{}, err
	}
	w, err := newBenchWorkload(tr, o.VMs)
	if err != nil {
		return AllocatorComparison{}, err
	}
	cfg := optimizer.DefaultConfig()
	cfg.Seed = o.Seed
	cfg.Explain = o.Explain
	cfg.Weights = replay.ScarcityWeights(tr)
	c := AllocatorComparison{
		Machines: len(tr.Inv.Machines), Explain: o.Explain, Seed: o.Seed, Reps: o.Reps, GoMaxProcs: runtime.GOMAXPROCS(0),
		WarmupVMs: w.warmVMs, Requests: w.stop - w.warm, VMs: w.timedVMs, ArrivingVMs: w.arrivingVMs,
		FirstRequestID: w.reqs[w.warm].ID, LastRequestID: w.reqs[w.stop-1].ID, SameDecisions: true,
	}
	c.TimedSet = fmt.Sprintf("requests %d–%d (%d requests, %d VMs): the first arrivals after the %d VMs alive at t=0, of %d arriving VMs in the trace; identical for cache on and off, each from the same starting state",
		c.FirstRequestID, c.LastRequestID, c.Requests, c.VMs, c.WarmupVMs, c.ArrivingVMs)
	var ons, offs []AllocatorArm
	var speed, dspeed []float64
	for rep := 1; rep <= o.Reps; rep++ {
		order := []bool{true, false}
		if rep%2 == 0 {
			order = []bool{false, true}
		}
		r := AllocatorRep{Rep: rep}
		for _, cache := range order {
			cfg.Cache = cache
			a, err := w.measure(ctx, cfg, now, w.stop, -1)
			if err != nil {
				return c, err
			}
			if cache {
				r.On = a
			} else {
				r.Off = a
			}
		}
		r.Order = "on,off"
		if !order[0] {
			r.Order = "off,on"
		}
		if r.On.startState != r.Off.startState || !slices.Equal(r.On.requestIDs, r.Off.requestIDs) {
			return c, fmt.Errorf("bench: allocator rep %d: cache on and off did not start from the same state on the same requests", rep)
		}
		r.CacheSpeedup = r.Off.WallSeconds / r.On.WallSeconds
		r.DecisionSpeedup = r.Off.DecisionSeconds / r.On.DecisionSeconds
		r.SameDecisions = r.On.decisions == r.Off.decisions
		c.SameDecisions = c.SameDecisions && r.SameDecisions
		c.Runs = append(c.Runs, r)
		ons, offs = append(ons, r.On), append(offs, r.Off)
		speed, dspeed = append(speed, r.CacheSpeedup), append(dspeed, r.DecisionSpeedup)
	}
	c.CacheOn, c.CacheOff = summarizeArms(ons), summarizeArms(offs)
	c.CacheSpeedup, c.DecisionSpeedup = analysis.RangeOf(speed), analysis.RangeOf(dspeed)
	return c, nil
}

// benchWorkload is a trace's requests split into the warm-up (reqs[:warm],
// everything alive at t = 0) and the timed set (reqs[warm:stop]).
type benchWorkload struct {
	tr                             *replay.Trace
	reqs                           []optimizer.Request
	end                            map[int64]float64
	warm, stop                     int
	warmVMs, timedVMs, arrivingVMs int
}

// newBenchWorkload picks the first whole arrival requests holding at least
// vms VMs (all arrivals when vms ≤ 0).
func newBenchWorkload(tr *replay.Trace, vms int) (*benchWorkload, error) {
	w := &benchWorkload{tr: tr, reqs: replay.Requests(tr, 0, math.Inf(1)), end: make(map[int64]float64, len(tr.VMs))}
	for _, v := range tr.VMs {
		w.end[v.ID] = v.End
	}
	for w.warm < len(w.reqs) && w.reqs[w.warm].Time <= 0 {
		w.warmVMs += len(w.reqs[w.warm].VMs)
		w.warm++
	}
	if w.warmVMs == 0 {
		return nil, fmt.Errorf("bench: zone has no initial population")
	}
	for _, r := range w.reqs[w.warm:] {
		w.arrivingVMs += len(r.VMs)
	}
	w.stop = w.warm
	for w.stop < len(w.reqs) && (vms <= 0 || w.timedVMs < vms) {
		w.timedVMs += len(w.reqs[w.stop].VMs)
		w.stop++
	}
	if w.timedVMs == 0 || (vms > 0 && w.timedVMs < vms) {
		return nil, fmt.Errorf("%w: vms = %d, but the zone's trace has only %d arriving VMs after t=0", ErrOptions, vms, w.arrivingVMs)
	}
	return w, nil
}

// The labels of the allocator bench's CPU profile samples (placelab
// --cpuprofile): arm (cache on or off) and section (the untimed warm-up or
// the timed pass), so that one arm's timed work is read apart, as in
// go tool pprof -tagfocus=arm=cache_on -tagfocus=section=timed.
const (
	LabelArm      = "arm"
	LabelSection  = "section"
	ArmCacheOn    = "cache_on"
	ArmCacheOff   = "cache_off"
	SectionWarmup = "warmup"
	SectionTimed  = "timed"
)

// measure warms a fresh state up (untimed) and times one pass of the
// engine configured by cfg over the timed set, up to reqs[stop-1]
// (markAt ≥ 0: fingerprint the decisions before reqs[markAt] apart).
func (w *benchWorkload) measure(ctx context.Context, cfg optimizer.Config, now func() time.Time, stop, markAt int) (AllocatorArm, error) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// Profile samples carry the arm and the section (ProfileLabels).
	arm := ArmCacheOff
	if cfg.Cache {
		arm = ArmCacheOn
	}
	t0 := time.Now()
	var run *allocatorRun
	var err error
	pprof.Do(ctx, pprof.Labels(LabelArm, arm, LabelSection, SectionWarmup), func(context.Context) { run, err = w.start(cfg, now) })
	if err != nil {
		return AllocatorArm{}, err
	}
	warm := time.Since(t0).Seconds()
	run.markAt = markAt
	var a AllocatorArm
	pprof.Do(ctx, pprof.Labels(LabelArm, arm, LabelSection, SectionTimed), func(ctx context.Context) { a, err = run.timed(ctx, stop) })
	a.warmSeconds = warm
	if err != nil {
		return a, err
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(run)
	a.MemoryMB = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
	return a, nil
}

// start places the warm-up population on a fresh state and returns the
// engine configured by cfg on it, ready to time reqs[warm:]. The warm-up
// always runs through the cached engine (its decisions equal the uncached
// one's), so both arms start from the same state; the cache-on arm keeps
// the engine it warmed up, caches and all, as a running agent would.
func (w *benchWorkload) start(cfg optimizer.Config, now func() time.Time) (*allocatorRun, error) {
	warmCfg := cfg
	warmCfg.Cache = true
	state := optimizer.NewState(w.tr.Inv)
	p, err := optimizer.NewProtean(state, warmCfg, optimizer.DefaultRules())
	if err != nil {
		return nil, err
	}
	var warmed []optimizer.Placement
	for i := 0; i < w.warm; i++ {
		warmed = append(warmed, p.Allocate(&w.reqs[i]).Placements...)
	}
	if !cfg.Cache {
		if p, err = optimizer.NewProtean(state, cfg, optimizer.DefaultRules()); err != nil {
			return nil, err
		}
	}
	run := newAllocatorRun(p, p, cfg.Cache, w.reqs, w.end, w.warm, now)
	for _, pl := range warmed {
		if e, ok := w.end[pl.VM]; ok && !math.IsInf(e, 1) {
			run.loop.Depart(e, pl.VM)
		}
	}
	return run, nil
}

// benchEngine is what the timed replay drives (*optimizer.Protean; a fake
// with a fake clock in tests): an engine with idle-time upkeep.
type benchEngine interface {
	replay.Engine
	optimizer.Refresher
}

// allocatorRun replays requests through an engine as a replay does: the
// replay loop driven by the engine (replay.EngineReplay), observed by the
// run itself, which tallies what it did and how long each part took.
type allocatorRun struct {
	loop  *replay.EngineReplay
	stats optimizer.StatsReporter // the engine's statistics, when it counts them
	cache bool                    // refresh in idle gaps
	next  int                     // the index of the next request
	now   func() time.Time

	arm AllocatorArm
	lat []float64
	// log records, when non-nil, each timed request's id, outcome and
	// placements, hashed after the timed section; markLen is its length
	// when the next request was markAt (the decisions on a prefix of the
	// timed set, compared with a shorter pass).
	log             []int64
	markAt, markLen int
}

// newAllocatorRun replays reqs[next:] through eng, refreshing in idle gaps
// when cache is set; end is each VM's end in the trace.
func newAllocatorRun(eng benchEngine, stats optimizer.StatsReporter, cache bool, reqs []optimizer.Request, end map[int64]float64,
	next int, now func() time.Time) *allocatorRun {
	r := &allocatorRun{stats: stats, cache: cache, next: next, now: now}
	r.loop = replay.NewEngineReplay(eng, reqs, next, replay.EngineOptions{Refresh: cache, Now: now, TimeReleases: true, Observers: []replay.Observer{r},
		End: func(vm int64) float64 {
			if e, ok := end[vm]; ok {
				return e
			}
			return math.Inf(1)
		}})
	return r
}

// Decided tallies a decision: its time less the refresh's changes it
// applied, which are the refresh's work (timed as such, not as the
// decision's latency).
func (r *allocatorRun) Decided(e *replay.Decided) {
	q, d := e.Request, e.Decision
	r.next++
	r.arm.DecisionSeconds += e.Took.Seconds()
	r.arm.RefreshSeconds += e.Upkeep.Seconds()
	us := e.PerVMUS()
	for range q.VMs {
		r.lat = append(r.lat, us)
	}
	r.arm.Requests++
	r.arm.VMs += len(q.VMs)
	if d.OK {
		r.arm.Placements += len(d.Placements)
		r.arm.Evicted += len(d.Evicted)
	} else {
		r.arm.Rejected += len(q.VMs)
	}
	if r.log != nil {
		r.arm.requestIDs = append(r.arm.requestIDs, q.ID)
		r.log = append(r.log, q.ID, boolInt(d.OK))
		for _, p := range d.Placements {
			r.log = append(r.log, p.VM, int64(p.Machine))
		}
		if r.next == r.markAt {
			r.markLen = len(r.log)
		}
	}
}

// Departed tallies a release and its time.
func (r *allocatorRun) Departed(_ int64, took time.Duration) {
	r.arm.Releases++
	r.arm.ReleaseSeconds += took.Seconds()
}

// Refreshed tallies a background refresh and its time.
func (r *allocatorRun) Refreshed(cells int, took time.Duration) {
	r.arm.RefreshedCells += int64(cells)
	r.arm.RefreshSeconds += took.Seconds()
	r.arm.Refreshes++
}

// Evicted: evictions are counted with their decision.
func (r *allocatorRun) Evicted(int64, float64) {}

// processCPUSeconds is the process's CPU time so far, user and system.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// timed runs requests up to reqs[stop-1] and returns the arm's figures;
// WallSeconds is the wall time of the whole loop.
func (r *allocatorRun) timed(ctx context.Context, stop int) (AllocatorArm, error) {
	r.arm = AllocatorArm{Cache: r.cache}
	r.lat = r.lat[:0]
	r.log = make([]int64, 0, 6*(stop-r.next))
	r.markLen = -1
	if r.stats != nil {
		r.arm.startState = stateFingerprint(r.stats.State())
	}
	var hits0 optimizer.CacheStats
	var rev0 uint64
	var bg0, dec0 int64
	var out0 optimizer.UpdateOutcomes
	outcomes, _ := r.stats.(interface {
		CellUpdateOutcomes() optimizer.UpdateOutcomes
	})
	if r.stats != nil {
		hits0 = r.stats.CacheStats()["RuleEvaluation"]
		rev0 = r.stats.State().Journal.Rev()
		bg0, dec0 = r.stats.CellUpdates()
		if outcomes != nil {
			out0 = outcomes.CellUpdateOutcomes()
		}
	}
	cpu0 := processCPUSeconds()
	t0 := r.now()
	if err := r.loop.Next(ctx, stop-r.next); err != nil {
		return r.arm, err
	}
	a := r.arm
	a.WallSeconds = r.now().Sub(t0).Seconds()
	a.CPUSeconds = processCPUSeconds() - cpu0
	if a.Placements == 0 {
		return a, fmt.Errorf("bench: allocator placed none of the %d timed VMs", a.VMs)
	}
	if a.WallSeconds <= 0 {
		return a, fmt.Errorf("bench: allocator: the clock did not advance over %d requests", a.Requests)
	}
	a.CostPerPlacementUS = a.WallSeconds * 1e6 / float64(a.Placements)
	a.PlacementsPerWallSec = float64(a.Placements) / a.WallSeconds
	a.DecisionLatencyP50US = replay.Quantile(r.lat, 0.5)
	a.DecisionLatencyP99US = replay.Quantile(r.lat, 0.99)
	a.DecisionLatencyMeanUS = a.DecisionSeconds * 1e6 / float64(a.VMs)
	if r.stats != nil {
		h := r.stats.CacheStats()["RuleEvaluation"]
		a.CacheHitRate = optimizer.CacheStats{Hits: h.Hits - hits0.Hits, Misses: h.Misses - hits0.Misses}.HitRate()
		a.MachineChanges = int64(r.stats.State().Journal.Rev() - rev0)
		bg, dec := r.stats.CellUpdates()
		a.CellUpdatesBackground, a.CellUpdatesAtDecision = bg-bg0, dec-dec0
		if outcomes != nil && r.stats.Config().Cache {
			o := outcomes.CellUpdateOutcomes().Sub(out0)
			a.CellUpdatesByOutcome = &o
		}
	}
	h := fnv.New64a()
	writeInts(h, r.log...)
	a.decisions = h.Sum64()
	if r.markLen >= 0 {
		h := fnv.New64a()
		writeInts(h, r.log[:r.markLen]...)
		a.prefix = h.Sum64()
	}
	r.log = nil
	return a, nil
}

// stateFingerprint hashes which VMs every machine holds.
func stateFingerprint(s *optimizer.State) uint64 {
	h := fnv.New64a()
	for m := range s.Inv.Machines {
		vms := slices.Clone(s.VMsOn(int32(m)))
		slices.Sort(vms)
		writeInts(h, int64(m), int64(len(vms)))
		writeInts(h, vms...)
	}
	return h.Sum64()
}

func writeInts(h hash.Hash64, xs ...int64) {
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

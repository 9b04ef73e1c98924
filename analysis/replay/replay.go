package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"placelab/optimizer"
)

// DefaultInterval is the metric sampling interval of a replay (one hour).
const DefaultInterval = 3600.0

// RefreshGap is the idle time (trace seconds between requests) in which a
// replayed agent refreshes its caches, and RefreshEvals how many of its
// evaluations it refreshes then, stalest first (0: all — a second of idle
// time is ample for that).
const (
	RefreshGap   = 1.0
	RefreshEvals = 0
)

// ReplayOptions control a replay.
type ReplayOptions struct {
	// From and To bound the replayed window (seconds); VMs alive at From are
	// placed first, arrivals at or after To are not replayed.
	From, To float64
	// Interval between metric samples in seconds (0: DefaultInterval).
	Interval float64
	// Progress is called with requests done and total.
	Progress func(done, total int64)
	// Refresh lets an idle Protean agent update its most recently used
	// caches in the background (§5.2.4) when the trace leaves it idle for
	// at least RefreshGap seconds before the next request.
	Refresh bool
	// MaxRequests stops the replay after that many requests (0: all).
	MaxRequests int
	// Seed seeds randomness of the replay itself (simulated latencies).
	Seed uint64
	// Decorate, when set, may fill request fields the trace does not carry
	// (production flag, predicted utilization bucket) just before the
	// request is allocated; requests come in time order.
	Decorate func(r *optimizer.Request)
	// Avail adds outages, healing and availability sets (nil: none).
	Avail *Availability
	// Buffers are the allocator's cluster buffers, which the healable-
	// failure samples heal under (the healing buffer).
	Buffers optimizer.Buffers
	// Sink, when set, takes a one-agent replay's placement rows as they
	// become final (see Sink), and Result.Placements stays empty; without
	// one the result holds every row, in arrival order.
	Sink Sink
}

func (o ReplayOptions) seed() uint64 { return o.Seed }

// DefaultReplayOptions replays the whole trace (From −∞: the trace's start,
// To +∞) with a sample every DefaultInterval.
func DefaultReplayOptions() ReplayOptions {
	return ReplayOptions{From: math.Inf(-1), To: math.Inf(1), Interval: DefaultInterval}
}

// MaxSamples bounds the metric samples of one run: a window that would need
// more (a trace time of 1e300 s, an interval of a microsecond) is refused
// instead of sampled for ever.
const MaxSamples = 10_000_000

// ErrBadWindow reports a replay window or sampling interval out of range.
var ErrBadWindow = errors.New("replay: bad replay window")

// Normalize checks the window and the interval: From −∞ means the trace's
// start (time 0; VMs alive before it arrive then); NaN, To ≤ From and an
// interval that is not a positive finite number are errors.
func (o *ReplayOptions) Normalize() error {
	switch {
	case math.IsNaN(o.From) || math.IsInf(o.From, 1):
		return fmt.Errorf("%w: from = %v", ErrBadWindow, o.From)
	case math.IsNaN(o.To) || math.IsInf(o.To, -1):
		return fmt.Errorf("%w: to = %v", ErrBadWindow, o.To)
	case !(o.Interval > 0) || math.IsInf(o.Interval, 1):
		return fmt.Errorf("%w: interval = %v s, want a positive number of seconds", ErrBadWindow, o.Interval)
	case o.MaxRequests < 0:
		return fmt.Errorf("%w: max requests = %d, want ≥ 0 (0: all)", ErrBadWindow, o.MaxRequests)
	}
	if math.IsInf(o.From, -1) {
		o.From = 0
	}
	if o.To <= o.From {
		return fmt.Errorf("%w: the window ends (to = %v s) before it starts (from = %v s)", ErrBadWindow, o.To, o.From)
	}
	return nil
}

// checkSpan refuses a run whose samples from `from` to `last` would exceed
// MaxSamples.
func checkSpan(from, last, interval float64) error {
	if n := (last - from) / interval; n > MaxSamples {
		return fmt.Errorf("%w: %.3g s from %.3g s to %.3g s at one sample every %g s is %.3g samples (at most %d): raise the interval or bound the window",
			ErrBadWindow, last-from, from, last, interval, n, MaxSamples)
	}
	return nil
}

// PlacementRow is one VM's outcome.
//
// T is the trace time at which the decision took effect (the request's
// arrival for one agent; its commit or rejection for many). LatencyUS is the
// engine's wall-clock decision time for the VM's request, per VM, on every
// path; ResponseS is, for multi-agent runs, the time from arrival to
// resolution on the run's clock (NaN for one agent, which has no queue).
type PlacementRow struct {
	VM        int64
	T         float64
	Machine   int32 // database machine_id, -1 if rejected
	LatencyUS float64
	ResponseS float64
	Outcome   string // placed, rejected, evicted
	Reason    string
	EvictedAt float64 // trace time of the eviction; NaN unless evicted
	Explain   *optimizer.Explanation
	Agent     int
	Retries   int
	// Spread: the VM belongs to its tenant's availability set, with
	// FaultDomain and UpdateDomain (-1 when that kind of domain is off).
	Spread                    bool
	FaultDomain, UpdateDomain int16
	seq                       int64 // arrival order within the run
}

// MetricRow is one sample of a named figure.
type MetricRow struct {
	T      float64
	Metric string
	Value  float64
}

// Summary is the headline of a run; it is what `placelab replay --format
// json` prints. Every field means the same for one agent and for many:
//
//   - packing_density_mean, utilization_mean, low_priority_utilization_mean:
//     means of the interval samples (see sampler);
//   - latency_p50_us, latency_p99_us: the engine's wall-clock decision time
//     per VM, less the background refresh's changes the decision applied
//     (optimizer.Protean.Refresh: idle-time work, in `seconds`);
//   - placements_per_sec: VMs placed per wall-clock second of the run
//     (`seconds`), everything the run did included (cache upkeep, departures,
//     sampling; for simulated agents the simulator too);
//   - response_*_s, queue_delay_*_s, conflicts_*, throughput_*: multi-agent
//     runs only, on the run's clock (simulated or wall seconds);
//   - post_bestfit_pct: Protean Table 5's "Post-BestFit", the mean share of
//     valid candidates left after the BestFit rule (optimizer.PostBestFit),
//     counted by the engines whether or not explanations are on; null when
//     not measured (a baseline, a rule set without BestFit, no VM ranked);
//   - load_seconds: reading the trace; write_seconds: storing the run
//     after the replay, to the commit (a one-agent replay stored by
//     analysis.Run streams its placement rows while it runs, and that
//     overlapping work is in `seconds`).
type Summary struct {
	RunID              int64          `json:"run_id"`
	Policy             string         `json:"policy"`
	Dataset            string         `json:"dataset"`
	LoadID             int64          `json:"load_id,omitempty"`
	VMs                int            `json:"vms"`
	Requests           int            `json:"requests"`
	Accepted           int            `json:"accepted"`
	Rejected           int            `json:"rejected"`
	Evicted            int            `json:"evicted"`
	RejectedBy         map[string]int `json:"rejected_by"`
	PackingDensityMean float64        `json:"packing_density_mean"`
	UtilizationMean    float64        `json:"utilization_mean"`
	// Multi-priority: mean share of zone cores held by low-priority VMs, and
	// evicted / low-priority VMs placed.
	LowPriorityUtilizationMean float64  `json:"low_priority_utilization_mean"`
	EvictionRate               float64  `json:"eviction_rate"`
	LatencyP50US               float64  `json:"latency_p50_us"`
	LatencyP99US               float64  `json:"latency_p99_us"`
	PlacementsPerSec           float64  `json:"placements_per_sec"`
	CacheHitRate               float64  `json:"cache_hit_rate"`
	PostBestFitPct             *float64 `json:"post_bestfit_pct"`
	Seconds                    float64  `json:"seconds"`
	LoadSeconds                float64  `json:"load_seconds"`
	WriteSeconds               float64  `json:"write_seconds"`
	// CostPerHour is Σ the inventory's machines × their SKU's price per
	// hour, when the run was priced (replay --catalog) and every SKU has a
	// price; UnpricedSKUs are the SKUs the catalog does not name (then
	// CostPerHour is nil: no price is made up for them).
	CostPerHour  *float64           `json:"cost_per_hour,omitempty"`
	Machines     int                `json:"machines,omitempty"`
	UnpricedSKUs []string           `json:"unpriced_skus,omitempty"`
	Caches       map[string]float64 `json:"cache_hit_rates,omitempty"`
	// BackgroundRefreshes counts cells an idle agent brought up to date
	// (marked: optimizer.Protean.Refresh).
	BackgroundRefreshes int64 `json:"background_refreshes,omitempty"`
	// CellUpdatesBackground and CellUpdatesAtDecision are the cache's
	// upkeep in machines (optimizer.Protean.CellUpdates): changed machines
	// re-evaluated in cells on the background refresh's account and on
	// decisions' own (both applied by the decision that reads a cell
	// behind the journal), summed over a run's agents;
	// MachineChanges the machines' changes they follow (the journal's
	// revisions; one agent only). Protean with the cache on only.
	CellUpdatesBackground int64 `json:"cell_updates_background,omitempty"`
	CellUpdatesAtDecision int64 `json:"cell_updates_at_decision,omitempty"`
	MachineChanges        int64 `json:"machine_changes,omitempty"`
	// Multi-agent replays (placelab replay --agents N).
	Agents    int    `json:"agents,omitempty"`
	TimeModel string `json:"time_model,omitempty"`
	Conflicts int    `json:"conflicts"`
	Retries   int    `json:"retries"`
	// Conflicts and commits per second (per minute) of the run's clock over
	// every second (minute) from the first arrival to the last resolution.
	ConflictsP99PerS     float64 `json:"conflicts_p99_per_s"`
	ConflictsP99PerMin   float64 `json:"conflicts_p99_per_min"`
	ConflictsMaxPerS     float64 `json:"conflicts_max_per_s"`
	ThroughputP99PerS    float64 `json:"throughput_p99_per_s,omitempty"`
	ThroughputMaxPerS    float64 `json:"throughput_max_per_s,omitempty"`
	RejectionRate        float64 `json:"rejection_rate"`
	QueueDelayMeanS      float64 `json:"queue_delay_mean_s,omitempty"`
	QueueDelayP99S       float64 `json:"queue_delay_p99_s,omitempty"`
	ResponseP50S         float64 `json:"response_p50_s,omitempty"`
	ResponseP99S         float64 `json:"response_p99_s,omitempty"`
	SpanS                float64 `json:"span_s,omitempty"`
	BurstRequests        int     `json:"burst_requests,omitempty"`
	BurstSpanS           float64 `json:"burst_span_s,omitempty"`
	AvoidanceActivations int64   `json:"avoidance_activations"`
	// Rules says how aggressive each rule was (Protean §3.4): the share of
	// the candidates it was given that it removed, over the whole run.
	Rules []RuleShare `json:"rules,omitempty"`
	// Availability (issue 27), on every path, stored in run_metric under
	// the same names. Failure rates are by VMs: rejected VMs / VMs asked
	// for by requests of that buffer (new deployment, scale-out, heal).
	NewDeploymentFailureRate float64 `json:"new_deployment_failure_rate"`
	ScaleoutFailureRate      float64 `json:"scaleout_failure_rate"`
	HealRequests             int     `json:"heal_requests"`
	HealVMs                  int     `json:"heal_vms"`
	HealFailedVMs            int     `json:"heal_failed_vms"`
	HealFailureRate          float64 `json:"heal_failure_rate"`
	// CFR is the capacity fulfillment rate (Protean §6.3): VMs placed / VMs
	// requested, every kind (arrivals and heals).
	CFR float64 `json:"cfr"`
	// VMDowntimeHours: VM-hours down for reboots and maintenance (the
	// outage), healing (the heal delay) and healing failures (until the
	// VM's end or the run's).
	VMDowntimeHours    float64 `json:"vm_downtime_hours"`
	MachineFailures    int     `json:"machine_failures"`
	RackFailures       int     `json:"rack_failures"`
	Reboots            int     `json:"reboots"`
	MaintenanceOutages int     `json:"maintenance_outages"`
	// MaintenanceMaxDownShare: the largest share of one tenant's VMs on the
	// machines of one update domain when its rollout started.
	MaintenanceMaxDownShare float64 `json:"maintenance_max_down_share"`
	// MaintenanceOverBound counts the (tenant, rollout window) pairs with
	// update domains on that took down more than ⌈n/U⌉ of the tenant's n
	// alive VMs. A set keeps its VMs' domains as VMs come and go (VM i has
	// update domain i mod U), so after departures one domain can hold more
	// than its share of the VMs left: the rule keeps domains apart, not
	// balanced.
	MaintenanceOverBound int `json:"maintenance_over_bound"`
	// Means of the interval samples healable_machine_failures_pct and
	// healable_rack_failures_pct.
	HealableMachineFailuresPctMean float64 `json:"healable_machine_failures_pct_mean"`
	HealableRackFailuresPctMean    float64 `json:"healable_rack_failures_pct_mean"`
	// HealableSampleSeconds is the time the healable samples took: each is
	// taken on the replay's goroutine (the changes since the last one set
	// aside) and computed on a goroutine of its own while the replay goes
	// on (healable.Sampler.Start). HealableWaitSeconds is the part of
	// Seconds the replay spent on them: taking each, and waiting for one
	// not done by the next sample or the end. placelab bench availability
	// sets both beside Seconds.
	HealableSampleSeconds float64 `json:"healable_sample_seconds"`
	HealableWaitSeconds   float64 `json:"healable_wait_seconds"`
	// Means of the interval samples stranded_cores_pct and
	// stranded_memory_pct: the share of the zone's cores (memory) free on
	// healthy machines that no VM type fits because another dimension is
	// exhausted (see stranded in sample.go for the exact definition).
	StrandedCoresPctMean  float64 `json:"stranded_cores_pct_mean"`
	StrandedMemoryPctMean float64 `json:"stranded_memory_pct_mean"`
}

// RuleShare is one rule's aggregate aggressiveness.
type RuleShare struct {
	Rule         string  `json:"rule"`
	Level        string  `json:"level"`
	MeanGiven    float64 `json:"mean_candidates"`
	RemovedShare float64 `json:"removed_share"`
	Evaluations  int64   `json:"evaluations"`
}

// Result is everything a replay produced.
type Result struct {
	Summary    Summary
	Placements []PlacementRow
	Metrics    []MetricRow
	RuleStats  []optimizer.RuleStats
	// Trace is the trace replayed.
	Trace *Trace
	// Store is a multi-agent run's authoritative state at the end (for
	// checks and tests); nil for one agent.
	Store *optimizer.CommitStore
	// Outages and Moves are the run's outages and heal moves (tables
	// outage and vm_move).
	Outages []OutageRow
	Moves   []MoveRow
	// Gangs is what became of each VM of the rejected requests of several
	// VMs (table gang_vm).
	Gangs []GangVM
	// openPeak is the most placement rows a one-agent replay held open at
	// once (rowBook.peak).
	openPeak int
}

// sameConstraints: two VMs share node sets and tenant bounds, so they can
// be one request (a DaemonSet's pods, one pinned per node, are not).
func sameConstraints(tr *Trace, a, b *TraceVM) bool {
	return a.Cons == b.Cons || tr.ConstraintsOf(a) == tr.ConstraintsOf(b)
}

// Requests groups a trace's VMs into service requests: the VMs of one
// tenant arriving at the same time with the same placement constraints
// (each VM alone when tr.OnePerRequest), in time order. VMs alive before
// from arrive at from.
func Requests(tr *Trace, from, to float64) []optimizer.Request {
	reqs, _ := requests(tr, from, to)
	return reqs
}

// Replay runs a trace through an allocator in time order: departures before
// arrivals at the same instant, metrics sampled every Interval. It is the
// loop driven by one engine deciding each request as it arrives, observed
// by the run's rows, samples, latencies and availability counts.
func Replay(ctx context.Context, tr *Trace, alloc optimizer.Allocator, opt ReplayOptions) (*Result, error) {
	if err := opt.Normalize(); err != nil {
		return nil, err
	}
	reqs := newRequestStream(tr, opt.From, opt.To, opt.MaxRequests)
	total := int64(reqs.n)
	res := &Result{Summary: Summary{Policy: alloc.Name(), Dataset: tr.Dataset, RejectedBy: map[string]int{}}, Trace: tr}
	book := newBookWorker(opt.Sink)
	defer book.stop() // an early return leaves no goroutine behind
	state := alloc.State()
	// The engine's optional upkeep and statistics (Protean's; a baseline
	// has neither).
	refresher, _ := alloc.(optimizer.Refresher)
	stats, _ := alloc.(optimizer.StatsReporter)
	// Sample through the end of the window (a finite To), else through the
	// last arrival; close a partial last interval with one more sample.
	last := opt.From
	if reqs.n > 0 {
		last = reqs.last
	}
	if !math.IsInf(opt.To, 1) && opt.To > last {
		last = opt.To
	}
	if reqs.n > 0 {
		if err := checkSpan(opt.From, last, opt.Interval); err != nil {
			return nil, err
		}
	}
	smp := newSampler(tr.Inv, opt.Buffers)
	av := newAvail(opt.Avail, tr, alloc, nil, book.endOf, total)
	rows := &rowsObserver{tr: tr, cfg: opt.Avail, book: book, res: res}
	lat := &latencyObserver{lat: make([]float64, 0, reqs.vms)}
	d := &engineDriver{eng: alloc, refresher: refresher, refresh: opt.Refresh, state: state, now: time.Now,
		obs:      []Observer{rows, (*samplesObserver)(smp), lat, (*availObserver)(av)},
		endOf:    func(span requestSpan, k int, _ int64) float64 { return tr.VMs[int(span.first)+k].End },
		decorate: opt.Decorate, cfg: opt.Avail, sets: setNumbers{}, av: av, smp: smp,
		prev: math.Inf(-1), total: total, progress: opt.Progress, last: last,
		check: func() error {
			if err := book.err(); err != nil {
				return fmt.Errorf("replay: storing rows: %w", err)
			}
			return nil
		}}
	l := &loop{ctx: ctx, drv: d, src: reqs, byVM: true, av: av}
	l.startSamples(opt.From, opt.Interval)
	start := time.Now()
	if err := l.run(); err != nil {
		return nil, err
	}
	l.finish(last)
	if l.nextB-opt.Interval < last {
		d.sample(last)
	}
	av.finish(last)
	if opt.Progress != nil {
		opt.Progress(total, total)
	}
	smp.finish()
	placed, err := book.finish()
	res.openPeak = book.b.peak
	if err != nil {
		return nil, err
	}
	res.Placements = placed
	s := &res.Summary
	s.Seconds = time.Since(start).Seconds()
	res.Metrics = append(smp.metrics, res.Metrics...)
	s.VMs = int(book.b.seq)
	smp.summarize(s, rows.lowPlaced, lat.lat)
	av.summarize(s)
	res.Metrics = append(res.Metrics, availabilityFigures(s, last)...)
	res.Outages, res.Moves = av.rows, av.moves
	if stats != nil {
		engineStats(res, last, stats)
		if stats.Config().Cache {
			s.MachineChanges = int64(stats.State().Journal.Rev())
		}
	}
	return res, nil
}

// rowsObserver files a one-engine run's placement rows (rowBook, on its
// goroutine), its gang rows and its outcome counts.
type rowsObserver struct {
	tr        *Trace
	cfg       *Availability
	book      *bookWorker
	res       *Result
	cur       []PlacementRow // the rows of the request at hand
	lowPlaced int
}

func (o *rowsObserver) Decided(e *Decided) {
	r, d, tr, s := e.Request, e.Decision, o.tr, &o.res.Summary
	perVM := e.PerVMUS()
	s.Requests++
	cur := o.cur[:0]
	for k, v := range r.VMs {
		row := PlacementRow{VM: v.ID, T: r.Time, Machine: -1, LatencyUS: perVM, ResponseS: math.NaN(), Outcome: "rejected", EvictedAt: math.NaN()}
		if o.cfg.domains() {
			row.Spread = true
			row.FaultDomain, row.UpdateDomain = domainsOf(o.cfg, v)
		}
		if d.OK {
			row.Outcome = "placed"
			s.Accepted++
			if tr.VMs[int(e.span.first)+k].Priority > 0 {
				o.lowPlaced++
			}
		} else {
			s.Rejected++
			row.Reason = d.Reason
			s.RejectedBy[d.Reason]++
		}
		cur = append(cur, row)
	}
	o.cur = cur
	rowOf := func(vm int64) *PlacementRow {
		for k := range cur {
			if cur[k].VM == vm {
				return &cur[k]
			}
		}
		return nil
	}
	if len(cur) > 16 {
		idx := make(map[int64]int, len(cur))
		for k := range cur {
			idx[cur[k].VM] = k
		}
		rowOf = func(vm int64) *PlacementRow {
			if k, ok := idx[vm]; ok {
				return &cur[k]
			}
			return nil
		}
	}
	for k := range d.Explain {
		ex := &d.Explain[k]
		if row := rowOf(ex.VM); row != nil {
			row.Explain = ex
		}
	}
	o.res.Gangs = append(o.res.Gangs, gangRows(tr, r.ID, d.Gang)...)
	for _, p := range d.Placements {
		if row := rowOf(p.VM); row != nil {
			row.Machine = tr.MachineIDs[p.Machine]
		}
	}
	for k := range cur {
		o.book.add(cur[k], tr.VMs[int(e.span.first)+k].End)
	}
}

func (o *rowsObserver) Departed(vm int64, _ time.Duration) { o.book.close(vm) }

func (o *rowsObserver) Evicted(vm int64, t float64) {
	o.book.evict(vm, t)
	o.res.Summary.Evicted++
}

func (o *rowsObserver) Refreshed(int, time.Duration) {}

// samplesObserver counts a one-engine run's outcomes and latencies in the
// sampler's current interval.
type samplesObserver sampler

func (o *samplesObserver) Decided(e *Decided) {
	s, n := (*sampler)(o), len(e.Request.VMs)
	perVM := e.PerVMUS()
	for range n {
		s.lat = append(s.lat, perVM)
	}
	s.arrivals += n
	if e.Decision.OK {
		s.accepted += n
	} else {
		s.rejected += n
	}
}

func (o *samplesObserver) Departed(int64, time.Duration) {}
func (o *samplesObserver) Evicted(int64, float64)        { o.evicted++ }
func (o *samplesObserver) Refreshed(int, time.Duration)  {}

// latencyObserver keeps every VM's decision latency (the summary's
// percentiles).
type latencyObserver struct{ lat []float64 }

func (o *latencyObserver) Decided(e *Decided) {
	perVM := e.PerVMUS()
	for range e.Request.VMs {
		o.lat = append(o.lat, perVM)
	}
}

func (o *latencyObserver) Departed(int64, time.Duration) {}
func (o *latencyObserver) Evicted(int64, float64)        {}
func (o *latencyObserver) Refreshed(int, time.Duration)  {}

// availObserver counts each request's outcome by the buffer it used.
type availObserver avail

func (o *availObserver) Decided(e *Decided) {
	(*avail)(o).count(e.Kind, len(e.Request.VMs), e.Decision.OK)
}

func (o *availObserver) Departed(int64, time.Duration) {}
func (o *availObserver) Evicted(int64, float64)        {}
func (o *availObserver) Refreshed(int, time.Duration)  {}

// engineStats fills the summary's cache hit rates and rule aggressiveness
// from the Protean engines of a run (one, or one per agent), summed.
func engineStats(res *Result, last float64, engines ...optimizer.StatsReporter) {
	s := &res.Summary
	caches := map[string]optimizer.CacheStats{}
	var rules []optimizer.RuleStats
	idx := map[string]int{}
	var postBF optimizer.PostBestFit
	for _, e := range engines {
		postBF = postBF.Add(e.PostBestFit())
		for k, v := range e.CacheStats() {
			c := caches[k]
			c.Hits += v.Hits
			c.Misses += v.Misses
			caches[k] = c
		}
		for _, r := range e.RuleStats() {
			i, ok := idx[r.Rule]
			if !ok {
				i = len(rules)
				idx[r.Rule] = i
				rules = append(rules, optimizer.RuleStats{Rule: r.Rule, Level: r.Level})
			}
			rules[i].Requests += r.Requests
			rules[i].Candidates += r.Candidates
			rules[i].Removed += r.Removed
		}
		s.BackgroundRefreshes += e.BackgroundUpdates()
		bg, dec := e.CellUpdates()
		s.CellUpdatesBackground += bg
		s.CellUpdatesAtDecision += dec
	}
	if pct, ok := postBF.Pct(); ok {
		s.PostBestFitPct = &pct
		res.Metrics = append(res.Metrics, MetricRow{last, MetricPostBestFitPct, pct})
	}
	s.CacheHitRate = caches["RuleEvaluation"].HitRate()
	s.Caches = map[string]float64{}
	for k, v := range caches {
		s.Caches[k] = v.HitRate()
	}
	res.RuleStats = rules
	for _, r := range rules {
		if r.Requests == 0 {
			continue
		}
		rs := RuleShare{Rule: r.Rule, Level: r.Level, Evaluations: r.Requests, MeanGiven: float64(r.Candidates) / float64(r.Requests)}
		if r.Candidates > 0 {
			rs.RemovedShare = float64(r.Removed) / float64(r.Candidates)
		}
		s.Rules = append(s.Rules, rs)
		res.Metrics = append(res.Metrics, MetricRow{last, "rule_removed_share/" + r.Rule, rs.RemovedShare})
	}
}

// MetricPostBestFitPct is the run_metric row (at the run's last instant)
// that stores Summary.PostBestFitPct; a run that did not measure it has
// none, so SQL reads NULL.
const MetricPostBestFitPct = "post_bestfit_pct"

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Quantile is the q-quantile by the nearest-rank method (on a sorted
// copy): the one definition of every percentile placelab reports.
func Quantile(xs []float64, q float64) float64 { return quantile(xs, q) }

// quantile is the q-quantile by the nearest-rank method (on a sorted copy).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedQuantile(s, q)
}

// sortedQuantile is quantile of xs sorted already.
func sortedQuantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

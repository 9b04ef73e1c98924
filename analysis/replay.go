package analysis

import (
	"container/heap"
	"context"
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
}

func (o ReplayOptions) seed() uint64 { return o.Seed }

// PlacementRow is one VM's outcome.
type PlacementRow struct {
	VM        int64
	T         float64
	Machine   int32 // database machine_id, -1 if rejected
	LatencyUS float64
	Outcome   string // placed, rejected, evicted
	Reason    string
	EvictedAt float64 // NaN unless evicted
	Explain   *optimizer.Explanation
	Agent     int
	Retries   int
}

// MetricRow is one sample of a named figure.
type MetricRow struct {
	T      float64
	Metric string
	Value  float64
}

// Summary is the headline of a run; it is what `placelab replay --format
// json` prints.
type Summary struct {
	RunID              int64          `json:"run_id"`
	Policy             string         `json:"policy"`
	Dataset            string         `json:"dataset"`
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
	LowPriorityUtilizationMean float64            `json:"low_priority_utilization_mean"`
	EvictionRate               float64            `json:"eviction_rate"`
	LatencyP50US               float64            `json:"latency_p50_us"`
	LatencyP99US               float64            `json:"latency_p99_us"`
	PlacementsPerSec           float64            `json:"placements_per_sec"`
	CacheHitRate               float64            `json:"cache_hit_rate"`
	PostBestFitPct             float64            `json:"post_bestfit_pct"`
	Seconds                    float64            `json:"seconds"`
	LoadSeconds                float64            `json:"load_seconds"`
	WriteSeconds               float64            `json:"write_seconds"`
	Caches                     map[string]float64 `json:"cache_hit_rates,omitempty"`
	// BackgroundRefreshes counts cells an idle agent brought up to date.
	BackgroundRefreshes int64 `json:"background_refreshes,omitempty"`
	// Multi-agent replays (placelab replay --agents N).
	Agents               int     `json:"agents,omitempty"`
	TimeModel            string  `json:"time_model,omitempty"`
	Conflicts            int     `json:"conflicts"`
	Retries              int     `json:"retries"`
	ConflictsP99PerS     float64 `json:"conflicts_p99_per_s"`
	ThroughputP99PerS    float64 `json:"throughput_p99_per_s,omitempty"`
	ConflictsMaxPerS     float64 `json:"conflicts_max_per_s"`
	ThroughputMaxPerS    float64 `json:"throughput_max_per_s,omitempty"`
	RejectionRate        float64 `json:"rejection_rate"`
	QueueDelayMeanS      float64 `json:"queue_delay_mean_s,omitempty"`
	QueueDelayP99S       float64 `json:"queue_delay_p99_s,omitempty"`
	SpanS                float64 `json:"span_s,omitempty"`
	BurstRequests        int     `json:"burst_requests,omitempty"`
	BurstSpanS           float64 `json:"burst_span_s,omitempty"`
	AvoidanceActivations int64   `json:"avoidance_activations"`
	// Rules says how aggressive each rule was (Protean §3.4): the share of
	// the candidates it was given that it removed, over the whole run.
	Rules []RuleShare `json:"rules,omitempty"`
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
	trace      *Trace
}

type departure struct {
	t  float64
	vm int64
}

type depHeap []departure

func (h depHeap) Len() int { return len(h) }
func (h depHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].vm < h[j].vm
}
func (h depHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *depHeap) Push(x any)   { *h = append(*h, x.(departure)) }
func (h *depHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Requests groups a trace's VMs into service requests: the VMs of one
// tenant arriving at the same time. VMs alive before from arrive at from.
func Requests(tr *Trace, from, to float64) []optimizer.Request {
	var reqs []optimizer.Request
	for i := 0; i < len(tr.VMs); {
		v := tr.VMs[i]
		t := math.Max(v.Start, from)
		if t >= to {
			break
		}
		r := optimizer.Request{ID: int64(len(reqs)), Tenant: v.Tenant, Time: t, Priority: v.Priority}
		j := i
		for j < len(tr.VMs) && tr.VMs[j].Tenant == v.Tenant && tr.VMs[j].Start == v.Start && tr.VMs[j].Priority == v.Priority {
			r.VMs = append(r.VMs, optimizer.VMRequest{ID: tr.VMs[j].ID, Type: tr.VMs[j].Type})
			j++
		}
		reqs = append(reqs, r)
		i = j
	}
	slices.SortStableFunc(reqs, func(a, b optimizer.Request) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	for i := range reqs {
		reqs[i].ID = int64(i)
	}
	return reqs
}

// Replay runs a trace through an allocator in time order: departures before
// arrivals at the same instant, metrics sampled every Interval.
func Replay(ctx context.Context, tr *Trace, alloc optimizer.Allocator, opt ReplayOptions) (*Result, error) {
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if math.IsInf(opt.From, -1) || math.IsNaN(opt.From) {
		opt.From = 0 // the trace's start: VMs alive before it are placed first
	}
	if opt.To <= opt.From || math.IsNaN(opt.To) {
		opt.To = math.Inf(1)
	}
	end := map[int64]float64{}
	lowPriority := map[int64]bool{}
	for _, v := range tr.VMs {
		end[v.ID] = v.End
		if v.Priority > 0 {
			lowPriority[v.ID] = true
		}
	}
	reqs := Requests(tr, opt.From, opt.To)
	if opt.MaxRequests > 0 && len(reqs) > opt.MaxRequests {
		reqs = reqs[:opt.MaxRequests]
	}
	res := &Result{Summary: Summary{Policy: alloc.Name(), Dataset: tr.Dataset, RejectedBy: map[string]int{}}, trace: tr}
	rowOf := map[int64]int{}
	var deps depHeap
	state := alloc.State()
	inv := tr.Inv
	totalCores := inv.TotalCores()
	protean, _ := alloc.(*optimizer.Protean)

	var lat, intervalLat []float64
	var busy time.Duration
	var postBF []float64
	next := opt.From
	if len(reqs) > 0 {
		next = math.Floor(reqs[0].Time/opt.Interval)*opt.Interval + opt.Interval
	}
	var iv struct{ arrivals, accepted, rejected, evicted int }
	var densities, utils, lowUtils []float64
	sample := func(t float64) {
		var used, nonEmpty float64
		emptyMachines := 0
		for c := range inv.Clusters {
			used += state.ClusterUsedCores[c]
		}
		for m := range inv.Machines {
			if state.Count[m] > 0 {
				nonEmpty += inv.Capacity(int32(m))[optimizer.Cores]
			} else {
				emptyMachines++
			}
		}
		pd := 0.0
		if nonEmpty > 0 {
			pd = used / nonEmpty
			densities = append(densities, pd)
		}
		util := used / totalCores
		utils = append(utils, util)
		var lowCores float64
		for m := range state.LowUsed {
			lowCores += state.LowUsed[m][optimizer.Cores]
		}
		lowUtils = append(lowUtils, lowCores/totalCores)
		add := func(name string, v float64) { res.Metrics = append(res.Metrics, MetricRow{t, name, v}) }
		add("packing_density", pd)
		add("utilization", util)
		add("allocated_cores", used)
		add("low_priority_utilization", lowCores/totalCores)
		add("empty_machines", float64(emptyMachines))
		add("empty_machines_per_cluster", float64(emptyMachines)/float64(len(inv.Clusters)))
		add("alive_vms", float64(state.Len()))
		add("arrivals", float64(iv.arrivals))
		add("accepted", float64(iv.accepted))
		add("rejected", float64(iv.rejected))
		add("evicted", float64(iv.evicted))
		if iv.arrivals > 0 {
			add("acceptance", float64(iv.accepted)/float64(iv.arrivals))
		}
		if len(intervalLat) > 0 {
			add("latency_p50_us", quantile(intervalLat, 0.5))
			add("latency_p99_us", quantile(intervalLat, 0.99))
		}
		iv.arrivals, iv.accepted, iv.rejected, iv.evicted = 0, 0, 0, 0
		intervalLat = intervalLat[:0]
	}
	depart := func(until float64) {
		for deps.Len() > 0 && deps[0].t <= until {
			d := heap.Pop(&deps).(departure)
			alloc.Release(d.vm)
		}
	}
	advance := func(t float64) {
		for next <= t {
			depart(next)
			sample(next)
			next += opt.Interval
		}
		depart(t)
	}
	start := time.Now()
	for i := range reqs {
		r := &reqs[i]
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if opt.Progress != nil {
				opt.Progress(int64(i), int64(len(reqs)))
			}
		}
		advance(r.Time)
		if opt.Refresh && protean != nil && i > 0 && r.Time-reqs[i-1].Time >= RefreshGap {
			protean.Refresh(RefreshEvals)
		}
		if opt.Decorate != nil {
			opt.Decorate(r)
		}
		t0 := time.Now()
		d := alloc.Allocate(r)
		el := time.Since(t0)
		busy += el
		perVM := float64(el.Nanoseconds()) / 1e3 / float64(len(r.VMs))
		res.Summary.Requests++
		for _, v := range r.VMs {
			lat = append(lat, perVM)
			intervalLat = append(intervalLat, perVM)
			row := PlacementRow{VM: v.ID, T: r.Time, Machine: -1, LatencyUS: perVM, Outcome: "rejected", EvictedAt: math.NaN()}
			iv.arrivals++
			if d.OK {
				row.Outcome = "placed"
				iv.accepted++
				res.Summary.Accepted++
			} else {
				iv.rejected++
				res.Summary.Rejected++
				row.Reason = d.Reason
				res.Summary.RejectedBy[d.Reason]++
			}
			rowOf[v.ID] = len(res.Placements)
			res.Placements = append(res.Placements, row)
		}
		for k := range d.Explain {
			ex := &d.Explain[k]
			if i, ok := rowOf[ex.VM]; ok {
				res.Placements[i].Explain = ex
			}
			if f, ok := postBestFit(ex); ok {
				postBF = append(postBF, f)
			}
		}
		for _, p := range d.Placements {
			row := &res.Placements[rowOf[p.VM]]
			row.Machine = tr.MachineIDs[p.Machine]
			if e := end[p.VM]; !math.IsInf(e, 1) {
				heap.Push(&deps, departure{e, p.VM})
			}
		}
		for _, e := range d.Evicted {
			if i, ok := rowOf[e.VM]; ok {
				res.Placements[i].Outcome = "evicted"
				res.Placements[i].EvictedAt = r.Time
				res.Placements[i].Reason = optimizer.ReasonEvicted
			}
			iv.evicted++
			res.Summary.Evicted++
		}
	}
	// Sample through the end of the window (a finite To), else through the
	// last arrival; close a partial last interval with one more sample.
	last := opt.From
	if len(reqs) > 0 {
		last = reqs[len(reqs)-1].Time
	}
	if !math.IsInf(opt.To, 1) && opt.To > last {
		last = opt.To
	}
	advance(last)
	if next-opt.Interval < last {
		sample(last)
	}
	if opt.Progress != nil {
		opt.Progress(int64(len(reqs)), int64(len(reqs)))
	}
	s := &res.Summary
	s.Seconds = time.Since(start).Seconds()
	s.VMs = len(lat)
	s.PackingDensityMean = mean(densities)
	s.UtilizationMean = mean(utils)
	s.LowPriorityUtilizationMean = mean(lowUtils)
	lowPlaced := 0
	for i := range res.Placements {
		if res.Placements[i].Outcome != "rejected" && lowPriority[res.Placements[i].VM] {
			lowPlaced++
		}
	}
	if lowPlaced > 0 {
		s.EvictionRate = float64(s.Evicted) / float64(lowPlaced)
	}
	s.LatencyP50US = quantile(lat, 0.5)
	s.LatencyP99US = quantile(lat, 0.99)
	if busy > 0 {
		s.PlacementsPerSec = float64(len(lat)) / busy.Seconds()
	}
	s.PostBestFitPct = 100 * mean(postBF)
	if protean != nil {
		cs := protean.CacheStats()
		s.CacheHitRate = cs["RuleEvaluation"].HitRate()
		s.Caches = map[string]float64{}
		for k, v := range cs {
			s.Caches[k] = v.HitRate()
		}
		res.RuleStats = protean.RuleStats()
		s.BackgroundRefreshes = protean.BackgroundUpdates()
		for _, r := range res.RuleStats {
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
	return res, nil
}

// postBestFit is the share of valid candidates left after the BestFit rule
// (Protean Table 5's "Post-BestFit"), from one explanation.
func postBestFit(ex *optimizer.Explanation) (float64, bool) {
	valid := ex.Machines
	for _, r := range ex.Rejected {
		if r.Rule != "TenantAntiColocation" {
			valid -= r.Count
		}
	}
	if valid <= 0 {
		return 0, false
	}
	for _, a := range ex.AfterPrefs {
		if a.Rule == "BestFit" {
			return float64(a.Count) / float64(valid), true
		}
	}
	return 0, false
}

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

// quantile is the q-quantile by the nearest-rank method (on a sorted copy).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

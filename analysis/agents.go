package analysis

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"placelab/optimizer"
)

// Time models of a multi-agent replay.
const (
	TimeSim  = "sim"  // the paper's low-fidelity simulator: simulated time, deterministic
	TimeReal = "real" // real goroutines, wall-clock time
)

// Defaults of the simulated time model (Protean §6.2: a cache hit with
// probability 0.9 costs 14 ms, a miss 88 ms).
const (
	DefaultHitRate  = 0.9
	DefaultHitMS    = 14.0
	DefaultMissMS   = 88.0
	DefaultCommitMS = 1.0
)

// AgentOptions configure a replay with several allocation agents.
type AgentOptions struct {
	ReplayOptions
	Agents     int
	TimeModel  string
	Speedup    float64 // simulated time: the trace runs this many times faster
	HitRate    float64 // simulated time: probability an evaluation hits the cache
	HitMS      float64 // ... and its cost; MissMS the cost of a miss
	MissMS     float64
	CommitMS   float64 // simulated time: commit round trip (pipelined)
	MaxRetries int
	Window, N0 int
	Avoid      bool
	// CheckEvery verifies the authoritative state's invariants after every
	// commit (tests).
	CheckEvery bool
}

// DefaultAgentOptions are the settings of Protean's simulations (§6.2).
func DefaultAgentOptions() AgentOptions {
	return AgentOptions{Agents: 1, TimeModel: TimeSim, Speedup: 1, HitRate: DefaultHitRate, HitMS: DefaultHitMS,
		MissMS: DefaultMissMS, CommitMS: DefaultCommitMS, MaxRetries: optimizer.DefaultMaxRetries,
		Window: optimizer.DefaultWindow, N0: optimizer.DefaultN0, Avoid: true}
}

// ReasonMaxRetries is the rejection of a request that kept conflicting.
const ReasonMaxRetries = "MaxRetries"

// outcome is what happened to one request.
type outcome struct {
	done              bool
	ok                bool
	reason            string
	agent, retries    int
	arrive, start, at float64 // arrival, first evaluation start, resolution (seconds)
	machines          []int32
	conflictAt        []float64 // times of this request's commit conflicts
	avoided           int       // attempts decided with conflict avoidance
	evicted           []optimizer.Placement
	evalUS            float64 // evaluation time of the last attempt per VM (real time)
}

// ReplayAgents replays a trace with opt.Agents agents deciding on stale
// views and committing to one commit store. In simulated time every
// evaluation costs a drawn cache-hit or cache-miss latency and the run is
// deterministic for a seed; in real time the agents are goroutines.
func ReplayAgents(ctx context.Context, tr *Trace, cfg optimizer.Config, opt AgentOptions) (*Result, error) {
	if opt.Agents < 1 {
		return nil, fmt.Errorf("analysis: agents = %d, want ≥ 1", opt.Agents)
	}
	if opt.Speedup <= 0 {
		opt.Speedup = 1
	}
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if math.IsInf(opt.From, -1) || math.IsNaN(opt.From) {
		opt.From = 0
	}
	if opt.To <= opt.From || math.IsNaN(opt.To) {
		opt.To = math.Inf(1)
	}
	reqs := Requests(tr, opt.From, opt.To)
	if opt.MaxRequests > 0 && len(reqs) > opt.MaxRequests {
		reqs = reqs[:opt.MaxRequests]
	}
	store, serr := optimizer.NewCommitStore(tr.Inv, cfg, optimizer.RulesFor(&cfg))
	if serr != nil {
		return nil, serr
	}
	agents := make([]*optimizer.Agent, opt.Agents)
	for i := range agents {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)*0x9e3779b97f4a7c15
		a, err := optimizer.NewAgent(i, tr.Inv, c, optimizer.RulesFor(&c))
		if err != nil {
			return nil, err
		}
		a.Avoid, a.Window, a.N0 = opt.Avoid, opt.Window, opt.N0
		agents[i] = a
	}
	end := make(map[int64]float64, len(tr.VMs))
	for _, v := range tr.VMs {
		end[v.ID] = v.End
	}
	outs := make([]outcome, len(reqs))
	start := time.Now()
	var err error
	if opt.TimeModel == TimeReal {
		err = runReal(ctx, store, agents, reqs, end, outs, opt)
	} else {
		err = runSim(ctx, store, agents, reqs, end, outs, opt)
	}
	if err != nil {
		return nil, err
	}
	res := summarizeAgents(tr, store, agents, reqs, outs, opt)
	res.Summary.Seconds = time.Since(start).Seconds()
	return res, nil
}

// simEvent kinds, in the order they are processed at equal times.
const (
	evDeparture = iota
	evCommit
	evArrival
	evFree
)

type simEvent struct {
	t     float64
	kind  int
	seq   int
	req   int
	agent int
	vm    int64
	d     *optimizer.Decision
}

type simQueue []simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	if q[i].kind != q[j].kind {
		return q[i].kind < q[j].kind
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *simQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// runSim is the low-fidelity simulator: one thread, simulated time.
func runSim(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqs []optimizer.Request,
	end map[int64]float64, outs []outcome, opt AgentOptions) error {
	rng := rand.New(rand.NewPCG(opt.ReplayOptions.seed(), 0x51))
	scale := func(t float64) float64 { return opt.From + (t-opt.From)/opt.Speedup }
	var q simQueue
	seq := 0
	push := func(e simEvent) {
		e.seq = seq
		seq++
		heap.Push(&q, e)
	}
	for i := range reqs {
		push(simEvent{t: scale(reqs[i].Time), kind: evArrival, req: i})
		outs[i].arrive = scale(reqs[i].Time)
		outs[i].start = -1
	}
	free := make([]bool, len(agents))
	for i := range free {
		free[i] = true
	}
	var waiting []int // FIFO of request indexes
	dispatch := func(now float64) {
		for len(waiting) > 0 {
			a := -1
			for i, f := range free {
				if f {
					a = i
					break
				}
			}
			if a < 0 {
				return
			}
			r := waiting[0]
			waiting = waiting[1:]
			ag := agents[a]
			ag.Sync(store)
			req := &reqs[r]
			d := ag.Decide(req)
			if d.Avoided {
				outs[r].avoided++
			}
			cost := 0.0
			for range req.VMs {
				if rng.Float64() < opt.HitRate {
					cost += opt.HitMS
				} else {
					cost += opt.MissMS
				}
			}
			cost /= 1000
			if outs[r].start < 0 {
				outs[r].start = now
			}
			outs[r].agent = a
			free[a] = false
			push(simEvent{t: now + cost, kind: evFree, agent: a})
			dd := d
			push(simEvent{t: now + cost + opt.CommitMS/1000, kind: evCommit, req: r, agent: a, d: &dd})
		}
	}
	n := 0
	for q.Len() > 0 {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if opt.Progress != nil {
				done := 0
				for i := range outs {
					if outs[i].done {
						done++
					}
				}
				opt.Progress(int64(done), int64(len(reqs)))
			}
		}
		e := heap.Pop(&q).(simEvent)
		switch e.kind {
		case evDeparture:
			store.Release(e.vm)
		case evArrival:
			waiting = append(waiting, e.req)
		case evFree:
			free[e.agent] = true
		case evCommit:
			o := &outs[e.req]
			req := &reqs[e.req]
			if !e.d.OK { // no machine on the agent's view: rejected, nothing to commit
				o.done, o.reason, o.at = true, e.d.Reason, e.t
				break
			}
			res := store.Commit(e.agent, req, e.d.Placements, e.d.Evicted)
			agents[e.agent].Resolve(store, *e.d, res)
			if opt.CheckEvery {
				if err := store.CheckInvariants(); err != nil {
					return err
				}
			}
			if res.OK {
				o.done, o.ok, o.at, o.evicted = true, true, e.t, e.d.Evicted
				for _, p := range e.d.Placements {
					o.machines = append(o.machines, p.Machine)
					if t := end[p.VM]; !math.IsInf(t, 1) {
						push(simEvent{t: math.Max(scale(t), e.t), kind: evDeparture, vm: p.VM})
					}
				}
				break
			}
			o.retries++
			o.conflictAt = append(o.conflictAt, e.t)
			if o.retries > opt.MaxRetries {
				o.done, o.reason, o.at = true, ReasonMaxRetries, e.t
				break
			}
			waiting = append(waiting, e.req)
		}
		dispatch(e.t)
	}
	return nil
}

// runReal runs the agents as goroutines pulling requests from a shared
// queue; commits are serialized by the store. A dispatcher feeds requests in
// trace order and releases departed VMs as it goes.
func runReal(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqs []optimizer.Request,
	end map[int64]float64, outs []outcome, opt AgentOptions) error {
	queue := make(chan int, 4*len(agents))
	var depMu sync.Mutex
	var deps depHeap
	var wg sync.WaitGroup
	t0 := time.Now()
	now := func() float64 { return time.Since(t0).Seconds() }
	var errOnce sync.Once
	var firstErr error
	for _, ag := range agents {
		wg.Add(1)
		go func(ag *optimizer.Agent) {
			defer wg.Done()
			for r := range queue {
				req := &reqs[r]
				o := &outs[r]
				o.start = now()
				o.agent = ag.ID
				for {
					ag.Sync(store)
					e0 := time.Now()
					d := ag.Decide(req)
					o.evalUS = float64(time.Since(e0).Nanoseconds()) / 1e3 / float64(len(req.VMs))
					if d.Avoided {
						o.avoided++
					}
					if !d.OK {
						o.done, o.reason, o.at = true, d.Reason, now()
						break
					}
					res := store.Commit(ag.ID, req, d.Placements, d.Evicted)
					ag.Resolve(store, d, res)
					if opt.CheckEvery {
						if err := store.CheckInvariants(); err != nil {
							errOnce.Do(func() { firstErr = err })
						}
					}
					if res.OK {
						o.done, o.ok, o.at, o.evicted = true, true, now(), d.Evicted
						depMu.Lock()
						for _, p := range d.Placements {
							o.machines = append(o.machines, p.Machine)
							if t := end[p.VM]; !math.IsInf(t, 1) {
								heap.Push(&deps, departure{t, p.VM})
							}
						}
						depMu.Unlock()
						break
					}
					o.conflictAt = append(o.conflictAt, now())
					if o.retries++; o.retries > opt.MaxRetries {
						o.done, o.reason, o.at = true, ReasonMaxRetries, now()
						break
					}
				}
			}
		}(ag)
	}
	for i := range reqs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				close(queue)
				wg.Wait()
				return err
			}
			if opt.Progress != nil {
				opt.Progress(int64(i), int64(len(reqs)))
			}
		}
		depMu.Lock()
		var gone []int64
		for deps.Len() > 0 && deps[0].t <= reqs[i].Time {
			gone = append(gone, heap.Pop(&deps).(departure).vm)
		}
		depMu.Unlock()
		for _, vm := range gone {
			store.Release(vm)
		}
		outs[i].arrive = now()
		queue <- i
	}
	close(queue)
	wg.Wait()
	return firstErr
}

// summarizeAgents turns outcomes into placement rows, per-interval metrics
// and the summary.
func summarizeAgents(tr *Trace, store *optimizer.CommitStore, agents []*optimizer.Agent, reqs []optimizer.Request,
	outs []outcome, opt AgentOptions) *Result {
	res := &Result{Summary: Summary{Policy: "protean", Dataset: tr.Dataset, RejectedBy: map[string]int{}}, trace: tr}
	s := &res.Summary
	s.Agents = len(agents)
	s.TimeModel = opt.TimeModel
	var delays, lat []float64
	type bucket struct{ commits, conflicts, retries, rejected, vms int }
	per := map[int64]*bucket{}
	at := func(t float64) *bucket {
		k := int64(math.Floor(t))
		b := per[k]
		if b == nil {
			b = &bucket{}
			per[k] = b
		}
		return b
	}
	evicted := map[int64]bool{}
	for i := range outs {
		o := &outs[i]
		req := &reqs[i]
		b := at(o.at)
		b.retries += o.retries
		for _, t := range o.conflictAt {
			at(t).conflicts++
		}
		s.Retries += o.retries
		s.Conflicts += o.retries
		delay := math.Max(0, o.start-o.arrive)
		delays = append(delays, delay)
		s.Requests++
		for _, e := range o.evicted {
			evicted[e.VM] = true
		}
		for k, v := range req.VMs {
			row := PlacementRow{VM: v.ID, T: reqs[i].Time, Machine: -1, Outcome: "rejected", EvictedAt: math.NaN(),
				Agent: o.agent, Retries: o.retries}
			if opt.TimeModel == TimeReal {
				row.LatencyUS = o.evalUS
			} else {
				row.LatencyUS = 1e6 * (o.at - o.arrive) / float64(len(req.VMs))
			}
			lat = append(lat, row.LatencyUS)
			if o.ok {
				row.Outcome = "placed"
				row.Machine = tr.MachineIDs[o.machines[k]]
				s.Accepted++
				b.commits++
			} else {
				row.Reason = o.reason
				s.Rejected++
				s.RejectedBy[o.reason]++
				b.rejected++
			}
			b.vms++
			res.Placements = append(res.Placements, row)
		}
	}
	for i := range res.Placements {
		if evicted[res.Placements[i].VM] {
			res.Placements[i].Outcome, res.Placements[i].Reason = "evicted", optimizer.ReasonEvicted
			s.Evicted++
		}
	}
	// Per-second series (simulated or wall time), then per-interval metrics.
	keys := make([]int64, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// Per-second figures over the busy seconds (some request resolved or
	// conflicted): the trace's idle seconds would otherwise hide the peaks.
	var conflictsPerS, throughput []float64
	for _, k := range keys {
		conflictsPerS = append(conflictsPerS, float64(per[k].conflicts))
		throughput = append(throughput, float64(per[k].commits))
		s.ConflictsMaxPerS = math.Max(s.ConflictsMaxPerS, float64(per[k].conflicts))
		s.ThroughputMaxPerS = math.Max(s.ThroughputMaxPerS, float64(per[k].commits))
	}
	// Per-interval series for run_metric: throughput, queueing delay,
	// commits, conflicts, retries, rejections, avoidance activations.
	type ivl struct {
		commits, conflicts, retries, rejected, avoided, n int
		delay, maxConf                                    float64
	}
	ivls := map[int64]*ivl{}
	get := func(t float64) *ivl {
		k := int64(math.Floor(t / opt.Interval))
		v := ivls[k]
		if v == nil {
			v = &ivl{}
			ivls[k] = v
		}
		return v
	}
	for i := range outs {
		o := &outs[i]
		v := get(o.at)
		v.n++
		v.delay += math.Max(0, o.start-o.arrive)
		v.retries += o.retries
		v.avoided += o.avoided
		if o.ok {
			v.commits += len(reqs[i].VMs)
		} else {
			v.rejected += len(reqs[i].VMs)
		}
		for _, t := range o.conflictAt {
			get(t).conflicts++
		}
	}
	for _, k := range keys {
		v := get(float64(k))
		v.maxConf = math.Max(v.maxConf, float64(per[k].conflicts))
	}
	ikeys := make([]int64, 0, len(ivls))
	for k := range ivls {
		ikeys = append(ikeys, k)
	}
	slices.Sort(ikeys)
	for _, k := range ikeys {
		v := ivls[k]
		t := float64(k+1) * opt.Interval
		add := func(name string, x float64) { res.Metrics = append(res.Metrics, MetricRow{t, name, x}) }
		add("throughput_per_s", float64(v.commits)/opt.Interval)
		add("commits", float64(v.commits))
		add("conflicts", float64(v.conflicts))
		add("conflicts_max_per_s", v.maxConf)
		add("retries", float64(v.retries))
		add("rejected", float64(v.rejected))
		add("avoidance_activations", float64(v.avoided))
		if v.n > 0 {
			add("queue_delay_mean_s", v.delay/float64(v.n))
		}
	}
	var used, nonEmpty float64
	store.WithState(func(st *optimizer.State) {
		for c := range st.Inv.Clusters {
			used += st.ClusterUsedCores[c]
		}
		for m := range st.Inv.Machines {
			if st.Count[m] > 0 {
				nonEmpty += st.Inv.Capacity(int32(m))[optimizer.Cores]
			}
		}
	})
	if nonEmpty > 0 {
		s.PackingDensityMean = used / nonEmpty
	}
	s.UtilizationMean = used / tr.Inv.TotalCores()
	s.VMs = len(lat)
	s.LatencyP50US = quantile(lat, 0.5)
	s.LatencyP99US = quantile(lat, 0.99)
	s.ConflictsP99PerS = quantile(conflictsPerS, 0.99)
	s.ThroughputP99PerS = quantile(throughput, 0.99)
	s.QueueDelayMeanS = mean(delays)
	s.QueueDelayP99S = quantile(delays, 0.99)
	if s.VMs > 0 {
		s.RejectionRate = float64(s.Rejected) / float64(s.VMs)
	}
	if len(outs) > 0 {
		first, last := math.Inf(1), math.Inf(-1)
		for i := range outs {
			first = math.Min(first, outs[i].arrive)
			last = math.Max(last, outs[i].at)
		}
		s.SpanS = last - first
		// The demand spike of the trace's start: every request arriving at
		// the first instant (in a trace with an initial population, all of
		// it). Its span is how long the agents take to resolve it (Fig 13).
		t0 := reqs[0].Time
		for i := range outs {
			if reqs[i].Time == t0 {
				s.BurstRequests++
				s.BurstSpanS = math.Max(s.BurstSpanS, outs[i].at-outs[i].arrive)
			}
		}
		if s.SpanS > 0 {
			s.PlacementsPerSec = float64(s.Accepted) / s.SpanS
		}
	}
	for _, a := range agents {
		s.AvoidanceActivations += a.Activations
	}
	return res
}

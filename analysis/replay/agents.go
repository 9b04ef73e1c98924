package replay

import (
	"container/heap"
	"context"
	"errors"
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

// AgentOptions configure a replay with several allocation agents. Start from
// DefaultAgentOptions: its values are the paper's (§6.2), and Validate
// refuses anything out of range rather than replacing it.
type AgentOptions struct {
	ReplayOptions
	Agents    int
	TimeModel string
	Speedup   float64 // simulated time: the trace runs this many times faster
	HitRate   float64 // simulated time: probability an evaluation hits the cache
	HitMS     float64 // ... and its cost; MissMS the cost of a miss
	MissMS    float64
	CommitMS  float64 // simulated time: commit round trip (pipelined)
	// MaxRetries, Window and N0 are Protean's retry bound and conflict-
	// avoidance settings (§5.3, §6.2).
	MaxRetries int
	Window, N0 int
	Avoid      bool
	// Rules is the agents' rule set; nil means optimizer.DefaultRules().
	// The commit store checks commits with the same rules.
	Rules *optimizer.Rules
	// CheckEvery verifies the authoritative state's invariants after every
	// commit (tests).
	CheckEvery bool
}

// DefaultAgentOptions are the settings of Protean's simulations (§6.2): one
// agent, simulated time, cache hits with probability 0.9 at 14 ms and misses
// at 88 ms, 20 retries, conflict avoidance among the top 100 machines with a
// rolling window of 50 commits; the whole trace, sampled hourly.
func DefaultAgentOptions() AgentOptions {
	return AgentOptions{ReplayOptions: DefaultReplayOptions(), Agents: 1, TimeModel: TimeSim, Speedup: 1,
		HitRate: DefaultHitRate, HitMS: DefaultHitMS, MissMS: DefaultMissMS, CommitMS: DefaultCommitMS,
		MaxRetries: optimizer.DefaultMaxRetries, Window: optimizer.DefaultWindow, N0: optimizer.DefaultN0, Avoid: true}
}

// MaxSpeedup bounds the simulated speed-up (Protean Fig 15 goes to 1000×).
const MaxSpeedup = 1000

// ErrBadAgents reports agent options out of range.
var ErrBadAgents = errors.New("replay: bad agent options")

// Validate refuses options out of range, naming the field.
func (o *AgentOptions) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadAgents}, args...)...)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Agents < 1:
		return bad("agents = %d, want ≥ 1", o.Agents)
	case o.TimeModel != TimeSim && o.TimeModel != TimeReal:
		return bad("time model %q, want %s or %s", o.TimeModel, TimeSim, TimeReal)
	case !finite(o.Speedup) || o.Speedup < 1 || o.Speedup > MaxSpeedup:
		return bad("speedup = %v, want 1..%d", o.Speedup, MaxSpeedup)
	case !finite(o.HitRate) || o.HitRate < 0 || o.HitRate > 1:
		return bad("hit rate = %v, want 0..1", o.HitRate)
	case !finite(o.HitMS) || o.HitMS < 0, !finite(o.MissMS) || o.MissMS < 0, !finite(o.CommitMS) || o.CommitMS < 0:
		return bad("latencies hit %v ms, miss %v ms, commit %v ms: want finite values ≥ 0", o.HitMS, o.MissMS, o.CommitMS)
	case o.MaxRetries < 0:
		return bad("max retries = %d, want ≥ 0", o.MaxRetries)
	case o.Avoid && (o.Window < 1 || o.N0 < 2):
		return bad("conflict avoidance needs window ≥ 1 (got %d) and n0 ≥ 2 (got %d): with window 0 no conflict is recorded and avoidance never triggers", o.Window, o.N0)
	case o.Window < 0 || o.N0 < 0:
		return bad("window = %d, n0 = %d, want ≥ 0", o.Window, o.N0)
	}
	return nil
}

// ReasonMaxRetries is the rejection of a request that kept conflicting.
const ReasonMaxRetries = "MaxRetries"

// outcome is what happened to one request. Times named on the run's clock
// (simulated seconds, or wall seconds in real time) are arrive, start, at
// and conflictAt; atTrace is the trace time at which the outcome took
// effect.
type outcome struct {
	done              bool
	ok                bool
	reason            string
	agent, retries    int
	arrive, start, at float64
	atTrace           float64
	placed            []optimizer.Placement // the committed placements, by VM
	conflictAt        []float64
	avoided           int
	evicted           []optimizer.Placement
	evalUS            float64                // decision time per VM of the resolving attempt (wall clock)
	kind              optimizer.RequestKind  // the buffer of the resolving attempt, on the agent's view
	heal              bool                   // a heal request (not an arrival of the trace)
	gang              *optimizer.GangFailure // a rejected request: what became of its VMs
}

// ReplayAgents replays a trace with opt.Agents agents deciding on stale
// views and committing to one commit store. In simulated time every
// evaluation costs a drawn cache-hit or cache-miss latency (every one a miss
// with the cache off) and the run is deterministic for a seed; in real time
// the agents are goroutines. Placements, evictions, interval samples and the
// summary mean what they mean for Replay; latency is the engine's decision
// time on both, and the time from arrival to resolution is the response
// time (PlacementRow.ResponseS, Summary.Response*).
func ReplayAgents(ctx context.Context, tr *Trace, cfg optimizer.Config, opt AgentOptions) (*Result, error) {
	if err := opt.ReplayOptions.Normalize(); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Cache {
		opt.HitRate = 0 // no cache: every evaluation misses
	}
	rules := optimizer.RulesFor(&cfg)
	if opt.Rules != nil {
		rules = *opt.Rules
	}
	reqs := Requests(tr, opt.From, opt.To)
	if opt.MaxRequests > 0 && len(reqs) > opt.MaxRequests {
		reqs = reqs[:opt.MaxRequests]
	}
	numberSets(opt.Avail, reqs)
	lastTrace := opt.From
	if len(reqs) > 0 {
		lastTrace = reqs[len(reqs)-1].Time
	}
	if !math.IsInf(opt.To, 1) && opt.To > lastTrace {
		lastTrace = opt.To
	}
	if err := checkSpan(opt.From, lastTrace, opt.Interval); err != nil {
		return nil, err
	}
	store, err := optimizer.NewCommitStore(tr.Inv, cfg, rules)
	if err != nil {
		return nil, err
	}
	agents := make([]*optimizer.Agent, opt.Agents)
	for i := range agents {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)*0x9e3779b97f4a7c15
		a, err := optimizer.NewAgent(i, tr.Inv, c, rules)
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
	smp := newSampler(tr.Inv, cfg.Buffers)
	start := time.Now()
	var aa *agentAvail
	if len(opt.Avail.outages()) > 0 {
		aa = newAgentAvail(opt.Avail, tr, store, end, reqs)
	}
	if opt.TimeModel == TimeReal {
		err = runReal(ctx, store, agents, &reqs, end, &outs, smp, lastTrace, opt, aa)
	} else {
		err = runSim(ctx, store, agents, &reqs, end, &outs, smp, lastTrace, opt, aa)
	}
	if err != nil {
		return nil, err
	}
	res := summarizeAgents(tr, agents, reqs, outs, smp, opt)
	av := newAvail(opt.Avail, tr, nil, func(vm int64) float64 { return end[vm] }, 0)
	if aa != nil {
		aa.finish(lastTrace)
		av = aa.avail
		res.Outages, res.Moves = av.rows, av.moves
	}
	for i := range outs {
		if !outs[i].heal {
			av.count(outs[i].kind, len(reqs[i].VMs), outs[i].ok)
		}
	}
	res.Store = store
	res.Summary.Seconds = time.Since(start).Seconds()
	lowPriority := map[int64]bool{}
	var lat []float64
	for _, v := range tr.VMs {
		if v.Priority > 0 {
			lowPriority[v.ID] = true
		}
	}
	lowPlaced := 0
	for i := range res.Placements {
		lat = append(lat, res.Placements[i].LatencyUS)
		if res.Placements[i].Outcome != "rejected" && lowPriority[res.Placements[i].VM] {
			lowPlaced++
		}
	}
	res.Summary.VMs = len(res.Placements)
	smp.summarize(&res.Summary, lowPlaced, lat)
	av.summarize(&res.Summary)
	res.Metrics = append(smp.metrics, res.Metrics...)
	res.Metrics = append(res.Metrics, availabilityFigures(&res.Summary, lastTrace)...)
	engines := make([]optimizer.StatsReporter, len(agents))
	for i, a := range agents {
		engines[i] = a.Engine
	}
	engineStats(res, lastTrace, engines...)
	return res, nil
}

// simEvent kinds, in the order they are processed at equal times.
const (
	evDeparture = iota
	evCommit
	evOutageEnd
	evOutageStart
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

// resolve records a request's final outcome in the interval counters.
func (o *outcome) resolve(smp *sampler, req *optimizer.Request) {
	o.done = true
	if o.heal {
		smp.evicted += len(o.evicted)
		return
	}
	n := len(req.VMs)
	if o.ok {
		smp.accepted += n
	} else {
		smp.rejected += n
	}
	smp.evicted += len(o.evicted)
	for range req.VMs {
		smp.lat = append(smp.lat, o.evalUS)
	}
}

// runSim is the low-fidelity simulator: one thread, simulated time. The
// trace's time t runs at sim(t) = From + (t − From)/Speedup; samples are
// taken at the trace's interval boundaries mapped to simulated time, after
// the departures and commits of that instant, until every request is
// resolved and the window has ended.
func runSim(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqsP *[]optimizer.Request,
	end map[int64]float64, outsP *[]outcome, smp *sampler, lastTrace float64, opt AgentOptions, aa *agentAvail) error {
	reqs, outs := *reqsP, *outsP
	defer func() { *reqsP, *outsP = reqs, outs }()
	rng := rand.New(rand.NewPCG(opt.ReplayOptions.seed(), 0x51))
	toSim := func(t float64) float64 { return opt.From + (t-opt.From)/opt.Speedup }
	toTrace := func(s float64) float64 { return opt.From + (s-opt.From)*opt.Speedup }
	var q simQueue
	seq := 0
	push := func(e simEvent) {
		e.seq = seq
		seq++
		heap.Push(&q, e)
	}
	for i := range reqs {
		push(simEvent{t: toSim(reqs[i].Time), kind: evArrival, req: i})
		outs[i].arrive = toSim(reqs[i].Time)
		outs[i].start = -1
	}
	// Outages, and the heal requests they make: arrivals of the instant
	// they are made, decided and committed like the trace's.
	var heals map[int]*agentHealReq
	var enqueue func(optimizer.Request, *agentHealReq)
	if aa != nil {
		heals = aa.heals
		for i, o := range aa.cfg.Outages {
			push(simEvent{t: toSim(o.Start), kind: evOutageStart, vm: int64(i)})
			push(simEvent{t: toSim(o.Start + o.Duration), kind: evOutageEnd, vm: int64(i)})
		}
	}
	var now float64
	enqueue = func(r optimizer.Request, h *agentHealReq) {
		r.ID = int64(len(reqs))
		reqs = append(reqs, r)
		outs = append(outs, outcome{arrive: now, start: -1, heal: true})
		heals[len(reqs)-1] = h
		push(simEvent{t: now, kind: evArrival, req: len(reqs) - 1})
	}
	// healed records a heal request's outcome (after its outcome is final).
	healed := func(r int, ok bool, placed []optimizer.Placement, t float64) {
		if h := heals[r]; h != nil {
			delete(heals, r)
			aa.resolved(h, ok, placed, outs[r].reason, t, enqueue)
		}
	}
	// Interval boundaries in trace time, as Replay takes them.
	nextB := opt.From
	if len(reqs) > 0 {
		nextB = math.Floor(reqs[0].Time/opt.Interval)*opt.Interval + opt.Interval
	}
	lastSampled := math.Inf(-1)
	sample := func(t float64) {
		store.WithState(func(st *optimizer.State) { smp.sample(t, st) })
		lastSampled = t
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
			outs[r].kind = optimizer.ResolveKind(ag.Engine.State(), req)
			e0 := time.Now()
			d := ag.Decide(req)
			outs[r].evalUS = float64(time.Since(e0).Nanoseconds()) / 1e3 / float64(len(req.VMs))
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
	resolved, lastResolution := 0, math.Inf(-1)
	endSim := func() float64 { return math.Max(toSim(lastTrace), lastResolution) }
	n := 0
	for q.Len() > 0 {
		e := q[0]
		if resolved == len(reqs) && e.t > endSim() {
			break // only departures after the run's end are left
		}
		// Samples due before this event (after departures and commits at
		// a boundary's own instant).
		for {
			b := toSim(nextB)
			if !(b < e.t || b == e.t && e.kind > evOutageStart) || resolved == len(reqs) && b > endSim() {
				break
			}
			sample(nextB)
			nextB += opt.Interval
		}
		heap.Pop(&q)
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if opt.Progress != nil {
				opt.Progress(int64(resolved), int64(len(reqs)))
			}
		}
		now = e.t
		switch e.kind {
		case evDeparture:
			store.Release(e.vm)
		case evOutageEnd, evOutageStart:
			aa.outage(int(e.vm), e.kind == evOutageStart)
			if len(q) == 0 || q[0].t != e.t || q[0].kind != evOutageStart {
				aa.flush(enqueue) // every machine failing at this instant is down
			}
		case evArrival:
			waiting = append(waiting, e.req)
			if !outs[e.req].heal {
				smp.arrivals += len(reqs[e.req].VMs)
			}
		case evFree:
			free[e.agent] = true
		case evCommit:
			o := &outs[e.req]
			req := &reqs[e.req]
			if !e.d.OK { // no machine on the agent's view: rejected, nothing to commit
				o.reason, o.at, o.atTrace, o.gang = e.d.Reason, e.t, toTrace(e.t), e.d.Gang
				o.resolve(smp, req)
				resolved++
				lastResolution = math.Max(lastResolution, e.t)
				healed(e.req, false, nil, o.atTrace)
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
				o.ok, o.at, o.atTrace, o.evicted, o.placed = true, e.t, toTrace(e.t), e.d.Evicted, e.d.Placements
				o.resolve(smp, req)
				resolved++
				lastResolution = math.Max(lastResolution, e.t)
				if !o.heal {
					for _, p := range e.d.Placements {
						if t := end[p.VM]; !math.IsInf(t, 1) {
							push(simEvent{t: math.Max(toSim(t), e.t), kind: evDeparture, vm: p.VM})
						}
					}
				}
				healed(e.req, true, e.d.Placements, o.atTrace)
				break
			}
			o.retries++
			o.conflictAt = append(o.conflictAt, e.t)
			if o.retries > opt.MaxRetries {
				o.reason, o.at, o.atTrace = ReasonMaxRetries, e.t, toTrace(e.t)
				o.resolve(smp, req)
				resolved++
				lastResolution = math.Max(lastResolution, e.t)
				healed(e.req, false, nil, o.atTrace)
				break
			}
			waiting = append(waiting, e.req)
		}
		dispatch(e.t)
	}
	// Samples through the end of the run; a partial last interval closes
	// with one more sample.
	last := toTrace(endSim())
	if len(reqs) == 0 {
		last = lastTrace
	}
	for nextB <= last {
		sample(nextB)
		nextB += opt.Interval
	}
	if lastSampled < last {
		sample(last)
	}
	return nil
}

// runReal runs the agents as goroutines pulling requests from a shared
// queue; commits are serialized by the store. A dispatcher feeds requests in
// trace order, releases departed VMs as it goes and samples the store at the
// interval boundaries it passes; the trace time of an outcome is the time of
// the latest request dispatched when it took effect.
func runReal(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqsP *[]optimizer.Request,
	end map[int64]float64, outsP *[]outcome, smp *sampler, lastTrace float64, opt AgentOptions, aa *agentAvail) error {
	reqs, outs := *reqsP, *outsP
	// A job is a request and its outcome: the trace's (in reqs and outs,
	// which do not move during the run) or a heal request (allocated apart,
	// joined to reqs and outs at the end).
	type job struct {
		req  *optimizer.Request
		o    *outcome
		heal *agentHealReq
	}
	type healJob struct {
		req *optimizer.Request
		o   *outcome
	}
	queue := make(chan job, 4*len(agents))
	var mu sync.Mutex // guards deps, smp's counters, traceNow, aa and the heal queue
	atomic := aa != nil
	var deps depHeap
	traceNow := opt.From
	var wg sync.WaitGroup
	t0 := time.Now()
	now := func() float64 { return time.Since(t0).Seconds() }
	var errOnce sync.Once
	var firstErr error
	// Heal requests wait in pendingHeals (appended under mu by the
	// dispatcher or by a worker resolving a heal) until the dispatcher
	// hands them to the agents; outstanding counts those not yet resolved.
	var pendingHeals []job
	var allHeals []healJob
	outstanding := 0
	enqueue := func(r optimizer.Request, h *agentHealReq) { // under mu
		r.ID = int64(len(reqs) + len(allHeals))
		j := job{req: &r, o: &outcome{arrive: now(), start: -1, heal: true}, heal: h}
		pendingHeals = append(pendingHeals, j)
		allHeals = append(allHeals, healJob{j.req, j.o})
		outstanding++
	}
	// finish records a heal request's outcome (under mu).
	finish := func(j job, ok bool, placed []optimizer.Placement) {
		if j.heal == nil {
			return
		}
		aa.resolved(j.heal, ok, placed, j.o.reason, traceNow, enqueue)
		outstanding--
	}
	for _, ag := range agents {
		wg.Add(1)
		go func(ag *optimizer.Agent) {
			defer wg.Done()
			for j := range queue {
				req, o := j.req, j.o
				o.start = now()
				o.agent = ag.ID
				for {
					ag.Sync(store)
					o.kind = optimizer.ResolveKind(ag.Engine.State(), req)
					e0 := time.Now()
					d := ag.Decide(req)
					o.evalUS = float64(time.Since(e0).Nanoseconds()) / 1e3 / float64(len(req.VMs))
					if d.Avoided {
						o.avoided++
					}
					if !d.OK {
						mu.Lock()
						o.reason, o.at, o.atTrace, o.gang = d.Reason, now(), traceNow, d.Gang
						o.resolve(smp, req)
						finish(j, false, nil)
						mu.Unlock()
						break
					}
					// With outages, or when it evicts, a commit and its
					// record are one trace instant (under mu). An outage of
					// its machine, which the dispatcher applies under mu,
					// comes wholly before or after it. A commit onto the room
					// an eviction freed comes after the evicting commit, and
					// is recorded after it, at a trace time no earlier than
					// the eviction's (recorded apart, the evicting commit
					// could be recorded later, and the stored rows would show
					// the evicted VM beside the one that took its room).
					hold := atomic || len(d.Evicted) > 0
					if hold {
						mu.Lock()
					}
					res := store.Commit(ag.ID, req, d.Placements, d.Evicted)
					if afterCommit != nil {
						afterCommit(len(d.Evicted) > 0)
					}
					if hold && !res.OK {
						mu.Unlock()
					}
					ag.Resolve(store, d, res)
					if opt.CheckEvery {
						if err := store.CheckInvariants(); err != nil {
							errOnce.Do(func() { firstErr = err })
						}
					}
					if res.OK {
						if !hold {
							mu.Lock()
						}
						o.ok, o.at, o.atTrace, o.evicted, o.placed = true, now(), traceNow, d.Evicted, d.Placements
						o.resolve(smp, req)
						if j.heal == nil {
							for _, p := range d.Placements {
								if t := end[p.VM]; !math.IsInf(t, 1) {
									heap.Push(&deps, departure{t, p.VM})
								}
							}
						}
						finish(j, true, d.Placements)
						mu.Unlock()
						break
					}
					o.conflictAt = append(o.conflictAt, now())
					if o.retries++; o.retries > opt.MaxRetries {
						mu.Lock()
						o.reason, o.at, o.atTrace = ReasonMaxRetries, now(), traceNow
						o.resolve(smp, req)
						finish(j, false, nil)
						mu.Unlock()
						break
					}
				}
			}
		}(ag)
	}
	// dispatchHeals hands the waiting heal requests to the agents.
	dispatchHeals := func() {
		mu.Lock()
		js := pendingHeals
		pendingHeals = nil
		mu.Unlock()
		for _, j := range js {
			queue <- j
		}
	}
	nextB := opt.From
	if len(reqs) > 0 {
		nextB = math.Floor(reqs[0].Time/opt.Interval)*opt.Interval + opt.Interval
	}
	lastSampled := math.Inf(-1)
	// advance moves the trace clock to t, releasing the departures up to t,
	// applying the outages on the way (their heal requests go to the
	// agents) and sampling at the boundaries. The clock moves before the
	// releases: a commit that comes after a release then carries a trace
	// time no earlier than the departure, so the stored intervals never
	// show a VM beside one that had already left. A machine goes down after
	// the clock reaches its outage: a VM committed there in between is
	// healed at the same instant (it never ran there).
	var instant []outEvent // the outage events of the instant being applied
	advance := func(t float64) {
		for {
			upTo, sampleHere, outageHere := t, false, false
			if nextB <= t {
				upTo, sampleHere = nextB, true
			}
			mu.Lock()
			if aa != nil {
				if te := aa.next(); te <= upTo {
					upTo, sampleHere, outageHere = te, false, true
					// Machines failing now go down before the clock reaches
					// the instant: no commit recorded at it lands on them.
					instant = instant[:0]
					for len(aa.q) > 0 && aa.q[0].t == te {
						e := heap.Pop(&aa.q).(outEvent)
						instant = append(instant, e)
						if e.start {
							aa.down1(e.i)
						}
					}
				}
			}
			traceNow = math.Max(traceNow, upTo)
			var gone []int64
			for deps.Len() > 0 && deps[0].t <= upTo {
				gone = append(gone, heap.Pop(&deps).(departure).vm)
			}
			mu.Unlock()
			for _, vm := range gone {
				store.Release(vm)
			}
			if outageHere {
				// After the instant's departures: the failed machines' VMs
				// are healed (or down), the repaired machines come back.
				mu.Lock()
				for _, e := range instant {
					if e.start {
						aa.hit(e.i)
					} else {
						aa.up(e.i)
					}
				}
				aa.flush(enqueue)
				mu.Unlock()
				dispatchHeals()
				continue
			}
			if !sampleHere {
				return
			}
			mu.Lock()
			store.WithState(func(st *optimizer.State) { smp.sample(nextB, st) })
			mu.Unlock()
			lastSampled = nextB
			nextB += opt.Interval
		}
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
		advance(reqs[i].Time)
		dispatchHeals()
		mu.Lock()
		smp.arrivals += len(reqs[i].VMs)
		mu.Unlock()
		outs[i].arrive = now()
		queue <- job{req: &reqs[i], o: &outs[i]}
	}
	// The window's end: its outages, then every heal they start resolved
	// (a heal that fails starts the next stage) before the agents stop.
	advance(lastTrace)
	for {
		dispatchHeals()
		mu.Lock()
		left := outstanding
		mu.Unlock()
		if left == 0 {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	close(queue)
	wg.Wait()
	if lastSampled < lastTrace {
		store.WithState(func(st *optimizer.State) { smp.sample(lastTrace, st) })
	}
	for _, h := range allHeals {
		reqs = append(reqs, *h.req)
		outs = append(outs, *h.o)
	}
	*reqsP, *outsP = reqs, outs
	return firstErr
}

// afterCommit, when set (tests), runs after each real-time commit,
// told whether it evicted: a delay there widens the window between a
// commit and its record.
var afterCommit func(evicted bool)

// perClock counts events in buckets of width w over [first, last] of the
// run's clock, empty buckets included.
func perClock(times []float64, first, last, w float64) []float64 {
	if !(last >= first) {
		return nil
	}
	n := int(math.Floor((last-first)/w)) + 1
	out := make([]float64, n)
	for _, t := range times {
		k := int(math.Floor((t - first) / w))
		if k >= 0 && k < n {
			out[k]++
		}
	}
	return out
}

// summarizeAgents turns outcomes into placement rows, per-interval agent
// metrics and the agent part of the summary.
func summarizeAgents(tr *Trace, agents []*optimizer.Agent, reqs []optimizer.Request,
	outs []outcome, smp *sampler, opt AgentOptions) *Result {
	res := &Result{Summary: Summary{Policy: "protean", Dataset: tr.Dataset, RejectedBy: map[string]int{}}, Trace: tr}
	s := &res.Summary
	s.Agents = len(agents)
	s.TimeModel = opt.TimeModel
	var delays, responses, conflictTimes, commitTimes []float64
	rowOf := map[int64]int{}
	for i := range outs {
		o := &outs[i]
		req := &reqs[i]
		s.Retries += o.retries
		s.Conflicts += len(o.conflictAt)
		conflictTimes = append(conflictTimes, o.conflictAt...)
		if o.heal {
			continue // its VMs have their rows; where they went is in Moves
		}
		delays = append(delays, math.Max(0, o.start-o.arrive))
		resp := o.at - o.arrive
		responses = append(responses, resp)
		s.Requests++
		machineOf := make(map[int64]int32, len(o.placed))
		for _, p := range o.placed {
			machineOf[p.VM] = p.Machine
		}
		for _, v := range req.VMs {
			row := PlacementRow{VM: v.ID, T: o.atTrace, Machine: -1, Outcome: "rejected", EvictedAt: math.NaN(),
				Agent: o.agent, Retries: o.retries, LatencyUS: o.evalUS, ResponseS: resp}
			if opt.Avail.domains() {
				row.Spread = true
				row.FaultDomain, row.UpdateDomain = domainsOf(opt.Avail, v)
			}
			if o.ok {
				m, ok := machineOf[v.ID]
				if !ok {
					panic(fmt.Sprintf("replay: request %d committed without VM %d", req.ID, v.ID))
				}
				row.Outcome = "placed"
				row.Machine = tr.MachineIDs[m]
				s.Accepted++
				commitTimes = append(commitTimes, o.at)
			} else {
				row.Reason = o.reason
				s.Rejected++
				s.RejectedBy[o.reason]++
			}
			rowOf[v.ID] = len(res.Placements)
			res.Placements = append(res.Placements, row)
		}
		if !o.ok {
			res.Gangs = append(res.Gangs, gangRows(tr, req.ID, o.gang)...)
		}
	}
	for i := range outs {
		for _, e := range outs[i].evicted {
			if k, ok := rowOf[e.VM]; ok {
				row := &res.Placements[k]
				row.Outcome, row.Reason, row.EvictedAt = "evicted", optimizer.ReasonEvicted, outs[i].atTrace
				s.Evicted++
			}
		}
	}
	// Per-interval series (trace time, as the samples): commits, conflicts,
	// retries, avoidance activations, queueing delay.
	type ivl struct {
		commits, conflicts, retries, avoided, n int
		delay                                   float64
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
		if o.heal {
			continue
		}
		v := get(o.atTrace)
		v.n++
		v.delay += math.Max(0, o.start-o.arrive)
		v.retries += o.retries
		v.avoided += o.avoided
		v.conflicts += len(o.conflictAt)
		if o.ok {
			v.commits += len(reqs[i].VMs)
		}
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
		add("commits", float64(v.commits))
		add("conflicts", float64(v.conflicts))
		add("retries", float64(v.retries))
		add("avoidance_activations", float64(v.avoided))
		if v.n > 0 {
			add("queue_delay_mean_s", v.delay/float64(v.n))
		}
	}
	s.QueueDelayMeanS = mean(delays)
	s.QueueDelayP99S = quantile(delays, 0.99)
	s.ResponseP50S = quantile(responses, 0.5)
	s.ResponseP99S = quantile(responses, 0.99)
	if len(reqs) > 0 {
		s.RejectionRate = float64(s.Rejected) / float64(s.Accepted+s.Rejected)
		first, last := math.Inf(1), math.Inf(-1)
		for i := range outs {
			if outs[i].heal {
				continue
			}
			first = math.Min(first, outs[i].arrive)
			last = math.Max(last, outs[i].at)
		}
		s.SpanS = last - first
		// Rates on the run's clock over every second (minute) from the first
		// arrival to the last resolution, idle ones included (Protean Fig 14:
		// p99 of conflicts per second; Table 5: p99 of conflicts per minute).
		perS := perClock(conflictTimes, first, last, 1)
		perMin := perClock(conflictTimes, first, last, 60)
		thr := perClock(commitTimes, first, last, 1)
		s.ConflictsP99PerS, s.ConflictsMaxPerS = quantile(perS, 0.99), slices.Max(perS)
		s.ConflictsP99PerMin = quantile(perMin, 0.99)
		s.ThroughputP99PerS, s.ThroughputMaxPerS = quantile(thr, 0.99), slices.Max(thr)
		// The demand spike of the trace's start: every request arriving at
		// the first instant (in a trace with an initial population, all of
		// it). Its span is how long the agents take to resolve it (Fig 13).
		t0 := reqs[0].Time
		for i := range outs {
			if reqs[i].Time == t0 && !outs[i].heal {
				s.BurstRequests++
				s.BurstSpanS = math.Max(s.BurstSpanS, outs[i].at-outs[i].arrive)
			}
		}
	}
	for _, a := range agents {
		s.AvoidanceActivations += a.Activations
	}
	return res
}

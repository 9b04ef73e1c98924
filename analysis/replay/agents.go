package replay

import (
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
	smp := newSampler(tr.Inv, cfg.Buffers)
	start := time.Now()
	av := newAvail(opt.Avail, tr, nil, store, func(vm int64) float64 { return end[vm] }, int64(len(reqs)))
	run := simulate
	if opt.TimeModel == TimeReal {
		run = realTime
	}
	reqs, outs, err := run(ctx, store, agents, reqs, end, smp, av, lastTrace, opt)
	if err != nil {
		return nil, err
	}
	res := summarizeAgents(tr, agents, reqs, outs, smp, opt)
	av.finish(lastTrace)
	res.Outages, res.Moves = av.rows, av.moves
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

// agentDecision is agent ag's decision on req on its view, timed as every
// path times one (timeDecision), with the buffer it used on that view.
func agentDecision(ag *optimizer.Agent, req *optimizer.Request, o *outcome) optimizer.Decision {
	o.kind = optimizer.ResolveKind(ag.Engine.State(), req)
	up, _ := any(ag.Engine).(optimizer.Refresher)
	d, took, _ := timeDecision(time.Now, up, func() optimizer.Decision { return ag.Decide(req) })
	o.evalUS = float64(took.Nanoseconds()) / 1e3 / float64(len(req.VMs))
	if d.Avoided {
		o.avoided++
	}
	return d
}

// simDriver is the low-fidelity simulator (Protean §6.2): the loop on
// simulated time, one thread. The trace's time t runs at sim(t) = From +
// (t − From)/Speedup; a request waits for a free agent, which decides it on
// its view at a drawn cost (a cache hit or a miss per VM) and commits it a
// round trip later; a conflict sends it back to the queue. Heal requests
// arrive at the instant of their outage and go the same way.
type simDriver struct {
	store   *optimizer.CommitStore
	agents  []*optimizer.Agent
	reqs    []optimizer.Request
	outs    []outcome
	ends    map[int64]float64
	smp     *sampler
	av      *avail
	opt     AgentOptions
	rng     *rand.Rand
	toSim   func(float64) float64
	toTrace func(float64) float64
	heals   map[int]*healReq
	free    []bool
	waiting []int // FIFO of request indexes
	// next is the index of the next trace arrival; now the clock.
	next, resolved  int
	now, lastResolv float64
	lastTrace       float64
	events          int
	enqueue         heals
}

func (d *simDriver) enter(t float64) {
	d.now = t
	if d.events++; d.events%4096 == 0 && d.opt.Progress != nil {
		d.opt.Progress(int64(d.resolved), int64(len(d.reqs)))
	}
}

func (d *simDriver) arrive(l *loop, now float64, _ optimizer.Request, _ requestSpan) error {
	d.next++
	d.arrived(l, d.next-1)
	return nil
}

func (d *simDriver) arrived(l *loop, i int) {
	d.waiting = append(d.waiting, i)
	if !d.outs[i].heal {
		d.smp.arrivals += len(d.reqs[i].VMs)
	}
	d.dispatch(l)
}

// dispatch hands waiting requests to free agents: each decides at once
// and is busy for its drawn cost; its commit reaches the store a round
// trip later.
func (d *simDriver) dispatch(l *loop) {
	for len(d.waiting) > 0 {
		a := slices.Index(d.free, true)
		if a < 0 {
			return
		}
		r := d.waiting[0]
		d.waiting = d.waiting[1:]
		ag := d.agents[a]
		ag.Sync(d.store)
		req := &d.reqs[r]
		dec := agentDecision(ag, req, &d.outs[r])
		cost := 0.0
		for range req.VMs {
			if d.rng.Float64() < d.opt.HitRate {
				cost += d.opt.HitMS
			} else {
				cost += d.opt.MissMS
			}
		}
		cost /= 1000
		if d.outs[r].start < 0 {
			d.outs[r].start = d.now
		}
		d.outs[r].agent = a
		d.free[a] = false
		l.push(event{t: d.now + cost, kind: evFree, agent: a})
		l.push(event{t: d.now + cost + d.opt.CommitMS/1000, kind: evCommit, req: r, agent: a, d: &dec})
	}
}

// healed records a heal request's outcome (once its outcome is final).
func (d *simDriver) healed(r int, ok bool, placed []optimizer.Placement, t float64) {
	if h := d.heals[r]; h != nil {
		delete(d.heals, r)
		d.av.resolved(h, ok, placed, d.outs[r].reason, t, d.enqueue)
	}
}

func (d *simDriver) done(t float64) {
	d.resolved++
	d.lastResolv = math.Max(d.lastResolv, t)
}

func (d *simDriver) event(l *loop, e event) error {
	switch e.kind {
	case evArrival:
		d.arrived(l, e.req)
		return nil
	case evFree:
		d.free[e.agent] = true
		d.dispatch(l)
		return nil
	}
	o := &d.outs[e.req]
	req := &d.reqs[e.req]
	defer d.dispatch(l)
	if !e.d.OK { // no machine on the agent's view: rejected, nothing to commit
		o.reason, o.at, o.atTrace, o.gang = e.d.Reason, e.t, d.toTrace(e.t), e.d.Gang
		o.resolve(d.smp, req)
		d.done(e.t)
		d.healed(e.req, false, nil, o.atTrace)
		return nil
	}
	res := d.store.Commit(e.agent, req, e.d.Placements, e.d.Evicted)
	d.agents[e.agent].Resolve(d.store, *e.d, res)
	if d.opt.CheckEvery {
		if err := d.store.CheckInvariants(); err != nil {
			return err
		}
	}
	if res.OK {
		o.ok, o.at, o.atTrace, o.evicted, o.placed = true, e.t, d.toTrace(e.t), e.d.Evicted, e.d.Placements
		o.resolve(d.smp, req)
		d.done(e.t)
		if !o.heal {
			for _, p := range e.d.Placements {
				if t := d.ends[p.VM]; !math.IsInf(t, 1) {
					l.depart(math.Max(d.toSim(t), e.t), p.VM)
				}
			}
		}
		d.healed(e.req, true, e.d.Placements, o.atTrace)
		return nil
	}
	o.retries++
	o.conflictAt = append(o.conflictAt, e.t)
	if o.retries > d.opt.MaxRetries {
		o.reason, o.at, o.atTrace = ReasonMaxRetries, e.t, d.toTrace(e.t)
		o.resolve(d.smp, req)
		d.done(e.t)
		d.healed(e.req, false, nil, o.atTrace)
		return nil
	}
	d.waiting = append(d.waiting, e.req)
	return nil
}

func (d *simDriver) release(_ float64, vm int64) { d.store.Release(vm) }

func (d *simDriver) outages(l *loop, t float64) { l.av.instant(t, d.enqueue) }

func (d *simDriver) sample(t float64) {
	d.store.WithState(func(st *optimizer.State) { d.smp.sample(t, st) })
}

func (d *simDriver) idle(*loop) bool { return d.resolved == len(d.reqs) }

func (d *simDriver) end() float64 { return math.Max(d.toSim(d.lastTrace), d.lastResolv) }

// simulate runs the loop on simulated time: samples are taken at the
// trace's interval boundaries mapped to simulated time, after the
// departures, commits and outages of that instant, until every request is
// resolved and the window has ended.
func simulate(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqs []optimizer.Request,
	end map[int64]float64, smp *sampler, av *avail, lastTrace float64, opt AgentOptions) ([]optimizer.Request, []outcome, error) {
	toSim := func(t float64) float64 { return opt.From + (t-opt.From)/opt.Speedup }
	d := &simDriver{store: store, agents: agents, reqs: reqs, outs: make([]outcome, len(reqs)), ends: end, smp: smp, av: av, opt: opt,
		rng: rand.New(rand.NewPCG(opt.ReplayOptions.seed(), 0x51)), toSim: toSim,
		toTrace: func(s float64) float64 { return opt.From + (s-opt.From)*opt.Speedup },
		heals:   map[int]*healReq{}, free: make([]bool, len(agents)), lastResolv: math.Inf(-1), lastTrace: lastTrace}
	for i := range d.free {
		d.free[i] = true
	}
	for i := range reqs {
		d.outs[i].arrive = toSim(reqs[i].Time)
		d.outs[i].start = -1
	}
	l := &loop{ctx: ctx, drv: d, src: &requestList{reqs: reqs, stop: len(reqs)}, toClock: toSim, av: av}
	// Heal requests arrive at the instant they are made, and are decided
	// and committed like the trace's.
	d.enqueue = func(r optimizer.Request, h *healReq) {
		r.ID = int64(len(d.reqs))
		d.reqs = append(d.reqs, r)
		d.outs = append(d.outs, outcome{arrive: d.now, start: -1, heal: true})
		d.heals[len(d.reqs)-1] = h
		l.push(event{t: d.now, kind: evArrival, req: len(d.reqs) - 1})
	}
	l.startSamples(opt.From, opt.Interval)
	if err := l.run(); err != nil {
		return nil, nil, err
	}
	// Samples through the end of the run; a partial last interval closes
	// with one more sample.
	last := d.toTrace(d.end())
	if len(d.reqs) == 0 {
		last = lastTrace
	}
	l.finish(last)
	if l.lastSampled < last {
		d.sample(last)
	}
	return d.reqs, d.outs, nil
}

// realDriver runs the agents as goroutines pulling requests from a shared
// queue; commits are serialized by the store. The loop, on the caller's
// goroutine, feeds the requests in trace order, releases departed VMs as
// it goes (the workers queue the departures of what they commit), applies
// the outages and samples the store at the interval boundaries it passes;
// the trace time of an outcome is the loop's clock when it took effect.
type realDriver struct {
	l      *loop
	store  *optimizer.CommitStore
	agents []*optimizer.Agent
	reqs   []optimizer.Request
	outs   []outcome
	ends   map[int64]float64
	smp    *sampler
	av     *avail
	opt    AgentOptions
	queue  chan realJob
	// mu guards the loop's queue, smp's counters, traceNow, the tracker
	// and the heal queue.
	mu        sync.Mutex
	traceNow  float64
	lastTrace float64
	wg        sync.WaitGroup
	t0        time.Time
	errOnce   sync.Once
	firstErr  error
	// Heal requests wait in pending (appended under mu by the loop or by
	// a worker resolving a heal) until the loop hands them to the
	// agents; outstanding counts those not yet resolved.
	pending     []realJob
	allHeals    []realJob
	outstanding int
	// atomic: with outages, a commit and its record are one trace instant.
	atomic bool
	next   int
}

// A realJob is a request and its outcome: the trace's (in reqs and outs,
// which do not move during the run) or a heal request (allocated apart,
// joined to reqs and outs at the end).
type realJob struct {
	req  *optimizer.Request
	o    *outcome
	heal *healReq
}

func (d *realDriver) now() float64 { return time.Since(d.t0).Seconds() }

// enqueue queues a heal request (under mu).
func (d *realDriver) enqueue(r optimizer.Request, h *healReq) {
	r.ID = int64(len(d.reqs) + len(d.allHeals))
	j := realJob{req: &r, o: &outcome{arrive: d.now(), start: -1, heal: true}, heal: h}
	d.pending = append(d.pending, j)
	d.allHeals = append(d.allHeals, j)
	d.outstanding++
}

// finish records a heal request's outcome (under mu).
func (d *realDriver) finish(j realJob, ok bool, placed []optimizer.Placement) {
	if j.heal == nil {
		return
	}
	d.av.resolved(j.heal, ok, placed, j.o.reason, d.traceNow, d.enqueue)
	d.outstanding--
}

// work is an agent's goroutine.
func (d *realDriver) work(ag *optimizer.Agent) {
	defer d.wg.Done()
	for j := range d.queue {
		req, o := j.req, j.o
		o.start = d.now()
		o.agent = ag.ID
		for {
			ag.Sync(d.store)
			dec := agentDecision(ag, req, o)
			if !dec.OK {
				d.mu.Lock()
				o.reason, o.at, o.atTrace, o.gang = dec.Reason, d.now(), d.traceNow, dec.Gang
				o.resolve(d.smp, req)
				d.finish(j, false, nil)
				d.mu.Unlock()
				break
			}
			// With outages, or when it evicts, a commit and its record are
			// one trace instant (under mu). An outage of its machine,
			// which the loop applies under mu, comes wholly before or after
			// it. A commit onto the room an eviction freed comes after the
			// evicting commit, and is recorded after it, at a trace time no
			// earlier than the eviction's (recorded apart, the evicting
			// commit could be recorded later, and the stored rows would
			// show the evicted VM beside the one that took its room).
			hold := d.atomic || len(dec.Evicted) > 0
			if hold {
				d.mu.Lock()
			}
			res := d.store.Commit(ag.ID, req, dec.Placements, dec.Evicted)
			if afterCommit != nil {
				afterCommit(len(dec.Evicted) > 0)
			}
			if hold && !res.OK {
				d.mu.Unlock()
			}
			ag.Resolve(d.store, dec, res)
			if d.opt.CheckEvery {
				if err := d.store.CheckInvariants(); err != nil {
					d.errOnce.Do(func() { d.firstErr = err })
				}
			}
			if res.OK {
				if !hold {
					d.mu.Lock()
				}
				o.ok, o.at, o.atTrace, o.evicted, o.placed = true, d.now(), d.traceNow, dec.Evicted, dec.Placements
				o.resolve(d.smp, req)
				if j.heal == nil {
					for _, p := range dec.Placements {
						if t := d.ends[p.VM]; !math.IsInf(t, 1) {
							d.l.depart(t, p.VM)
						}
					}
				}
				d.finish(j, true, dec.Placements)
				d.mu.Unlock()
				break
			}
			o.conflictAt = append(o.conflictAt, d.now())
			if o.retries++; o.retries > d.opt.MaxRetries {
				d.mu.Lock()
				o.reason, o.at, o.atTrace = ReasonMaxRetries, d.now(), d.traceNow
				o.resolve(d.smp, req)
				d.finish(j, false, nil)
				d.mu.Unlock()
				break
			}
		}
	}
}

// dispatchHeals hands the waiting heal requests to the agents.
func (d *realDriver) dispatchHeals() {
	d.mu.Lock()
	js := d.pending
	d.pending = nil
	d.mu.Unlock()
	for _, j := range js {
		d.queue <- j
	}
}

// enter moves the trace clock to t before the event at t: a commit that
// comes after a departure then carries a trace time no earlier than it, so
// the stored intervals never show a VM beside one that had already left.
// Machines failing at t go down before the clock reaches t: no commit
// recorded at t lands on them.
func (d *realDriver) enter(t float64) {
	d.mu.Lock()
	if d.av.next() == t {
		d.av.takeDown(t)
	}
	d.traceNow = math.Max(d.traceNow, t)
	d.mu.Unlock()
}

func (d *realDriver) arrive(l *loop, _ float64, _ optimizer.Request, _ requestSpan) error {
	i := d.next
	d.next++
	if i%1024 == 0 && d.opt.Progress != nil {
		d.opt.Progress(int64(i), int64(len(d.reqs)))
	}
	d.dispatchHeals()
	d.mu.Lock()
	d.smp.arrivals += len(d.reqs[i].VMs)
	d.mu.Unlock()
	d.outs[i].arrive = d.now()
	d.queue <- realJob{req: &d.reqs[i], o: &d.outs[i]}
	return nil
}

func (d *realDriver) event(*loop, event) error { return nil }

func (d *realDriver) release(_ float64, vm int64) { d.store.Release(vm) }

// outages applies the instant's outages after its departures: the failed
// machines' VMs are healed (or down), the repaired machines come back.
func (d *realDriver) outages(l *loop, t float64) {
	d.mu.Lock()
	l.av.instant(t, d.enqueue)
	d.mu.Unlock()
	d.dispatchHeals()
}

func (d *realDriver) sample(t float64) {
	d.mu.Lock()
	d.traceNow = math.Max(d.traceNow, t)
	d.store.WithState(func(st *optimizer.State) { d.smp.sample(t, st) })
	d.mu.Unlock()
}

func (d *realDriver) idle(l *loop) bool {
	_, more := l.src.peek()
	return !more
}

func (d *realDriver) end() float64 { return d.lastTrace }

// stop ends the agents' goroutines once they have drained the queue.
func (d *realDriver) stop() {
	close(d.queue)
	d.wg.Wait()
}

// realTime runs the loop on the trace's time with the agents as
// goroutines; at the window's end, its outages' heals are all resolved (a
// heal that fails starts the next stage) before the agents stop.
func realTime(ctx context.Context, store *optimizer.CommitStore, agents []*optimizer.Agent, reqs []optimizer.Request,
	end map[int64]float64, smp *sampler, av *avail, lastTrace float64, opt AgentOptions) ([]optimizer.Request, []outcome, error) {
	d := &realDriver{store: store, agents: agents, reqs: reqs, outs: make([]outcome, len(reqs)), ends: end, smp: smp, av: av, opt: opt,
		queue: make(chan realJob, 4*len(agents)), traceNow: opt.From, lastTrace: lastTrace, t0: time.Now(),
		atomic: len(opt.Avail.outages()) > 0}
	l := &loop{ctx: ctx, drv: d, src: &requestList{reqs: reqs, stop: len(reqs)}, byVM: true, av: av, mu: &d.mu}
	d.l = l
	for _, ag := range agents {
		d.wg.Add(1)
		go d.work(ag)
	}
	l.startSamples(opt.From, opt.Interval)
	if err := l.run(); err != nil {
		d.stop()
		return nil, nil, err
	}
	l.finish(lastTrace)
	for {
		d.dispatchHeals()
		d.mu.Lock()
		left := d.outstanding
		d.mu.Unlock()
		if left == 0 {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	d.stop()
	if l.lastSampled < lastTrace {
		d.sample(lastTrace)
	}
	for _, h := range d.allHeals {
		reqs = append(reqs, *h.req)
		d.outs = append(d.outs, *h.o)
	}
	return reqs, d.outs, d.firstErr
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

package replay

import (
	"context"
	"math"
	"time"

	"placelab/optimizer"
)

// Engine is what a one-engine run of the loop drives: an allocator, or
// anything that decides and releases like one (a benchmark's fake). Its
// background refresh and idle-time upkeep are reached through
// optimizer.Refresher when it has them.
type Engine interface {
	Allocate(req *optimizer.Request) optimizer.Decision
	Release(vm optimizer.VMID) bool
}

// Decided is one decision of a one-engine run, as its observers see it.
type Decided struct {
	Request  *optimizer.Request
	Decision *optimizer.Decision
	// Kind is the request's buffer, resolved on the state before the
	// decision (a run without a state: KindAuto, unresolved).
	Kind optimizer.RequestKind
	// Took is the decision's wall time less Upkeep, the background
	// refresh's changes it applied (idle-time work: Protean.Refresh).
	Took, Upkeep time.Duration
	span         requestSpan
}

// PerVMUS is the decision's latency per VM in µs: what every path reports
// as a VM's latency.
func (e *Decided) PerVMUS() float64 {
	return float64(e.Took.Nanoseconds()) / 1e3 / float64(len(e.Request.VMs))
}

// Observer is told what a one-engine run does, as it does it: each
// decision, each departure (with the release's wall time when the run
// times releases), each eviction (by a decision or a heal, at trace time
// t) and each background refresh (the cells it brought up to date).
type Observer interface {
	Decided(e *Decided)
	Departed(vm int64, took time.Duration)
	Evicted(vm int64, t float64)
	Refreshed(cells int, took time.Duration)
}

// engineDriver drives the loop with one engine deciding each request when
// it arrives (the outcome takes effect at once, at the request's time):
// Replay, and the bench's timed replay (EngineReplay).
type engineDriver struct {
	eng       Engine
	refresher optimizer.Refresher
	refresh   bool
	// state is the engine's, for buffers and samples (nil: none).
	state *optimizer.State
	now   func() time.Time
	// timeReleases measures each release's wall time for the observers.
	timeReleases bool
	obs          []Observer
	// endOf is the trace end of VM vm, k-th of a request at span.
	endOf    func(span requestSpan, k int, vm int64) float64
	decorate func(r *optimizer.Request)
	cfg      *Availability
	sets     setNumbers
	av       *avail
	smp      *sampler
	// n counts requests (the index of the next one), prev is the last
	// one's time; total and progress report progress every 1024.
	n        int
	prev     float64
	total    int64
	progress func(done, total int64)
	last     float64
	// check is asked after each decision (a sink's storing error).
	check func() error
}

func (d *engineDriver) enter(float64) {}

func (d *engineDriver) arrive(l *loop, now float64, r optimizer.Request, span requestSpan) error {
	i := d.n
	d.n++
	if d.progress != nil && i%1024 == 0 {
		d.progress(int64(i), d.total)
	}
	if d.sets != nil {
		d.sets.number(d.cfg, &r)
	}
	if d.refresh && d.refresher != nil && i > 0 && r.Time-d.prev >= RefreshGap {
		t0 := d.now()
		cells := d.refresher.Refresh(RefreshEvals)
		took := d.now().Sub(t0)
		for _, o := range d.obs {
			o.Refreshed(cells, took)
		}
	}
	d.prev = r.Time
	if d.decorate != nil {
		d.decorate(&r)
	}
	var kind optimizer.RequestKind
	if d.state != nil {
		kind = optimizer.ResolveKind(d.state, &r)
	}
	dec, took, upkeep := timeDecision(d.now, d.refresher, func() optimizer.Decision { return d.eng.Allocate(&r) })
	e := Decided{Request: &r, Decision: &dec, Kind: kind, Took: took, Upkeep: upkeep, span: span}
	for _, o := range d.obs {
		o.Decided(&e)
	}
	if dec.OK {
		for k, v := range r.VMs {
			if t := d.endOf(span, k, v.ID); !math.IsInf(t, 1) {
				l.depart(t, v.ID)
			}
		}
	}
	for _, ev := range dec.Evicted {
		d.evicted(ev.VM, r.Time)
	}
	if d.check != nil {
		return d.check()
	}
	return nil
}

func (d *engineDriver) evicted(vm int64, t float64) {
	for _, o := range d.obs {
		o.Evicted(vm, t)
	}
}

func (d *engineDriver) event(*loop, event) error { return nil }

func (d *engineDriver) release(_ float64, vm int64) {
	var took time.Duration
	if d.timeReleases {
		t0 := d.now()
		d.eng.Release(vm)
		took = d.now().Sub(t0)
	} else {
		d.eng.Release(vm)
	}
	for _, o := range d.obs {
		o.Departed(vm, took)
	}
}

func (d *engineDriver) outages(l *loop, t float64) { l.av.instant(t, d.heal) }

// heal decides a heal request at once, at its failure's instant.
func (d *engineDriver) heal(req optimizer.Request, h *healReq) {
	dec := d.eng.Allocate(&req)
	d.av.resolved(h, dec.OK, dec.Placements, dec.Reason, h.failT, d.heal)
	if dec.OK {
		for _, e := range dec.Evicted {
			d.evicted(e.VM, h.failT)
		}
	}
}

func (d *engineDriver) sample(t float64) { d.smp.sample(t, d.state) }

func (d *engineDriver) idle(l *loop) bool {
	_, more := l.src.peek()
	return !more
}

func (d *engineDriver) end() float64 { return d.last }

// EngineOptions configure an EngineReplay.
type EngineOptions struct {
	// Refresh lets the engine refresh its caches in idle gaps of at least
	// RefreshGap trace seconds (as Replay's ReplayOptions.Refresh).
	Refresh bool
	// Now is the clock decisions, refreshes and releases are timed on
	// (nil: time.Now).
	Now func() time.Time
	// TimeReleases times each release for the observers.
	TimeReleases bool
	// End is a VM's end in the trace (+Inf: it does not depart).
	End       func(vm int64) float64
	Observers []Observer
}

// EngineReplay is the loop driving one engine over a list of requests, a
// number of requests at a time (the bench's timed replay): before each
// request the departures due by its time, a background refresh when the
// trace left the engine idle (EngineOptions.Refresh), then its decision;
// no samples and no outages.
type EngineReplay struct {
	l    *loop
	list *requestList
}

// NewEngineReplay replays reqs[at:] through eng (the requests before at
// were decided already, outside the replay: Depart queues their VMs'
// departures).
func NewEngineReplay(eng Engine, reqs []optimizer.Request, at int, o EngineOptions) *EngineReplay {
	if o.Now == nil {
		o.Now = time.Now
	}
	end := o.End
	d := &engineDriver{eng: eng, refresh: o.Refresh, now: o.Now, timeReleases: o.TimeReleases, obs: o.Observers,
		endOf: func(_ requestSpan, _ int, vm int64) float64 { return end(vm) }, n: at, last: math.Inf(-1)}
	d.refresher, _ = eng.(optimizer.Refresher)
	if at > 0 {
		d.prev = reqs[at-1].Time
	}
	list := &requestList{reqs: reqs, at: at, stop: len(reqs)}
	return &EngineReplay{l: &loop{drv: d, src: list, byVM: true}, list: list}
}

// Depart queues VM vm's departure at trace time t.
func (e *EngineReplay) Depart(t float64, vm int64) { e.l.depart(t, vm) }

// Left is how many requests are left.
func (e *EngineReplay) Left() int { return e.list.stop - e.list.at }

// Next runs the loop through the next n requests (all that are left when
// fewer are); it stops early, with ctx's error, when ctx is done.
func (e *EngineReplay) Next(ctx context.Context, n int) error {
	e.l.ctx = ctx
	e.l.maxArrivals = e.l.arrived + n
	return e.l.run()
}

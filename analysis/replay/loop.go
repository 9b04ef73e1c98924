package replay

import (
	"container/heap"
	"context"
	"math"
	"sync"
	"time"

	"placelab/optimizer"
)

// Event kinds, in the order the events of one instant are taken:
// departures, then commits (simulated agents), then the instant's outages
// (ends, then starts, then the heals they make), then the interval sample,
// then arrivals, then agents coming free (simulated agents).
const (
	evDeparture = iota
	evCommit
	evOutage
	evSample
	evArrival
	evFree
)

// event is one event of the loop, on the run's clock. seq breaks ties of
// an instant's events of one kind: the order they were queued in (trace
// arrivals, numbered first, before any queued one), or the VM id for the
// departures of a loop that orders them so (loop.byVM).
type event struct {
	t     float64
	kind  int
	seq   int64
	req   int
	agent int
	vm    int64
	d     *optimizer.Decision
}

func (a *event) before(b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

type eventQueue []event

func (q eventQueue) Len() int           { return len(q) }
func (q eventQueue) Less(i, j int) bool { return q[i].before(&q[j]) }
func (q eventQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)        { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// arrivals are the trace's requests in time order.
type arrivals interface {
	// peek is the next request's trace time; false when none is left.
	peek() (float64, bool)
	// next hands it out, with where its VMs sit in the trace (spans of
	// a request list: first -1).
	next() (optimizer.Request, requestSpan, bool)
}

// requestList is a list of requests as arrivals, from index at to stop.
type requestList struct {
	reqs     []optimizer.Request
	at, stop int
}

func (l *requestList) peek() (float64, bool) {
	if l.at >= l.stop {
		return 0, false
	}
	return l.reqs[l.at].Time, true
}

func (l *requestList) next() (optimizer.Request, requestSpan, bool) {
	if l.at >= l.stop {
		return optimizer.Request{}, requestSpan{}, false
	}
	l.at++
	return l.reqs[l.at-1], requestSpan{first: -1}, true
}

// driver is what a run of the loop plugs into it: how a request is
// decided and when its outcome takes effect (at once for one engine, at a
// drawn commit time for simulated agents, whenever a goroutine gets to it
// in real time), and how the run's state is released, sampled and hit by
// outages.
type driver interface {
	// enter is told the clock is about to reach t (the next event's time).
	enter(t float64)
	// arrive decides (or queues) the trace's next request, r.
	arrive(l *loop, now float64, r optimizer.Request, span requestSpan) error
	// event handles an event the driver queued itself (commits, agents
	// coming free, heal requests arriving).
	event(l *loop, e event) error
	// release lets VM vm go from the run's state.
	release(now float64, vm int64)
	// outages applies the outages of instant t (trace time; the loop's
	// tracker, l.av).
	outages(l *loop, t float64)
	// sample takes the interval sample at trace time t.
	sample(t float64)
	// idle reports whether every request handed to the driver is
	// resolved (the run may end); end is then the run's last instant on
	// its clock.
	idle(l *loop) bool
	end() float64
}

// loop is the one event loop of every replay (see the package doc): it
// takes, in time order, the trace's arrivals, the departures of placed
// VMs, the outages (ends, starts and heals of an instant together), the
// interval samples and the driver's own events, and hands each to its
// driver.
type loop struct {
	ctx context.Context
	drv driver
	src arrivals
	q   eventQueue
	seq int64
	// byVM orders an instant's departures by VM id (as the one-agent
	// replay, the bench and the real-time agents always have); without
	// it they go in the order they were queued (simulated agents).
	byVM bool
	// toClock maps trace time to the run's clock (nil: the same).
	toClock func(float64) float64
	// av is the run's availability tracker (outages, heals); nil: none.
	av *avail
	// Samples: the next boundary (trace time), every interval (0: none),
	// and the last taken.
	nextB, interval, lastSampled float64
	// mu, when set, guards the queue (and the tracker's queue) against
	// the driver's goroutines.
	mu          sync.Locker
	events      int
	arrived     int
	maxArrivals int // stop after this many arrivals (0: no bound)
}

func (l *loop) clock(t float64) float64 {
	if l.toClock == nil {
		return t
	}
	return l.toClock(t)
}

// push queues an event (callers holding l.mu when it is set).
func (l *loop) push(e event) {
	e.seq = l.seq
	l.seq++
	heap.Push(&l.q, e)
}

// depart queues vm's departure at run clock t.
func (l *loop) depart(t float64, vm int64) {
	if l.byVM {
		heap.Push(&l.q, event{t: t, kind: evDeparture, seq: vm, vm: vm})
		return
	}
	l.push(event{t: t, kind: evDeparture, vm: vm})
}

// startSamples sets the first sample boundary: the interval boundary after
// the first arrival (from when there is none).
func (l *loop) startSamples(from, interval float64) {
	l.interval, l.nextB, l.lastSampled = interval, from, math.Inf(-1)
	if t, ok := l.src.peek(); ok {
		l.nextB = math.Floor(t/interval)*interval + interval
	}
}

// takeSample samples at the next boundary.
func (l *loop) takeSample() {
	l.drv.sample(l.nextB)
	l.lastSampled = l.nextB
	l.nextB += l.interval
}

// peek is the next event, and whether it comes from the queue.
func (l *loop) peek() (event, bool, bool) {
	if l.mu != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	var e event
	ok, queued := false, false
	if t, more := l.src.peek(); more {
		e, ok = event{t: l.clock(t), kind: evArrival, seq: -1}, true
	}
	if len(l.q) > 0 && (!ok || l.q[0].before(&e)) {
		e, ok, queued = l.q[0], true, true
	}
	if l.av != nil {
		if t := l.av.next(); !math.IsInf(t, 1) {
			o := event{t: l.clock(t), kind: evOutage}
			if !ok || o.before(&e) {
				e, ok, queued = o, true, false
			}
		}
	}
	return e, ok, queued
}

func (l *loop) pop() event {
	if l.mu != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return heap.Pop(&l.q).(event)
}

// run takes the events in time order until none is left or the driver
// is idle with nothing due by its end, or (maxArrivals) that many arrivals
// were handed to the driver. Samples are taken at their boundaries on the
// way, after an instant's departures, commits and outages and before its
// arrivals; none beyond the run's end once the driver is idle.
func (l *loop) run() error {
	for l.maxArrivals == 0 || l.arrived < l.maxArrivals {
		e, ok, queued := l.peek()
		if !ok {
			return nil
		}
		idle := l.drv.idle(l)
		if idle && e.t > l.drv.end() {
			return nil // only departures and outages after the run's end are left
		}
		if l.interval > 0 {
			for {
				b := event{t: l.clock(l.nextB), kind: evSample}
				if !b.before(&e) || idle && b.t > l.drv.end() {
					break
				}
				l.takeSample()
			}
		}
		if l.events%4096 == 0 {
			if err := l.ctx.Err(); err != nil {
				return err
			}
		}
		l.events++
		l.drv.enter(e.t)
		if queued {
			e = l.pop()
		}
		var err error
		switch {
		case !queued && e.kind == evArrival:
			r, span, _ := l.src.next()
			l.arrived++
			err = l.drv.arrive(l, e.t, r, span)
		case !queued:
			l.drv.outages(l, l.av.next())
		case e.kind == evDeparture:
			l.drv.release(e.t, e.vm)
		default:
			err = l.drv.event(l, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// finish samples the boundaries left up to trace time last.
func (l *loop) finish(last float64) {
	for l.interval > 0 && l.nextB <= last {
		l.takeSample()
	}
}

// timeDecision runs one decision on the clock now, and returns it with
// its time less the background refresh's changes it applied (up's
// IdleUpkeep, idle-time work: Protean.Refresh), and that upkeep: the one
// place a decision's latency is measured.
func timeDecision(now func() time.Time, up optimizer.Refresher, decide func() optimizer.Decision) (optimizer.Decision, time.Duration, time.Duration) {
	var idle int64
	if up != nil {
		idle = up.IdleUpkeep()
	}
	t0 := now()
	d := decide()
	took := now().Sub(t0)
	var upkeep time.Duration
	if up != nil {
		upkeep = time.Duration(up.IdleUpkeep() - idle)
		took -= upkeep
	}
	return d, took, upkeep
}

package replay

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"placelab/optimizer"
)

// Sink receives a one-agent replay's placement rows as they become final,
// in batches, while the replay runs: a row is final when its VM is
// rejected, departs, or is still alive when the run ends (until then an
// eviction can change it). A Sink lets a replay's memory follow the VMs
// alive rather than the trace's length (analysis.Run streams the rows into
// the run's transaction). Placements gets a batch the replay reuses after
// the call returns; an error stops the replay.
type Sink interface {
	Placements(rows []PlacementRow) error
}

// SinkBatch is how many final rows a replay gathers before it hands them to
// its Sink (sinkBatch: tests lower it).
const SinkBatch = 8192

var sinkBatch = SinkBatch

// rowBook holds the rows of a one-agent replay: the rows of placed VMs
// still alive (their outcome can change) in a slab indexed by VM, and the
// final rows not yet handed on. Without a sink every final row is kept and
// Result.Placements gets them in arrival order.
type rowBook struct {
	slab []PlacementRow
	ends []float64 // each slab row's VM's end in the trace
	free []int32
	live map[int64]int32
	out  []PlacementRow
	sink Sink
	seq  int64
	err  error
	// peak is the most rows held open at once (the slab's length).
	peak int
}

func newRowBook(sink Sink) *rowBook { return &rowBook{live: map[int64]int32{}, sink: sink} }

// add files the row of a VM just decided (row.seq numbers arrivals):
// placed rows stay open until final, others are final now.
func (b *rowBook) add(row PlacementRow, end float64) {
	row.seq = b.seq
	b.seq++
	if row.Outcome != "placed" {
		b.final(row)
		return
	}
	var i int32
	if n := len(b.free); n > 0 {
		i = b.free[n-1]
		b.free = b.free[:n-1]
		b.slab[i], b.ends[i] = row, end
	} else {
		i = int32(len(b.slab))
		b.slab, b.ends = append(b.slab, row), append(b.ends, end)
		b.peak = len(b.slab)
	}
	b.live[row.VM] = i
}

// open is the row of a placed VM not yet final (nil: none).
func (b *rowBook) open(vm int64) *PlacementRow {
	if i, ok := b.live[vm]; ok {
		return &b.slab[i]
	}
	return nil
}

// evict marks an open row evicted at t.
func (b *rowBook) evict(vm int64, t float64) {
	if row := b.open(vm); row != nil {
		row.Outcome, row.EvictedAt, row.Reason = "evicted", t, optimizer.ReasonEvicted
	}
}

// endOf is the trace end of an open VM (+Inf when it has none).
func (b *rowBook) endOf(vm int64) float64 {
	if i, ok := b.live[vm]; ok {
		return b.ends[i]
	}
	return math.Inf(1)
}

// close makes an open row final (its VM departed).
func (b *rowBook) close(vm int64) {
	i, ok := b.live[vm]
	if !ok {
		return
	}
	delete(b.live, vm)
	b.final(b.slab[i])
	b.slab[i] = PlacementRow{}
	b.free = append(b.free, i)
}

func (b *rowBook) final(row PlacementRow) {
	b.out = append(b.out, row)
	if b.sink != nil && len(b.out) >= sinkBatch {
		b.flush()
	}
}

func (b *rowBook) flush() {
	if b.sink == nil || len(b.out) == 0 || b.err != nil {
		return
	}
	b.err = b.sink.Placements(b.out)
	clear(b.out)
	b.out = b.out[:0]
}

// finish closes every open row (in arrival order) and hands the rest on;
// without a sink it returns every row in arrival order.
func (b *rowBook) finish() ([]PlacementRow, error) {
	open := make([]int32, 0, len(b.live))
	for _, i := range b.live {
		open = append(open, i)
	}
	slices.SortFunc(open, func(x, y int32) int { return cmp.Compare(b.slab[x].seq, b.slab[y].seq) })
	for _, i := range open {
		b.final(b.slab[i])
	}
	clear(b.live)
	b.slab, b.ends, b.free = nil, nil, nil
	if b.sink != nil {
		b.flush()
		return nil, b.err
	}
	slices.SortFunc(b.out, func(x, y PlacementRow) int { return cmp.Compare(x.seq, y.seq) })
	return b.out, nil
}

// bookBatch is how many row changes the replay gathers before it hands
// them to its row book's goroutine (bookWorker; tests lower it).
var bookBatch = 4096

// bookWorker runs a one-agent replay's rowBook on a goroutine of its own:
// the replay hands it its row changes (a VM decided, departed or evicted)
// in batches, in the order they happened, so that filing rows and handing
// final ones to the sink leave the decisions' goroutine. A question about
// an open row (endOf) first waits until the goroutine has applied every
// change handed to it. Nothing else reads the book until finish, which
// waits for it the same way.
type bookWorker struct {
	b     *rowBook
	batch []bookEvent
	work  chan []bookEvent
	spare chan []bookEvent
	ack   chan struct{}
	done  bool          // work closed: the goroutine ends
	ended chan struct{} // closed when it has
	// failed is the book's first storing error, set by its goroutine.
	failed atomic.Pointer[error]
}

// bookEvent is one row change: a row filed (row, end), a VM departed
// (row.VM), a VM evicted (row.VM, at row.EvictedAt), or a wait mark.
type bookEvent struct {
	row  PlacementRow
	end  float64
	kind uint8
}

const (
	bookAdd uint8 = iota
	bookClose
	bookEvict
	bookWait // acknowledged once every change before it is applied
)

func newBookWorker(sink Sink) *bookWorker {
	w := &bookWorker{b: newRowBook(sink), work: make(chan []bookEvent, 2), spare: make(chan []bookEvent, 3), ack: make(chan struct{}), ended: make(chan struct{})}
	for range 3 {
		w.spare <- make([]bookEvent, 0, bookBatch)
	}
	w.batch = <-w.spare
	go w.run()
	return w
}

func (w *bookWorker) run() {
	defer close(w.ended)
	b := w.b
	for batch := range w.work {
		waited := false
		for i := range batch {
			e := &batch[i]
			switch e.kind {
			case bookAdd:
				b.add(e.row, e.end)
			case bookClose:
				b.close(e.row.VM)
			case bookEvict:
				b.evict(e.row.VM, e.row.EvictedAt)
			case bookWait: // always a batch's last
				waited = true
			}
		}
		if b.err != nil && w.failed.Load() == nil {
			err := b.err
			w.failed.Store(&err)
		}
		clear(batch) // rows hold strings and explanations
		w.spare <- batch[:0]
		if waited {
			w.ack <- struct{}{} // the book is the caller's until the next batch
		}
	}
}

func (w *bookWorker) push(e bookEvent) {
	w.batch = append(w.batch, e)
	if len(w.batch) == bookBatch {
		w.work <- w.batch
		w.batch = <-w.spare
	}
}

// add files the row of a VM just decided (rowBook.add).
func (w *bookWorker) add(row PlacementRow, end float64) {
	w.push(bookEvent{row: row, end: end, kind: bookAdd})
}

// close makes a VM's row final: it departed (rowBook.close).
func (w *bookWorker) close(vm int64) { w.push(bookEvent{row: PlacementRow{VM: vm}, kind: bookClose}) }

// evict marks an open row evicted at t.
func (w *bookWorker) evict(vm int64, t float64) {
	w.push(bookEvent{row: PlacementRow{VM: vm, EvictedAt: t}, kind: bookEvict})
}

// wait returns once the goroutine has applied every change handed to it.
func (w *bookWorker) wait() {
	w.batch = append(w.batch, bookEvent{kind: bookWait})
	w.work <- w.batch
	<-w.ack
	w.batch = <-w.spare
}

// endOf is the trace end of an open VM (rowBook.endOf).
func (w *bookWorker) endOf(vm int64) float64 {
	w.wait()
	return w.b.endOf(vm)
}

// err is the first error storing rows, nil if none (yet).
func (w *bookWorker) err() error {
	if p := w.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// stop ends the goroutine and waits for it (it applies the batches
// handed to it first), so that nothing reaches the sink after stop: a
// replay that returns early leaves its caller free to close the sink. The
// book is not finished. Later calls do nothing.
func (w *bookWorker) stop() {
	if !w.done {
		w.done = true
		close(w.work)
		<-w.ended
	}
}

// finish applies every change, stops the goroutine and finishes the book
// (rowBook.finish).
func (w *bookWorker) finish() ([]PlacementRow, error) {
	w.wait()
	w.stop()
	return w.b.finish()
}

// requestAt groups the VMs of tr from index i into one service request (the
// VMs of one tenant arriving at the same time with the same placement
// constraints; each VM alone when tr.OnePerRequest); it returns the request
// (ID unset) and the index after it. VMs alive before from arrive at from.
func requestAt(tr *Trace, i int, from float64) (optimizer.Request, int) {
	r := RequestOfVM(tr, i)
	j := requestEnd(tr, i)
	r.Time = math.Max(r.Time, from)
	if j == i+1 {
		return r, j
	}
	c := tr.ConstraintsOf(&tr.VMs[i])
	r.VMs = make([]optimizer.VMRequest, j-i)
	for k := i; k < j; k++ {
		w := &tr.VMs[k]
		r.VMs[k-i] = optimizer.VMRequest{ID: w.ID, Type: w.Type, Affinity: c.Affinity, Tolerated: c.Tolerated}
	}
	return r, j
}

// RequestOfVM is the request of trace VM i alone, as a replay asks for it
// (tenant, time, priority, tenant bounds, node sets; ID unset): what a
// judge of the rules asks the validators about one pod.
func RequestOfVM(tr *Trace, i int) optimizer.Request {
	v := &tr.VMs[i]
	c := tr.ConstraintsOf(v)
	return optimizer.Request{Tenant: v.Tenant, Time: v.Start, Priority: v.Priority, MaxPerMachine: c.MaxPerMachine, MaxSkew: c.MaxSkew,
		VMs: []optimizer.VMRequest{{ID: v.ID, Type: v.Type, Affinity: c.Affinity, Tolerated: c.Tolerated}}}
}

// requestSpan is where a request's VMs sit in the trace.
type requestSpan struct{ first, n int32 }

// requestStream hands out a trace's requests in time order, as Requests
// lists them, without holding them all: a trace in arrival order (as
// LoadTrace reads it) is grouped as it goes; any other order falls back to
// the sorted list. Count, the requests' number and the last one's time,
// come from a first pass that allocates nothing.
type requestStream struct {
	tr       *Trace
	from, to float64
	max      int // 0: all
	// sorted: the fallback's requests and where their VMs are.
	sorted []optimizer.Request
	spans  []requestSpan
	i, k   int
	// n requests of vms VMs, the last at time last.
	n, vms int
	last   float64
}

func newRequestStream(tr *Trace, from, to float64, max int) *requestStream {
	s := &requestStream{tr: tr, from: from, to: to, max: max}
	inOrder := true
	for i := 1; i < len(tr.VMs); i++ {
		if tr.VMs[i].Start < tr.VMs[i-1].Start {
			inOrder = false
			break
		}
	}
	if !inOrder {
		s.sorted, s.spans = requests(tr, from, to)
		if max > 0 && len(s.sorted) > max {
			s.sorted, s.spans = s.sorted[:max], s.spans[:max]
		}
		s.n = len(s.sorted)
		for _, sp := range s.spans {
			s.vms += int(sp.n)
		}
		if s.n > 0 {
			s.last = s.sorted[s.n-1].Time
		}
		return s
	}
	for i := 0; i < len(tr.VMs) && (max == 0 || s.n < max); {
		t := math.Max(tr.VMs[i].Start, from)
		if t >= to {
			break
		}
		j := requestEnd(tr, i)
		s.n++
		s.vms += j - i
		i = j
		s.last = t
	}
	return s
}

// requestEnd is the index after the request that starts at VM i.
func requestEnd(tr *Trace, i int) int {
	v := &tr.VMs[i]
	j := i + 1
	for !tr.OnePerRequest && j < len(tr.VMs) && tr.VMs[j].Tenant == v.Tenant && tr.VMs[j].Start == v.Start &&
		tr.VMs[j].Priority == v.Priority && sameConstraints(tr, &tr.VMs[j], v) {
		j++
	}
	return j
}

// peek is the next request's time; false when none is left.
func (s *requestStream) peek() (float64, bool) {
	if s.k >= s.n {
		return 0, false
	}
	if s.sorted != nil {
		return s.sorted[s.k].Time, true
	}
	return math.Max(s.tr.VMs[s.i].Start, s.from), true
}

// next is the next request and where its VMs sit in the trace; false when
// none is left.
func (s *requestStream) next() (optimizer.Request, requestSpan, bool) {
	if s.k >= s.n {
		return optimizer.Request{}, requestSpan{}, false
	}
	id := s.k
	s.k++
	if s.sorted != nil {
		r := s.sorted[id]
		s.sorted[id] = optimizer.Request{}
		return r, s.spans[id], true
	}
	r, j := requestAt(s.tr, s.i, s.from)
	sp := requestSpan{int32(s.i), int32(j - s.i)}
	s.i = j
	r.ID = int64(id)
	return r, sp, true
}

// requests lists a trace's requests in time order with their spans.
func requests(tr *Trace, from, to float64) ([]optimizer.Request, []requestSpan) {
	var reqs []optimizer.Request
	var spans []requestSpan
	for i := 0; i < len(tr.VMs); {
		if math.Max(tr.VMs[i].Start, from) >= to {
			break
		}
		r, j := requestAt(tr, i, from)
		reqs = append(reqs, r)
		spans = append(spans, requestSpan{int32(i), int32(j - i)})
		i = j
	}
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case reqs[a].Time < reqs[b].Time:
			return -1
		case reqs[a].Time > reqs[b].Time:
			return 1
		}
		return 0
	})
	outR := make([]optimizer.Request, len(reqs))
	outS := make([]requestSpan, len(reqs))
	for k, i := range idx {
		outR[k], outS[k] = reqs[i], spans[i]
		outR[k].ID = int64(k)
	}
	return outR, outS
}

// setNumbers numbers the VMs of each tenant's availability set as requests
// come (numberSets, one request at a time).
type setNumbers map[int32]int32

func (n setNumbers) number(cfg *Availability, r *optimizer.Request) {
	if !cfg.domains() {
		return
	}
	r.FaultDomains, r.UpdateDomains = cfg.FaultDomains, cfg.UpdateDomains
	k := n[r.Tenant]
	for i := range r.VMs {
		r.VMs[i].SetIndex = k
		k++
	}
	n[r.Tenant] = k
}

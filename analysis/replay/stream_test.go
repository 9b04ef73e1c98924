package replay

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

// collectSink keeps every batch it is given (copied: the replay reuses it)
// and counts the batches that came while the replay still had requests
// left.
type collectSink struct {
	rows    []PlacementRow
	batches int
}

func (c *collectSink) Placements(rows []PlacementRow) error {
	c.rows = append(c.rows, rows...)
	c.batches++
	return nil
}

// streamTrace is a zone of 30 machines of 16 cores in 2 clusters, and 2,000
// VMs of three sizes in requests of 1–3 VMs, a third of them low priority,
// living 500–4,500 s (a few alive past the trace, End +Inf), so that about
// a tenth of the trace is alive at once and that is more than the zone
// holds (rejections), and high-priority VMs evict low-priority ones.
func streamTrace(t *testing.T) *Trace {
	t.Helper()
	var ms []optimizer.MachineSpec
	for i := 0; i < 30; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + itoa(i), Cluster: "c" + itoa(i/15), Rack: "r" + itoa(i/3), UpdateDomain: int16(i % 5), Healthy: true})
	}
	types := []optimizer.VMType{
		{Name: "a", Demand: []optimizer.Vec{{optimizer.Cores: 2, optimizer.Memory: 8}}, Supported: []bool{true}},
		{Name: "b", Demand: []optimizer.Vec{{optimizer.Cores: 5, optimizer.Memory: 10}}, Supported: []bool{true}},
		{Name: "c", Demand: []optimizer.Vec{{optimizer.Cores: 8, optimizer.Memory: 40}}, Supported: []bool{true}},
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 64}}}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: machineIDs(30)}
	id := int64(0)
	for r := 0; len(tr.VMs) < 2000; r++ {
		n := 1 + r%3
		start := float64(r * 40)
		for k := 0; k < n; k++ {
			end := start + 500 + float64((r*7919+k*104729)%4000)
			if r%97 == 0 {
				end = math.Inf(1)
			}
			tr.VMs = append(tr.VMs, TraceVM{ID: 1000 + id*3, Tenant: int32(r % 97), Type: int32((r + k) % 3), Priority: uint8(r % 3 % 2),
				Start: start, End: end})
			id++
		}
	}
	return tr
}

// peakAlive is the largest number of the trace's VMs alive at once.
func peakAlive(tr *Trace) int {
	type ev struct {
		t float64
		d int
	}
	var evs []ev
	for _, v := range tr.VMs {
		evs = append(evs, ev{v.Start, 1})
		if !math.IsInf(v.End, 1) {
			evs = append(evs, ev{v.End, -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	n, peak := 0, 0
	for _, e := range evs {
		n += e.d
		peak = max(peak, n)
	}
	return peak
}

// TestSinkGetsEveryRow: a replay with a Sink hands over, while it runs,
// exactly the rows the same seeded replay keeps without one — rejections,
// evictions, heal-time outcomes and VMs alive past the trace included —
// each once and final; with the sink the result holds none, and the rows
// it kept open at once never outnumber the trace's VMs alive at once (its
// memory follows what is alive, not the trace's length).
func TestSinkGetsEveryRow(t *testing.T) {
	tr := streamTrace(t)
	cfg := optimizer.DefaultConfig()
	cfg.Evict = true
	cfg.Buffers.Healing = 1
	model := outage.DefaultModel()
	model.MachineAFR, model.RackAFR, model.RebootShare = 300, 30, 0.5
	var outs []Outage
	for _, o := range outage.Generate(tr.Inv, model, 0, 50000, 3) {
		outs = append(outs, Outage{Outage: o, Source: SourceModel})
	}
	run := func(sink Sink) (*Result, *optimizer.State) {
		t.Helper()
		trc := tr.WithOwnHealth()
		alloc, err := NewAllocator("protean", trc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultReplayOptions()
		o.Avail = &Availability{HealDelay: model.HealSeconds(), FaultDomains: 3, UpdateDomains: 5, Outages: outs}
		o.Buffers, o.Sink = cfg.Buffers, sink
		res, err := Replay(context.Background(), trc, alloc, o)
		if err != nil {
			t.Fatal(err)
		}
		return res, alloc.State()
	}
	want, _ := run(nil)
	var evicted, rejected, open int
	for _, p := range want.Placements {
		switch p.Outcome {
		case "evicted":
			evicted++
		case "rejected":
			rejected++
		}
		if p.Outcome == "placed" && math.IsInf(endOf(tr, p.VM), 1) {
			open++
		}
	}
	if evicted == 0 || rejected == 0 || open == 0 || want.Summary.HealVMs == 0 {
		t.Fatalf("the zone lacks a hard case: %d evicted, %d rejected, %d placed and alive past the trace, %d healed",
			evicted, rejected, open, want.Summary.HealVMs)
	}
	defer func(b int) { sinkBatch = b }(sinkBatch)
	sinkBatch = 7
	sink := &collectSink{}
	got, _ := run(sink)
	if len(got.Placements) != 0 {
		t.Fatalf("with a sink the result kept %d rows", len(got.Placements))
	}
	if sink.batches < len(want.Placements)/sinkBatch {
		t.Fatalf("%d rows came in %d batches: not streamed", len(sink.rows), sink.batches)
	}
	slices.SortFunc(sink.rows, func(a, b PlacementRow) int { return int(a.seq - b.seq) })
	strip := func(rows []PlacementRow) []PlacementRow {
		out := slices.Clone(rows)
		for i := range out {
			out[i].LatencyUS, out[i].Explain, out[i].ResponseS = 0, nil, 0
			if math.IsNaN(out[i].EvictedAt) {
				out[i].EvictedAt = -1
			}
		}
		return out
	}
	if a, b := strip(want.Placements), strip(sink.rows); !reflect.DeepEqual(a, b) {
		if len(a) != len(b) {
			t.Fatalf("the sink got %d rows, the replay without one kept %d", len(b), len(a))
		}
		for i := range a {
			if !reflect.DeepEqual(a[i], b[i]) {
				t.Fatalf("row %d: the sink got %+v, the replay without one kept %+v", i, b[i], a[i])
			}
		}
	}
	if got.Summary.VMs != want.Summary.VMs || got.Summary.Evicted != want.Summary.Evicted || got.Summary.EvictionRate != want.Summary.EvictionRate {
		t.Fatalf("summaries differ: %+v and %+v", got.Summary, want.Summary)
	}
	maxOpen := got.openPeak
	if peak := peakAlive(tr); maxOpen > peak {
		t.Fatalf("the replay held %d rows open at once, more than the %d VMs alive at once", maxOpen, peak)
	}
	if maxOpen == 0 || 4*peakAlive(tr) > len(tr.VMs) {
		t.Fatalf("no row was held open (%d), or the trace keeps most of its VMs alive at once (%d of %d)", maxOpen, peakAlive(tr), len(tr.VMs))
	}
}

// endOf is a trace VM's end (+Inf when it has none or is unknown).
func endOf(tr *Trace, vm int64) float64 {
	for _, v := range tr.VMs {
		if v.ID == vm {
			return v.End
		}
	}
	return math.Inf(1)
}

// TestRequestStreamMatchesRequests: the stream hands out Requests' list —
// IDs, times (VMs alive before From arrive at From), groups and spans — for
// a trace in arrival order, grouped as it goes, and for one that is not,
// through the sorted fallback; with MaxRequests it stops as the list is cut.
func TestRequestStreamMatchesRequests(t *testing.T) {
	sorted := streamTrace(t)
	shuffled := *sorted
	shuffled.VMs = slices.Clone(sorted.VMs)
	for i := len(shuffled.VMs) - 1; i > 0; i-- {
		j := (i * 7919) % (i + 1)
		shuffled.VMs[i], shuffled.VMs[j] = shuffled.VMs[j], shuffled.VMs[i]
	}
	onePer := *sorted
	onePer.OnePerRequest = true
	for name, tr := range map[string]*Trace{"sorted": sorted, "shuffled": &shuffled, "one-per-request": &onePer} {
		for _, w := range []struct {
			from, to float64
			max      int
		}{{0, math.Inf(1), 0}, {5000, 30000, 0}, {0, math.Inf(1), 100}} {
			want := Requests(tr, w.from, w.to)
			if w.max > 0 {
				want = want[:w.max]
			}
			s := newRequestStream(tr, w.from, w.to, w.max)
			vms := 0
			for _, r := range want {
				vms += len(r.VMs)
			}
			if s.n != len(want) || s.vms != vms || (len(want) > 0 && s.last != want[len(want)-1].Time) {
				t.Fatalf("%s %v: stream counts %d requests of %d VMs to %v, Requests %d of %d", name, w, s.n, s.vms, s.last, len(want), vms)
			}
			for i := range want {
				r, sp, ok := s.next()
				if !ok || !reflect.DeepEqual(r, want[i]) {
					t.Fatalf("%s %v: request %d: stream %+v, Requests %+v", name, w, i, r, want[i])
				}
				for k, v := range r.VMs {
					if tr.VMs[int(sp.first)+k].ID != v.ID || int(sp.n) != len(r.VMs) {
						t.Fatalf("%s %v: request %d: span %+v does not hold its VMs", name, w, i, sp)
					}
				}
			}
			if _, _, ok := s.next(); ok {
				t.Fatalf("%s %v: the stream goes on past %d requests", name, w, len(want))
			}
		}
	}
}

// TestTraceVMSize: a trace VM takes the 40 bytes its doc comment says (a
// trace of 10M VMs, 400 MB), its constraints kept apart.
func TestTraceVMSize(t *testing.T) {
	if n := unsafe.Sizeof(TraceVM{}); n != 40 {
		t.Fatalf("TraceVM takes %d bytes", n)
	}
}

// failSink fails from its second batch on.
type failSink struct {
	batches int
	failed  bool
}

func (f *failSink) Placements([]PlacementRow) error {
	f.batches++
	if f.batches >= 2 {
		f.failed = true
		return errSinkTest
	}
	return nil
}

var errSinkTest = errors.New("disk full")

// TestSinkErrorStopsReplay: a sink that fails stops the replay with its
// error (the run's transaction then rolls back) at the request whose rows
// it failed on, instead of replaying on and losing rows.
func TestSinkErrorStopsReplay(t *testing.T) {
	tr := streamTrace(t)
	alloc, err := NewAllocator("protean", tr, optimizer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int) { sinkBatch = b }(sinkBatch)
	sinkBatch = 7
	o := DefaultReplayOptions()
	f := &failSink{}
	o.Sink = f
	// Requests decided after the sink failed: at most the one at hand
	// (its departures may have filled the failing batch).
	after := 0
	o.Decorate = func(*optimizer.Request) {
		if f.failed {
			after++
		}
	}
	_, err = Replay(context.Background(), tr, alloc, o)
	if !errors.Is(err, errSinkTest) {
		t.Fatalf("replay with a failing sink: %v", err)
	}
	if f.batches != 2 || after > 1 {
		t.Fatalf("the replay went on after the sink failed: %d batches, %d requests after", f.batches, after)
	}
}

// TestBookWorkerMatchesBook: the row book run on its own goroutine
// (bookWorker, batches of 5 changes) against the book run in line
// (rowBook), fed the same random changes — rows placed and rejected, VMs
// departed (some twice, some never placed), evicted and asked about
// (endOf, which waits for the goroutine) — with a sink: the same rows
// reach each sink in the same batches, endOf answers alike, and finish
// returns the same.
func TestBookWorkerMatchesBook(t *testing.T) {
	defer func(b, s int) { bookBatch, sinkBatch = b, s }(bookBatch, sinkBatch)
	bookBatch, sinkBatch = 5, 7
	rng := rand.New(rand.NewPCG(3, 11))
	var inLine, async recordSink
	b, w := newRowBook(&inLine), newBookWorker(&async)
	defer w.stop()
	var placed []int64
	for i := 0; i < 3000; i++ {
		switch k := rng.IntN(10); {
		case k < 5:
			vm := int64(i)
			row := PlacementRow{VM: vm, T: float64(i), Machine: int32(rng.IntN(9)), Outcome: "placed"} // no NaN: rows are compared with DeepEqual
			if rng.IntN(4) == 0 {
				row.Outcome, row.Machine, row.Reason = "rejected", -1, "full"
			} else {
				placed = append(placed, vm)
			}
			end := float64(i) + rng.Float64()*100
			b.add(row, end)
			w.add(row, end)
		case k < 8 && len(placed) > 0:
			vm := placed[rng.IntN(len(placed))]
			if rng.IntN(3) == 0 {
				b.evict(vm, float64(i))
				w.evict(vm, float64(i))
			} else {
				b.close(vm)
				w.close(vm)
			}
		case k < 9:
			vm := int64(rng.IntN(i + 1))
			if x, y := b.endOf(vm), w.endOf(vm); x != y {
				t.Fatalf("change %d: endOf(%d) = %v in line, %v on the goroutine", i, vm, x, y)
			}
		default:
			vm := int64(rng.IntN(i + 1)) // perhaps rejected, departed or never seen
			b.close(vm)
			w.close(vm)
		}
	}
	if _, err := b.finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.finish(); err != nil {
		t.Fatal(err)
	}
	if w.b.seq != b.seq || w.b.peak != b.peak {
		t.Fatalf("seq %d peak %d on the goroutine, %d %d in line", w.b.seq, w.b.peak, b.seq, b.peak)
	}
	if len(inLine.batches) < 100 || !reflect.DeepEqual(inLine.batches, async.batches) {
		t.Fatalf("%d batches in line, %d on the goroutine, or they differ", len(inLine.batches), len(async.batches))
	}
}

// recordSink keeps every batch it is handed, copied.
type recordSink struct{ batches [][]PlacementRow }

func (r *recordSink) Placements(rows []PlacementRow) error {
	r.batches = append(r.batches, slices.Clone(rows))
	return nil
}

// TestReplayStopsItsBookBeforeReturning: a replay cancelled while rows are
// on their way to its sink returns only after its row book's goroutine has
// stopped, so the caller may close the sink at once (analysis.Run does:
// a later batch would be sent on a closed channel). The sink cancels the
// replay at its first batch and counts the batches that come after the
// replay returned.
func TestReplayStopsItsBookBeforeReturning(t *testing.T) {
	defer func(b, s int) { bookBatch, sinkBatch = b, s }(bookBatch, sinkBatch)
	bookBatch, sinkBatch = 5, 3
	tr := streamTrace(t)
	n, span := len(tr.VMs), tr.VMs[len(tr.VMs)-1].Start+1
	for k := 1; k < 4; k++ { // past 1024 requests, where the replay looks at its context
		for _, v := range tr.VMs[:n] {
			v.ID += int64(k) << 32
			v.Start += float64(k) * span
			v.End += float64(k) * span
			tr.VMs = append(tr.VMs, v)
		}
	}
	for rep := 0; rep < 20; rep++ {
		alloc, err := NewAllocator("protean", tr, optimizer.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		sink := &lateSink{cancel: cancel}
		o := DefaultReplayOptions()
		o.Sink = sink
		_, err = Replay(ctx, tr, alloc, o)
		sink.returned.Store(true)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("replay: %v, want it cancelled", err)
		}
		time.Sleep(time.Millisecond)
		if n := sink.late.Load(); n > 0 {
			t.Fatalf("rep %d: %d batches reached the sink after the replay returned", rep, n)
		}
	}
}

// lateSink cancels its replay at the first batch and counts the batches it
// gets once returned is set.
type lateSink struct {
	cancel   func()
	n        int
	returned atomic.Bool
	late     atomic.Int32
}

func (s *lateSink) Placements(rows []PlacementRow) error {
	if s.returned.Load() {
		s.late.Add(1)
	}
	if s.n++; s.n == 1 {
		s.cancel()
	}
	return nil
}

package timing

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"placelab/analysis/replay"
	"slices"
	"testing"
	"time"

	"placelab/optimizer"
)

// BenchmarkAllocator is the grid of Protean §6.2's scaling study: machines ×
// cache on/off, full rule set with explanations, one agent, the synthetic
// trace's type locality. Setup places the population alive at t = 0
// (untimed) and fails unless it placed VMs; each iteration is then one
// arriving request with everything the allocator does for it, as in
// `placelab bench allocator`: the departures due before it, the background
// cache refresh when the trace left the engine idle (cache on), and the
// decision. When the day's arrivals run out the zone is warmed up again
// with the timer stopped. placements/s is VMs placed over the timed wall
// time. Sizes beyond 10k run with PLACELAB_LONG=1.
func BenchmarkAllocator(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("PLACELAB_LONG") != "" {
		sizes = append(sizes, 30000, 100000)
	}
	ctx := context.Background()
	for _, n := range sizes {
		tr, err := Zone(ctx, n, 1)
		if err != nil {
			b.Fatal(err)
		}
		w, err := newBenchWorkload(tr, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, cache := range []bool{true, false} {
			b.Run(fmt.Sprintf("machines=%d/cache=%v", n, cache), func(b *testing.B) {
				cfg := optimizer.DefaultConfig()
				cfg.Cache = cache
				cfg.Weights = replay.ScarcityWeights(tr)
				warm := func() *allocatorRun {
					run, err := w.start(cfg, time.Now)
					if err != nil {
						b.Fatal(err)
					}
					if run.stats.State().Len() == 0 {
						b.Fatal("warm-up placed no VM before timing")
					}
					return run
				}
				run := warm()
				placed := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if run.next >= w.stop {
						b.StopTimer()
						placed += run.arm.Placements
						run = warm()
						b.StartTimer()
					}
					if err := run.loop.Next(ctx, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				placed += run.arm.Placements
				if placed == 0 {
					b.Fatalf("the timed loop placed none of its %d requests", b.N)
				}
				b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "placements/s")
			})
		}
	}
}

// fakeClock is a clock that moves only when the fake engine works.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time       { return c.t }
func (c *fakeClock) tick(d time.Duration) { c.t = c.t.Add(d) }

// fakeEngine costs 1 ms per decision, 10 µs per release and 1 s per
// background refresh on its clock, plus 100 µs of the refresh's work in
// the first decision after it (IdleUpkeep), and refuses every fifth
// request.
type fakeEngine struct {
	clk                 *fakeClock
	refreshes, releases int
	allocated, refused  int
	owed                bool
	idle                time.Duration
}

const (
	fakeDecision = time.Millisecond
	fakeRelease  = 10 * time.Microsecond
	fakeRefresh  = time.Second
	fakeIdle     = 100 * time.Microsecond
)

func (f *fakeEngine) Allocate(r *optimizer.Request) optimizer.Decision {
	f.clk.tick(fakeDecision)
	if f.owed {
		f.clk.tick(fakeIdle)
		f.idle += fakeIdle
		f.owed = false
	}
	f.allocated++
	d := optimizer.Decision{Request: r.ID}
	if r.ID%5 == 0 {
		f.refused++
		return d
	}
	d.OK = true
	for _, v := range r.VMs {
		d.Placements = append(d.Placements, optimizer.Placement{VM: v.ID})
	}
	return d
}

func (f *fakeEngine) Release(optimizer.VMID) bool {
	f.clk.tick(fakeRelease)
	f.releases++
	return true
}

func (f *fakeEngine) Refresh(int) int {
	f.clk.tick(fakeRefresh)
	f.refreshes++
	f.owed = true
	return 3
}

func (f *fakeEngine) IdleUpkeep() int64 { return int64(f.idle) }

// fakeRequests are n requests of 1–3 VMs, gaps alternating 0.25 s, 0.5 s
// and 2 s (one idle gap in three), each VM living 1.5 s.
func fakeRequests(n int) ([]optimizer.Request, map[int64]float64) {
	reqs := make([]optimizer.Request, n)
	end := map[int64]float64{}
	t, id := 0.0, int64(0)
	for i := range reqs {
		t += []float64{0.25, 0.5, 2}[i%3]
		reqs[i] = optimizer.Request{ID: int64(i), Time: t}
		for k := 0; k <= i%3; k++ {
			reqs[i].VMs = append(reqs[i].VMs, optimizer.VMRequest{ID: id})
			end[id] = t + 1.5
			id++
		}
	}
	return reqs, end
}

// The timed section holds the upkeep: on a clock that only the engine
// moves, the wall time is exactly decisions + releases + refreshes (the
// refresh's work a decision applied counted as refresh, not decision), and
// throughput is placements over that wall time (not 1 / mean decision
// latency, nor VMs over time in Allocate alone).
func TestAllocatorRunTimesUpkeep(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	eng := &fakeEngine{clk: clk}
	reqs, end := fakeRequests(30)
	run := newAllocatorRun(eng, nil, true, reqs, end, 0, clk.now)
	a, err := run.timed(context.Background(), len(reqs))
	if err != nil {
		t.Fatal(err)
	}
	// Idle gaps counted independently from the request times.
	gaps := 0
	for i := 1; i < len(reqs); i++ {
		if reqs[i].Time-reqs[i-1].Time >= replay.RefreshGap {
			gaps++
		}
	}
	if gaps == 0 || eng.refreshes != gaps || a.Refreshes != gaps || a.RefreshedCells != int64(3*gaps) {
		t.Fatalf("refreshes: engine %d, arm %d (%d cells), idle gaps %d", eng.refreshes, a.Refreshes, a.RefreshedCells, gaps)
	}
	if eng.releases == 0 || a.Releases != eng.releases {
		t.Fatalf("releases: engine %d, arm %d", eng.releases, a.Releases)
	}
	want := (time.Duration(len(reqs))*fakeDecision + time.Duration(eng.releases)*fakeRelease + time.Duration(eng.refreshes)*(fakeRefresh+fakeIdle)).Seconds()
	if math.Abs(a.WallSeconds-want) > 1e-9 {
		t.Fatalf("wall %.6f s, want decisions + releases + refreshes = %.6f s", a.WallSeconds, want)
	}
	if math.Abs(a.RefreshSeconds-float64(gaps)*(fakeRefresh+fakeIdle).Seconds()) > 1e-9 || math.Abs(a.DecisionSeconds-0.030) > 1e-9 {
		t.Fatalf("refresh %.6f s, decision %.6f s", a.RefreshSeconds, a.DecisionSeconds)
	}
	// Placements are VMs of accepted requests (requests mix 1–3 VMs, every
	// fifth is refused).
	vms, placed := 0, 0
	for _, r := range reqs {
		vms += len(r.VMs)
		if r.ID%5 != 0 {
			placed += len(r.VMs)
		}
	}
	if a.Requests != len(reqs) || a.VMs != vms || a.Placements != placed || a.Rejected != vms-placed || placed == vms {
		t.Fatalf("arm %+v; want %d requests, %d VMs, %d placed", a, len(reqs), vms, placed)
	}
	if got, want := a.PlacementsPerWallSec, float64(placed)/want; math.Abs(got-want) > 1e-9*want {
		t.Fatalf("placements_per_wall_sec %.6f, want placements / wall = %.6f", got, want)
	}
	if got, want := a.CostPerPlacementUS, 1e6*a.WallSeconds/float64(placed); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("cost_per_placement_us %.6f, want %.6f", got, want)
	}
	if a.PlacementsPerWallSec >= 1e6/a.DecisionLatencyMeanUS {
		t.Fatalf("throughput %.1f/s not below 1/mean decision latency %.1f/s although upkeep is timed", a.PlacementsPerWallSec, 1e6/a.DecisionLatencyMeanUS)
	}
	// Without the cache there is nothing to refresh.
	clk2 := &fakeClock{t: time.Unix(0, 0)}
	eng2 := &fakeEngine{clk: clk2}
	run2 := newAllocatorRun(eng2, nil, false, reqs, end, 0, clk2.now)
	b, err := run2.timed(context.Background(), len(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if eng2.refreshes != 0 || b.Refreshes != 0 || b.Releases != a.Releases {
		t.Fatalf("cache off: %d refreshes, %d releases", eng2.refreshes, b.Releases)
	}
}

// Cache on and off are timed on the same requests (same count, same ids,
// same VMs) from the same starting state in every rep; the cache-on arm
// refreshes inside its timed section and the cache-off arm does not; the
// speedup is computed per rep and summarized by its median.
func TestCompareCacheSameRequests(t *testing.T) {
	ctx := context.Background()
	tr, err := Zone(ctx, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Machines: 300, VMs: 500, Reps: 3, Seed: 1, Explain: true}
	c, err := compareCacheOn(ctx, tr, o, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 3 || c.VMs < 500 || c.Requests < 1 || c.Requests > c.VMs {
		t.Fatalf("comparison: %d runs, %d requests, %d VMs", len(c.Runs), c.Requests, c.VMs)
	}
	// The timed set, independently: the first requests after the t = 0
	// population whose VMs reach 500.
	reqs := replay.Requests(tr, 0, math.Inf(1))
	first := slices.IndexFunc(reqs, func(r optimizer.Request) bool { return r.Time > 0 })
	var want []int64
	for i, n := first, 0; n < 500; i++ {
		want = append(want, reqs[i].ID)
		n += len(reqs[i].VMs)
	}
	var speed []float64
	for _, r := range c.Runs {
		if !slices.Equal(r.On.requestIDs, want) || !slices.Equal(r.Off.requestIDs, want) {
			t.Fatalf("rep %d: cache on timed %d requests, off %d, want the same %d (ids %d..%d)", r.Rep, len(r.On.requestIDs), len(r.Off.requestIDs), len(want), want[0], want[len(want)-1])
		}
		if r.On.VMs != c.VMs || r.Off.VMs != c.VMs || r.On.Requests != c.Requests || r.Off.Requests != c.Requests {
			t.Fatalf("rep %d: VMs %d/%d, requests %d/%d, want %d VMs in %d requests", r.Rep, r.On.VMs, r.Off.VMs, r.On.Requests, r.Off.Requests, c.VMs, c.Requests)
		}
		if r.On.startState != r.Off.startState || r.On.startState == 0 {
			t.Fatalf("rep %d: the arms started from different states", r.Rep)
		}
		if r.On.Refreshes == 0 || r.On.RefreshedCells == 0 || r.Off.Refreshes != 0 || r.On.Releases == 0 || r.On.Releases != r.Off.Releases {
			t.Fatalf("rep %d: upkeep on %d refreshes (%d cells), %d releases; off %d refreshes, %d releases", r.Rep, r.On.Refreshes, r.On.RefreshedCells, r.On.Releases, r.Off.Refreshes, r.Off.Releases)
		}
		// Upkeep in machines: every placement, departure and eviction is
		// one machine change, alike on both arms; the cache on updates
		// cells for them, the same number in every rep (the same requests
		// from the same state), and the cache off keeps none.
		if ch := int64(r.On.Placements + r.On.Releases + r.On.Evicted); r.On.MachineChanges != ch {
			t.Fatalf("rep %d: %d machine changes, want %d placements + releases + evictions", r.Rep, r.On.MachineChanges, ch)
		}
		first := c.Runs[0].On
		if r.On.CellUpdatesBackground == 0 || r.On.CellUpdatesBackground != first.CellUpdatesBackground ||
			r.On.CellUpdatesAtDecision != first.CellUpdatesAtDecision || r.Off.MachineChanges != r.On.MachineChanges ||
			r.Off.CellUpdatesBackground != 0 || r.Off.CellUpdatesAtDecision != 0 {
			t.Fatalf("rep %d: cell updates on %d + %d (rep 1: %d + %d), off %d + %d over %d changes", r.Rep, r.On.CellUpdatesBackground,
				r.On.CellUpdatesAtDecision, first.CellUpdatesBackground, first.CellUpdatesAtDecision, r.Off.CellUpdatesBackground,
				r.Off.CellUpdatesAtDecision, r.Off.MachineChanges)
		}
		if !r.SameDecisions || r.On.Placements != r.Off.Placements {
			t.Fatalf("rep %d: cache on and off decided differently (%d vs %d placed)", r.Rep, r.On.Placements, r.Off.Placements)
		}
		if r.CacheSpeedup != r.Off.WallSeconds/r.On.WallSeconds {
			t.Fatalf("rep %d: speedup %v, want off wall / on wall", r.Rep, r.CacheSpeedup)
		}
		if r.On.WallSeconds < r.On.DecisionSeconds+r.On.RefreshSeconds+r.On.ReleaseSeconds {
			t.Fatalf("rep %d: wall %.6f s shorter than its parts", r.Rep, r.On.WallSeconds)
		}
		speed = append(speed, r.CacheSpeedup)
	}
	if c.Runs[0].Order != "on,off" || c.Runs[1].Order != "off,on" {
		t.Fatalf("orders %q, %q: reps should alternate", c.Runs[0].Order, c.Runs[1].Order)
	}
	slices.Sort(speed)
	if c.CacheSpeedup != (Spread{Median: speed[1], Min: speed[0], Max: speed[2]}) {
		t.Fatalf("cache_speedup %+v, want the median and range of %v", c.CacheSpeedup, speed)
	}
}

// Options out of range are refused, not defaulted; asking for more VMs
// than the trace has is refused too.
func TestAllocatorBenchOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
	}{
		{"reps 0", func(o *Options) { o.Reps = 0 }},
		{"reps -1", func(o *Options) { o.Reps = -1 }},
		{"vms 0", func(o *Options) { o.VMs = 0 }},
		{"machines 0", func(o *Options) { o.Machines = 0 }},
	} {
		o := DefaultOptions()
		o.Machines, o.VMs = 100, 50 // small, should a check be missing
		tc.edit(&o)
		if _, err := CompareCache(context.Background(), o); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: err = %v, want ErrBenchOptions", tc.name, err)
		}
	}
	tr, err := Zone(context.Background(), 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newBenchWorkload(tr, 1<<30); !errors.Is(err, ErrOptions) {
		t.Errorf("vms beyond the trace: err = %v", err)
	}
}

// TestProductionPointSmall runs the production point's harness on a small
// zone: every arrival is timed with the cache on, the cache-off engine
// decides the first arrivals alike, and memory is reported.
func TestProductionPointSmall(t *testing.T) {
	o := ProductionOptions{Machines: 200, VMs: 4000, OffVMs: 150, Reps: 1, Seed: 3}
	p, err := RunProduction(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if p.Machines != 200 || p.ArrivingVMs == 0 || p.WarmupVMs == 0 {
		t.Fatalf("zone %d machines, %d warm-up VMs, %d arriving: the point did no real work", p.Machines, p.WarmupVMs, p.ArrivingVMs)
	}
	if p.OffVMs < o.OffVMs || p.OffVMs >= p.ArrivingVMs {
		t.Fatalf("cache off timed %d VMs, want at least %d and fewer than all %d arrivals", p.OffVMs, o.OffVMs, p.ArrivingVMs)
	}
	if !p.SameDecisions {
		t.Fatal("cache on and off decided the subset differently")
	}
	if !(p.CacheOn.PlacementsPerWallSec.Median > 0) || !(p.PeakRSSMB > 0) {
		t.Fatalf("placements per second %v, peak RSS %v MB: want both reported", p.CacheOn.PlacementsPerWallSec.Median, p.PeakRSSMB)
	}
}

// digestAllocatorArms was recorded on the bench's own timed loop before it
// became a driver of the replay loop (issue 53): the timed pass must take
// the same decisions from the same state and do the same upkeep.
const digestAllocatorArms = 0x7936d74997c90043

// TestAllocatorArmsDigest pins the timed pass's decisions (on the whole
// timed set and on a prefix), its starting state and its deterministic
// counts, cache on and off.
func TestAllocatorArmsDigest(t *testing.T) {
	ctx := context.Background()
	tr, err := Zone(ctx, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newBenchWorkload(tr, 600)
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	for _, cache := range []bool{true, false} {
		cfg := optimizer.DefaultConfig()
		cfg.Seed, cfg.Cache, cfg.Weights = 1, cache, replay.ScarcityWeights(tr)
		a, err := w.measure(ctx, cfg, time.Now, w.stop, w.warm+(w.stop-w.warm)/2)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%v %x %x %x %v %d %d %d %d %d %d %d %d %d %d %d\n", a.Cache, a.decisions, a.prefix, a.startState, a.requestIDs,
			a.Requests, a.VMs, a.Placements, a.Rejected, a.Evicted, a.Releases, a.Refreshes, a.RefreshedCells,
			a.MachineChanges, a.CellUpdatesBackground, a.CellUpdatesAtDecision)
	}
	if got := h.Sum64(); got != digestAllocatorArms {
		t.Fatalf("digest %#x, recorded %#x: the timed pass decides or upkeeps differently than before", got, uint64(digestAllocatorArms))
	}
}

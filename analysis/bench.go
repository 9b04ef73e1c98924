package analysis

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"placelab/datasets/synth"
	"placelab/optimizer"
	store "placelab/sql"
)

// BenchZone generates a synthetic zone of the given size with a one-day
// trace (the initial population fills Load of its cores), loads it through
// an in-memory DuckDB exactly as a replay would, and returns the trace.
func BenchZone(ctx context.Context, machines int, seed uint64) (*Trace, error) {
	cfg := synth.DefaultConfig()
	cfg.Machines = machines
	cfg.Seed = seed
	cfg.Days = 1
	cfg.SeriesVMs = 0
	// Enough VMs for the initial population at Load plus a day of arrivals.
	cfg.VMs = machines * 12
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := synth.Ingest(ctx, db, "bench", "bench", cfg); err != nil {
		return nil, err
	}
	return LoadTrace(ctx, db, "bench", math.Inf(-1), math.Inf(1))
}

// AllocatorBench is one measurement of the allocator on a zone.
type AllocatorBench struct {
	Machines         int     `json:"machines"`
	Cache            bool    `json:"cache"`
	WarmupVMs        int     `json:"warmup_vms"`
	MeasuredVMs      int     `json:"measured_vms"`
	LatencyP50US     float64 `json:"latency_p50_us"`
	LatencyP99US     float64 `json:"latency_p99_us"`
	MeanUS           float64 `json:"mean_us"`
	PlacementsPerSec float64 `json:"placements_per_sec"`
	CacheHitRate     float64 `json:"cache_hit_rate"`
	MemoryMB         float64 `json:"memory_mb"`
	Rejected         int     `json:"rejected"`
}

// BenchAllocator places the trace's initial population (untimed warm-up:
// every VM alive at t = 0, placed by the cached engine, whose decisions
// equal the uncached one's) and then times `measure` arrival requests with
// their departures through the engine configured by cfg, reporting per-VM
// latency (a request's time divided by its VMs). As in a replay, the cached
// engine refreshes its caches when the trace leaves it idle. Memory is the heap the
// agent holds (state and caches) after the run.
func BenchAllocator(ctx context.Context, tr *Trace, cfg optimizer.Config, measure int) (AllocatorBench, error) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	cfg.Weights = ScarcityWeights(tr)
	warmCfg := cfg
	warmCfg.Cache = true
	state := optimizer.NewState(tr.Inv)
	warmer, err := optimizer.NewProtean(state, warmCfg, optimizer.DefaultRules())
	if err != nil {
		return AllocatorBench{}, err
	}
	reqs := Requests(tr, 0, math.Inf(1))
	end := make(map[int64]float64, len(tr.VMs))
	for _, v := range tr.VMs {
		end[v.ID] = v.End
	}
	var deps depHeap
	push := func(d optimizer.Decision) {
		for _, p := range d.Placements {
			if e := end[p.VM]; !math.IsInf(e, 1) {
				heap.Push(&deps, departure{e, p.VM})
			}
		}
	}
	b := AllocatorBench{Machines: len(tr.Inv.Machines), Cache: cfg.Cache}
	i := 0
	for ; i < len(reqs) && reqs[i].Time <= 0; i++ {
		push(warmer.Allocate(&reqs[i]))
		b.WarmupVMs += len(reqs[i].VMs)
	}
	if b.WarmupVMs == 0 {
		return b, fmt.Errorf("analysis: bench zone has no initial population")
	}
	alloc := warmer
	if !cfg.Cache {
		if alloc, err = optimizer.NewProtean(state, cfg, optimizer.DefaultRules()); err != nil {
			return b, err
		}
	}
	var lat []float64
	var sum float64
	for n := 0; i < len(reqs) && n < measure; i, n = i+1, n+1 {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return b, err
			}
		}
		r := &reqs[i]
		if cfg.Cache && i > 0 && r.Time-reqs[i-1].Time >= RefreshGap {
			alloc.Refresh(RefreshEvals) // idle time: background update, untimed (§5.2.4)
		}
		for deps.Len() > 0 && deps[0].t <= r.Time {
			alloc.Release(heap.Pop(&deps).(departure).vm)
		}
		t0 := time.Now()
		d := alloc.Allocate(r)
		us := float64(time.Since(t0).Nanoseconds()) / 1e3 / float64(len(r.VMs))
		for range r.VMs {
			lat = append(lat, us)
			sum += us
		}
		if !d.OK {
			b.Rejected += len(r.VMs)
		}
		push(d)
	}
	if len(lat) == 0 {
		return b, fmt.Errorf("analysis: bench measured no VMs")
	}
	b.MeasuredVMs = len(lat)
	b.LatencyP50US = quantile(lat, 0.5)
	b.LatencyP99US = quantile(lat, 0.99)
	b.MeanUS = sum / float64(len(lat))
	b.PlacementsPerSec = 1e6 / b.MeanUS
	b.CacheHitRate = alloc.CacheStats()["RuleEvaluation"].HitRate()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(alloc)
	runtime.KeepAlive(warmer)
	b.MemoryMB = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
	return b, nil
}

// AllocatorComparison is what `placelab bench allocator` prints.
type AllocatorComparison struct {
	Machines            int            `json:"machines"`
	Explain             bool           `json:"explain"`
	LatencyP50US        float64        `json:"latency_p50_us"`
	LatencyP99US        float64        `json:"latency_p99_us"`
	PlacementsPerSec    float64        `json:"placements_per_sec"`
	NoCacheLatencyP50US float64        `json:"nocache_latency_p50_us"`
	NoCacheLatencyP99US float64        `json:"nocache_latency_p99_us"`
	NoCachePlacementsPS float64        `json:"nocache_placements_per_sec"`
	CacheSpeedup        float64        `json:"cache_speedup"`
	CacheHitRate        float64        `json:"cache_hit_rate"`
	MemoryMB            float64        `json:"memory_mb"`
	Seconds             float64        `json:"seconds"`
	On                  AllocatorBench `json:"cache_on"`
	Off                 AllocatorBench `json:"cache_off"`
}

// CompareCache measures the same engine with the cache on and off on one
// zone in the same run; cache_speedup is the ratio of mean time per VM.
func CompareCache(ctx context.Context, machines int, measureOn, measureOff int, seed uint64, explain bool) (AllocatorComparison, error) {
	start := time.Now()
	tr, err := BenchZone(ctx, machines, seed)
	if err != nil {
		return AllocatorComparison{}, err
	}
	cfg := optimizer.DefaultConfig()
	cfg.Seed = seed
	cfg.Explain = explain
	on, err := BenchAllocator(ctx, tr, cfg, measureOn)
	if err != nil {
		return AllocatorComparison{}, err
	}
	cfg.Cache = false
	off, err := BenchAllocator(ctx, tr, cfg, measureOff)
	if err != nil {
		return AllocatorComparison{}, err
	}
	return AllocatorComparison{
		Machines: len(tr.Inv.Machines), Explain: explain, LatencyP50US: on.LatencyP50US, LatencyP99US: on.LatencyP99US,
		PlacementsPerSec: on.PlacementsPerSec, NoCacheLatencyP50US: off.LatencyP50US, NoCacheLatencyP99US: off.LatencyP99US,
		NoCachePlacementsPS: off.PlacementsPerSec, CacheSpeedup: off.MeanUS / on.MeanUS, CacheHitRate: on.CacheHitRate,
		MemoryMB: on.MemoryMB, Seconds: time.Since(start).Seconds(), On: on, Off: off,
	}, nil
}

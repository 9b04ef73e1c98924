package experiments

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"placelab/analysis"
	"placelab/datasets/synth"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// zones caches the scratch databases of generated zones within a process:
// the points of a grid that share a zone generate it once.
var zones struct {
	sync.Mutex
	m map[string]*store.DB
}

// scratchZone returns an in-memory database holding the synthetic zone and
// trace of cfg as dataset "zone".
func scratchZone(ctx context.Context, cfg synth.Config) (*store.DB, error) {
	key := fmt.Sprintf("%+v", cfg)
	zones.Lock()
	defer zones.Unlock()
	if db, ok := zones.m[key]; ok {
		return db, nil
	}
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	if err := synth.Ingest(ctx, db, "zone", "experiment", cfg); err != nil {
		db.Close()
		return nil, err
	}
	if zones.m == nil {
		zones.m = map[string]*store.DB{}
	}
	zones.m[key] = db
	return db, nil
}

// zoneConfig is the synthetic zone of the Protean experiments: the demo's
// 5,000 machines over 14 days, or 600 machines over 2 days when quick; the
// zone starts 85% allocated so that the rules decide something.
func zoneConfig(quick bool, seed uint64) synth.Config {
	cfg := synth.DefaultConfig()
	cfg.Seed, cfg.SeriesVMs, cfg.Load = seed, 0, 0.85
	if quick {
		cfg.Machines, cfg.VMs, cfg.Days = 600, 12000, 2
	}
	return cfg
}

func init() {
	register(&Experiment{
		Name: "buckets", Title: "BestFit buckets: packing against robustness",
		Reproduces: "Protean Table 5", FullTime: "about 25 minutes (6 points × 1 seed, 5,000 machines, 14 days, LP bound every 12 h)",
		Points: func(quick bool) []Point {
			return grid([]axis{{"buckets", vals(1, 2, 3, 4, 5, 0)}}, []uint64{1})
		},
		Paper: proteanTable5,
		Run:   runBuckets,
	})
	register(&Experiment{
		Name: "inventory-scaling", Title: "Latency and memory against inventory size, cache on and off",
		Reproduces: "Protean Figs 11–12", FullTime: "about 6 minutes (4 sizes up to 30,000 machines)",
		Points: func(quick bool) []Point {
			if quick {
				return grid([]axis{{"machines", vals(1000, 3000)}}, []uint64{1})
			}
			return grid([]axis{{"machines", vals(1000, 5000, 10000, 30000)}}, []uint64{1})
		},
		Run: func(ctx context.Context, _ *store.DB, p Point, quick bool) ([]analysis.MetricRow, error) {
			on, off := 20000, 500
			if quick {
				on, off = 3000, 200
			}
			c, err := analysis.CompareCache(ctx, p.Params["machines"].(int), on, off, p.Seed, false)
			if err != nil {
				return nil, err
			}
			return []analysis.MetricRow{fig("latency_p50_us", c.LatencyP50US), fig("latency_p99_us", c.LatencyP99US),
				fig("nocache_latency_p50_us", c.NoCacheLatencyP50US), fig("nocache_latency_p99_us", c.NoCacheLatencyP99US),
				fig("cache_speedup_x", c.CacheSpeedup), fig("memory_mb", c.MemoryMB), fig("cache_hit_rate", c.CacheHitRate)}, nil
		},
	})
	register(&Experiment{
		Name: "agents", Title: "Concurrent agents: span of a spike, conflicts and throughput",
		Reproduces: "Protean Figs 13–15", FullTime: "about 8 minutes (4 agent counts × 3 speed-ups)",
		Points: func(quick bool) []Point {
			if quick {
				return grid([]axis{{"agents", vals(1, 4)}, {"speedup", vals(10.0)}}, []uint64{1})
			}
			return grid([]axis{{"agents", vals(1, 2, 4, 8)}, {"speedup", vals(1.0, 10.0, 100.0)}}, []uint64{1})
		},
		Run: runAgents,
	})
}

func loadZone(ctx context.Context, quick bool, seed uint64) (*store.DB, *analysis.Trace, error) {
	db, err := scratchZone(ctx, zoneConfig(quick, seed))
	if err != nil {
		return nil, nil, err
	}
	tr, err := analysis.LoadTrace(ctx, db, "zone", math.Inf(-1), math.Inf(1))
	return db, tr, err
}

// runBuckets replays the zone through Protean with the point's number of
// BestFit buckets, once with one agent (packing density, candidates left
// after BestFit, LP-bound density beside it) and once with four agents in
// simulated time (p99 conflicts per minute).
func runBuckets(ctx context.Context, _ *store.DB, p Point, quick bool) ([]analysis.MetricRow, error) {
	zdb, tr, err := loadZone(ctx, quick, p.Seed)
	if err != nil {
		return nil, err
	}
	cfg := optimizer.DefaultConfig()
	// Explanations on: candidates left after BestFit come from them.
	cfg.Buckets, cfg.Seed, cfg.Weights, cfg.Explain = p.Params["buckets"].(int), p.Seed, analysis.ScarcityWeights(tr), true
	alloc, err := analysis.NewAllocator("protean", tr, cfg)
	if err != nil {
		return nil, err
	}
	res, err := analysis.Replay(ctx, tr, alloc, analysis.ReplayOptions{Interval: 3600})
	if err != nil {
		return nil, err
	}
	id, err := analysis.WriteRun(ctx, zdb, analysis.RunMeta{Engine: "replay", Policy: "protean", Dataset: "zone", Seed: p.Seed, Params: p.Params}, res)
	if err != nil {
		return nil, err
	}
	every := 12 * 3600.0
	if quick {
		every = 24 * 3600
	}
	lp, err := analysis.LPBoundRun(ctx, zdb, id, every, lpbound.Options{TimeLimit: lpTimeLimit(quick)}, nil)
	if err != nil {
		return nil, err
	}
	var bound, n float64
	for _, s := range lp.Snapshots {
		if s.VMs > 0 {
			bound += s.BoundDensity
			n++
		}
	}
	cfg.Explain = false
	ag, err := analysis.ReplayAgents(ctx, tr, cfg, analysis.AgentOptions{ReplayOptions: analysis.ReplayOptions{Interval: 3600, Seed: p.Seed},
		Agents: 4, TimeModel: "sim", Speedup: 10, HitRate: analysis.DefaultHitRate, HitMS: analysis.DefaultHitMS,
		MissMS: analysis.DefaultMissMS, MaxRetries: 3, Avoid: true})
	if err != nil {
		return nil, err
	}
	return []analysis.MetricRow{
		fig("pd_pct", 100*res.Summary.PackingDensityMean), fig("post_bestfit_pct", res.Summary.PostBestFitPct),
		fig("rejected", float64(res.Summary.Rejected)), fig("lp_bound_density_pct", 100*bound/math.Max(n, 1)),
		fig("lp_gap_pct", 100*lp.MeanGap), fig("conflicts_p99_per_min", 60*ag.Summary.ConflictsP99PerS),
		fig("conflicts", float64(ag.Summary.Conflicts)), fig("conflicts_per_min_mean", float64(ag.Summary.Conflicts)/math.Max(1, traceMinutes(tr))),
	}, nil
}

// traceMinutes is the span of a trace's arrivals in minutes.
func traceMinutes(tr *analysis.Trace) float64 {
	var hi float64
	for _, v := range tr.VMs {
		hi = math.Max(hi, v.Start)
	}
	return hi / 60
}

// lpTimeLimit bounds each LP solve; the bound stays valid when it runs out.
func lpTimeLimit(quick bool) time.Duration {
	if quick {
		return 2 * time.Second
	}
	return 30 * time.Second
}

// runAgents replays the zone with the point's agents and speed-up in
// simulated time: the span of the largest burst, conflicts per second at
// p99, throughput at p99 and the share of requests rejected.
func runAgents(ctx context.Context, _ *store.DB, p Point, quick bool) ([]analysis.MetricRow, error) {
	_, tr, err := loadZone(ctx, quick, p.Seed)
	if err != nil {
		return nil, err
	}
	cfg := optimizer.DefaultConfig()
	cfg.Seed, cfg.Weights, cfg.Explain = p.Seed, analysis.ScarcityWeights(tr), false
	res, err := analysis.ReplayAgents(ctx, tr, cfg, analysis.AgentOptions{ReplayOptions: analysis.ReplayOptions{Interval: 3600, Seed: p.Seed},
		Agents: p.Params["agents"].(int), TimeModel: "sim", Speedup: p.Params["speedup"].(float64), HitRate: analysis.DefaultHitRate,
		HitMS: analysis.DefaultHitMS, MissMS: analysis.DefaultMissMS, MaxRetries: 3, Avoid: true})
	if err != nil {
		return nil, err
	}
	s := res.Summary
	return []analysis.MetricRow{fig("burst_span_s", s.BurstSpanS), fig("conflicts", float64(s.Conflicts)),
		fig("conflicts_p99_per_s", s.ConflictsP99PerS), fig("throughput_p99_per_s", s.ThroughputP99PerS),
		fig("rejection_rate_pct", 100*s.RejectionRate), fig("retries", float64(s.Retries))}, nil
}

package experiments

import (
	"context"
	"fmt"
	"math"
	"placelab/analysis/lpinterval"
	"placelab/analysis/replay"
	"placelab/analysis/timing"
	"sync"
	"time"

	"placelab/analysis"
	"placelab/datasets/synth"
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
		Reproduces: "Protean Table 5", FullTime: "about 25 minutes (6 points × 1 seed, 5,000 machines, 14 days, LP interval every 12 h)",
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
		Timings: []string{"latency_p50_us", "latency_p99_us", "nocache_latency_p50_us", "nocache_latency_p99_us",
			"cost_per_placement_us", "nocache_cost_per_placement_us", "cache_speedup_x", "memory_mb"},
		Run: func(ctx context.Context, _ *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
			// Cache on and off on the same requests, one rep per seed; the
			// latencies are decision-only (as Figs 11–12 plot), the cost
			// per placement and the speedup include the cache upkeep.
			o := timing.DefaultOptions()
			o.Machines, o.Seed, o.Explain, o.Reps, o.VMs = p.Params["machines"].(int), p.Seed, false, 1, 5000
			if quick {
				o.VMs = 1000
			}
			c, err := timing.CompareCache(ctx, o)
			if err != nil {
				return nil, err
			}
			on, off := c.CacheOn, c.CacheOff
			return []replay.MetricRow{fig("latency_p50_us", on.DecisionLatencyP50US.Median), fig("latency_p99_us", on.DecisionLatencyP99US.Median),
				fig("nocache_latency_p50_us", off.DecisionLatencyP50US.Median), fig("nocache_latency_p99_us", off.DecisionLatencyP99US.Median),
				fig("cost_per_placement_us", on.CostPerPlacementUS.Median), fig("nocache_cost_per_placement_us", off.CostPerPlacementUS.Median),
				fig("cache_speedup_x", c.CacheSpeedup.Median), fig("memory_mb", on.MemoryMB.Median), fig("cache_hit_rate", on.CacheHitRate.Median)}, nil
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

func loadZone(ctx context.Context, quick bool, seed uint64) (*store.DB, *replay.Trace, error) {
	db, err := scratchZone(ctx, zoneConfig(quick, seed))
	if err != nil {
		return nil, nil, err
	}
	tr, err := analysis.LoadTrace(ctx, db, "zone", math.Inf(-1), math.Inf(1))
	return db, tr, err
}

// runBuckets replays the zone through Protean with the point's number of
// BestFit buckets, once with one agent (packing density, candidates left
// after BestFit, and beside them the LP interval on density — a packing as
// dense as lp_lb_density_pct exists, none is denser than lp_ub_density_pct
// — with the policy's own density at the same snapshots) and once with four
// agents in simulated time (p99 conflicts per minute).
func runBuckets(ctx context.Context, _ *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
	zdb, _, err := loadZone(ctx, quick, p.Seed)
	if err != nil {
		return nil, err
	}
	// Candidates left after BestFit are counted by the engine, explanations
	// on or off.
	spec := analysis.DefaultSpec("zone")
	spec.Engine.Buckets, spec.Engine.Seed = p.Params["buckets"].(int), p.Seed
	res, err := analysis.Run(ctx, zdb, spec, analysis.RunOptions{Version: "experiment"})
	if err != nil {
		return nil, err
	}
	storedReplay(ctx, zdb, res.Summary.RunID)
	if res.Summary.PostBestFitPct == nil {
		return nil, fmt.Errorf("experiments: buckets: run %d ranked no VM by BestFit: post_bestfit_pct not measured", res.Summary.RunID)
	}
	lo := lpinterval.DefaultOptions()
	lo.Every, lo.Packings, lo.Solve.TimeLimit = lpEvery(quick), lpinterval.PackingsNone, lpTimeLimit(quick)
	lp, err := lpinterval.Run(ctx, zdb, lo.For(res.Summary.RunID))
	if err != nil {
		return nil, err
	}
	// Means over the snapshots that hold VMs (an empty one has no density).
	if lp.Bounded == 0 {
		return nil, fmt.Errorf("experiments: buckets: no LP snapshot of run %d holds VMs", res.Summary.RunID)
	}
	// Conflicts: four agents of the paper's model (§6.2: 20 retries,
	// avoidance among the top 100 over a window of 50 commits) in simulated
	// time, the trace ten times faster.
	aspec := spec.WithAgents(4, replay.TimeSim)
	aspec.Agents.Speedup = agentsSpeedup
	ag, err := analysis.Run(ctx, zdb, aspec, analysis.RunOptions{NoWrite: true})
	if err != nil {
		return nil, err
	}
	return []replay.MetricRow{
		fig("pd_pct", 100*res.Summary.PackingDensityMean), fig("post_bestfit_pct", *res.Summary.PostBestFitPct),
		fig("rejected", float64(res.Summary.Rejected)), fig("lp_lb_density_pct", 100*lp.MeanLBDensity), fig("lp_ub_density_pct", 100*lp.MeanUBDensity),
		fig("lp_online_density_pct", 100*lp.MeanOnlineDensity), fig("conflicts_p99_per_min", ag.Summary.ConflictsP99PerMin),
		fig("conflicts", float64(ag.Summary.Conflicts)), fig("avoidance_activations", float64(ag.Summary.AvoidanceActivations)),
	}, nil
}

// agentsSpeedup is how much faster than the trace the buckets experiment's
// agents run, so that a quick zone has enough concurrency to conflict.
const agentsSpeedup = 10

// lpEvery is the time between the buckets experiment's LP snapshots.
func lpEvery(quick bool) float64 {
	if quick {
		return 24 * 3600
	}
	return 12 * 3600
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
func runAgents(ctx context.Context, _ *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
	zdb, _, err := loadZone(ctx, quick, p.Seed)
	if err != nil {
		return nil, err
	}
	spec := analysis.DefaultSpec("zone").WithAgents(p.Params["agents"].(int), replay.TimeSim)
	spec.Engine.Seed = p.Seed
	spec.Agents.Speedup = p.Params["speedup"].(float64)
	res, err := analysis.Run(ctx, zdb, spec, analysis.RunOptions{NoWrite: true})
	if err != nil {
		return nil, err
	}
	s := res.Summary
	return []replay.MetricRow{fig("burst_span_s", s.BurstSpanS), fig("conflicts", float64(s.Conflicts)),
		fig("conflicts_p99_per_s", s.ConflictsP99PerS), fig("throughput_p99_per_s", s.ThroughputP99PerS),
		fig("rejection_rate_pct", 100*s.RejectionRate), fig("retries", float64(s.Retries)),
		fig("avoidance_activations", float64(s.AvoidanceActivations))}, nil
}

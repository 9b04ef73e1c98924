package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer"
)

func engineFlags() []cli.Flag {
	def := optimizer.DefaultConfig()
	return []cli.Flag{
		&cli.StringFlag{Name: "policy", Aliases: []string{"p"}, Value: "protean", Usage: "allocator: " + strings.Join(analysis.Policies, ", ")},
		&cli.StringFlag{Name: "buckets", Value: strconv.Itoa(def.Buckets), Usage: "BestFit quantization buckets `N` (\"inf\" for none)"},
		&cli.IntFlag{Name: "k", Value: def.K, Usage: "clusters passed to machine selection"},
		&cli.StringFlag{Name: "cache", Value: "on", Usage: "Protean's cache hierarchy: on or off"},
		&cli.StringFlag{Name: "buffers", Value: "0,0,0", Usage: "cluster buffers as empty machines: `NEW,SCALEOUT,HEAL`"},
		&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "seed of the random tie-breaks"},
		&cli.BoolFlag{Name: "no-evict", Usage: "never evict low-priority VMs for high-priority ones"},
		&cli.BoolFlag{Name: "no-explain", Usage: "record no explanations (faster; placelab explain then has nothing to show)"},
		&cli.StringFlag{Name: "safety", Value: "off", Usage: "place low-priority VMs by the slides' safety score: on or off"},
		&cli.Float64Flag{Name: "top-pct", Value: optimizer.DefaultTopPct, Usage: "share X of best-packing candidates among which eviction cost (or safety) decides"},
	}
}

// engineConfig reads the engine flags.
func engineConfig(c *cli.Context) (optimizer.Config, error) {
	cfg := optimizer.DefaultConfig()
	cfg.K = c.Int("k")
	cfg.Seed = c.Uint64("seed")
	cfg.Evict = !c.Bool("no-evict")
	cfg.Explain = !c.Bool("no-explain")
	cfg.TopPct = c.Float64("top-pct")
	switch c.String("safety") {
	case "on":
		cfg.Safety = true
	case "off":
	default:
		return cfg, fmt.Errorf("--safety %q: want on or off", c.String("safety"))
	}
	switch b := c.String("buckets"); b {
	case "inf", "∞", "0":
		cfg.Buckets = 0
	default:
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("--buckets %q: want a positive integer or inf", b)
		}
		cfg.Buckets = n
	}
	switch c.String("cache") {
	case "on":
		cfg.Cache = true
	case "off":
		cfg.Cache = false
	default:
		return cfg, fmt.Errorf("--cache %q: want on or off", c.String("cache"))
	}
	parts := strings.Split(c.String("buffers"), ",")
	if len(parts) != 3 {
		return cfg, fmt.Errorf("--buffers %q: want NEW,SCALEOUT,HEAL (empty machines per cluster)", c.String("buffers"))
	}
	var b [3]int32
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("--buffers %q: %q is not a count of machines", c.String("buffers"), p)
		}
		b[i] = int32(n)
	}
	cfg.Buffers = optimizer.Buffers{NewDeployment: b[0], ScaleOut: b[1], Healing: b[2]}
	pol := c.String("policy")
	ok := false
	for _, p := range analysis.Policies {
		ok = ok || p == pol
	}
	if !ok {
		return cfg, fmt.Errorf("--policy %q: want one of %s", pol, strings.Join(analysis.Policies, ", "))
	}
	return cfg, cfg.Validate()
}

// parseTime reads a trace time: seconds ("3600"), or a number with a unit
// (s, m, h, d), e.g. "36h", "2.5d". Empty means unbounded (def).
func parseTime(s string, def float64) (float64, error) {
	if s == "" {
		return def, nil
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "d"):
		mult, s = 86400, strings.TrimSuffix(s, "d")
	case strings.HasSuffix(s, "h"):
		mult, s = 3600, strings.TrimSuffix(s, "h")
	case strings.HasSuffix(s, "m"):
		mult, s = 60, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("time %q: want seconds or a number with s, m, h or d", s)
	}
	return v * mult, nil
}

func replayCommand() *cli.Command {
	flags := append(engineFlags(),
		&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "synthetic", Usage: "dataset `NAME` to replay (it needs machines)"},
		&cli.StringFlag{Name: "from", Usage: "start of the window (e.g. 0, 36h, 2d); VMs alive then are placed first"},
		&cli.StringFlag{Name: "to", Usage: "end of the window (default: the end of the trace)"},
		&cli.StringFlag{Name: "interval", Value: "1h", Usage: "metric sampling interval"},
		&cli.IntFlag{Name: "agents", Value: 1, Usage: "allocation agents on stale views committing to one store (Protean §4)"},
		&cli.StringFlag{Name: "time", Value: "sim", Usage: "with --agents: sim (simulated time, deterministic) or real (goroutines, wall clock)"},
		&cli.Float64Flag{Name: "speedup", Value: 1, Usage: "simulated time: run the trace this many times faster (1..1000)"},
		&cli.Float64Flag{Name: "hit-rate", Value: analysis.DefaultHitRate, Usage: "simulated time: probability an evaluation hits the cache"},
		&cli.Float64Flag{Name: "hit-ms", Value: analysis.DefaultHitMS, Usage: "simulated time: cost of a cache hit (ms)"},
		&cli.Float64Flag{Name: "miss-ms", Value: analysis.DefaultMissMS, Usage: "simulated time: cost of a cache miss (ms)"},
		&cli.Float64Flag{Name: "commit-ms", Value: analysis.DefaultCommitMS, Usage: "simulated time: commit round trip (pipelined: the agent moves on)"},
		&cli.IntFlag{Name: "max-retries", Value: optimizer.DefaultMaxRetries, Usage: "conflicting commits before a request is rejected"},
		&cli.IntFlag{Name: "window", Value: optimizer.DefaultWindow, Usage: "commits in the conflict-ratio window"},
		&cli.IntFlag{Name: "n0", Value: optimizer.DefaultN0, Usage: "machines the conflict-avoidance scheme picks among"},
		&cli.StringFlag{Name: "avoid", Value: "on", Usage: "conflict avoidance: on or off"},
		formatFlag("table", "json"),
	)
	return &cli.Command{
		Name:  "replay",
		Usage: "replay a loaded trace through an allocator and store the run",
		Description: `Replays the arrivals and departures of --dataset in time order through the
allocator --policy (protean: the rule-based allocator of Protean §3-5; firstfit,
bestfit, worstfit, random: baselines that scan every machine). VMs alive at --from are
placed first; a service request is the VMs of one tenant arriving together, placed
all or nothing. A high-priority VM that fits nowhere may evict low-priority VMs
(counted; --no-evict turns it off).

Writes one run row, a placement row per VM, an explain row per VM and level, and
run_metric samples every --interval (packing density = allocated cores / cores of
non-empty machines, utilization, empty machines, acceptance, rejections, latency).

Examples:
   placelab replay
   placelab replay --policy bestfit --format json
   placelab replay --buckets inf --cache off --from 2d --to 3d
   placelab replay --dataset huawei-east-1 --policy protean --k 16`,
		Flags:  flags,
		Action: runReplay,
	}
}

func runReplay(c *cli.Context) error {
	format := c.String("format")
	if err := checkFormat(format); err != nil {
		return err
	}
	cfg, err := engineConfig(c)
	if err != nil {
		return err
	}
	from, err := parseTime(c.String("from"), math.Inf(-1))
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	to, err := parseTime(c.String("to"), math.Inf(1))
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	interval, err := parseTime(c.String("interval"), analysis.DefaultInterval)
	if err != nil || interval <= 0 {
		return fmt.Errorf("--interval %q: want a positive duration", c.String("interval"))
	}
	// Multi-agent options, checked before anything is loaded.
	useAgents := c.Int("agents") > 1 || c.IsSet("agents") || c.IsSet("time")
	opt := analysis.DefaultAgentOptions()
	if useAgents {
		if c.String("policy") != "protean" {
			return fmt.Errorf("--agents works with --policy protean")
		}
		opt.Agents, opt.TimeModel, opt.Speedup = c.Int("agents"), c.String("time"), c.Float64("speedup")
		opt.HitRate, opt.HitMS, opt.MissMS, opt.CommitMS = c.Float64("hit-rate"), c.Float64("hit-ms"), c.Float64("miss-ms"), c.Float64("commit-ms")
		opt.MaxRetries, opt.Window, opt.N0 = c.Int("max-retries"), c.Int("window"), c.Int("n0")
		switch c.String("avoid") {
		case "on":
			opt.Avoid = true
		case "off":
			opt.Avoid = false
		default:
			return fmt.Errorf("--avoid %q: want on or off", c.String("avoid"))
		}
		switch {
		case opt.Agents < 1:
			return fmt.Errorf("--agents %d: want ≥ 1", opt.Agents)
		case opt.TimeModel != analysis.TimeSim && opt.TimeModel != analysis.TimeReal:
			return fmt.Errorf("--time %q: want sim or real", opt.TimeModel)
		case opt.Speedup < 1 || opt.Speedup > 1000:
			return fmt.Errorf("--speedup %v: want 1..1000", opt.Speedup)
		case opt.HitRate < 0 || opt.HitRate > 1 || opt.HitMS < 0 || opt.MissMS < 0 || opt.CommitMS < 0:
			return fmt.Errorf("--hit-rate must be in [0, 1] and latencies ≥ 0")
		case opt.MaxRetries < 0 || opt.Window < 0 || opt.N0 < 1:
			return fmt.Errorf("--max-retries and --window must be ≥ 0, --n0 ≥ 1")
		}
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	ds := c.String("dataset")
	t0 := time.Now()
	tr, err := analysis.LoadTrace(c.Context, db, ds, from, to)
	if err != nil {
		return err
	}
	if len(tr.VMs) == 0 {
		return fmt.Errorf("replay: dataset %q has no VMs in the window", ds)
	}
	cfg.Weights = analysis.ScarcityWeights(tr)
	if cfg.Safety {
		cfg.ArrivalRates = analysis.ArrivalRates(tr)
	}
	policy := c.String("policy")
	loadSeconds := time.Since(t0).Seconds()
	bar := newProgress("replay "+policy, "", c.Bool("quiet"))
	started := time.Now()
	params := map[string]any{"k": cfg.K, "buckets": cfg.Buckets, "cache": cfg.Cache, "weights": cfg.Weights,
		"buffers": cfg.Buffers, "evict": cfg.Evict, "from": finite(from), "to": finite(to), "interval": interval,
		"safety": cfg.Safety, "top_pct": cfg.TopPct}
	var res *analysis.Result
	ropt := analysis.ReplayOptions{From: from, To: to, Interval: interval, Progress: bar.Update, Refresh: cfg.Cache, Seed: cfg.Seed}
	if useAgents {
		opt.ReplayOptions = ropt
		cfg.Explain = false // multi-agent runs record outcomes, retries and conflicts, not per-rule explanations
		res, err = analysis.ReplayAgents(c.Context, tr, cfg, opt)
		for k, v := range map[string]any{"agents": opt.Agents, "time": opt.TimeModel, "speedup": opt.Speedup, "hit_rate": opt.HitRate,
			"hit_ms": opt.HitMS, "miss_ms": opt.MissMS, "commit_ms": opt.CommitMS, "max_retries": opt.MaxRetries,
			"window": opt.Window, "n0": opt.N0, "avoid": opt.Avoid} {
			params[k] = v
		}
	} else {
		var alloc optimizer.Allocator
		if alloc, err = analysis.NewAllocator(policy, tr, cfg); err != nil {
			return err
		}
		res, err = analysis.Replay(c.Context, tr, alloc, ropt)
	}
	bar.Done()
	if err != nil {
		return err
	}
	res.Summary.LoadSeconds = loadSeconds
	t1 := time.Now()
	if _, err := analysis.WriteRun(c.Context, db, analysis.RunMeta{Engine: "replay", Policy: policy, Dataset: ds,
		Version: version, Seed: cfg.Seed, Params: params, Started: started}, res); err != nil {
		return err
	}
	res.Summary.WriteSeconds = time.Since(t1).Seconds()
	return printSummary(c, res.Summary, format)
}

func finite(v float64) any {
	if math.IsInf(v, 0) {
		return nil
	}
	return v
}

func printSummary(c *cli.Context, s analysis.Summary, format string) error {
	w := c.App.Writer
	if format == "json" {
		return printJSON(w, s)
	}
	fmt.Fprintf(w, "run %d: %s on %q — %d VMs in %d requests, %d accepted, %d rejected, %d evicted\n",
		s.RunID, s.Policy, s.Dataset, s.VMs, s.Requests, s.Accepted, s.Rejected, s.Evicted)
	fmt.Fprintf(w, "  load %.2fs  replay %.2fs  write %.2fs\n", s.LoadSeconds, s.Seconds, s.WriteSeconds)
	fmt.Fprintf(w, "  packing density %.2f%%  utilization %.2f%% (low priority %.2f%%, eviction rate %.4f)  post-BestFit candidates %.1f%%\n",
		100*s.PackingDensityMean, 100*s.UtilizationMean, 100*s.LowPriorityUtilizationMean, s.EvictionRate, s.PostBestFitPct)
	fmt.Fprintf(w, "  latency p50 %.1f µs  p99 %.1f µs  %.0f placements/s  cache hit rate %.1f%%\n",
		s.LatencyP50US, s.LatencyP99US, s.PlacementsPerSec, 100*s.CacheHitRate)
	if s.Agents > 0 {
		fmt.Fprintf(w, "  %d agents (%s time): %d conflicts (p99 %.1f/s), %d retries, rejection rate %.4f, queue delay mean %.3fs p99 %.3fs, initial burst of %d requests resolved in %.1fs, avoidance used %d times\n",
			s.Agents, s.TimeModel, s.Conflicts, s.ConflictsP99PerS, s.Retries, s.RejectionRate, s.QueueDelayMeanS, s.QueueDelayP99S, s.BurstRequests, s.BurstSpanS, s.AvoidanceActivations)
	}
	if len(s.Rules) > 0 {
		fmt.Fprintf(w, "  rule aggressiveness (share of its candidates each rule removed):\n")
		for _, r := range s.Rules {
			fmt.Fprintf(w, "    %-8s %-24s %6.2f%% of %.0f\n", r.Level, r.Rule, 100*r.RemovedShare, r.MeanGiven)
		}
	}
	keys := make([]string, 0, len(s.RejectedBy))
	for k := range s.RejectedBy {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  rejected by %-24s %d\n", k, s.RejectedBy[k])
	}
	return nil
}

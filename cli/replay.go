package main

import (
	"errors"
	"fmt"
	"math"
	"placelab/analysis/cluster"
	"placelab/analysis/replay"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/datasets/catalog"
	"placelab/optimizer"
)

func engineFlags() []cli.Flag {
	def := optimizer.DefaultConfig()
	return []cli.Flag{
		&cli.StringFlag{Name: "policy", Aliases: []string{"p"}, Value: "protean", Usage: "allocator: " + strings.Join(replay.Policies, ", ") + ", or " + cluster.KubeSchedulerPolicy + " (a Kubernetes dataset: the real scheduler, tools/kubesched)"},
		&cli.StringFlag{Name: "buckets", Value: strconv.Itoa(def.Buckets), Usage: settingUsage("buckets")},
		&cli.IntFlag{Name: "k", Value: def.K, Usage: settingUsage("k")},
		&cli.StringFlag{Name: "cache", Value: onOffString(def.Cache), Usage: settingUsage("cache")},
		&cli.StringFlag{Name: "buffers", Value: buffersString(def.Buffers), Usage: settingUsage("buffers")},
		&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: settingUsage("seed")},
		&cli.BoolFlag{Name: "no-evict", Usage: settingUsage("no-evict")},
		&cli.BoolFlag{Name: "no-explain", Usage: settingUsage("no-explain")},
		&cli.StringFlag{Name: "safety", Value: onOffString(def.Safety), Usage: settingUsage("safety")},
		&cli.Float64Flag{Name: "top-pct", Value: def.TopPct, Usage: settingUsage("top-pct")},
	}
}

// settingUsage is the usage of a setting's flag, from its row in the
// settings table (analysis.Settings): its help and the marks of where it
// applies ("Protean only", "with --agents") and its paper section.
func settingUsage(flag string) string {
	st, ok := analysis.SettingOf(flag)
	if !ok {
		panic("cli: no setting has flag --" + flag)
	}
	return st.Help()
}

// markChosen names, in set, the flags of the settings table the user set.
func markChosen(c *cli.Context, set map[string]bool) {
	for _, st := range analysis.Settings() {
		if st.Flag != "" && c.IsSet(st.Flag) {
			set[st.Flag] = true
		}
	}
}

// proteanOnlyFlags lists, as --flag, the flags of the settings a baseline
// cannot honour.
func proteanOnlyFlags() string {
	var out []string
	for _, st := range analysis.Settings() {
		if st.Flag != "" && !st.Honoured(optimizer.HonourBaselines) && !st.Honour.Has(optimizer.HonourAgentsOnly) {
			out = append(out, "--"+st.Flag)
		}
	}
	return strings.Join(out, ", ")
}

func onOffString(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func buffersString(b optimizer.Buffers) string {
	return fmt.Sprintf("%d,%d,%d", b.NewDeployment, b.ScaleOut, b.Healing)
}

// engineConfig reads the engine flags into cfg (a spec's Engine, which
// starts from optimizer.DefaultConfig) and names the flags the user set.
func engineConfig(c *cli.Context, cfg *optimizer.Config, set map[string]bool) error {
	markChosen(c, set)
	cfg.K = c.Int("k")
	cfg.Seed = c.Uint64("seed")
	cfg.Evict = !c.Bool("no-evict")
	cfg.Explain = !c.Bool("no-explain")
	cfg.TopPct = c.Float64("top-pct")
	var err error
	if cfg.Safety, err = onOff(c, "safety"); err != nil {
		return err
	}
	if cfg.Cache, err = onOff(c, "cache"); err != nil {
		return err
	}
	switch b := c.String("buckets"); b {
	case "inf", "∞", "0":
		cfg.Buckets = 0
	default:
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 {
			return fmt.Errorf("--buckets %q: want a positive integer or inf", b)
		}
		cfg.Buckets = n
	}
	parts := strings.Split(c.String("buffers"), ",")
	if len(parts) != 3 {
		return fmt.Errorf("--buffers %q: want NEW,SCALEOUT,HEAL (empty machines per cluster)", c.String("buffers"))
	}
	var b [3]int32
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return fmt.Errorf("--buffers %q: %q is not a count of machines", c.String("buffers"), p)
		}
		b[i] = int32(n)
	}
	cfg.Buffers = optimizer.Buffers{NewDeployment: b[0], ScaleOut: b[1], Healing: b[2]}
	if math.IsNaN(cfg.TopPct) {
		return fmt.Errorf("--top-pct NaN: want a share in [0, 1]")
	}
	return nil
}

// onOff reads an on/off flag.
func onOff(c *cli.Context, name string) (bool, error) {
	switch v := c.String(name); v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	default:
		return false, fmt.Errorf("--%s %q: want on or off", name, v)
	}
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
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("time %q: want a finite number of seconds, or a number with s, m, h or d", s)
	}
	return v * mult, nil
}

func replayCommand() *cli.Command {
	ag := replay.DefaultAgentOptions()
	flags := append(engineFlags(),
		replayDatasetFlag(),
		&cli.StringFlag{Name: "from", Usage: settingUsage("from")},
		&cli.StringFlag{Name: "to", Usage: settingUsage("to")},
		&cli.StringFlag{Name: "interval", Value: "1h", Usage: settingUsage("interval")},
		&cli.IntFlag{Name: "agents", Value: ag.Agents, Usage: settingUsage("agents")},
		&cli.StringFlag{Name: "time", Value: ag.TimeModel, Usage: settingUsage("time")},
		&cli.Float64Flag{Name: "speedup", Value: ag.Speedup, Usage: settingUsage("speedup")},
		&cli.Float64Flag{Name: "hit-rate", Value: ag.HitRate, Usage: settingUsage("hit-rate")},
		&cli.Float64Flag{Name: "hit-ms", Value: ag.HitMS, Usage: settingUsage("hit-ms")},
		&cli.Float64Flag{Name: "miss-ms", Value: ag.MissMS, Usage: settingUsage("miss-ms")},
		&cli.Float64Flag{Name: "commit-ms", Value: ag.CommitMS, Usage: settingUsage("commit-ms")},
		&cli.IntFlag{Name: "max-retries", Value: ag.MaxRetries, Usage: settingUsage("max-retries")},
		&cli.IntFlag{Name: "window", Value: ag.Window, Usage: settingUsage("window")},
		&cli.IntFlag{Name: "n0", Value: ag.N0, Usage: settingUsage("n0")},
		&cli.StringFlag{Name: "avoid", Value: onOffString(ag.Avoid), Usage: settingUsage("avoid")},
		&cli.StringFlag{Name: "catalog", Usage: "price the zone's machines by SKU name from a catalog `FILE` (placelab ingest help-format catalog): cost_per_hour, a run metric"},
		&cli.StringFlag{Name: "price", Usage: "with --catalog: the catalog's price `COLUMN` (default: its one *_usd_per_hour or price_per_hour column)"},
		formatFlag("table", "json"),
	)
	flags = append(flags, availabilityFlags()...)
	return &cli.Command{
		Name:  "replay",
		Usage: "replay a loaded trace through an allocator and store the run",
		Description: `Replays the arrivals and departures of --dataset in time order through the
allocator --policy (protean: the rule-based allocator of Protean §3-5; firstfit,
bestfit, worstfit, random: baselines that scan every machine under the same
validators). VMs alive at --from are placed first; a service request is the VMs of one
tenant arriving together, placed all or nothing. A high-priority VM that fits nowhere
may evict low-priority VMs, under every policy alike (--no-evict turns it off).

Flags a policy cannot honour are refused (` + proteanOnlyFlags() + ` with a
baseline; the agent flags without --agents; the simulated-time flags with --time real).
The run records the dataset's load it read (placelab check --run ID verifies it).

Writes one run row, a placement row per VM (machine, decision latency_us; for agents
also response_s), an explain row per VM and level, and run_metric samples every
--interval (packing density = allocated cores / cores of non-empty machines,
utilization, empty machines, acceptance, rejections, decision latency) on every path.

Examples:
   placelab replay
   placelab replay --policy bestfit --format json
   placelab replay --buckets inf --cache off --from 2d --to 3d
   placelab replay --dataset huawei-east-1 --policy protean --k 16
   placelab replay --agents 4 --speedup 10            # the paper's agent model (§6.2)
   placelab replay --agents 4 --time real
   placelab replay --failures default --fault-domains 3 --update-domains 5 --buffers 4,2,1
   placelab replay --failure-file incidents.csv --maintenance every=30d,ud-minutes=30
   placelab replay --dataset fleet --catalog ../shared/data/catalogs/aws-ec2-us-east-1.csv

$ per hour. --catalog FILE [--price COL] prices the zone's machines by their SKU's name:
cost_per_hour = Σ machines of the inventory × the price of their SKU in the catalog, in
the JSON summary (beside machines) and as run metric cost_per_hour. A SKU the catalog
does not name is listed as unpriced_skus and the run gets no cost (no price is made up).
` + availabilityHelp,
		Flags:  flags,
		Action: runReplay,
	}
}

// replaySpec turns the flags into a run spec; the spec refuses what does
// not apply (analysis.Spec.Validate).
func replaySpec(c *cli.Context, dataset string) (analysis.Spec, error) {
	spec := analysis.DefaultSpec(dataset)
	spec.Policy = c.String("policy")
	if err := engineConfig(c, &spec.Engine, spec.Set); err != nil {
		return spec, err
	}
	var err error
	if spec.From, err = parseTime(c.String("from"), math.Inf(-1)); err != nil {
		return spec, fmt.Errorf("--from: %w", err)
	}
	if spec.To, err = parseTime(c.String("to"), math.Inf(1)); err != nil {
		return spec, fmt.Errorf("--to: %w", err)
	}
	if spec.Interval, err = parseTime(c.String("interval"), replay.DefaultInterval); err != nil || spec.Interval <= 0 {
		return spec, fmt.Errorf("--interval %q: want a positive duration", c.String("interval"))
	}
	if c.IsSet("agents") {
		spec = spec.WithAgents(c.Int("agents"), c.String("time"))
		a := spec.Agents
		a.Speedup = c.Float64("speedup")
		a.HitRate, a.HitMS, a.MissMS, a.CommitMS = c.Float64("hit-rate"), c.Float64("hit-ms"), c.Float64("miss-ms"), c.Float64("commit-ms")
		a.MaxRetries, a.Window, a.N0 = c.Int("max-retries"), c.Int("window"), c.Int("n0")
		if a.Avoid, err = onOff(c, "avoid"); err != nil {
			return spec, err
		}
	}
	availabilitySpec(c, &spec)
	return spec, spec.Validate()
}

func runReplay(c *cli.Context) error {
	format := c.String("format")
	if c.String("policy") == cluster.KubeSchedulerPolicy {
		return runKubeScheduler(c)
	}
	spec, err := replaySpec(c, pendingDataset(c))
	if err != nil {
		return err
	}
	if c.IsSet("price") && !c.IsSet("catalog") {
		return errors.New("--price applies to --catalog")
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	if spec.Dataset, err = datasetArg(c, db); err != nil {
		return err
	}
	ro := analysis.RunOptions{Version: version}
	if ro.Prices, err = catalogPrices(c); err != nil {
		return err
	}
	bar := newProgress("replay "+spec.Policy, "", c.Bool("quiet"))
	ro.Progress = bar.Update
	res, err := analysis.Run(c.Context, db, spec, ro)
	bar.Done()
	if err != nil {
		return err
	}
	return printSummary(c, res.Summary, format)
}

// catalogPrices reads --catalog's prices by type name (nil without it).
func catalogPrices(c *cli.Context) (map[string]float64, error) {
	if !c.IsSet("catalog") {
		return nil, nil
	}
	cat, err := catalog.Read(c.String("catalog"), catalog.ReadOptions{Price: c.String("price")})
	if err != nil {
		return nil, err
	}
	prices := map[string]float64{}
	for _, t := range cat.Types {
		prices[t.Name] = t.Price
	}
	return prices, nil
}

func printSummary(c *cli.Context, s replay.Summary, format string) error {
	w := c.App.Writer
	if format == "json" {
		return printJSON(w, s)
	}
	fmt.Fprintf(w, "run %d: %s on %q — %d VMs in %d requests, %d accepted, %d rejected, %d evicted\n",
		s.RunID, s.Policy, s.Dataset, s.VMs, s.Requests, s.Accepted, s.Rejected, s.Evicted)
	fmt.Fprintf(w, "  load %.2fs  replay %.2fs  write %.2fs\n", s.LoadSeconds, s.Seconds, s.WriteSeconds)
	switch {
	case s.CostPerHour != nil:
		fmt.Fprintf(w, "  %d machines, $%.4f per hour\n", s.Machines, *s.CostPerHour)
	case len(s.UnpricedSKUs) > 0:
		fmt.Fprintf(w, "  %d machines, not priced: SKUs %s are not in the catalog\n", s.Machines, strings.Join(s.UnpricedSKUs, ", "))
	}
	postBF := "NULL (not measured: no BestFit rule ranked a VM)"
	if s.PostBestFitPct != nil {
		postBF = fmt.Sprintf("%.1f%%", *s.PostBestFitPct)
	}
	fmt.Fprintf(w, "  packing density %.2f%%  utilization %.2f%% (low priority %.2f%%, eviction rate %.4f)  post-BestFit candidates %s\n",
		100*s.PackingDensityMean, 100*s.UtilizationMean, 100*s.LowPriorityUtilizationMean, s.EvictionRate, postBF)
	fmt.Fprintf(w, "  decision latency p50 %.1f µs  p99 %.1f µs  %.0f placements per wall-clock second  cache hit rate %.1f%%\n",
		s.LatencyP50US, s.LatencyP99US, s.PlacementsPerSec, 100*s.CacheHitRate)
	if s.Agents > 0 {
		fmt.Fprintf(w, "  %d agents (%s time): response p50 %.3fs p99 %.3fs, queue delay mean %.3fs p99 %.3fs; %d conflicts (p99 %.1f/s, %.1f/min), %d retries, rejection rate %.4f; initial burst of %d requests resolved in %.1fs; avoidance used %d times\n",
			s.Agents, s.TimeModel, s.ResponseP50S, s.ResponseP99S, s.QueueDelayMeanS, s.QueueDelayP99S, s.Conflicts, s.ConflictsP99PerS, s.ConflictsP99PerMin,
			s.Retries, s.RejectionRate, s.BurstRequests, s.BurstSpanS, s.AvoidanceActivations)
	}
	fmt.Fprintf(w, "  failure rates (by VMs): new deployment %.4f  scale-out %.4f  heal %.4f of %d VMs in %d heal requests; CFR %.5f; VM downtime %.1f h\n",
		s.NewDeploymentFailureRate, s.ScaleoutFailureRate, s.HealFailureRate, s.HealVMs, s.HealRequests, s.CFR, s.VMDowntimeHours)
	fmt.Fprintf(w, "  healable single failures (means of samples): machines %.2f%%  racks %.2f%%\n", s.HealableMachineFailuresPctMean, s.HealableRackFailuresPctMean)
	if s.MachineFailures+s.RackFailures+s.Reboots+s.MaintenanceOutages > 0 {
		fmt.Fprintf(w, "  outages: %d machine failures (hard), %d rack failures, %d host reboots, %d machine maintenance windows (largest share of a tenant down at once %.1f%%)\n",
			s.MachineFailures, s.RackFailures, s.Reboots, s.MaintenanceOutages, 100*s.MaintenanceMaxDownShare)
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

// runKubeScheduler replays a Kubernetes dataset through the real
// kube-scheduler; it honours --dataset and --seed (the choice among
// top-scored nodes) and refuses every other engine setting.
func runKubeScheduler(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		switch name {
		case "dataset", "policy", "seed", "format":
		default:
			if c.IsSet(name) {
				return fmt.Errorf("replay --policy %s: --%s is placelab's engine setting, which the real scheduler cannot honour", cluster.KubeSchedulerPolicy, name)
			}
		}
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	seed := uint64(cluster.KubeSchedulerSeed)
	if c.IsSet("seed") {
		seed = c.Uint64("seed")
	}
	dataset, err := datasetArg(c, db)
	if err != nil {
		return err
	}
	rep, err := cluster.RunKubeScheduler(c.Context, db, dataset, seed, analysis.RunOptions{Version: version})
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, rep)
	}
	fmt.Fprintf(c.App.Writer, "run %d: %s (%s, seed %d) on %q: %d pods bound, %d unschedulable [%.2fs] (placelab check --run %d)\n",
		rep.Run, cluster.KubeSchedulerPolicy, rep.Scheduler, rep.Seed, rep.Dataset, rep.Placed, rep.Unschedulable, rep.Seconds, rep.Run)
	for _, p := range sortedKeys(rep.Reasons) {
		fmt.Fprintf(c.App.Writer, "  %d unschedulable pods refused by %s on some node\n", rep.Reasons[p], p)
	}
	return nil
}

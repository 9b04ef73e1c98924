package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"placelab/analysis/timing"
	"placelab/bench"
	"placelab/datasets/k8sgen"
	"placelab/optimizer/fleet"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure the engines on generated zones",
		Subcommands: []*cli.Command{availabilityBenchCommand(), clusterBenchCommand(), planBenchCommand(), {
			Name:  "allocator",
			Usage: "Protean's cost per placement and throughput with the cache on and off, on the same requests",
			Description: `Generates a zone of --machines machines with a one-day trace and, --reps times,
times the Protean engine with the cache on and with the cache off on the same
requests: the first arriving requests after t=0 holding --vms VMs, each arm from
the same starting state (the VMs alive at t=0, placed untimed). Reps alternate
which arm runs first.

The timed section is all the work the allocator does while those requests
arrive, as in a replay: the departures due before each request (state and
journal upkeep), the background cache refresh in each idle gap of at least
1 trace second (cache on), and each decision. Throughput is placements over the
wall time of that section; cost per placement is its inverse. Decision latency
percentiles (per VM) are reported beside them. The refresh marks the cells it
brings up to date, and the decision that next reads a cell applies the marked
changes: that time is the refresh's (refresh_seconds), not the decision's, as
an idle agent would have spent it (Protean §5.2.4), so a machine changed again
before the read is re-evaluated once and a cell no decision reads costs nothing.
cpu_seconds is the process's CPU time over the section, the GC's included.
With placelab --cpuprofile FILE, each sample is labelled with its arm
(arm=cache_on or cache_off) and its section (section=warmup or timed), so one
arm's timed work reads apart from the rest (the cache-off arm takes most of
the command's time):
  go tool pprof -tagfocus=arm=cache_on -tagignore=section=warmup -top FILE

JSON fields (--format json):
  machines, explain, seed, reps, gomaxprocs, warmup_vms
  requests, vms, first_request_id, last_request_id, arriving_vms, timed_set
                          the timed set, identical for cache on and off
  cache_on, cache_off     each figure as {median, min, max} over the reps:
    cost_per_placement_us     timed wall time per placed VM, upkeep included
    placements_per_wall_sec   placed VMs / timed wall seconds
    wall_seconds, cpu_seconds, refresh_seconds, release_seconds
    decision_latency_p50_us, decision_latency_p99_us   Allocate, less the refresh's
                              marked changes it applied, per VM
    cache_hit_rate            RuleEvaluation hits / lookups while timed
    memory_mb                 heap held by state and caches after the pass
  cache_speedup           per rep cache_off wall / cache_on wall (same VMs),
                          as {median, min, max}
  decision_speedup        the same ratio for decision time (decision_seconds)
  same_decisions          both arms placed every VM on the same machine
  runs[]                  per rep: rep, order, cache_speedup, decision_speedup,
                          same_decisions, and cache_on/cache_off with requests,
                          vms, placements, rejected, evicted, releases,
                          refreshes, refreshed_cells, machine_changes,
                          cell_updates_background, cell_updates_at_decision,
                          cell_updates_by_outcome (cache on), wall_seconds, cpu_seconds, decision_seconds,
                          refresh_seconds, release_seconds,
                          cost_per_placement_us, placements_per_wall_sec,
                          decision_latency_{p50,p99,mean}_us, cache_hit_rate,
                          memory_mb
  seconds                 the command's own wall time, zone generation included

  machine_changes counts the machines' changes in the timed section (a placement, a
  departure or an eviction is one); cell_updates_background and cell_updates_at_decision
  the cache's upkeep for them: a changed machine re-evaluated in one cell (an evaluation's
  state for one cluster) on the background refresh's account (up to the cell's mark) or on
  the decision's own (after it), both when a decision reads a cell behind the journal (once
  per cell however often the machine changed; a rebuilt cell counts none).
  Per change their sum is bounded by the cells holding the machine. They do not depend on
  the machine's speed, so they compare builds where times are noisy. cell_updates_by_outcome
  splits their sum by what the re-evaluation found: still_rejected (by the same first
  validator: the upkeep that only confirms a shape still does not fit),
  rejected_other_validator, unchanged (valid, same key), moved (valid, new key),
  became_invalid, became_valid.

Example:
   placelab bench allocator --machines 30000 --vms 40000 --reps 3 --format json`,
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "machines", Value: benchDefaults.Machines, Usage: "machines in the zone"},
				&cli.IntFlag{Name: "vms", Value: benchDefaults.VMs, Usage: "arriving VMs timed, the same ones with the cache on and off"},
				&cli.IntFlag{Name: "reps", Value: benchDefaults.Reps, Usage: "repetitions (≥ 1); figures are medians with their range"},
				&cli.Uint64Flag{Name: "seed", Value: benchDefaults.Seed, Usage: "seed of the zone and tie-breaks"},
				&cli.BoolFlag{Name: "no-explain", Usage: "time decisions without building their explanations"},
				productionFlag, productionMachinesFlag, productionVMsFlag,
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				o, format, err := benchAllocatorOptions(c)
				if err != nil {
					return err
				}
				po, err := productionOptions(c, o.Reps, o.Seed)
				if err != nil {
					return err
				}
				if !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "bench allocator: generating a %d-machine zone, then %d reps of cache on and off...\n", o.Machines, o.Reps)
				}
				r, err := timing.CompareCache(c.Context, o)
				if err != nil {
					return err
				}
				if po != nil {
					if !c.Bool("quiet") {
						fmt.Fprintf(c.App.ErrWriter, "bench allocator: the production point: %d machines, a %d-VM trace, %d reps...\n", po.Machines, po.VMs, po.Reps)
					}
					if r.Production, err = timing.RunProduction(c.Context, *po); err != nil {
						return err
					}
				}
				if format == "json" {
					return printJSON(c.App.Writer, r)
				}
				return printAllocatorComparison(c.App.Writer, r)
			},
		}, {
			Name:  "all",
			Usage: "every engine's headline figure, with its baseline from the same run",
			Description: `Runs, in one process: the allocator with the cache on and off (Protean Figs 11-12);
a replay of a generated zone through Protean and best fit; every characterization
view; the LP bound on Falkenauer u1000 (when ../shared/data is present) and on the
replay's snapshots; PrV-WorstFit against worst fit in one violation simulation;
Paragon's fold-in of new apps against retraining. --quick shrinks every size.
placelab bench plan is not part of it: at its size it takes minutes (run it apart).

Example:
   placelab bench all --format json`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "quick", Usage: "smaller sizes (seconds rather than minutes)"},
				&cli.StringFlag{Name: "shared", Value: "../shared/data", Usage: "the shared data `DIR`"},
				productionFlag, productionMachinesFlag, productionVMsFlag,
				formatFlag("json", "table"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				po, err := productionOptions(c, 1, 1)
				if err != nil {
					return err
				}
				bar := newProgress("bench all", "engines", c.Bool("quiet"))
				r, err := bench.RunBenchAll(c.Context, c.Bool("quick"), c.String("shared"), po, bar.Update)
				bar.Done()
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, r)
				}
				w := c.App.Writer
				a := r.Allocator
				fmt.Fprintf(w, "allocator (%d machines, %d VMs timed, median of %d reps): cache on %.1f µs per placement incl. upkeep (decision p99 %.1f µs); cache off %.1f µs (decision p99 %.1f µs); cache speedup %.1fx\n",
					a.Machines, a.VMs, a.Reps, a.CacheOn.CostPerPlacementUS.Median, a.CacheOn.DecisionLatencyP99US.Median,
					a.CacheOff.CostPerPlacementUS.Median, a.CacheOff.DecisionLatencyP99US.Median, a.CacheSpeedup.Median)
				if a.Production != nil {
					printProduction(w, a.Production)
				}
				fmt.Fprintf(w, "replay (%d VMs, no eviction, no explanations): Protean %.2fs (%.0f placements/s), best fit %.2fs (%.0f placements/s)\n",
					r.Replay.VMs, r.Replay.ProteanSeconds, r.Replay.ProteanPlacementsPS, r.Replay.BestFitSeconds, r.Replay.BestFitPlacementsPS)
				fmt.Fprintf(w, "views (%d VMs): %.2fs\n", r.Views.VMs, r.Views.Seconds)
				fmt.Fprintf(w, "LP: %s %.3fs (bound %.0f); %d snapshots %.1fs\n", r.LP.Instance, r.LP.InstanceSeconds, r.LP.InstanceBound, r.LP.Snapshots, r.LP.SnapshotSeconds)
				fmt.Fprintf(w, "PrV (%d nodes): %.3f ms per placement; worst fit %.3f ms\n", r.PrV.Nodes, r.PrV.MsPerPlacement, r.PrV.BaselineMsPerPlacement)
				fmt.Fprintf(w, "Paragon (%d apps × %d): fold-in %.1f µs; retraining %.0f ms\n", r.Paragon.Apps, r.Paragon.Columns, r.Paragon.FoldInUS, r.Paragon.RetrainMS)
				return nil
			},
		}, {
			Name:  "lp",
			Usage: "the LP interval over every snapshot of the demo zone's replays, timed, beside the trivial interval",
			Description: `Generates the demo's zone (5,000 machines, 100,000 VMs over 14 days; --quick: 600 machines,
2 days; --machines, --vms to size it) in memory, replays it through Protean and best fit, and puts every snapshot (--every,
hourly by default: 336) in its LP interval as placelab lpbound does, timing the whole call
(loading the run, both LPs and the integer master per snapshot, storing the figures).
Prints per policy the snapshots solved to optimality, the median and worst seconds per
snapshot, the interval's width on machines (mean, worst), and as the baseline the width of
the interval a user has without the LP: [allocated cores / the largest SKU's cores, online].

Examples:
   placelab bench lp --format json
   placelab bench lp --vms 115000      # about 31,000 VMs alive on 5,000 machines`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "quick", Usage: "a 600-machine, 2-day zone"},
				&cli.IntFlag{Name: "machines", Value: bench.DefaultBenchLPOptions().Machines, Usage: "machines in the zone"},
				&cli.IntFlag{Name: "vms", Value: bench.DefaultBenchLPOptions().VMs, Usage: "VMs over the zone's 14 days (more VMs, more alive per snapshot)"},
				&cli.StringFlag{Name: "every", Value: "1h", Usage: "time between snapshots (s, m, h or d)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				every, err := timeFlag(c, "every", 3600)
				if err != nil {
					return err
				}
				if !positive.contains(every) {
					return fmt.Errorf("--every %q: want a finite time > 0", c.String("every"))
				}
				o := bench.DefaultBenchLPOptions()
				o.Quick, o.Machines, o.VMs, o.Every = c.Bool("quick"), c.Int("machines"), c.Int("vms"), every
				if o.Quick && (c.IsSet("machines") || c.IsSet("vms")) {
					return errors.New("--quick sets the zone's size: give it or --machines/--vms, not both")
				}
				bar := newProgress("bench lp", "runs", c.Bool("quiet"))
				r, err := bench.RunBenchLP(c.Context, o, bar.Update)
				bar.Done()
				if err != nil {
					return err
				}
				if c.String("format") == "json" {
					return printJSON(c.App.Writer, r)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "zone: %d machines, %d VMs; a snapshot every %s\n", r.Machines, r.VMs, humanSeconds(r.Every))
				for _, p := range r.Runs {
					fmt.Fprintf(w, "%-8s %d snapshots (up to %d VMs alive), %d solved to optimality, %.1fs in all; per snapshot median %.3fs, worst %.3fs; interval on machines %.3f%% mean, %.3f%% worst (without the LP: %.1f%%)\n",
						p.Policy, p.Snapshots, p.MaxVMs, p.Converged, p.Seconds, p.SnapshotMedianSeconds, p.SnapshotMaxSeconds,
						p.MeanIntervalGapPct, p.MaxIntervalGapPct, p.MeanTrivialGapPct)
				}
				return nil
			},
		}, {
			Name:  "views",
			Usage: "every characterization view at 1M and 10M VMs, beside the same computations in pandas",
			Description: `For each size in --vms, generates a trace as placelab generate does (--vms VMs on
1 machine per 100 VMs, no CPU series) into a database file and times that once; then,
--reps times, every characterization view (open the file read-only, run the view, read
its rows, close) and placelab characterize's whole page.

When Python with pandas is present (Debian's python3-pandas; --pandas auto), it exports
the VMs to CSV (untimed) and runs bench/pandas_views.py: six of the views computed as
the Azure public dataset notebooks compute them (read_csv of the columns the view needs,
then groupby, value_counts, sort), --reps times each, timing the read and the computation
apart. Per view it prints both ratios against placelab's median from the same run, and
checks the numbers are the same (within the view's rounding; the Weibull fit of
interarrival within 2% when both fit a 1-in-k sample of the gaps). A view whose numbers
differ makes the command fail after printing.

Sizes take a few minutes at 10M VMs (3 reps: about 2 min of views, 4 min of pandas);
--dir keeps the work files (database, CSV) in DIR instead of a temporary folder, which
is removed.

JSON fields (--format json):
  reps, seed, duckdb, pandas {python, pandas, numpy} (null when it did not run),
  pandas_skipped (why), seconds
  sizes[]: vms, machines, generate_seconds (one run), characterize_seconds
           {median, min, max}, views_seconds (sum of the views' medians), slowest_view,
           csv_export_seconds (untimed in the ratios)
    views[]: view, rows, seconds {median, min, max},
             pandas {read_seconds, compute_seconds, read_compute_seconds: {median, min, max};
                     read_compute_ratio, compute_ratio (pandas median / placelab median);
                     agree, mismatch}

Examples:
   placelab bench views
   placelab bench views --vms 1000000 --reps 5 --format json
   placelab bench views --pandas off`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "vms", Value: intsString(bench.DefaultBenchViewsOptions().Sizes), Usage: "sizes of the generated traces in VMs, comma-separated (each ≥ 1000)"},
				intFlag("reps", bench.DefaultBenchViewsOptions().Reps, 1, 1000, "repetitions of every view and of pandas; figures are medians"),
				&cli.Uint64Flag{Name: "seed", Value: bench.DefaultBenchViewsOptions().Seed, Usage: "generator seed"},
				&cli.StringFlag{Name: "pandas", Value: "auto", Usage: "the pandas comparison: auto (when python has pandas), off, require"},
				&cli.StringFlag{Name: "python", Value: bench.DefaultBenchViewsOptions().Python, Usage: "the Python interpreter for bench/pandas_views.py"},
				&cli.StringFlag{Name: "dir", Usage: "keep the work files in `DIR` (default: a temporary folder, removed)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				o := bench.DefaultBenchViewsOptions()
				sizes, err := parseInts(c.String("vms"))
				if err != nil {
					return fmt.Errorf("--vms %q: %w", c.String("vms"), err)
				}
				o.Sizes, o.Reps, o.Seed, o.Pandas, o.Python, o.Dir = sizes, c.Int("reps"), c.Uint64("seed"), c.String("pandas"), c.String("python"), c.String("dir")
				if err := o.Validate(); err != nil {
					return err
				}
				if !c.Bool("quiet") {
					o.Progress = func(s string) { fmt.Fprintln(os.Stderr, "bench views:", s) }
				}
				r, err := bench.RunBenchViews(c.Context, o)
				if err != nil {
					return err
				}
				if c.String("format") == "json" {
					err = printJSON(c.App.Writer, r)
				} else {
					err = printBenchViews(c.App.Writer, r)
				}
				if err != nil {
					return err
				}
				if bad := r.Disagreements(); len(bad) > 0 {
					return fmt.Errorf("bench views: placelab and pandas disagree: %s", strings.Join(bad, "; "))
				}
				return nil
			},
		}, {
			Name:  "predict",
			Usage: "Resource Central's client: prediction latency cached and uncached, beside the model's batch prediction",
			Description: `Generates a synthetic zone in memory (--machines, --vms over --days), trains and stores its
lifetime model (gradient-boosted trees, the binding's defaults: 100 rounds × 4 classes, depth 6,
over rc_features) and its lifetime_dist survival model (XGBoost's AFT objective, 100 rounds of
one tree; the client returns the predicted median lifetime and the most probable bucket),
initializes RC's client and asks it --requests predictions over the zone's VMs in turn, per
model on two paths: uncached (result cache off: each request executes the model on the VM's
cached feature data) and cached (result cache on and warm: each request is a hit); the
survival model's paths are prefixed "aft ". Per path: p50 and p99 latency, mean per request
and predictions/s; the baseline in the same run is each model's batch prediction of every VM's
row (no client, no per-request work), per row.
Resource Central §6.1 (2-core VM): result-cache hits 1.3 µs at p99; model executions 95–147 µs
median. placelab's goals: ≤ 5 µs cached, ≤ 50 µs uncached (survival model: ≤ 2 µs p50 cached).
JSON: model, trees, features, train_seconds, initialize_seconds, survival_model,
survival_trees, survival_sigma, paths and survival_paths [{path, requests, p50_us, p99_us,
mean_us, predictions_per_s, cache_hits}].

Examples:
   placelab bench predict
   placelab bench predict --requests 1000000 --format json`,
			Flags: []cli.Flag{
				intFlag("machines", bench.DefaultPredictBenchOptions().Machines, 1, 1<<20, "machines in the zone"),
				intFlag("vms", bench.DefaultPredictBenchOptions().VMs, 1000, 1<<26, "VMs in the zone (the model's data)"),
				intFlag("days", bench.DefaultPredictBenchOptions().Days, 1, 365, "days the zone's VMs arrive over"),
				intFlag("requests", bench.DefaultPredictBenchOptions().Requests, 1, 1<<30, "predictions timed per path"),
				&cli.Uint64Flag{Name: "seed", Value: bench.DefaultPredictBenchOptions().Seed, Usage: "seed of the zone and the model"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				o := bench.DefaultPredictBenchOptions()
				o.Machines, o.VMs, o.Days, o.Requests, o.Seed = c.Int("machines"), c.Int("vms"), c.Int("days"), c.Int("requests"), c.Uint64("seed")
				var progress func(string)
				if !c.Bool("quiet") {
					progress = func(s string) { fmt.Fprintln(os.Stderr, "bench predict:", s) }
				}
				r, err := bench.RunBenchPredict(c.Context, o, progress)
				if err != nil {
					return err
				}
				if c.String("format") == "json" {
					return printJSON(c.App.Writer, r)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "model %s: %d trees over %d features, trained in %.1fs on a zone of %d machines, %d VMs; client initialized in %.2fs\n",
					r.Model, r.Trees, r.Features, r.TrainSeconds, r.Machines, r.VMs, r.InitSeconds)
				fmt.Fprintf(w, "survival model %s: %d trees, sigma %g\n", r.SurvivalModel, r.SurvivalTrees, r.SurvivalSigma)
				fmt.Fprintf(w, "%-22s %10s %10s %10s %10s %14s\n", "path", "requests", "p50_µs", "p99_µs", "mean_µs", "predictions/s")
				for _, p := range append(r.Paths, r.SurvivalPaths...) {
					fmt.Fprintf(w, "%-22s %10d %10.2f %10.2f %10.2f %14.0f\n", p.Path, p.Requests, p.P50US, p.P99US, p.MeanUS, p.PerSecond)
				}
				return nil
			},
		}},
	}
}

var benchDefaults = timing.DefaultOptions()

// The production-size point's flags (bench allocator and bench all).
var (
	productionDefaults     = timing.DefaultProductionOptions()
	productionFlag         = &cli.BoolFlag{Name: "production", Usage: "add the production-size point: a zone of --production-machines machines with the arrivals of a --production-vms-VM trace, every arrival timed with the cache on (departures, refresh, decisions), the cache off on the first 2,000 of them; memory reported (minutes)"}
	productionMachinesFlag = &cli.IntFlag{Name: "production-machines", Value: productionDefaults.Machines, Usage: "machines of the production point (with --production)"}
	productionVMsFlag      = &cli.IntFlag{Name: "production-vms", Value: productionDefaults.VMs, Usage: "VMs in the production point's trace, those alive at the start included (with --production)"}
)

// productionOptions reads the production point's flags: nil without
// --production.
func productionOptions(c *cli.Context, reps int, seed uint64) (*timing.ProductionOptions, error) {
	if !c.Bool("production") {
		for _, f := range []string{"production-machines", "production-vms"} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s applies only with --production", f)
			}
		}
		return nil, nil
	}
	o := timing.DefaultProductionOptions()
	o.Machines, o.VMs, o.Reps, o.Seed = c.Int("production-machines"), c.Int("production-vms"), reps, seed
	switch {
	case o.Machines < 1:
		return nil, fmt.Errorf("--production-machines %d: need at least 1 machine", o.Machines)
	case o.VMs < 1:
		return nil, fmt.Errorf("--production-vms %d: need at least 1 VM", o.VMs)
	}
	return &o, nil
}

// benchAllocatorOptions reads bench allocator's flags; out-of-range values
// are refused with the flag named.
func benchAllocatorOptions(c *cli.Context) (timing.Options, string, error) {
	o := timing.Options{Machines: c.Int("machines"), VMs: c.Int("vms"), Reps: c.Int("reps"),
		Seed: c.Uint64("seed"), Explain: !c.Bool("no-explain")}
	format := c.String("format")
	switch {
	case format != "table" && format != "json":
		return o, format, fmt.Errorf("--format %q: bench allocator writes table or json", format)
	case o.Reps < 1:
		return o, format, fmt.Errorf("--reps %d: need at least 1 repetition", o.Reps)
	case o.VMs < 1:
		return o, format, fmt.Errorf("--vms %d: need at least 1 timed VM", o.VMs)
	case o.Machines < 1:
		return o, format, fmt.Errorf("--machines %d: need at least 1 machine", o.Machines)
	}
	return o, format, nil
}

// printAllocatorComparison writes the table of bench allocator: each
// figure's median over the reps with its range.
func printAllocatorComparison(w io.Writer, r timing.AllocatorComparison) error {
	explain := "with"
	if !r.Explain {
		explain = "without"
	}
	fmt.Fprintf(w, "allocator on %d machines, seed %d, decisions %s explanations, %d reps (%.1fs)\n", r.Machines, r.Seed, explain, r.Reps, r.Seconds)
	fmt.Fprintf(w, "timed set: %s\n", r.TimedSet)
	fmt.Fprintf(w, "timed: departures, background cache refresh in idle gaps, and decisions; figures are median [min–max] over the reps\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	sp := func(s timing.Spread, f string) string {
		if r.Reps == 1 {
			return fmt.Sprintf(f, s.Median)
		}
		return fmt.Sprintf(f+" ["+f+"–"+f+"]", s.Median, s.Min, s.Max)
	}
	on, off := r.CacheOn, r.CacheOff
	rows := [][3]string{
		{"", "cache on", "cache off"},
		{"cost per placement, upkeep included (µs)", sp(on.CostPerPlacementUS, "%.1f"), sp(off.CostPerPlacementUS, "%.1f")},
		{"placements per wall second", sp(on.PlacementsPerWallSec, "%.0f"), sp(off.PlacementsPerWallSec, "%.0f")},
		{"timed wall time (s)", sp(on.WallSeconds, "%.3f"), sp(off.WallSeconds, "%.3f")},
		{"  of which background refresh (s)", sp(on.RefreshSeconds, "%.3f"), sp(off.RefreshSeconds, "%.3f")},
		{"  of which departures (s)", sp(on.ReleaseSeconds, "%.3f"), sp(off.ReleaseSeconds, "%.3f")},
		{"process CPU time over it (s)", sp(on.CPUSeconds, "%.3f"), sp(off.CPUSeconds, "%.3f")},
		{"decision latency p50, Allocate only (µs)", sp(on.DecisionLatencyP50US, "%.1f"), sp(off.DecisionLatencyP50US, "%.1f")},
		{"decision latency p99, Allocate only (µs)", sp(on.DecisionLatencyP99US, "%.1f"), sp(off.DecisionLatencyP99US, "%.1f")},
		{"cache hit rate", sp(on.CacheHitRate, "%.3f"), "-"},
		{"memory (MB)", sp(on.MemoryMB, "%.1f"), sp(off.MemoryMB, "%.1f")},
	}
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row[0], row[1], row[2])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncache speedup (cache off / on wall time per rep, upkeep included): %s×\n", sp(r.CacheSpeedup, "%.1f"))
	fmt.Fprintf(w, "decision-only speedup (time in Allocate): %s×\n", sp(r.DecisionSpeedup, "%.1f"))
	if !r.SameDecisions {
		fmt.Fprintln(w, "warning: cache on and off took different decisions on the same requests")
	}
	if p := r.Production; p != nil {
		printProduction(w, p)
	}
	return nil
}

// printProduction writes the production-size point under bench
// allocator's table.
func printProduction(w io.Writer, p *timing.ProductionPoint) {
	fmt.Fprintf(w, "\nproduction point: %d machines, %d-VM trace (%d alive at t=0, placed in %.1fs; %d arriving), explanations off, %d reps\n",
		p.Machines, p.TraceVMs, p.WarmupVMs, p.WarmupSeconds.Median, p.ArrivingVMs, p.Reps)
	fmt.Fprintf(w, "  cache on, every arrival: %.2f µs per placement incl. upkeep, %.0f placements per wall second (%.1fs; refresh %.2fs, departures %.2fs), decision p50 %.1f µs, p99 %.1f µs\n",
		p.CacheOn.CostPerPlacementUS.Median, p.CacheOn.PlacementsPerWallSec.Median, p.CacheOn.WallSeconds.Median, p.CacheOn.RefreshSeconds.Median,
		p.CacheOn.ReleaseSeconds.Median, p.CacheOn.DecisionLatencyP50US.Median, p.CacheOn.DecisionLatencyP99US.Median)
	fmt.Fprintf(w, "  cache off, first %d arriving VMs: %.1f µs per placement (speedup %.0f×), same decisions: %v\n",
		p.OffVMs, p.CacheOff.CostPerPlacementUS.Median, p.CacheSpeedup.Median, p.SameDecisions)
	fmt.Fprintf(w, "  memory: engine %.0f MB held after the pass; process peak RSS %.0f MB (trace and DuckDB included)\n", p.CacheOn.MemoryMB.Median, p.PeakRSSMB)
}

func printBenchViews(w io.Writer, r *bench.BenchViews) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if r.Pandas != nil {
		fmt.Fprintf(w, "DuckDB %s; pandas %s, NumPy %s, Python %s; medians of %d reps\n", r.DuckDB, r.Pandas.Version, r.Pandas.NumPy, r.Pandas.Python, r.Reps)
	} else {
		fmt.Fprintf(w, "DuckDB %s; medians of %d reps; pandas not run: %s\n", r.DuckDB, r.Reps, r.PandasSkipped)
	}
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "\n%d VMs, %d machines: generate %.2fs (one run); characterize %.2fs; views %.2fs together, slowest %s\n",
			s.VMs, s.Machines, s.GenerateSeconds, s.CharacterizeSeconds.Median, s.ViewsSeconds, s.SlowestView)
		fmt.Fprintln(tw, "view\tplacelab s\tpandas compute s\tpandas read+compute s\tread+compute ratio\tcompute ratio\tsame numbers\t")
		for _, v := range s.Views {
			if v.Pandas == nil {
				fmt.Fprintf(tw, "%s\t%.3f\t\t\t\t\t\t\n", v.View, v.Seconds.Median)
				continue
			}
			for k, p := range []*bench.PandasView{v.Pandas, v.PandasNumPy} {
				if p == nil {
					continue
				}
				name := v.View
				if k == 1 {
					name += " (numpy sort)"
				}
				same := "yes"
				if !p.Agree {
					same = "NO: " + p.Mismatch
				}
				fmt.Fprintf(tw, "%s\t%.3f\t%.2f\t%.2f\t%.1fx\t%.1fx\t%s\t\n", name, v.Seconds.Median, p.ComputeSeconds.Median,
					p.ReadComputeSeconds.Median, p.ReadComputeRatio, p.ComputeRatio, same)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// parseInts reads a comma-separated list of integers (1_000_000 and 1e6
// forms are not accepted: digits only).
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func intsString(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func clusterBenchCommand() *cli.Command {
	def := bench.DefaultClusterBenchOptions()
	return &cli.Command{
		Name:  "cluster",
		Usage: "a Kubernetes snapshot loaded, bounded and drained, end to end, beside the node-by-node greedy",
		Description: `Generates a seeded snapshot of --nodes nodes and --pods pods as kubectl prints it
(placelab generate k8s), then per repetition, on a fresh in-memory database, times what a
user waits for: ingest k8s (parsing with the Kubernetes types, one transaction), lpbound
on the observed run (the interval, its packing stored) and whatif drain (the plan, the LP
bound beside it, its placement stored). total_seconds is their sum (the issue's target:
≤ 10 s at 1,500 nodes and 10,000 pods). Beside it, the baseline in the same run:
Karpenter-style node-by-node greedy consolidation on the same snapshot, its time and the
nodes it removes. Figures are medians over --reps.

Example:
   placelab bench cluster --format json`,
		Flags: []cli.Flag{
			intFlag("nodes", def.Nodes, 8, 0, "nodes in the snapshot"),
			intFlag("pods", def.Pods, 0, 0, "pods in the snapshot"),
			intFlag("reps", def.Reps, 1, 0, "repetitions; figures are medians"),
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "seed of the snapshot"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			o := bench.ClusterBenchOptions{Nodes: c.Int("nodes"), Pods: c.Int("pods"), Reps: c.Int("reps"), Seed: c.Uint64("seed")}
			r, err := bench.RunClusterBench(c.Context, o)
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, r)
			}
			fmt.Fprintf(c.App.Writer, "cluster (%d nodes, %d pods, %.1f MB of JSON; medians of %d): load %.2fs + bound %.2fs + drain plan %.2fs = %.2fs\n",
				r.Nodes, r.Pods, float64(r.JSONBytes)/1e6, r.Reps, r.LoadSeconds, r.BoundSeconds, r.DrainSeconds, r.TotalSeconds)
			fmt.Fprintf(c.App.Writer, "  %d nodes in use; the pods need [%.0f, %d]; the plan removes %d nodes (%d moves), the node-by-node greedy %d in %.2fs\n",
				r.NodesInUse, r.LBNodes, r.UBNodes, r.PlanRemoved, r.PlanMoves, r.GreedyRemoved, r.GreedySeconds)
			return nil
		},
	}
}

func planBenchCommand() *cli.Command {
	def := bench.DefaultPlanBenchOptions()
	return &cli.Command{
		Name:  "plan",
		Usage: "placelab plan on a 1,500-node, 10,000-pod snapshot against the 1,101-type AWS catalog, beside the Karpenter-style baseline",
		Description: `Generates a seeded snapshot of --nodes nodes and --pods pods in 3 zones as kubectl
prints it (placelab generate k8s), then per repetition ingests it into a fresh in-memory
database (untimed: bench cluster times it) and times what placelab plan makes the user
wait for: plan.Run on the observed run against the AWS catalog
(../shared/data/catalogs/aws-ec2-us-east-1.csv, every type; --catalog, --types to
change) — the catalog read, the snapshot load, the solve, the plan stored and checked.
Beside it, from the same call: the Karpenter-style baseline's own time and every cost
(the plan, its lower bound and gap, Karpenter-style, the best single type, the current
fleet). Figures are medians over --reps. It takes minutes at its default size, so
placelab bench all leaves it out; --nodes 200 --pods 1500 is a quick run.

JSON fields (--format json): nodes_in_snapshot, pods, reps, seed, catalog,
catalog_types_read, catalog_types_kept, types_filter, json_bytes, ingest_seconds_untimed,
seconds (plan.Run end to end), stage_seconds {catalog, load, solve, store_check},
karpenter_seconds_baseline, cost_per_hour, lb_cost_per_hour, gap_pct, nodes,
karpenter_cost_per_hour, karpenter_nodes, best_single_cost_per_hour, best_single_type,
current_cost_per_hour, current_nodes, placed, unplaceable_pods, lp_stop, lp_converged,
plan_source, check_ok, rep_seconds, rep_cost_per_hour, rep_lb_cost_per_hour.

Examples:
   placelab bench plan --format json
   placelab bench plan --nodes 200 --pods 1500 --reps 1`,
		Flags: []cli.Flag{
			intFlag("nodes", def.Nodes, k8sgen.MinNodes, 0, "nodes in the snapshot"),
			intFlag("pods", def.Pods, 0, 0, "pods in the snapshot"),
			intFlag("reps", def.Reps, 1, 0, "repetitions; figures are medians"),
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "seed of the snapshot"},
			&cli.StringFlag{Name: "shared", Value: "../shared/data", Usage: "the shared data `DIR` (its " + bench.AWSCatalog + ")"},
			&cli.StringFlag{Name: "catalog", Usage: "the priced catalog `FILE` (default: the AWS catalog under --shared)"},
			&cli.StringFlag{Name: "types", Usage: "keep only catalog types matching `FILTER` (as placelab plan --types)"},
			durationFlag("time-limit", fleet.DefaultTimeLimit, "plan's --time-limit `D`"),
			durationFlag("integer-time-limit", fleet.DefaultIntegerTimeLimit, "plan's --integer-time-limit `D`"),
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			o := bench.PlanBenchOptions{Nodes: c.Int("nodes"), Pods: c.Int("pods"), Reps: c.Int("reps"), Seed: c.Uint64("seed"),
				Catalog: c.String("catalog"), Types: c.String("types"), TimeLimit: c.Duration("time-limit"), IntegerTimeLimit: c.Duration("integer-time-limit")}
			if o.IntegerTimeLimit >= o.TimeLimit {
				return fmt.Errorf("--integer-time-limit %v: want less than --time-limit %v (it is part of it)", o.IntegerTimeLimit, o.TimeLimit)
			}
			if o.Catalog == "" {
				p, err := bench.CatalogPath(c.String("shared"))
				if err != nil {
					return err
				}
				o.Catalog = p
			} else if c.IsSet("shared") {
				return errors.New("--catalog names the catalog: give it or --shared, not both")
			}
			if !c.Bool("quiet") {
				o.Progress = func(s string) { fmt.Fprintln(c.App.ErrWriter, "bench plan:", s) }
			}
			r, err := bench.RunPlanBench(c.Context, o)
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, r)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "plan (%d nodes, %d pods; %d of %d catalog types; medians of %d): %.2fs = catalog %.2fs + load %.2fs + solve %.2fs + store and check %.2fs\n",
				r.Nodes, r.Pods, r.TypesKept, r.TypesRead, r.Reps, r.Seconds, r.Stages["catalog"], r.Stages["load"], r.Stages["solve"], r.Stages["store_check"])
			fmt.Fprintf(w, "  plan $%.2f per hour on %d nodes; no fleet below $%.2f (gap %.2f%%; LP %s); check ok: %v\n",
				r.CostPerHour, r.PlanNodes, r.LBCostPerHour, r.GapPct, r.Stop, r.CheckOK)
			single := "no single type holds every pod"
			if r.BestSingleType != "" {
				single = fmt.Sprintf("best single type %s $%.2f", r.BestSingleType, r.BestSingleCost)
			}
			fmt.Fprintf(w, "  karpenter-style $%.2f per hour on %d nodes in %.3fs; %s; current fleet $%.2f on %d nodes\n",
				r.KarpenterCost, r.KarpenterNodes, r.KarpenterSeconds, single, r.CurrentCost, r.CurrentNodes)
			if r.Unplaceable > 0 {
				fmt.Fprintf(w, "  %d pods no catalog type can hold\n", r.Unplaceable)
			}
			return nil
		},
	}
}

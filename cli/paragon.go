package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer/paragon"
)

func paragonCommand() *cli.Command {
	return &cli.Command{
		Name:  "paragon",
		Usage: "Paragon (ASPLOS'13): collaborative-filtering classification and interference-aware placement",
		Subcommands: []*cli.Command{{
			Name:  "classify",
			Usage: "learn an app × platform matrix, classify held-out apps from a few measurements (Table 1)",
			Description: `Learns the app × platform score matrix of dataset --dataset (app_score, e.g. the Lumos
run times loaded with placelab ingest lumos) by SVD and SGD, then for each app of
--evaluate reveals --known of its measurements, folds it into the learned factors and
predicts the rest. With --evaluate equal to --dataset (the default) the apps are
evaluated fold by fold (--folds), never by a model that saw them. Prints Paragon Table
1's metrics; JSON keys: workloads, best_sc_accuracy, within_5pct_accuracy, rank_exact,
rank_90pct, rank_50pct, mean_abs_error, mean_rel_error, rank, fold_in_us, seconds.
The result is stored as a run (engine "paragon", policy "classify").

Example:
   placelab ingest lumos ../shared/data/lumos-cloud-perf/lumos_runs.csv --dataset lumos
   placelab paragon classify --dataset lumos --known 2 --format json`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "lumos", Usage: "training dataset `TRAIN`"},
				&cli.StringFlag{Name: "evaluate", Usage: "dataset `TEST` of apps to classify (default: TRAIN, by folds)"},
				intFlag("known", 2, 1, 0, "measurements revealed per app"),
				intFlag("folds", 5, 2, 0, "folds when TEST is TRAIN"),
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random `SEED`"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				test := c.String("evaluate")
				if test == "" {
					test = c.String("dataset")
				}
				if err := onlyWith(c, "folds", test == c.String("dataset"), "when --evaluate is --dataset (apps held out fold by fold)"); err != nil {
					return err
				}
				db, err := openDB(c)
				if err != nil {
					return err
				}
				defer db.Close()
				rep, err := analysis.EvaluateClassification(c.Context, db, c.String("dataset"), test, analysis.ClassifyOptions{
					Known: c.Int("known"), Folds: c.Int("folds"), Seed: c.Uint64("seed")})
				if err != nil {
					return err
				}
				if _, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "paragon", Policy: "classify", Dataset: test, Version: version,
					Seed: c.Uint64("seed"), Params: map[string]any{"train": rep.Train, "test": rep.Test, "known": rep.Known, "folds": rep.Folds}}, rep.Seconds, rep.Figures()); err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, rep)
				}
				h := rep.HeterogeneityMetrics
				fmt.Fprintf(c.App.Writer, "%d workloads of %s on %d platforms, %d known each (rank %d, fold-in %.1f µs)\n", h.Workloads, rep.Test, rep.Columns, rep.Known, rep.Rank, rep.FoldInUS)
				fmt.Fprintf(c.App.Writer, "best platform selected %.1f%%, within 5%% of best %.1f%%; ranking exact %.1f%%, 90%% of pairs %.1f%%, 50%% %.1f%%; mean abs error %.3f\n",
					100*h.BestSC, 100*h.Within5, 100*h.RankExact, 100*h.Rank90, 100*h.Rank50, h.MeanAbsError)
				b := rep.Baseline
				fmt.Fprintf(c.App.Writer, "baseline (platform means, no fold-in): best %.1f%%, within 5%% %.1f%%, mean abs error %.3f\n", 100*b.BestSC, 100*b.Within5, b.MeanAbsError)
				return nil
			},
		}, {
			Name:  "schedule",
			Usage: "place arriving apps on a heterogeneous cluster with interference (§4 scenarios)",
			Description: `Simulates Paragon's §4 scenarios — servers of several configurations, apps arriving at
low load, high load (with a burst of memory-bound apps) or oversubscribed — with each
app classified from its profiled entries, placed by --policy (paragon: greedy
interference- and heterogeneity-aware; nh: heterogeneity-oblivious; ni:
interference-oblivious; random; all), and its performance computed from its platform
score and the interference of its co-runners. QoS is met at ≥ 95% of the app's
performance alone on its best configuration. JSON keys: scenario, policy, qos_share,
mean_normalized_perf, ... Each result is stored as a run (engine "paragon").

Example:
   placelab paragon schedule --scenario high --policy all --format json`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "scenario", Value: "low", Usage: "`NAME`: low, high or oversubscribed"},
				&cli.StringFlag{Name: "policy", Value: "all", Usage: "`POLICY`: " + strings.Join(paragon.Policies, ", ") + " or all"},
				floatFlag("scale", 1, interval{lo: 0, hi: 10, openLo: true}, "scale servers and apps (1 = the paper's 1,000 servers)"),
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random `SEED`"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				cfg, err := paragon.Scenario(c.String("scenario"))
				if err != nil {
					return err
				}
				if s := c.Float64("scale"); s != 1 {
					cfg = cfg.Scaled(s)
				}
				cfg.Seed = c.Uint64("seed")
				pols := paragon.Policies
				if p := c.String("policy"); p != "all" {
					pols = []string{p}
				}
				res, err := paragon.SimulateAll(c.Context, cfg, pols)
				if err != nil {
					return err
				}
				db, err := openDB(c)
				if err != nil {
					return err
				}
				defer db.Close()
				for _, r := range res {
					if _, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "paragon", Policy: r.Policy, Version: version, Seed: r.Seed,
						Params: map[string]any{"scenario": r.Scenario, "scale": c.Float64("scale")}}, 0, analysis.ScheduleFigures(r)); err != nil {
						return err
					}
				}
				if format == "json" {
					if len(res) == 1 {
						return printJSON(c.App.Writer, res[0])
					}
					return printJSON(c.App.Writer, res)
				}
				fmt.Fprintf(c.App.Writer, "%-16s %-8s %6s %8s %10s %10s\n", "scenario", "policy", "apps", "qos_%", "mean_perf", "degr>20%")
				for _, r := range res {
					fmt.Fprintf(c.App.Writer, "%-16s %-8s %6d %8.1f %10.3f %10.1f\n", r.Scenario, r.Policy, r.Apps, 100*r.QoSShare, r.MeanNormalizedPerf, 100*r.Degraded20Share)
				}
				return nil
			},
		}},
	}
}

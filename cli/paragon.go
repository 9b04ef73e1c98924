package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer/paragon"
)

func paragonCommand() *cli.Command {
	defClassify := analysis.DefaultClassifyOptions()
	return &cli.Command{
		Name:  "paragon",
		Usage: "Paragon (ASPLOS'13): collaborative-filtering classification and interference-aware placement",
		Subcommands: []*cli.Command{{
			Name:  "classify",
			Usage: "classify apps on an app × platform matrix from a few profiling runs (Table 1), with the repeat ceiling",
			Description: `Learns the app × platform matrix of --dataset (app_score, e.g. the Lumos run times loaded
with placelab ingest lumos) and classifies every app of --evaluate as a new app would be
(Paragon §2.2): it is profiled on --known platforms, the others are predicted from those
measurements, and the classifier picks the platform to run it on.

  which platforms: --profile cv (default) chooses, by cross-validation on the training
      apps with whole applications held out, between "cover" (the K platforms that put a
      platform within 5% of the best in the profiled set of the most training apps) and
      "top-mean" (the K of highest mean score), and the override margin; --profile
      random draws K per app (the paper's "any two"), cover and top-mean force a method.
  the others: a log-space probabilistic PCA (--rank components) folded in from the
      measurements: the app's scale is one free offset, the components are damped by
      their prior, so two entries cannot blow up an ill-conditioned fit.
  the pick: the fastest profiled platform, unless the model predicts an unprofiled one
      faster by more than the margin (--margin, with --profile cover, top-mean or random).

With --evaluate equal to --dataset (the default) the apps are classified one application
at a time (Lumos: all data sizes of one program held out together; --folds N: N folds of
applications), never by a model that saw them. Only apps measured on every platform are
scored. Scoring is tie-aware: a platform whose true score ties the best counts as best.

Beside every accuracy it prints two references from the same apps: the platform means
(no profiling) and the same classifier profiling random platforms; and the repeat
ceiling: how often the fastest platform of one repeat of the measurements is the best,
or within 5% / 10% of the best, in another repeat of the same cells (from the runs behind
each cell; absent for a dataset ingested before placelab stored them). Best-platform
accuracy above the ceiling's is beyond what the data can tell apart: within 5% is the
figure that means something.

JSON keys: train, test, known, holdout, folds, applications, columns, profile_method,
chosen_methods, profile and profile_cv (TEST another dataset), workloads,
best_sc_accuracy, within_5pct_accuracy, within_10pct_accuracy, rank_exact, rank_90pct,
rank_50pct, training_best_match, mean_pair_order, mean_abs_error, mean_rel_error,
column_mean_baseline {same metrics}, random_profile {same metrics}, repeat_ceiling
{comparisons, best_sc_accuracy, within_5pct_accuracy, within_10pct_accuracy, campaigns
[{campaign, columns, comparisons, ...}]}, rank, seconds, fold_in_us.
The result is stored as a run (engine "paragon", policy "classify").

Examples:
   placelab ingest lumos ../shared/data/lumos-cloud-perf/lumos_runs.csv --dataset lumos
   placelab paragon classify --dataset lumos --known 2 --format json
   placelab paragon classify --dataset lumos --evaluate hive --known 5`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "lumos", Usage: "training dataset `TRAIN`"},
				&cli.StringFlag{Name: "evaluate", Usage: "dataset `TEST` of apps to classify (default: TRAIN, one application at a time)"},
				intFlag("known", defClassify.Platform.Known, 1, 0, "platforms profiled per app"),
				&cli.IntFlag{Name: "folds", Value: defClassify.Folds, Usage: "0: hold out one application at a time; N ≥ 2: N folds of applications (TEST = TRAIN only)",
					Action: func(_ *cli.Context, v int) error {
						if v < 0 || v == 1 {
							return fmt.Errorf("--folds %d: want 0 (one application at a time) or ≥ 2", v)
						}
						return nil
					}},
				&cli.StringFlag{Name: "profile", Value: defClassify.Platform.Method, Usage: "`METHOD` choosing the profiled platforms: " + strings.Join(paragon.SelectMethods, ", ")},
				floatFlag("margin", defClassify.Platform.Margin, interval{lo: 0, hi: math.Inf(1)}, "override margin: an unprofiled platform is picked when predicted more than 1+MARGIN times the fastest profiled (inf: never; --profile cover, top-mean or random only)"),
				intFlag("rank", defClassify.Platform.Rank, 0, 0, "components of the log-space PCA"),
				&cli.Uint64Flag{Name: "seed", Value: defClassify.Seed, Usage: "random `SEED` (random profiles)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				test := c.String("evaluate")
				if test == "" {
					test = c.String("dataset")
				}
				if err := onlyWith(c, "folds", test == c.String("dataset"), "when --evaluate is --dataset (applications held out fold by fold)"); err != nil {
					return err
				}
				if err := onlyWith(c, "margin", c.String("profile") != paragon.SelectCV, "with --profile cover, top-mean or random (cv chooses the margin)"); err != nil {
					return err
				}
				if m := c.String("profile"); !slices.Contains(paragon.SelectMethods, m) {
					return fmt.Errorf("--profile %q: want one of %s", m, strings.Join(paragon.SelectMethods, ", "))
				}
				o := defClassify
				o.Folds = c.Int("folds")
				o.Seed = c.Uint64("seed")
				o.Platform.Known = c.Int("known")
				o.Platform.Method = c.String("profile")
				o.Platform.Margin = c.Float64("margin")
				o.Platform.Rank = c.Int("rank")
				db, err := openDB(c)
				if err != nil {
					return err
				}
				defer db.Close()
				rep, err := analysis.EvaluateClassification(c.Context, db, c.String("dataset"), test, o)
				if err != nil {
					return err
				}
				if _, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "paragon", Policy: "classify", Dataset: test, Version: version,
					Seed: o.Seed, Params: map[string]any{"train": rep.Train, "test": rep.Test, "known": rep.Known, "folds": o.Folds, "holdout": rep.Holdout,
						"profile": o.Platform.Method, "margin": paragon.Margin(o.Platform.Margin), "rank": o.Platform.Rank}}, rep.Seconds, rep.Figures()); err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, rep)
				}
				printClassify(c.App.Writer, rep)
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

// printClassify writes the classification report as a table: each
// accuracy beside its references and the repeat ceiling.
func printClassify(w io.Writer, rep *analysis.ClassifyReport) {
	h := rep.HeterogeneityMetrics
	held := map[string]string{"application": "one application held out at a time", "folds": fmt.Sprintf("%d folds of applications", rep.Folds),
		"dataset": "a model trained on " + rep.Train}
	fmt.Fprintf(w, "%d workloads (%d applications) of %s on %d platforms, %d profiled each; %s\n", h.Workloads, rep.Applications, rep.Test, rep.Columns, rep.Known, held[rep.Holdout])
	methods := make([]string, 0, len(rep.ChosenMethods))
	for _, m := range slices.Sorted(maps.Keys(rep.ChosenMethods)) {
		methods = append(methods, fmt.Sprintf("%s ×%d", m, rep.ChosenMethods[m]))
	}
	fmt.Fprintf(w, "profile: %s (models used %s)", rep.ProfileMethod, strings.Join(methods, ", "))
	if len(rep.Profile) > 0 {
		fmt.Fprintf(w, "; platforms %s", strings.Join(rep.Profile, ", "))
	}
	fmt.Fprintf(w, "; log-PCA rank %d, %.1f µs per app\n\n", rep.Rank, rep.FoldInUS)
	fmt.Fprintf(w, "%-26s %8s %10s %11s %9s\n", "", "best_%", "within_5%", "within_10%", "abs_err")
	row := func(name string, m paragon.HeterogeneityMetrics) {
		fmt.Fprintf(w, "%-26s %8.1f %10.1f %11.1f %9.3f\n", name, 100*m.BestSC, 100*m.Within5, 100*m.Within10, m.MeanAbsError)
	}
	row("classifier", h)
	row("platform means", rep.Baseline)
	row("random profile", rep.RandomProfile)
	if c := rep.Ceiling; c != nil {
		fmt.Fprintf(w, "%-26s %8.1f %10.1f %11.1f %9s\n", fmt.Sprintf("repeat ceiling (%d pairs)", c.Comparisons), 100*c.BestSC, 100*c.Within5, 100*c.Within10, "")
		for _, k := range c.Campaigns {
			name := k.Campaign
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(w, "  %-24s %8.1f %10.1f %11.1f %9s\n", fmt.Sprintf("campaign %s, ≤%d platforms", name, k.Columns), 100*k.BestSC, 100*k.Within5, 100*k.Within10, "")
		}
	} else {
		fmt.Fprintf(w, "repeat ceiling: no repeated runs stored (re-ingest the dataset to store them)\n")
	}
}

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
	"placelab/analysis/characterize"
	"placelab/optimizer/paragon"
)

func paragonCommand() *cli.Command {
	defClassify := characterize.DefaultClassifyOptions()
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
				rep, err := characterize.EvaluateClassification(c.Context, db, c.String("dataset"), test, o)
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
			Usage: "place arriving apps on a heterogeneous cluster with interference (§4 scenarios), over seeds, beside an oracle",
			Description: `Simulates Paragon's §4 scenarios: servers of several configurations (SCs); apps arrive, are
profiled on two SCs and two microbenchmarks of each kind, classified by collaborative
filtering (§2), placed by each policy, and run at their platform score times the
interference of their co-runners. QoS is met at ≥ 95% of the app's performance alone on
its best SC.

Scenarios (--scenario): low, high and oversubscribed are §4's EC2 runs (1,000 servers of
14 SCs; 2,500, 5,000 and 7,500 apps at 1 s, the last with a burst of 1,000 after the
first 3,750); burst is §4's small-scale high load (40 servers of 10 SCs, 178 apps at 10 s,
50 memory-bound ones in a burst after the first 64). Load is stated against USABLE
capacity, not all cores: the largest steady core demand of the arrival mix that the
cluster can run with every app on an SC within 5% of its best (low 0.4 of it, high 0.75,
oversubscribed 0.9 plus the burst, burst 0.75). The server mix is left as drawn; the
output prints both the usable and the total cores.

Policies (--policy): paragon (§3.2's greedy: D1/D2 filtering, then the best SC, then the
tightest fit), oracle (the same greedy given the true scores instead of the classified
ones: the classifier's cost is the gap between the two), nh (heterogeneity-oblivious),
ni (interference-oblivious), random; all (the default) runs these five and the
oracle's two halves, oracle-platform (true platform scores, classified interference)
and oracle-interference (the other way round), whose share of the paragon → oracle gap
names its largest cause. paragon-sampled (§3.2's statistical selection) by name only.

Modelling choices, the paper's by default:
  --d1 min-tolerated   D1 = t_server − c_new with t_server the minimum tolerated score of
                       the server's apps (§3.2); headroom: each resident's tolerance less
                       the pressure the other residents already put on it (lenient; not
                       the paper's). Applies to the policies that use D1 (not ni, random).
  --interference compound   slowdowns of the ten sources of interference multiply;
                       worst: the worst one alone (lenient).

Every figure is over --seeds seeds from --seed (default 5 from 1): the median and the
range [min, max]. Seeds fix everything (cluster, apps, arrivals, profiles, tie-breaks):
the same seeds give byte-identical output. The table also prints Table 1's four
classification figures on the arriving apps, whether oracle ≥ paragon ≥ max(nh, ni,
random) on every seed, and Paragon's gap to the oracle.

JSON (--format json): an array of scenario summaries, each {scenario, seeds, servers,
apps, cores, usable_cores, load, load_basis, d1, interference_model, table1
{best_sc_accuracy, within_5pct_accuracy, rank_exact, rank_90pct}, policies [{policy,
qos_share, mean_normalized_perf, within_10pct_share, degraded_20pct_share,
qos_miss_platform, qos_miss_interference, peak_demand_usable, above_usable_share}],
ordering_checked, ordered_seeds, ordered, gap {oracle_minus_paragon, closed_by_true_platform,
closed_by_true_interference, largest_cause}, runs (with --runs: every per-seed result)};
every figure over seeds is {median, min, max, values}. Each per-seed result is stored as a
run (engine "paragon", policy the policy's name).

Examples:
   placelab paragon schedule --scenario low
   placelab paragon schedule --scenario all --seeds 5 --format json
   placelab paragon schedule --scenario high --policy paragon --d1 headroom --seed 7 --seeds 3`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "scenario", Value: paragon.ScenarioLow, Usage: "`NAME`: " + strings.Join(paragon.Scenarios, ", ") + " or all"},
				&cli.StringFlag{Name: "policy", Value: "all", Usage: "`POLICY`: " + strings.Join(paragon.AllPolicies, ", ") + " or all (the five compared and the oracle's two halves)"},
				intFlag("seeds", paragon.DefaultSeeds, 1, 1000, "number of seeds: every figure is the median and range over them"),
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "first random `SEED`: the seeds are SEED, SEED+1, …"},
				floatFlag("scale", 1, interval{lo: 0, hi: 10, openLo: true}, "scale servers and apps (1 = the paper's cluster)"),
				&cli.StringFlag{Name: "d1", Value: paragon.D1MinTolerated, Usage: "`RULE` for t_server in D1: " + paragon.D1MinTolerated + " (§3.2) or " + paragon.D1Headroom},
				&cli.StringFlag{Name: "interference", Value: paragon.InterferenceCompound, Usage: "`MODEL` combining the SoIs' slowdowns: " + paragon.InterferenceCompound + " or " + paragon.InterferenceWorst},
				&cli.BoolFlag{Name: "runs", Usage: "JSON: include every per-seed result (runs)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				scenarios := []string{c.String("scenario")}
				if scenarios[0] == "all" {
					scenarios = paragon.Scenarios
				} else if !slices.Contains(paragon.Scenarios, scenarios[0]) {
					return fmt.Errorf("--scenario %q: want one of %s or all", scenarios[0], strings.Join(paragon.Scenarios, ", "))
				}
				pols := append(slices.Clone(paragon.Policies), paragon.DiagnosticPolicies...)
				if p := c.String("policy"); p != "all" {
					if !slices.Contains(paragon.AllPolicies, p) {
						return fmt.Errorf("--policy %q: want one of %s or all", p, strings.Join(paragon.AllPolicies, ", "))
					}
					pols = []string{p}
				}
				d1 := c.String("d1")
				if d1 != paragon.D1MinTolerated && d1 != paragon.D1Headroom {
					return fmt.Errorf("--d1 %q: want %s (§3.2) or %s", d1, paragon.D1MinTolerated, paragon.D1Headroom)
				}
				if err := onlyWith(c, "d1", len(pols) > 1 || paragon.UsesD1(pols[0]), "to policies that decide through D1 (paragon, oracle and its halves, nh, paragon-sampled), not "+pols[0]); err != nil {
					return err
				}
				model := c.String("interference")
				if model != paragon.InterferenceCompound && model != paragon.InterferenceWorst {
					return fmt.Errorf("--interference %q: want %s or %s", model, paragon.InterferenceCompound, paragon.InterferenceWorst)
				}
				if err := onlyWith(c, "runs", format == "json", "with --format json"); err != nil {
					return err
				}
				seeds, err := paragon.Seeds(c.Uint64("seed"), c.Int("seeds"))
				if err != nil {
					return fmt.Errorf("--seed %d --seeds %d: %w", c.Uint64("seed"), c.Int("seeds"), err)
				}
				db, err := openDB(c)
				if err != nil {
					return err
				}
				defer db.Close()
				var sums []*paragon.Summary
				for _, sc := range scenarios {
					cfg, err := paragon.Scenario(sc)
					if err != nil {
						return err
					}
					if s := c.Float64("scale"); s != 1 {
						cfg = cfg.Scaled(s)
					}
					cfg.D1, cfg.Interference = d1, model
					sum, err := paragon.SimulateSeeds(c.Context, cfg, pols, seeds, true)
					if err != nil {
						return err
					}
					for _, r := range sum.Runs {
						if _, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "paragon", Policy: r.Policy, Version: version, Seed: r.Seed,
							Params: map[string]any{"scenario": r.Scenario, "scale": c.Float64("scale"), "d1": d1, "interference": model}}, 0, characterize.ScheduleFigures(r)); err != nil {
							return err
						}
					}
					if !c.Bool("runs") {
						sum.Runs = nil
					}
					sums = append(sums, sum)
				}
				if format == "json" {
					return printJSON(c.App.Writer, sums)
				}
				for i, s := range sums {
					if i > 0 {
						fmt.Fprintln(c.App.Writer)
					}
					printSchedule(c.App.Writer, s)
				}
				return nil
			},
		}},
	}
}

// printSchedule writes one scenario's summary: the cluster and its usable
// capacity, Table 1 on the arrivals beside the paper's, each policy's
// figures as median [min, max] over the seeds, the ordering check and the
// gap to the oracle.
func printSchedule(w io.Writer, s *paragon.Summary) {
	rng := func(r paragon.Range, scale float64, prec int) string {
		f := "%." + fmt.Sprint(prec) + "f"
		return fmt.Sprintf(f+" ["+f+", "+f+"]", scale*r.Median, scale*r.Min, scale*r.Max)
	}
	seeds := fmt.Sprint(s.Seeds[0])
	if n := len(s.Seeds); n > 1 {
		seeds = fmt.Sprintf("%d–%d", s.Seeds[0], s.Seeds[n-1])
	}
	fmt.Fprintf(w, "scenario %s: %d servers, %d apps, seeds %s (every figure: median [min, max] over the %d seeds)\n", s.Scenario, s.Servers, s.Apps, seeds, len(s.Seeds))
	fmt.Fprintf(w, "cores %s, usable capacity %s cores (apps on SCs within 5%% of their best); load %.2f of usable capacity\n",
		rng(s.Cores, 1, 0), rng(s.UsableCores, 1, 0), s.Load)
	fmt.Fprintf(w, "D1 %s, interference %s\n", s.D1, s.InterferenceModel)
	t := s.Table1
	fmt.Fprintf(w, "Table 1 on the arrivals (%%; paper ST–MP): best SC %s (83–86), within 5%% %s (89–91), exact ranking %s (59–67), almost correct (one pair out of order, \"90%% correct\") %s (63–78)\n\n",
		rng(t.BestSC, 100, 1), rng(t.Within5, 100, 1), rng(t.RankExact, 100, 1), rng(t.Rank90, 100, 1))
	fmt.Fprintf(w, "%-20s %-20s %-24s %-20s %-20s %-18s\n", "policy", "qos_%", "mean_perf", "miss_platform_%", "miss_interf_%", "above_usable_%")
	for _, p := range s.Policies {
		fmt.Fprintf(w, "%-20s %-20s %-24s %-20s %-20s %-18s\n", p.Policy, rng(p.QoSShare, 100, 1), rng(p.MeanNormalizedPerf, 1, 3),
			rng(p.MissPlatform, 100, 1), rng(p.MissInterference, 100, 1), rng(p.AboveUsableShare, 100, 1))
	}
	if s.OrderingChecked {
		fmt.Fprintf(w, "\noracle ≥ paragon ≥ max(nh, ni, random) in QoS share on %d of %d seeds\n", s.OrderedSeeds, len(s.Seeds))
	}
	if g := s.Gap; g != nil {
		fmt.Fprintf(w, "paragon's gap to the oracle: %s points of QoS; true platform scores close %s, true interference scores %s: largest cause %s\n",
			rng(g.OracleMinusParagon, 100, 1), rng(g.TruePlatform, 100, 1), rng(g.TrueInterference, 100, 1), g.LargestCause)
	}
}

// printClassify writes the classification report as a table: each
// accuracy beside its references and the repeat ceiling.
func printClassify(w io.Writer, rep *characterize.ClassifyReport) {
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

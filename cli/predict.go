package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/predict"
)

func predictCommand() *cli.Command {
	def := predict.DefaultTrainOptions("")
	return &cli.Command{
		Name:  "predict",
		Usage: "Resource Central's predictions (SOSP'17 §4, §6.1): train bucket classifiers from a dataset, evaluate them as Table 4 does",
		Description: `Resource Central predicts, when a VM is created, the Table 3 bucket of six metrics:
   avg_cpu, p95_cpu         average and P95 CPU utilization (0-25, 25-50, 50-75, 75-100%)
   deploy_vms, deploy_cores its deployment's size in VMs and cores (1, 2-10, 11-100, >100)
   lifetime                 <=15 min, 15-60 min, 1-24 h, >24 h
   workload_class           delay-insensitive, interactive
Models are XGBoost classifiers (RC Table 1: random forests for the CPU metrics, gradient-
boosted trees for the rest) over the rc_features view: each VM's features as of its
creation (its subscription's — else its tenant's — earlier VMs per bucket to date, VM size
and type, time of day and week, category, its deployment so far). They learn from the VMs
created in the first two thirds of the dataset's span of creation times and are tested on
the last third, never on shuffled rows. Labels are as known at the cut: a VM still running
then (or right-censored in the trace) is only "longer than its age", never finished.

Beyond Table 4, lifetime_dist models the lifetime as a distribution: XGBoost's survival:aft
objective (log-normal, ln T = mu(x) + sigma Z) learns from every training VM, a VM still
running at the cut censored at its age rather than dropped; placelab predict survival tests it.

Subcommands: train, evaluate, survival, models. Models are stored in the database (table
model) as DATASET/METRIC/APPROACH (lifetime_dist: DATASET/lifetime_dist/xgboost-aft);
evaluations are runs (engine "predict"; view rc_table4 sets Table 4's beside the paper;
placelab report shows them).

Examples:
   placelab predict train --dataset huawei-east-1 --metric lifetime
   placelab predict train --dataset synthetic --metric all
   placelab predict evaluate --dataset synthetic --format json
   placelab predict train --dataset huawei-east-1 --metric lifetime_dist
   placelab predict survival --dataset huawei-east-1
   placelab sql --view rc_table4`,
		Subcommands: []*cli.Command{
			{
				Name:  "train",
				Usage: "train and store one model per metric",
				Description: `Trains the --metric models of --dataset on its first --train-share of creation times
and stores them (replacing models of the same name). With --metric all, a metric the dataset
has no labels for (e.g. CPU without utilization data) is skipped and said so; a metric named
explicitly must have labels. Training is seeded (--seed): the same seed gives the same model.
lifetime_dist (not part of "all") trains the survival model on the same VMs: its sigma is
chosen from --sigma by the mean log-likelihood on the VMs created in the last fifth of the
training span, models fitted on the first four fifths (labels as known at that inner cut)
with the first --half-life's weights; then each other --half-life is tried at that sigma,
and the one gaining the most log-likelihood is taken if its gain exceeds 2 standard errors
(paired over the validation VMs, clustered by subscription or tenant). A half-life h weighs
a training VM created d before the cut 2^(-d/h), so a trace whose lifetimes drift is learned
mostly from its newest VMs; none weighs them all the same. --rounds and --max-depth apply
to it too.
JSON: dataset, split {From, Cut, To}, models [{name, metric, approach, train_rows,
importance [{feature, gain}], params, half_life_s, ...; lifetime_dist also train_censored,
sigma_grid [{sigma, half_life_s, validation_loglik, validation_c_index}]}], skipped
{metric: why}.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Required: true, Usage: "dataset `NAME`"},
					&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Value: "all", Usage: "`METRICS`: all or a comma-separated list of avg_cpu, p95_cpu, deploy_vms, deploy_cores, lifetime, workload_class, lifetime_dist"},
					&cli.StringFlag{Name: "approach", Usage: "`APPROACH` for every metric: xgboost or random-forest (default: RC Table 1's per metric)"},
					&cli.StringFlag{Name: "from", Usage: "start the span of creation times at `T` (e.g. 100d; default: the first creation)"},
					floatFlag("train-share", def.TrainShare, interval{lo: 0, hi: 1, openLo: true, openHi: true}, "share of the span of creation times to train on (RC: two months of three)"),
					intFlag("rounds", def.Boosted.Rounds, 1, 10000, "boosting rounds of the gradient-boosted trees"),
					intFlag("trees", def.Forest.NumParallelTree, 1, 10000, "trees of a random forest"),
					intFlag("max-depth", def.Boosted.MaxDepth, 1, 64, "maximum tree depth (every approach)"),
					&cli.StringFlag{Name: "sigma", Value: formatFloats(def.Sigmas), Usage: "lifetime_dist: comma-separated `SIGMAS` to choose the log-normal sigma from (one value, with one --half-life: no search)"},
					&cli.StringFlag{Name: "half-life", Value: formatHalfLives(def.HalfLives), Usage: "lifetime_dist: comma-separated `HALF_LIVES` of the training weights to choose from, none or a duration (90m, 12h, 3d; a bare number is seconds)"},
					&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random `SEED` (row and column subsampling)"},
					formatFlag("table", "json"),
				},
				Action: func(c *cli.Context) error {
					o := predict.DefaultTrainOptions(c.String("dataset"))
					ms, err := predict.ParseMetrics(c.String("metric"))
					if err != nil {
						return err
					}
					o.Metrics, o.AllMetrics = ms, c.String("metric") == "all"
					o.Approach, o.TrainShare, o.Seed = c.String("approach"), c.Float64("train-share"), c.Uint64("seed")
					if c.IsSet("from") {
						if o.From, err = timeFlag(c, "from", 0); err != nil {
							return err
						}
					}
					if o.Sigmas, err = parseSigmas(c.String("sigma")); err != nil {
						return err
					}
					if o.HalfLives, err = parseHalfLives(c.String("half-life")); err != nil {
						return err
					}
					o.Boosted.Rounds, o.Forest.NumParallelTree = c.Int("rounds"), c.Int("trees")
					o.Survival.Rounds, o.Survival.MaxDepth = c.Int("rounds"), c.Int("max-depth")
					o.Boosted.MaxDepth, o.Forest.MaxDepth = c.Int("max-depth"), c.Int("max-depth")
					if !c.IsSet("max-depth") {
						o.Forest.MaxDepth = def.Forest.MaxDepth
					}
					o.Progress = say(c)
					db, err := openDB(c)
					if err != nil {
						return err
					}
					defer db.Close()
					res, err := predict.Train(c.Context, db, o)
					if err != nil {
						return err
					}
					defer res.Close()
					if c.String("format") == "json" {
						return printJSON(c.App.Writer, res)
					}
					w := c.App.Writer
					fmt.Fprintf(w, "%s: trained on VMs created in [%.0f, %.0f) s, tested later on [%.0f, %.0f] s\n",
						res.Dataset, res.Split.From, res.Split.Cut, res.Split.Cut, res.Split.To)
					fmt.Fprintf(w, "%-40s %-15s %10s %8s  %s\n", "model", "metric", "train_vms", "seconds", "top features (share of gain)")
					for _, m := range res.Models {
						var top []string
						for i, f := range m.Importance {
							if i == 3 {
								break
							}
							top = append(top, fmt.Sprintf("%s %.2f", f.Feature, f.Gain))
						}
						fmt.Fprintf(w, "%-40s %-15s %10d %8.2f  %s\n", m.Name, m.Metric, m.TrainRows, m.Seconds, strings.Join(top, ", "))
						if _, sigma, ok := m.Survival(); ok {
							fmt.Fprintf(w, "  %d of the training VMs censored at the cut; sigma %g, half-life %s", m.TrainCensored, sigma, predict.HalfLifeString(m.HalfLife))
							for _, g := range m.SigmaGrid {
								fmt.Fprintf(w, "; sigma %g half-life %s: log-likelihood %.4f, C %.4f", g.Sigma, predict.HalfLifeString(g.HalfLife), g.LogLik, float64(g.CIndex))
								if g.HasGain {
									fmt.Fprintf(w, ", gain %.4f ± %.4f", g.Gain, g.GainSE)
								}
							}
							fmt.Fprintln(w)
						}
					}
					for _, m := range append(predict.Metrics, predict.LifetimeDist) {
						if why, ok := res.Skipped[m]; ok {
							fmt.Fprintf(w, "skipped %s: %s\n", m, why)
						}
					}
					return nil
				},
			},
			{
				Name:  "evaluate",
				Usage: "Table 4 on the test window: each model beside the majority bucket and the subscription-history rule",
				Description: `Scores the stored models of --dataset on the VMs created after their training cut whose
bucket is known (censored lifetimes not yet past 24 h are left out and counted), beside two
baselines: majority (the most common training bucket) and history (the bucket most of the
VM's subscription's earlier VMs fell in, placelab's rule before models; without history the
majority bucket as a no-prediction). Columns are Table 4's: accuracy; per bucket the share
of test VMs, precision and recall; P^θ (share of predictions scoring >= 0.6 that are right)
and R^θ (share of test VMs given a right prediction scoring >= 0.6). The evaluation is a run
(engine "predict"); view rc_table4 sets the latest beside the paper (not for synthetic data).
JSON: run_id, dataset, entity, theta, rows [{metric, predictor, model, vms, accuracy,
buckets [{bucket, label, vms, share, precision, recall}], p_theta, r_theta, coverage}],
tests [{metric, model, from_s, to_s, created, known, censored_unknown, train_rows}].`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Required: true, Usage: "dataset `NAME`"},
					&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRICS` (default: every metric with a stored model)"},
					&cli.StringFlag{Name: "approach", Usage: "`APPROACH` of the models to evaluate (default: RC Table 1's per metric)"},
					formatFlag("table", "json"),
				},
				Action: func(c *cli.Context) error {
					o := predict.EvalOptions{Dataset: c.String("dataset"), Approach: c.String("approach"), Version: version, Progress: say(c)}
					if c.IsSet("metric") {
						ms, err := predict.ParseMetrics(c.String("metric"))
						if err != nil {
							return err
						}
						o.Metrics = ms
					}
					db, err := openDB(c)
					if err != nil {
						return err
					}
					defer db.Close()
					ev, err := predict.Evaluate(c.Context, db, o)
					if err != nil {
						return err
					}
					if c.String("format") == "json" {
						return printJSON(c.App.Writer, ev)
					}
					printTable4(c.App.Writer, ev)
					return nil
				},
			},
			{
				Name:  "survival",
				Usage: "test the lifetime_dist model: concordance, calibration and bucket accuracy beside baselines",
				Description: `Tests --dataset's stored lifetime_dist model (placelab predict train --metric lifetime_dist)
on the VMs created after its training cut, with lifetimes as the whole trace knows them (a VM
still running at the end censored at its observed age):
   c_index             Harrell's concordance of the predicted median exp(mu) with the true
                       lifetimes (censored pairs compared only where the order is known)
   c_index_km_by_type  the same for the features-free baseline: each VM's type's Kaplan-Meier
                       median lifetime, fitted on the training VMs
   calibration         at 15 min, 1 h and 24 h: the mean predicted P(T > h) beside the test
                       VMs' Kaplan-Meier estimate
   bucket_accuracy     the most probable Table 3 lifetime bucket of the distribution against
                       the true bucket (VMs whose bucket is known), beside the stored lifetime
                       bucket classifier on the same VMs (null without one) and the majority
                       training bucket
   bucket_accuracy_followed
                       the same three on the followed VMs: created at least 24 h before the
                       trace's last observed instant, so each has a known bucket whatever its
                       lifetime. Among later VMs censoring keeps only those that ended, the
                       short-lived, so bucket_accuracy favours short predictions when the test
                       part has censored VMs; this one does not
The evaluation is a run (engine "predict", policy "survival"; its params hold the JSON).
JSON: run_id, dataset, model, distribution, sigma, train_from_s, cut_s, train_vms, test_vms,
censored_test_vms, comparable_pairs, c_index, c_index_km_by_type, km_types, calibration
[{horizon_s, predicted, kaplan_meier}], bucket_test_vms, bucket_accuracy, classifier,
bucket_accuracy_classifier, majority_bucket, bucket_accuracy_majority, followed_test_vms,
bucket_accuracy_followed, bucket_accuracy_classifier_followed, bucket_accuracy_majority_followed,
seconds.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Required: true, Usage: "dataset `NAME`"},
					formatFlag("table", "json"),
				},
				Action: func(c *cli.Context) error {
					db, err := openDB(c)
					if err != nil {
						return err
					}
					defer db.Close()
					ev, err := predict.EvaluateSurvival(c.Context, db, predict.SurvivalEvalOptions{Dataset: c.String("dataset"), Version: version, Progress: say(c)})
					if err != nil {
						return err
					}
					if c.String("format") == "json" {
						return printJSON(c.App.Writer, ev)
					}
					printSurvival(c.App.Writer, ev)
					return nil
				},
			},
			{
				Name:  "models",
				Usage: "list the stored models",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "only this dataset's `NAME`"},
					formatFlag("table", "json"),
				},
				Action: func(c *cli.Context) error {
					db, err := openDB(c)
					if err != nil {
						return err
					}
					defer db.Close()
					ms, err := predict.ListModels(c.Context, db, c.String("dataset"))
					if err != nil {
						return err
					}
					if c.String("format") == "json" {
						return printJSON(c.App.Writer, ms)
					}
					fmt.Fprintf(c.App.Writer, "%-40s %-15s %-14s %10s %-12s %s\n", "name", "metric", "approach", "train_vms", "entity", "trained_at")
					for _, m := range ms {
						fmt.Fprintf(c.App.Writer, "%-40s %-15s %-14s %10d %-12s %s\n", m.Name, m.Metric, m.Approach, m.TrainRows, m.Features.Entity, m.TrainedAt.Format("2006-01-02 15:04:05"))
					}
					return nil
				},
			},
		},
	}
}

// say prints progress messages on stderr unless --quiet.
func say(c *cli.Context) func(string) {
	if c.Bool("quiet") {
		return nil
	}
	return func(msg string) { fmt.Fprintln(os.Stderr, "predict:", msg) }
}

func printTable4(w io.Writer, ev *predict.Evaluation) {
	f := func(x predict.Frac) string {
		if math.IsNaN(float64(x)) {
			return "   -"
		}
		return fmt.Sprintf("%.2f", float64(x))
	}
	fmt.Fprintf(w, "run %d: %s (entity: %s), theta %.1f\n", ev.RunID, ev.Dataset, ev.Entity, ev.Theta)
	for _, t := range ev.Tests {
		fmt.Fprintf(w, "  %-14s trained on %d VMs; tested on VMs created in [%.0f, %.0f] s: %d created, %d with a known bucket", t.Metric, t.TrainRows, t.From, t.To, t.Created, t.Known)
		if t.Censored > 0 {
			fmt.Fprintf(w, ", %d censored under 24 h left out", t.Censored)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-14s %-14s %8s %5s", "metric", "predictor", "vms", "acc")
	for b := 1; b <= 4; b++ {
		fmt.Fprintf(w, " | %4s %4s %4s", fmt.Sprintf("%%b%d", b), "P", "R")
	}
	fmt.Fprintf(w, " | %5s %5s\n", "P^θ", "R^θ")
	for _, r := range ev.Rows {
		fmt.Fprintf(w, "%-14s %-14s %8d %5s", r.Metric, r.Predictor, r.VMs, f(r.Accuracy))
		for b := 0; b < 4; b++ {
			if b < len(r.Buckets) {
				bk := r.Buckets[b]
				fmt.Fprintf(w, " | %3.0f%% %4s %4s", 100*float64(bk.Share), f(bk.Precision), f(bk.Recall))
			} else {
				fmt.Fprintf(w, " | %4s %4s %4s", "NA", "NA", "NA")
			}
		}
		fmt.Fprintf(w, " | %5s %5s\n", f(r.PTheta), f(r.RTheta))
	}
}

// parseSigmas reads --sigma's comma-separated list of positive values.
func parseSigmas(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--sigma %q: want comma-separated finite values > 0", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseHalfLives reads --half-life's comma-separated list: none (0) or a
// duration as --from takes one.
func parseHalfLives(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "none" {
			out = append(out, 0)
			continue
		}
		v, err := parseTime(f, 0)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--half-life %q: want comma-separated none or durations > 0 (90m, 12h, 3d; a bare number is seconds)", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// formatHalfLives prints half-lives as --half-life takes them.
func formatHalfLives(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = predict.HalfLifeString(x)
	}
	return strings.Join(s, ",")
}

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func printSurvival(w io.Writer, ev *predict.SurvivalEvaluation) {
	f := func(x predict.Frac) string {
		if math.IsNaN(float64(x)) {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(x))
	}
	fmt.Fprintf(w, "run %d: %s, model %s (%s, sigma %g), trained on %d VMs created in [%.0f, %.0f) s\n",
		ev.RunID, ev.Dataset, ev.Model, ev.Distribution, ev.Sigma, ev.TrainVMs, ev.TrainFrom, ev.Cut)
	fmt.Fprintf(w, "test: %d VMs created at or after %.0f s, %d censored; %d comparable pairs\n", ev.TestVMs, ev.Cut, ev.CensoredTestVMs, ev.ComparablePairs)
	fmt.Fprintf(w, "C-index  model %s   per-type Kaplan-Meier median (%d types) %s\n", f(ev.CIndex), ev.KMTypes, f(ev.CIndexKMByType))
	fmt.Fprintf(w, "%-10s %10s %14s\n", "horizon", "predicted", "Kaplan-Meier")
	for _, p := range ev.Calibration {
		fmt.Fprintf(w, "%-10s %10s %14s\n", (time.Duration(p.HorizonS) * time.Second).String(), f(p.Predicted), f(p.KaplanMeier))
	}
	fmt.Fprintf(w, "bucket accuracy on %d VMs with a known bucket: model %s, classifier %s, majority (bucket %d) %s\n",
		ev.BucketTestVMs, f(ev.BucketAccuracy), f(ev.BucketAccuracyClassifier), ev.MajorityBucket, f(ev.BucketAccuracyMajority))
	fmt.Fprintf(w, "  on the %d followed for 24 h (no censoring bias): model %s, classifier %s, majority %s\n",
		ev.FollowedTestVMs, f(ev.BucketAccuracyFollowed), f(ev.BucketAccuracyClassifierFollowed), f(ev.BucketAccuracyMajorityFollowed))
	if ev.ClassifierNote != "" {
		fmt.Fprintf(w, "classifier: %s\n", ev.ClassifierNote)
	}
}

package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/analysis/oversub"
	"placelab/predict"
)

func oversubCommand() *cli.Command {
	def := oversub.DefaultOptions()
	return &cli.Command{
		Name:  "oversub",
		Usage: "prediction-informed CPU oversubscription (Resource Central §5–6): replay the arms, count readings above 100% and failures",
		Description: `Replays --dataset through Protean under one arm of Resource Central's §6.2 (or all):
   baseline        no oversubscription
   naive           non-production VMs oversubscribe up to --max-oversub, no predictions
   rc-hard         Algorithm 1 with P95 predictions from each subscription's history to date
   rc-soft         the same, the utilization check as a soft rule
   rc-model        the soft rule with P95 predictions from the dataset's trained model, served
                   by Resource Central's client (placelab predict train --metric p95_cpu first;
                   with --arm all it is skipped, and said so, when no model is stored)
   rc-soft-right   soft rule, an oracle that always names the true P95 bucket
   rc-soft-wrong   soft rule, an oracle that always names a wrong bucket
Each VM gets a CPU series from --series (a dataset of CPU readings, e.g. the Azure V1
series ingested with placelab ingest azure-cpu; default: the dataset's own), similar
within a subscription; --production-share of the subscriptions are production and never
oversubscribed. Server utilization is read every 5 minutes as the sum of the co-located
VMs' maximum utilizations (RC's pessimistic aggregation); the summary counts readings
above 100% and scheduling failures. Each arm is stored as a run (engine "oversub";
view oversub_arms; the report's oversubscription section). JSON keys: run_id, arm, vms, failures, failure_pct, readings,
readings_over_100, mean_util_pct, p99_util_pct, oversubscribed_readings,
non_production_requests, confident_predictions, correct_predictions, in_sample_requests
(rc-model: requests created before the model's training cut, whose predictions are
in-sample; replay --from the cut for an out-of-sample comparison), seconds.

Examples:
   placelab oversub --arm all --dataset synthetic
   placelab oversub --arm rc-soft --max-oversub 1.15 --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "arm", Value: "all", Usage: "`ARM`: " + strings.Join(oversub.Arms, ", ") + " or all"},
			replayDatasetFlag(),
			&cli.StringFlag{Name: "series", Usage: "dataset whose CPU readings give the VMs their utilization (default: --dataset)"},
			floatFlag("max-oversub", def.MaxOversub, interval{lo: 1, hi: math.Inf(1), openHi: true}, "MAX_OVERSUB: allocated vcores / physical cores on oversubscribable servers"),
			floatFlag("max-util", def.MaxUtil, positive, "MAX_UTIL: predicted P95 cores / physical cores"),
			floatFlag("production-share", def.ProductionShare, unit, "share of subscriptions tagged production (0: none, every VM oversubscribable)"),
			&cli.StringFlag{Name: "from", Usage: "start of the window (e.g. 2d)"},
			&cli.StringFlag{Name: "to", Usage: "end of the window"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random `SEED` (series assignment, tags, wrong oracle)"},
			&cli.StringFlag{Name: "approach", Usage: "rc-model: the P95 model's `APPROACH`, xgboost or random-forest (default: RC Table 1's random forest)"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			arms := []string{c.String("arm")}
			if arms[0] == "all" {
				arms = oversub.Arms
			}
			// A flag an arm cannot honour is refused: the baseline does not
			// oversubscribe or tell production apart, naive has no
			// predictions to hold to MAX_UTIL.
			if arms[0] == "baseline" {
				for _, f := range []string{"max-oversub", "max-util", "production-share"} {
					if err := onlyWith(c, f, false, "to the arms that oversubscribe (not baseline)"); err != nil {
						return err
					}
				}
			}
			if err := onlyWith(c, "max-util", arms[0] != "naive", "to the arms with predictions (not naive)"); err != nil {
				return err
			}
			if err := onlyWith(c, "approach", arms[0] == "rc-model" || arms[0] == "all", "to the rc-model arm"); err != nil {
				return err
			}
			from, to, err := window(c)
			if err != nil {
				return err
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			dataset, err := datasetArg(c, db)
			if err != nil {
				return err
			}
			var out []*oversub.Result
			for _, arm := range arms {
				bar := newProgress("oversub "+arm, "requests", c.Bool("quiet"))
				o := def
				o.Arm, o.MaxOversub, o.MaxUtil = arm, c.Float64("max-oversub"), c.Float64("max-util")
				o.ProductionShare, o.Series, o.Seed = c.Float64("production-share"), c.String("series"), c.Uint64("seed")
				o.From, o.To, o.Progress = from, to, bar.Update
				if arm == "rc-model" {
					pred, cut, rc, err := oversub.P95Predictor(c.Context, db, dataset, c.String("approach"))
					if errors.Is(err, predict.ErrNoModel) && len(arms) > 1 {
						bar.Done()
						fmt.Fprintf(os.Stderr, "oversub: rc-model skipped: %v\n", err)
						continue
					}
					if err != nil {
						bar.Done()
						return err
					}
					defer rc.Close()
					o.Predict, o.ModelCut = pred, cut
				}
				r, err := oversub.Run(c.Context, db, o.For(dataset))
				bar.Done()
				if err != nil {
					return err
				}
				id, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "oversub", Policy: arm, Dataset: dataset,
					Version: version, Seed: c.Uint64("seed"), Params: map[string]any{"series": r.Series, "max_oversub": r.MaxOversub,
						"max_util": r.MaxUtil, "production_share": c.Float64("production-share"), "model_cut_s": o.ModelCut}}, r.Seconds, r.Figures())
				if err != nil {
					return err
				}
				r.RunID = id
				out = append(out, r)
			}
			if format == "json" {
				if len(out) == 1 {
					return printJSON(c.App.Writer, out[0])
				}
				return printJSON(c.App.Writer, out)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%6s %-14s %8s %9s %9s %12s %9s %9s %11s %10s\n", "run", "arm", "vms", "failures", "fail_%", "readings", ">100%", "mean_%", "oversub_rd", "confident")
			for _, r := range out {
				fmt.Fprintf(w, "%6d %-14s %8d %9d %9.3f %12d %9d %9.2f %11d %10d\n", r.RunID, r.Arm, r.VMs, r.Failures, r.FailurePct, r.Readings, r.ReadingsOver100, r.MeanUtilPct, r.OversubscribedReadings, r.Confident)
			}
			return nil
		},
	}
}

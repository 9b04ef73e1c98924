package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

func lifetimeCommand() *cli.Command {
	def := analysis.DefaultLifetimeOptions()
	return &cli.Command{
		Name:  "lifetime",
		Usage: "lifetime-aware placement (after Google's LAVA): replay with and without PreferAlignedLifetime, count empty machines",
		Description: `Replays --dataset through Protean once per arm and compares how many machines stay empty.
The lifetime rule, PreferAlignedLifetime, puts a VM where its neighbours' predicted lifetimes
match its own, so that machines drain together and empty machines appear (in the spirit of
Google's LAVA). Predictions are Resource Central's lifetime buckets (Table 3):
   1: <= 15 min   2: 15-60 min   3: 1-24 h   4: > 24 h   0: no prediction
A machine's class is the longest bucket among its VMs. Scores, lower is better:
   VM without prediction                  0 on every machine (indifferent)
   machine whose class covers the VM's    class - bucket (0..3: the same class first)
   non-empty machine, no VM predicted     4
   machine whose class is below the VM's  4 + bucket - class (5..7: VM extends its life)
   empty machine                          8 (last; PreferNonEmptyMachines ranks it last anyway)
The rule comes after PreferNonEmptyMachines (empty machines stay the reserve) and before
BestFit (packing breaks ties within a class).

Arms (--arms, comma-separated):
   off      Protean's default rules, without the lifetime rule
   oracle   the lifetime rule on the true buckets: a VM's remaining lifetime when placed;
            a censored VM (no end) is bucket 4 if it was seen alive more than 24 h after
            placement (vm_censor, else the dataset's last event), else unpredicted
   model    the lifetime rule on the buckets of the dataset's trained lifetime model
            (placelab predict train --dataset D --metric lifetime), served by Resource
            Central's client; a prediction scoring under 0.6 is none. Predictions for VMs
            created before the model's training cut (printed) are in-sample: give --from
            the cut for an out-of-sample comparison
Every arm runs under the same terms: the dataset's inventory, Protean's default settings,
validators and eviction setting, --seed, the --from/--to window; only the rule set and the
buckets differ. A request of several VMs carries one bucket, the longest of its VMs'.

Figures per arm (each stored as a run, engine "lifetime"):
   empty_machines_time_mean  machines with no VM, time-weighted mean over the window
                             (its start, or 0, to the last arrival or --to), exact from
                             the run's placements; empty_% is it over the machines
   packing_density_mean_pct  the run's packing_density_mean (allocated cores / cores of
                             non-empty machines, Protean §6.3), in percent
   rejected, rejection_rate_pct   VMs rejected, and their share of the VMs replayed
   coverage_pct, accuracy_pct     VMs whose request carried a bucket; those whose own true
                             bucket is that bucket, as a share of them
JSON (--format json, an array with one object per arm) adds true_buckets (VMs per true
bucket, index 0: censored and unproven), censored_vms, preference_order, latency_p50_us,
latency_p99_us, replay_seconds and seconds.

Examples:
   placelab ingest huawei ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory synthetic:1500
   placelab lifetime --dataset huawei --arms off,oracle
   placelab lifetime --dataset synthetic --arms oracle --from 1d --to 3d --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "synthetic", Usage: "dataset `NAME` to replay (it needs machines)"},
			&cli.StringFlag{Name: "arms", Value: "off,oracle", Usage: "comma-separated `ARMS`: " + strings.Join(analysis.LifetimeArms, ", ")},
			&cli.StringFlag{Name: "from", Usage: "start of the window (e.g. 2d; default: the trace's start)"},
			&cli.StringFlag{Name: "to", Usage: "end of the window (default: the last arrival)"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "engine `SEED` (tie-breaks), the same for every arm"},
			&cli.StringFlag{Name: "approach", Usage: "model arm: the lifetime model's `APPROACH`, xgboost or random-forest (default: RC Table 1's xgboost)"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			from, to, err := window(c)
			if err != nil {
				return err
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			dataset := c.String("dataset")
			// Every arm is checked before any runs.
			var opts []analysis.LifetimeOptions
			for _, arm := range strings.Split(c.String("arms"), ",") {
				arm = strings.TrimSpace(arm)
				switch {
				case !slices.Contains(analysis.LifetimeArms, arm):
					return fmt.Errorf("--arms: unknown arm %q: want %s", arm, orList(analysis.LifetimeArms))
				}
				for _, o := range opts {
					if o.Arm == arm {
						return fmt.Errorf("--arms: arm %s given twice", arm)
					}
				}
				base := def
				base.Seed, base.From, base.To = c.Uint64("seed"), from, to
				o, cut, closeArm, err := analysis.LifetimeArm(c.Context, db, dataset, arm, c.String("approach"), base)
				if err != nil {
					return fmt.Errorf("--arms %s: %w", arm, err)
				}
				defer closeArm()
				if arm == "model" && !c.Bool("quiet") {
					fmt.Fprintf(os.Stderr, "lifetime: model arm: %s trained on VMs created before %.0f s; their predictions are in-sample\n",
						dataset+"/lifetime", cut)
				}
				opts = append(opts, o)
			}
			out := []*analysis.LifetimeResult{}
			for _, o := range opts {
				bar := newProgress("lifetime "+o.Arm, "requests", c.Bool("quiet"))
				o.Progress = bar.Update
				r, err := analysis.LifetimeRun(c.Context, db, dataset, o, version)
				bar.Done()
				if err != nil {
					return err
				}
				out = append(out, r)
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, out)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%6s %-7s %8s %8s %8s %7s %11s %8s %10s %11s %11s %9s\n", "run", "arm", "machines", "vms", "rejected", "rej_%",
				"empty_mean", "empty_%", "density_%", "coverage_%", "accuracy_%", "seconds")
			for _, r := range out {
				fmt.Fprintf(w, "%6d %-7s %8d %8d %8d %7.3f %11.2f %8.2f %10.2f %11.2f %11.2f %9.1f\n", r.RunID, r.Arm, r.Machines, r.VMs, r.Rejected,
					r.RejectionRatePct, r.EmptyMachinesTimeMean, 100*r.EmptyMachinesTimeMean/float64(r.Machines), r.PackingPct, r.CoveragePct, r.AccuracyPct, r.Seconds)
			}
			return nil
		},
	}
}

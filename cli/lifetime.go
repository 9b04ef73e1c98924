package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/analysis/lifetime"
)

func lifetimeCommand() *cli.Command {
	return &cli.Command{
		Name:  "lifetime",
		Usage: "lifetime-aware placement: Protean with and without lifetime rules (RC buckets, NILAS and LAVA on repredicted distributions), empty machines out of sample",
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
   off           Protean's default rules, without a lifetime rule
   oracle        PreferAlignedLifetime on the true buckets: a VM's remaining lifetime when placed;
                 a censored VM (no end) is bucket 4 if it was seen alive more than 24 h after
                 placement (vm_censor, else the dataset's last event), else unpredicted
   model         PreferAlignedLifetime on the buckets of the dataset's trained lifetime
                 classifier (placelab predict train --metric lifetime), one-shot, served by
                 Resource Central's client; a prediction scoring under 0.6 is none
   nilas         PreferLifetimeNILAS on the survival model's lifetime distributions
                 (placelab predict train --metric lifetime_dist: XGBoost survival:aft),
                 repredicted as VMs age: a machine's class is the class of its predicted empty
                 time, the median time by which all its VMs have ended, each VM's remaining
                 lifetime repredicted from its age (refreshed on every placement, departure
                 and every --repredict-every); among the machines BestFit ranks best, a VM
                 goes to the one whose class covers its own closest (it ends before the
                 machine would empty), else where it extends the machine's life least
   lava          PreferLifetimeLAVA on the same distributions: a short-lived VM goes to the
                 machine anchored by the longest-lived VMs (LAVA), machines that will empty
                 soon are left to drain; a machine's class is revised when its VMs outlive
                 their prediction
   nilas-oracle, lava-oracle   the same rules on the true lifetimes
Life classes (NILAS, LAVA) are a log grid: 5, 15, 30 min, 1, 2, 4, 8, 24 h, 2, 4, 8 days.
PreferAlignedLifetime and LAVA come after PreferNonEmptyMachines (empty machines stay the
reserve) and before BestFit (packing breaks ties). NILAS is non-invasive scoring (LAVA §4): it
must not overturn the ranking it joins, so it comes last, after BestFit, and breaks BestFit's
ties. Barbalho et al.'s algorithm (MLSys 2023) is not an arm:
its text was not available here to implement it as published.

Every arm runs under the same terms: the dataset's inventory, Protean's default settings,
validators and eviction setting, the window; only the rule set and the predictions differ.
Each arm runs once per --seeds seed (engine tie-breaks), the figures are medians with their
ranges. Runs replay --workers at a time (default one per processor) and are stored in arm,
then seed order, so the figures and run ids do not depend on how many. Out of sample, always: with a model arm (model, nilas, lava) the window starts at
the models' training cut (the latest of them); a --from before it is refused unless
--in-sample, and the output then says in_sample.

Figures per arm (each run stored, engine "lifetime"):
   empty_machines_time_mean  machines with no VM, time-weighted mean over the window
   packing_density_mean_pct  allocated cores / cores of non-empty machines (Protean §6.3)
   stranded_cores_pct_mean, stranded_memory_pct_mean   free cores (memory) that no VM type
                             could use because another resource is exhausted (the replay
                             sampler's definition), mean of the samples
   rejected                  VMs rejected
   empty_gain_vs_off         empty machines minus off's, per seed
   oracle_gain_share         that gain over the gain of the same rule on true lifetimes
                             (model: oracle, nilas: nilas-oracle, lava: lava-oracle), per
                             seed: the share of what true lifetimes buy the rule that the
                             learned arm captures
   best_oracle_gain_share    that gain over the best oracle arm's gain, per seed
   coverage_pct, accuracy_pct   VMs whose request carried a prediction; those whose own
                             true bucket is the predicted one (for distributions: the bucket
                             of the predicted median), as a share of them
JSON (--format json): dataset, from_s, to_s, training_cut_s, in_sample, seeds, arms (per arm
each figure as {median, min, max}, run_ids, seeds_losing_to_off_beyond_spread) and results
(every run's figures).

Examples:
   placelab ingest huawei ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory synthetic:1500
   placelab lifetime --dataset huawei --arms off,oracle
   placelab predict train --dataset huawei --metric lifetime_dist
   placelab lifetime --dataset huawei --arms off,oracle,nilas,lava,nilas-oracle --seeds 1,2,3,4,5
   placelab lifetime --dataset synthetic --arms oracle --from 1d --to 3d --format json`,
		Flags: []cli.Flag{
			replayDatasetFlag(),
			&cli.StringFlag{Name: "arms", Value: "off,oracle", Usage: "comma-separated `ARMS`: " + strings.Join(lifetime.Arms, ", ")},
			&cli.StringFlag{Name: "from", Usage: "start of the window (e.g. 2d; default: the trace's start)"},
			&cli.StringFlag{Name: "to", Usage: "end of the window (default: the last arrival)"},
			&cli.StringFlag{Name: "approach", Usage: "model arm: the lifetime model's `APPROACH`, xgboost or random-forest (default: RC Table 1's xgboost)"},
			&cli.StringFlag{Name: "seeds", Value: "1,2,3,4,5", Usage: "comma-separated engine `SEEDS`; figures are medians over them"},
			&cli.BoolFlag{Name: "in-sample", Usage: "allow a window before the models' training cut (labelled in-sample)"},
			durationFlag("repredict-every", 0, "nilas and lava: repredict every machine's VMs every `D` of trace time (default 1h)"),
			&cli.IntFlag{Name: "workers", Usage: "replay `N` runs at once (0: one per processor); runs are seeded and stored in arm, seed order, so the figures do not depend on it"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			from, to, err := window(c)
			if err != nil {
				return err
			}
			var arms []string
			for _, arm := range strings.Split(c.String("arms"), ",") {
				arm = strings.TrimSpace(arm)
				if !slices.Contains(lifetime.Arms, arm) {
					return fmt.Errorf("--arms: unknown arm %q: want %s", arm, orList(lifetime.Arms))
				}
				arms = append(arms, arm)
			}
			var seeds []uint64
			for _, f := range strings.Split(c.String("seeds"), ",") {
				v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
				if err != nil {
					return fmt.Errorf("--seeds %q: want comma-separated non-negative integers", c.String("seeds"))
				}
				seeds = append(seeds, v)
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			o := lifetime.CompareOptions{Arms: arms, Seeds: seeds, From: from, To: to, InSample: c.Bool("in-sample"),
				Approach: c.String("approach"), RepredictEvery: c.Duration("repredict-every").Seconds(), Version: version, Workers: c.Int("workers")}
			bar := newProgress(fmt.Sprintf("lifetime: %d arms × %d seeds", len(arms), len(seeds)), "runs", c.Bool("quiet"))
			o.Progress = bar.Update
			dataset, err := datasetArg(c, db)
			if err != nil {
				return err
			}
			cmp, err := lifetime.Compare(c.Context, db, dataset, o)
			bar.Done()
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, cmp)
			}
			w := c.App.Writer
			sample := "no model arm"
			switch {
			case cmp.InSample:
				sample = "IN SAMPLE"
			case cmp.Cut > 0:
				sample = "out of sample"
			}
			cut := ""
			if cmp.Cut > 0 {
				cut = fmt.Sprintf(", models trained before %.0f s", cmp.Cut)
			}
			fmt.Fprintf(w, "%s from %.0f s (%s%s), seeds %v: medians [min, max]\n", cmp.Dataset, cmp.From, sample, cut, cmp.Seeds)
			fmt.Fprintf(w, "%-13s %24s %20s %20s %20s %20s %22s %18s\n", "arm", "empty machines", "gain vs off", "own-oracle share", "best-oracle share", "density %", "stranded cores/mem %", "rejected")
			for _, a := range cmp.Arms {
				fmt.Fprintf(w, "%-13s %24s %20s %20s %20s %20s %10.2f / %-9.2f %18s\n", a.Arm, fmtRange(a.EmptyMachines, 1), fmtRange(a.GainVsOff, 1),
					fmtRange(a.OracleGainShare, 2), fmtRange(a.BestOracleGainShare, 2), fmtRange(a.PackingPct, 2), a.StrandedCores.Median, a.StrandedMem.Median, fmtRange(a.Rejected, 0))
			}
			return nil
		},
	}
}

// fmtRange writes a median with its range.
func fmtRange(r analysis.Range, prec int) string {
	if math.IsNaN(r.Median) {
		return "-"
	}
	f := "%." + strconv.Itoa(prec) + "f"
	return fmt.Sprintf(f+" ["+f+", "+f+"]", r.Median, r.Min, r.Max)
}

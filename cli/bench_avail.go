package main

import (
	"fmt"
	"placelab/bench"

	"github.com/urfave/cli/v2"
)

func availabilityBenchCommand() *cli.Command {
	def := bench.DefaultAvailabilityBenchOptions()
	return &cli.Command{
		Name:  "availability",
		Usage: "the cost of failures, healing and fault/update domains in a replay, beside the same replay without them",
		Description: `Replays --dataset (the Azure V1 dev split as "placelab ingest azure-flavor" loads it,
on --inventory synthetic:2500; a generated zone of --machines machines when the dataset is
not loaded) through Protean without and with --failures, --fault-domains and
--update-domains, --reps times, each replay timed end to end by the run pipeline
(decisions, departures, outages, heals, cache upkeep, every interval sample). Prints
the medians: plain_seconds_baseline, availability_seconds, availability_cost_x (per rep;
the issue's target is at most 1.5), healable_sample_share, the time the plain replay's
healable-failure samples took as a part of its time (target at most 0.10), and
healable_wait_share, the part the replay spent waiting on them: the samples are computed
beside the replay, on a goroutine of their own.

Example:
   placelab ingest azure-flavor ../shared/data/azure-v1-flavor/v1.dev.txt \
       ../shared/data/azure-v1-flavor/v1.dev.c2100000.txt --dataset azure-flavor-dev --inventory synthetic:2500
   placelab bench availability --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Value: def.Dataset, Usage: "dataset `NAME` to replay when loaded"},
			&cli.IntFlag{Name: "machines", Value: def.Machines, Usage: "machines of the generated zone when the dataset is not loaded"},
			&cli.IntFlag{Name: "reps", Value: def.Reps, Usage: "repetitions (≥ 1); figures are medians"},
			&cli.StringFlag{Name: "failures", Value: def.Failures, Usage: "failure model of the timed arm"},
			&cli.IntFlag{Name: "fault-domains", Value: int(def.FaultDomains), Usage: "fault domains of the timed arm"},
			&cli.IntFlag{Name: "update-domains", Value: int(def.UpdateDomains), Usage: "update domains of the timed arm"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			o := def
			o.Dataset, o.Machines, o.Reps, o.Failures = c.String("dataset"), c.Int("machines"), c.Int("reps"), c.String("failures")
			o.FaultDomains, o.UpdateDomains = int32(c.Int("fault-domains")), int32(c.Int("update-domains"))
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			r, err := bench.RunAvailabilityBench(c.Context, db, o)
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, r)
			}
			fmt.Fprintf(c.App.Writer, "%s (%d VMs, %d machines), median of %d reps: plain %.2fs; with --failures %s --fault-domains %d --update-domains %d %.2fs (%.2fx; %d outages, %d VMs healed); healable samples %.3fs of the plain replay (%.1f%%, %d samples; the replay spent %.3fs, %.1f%%, on them)\n",
				r.Dataset, r.VMs, r.Machines, r.Reps, r.PlainSeconds, r.Failures, r.FD, r.UD, r.AvailSeconds, r.CostX, r.Outages, r.HealVMs,
				r.HealableSeconds, 100*r.HealableShare, r.Samples, r.HealableWaitSeconds, 100*r.HealableWaitShare)
			return nil
		},
	}
}

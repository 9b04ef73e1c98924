package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/datasets/synth"
	store "placelab/sql"
)

func generateCommand() *cli.Command {
	def := synth.DefaultConfig()
	return &cli.Command{
		Name:  "generate",
		Usage: "write the built-in synthetic zone and trace (calibrated to Protean and Resource Central)",
		Description: `Generates a zone of --machines servers (hardware generations in the proportions of
Protean Table 1, clusters of ~1,000 homogeneous machines, racks of ~40) and a trace
of --vms VMs over --days days (VM types from the Azure A/D/G families, type and
cores mix after Protean Tables 2-3, mostly single-VM requests, diurnal and bursty
arrivals with strong type locality, short lifetimes with a long tail, CPU
utilization after Resource Central Fig 1), and loads it as dataset --dataset.
The same --seed gives identical tables.

Examples:
   placelab generate
   placelab generate --machines 30000 --vms 1000000 --seed 7 --dataset big`,
		Subcommands: []*cli.Command{generateK8sCommand()},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "synthetic", Usage: "dataset `NAME`"},
			&cli.IntFlag{Name: "machines", Value: def.Machines, Usage: "servers in the zone (1k-100k)"},
			&cli.IntFlag{Name: "vms", Value: def.VMs, Usage: "VMs in the trace, including those alive at the start"},
			&cli.Float64Flag{Name: "days", Value: def.Days, Usage: "length of the trace in days"},
			&cli.IntFlag{Name: "series", Value: def.SeriesVMs, Usage: "VMs that get a 5-minute CPU utilization series"},
			&cli.Float64Flag{Name: "load", Value: def.Load, Usage: "share of zone cores allocated at the start of the trace"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random seed"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			cfg := def
			cfg.Machines = c.Int("machines")
			cfg.VMs = c.Int("vms")
			cfg.Days = c.Float64("days")
			cfg.SeriesVMs = c.Int("series")
			cfg.Load = c.Float64("load")
			cfg.Seed = c.Uint64("seed")
			if err := cfg.Validate(); err != nil {
				return err
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			params, _ := json.Marshal(cfg)
			bar := newProgress("generate", "", c.Bool("quiet"))
			start := time.Now()
			counts, err := db.Ingest(c.Context, store.IngestInfo{
				Dataset: c.String("dataset"), Format: "synthetic", Source: "placelab generate", Params: string(params),
			}, func(w *store.Writer) error {
				_, err := synth.Write(c.Context, w, cfg, bar.Update)
				return err
			})
			bar.Done()
			if err != nil {
				return fmt.Errorf("generate: %w (nothing was changed)", err)
			}
			return printIngest(c.App.Writer, summarize(c.String("dataset"), "synthetic", nil, counts, time.Since(start)), format)
		},
	}
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure the engines on generated zones",
		Subcommands: []*cli.Command{{
			Name:  "allocator",
			Usage: "Protean latency and throughput with the cache on and off, on one zone",
			Description: `Generates a zone of --machines machines with a one-day trace, places the VMs
alive at t=0 (untimed warm-up), then times --vms arriving VMs (with departures) through
the Protean engine with the cache hierarchy on, and --nocache-vms through the same
engine with the cache off, on the same zone in the same run. cache_speedup is the
ratio of mean time per VM (off / on).

Example:
   placelab bench allocator --machines 30000 --format json`,
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "machines", Value: 30000, Usage: "machines in the zone"},
				&cli.IntFlag{Name: "vms", Value: 20000, Usage: "arriving requests timed with the cache on"},
				&cli.IntFlag{Name: "nocache-vms", Value: 2000, Usage: "arriving requests timed with the cache off"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the zone and tie-breaks"},
				&cli.BoolFlag{Name: "no-explain", Usage: "time decisions without building their explanations"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				if err := checkFormat(format); err != nil {
					return err
				}
				if !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "bench allocator: generating a %d-machine zone and measuring (cache on, then off)...\n", c.Int("machines"))
				}
				r, err := analysis.CompareCache(c.Context, c.Int("machines"), c.Int("vms"), c.Int("nocache-vms"), c.Uint64("seed"), !c.Bool("no-explain"))
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, r)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "allocator on %d machines (%.1fs)\n", r.Machines, r.Seconds)
				fmt.Fprintf(w, "  cache on : p50 %.1f µs  p99 %.1f µs  %.0f placements/s  hit rate %.1f%%  memory %.1f MB (%d VMs timed)\n",
					r.LatencyP50US, r.LatencyP99US, r.PlacementsPerSec, 100*r.CacheHitRate, r.MemoryMB, r.On.MeasuredVMs)
				fmt.Fprintf(w, "  cache off: p50 %.1f µs  p99 %.1f µs  %.0f placements/s (%d VMs timed)\n",
					r.NoCacheLatencyP50US, r.NoCacheLatencyP99US, r.NoCachePlacementsPS, r.Off.MeasuredVMs)
				fmt.Fprintf(w, "  cache speedup: %.0fx\n", r.CacheSpeedup)
				return nil
			},
		}, {
			Name:  "all",
			Usage: "every engine's headline figure, with its baseline from the same run",
			Description: `Runs, in one process: the allocator with the cache on and off (Protean Figs 11-12);
a replay of a generated zone through Protean and best fit; every characterization
view; the LP bound on Falkenauer u1000 (when ../shared/data is present) and on the
replay's snapshots; PrV-WorstFit against worst fit in one violation simulation;
Paragon's fold-in of new apps against retraining. --quick shrinks every size.

Example:
   placelab bench all --format json`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "quick", Usage: "smaller sizes (seconds rather than minutes)"},
				&cli.StringFlag{Name: "shared", Value: "../shared/data", Usage: "the shared data `DIR`"},
				formatFlag("json", "table"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				if err := checkFormat(format); err != nil {
					return err
				}
				bar := newProgress("bench all", "engines", c.Bool("quiet"))
				r, err := analysis.RunBenchAll(c.Context, c.Bool("quick"), c.String("shared"), bar.Update)
				bar.Done()
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, r)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "allocator (%d machines): p50 %.1f µs, p99 %.1f µs; cache off p99 %.1f µs; cache speedup %.0fx\n",
					r.Allocator.Machines, r.Allocator.LatencyP50US, r.Allocator.LatencyP99US, r.Allocator.NoCacheLatencyP99US, r.Allocator.CacheSpeedup)
				fmt.Fprintf(w, "replay (%d VMs): Protean %.2fs, best fit %.2fs\n", r.Replay.VMs, r.Replay.ProteanSeconds, r.Replay.BestFitSeconds)
				fmt.Fprintf(w, "views (%d VMs): %.2fs\n", r.Views.VMs, r.Views.Seconds)
				fmt.Fprintf(w, "LP: %s %.3fs (bound %.0f); %d snapshots %.1fs\n", r.LP.Instance, r.LP.InstanceSeconds, r.LP.InstanceBound, r.LP.Snapshots, r.LP.SnapshotSeconds)
				fmt.Fprintf(w, "PrV (%d nodes): %.3f ms per placement; worst fit %.3f ms\n", r.PrV.Nodes, r.PrV.MsPerPlacement, r.PrV.BaselineMsPerPlacement)
				fmt.Fprintf(w, "Paragon (%d apps × %d): fold-in %.1f µs; retraining %.0f ms\n", r.Paragon.Apps, r.Paragon.Columns, r.Paragon.FoldInUS, r.Paragon.RetrainMS)
				return nil
			},
		}},
	}
}

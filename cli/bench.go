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
				formatFlag("table"),
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
		}},
	}
}

package main

import (
	"fmt"
	"math"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

func whatifCommand() *cli.Command {
	return &cli.Command{
		Name:  "whatif",
		Usage: "what-if analyses on stored runs",
		Subcommands: []*cli.Command{{
			Name:  "migrate",
			Usage: "recommend VM moves that raise packing density (Protean §6.3)",
			Description: `Rebuilds where a stored run had its VMs at --at (default: the run's last sample),
finds fragmented machines and recommends the moves that raise packing density most per
move — each step empties one lightly used machine onto other non-empty machines under
every hard constraint — until --budget moves (0: no limit) or no move helps.

Example:
   placelab whatif migrate --run 1 --budget 200 --format json`,
			Flags: []cli.Flag{
				&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID`"},
				intFlag("budget", 100, 0, 0, "at most `M` moves (0: no limit)"),
				&cli.StringFlag{Name: "at", Usage: "time of the snapshot (default: the run's last sample)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				// NaN stands for the run's last sample: a NaN given is refused.
				at, err := timeFlag(c, "at", math.NaN())
				if err != nil {
					return err
				}
				db, err := openDB(c)
				if err != nil {
					return err
				}
				defer db.Close()
				rep, err := analysis.WhatIfMigrate(c.Context, db, c.Int64("run"), at, c.Int("budget"))
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, rep)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "run %d (%s) at t=%.0fs: %d VMs; %d moves free %d machines; packing density %.2f%% -> %.2f%%\n",
					rep.Run, rep.Dataset, rep.At, rep.VMs, len(rep.Moves), rep.MachinesFreed, 100*rep.DensityBefore, 100*rep.DensityAfter)
				for i, m := range rep.Moves {
					if i == 20 {
						fmt.Fprintf(w, "  … %d more (use --format json)\n", len(rep.Moves)-20)
						break
					}
					fmt.Fprintf(w, "  move VM %d: machine %d -> %d\n", m.VM, m.From, m.To)
				}
				return nil
			},
		}},
	}
}

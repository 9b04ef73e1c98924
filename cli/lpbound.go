package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/datasets"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

func lpboundCommand() *cli.Command {
	return &cli.Command{
		Name:  "lpbound",
		Usage: "lower-bound the machines any allocator needs (Gilmore–Gomory LP on Clp)",
		Description: `The configuration LP — cover the demand of every VM type with machine patterns,
one pattern set per SKU — solved by column generation on COIN-OR Clp, bounds from
below the machines (and the machine cores) any allocator needs, so it bounds from
above the packing density any allocator could reach. The bound is derived from the
duals (Farley/Lagrangian), so it stays valid when column generation stops early.

With --run ID: for each snapshot of a stored replay (t = 0, --every, 2·--every, ...),
the VMs the run held then are bounded; the figures go to run_metric (lp_bound_cores,
lp_bound_machines, lp_bound_density, lp_density_gap, lp_online_machines) and the
report's "LP bound" section, and the mean and worst gap between the bound's density
and the policy's are printed.

With --instance FILE: one BPPLIB .txt or .vbp instance, no database needed. JSON keys:
lp, lower_lp, bound (the rounded, valid lower bound on bins), columns, iterations,
seconds, converged, stop.

Examples:
   placelab lpbound --instance ../shared/data/binpacking/falkenauer_u/Falkenauer_u1000_00.txt --format json
   placelab replay --policy protean && placelab lpbound --run 1 --every 6h`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Usage: "bound the snapshots of stored run `ID`"},
			&cli.BoolFlag{Name: "unbounded", Usage: "bound every stored replay that has no LP bound yet"},
			&cli.StringFlag{Name: "every", Value: "1h", Usage: "time between snapshots (s, m, h or d)"},
			&cli.StringFlag{Name: "instance", Usage: "bound one bin packing instance `FILE` (.txt BPPLIB or .vbp)"},
			durationFlag("time-limit", 30*time.Second, "stop each solve after `D` with the best valid bound so far (it stays valid, only weaker); 0: none"),
			floatFlag("tolerance", lpbound.DefaultTolerance, positive, "reduced-cost tolerance of column generation (the bound's validity does not depend on it)"),
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			opts := lpbound.Options{TimeLimit: c.Duration("time-limit"), Tolerance: c.Float64("tolerance")}
			inst, run := c.String("instance"), c.Int64("run")
			modes := 0
			for _, set := range []bool{inst != "", c.IsSet("run"), c.Bool("unbounded")} {
				if set {
					modes++
				}
			}
			switch {
			case modes > 1:
				return errors.New("give one of --run, --unbounded and --instance")
			case inst != "":
				if err := onlyWith(c, "every", false, "to stored runs (--run, --unbounded), not to --instance"); err != nil {
					return err
				}
				return lpboundInstance(c, inst, opts, format)
			case modes == 0:
				return errors.New("give --run ID (a stored replay), --unbounded or --instance FILE (see placelab lpbound --help)")
			}
			every, err := timeFlag(c, "every", 3600)
			if err != nil {
				return err
			}
			if !positive.contains(every) {
				return fmt.Errorf("--every %q: want a finite time > 0", c.String("every"))
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			runs := []int64{run}
			if c.Bool("unbounded") {
				runs = nil
				rows, err := db.SQL().QueryContext(c.Context, store.MustQuery("runs_unbounded"))
				if err != nil {
					return err
				}
				for rows.Next() {
					var id int64
					if err := rows.Scan(&id); err != nil {
						rows.Close()
						return err
					}
					runs = append(runs, id)
				}
				rows.Close()
			}
			var reps []*analysis.LPBoundReport
			for _, id := range runs {
				bar := newProgress(fmt.Sprintf("lpbound run %d", id), "snapshots", c.Bool("quiet"))
				rep, err := analysis.LPBoundRun(c.Context, db, id, every, opts, bar.Update)
				bar.Done()
				if err != nil {
					return err
				}
				reps = append(reps, rep)
			}
			if format == "json" {
				if c.IsSet("run") {
					return printJSON(c.App.Writer, reps[0])
				}
				return printJSON(c.App.Writer, reps)
			}
			for _, rep := range reps {
				printLPReport(c, rep, c.IsSet("run"))
			}
			if len(reps) == 0 {
				fmt.Fprintln(c.App.Writer, "every stored replay already has its LP bound")
			}
			return nil
		},
	}
}

// printLPReport prints a run's bound: the summary, and every snapshot when
// detail is set.
func printLPReport(c *cli.Context, rep *analysis.LPBoundReport, detail bool) {
	w := c.App.Writer
	fmt.Fprintf(w, "run %d (%s, %s): %d snapshots every %.0fs in %.1fs\n", rep.Run, rep.Policy, rep.Dataset, len(rep.Snapshots), rep.Every, rep.Seconds)
	fmt.Fprintf(w, "packing density gap to the LP bound: mean %.2f points, worst %.2f; machines over the bound: mean %.1f\n",
		100*rep.MeanGap, 100*rep.MaxGap, rep.MeanMachineGap)
	if !detail {
		return
	}
	fmt.Fprintf(w, "%10s %7s %9s %9s %9s %9s %9s %7s\n", "t", "vms", "machines", "bound", "density", "bound_d", "gap", "secs")
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		fmt.Fprintf(w, "%9.1fh %7d %9d %9.0f %8.2f%% %8.2f%% %8.2f%% %7.3f\n", s.T/3600, s.VMs, s.OnlineMachines, s.BoundMachines,
			100*s.OnlineDensity, 100*s.BoundDensity, 100*s.Gap, s.Seconds)
	}
}

// lpboundInstance bounds one instance file.
func lpboundInstance(c *cli.Context, path string, opts lpbound.Options, format string) error {
	in, err := datasets.ReadInstance(path)
	if err != nil {
		return err
	}
	counts := make([]int, len(in.Counts))
	for i, n := range in.Counts {
		counts[i] = int(n)
	}
	opts.Objective = lpbound.MinCount
	start := time.Now()
	res, err := lpbound.Solve(c.Context, lpbound.NewBinPacking(in.Capacity, in.Sizes, counts), opts)
	if err != nil && res == nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if format == "json" {
		out := struct {
			Instance string `json:"instance"`
			Items    int64  `json:"items"`
			Kinds    int    `json:"kinds"`
			Dims     int    `json:"dims"`
			*lpbound.Result
		}{path, in.Items, len(in.Sizes), in.Dims(), res}
		if perr := printJSON(c.App.Writer, out); perr != nil {
			return perr
		}
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s: %d items of %d kinds, %d dimension(s)\nLP %.6f, valid lower bound %.6f, bound on bins %.0f\n%d columns, %d master LPs, %s in %.3fs (%.3fs with reading)\n",
		path, in.Items, len(in.Sizes), in.Dims(), res.LP, res.LowerLP, res.Bound, res.Columns, res.Iterations, res.Stop, res.Seconds, time.Since(start).Seconds())
	return err
}

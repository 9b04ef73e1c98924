package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis/cluster"
	"placelab/analysis/lpinterval"
	"placelab/datasets"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

func lpboundCommand() *cli.Command {
	return &cli.Command{
		Name:  "lpbound",
		Usage: "how far from optimal: a proven interval [LB, UB] on the machines the VMs of each snapshot need",
		Description: `For the VMs a stored replay held at each snapshot, placelab lpbound proves an
interval on the best possible packing of the same VMs on the zone's machines:

  LB  no packing uses fewer machines (cores): ⌈configuration LP⌉, the Gilmore–Gomory
      LP solved by column generation on COIN-OR Clp; derived from the duals
      (Farley/Lagrangian), so it stays valid when a solve stops early.
  UB  a packing with that many machines (cores) exists: the integer master over the
      generated patterns (COIN-OR CBC), repaired greedily; never worse than the run's
      own packing, which seeds it.

Both are solved counting machines and with each machine costing its cores; densities
(Protean §6.3, allocated cores / cores of non-empty machines) follow: lb_density is a
packing that exists, ub_density one no packing beats. emptiable_machines = online − UB
is how many machines the online allocator could have emptied.

With --run ID: snapshots at the run's first placement, then every --every up to its
last sample. Figures go to run_metric (lp_lb_machines, lp_ub_machines, lp_lb_cores,
lp_ub_cores, lp_lb_density, lp_ub_density, lp_online_machines, lp_emptiable_machines,
lp_converged, ...), the views lpbound_density and lpbound_gap, and the report. The UB
packing of the busiest snapshot (--packings peak; all, none) is stored as an offline
run (engine 'offline'), which placelab check and every view read like a replay.
JSON per snapshot: t_s, vms, online_machines, lb_machines, ub_machines,
emptiable_machines, online_density, lb_density, ub_density, converged, stop, seconds.

A run over a Kubernetes cluster (ingest k8s: its observed kube-scheduler run, a
replay of its pods, a drain plan) is bounded at one instant, --at (default: its last
placement; the LP stops after 5 s unless --time-limit is given, its bound still valid),
with the pods' constraints: DaemonSet and static pods stay on their nodes
as overhead; node types are nodes of equal free capacity that the same pods may use
(node selector, required affinity, taints); anti-affinity and topology spread are
relaxed, which keeps LB valid. UB is the fewest nodes of the packings found that keep
every constraint (the run's own, a full repacking, the drain plan, the LP's integer
packing), stored as an offline run for placelab check. JSON keys: nodes_in_use,
lb_nodes, ub_nodes, drainable_nodes (= nodes_in_use − ub_nodes: could be drained now),
max_drainable_nodes (= nodes_in_use − lb_nodes: no placement frees more),
pinned_pods, pending_pods, packing_run, converged, stop, seconds.

With --instance FILE: one BPPLIB .txt or .vbp instance, no database needed. JSON keys:
lp, lower_lp, bound (LB on bins), upper (UB: bins of a packing found), columns,
iterations, seconds, converged, stop.

Examples:
   placelab replay --policy protean && placelab lpbound --run 1 --every 6h
   placelab lpbound --run 1 --every 24h --format json
   placelab lpbound --unbounded --every 24h
   placelab ingest k8s nodes.json pods.json --dataset prod && placelab lpbound --run 1
   placelab lpbound --instance ../shared/data/binpacking/falkenauer_u/Falkenauer_u1000_00.txt --format json`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Usage: "bound the snapshots of stored run `ID`"},
			&cli.BoolFlag{Name: "unbounded", Usage: "bound every stored replay that has no LP interval yet"},
			&cli.StringFlag{Name: "every", Value: "1h", Usage: "time between snapshots (s, m, h or d), from the run's first placement"},
			&cli.StringFlag{Name: "packings", Value: lpinterval.PackingsPeak, Usage: "UB packings to store as offline runs: peak (the snapshot with the most allocated cores), all or none; they replace (none: remove) those an earlier lpbound of the run stored"},
			&cli.StringFlag{Name: "instance", Usage: "bound one bin packing instance `FILE` (.txt BPPLIB or .vbp)"},
			&cli.StringFlag{Name: "at", Usage: "a Kubernetes run's snapshot `TIME` (s, m, h or d; default: its last placement)"},
			durationFlag("time-limit", lpinterval.DefaultTimeLimit, "stop each solve after `D` with the best valid bound so far (it stays valid, only weaker); 0: none"),
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
				for _, f := range []string{"every", "packings"} {
					if err := onlyWith(c, f, false, "to stored runs (--run, --unbounded), not to --instance"); err != nil {
						return err
					}
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
			lo := lpinterval.DefaultOptions()
			lo.Every, lo.Solve, lo.Packings = every, opts, c.String("packings")
			if err := lo.Validate(); err != nil {
				return err
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
			var reps []*lpinterval.Result
			var creps []*cluster.BoundReport
			for _, id := range runs {
				isCluster, err := cluster.IsRun(c.Context, db, id)
				if err != nil {
					return err
				}
				if isCluster {
					if c.IsSet("run") && (c.IsSet("every") || c.IsSet("packings")) {
						return fmt.Errorf("run %d is a Kubernetes cluster's: it is bounded at one instant (--at), not every --every, and its one packing is stored", id)
					}
					co := cluster.DefaultBoundOptions()
					if c.IsSet("time-limit") {
						co.TimeLimit = opts.TimeLimit
					}
					if co.At, err = timeFlag(c, "at", math.NaN()); err != nil {
						return err
					}
					rep, err := cluster.Bound(c.Context, db, id, co)
					if err != nil {
						return err
					}
					creps = append(creps, rep)
					continue
				}
				if c.IsSet("at") {
					return fmt.Errorf("--at applies to a Kubernetes cluster's run; run %d is bounded every --every", id)
				}
				bar := newProgress(fmt.Sprintf("lpbound run %d", id), "snapshots", c.Bool("quiet"))
				lo.Progress = bar.Update
				rep, err := lpinterval.Run(c.Context, db, lo.For(id))
				bar.Done()
				if err != nil {
					return err
				}
				reps = append(reps, rep)
			}
			if format == "json" {
				if c.IsSet("run") {
					if len(creps) == 1 {
						return printJSON(c.App.Writer, creps[0])
					}
					return printJSON(c.App.Writer, reps[0])
				}
				if len(creps) > 0 {
					return printJSON(c.App.Writer, map[string]any{"runs": reps, "cluster_runs": creps})
				}
				return printJSON(c.App.Writer, reps)
			}
			for _, rep := range reps {
				printLPReport(c, rep, c.IsSet("run"))
			}
			for _, rep := range creps {
				printClusterBound(c.App.Writer, rep)
			}
			if len(reps)+len(creps) == 0 {
				fmt.Fprintln(c.App.Writer, "every stored replay already has its LP bound")
			}
			return nil
		},
	}
}

// printLPReport prints a run's interval: the summary, and every snapshot
// when detail is set.
func printLPReport(c *cli.Context, rep *lpinterval.Result, detail bool) {
	w := c.App.Writer
	fmt.Fprintf(w, "run %d (%s, %s): %d snapshots every %s from t=%.1fh in %.1fs; %d of %d with VMs solved to optimality\n",
		rep.Run, rep.Policy, rep.Dataset, len(rep.Snapshots), humanSeconds(rep.Every), rep.From/3600, rep.Seconds, rep.Converged, rep.Bounded)
	who, dens := "the online allocator", "online"
	if rep.Engine == datasets.ObservedEngine {
		// The source's own placement: no allocator of placelab's made it.
		who, dens = "a better placement of the same VMs", "as recorded"
	}
	fmt.Fprintf(w, "packing density: %s %.2f%%, best possible in [%.2f%%, %.2f%%] (weighted by allocated cores); machines %s could have emptied: %.1f on average; widest machine interval %.2f%%\n",
		dens, 100*rep.MeanOnlineDensity, 100*rep.MeanLBDensity, 100*rep.MeanUBDensity, who, rep.MeanEmptiable, rep.MaxIntervalGapPct)
	if !detail {
		return
	}
	fmt.Fprintf(w, "%9s %7s %8s %8s %8s %9s %8s %8s %8s %5s %7s\n", "t", "vms", "online", "lb", "ub", "emptiable", "online_d", "lb_d", "ub_d", "opt", "secs")
	for _, s := range rep.Snapshots {
		if s.VMs == 0 {
			continue
		}
		opt := "yes"
		if !s.Converged {
			opt = "no"
		}
		fmt.Fprintf(w, "%8.1fh %7d %8d %8.0f %8.0f %9.0f %7.2f%% %7.2f%% %7.2f%% %5s %7.3f\n", s.T/3600, s.VMs, s.OnlineMachines, s.LBMachines, s.UBMachines,
			s.EmptiableMachines, 100*s.OnlineDensity, 100*s.LBDensity, 100*s.UBDensity, opt, s.Seconds)
	}
	for _, s := range rep.Snapshots {
		if s.PackingRun > 0 {
			fmt.Fprintf(w, "UB packing at t=%.1fh stored as run %d (placelab check --run %d)\n", s.T/3600, s.PackingRun, s.PackingRun)
		}
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

// humanSeconds writes a time in the largest of d, h, m, s that divides it.
func humanSeconds(s float64) string {
	for _, u := range []struct {
		n    float64
		unit string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if s >= u.n && math.Mod(s, u.n) == 0 {
			return fmt.Sprintf("%g%s", s/u.n, u.unit)
		}
	}
	return fmt.Sprintf("%gs", s)
}

// printClusterBound prints a Kubernetes run's interval.
func printClusterBound(w io.Writer, r *cluster.BoundReport) {
	fmt.Fprintf(w, "run %d (%s, %s) at %s: %d pods on %d of %d nodes (+%d pinned DaemonSet/static pods, %d pending)\n",
		r.Run, r.Policy, r.Dataset, atText(r.T, r.Time), r.Pods, r.NodesInUse, r.Nodes, r.PinnedPods, r.PendingPods)
	fmt.Fprintf(w, "  no placement of these pods needs fewer than %.0f nodes (LB, %s); one on %d nodes exists (UB, %s", r.LBNodes, r.Stop, r.UBNodes, r.UBSource)
	if r.PackingRun > 0 {
		fmt.Fprintf(w, ", stored as run %d: placelab check --run %d", r.PackingRun, r.PackingRun)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintf(w, "  so %d nodes could be drained now, and no placement frees more than %.0f (relaxed in LB: %s) [%.2fs]\n",
		r.DrainableNodes, r.MaxDrainableNodes, strings.Join(r.Relaxed, ", "), r.Seconds)
}

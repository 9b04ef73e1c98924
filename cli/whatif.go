package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/replay"
	"placelab/analysis/snapshot"
	"placelab/analysis/whatif"
)

func whatifCommand() *cli.Command {
	return &cli.Command{
		Name:  "whatif",
		Usage: "what-if analyses on stored runs",
		Subcommands: []*cli.Command{{
			Name:  "migrate",
			Usage: "recommend VM moves that raise packing density (Protean §6.3)",
			Description: `Rebuilds where a stored run had its VMs at --at (default: the run's last event) —
every constraint each VM was placed under: node selectors and affinity, taints, a zonal
volume's zone, anti-affinity, topology spread, its availability set's fault and update
domains — and recommends the moves that raise packing density most per move: each step
empties one lightly used machine onto other non-empty machines, every move judged by the
run's own rules (the validators the replay kept), until --budget moves (0: no limit) or
no move helps. DaemonSet and static pods never move: a DaemonSet's pods leave with an
emptied node, and a node running a static pod is never emptied. A pod bound by a zone
topology spread moves only within its zone. A VM moves at most once (a machine that took
a moved VM is not emptied), so moves lists each VM once, from where it was to where the
plan leaves it.

The placement after the plan is stored as an offline run (plan_run) that placelab check
verifies, unless --no-store. An instant at which the run held nothing is refused.

Pending VMs (a cluster's Pending pods, a replay's VMs alive then that it rejected) are
tried first, on the run's rules with no eviction, high priority first then by arrival;
those placed are part of the state the plan improves.

Counts, one definition each: a machine is in use when it holds a VM that can move
(one with only DaemonSet pods is empty). machines_in_use at the snapshot as the run
left it, machines_in_use_with_pending once the pending VMs are placed, and
machines_in_use_after = machines_in_use_with_pending − machines_freed +
machines_newly_used (machines that held only DaemonSet pods and took a moved VM).

JSON keys: run_id, dataset, policy, t_s, vms, pinned_vms, pending_vms, pending_placed,
pending (pod, vm_id, placed, node, reason), machines_in_use, machines_in_use_with_pending,
machines_newly_used, machines_in_use_after, budget, packing_density_before, packing_density_after,
machines_freed, removed_machines,
pinned_dropped, moves (vm, pod on Kubernetes, from, to, vm_id, from_machine_id,
to_machine_id), plan_run, seconds.

Examples:
   placelab whatif migrate --run 1 --budget 200 --format json
   placelab whatif migrate --run 1 --at 12h --no-store`,
			Flags: []cli.Flag{
				&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID`"},
				intFlag("budget", whatif.DefaultMigrateOptions().Budget, 0, 0, "at most `M` moves (0: no limit)"),
				&cli.StringFlag{Name: "at", Usage: "snapshot `TIME` (s, m, h or d; default: the run's last event)"},
				&cli.BoolFlag{Name: "no-store", Usage: "do not store the placement after the plan as an offline run (the database is then only read)"},
				formatFlag("table", "json"),
			},
			Action: func(c *cli.Context) error {
				format := c.String("format")
				opts := whatif.DefaultMigrateOptions()
				var err error
				// NaN stands for the run's last event: a NaN given is refused.
				if opts.At, err = timeFlag(c, "at", math.NaN()); err != nil {
					return err
				}
				opts.Budget, opts.Store = c.Int("budget"), !c.Bool("no-store")
				bar := newProgress("whatif migrate: machines emptied", "", c.Bool("quiet"))
				opts.Progress = func(freed, _ int) { bar.Update(int64(freed), 0) }
				if err := opts.Validate(); err != nil {
					return err
				}
				open := openDB
				if !opts.Store {
					open = openReadDB // only reads: beside other readers
				}
				db, err := open(c)
				if err != nil {
					return err
				}
				defer db.Close()
				rep, err := whatif.Migrate(c.Context, db, c.Int64("run"), opts)
				bar.Done()
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(c.App.Writer, rep)
				}
				w := c.App.Writer
				fmt.Fprintf(w, "run %d (%s, %s) at %s: %d VMs placed (%d pinned, %d pending) on %d machines in use\n",
					rep.Run, rep.Policy, rep.Dataset, atText(rep.At, rep.Time), rep.VMs, rep.PinnedVMs, rep.PendingVMs, rep.MachinesInUse)
				if rep.PendingVMs > 0 {
					fmt.Fprintf(w, "  pending VMs first, on the run's rules: %d of %d placed (%d machines in use with them)%s\n",
						rep.PendingPlaced, rep.PendingVMs, rep.MachinesInUseWithPending, pendingLeft(rep.PendingOutcomes))
				}
				newly := ""
				if rep.MachinesNewlyUsed > 0 {
					newly = fmt.Sprintf(" (%d of them held only pinned pods before)", rep.MachinesNewlyUsed)
				}
				fmt.Fprintf(w, "  %d moves free %d machines: %d machines in use after%s; packing density %.2f%% -> %.2f%%\n",
					len(rep.Moves), rep.MachinesFreed, rep.MachinesInUseAfter, newly, 100*rep.DensityBefore, 100*rep.DensityAfter)
				for i, m := range rep.Moves {
					if i == 20 {
						fmt.Fprintf(w, "  … %d more (use --format json)\n", len(rep.Moves)-20)
						break
					}
					fmt.Fprintf(w, "  move %s: %s -> %s\n", m.VM, m.From, m.To)
				}
				if rep.PlanRun > 0 {
					fmt.Fprintf(w, "  placement after the plan: run %d (placelab check --run %d) [%.2fs]\n", rep.PlanRun, rep.PlanRun, rep.Seconds)
				}
				return nil
			},
		}, whatifDrainCommand(), whatifPoliciesCommand()},
	}
}

func whatifDrainCommand() *cli.Command {
	return &cli.Command{
		Name:  "drain",
		Usage: "a consolidation plan: which nodes to remove and where each of their pods goes",
		Description: `Takes the pods a stored run held at --at (default: its last placement) — a
Kubernetes cluster's observed run (ingest k8s), a replay of its pods or any replay — and
plans a consolidation as Karpenter would apply it: the nodes to remove and, for each pod
that must move, the node it goes to; every other pod stays where it is. DaemonSet and
static pods go with their node. Every move keeps the pod's node selector, required node
affinity, tolerations, required hostname anti-affinity and zone topology spread, and the
target's free allocatable in every resource (cpu, memory, ephemeral storage, GPUs, pod
slots); cordoned and not-Ready nodes take no pod.

It removes as many nodes as it can within --max-moves moved pods (0: no bound), never
fewer than Karpenter's node-by-node greedy under the same budget (greedy_nodes_removed),
and sets the LP bound beside it: beyond_plan_max = nodes_after − lb_nodes is how many
more nodes any placement of the same pods could still free. The placement after the
plan is stored as an offline run (plan_run) that placelab check verifies.

Pending pods are tried first, on the run's rules (no preemption), high priority first
then by creation; those placed are pods the plan keeps room for and may move.

Counts, one definition each: a node is in use when it holds a pod that can move (one
with only DaemonSet pods is empty). nodes_in_use: at the snapshot, as the run left it;
nodes_in_use_with_pending: once the pending pods are placed; nodes_removed: nodes in use
the plan empties and removes; empty_nodes_removed: empty nodes it removes besides (out of
service ones among them; every plan removes them); nodes_newly_used: nodes empty before
that hold a pod after; nodes_after = nodes_in_use_with_pending − nodes_removed +
nodes_newly_used. greedy_nodes_removed counts as nodes_removed does.

JSON keys: nodes_in_use, pending_pods, pending_placed, pending (pod, vm_id, placed, node,
reason), nodes_in_use_with_pending, nodes_removed, removed_nodes, empty_nodes_removed,
removed_empty_nodes, moves (pod, vm_id, from, to), nodes_newly_used, nodes_after,
greedy_nodes_removed, lb_nodes, ub_nodes, beyond_plan_max, plan_run, pinned_pods, seconds.

Examples:
   placelab whatif drain --run 1
   placelab whatif drain --run 1 --max-moves 20 --format json
   placelab explain --run 1 --machine ip-10-0-3-17   # why that node stays`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID` (ingest k8s prints the observed run's id as observed_run)"},
			intFlag("max-moves", 0, 0, 0, "move at most `M` pods (0: no bound)"),
			&cli.StringFlag{Name: "at", Usage: "snapshot `TIME` (s, m, h or d; default: the run's last placement)"},
			durationFlag("time-limit", cluster.BoundTimeLimit, "stop the LP bound after `D` (it stays valid, only weaker); an interval lpbound stored for the run at that instant is used as it is"),
			&cli.BoolFlag{Name: "no-store", Usage: "do not store the placement after the plan as an offline run (the database is then only read, so this runs while other placelab commands read it)"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			opts := whatif.DefaultDrainOptions()
			var err error
			if opts.At, err = timeFlag(c, "at", math.NaN()); err != nil {
				return err
			}
			opts.MaxMoves, opts.TimeLimit, opts.Store = c.Int("max-moves"), c.Duration("time-limit"), !c.Bool("no-store")
			if err := opts.Validate(); err != nil {
				return err
			}
			// The plan's placement is stored as a run unless --no-store:
			// then it only reads, beside other readers.
			open := openDB
			if !opts.Store {
				open = openReadDB
			}
			db, err := open(c)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := whatif.Drain(c.Context, db, c.Int64("run"), opts)
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, rep)
			}
			w := c.App.Writer
			budget := "no bound on moves"
			if rep.MaxMoves > 0 {
				budget = fmt.Sprintf("at most %d moves", rep.MaxMoves)
			}
			fmt.Fprintf(w, "run %d (%s, %s) at %s: %d pods on %d nodes in use of %d (+%d pinned, %d pending); %s\n",
				rep.Run, rep.Policy, rep.Dataset, atText(rep.T, rep.Time), rep.Pods, rep.NodesInUse, rep.Nodes, rep.PinnedPods, rep.PendingPods, budget)
			if rep.PendingPods > 0 {
				fmt.Fprintf(w, "  pending pods first, on the run's rules: %d of %d placed (%d nodes in use with them)%s\n",
					rep.PendingPlaced, rep.PendingPods, rep.NodesInUseWithPending, pendingLeft(rep.PendingOutcomes))
			}
			newly := ""
			if rep.NodesNewlyUsed > 0 {
				newly = fmt.Sprintf(", %d of them empty before", rep.NodesNewlyUsed)
			}
			fmt.Fprintf(w, "  remove %d nodes in use, moving %d pods, and %d empty nodes: %d nodes in use after%s (Karpenter-style node-by-node greedy: %d nodes in use)\n",
				rep.NodesRemoved, len(rep.Moves), rep.EmptyNodesRemoved, rep.NodesAfter, newly, rep.GreedyRemoved)
			fmt.Fprintf(w, "  LP bound: the pods need at least %.0f nodes, so at most %.0f more could go; a placement on %d exists\n",
				rep.LBNodes, rep.BeyondPlan, rep.UBNodes)
			for i, n := range rep.RemovedNodes {
				if i == 20 {
					fmt.Fprintf(w, "  … %d more nodes (use --format json)\n", len(rep.RemovedNodes)-20)
					break
				}
				fmt.Fprintf(w, "  remove %s\n", n)
			}
			if len(rep.RemovedEmptyNodes) > 0 {
				fmt.Fprintf(w, "  remove the empty nodes %s\n", nameList(rep.RemovedEmptyNodes, 10))
			}
			for i, m := range rep.Moves {
				if i == 20 {
					fmt.Fprintf(w, "  … %d more moves (use --format json)\n", len(rep.Moves)-20)
					break
				}
				fmt.Fprintf(w, "  move %s: %s -> %s\n", m.Pod, m.From, m.To)
			}
			if rep.PlanRun > 0 {
				fmt.Fprintf(w, "  placement after the plan: run %d (placelab check --run %d) [%.2fs]\n", rep.PlanRun, rep.PlanRun, rep.Seconds)
			}
			return nil
		},
	}
}

func whatifPoliciesCommand() *cli.Command {
	return &cli.Command{
		Name:  "policies",
		Usage: "replay a run's pods through Protean and the baselines and set them beside the run, each with its interval",
		Description: `Replays the dataset of --run (a Kubernetes cluster's observed kube-scheduler run, say)
in creation order through each of --policies, every replay under the same validated
defaults — the same validators and pod constraints (node affinity, taints, anti-affinity,
topology spread, pod slots), the same nodes — and stores them as runs. Then it bounds
every run, the original included, at the same instant (the last pod's arrival): nodes in
use, the LP interval [lb_nodes, ub_nodes] on the nodes its pods need, drainable_nodes =
nodes_in_use − ub_nodes, and what placelab check finds wrong (violations).

JSON: dataset, t_s, rows (run_id, engine, policy, placed, not_placed, nodes_in_use,
lb_nodes, ub_nodes, drainable_nodes, violations, seconds).

Example:
   placelab whatif policies --run 1 --policies protean,bestfit,worstfit`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID` whose dataset to replay"},
			&cli.StringFlag{Name: "policies", Value: strings.Join(replay.Policies, ","), Usage: "comma-separated `POLICIES`"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			var pols []string
			for _, p := range strings.Split(c.String("policies"), ",") {
				if p = strings.TrimSpace(p); p != "" {
					pols = append(pols, p)
				}
			}
			// Stores each replay as a run: read-write.
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := cluster.Compare(c.Context, db, c.Int64("run"), pols, analysis.RunOptions{Version: version})
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, rep)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "dataset %s at %s: every run bounded at the same instant\n", rep.Dataset, atText(rep.T, rep.Time))
			fmt.Fprintf(w, "%6s  %-9s %-15s %7s %10s %12s %8s %8s %10s %10s\n", "run", "engine", "policy", "placed", "not placed", "nodes in use", "LB", "UB", "drainable", "violations")
			for _, r := range rep.Rows {
				fmt.Fprintf(w, "%6d  %-9s %-15s %7d %10d %12d %8.0f %8d %10d %10d\n", r.Run, r.Engine, r.Policy, r.Placed, r.NotPlaced, r.NodesInUse, r.LBNodes, r.UBNodes, r.DrainableNodes, r.Violations)
			}
			if j := rep.Filter; j != nil {
				fmt.Fprintf(w, "placelab's validators beside %s's Filter, pod by pod: %d disagreements in %d (pod, node) pairs of %d pods\n",
					j.Scheduler, j.Disagreements, j.Pairs, j.Pods)
				for _, k := range sortedKeys(j.ByRule) {
					fmt.Fprintf(w, "  %s: %d pairs, e.g. %s\n", k, j.ByRule[k], j.Examples[k])
				}
				for _, k := range sortedKeys(j.Known) {
					fmt.Fprintf(w, "  known difference, %s: %d pairs\n", k, j.Known[k])
				}
			}
			return nil
		},
	}
}

// pendingLeft names the pending pods a plan could not place, with the
// first one's reason: "; 2 fit nowhere (default/big-0: AreNodeResourcesValid, …)".
func pendingLeft(outs []snapshot.PendingOutcome) string {
	var left []string
	reason := ""
	for _, o := range outs {
		if !o.Placed {
			if reason == "" {
				reason = o.Reason
			}
			left = append(left, o.VM)
		}
	}
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d fit nowhere (%s; the first refused by %s)", len(left), nameList(left, 5), reason)
}

// nameList is names joined, at most n of them, then "… and k more".
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s … and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

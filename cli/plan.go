package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"placelab/analysis/plan"
)

func planCommand() *cli.Command {
	d := plan.DefaultOptions()
	return &cli.Command{
		Name:  "plan",
		Usage: "the cheapest fleet of a priced catalog's machine types, with a proof of how far it can be from the cheapest",
		Description: `Which machine types to run, and at what cost: placelab plan --catalog FILE finds the
cheapest multiset of the catalog's types (placelab ingest help-format catalog) that
holds a snapshot's pods or VMs, and proves how far it can be from the cheapest.

  --run ID [--at T]     the pods or VMs a stored run held at T (default: its last
                        event), Pending pods included: a Kubernetes cluster's observed
                        run (ingest k8s), a replay, a drain plan.
  --dataset D --at peak|T  a trace's VMs alive at T, or at the instant most cores are.

On a Kubernetes cluster every new node joins one of the cluster's pools (its labels and
NoSchedule/NoExecute taints), is of a catalog type (its labels: kubernetes.io/arch,
node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-family,
karpenter.sh/capacity-type) and in one of the cluster's zones; the pods are read again
by the same reader as ingest k8s beside those nodes, so node selectors, required
affinity, taints and a volume's zone decide which types each pod may use. DaemonSet
pods are overhead on every new node they would run on; static pods stay with the
control plane. Allocatable is the type's capacity less --reserved (none, eks, gke:
the published kube-reserved formulas; the JSON says which).

  lb_cost_per_hour  no fleet costs less: the Gilmore–Gomory configuration LP over the
                    types with their prices as column costs (COIN-OR Clp), derived from
                    its duals so it holds however the solve stops, and never below the
                    volume bound. Topology spread is relaxed, which keeps it valid.
  cost_per_hour     the plan: CBC's price-and-branch over the patterns of a second
                    column generation on the types the assignment LP's fleet uses, or
                    a rounding of that LP, or a baseline when cheaper; each improved
                    by a local search (emptiest nodes drained, nodes downsized, two
                    nodes merged into one cheaper node, pods that break an
                    anti-affinity set moved). When column generation ran out of time,
                    the most wasteful nodes (price less what their pods are worth at
                    the assignment LP's duals), with the nodes that share their pod
                    groups or could run their pods, are planned again on their own
                    against every type, one neighbourhood per CPU at a time (up to 4,
                    no node in two; one that saved nothing is not planned again), and
                    replaced when that costs less (bound.plan_source ends in +lns;
                    bound.lns_tried and bound.lns_improved count them). Then topology
                    spread kept by moving pods between zones. Every stage shares
                    --time-limit.
  gap_pct           100 × (cost − lb) / lb.

The stages stop on time, not on a count of steps, so two runs (or two machines) can
give different plans and bounds, each valid; bound.stop says whether column generation
ran out of time ("time limit") rather than converging, and bound.plan_source which
stage's fleet won.

Beside it, on the same pods: baselines.current (the cluster's worker nodes priced by
their instance type), baselines.karpenter (pods by CPU then memory descending, each
joining the first open claim some remaining type still fits, else a new claim with
every type that fits it; each claim launches its cheapest remaining type) and
baselines.best_single (the cheapest fleet of one type). The plan is stored as a
dataset (its nodes, each pod bound to its node) and an offline run (plan_run,
plan_dataset) that placelab check verifies; the JSON's check says what it found.

With --replace, the way from the cluster as it is to the plan (a Kubernetes run only):
current worker nodes of a planned pool, instance type and zone are kept (up to the plan's
count, those with the most pods first), the other workers removed, the missing planned
nodes added under the plan's names. Pods on kept nodes stay; pods on removed nodes and
Pending pods move to kept or added nodes, each move keeping every constraint whatif drain
keeps. Removals go in order of most cost saved per moved pod; --max-moves N skips a
removal that would take the moves past N (those nodes stay: nodes_kept_budget; 0: only
empty nodes go). Planned nodes no pod needs are not added (nodes_add_unneeded). The
state after is stored as a dataset and run (replace_dataset, replace_run) that placelab
check verifies. Its JSON: nodes_keep, nodes_add [{name, type, pool, zone, cost_per_hour,
pods}], nodes_add_unneeded, nodes_remove [{name, type, pool, zone, cost_per_hour, pods}],
nodes_kept_budget, nodes_kept_no_room (with reason), moves [{pod, from, to}],
moves_count, pending_placed, pending_left, cost_per_hour_before, cost_per_hour_after,
plan_cost_per_hour, nodes_before, nodes_after, replace_run, replace_dataset, check, plan
(the plan's own JSON).

JSON keys: cost_per_hour, lb_cost_per_hour, gap_pct, nodes, types {type: nodes}, pools,
placed, unplaceable [{pods, reason, examples}], plan_run, plan_dataset, seconds,
baselines {current, karpenter, best_single}, catalog {file, sha256, price_column,
types_read, types_kept, filter, reserved, reserved_formula}, source, dims, bound
{lp_bound, volume_bound, converged, stop, plan_source, flow_converged, packing_types,
lns_tried, lns_improved, ...}, check, left_out.

Examples:
   placelab ingest k8s nodes.json pods.json --dataset prod
   placelab plan --run 1 --catalog ../shared/data/catalogs/aws-ec2-us-east-1.csv --reserved eks
   placelab plan --run 1 --catalog c.csv --types 'arch=amd64;family=m5,c5,r5' --format json
   placelab plan --run 1 --catalog c.csv --reserved eks --replace --max-moves 50
   placelab plan --dataset azure --at peak --catalog gcp.parquet --price preemptible_usd_per_hour`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "the priced catalog `FILE` (CSV or Parquet; placelab ingest help-format catalog)", Required: true},
			&cli.StringFlag{Name: "price", Usage: "the catalog's price `COLUMN` (default: its one *_usd_per_hour or price_per_hour column)"},
			&cli.StringFlag{Name: "types", Usage: "keep only catalog types matching `FILTER`, e.g. 'arch=amd64;family=m5,c5,r5' or 'vcpus<=64' (see help-format catalog)"},
			&cli.StringFlag{Name: "reserved", Value: d.Reserved, Usage: "allocatable from capacity: none, eks or gke (kube-reserved and eviction formulas)"},
			&cli.Int64Flag{Name: "run", Usage: "plan for what stored run `ID` held at --at"},
			&cli.StringFlag{Name: "dataset", Usage: "plan for dataset `D`'s VMs alive at --at (peak or a time)"},
			&cli.StringFlag{Name: "at", Usage: "`T`: a time (s, m, h or d), or peak with --dataset (default for --run: its last event)"},
			durationFlag("time-limit", d.Fleet.TimeLimit, "stop after `D` with the best plan and the best valid bound so far"),
			durationFlag("integer-time-limit", d.Fleet.IntegerTimeLimit, "of --time-limit, `D` for CBC's price-and-branch (0: none)"),
			floatFlag("gap", d.Fleet.Gap, positive, "CBC stops when its plan is within this relative gap of the bound"),
			&cli.BoolFlag{Name: "no-store", Usage: "do not store the plan as a dataset and run"},
			&cli.BoolFlag{Name: "replace", Usage: "plan the way from the cluster's nodes to the plan's (nodes to add and remove, pod moves), store and check the state after"},
			intFlag("max-moves", 0, 0, 0, "with --replace, move at most `N` pods (default: no bound; 0: only empty nodes go)"),
			formatFlag("table", "json"),
		},
		Action: runPlan,
	}
}

func runPlan(c *cli.Context) error {
	o := plan.DefaultOptions()
	o.Catalog, o.Price, o.Types, o.Reserved = c.String("catalog"), c.String("price"), c.String("types"), c.String("reserved")
	o.Run, o.Dataset = c.Int64("run"), c.String("dataset")
	o.Store = !c.Bool("no-store")
	o.Version = version
	at := c.String("at")
	if at == "peak" {
		o.Peak = true
	} else if at != "" {
		v, err := timeFlag(c, "at", math.NaN())
		if err != nil {
			return err
		}
		o.At = v
	}
	o.Fleet.TimeLimit, o.Fleet.IntegerTimeLimit, o.Fleet.Gap = c.Duration("time-limit"), c.Duration("integer-time-limit"), c.Float64("gap")
	if o.Fleet.IntegerTimeLimit >= o.Fleet.TimeLimit {
		return fmt.Errorf("--integer-time-limit %v: want less than --time-limit %v (it is part of it)", o.Fleet.IntegerTimeLimit, o.Fleet.TimeLimit)
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if _, err := os.Stat(o.Catalog); err != nil {
		return fmt.Errorf("--catalog %s: %w", o.Catalog, err)
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	if !c.Bool("quiet") {
		o.Progress = func(s string) { fmt.Fprintln(c.App.ErrWriter, "plan: "+s) }
	}
	if c.Bool("replace") {
		ro := plan.ReplaceOptions{Plan: o, MaxMoves: -1}
		if c.IsSet("max-moves") {
			ro.MaxMoves = c.Int("max-moves")
		}
		if err := ro.Validate(); err != nil {
			return err
		}
		rr, err := plan.Replace(c.Context, db, ro)
		if err != nil {
			return err
		}
		if c.String("format") == "json" {
			return printJSON(c.App.Writer, rr)
		}
		printReplace(c.App.Writer, rr)
		return nil
	}
	if c.IsSet("max-moves") {
		return fmt.Errorf("--max-moves is for --replace")
	}
	r, err := plan.Run(c.Context, db, o)
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, r)
	}
	printPlan(c.App.Writer, r)
	return nil
}

func printPlan(w io.Writer, r *plan.Result) {
	fmt.Fprintf(w, "plan for %s %s at t=%g s: %d placed on %d nodes, $%.4f per hour\n", r.Source.Kind, r.Source.Dataset, r.Source.T, r.Placed, r.Nodes, r.CostPerHour)
	fmt.Fprintf(w, "  no fleet costs less than $%.4f per hour (gap %.2f%%; LP %s, %d iterations)\n", r.LBCostPerHour, r.GapPct, r.Bound.Stop, r.Bound.Iterations)
	names := make([]string, 0, len(r.Types))
	for n := range r.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%d × %s", r.Types[n], n))
	}
	fmt.Fprintf(w, "  types: %s\n", strings.Join(parts, ", "))
	if cur := r.Baselines.Current; cur != nil {
		fmt.Fprintf(w, "  current fleet: %d nodes, $%.4f per hour", cur.Nodes, cur.CostPerHour)
		if len(cur.Unpriced) > 0 {
			fmt.Fprintf(w, " (not in the catalog: %s)", strings.Join(cur.Unpriced, ", "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  karpenter-style: %d nodes, $%.4f per hour; ", r.Baselines.Karpenter.Nodes, r.Baselines.Karpenter.CostPerHour)
	if bs := r.Baselines.BestSingle; bs.Nodes > 0 {
		fmt.Fprintf(w, "best single type %s: %d nodes, $%.4f per hour\n", bs.Type, bs.Nodes, bs.CostPerHour)
	} else {
		fmt.Fprintln(w, "no single type holds every pod")
	}
	for _, u := range r.Unplaceable {
		fmt.Fprintf(w, "  unplaceable: %d pods (e.g. %s): %s\n", u.Pods, strings.Join(u.Names, ", "), u.Reason)
	}
	for _, l := range r.LeftOut {
		fmt.Fprintf(w, "  left out: %s\n", l)
	}
	fmt.Fprintf(w, "  catalog %s: %d of %d types, price %s, reserved %s\n", r.Catalog.File, r.Catalog.TypesKept, r.Catalog.TypesRead, r.Catalog.PriceColumn, r.Catalog.Reserved)
	if r.Check != nil {
		verdict := "passes"
		if !r.Check.OK {
			verdict = fmt.Sprintf("FAILS (%d capacity, %d constraint violations)", r.Check.Capacity, r.Check.Constraints)
		}
		fmt.Fprintf(w, "  stored as run %d on dataset %s: placelab check %s\n", r.PlanRun, r.PlanDataset, verdict)
	}
	fmt.Fprintf(w, "  %.1f s\n", r.Seconds)
}

func printReplace(w io.Writer, r *plan.ReplaceResult) {
	budget := "no bound on moves"
	if r.MaxMoves >= 0 {
		budget = fmt.Sprintf("at most %d moves", r.MaxMoves)
	}
	fmt.Fprintf(w, "replace run %d (%s) by the plan ($%.4f per hour, plan run %d); %s\n", r.SourceRun, r.SourceDataset, r.PlanCostPerHour, r.Plan.PlanRun, budget)
	fmt.Fprintf(w, "  keep %d nodes, add %d, remove %d; move %d pods, place %d pending (%d left pending)\n",
		len(r.NodesKeep), len(r.NodesAdd), len(r.NodesRemove), r.MovesCount, len(r.PendingPlaced), len(r.PendingLeft))
	fmt.Fprintf(w, "  %d nodes at $%.4f per hour before, %d at $%.4f after\n", r.NodesBefore, r.CostPerHourBefore, r.NodesAfter, r.CostPerHourAfter)
	if len(r.NodesKeptBudget) > 0 {
		fmt.Fprintf(w, "  kept for lack of move budget: %d nodes ($%.4f per hour, %d pods)\n", len(r.NodesKeptBudget), sumCost(r.NodesKeptBudget), sumPods(r.NodesKeptBudget))
	}
	if len(r.NodesKeptNoRoom) > 0 {
		fmt.Fprintf(w, "  kept for lack of room: %d nodes ($%.4f per hour)\n", len(r.NodesKeptNoRoom), sumCost(r.NodesKeptNoRoom))
	}
	if len(r.NodesAddUnneeded) > 0 {
		fmt.Fprintf(w, "  planned nodes not added (no pod needs them): %d\n", len(r.NodesAddUnneeded))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  action\tnode\ttype\tpool\tzone\t$/h\tpods")
	for _, n := range r.NodesAdd {
		fmt.Fprintf(tw, "  add\t%s\t%s\t%s\t%s\t%.4f\t%d\n", n.Name, n.Type, n.Pool, n.Zone, n.CostPerHour, n.Pods)
	}
	for _, n := range r.NodesRemove {
		fmt.Fprintf(tw, "  remove\t%s\t%s\t%s\t%s\t%.4f\t%d\n", n.Name, n.Type, n.Pool, n.Zone, n.CostPerHour, n.Pods)
	}
	tw.Flush()
	for i, mv := range r.Moves {
		if i == 10 {
			fmt.Fprintf(w, "  … %d more moves (--format json lists them all)\n", len(r.Moves)-10)
			break
		}
		fmt.Fprintf(w, "  move %s: %s → %s\n", mv.Pod, mv.From, mv.To)
	}
	if r.Check != nil {
		verdict := "passes"
		if !r.Check.OK {
			verdict = fmt.Sprintf("FAILS (%d capacity, %d constraint violations)", r.Check.Capacity, r.Check.Constraints)
		}
		fmt.Fprintf(w, "  state after stored as run %d on dataset %s: placelab check %s\n", r.ReplaceRun, r.ReplaceDataset, verdict)
	}
	fmt.Fprintf(w, "  %.1f s\n", r.Seconds)
}

func sumCost(ns []plan.ReplaceRemoved) float64 {
	s := 0.0
	for _, n := range ns {
		s += n.CostPerHour
	}
	return s
}

func sumPods(ns []plan.ReplaceRemoved) int {
	s := 0
	for _, n := range ns {
		s += n.Pods
	}
	return s
}

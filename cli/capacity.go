package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/analysis/capacity"
	"placelab/analysis/cluster"
	"placelab/analysis/plan"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

func capacityCommand() *cli.Command {
	// Probes record no explanations: the engine flags but --no-explain.
	var flags []cli.Flag
	for _, f := range engineFlags() {
		if !slices.Contains(f.Names(), "no-explain") {
			flags = append(flags, f)
		}
	}
	flags = append(flags,
		replayDatasetFlag(),
		&cli.StringFlag{Name: "max-rejection", Value: "0.1%", Usage: "rejection target: the share of requested VMs the allocator may leave unserved (see --target-counts), as a percentage in [0%, 100%)",
			Action: func(_ *cli.Context, s string) error { _, err := parsePercent("max-rejection", s); return err }},
		&cli.StringFlag{Name: "target-counts", Value: capacity.CountShed, Usage: "what counts against --max-rejection: shed (every VM not served: rejected, or evicted and never placed again) or rejected (rejections only; evictions reported, not counted)",
			Action: func(_ *cli.Context, s string) error { return checkTargetCounts(s) }},
		&cli.StringFlag{Name: "max-heal-failure", DefaultText: "none: no heal target", Usage: "heal target: the share of the VMs of hard-failed machines that may fail to heal (heal_failure_rate), as a percentage in [0%, 100%); needs --failures or --failure-file",
			Action: func(_ *cli.Context, s string) error { _, err := parsePercent("max-heal-failure", s); return err }},
		&cli.StringFlag{Name: "survive", Value: capacity.SurviveNone, Usage: "rack: every single-rack failure must be healable in its cluster at the peak sample (healable_rack_failures_pct = 100); none: no such target",
			Action: func(_ *cli.Context, s string) error { return checkSurvive(s) }},
		&cli.StringFlag{Name: "scale", Value: capacity.ScaleMix, Usage: "mix (the zone's SKU mix scaled) or per-sku (then each SKU shrunk in turn)",
			Action: func(_ *cli.Context, s string) error { return checkScale(s) }},
		&cli.Int64Flag{Name: "run", Usage: "snapshot mode: the Kubernetes cluster (or any) run `ID` whose pods to ask about (with --like or --pool)"},
		&cli.StringFlag{Name: "like", Usage: "snapshot mode: how many more pods like `POD` (its vm name, namespace/name for a Kubernetes pod) fit now"},
		&cli.StringFlag{Name: "pool", Usage: "snapshot mode: the fewest nodes of node pool `POOL` (a SKU / instance type, or the pool of ingest k8s) the running pods need"},
		&cli.StringFlag{Name: "at", Usage: "snapshot mode: the instant (default: the run's last placement)"},
		durationFlag("time-limit", 30*time.Second, "stop each LP solve at the peak after `D` with the best valid bound so far (it stays valid, only weaker); 0: none"),
		&cli.StringFlag{Name: "catalog", Usage: "the cheapest fleet of a priced catalog's types instead of the zone's machines: `FILE` (CSV or Parquet; placelab ingest help-format catalog)"},
		&cli.StringFlag{Name: "price", Usage: "with --catalog: the catalog's price `COLUMN` (default: its one *_usd_per_hour or price_per_hour column)"},
		&cli.StringFlag{Name: "types", Usage: "with --catalog: keep only catalog types matching `FILTER` (see help-format catalog)"},
		&cli.StringFlag{Name: "reserved", Value: plan.DefaultOptions().Reserved, Usage: "with --catalog: allocatable from capacity: none, eks or gke"},
		&cli.BoolFlag{Name: "no-store", Usage: "do not keep the answer in table capacity_answer (by default it is kept, for the report and scripts)"},
		formatFlag("table", "json"),
	)
	flags = append(flags, availabilityFlags()...)
	return &cli.Command{
		Name:  "capacity",
		Usage: "the smallest inventory on which an allocator meets a rejection target (and heal or rack-survival targets), beside the LP lower bound",
		Description: `Replays --dataset through --policy on inventories of the zone's SKUs and finds,
by bisection, the fewest machines on which the policy leaves at most --max-rejection
of the requested VMs unserved over the whole trace: by default (--target-counts shed)
rejected or evicted VMs, as a replay never places an evicted VM again (shed_vms /
requested VMs = shed_rate); --target-counts rejected counts rejections only. Every probe runs
under the same validated settings; machines are the zone's own, in its clusters and
racks, all in service, copied into new clusters past the zone's size (a copy is in the
node sets of its original: the same selectors, affinity and tolerations admit it).

--scale mix scales the zone's SKU mix (counts proportional, at least one of each SKU)
and bisects on the total: the lower end is a proven floor (the LP bound below, less
the VMs the target lets the policy shed), the upper end doubles from the zone's size
(at most 16 times it). --scale per-sku then shrinks each SKU in turn, most cores first,
by bisection while the target holds: a greedy minimum, not a global one, checked by
probing one machine less of every SKU.

Bisection assumes more machines never reject more VMs, which online allocators do not
guarantee: every probe is printed, and the output says when two contradict it. Then the
answer is the smallest total from which every larger probe met the targets (the search
bisects again above the largest failure; bisection_machines keeps its first answer).

Beside the answer: the LP lower bound on machines at the trace's peak (the instant
with the most allocated cores), over the zone's SKUs with no limit on their number.
No allocator can place every VM alive then on fewer machines.

Availability targets. --max-heal-failure X also asks that at most X of the VMs of
hard-failed machines fail to heal (heal_failure_rate ≤ X); it needs failures to heal
(--failures or --failure-file; with neither it is refused). Every probe replays the same
failure spec with the same --seed, so probes differ only in machines, but the model
draws per machine: failures are a Poisson process of rate machines × machine-afr (racks
× rack-afr), so a smaller inventory sees fewer failures and each size its own draw:
heal failures need not fall as machines are added. Each probe reports the failures it
drew, the monotonicity check covers every target, and a heal target met only because
the answer had nothing to heal is noted. A --failure-file names the zone's machines:
a probe replays the rows of the machines and racks it has (copies never fail).
--survive rack also asks that at the probe's peak sample (the interval sample with the
most allocated cores) every single-rack failure could be healed in its own cluster
under the healing buffer (healable_rack_failures_pct = 100). Inventories keep the
zone's layout: a cluster with one rack can never heal a rack failure, at any size.

Catalog fleets. --catalog FILE asks the question of a priced catalog's types rather
than the zone's machines: placelab plan finds the cheapest fleet holding the VMs alive
at the trace's peak (--price, --types, --reserved as plan takes them); the search then
replays the trace on fleets of that mix (one node per machine, its type's allocatable
as capacity, all in one cluster, each node its own rack), bisecting on the mix's total
(the scale factor) and then, unless --scale mix, shrinking each type in turn, dearest
first, while the targets hold, checked by probing one node less of every type. With
--failures, spot and preemptible rows are also interrupted at their
interruptions_per_year (a hard outage of the node: its VMs are healed); the failure
model applies to every node alike, on-demand or not (--failures machine-afr=0,rack-afr=0
leaves the interruptions alone). --failure-file is refused (it names the zone's
machines). JSON adds cost_per_hour (Σ nodes × price), types {type: nodes} and catalog
{file, sha256, price_column, filter, reserved, plan_cost_per_hour,
plan_lb_cost_per_hour, plan_nodes, plan_types, price_per_hour, interruptions_per_year};
each probe has its cost_per_hour.

The answer is kept in table capacity_answer (its id: answer_id) unless --no-store.

JSON (--format json): machines, machines_per_sku, rejected, evicted, shed_vms (rejected
+ evicted), shed_rate (shed_vms / vms), target_counts, allowed_rejections (the VMs the
target allows), bisection_machines, lp_bound_machines, monotone, notes; beside them
max_heal_failure (null: none),
survive, targets (in force: rejection, heal_failure, survive_rack), failures,
failure_file; the answer's heal_vms, heal_failed, heal_failure_rate, machine_failures,
rack_failures, peak_sample_t_s, peak_sample_allocated_cores, healable_rack_failures_pct;
and the same keys on each of probes, with met (every target in force) and met_targets
(the targets it met).

Snapshot mode, on a stored run (a Kubernetes cluster's observed run: ingest k8s prints
its id as observed_run) at --at (default: its last placement):
  --like POD   how many more pods like POD fit on the nodes as they are now
               (cluster-capacity's question): each copy joins POD's tenant and obeys its
               node affinity, tolerations, anti-affinity, topology spread and every
               resource of its node (cpu, memory, ephemeral storage, GPUs, pod slots).
               JSON: more, per_zone, nodes_with_room, limit.
  --pool POOL  the fewest nodes of POOL (an instance type / SKU, or a node pool) the
               running pods need with every other node kept: UB from a drain plan that
               may remove only POOL's nodes, LB from the configuration LP. JSON:
               pool_nodes, pool_nodes_in_use, lb_nodes, ub_nodes, moves.

Examples:
   placelab capacity
   placelab capacity --run 1 --like default/web-5d8f7-abcde
   placelab capacity --run 1 --pool general --format json
   placelab capacity --policy bestfit --max-rejection 0% --format json
   placelab capacity --dataset huawei-east-1 --scale per-sku --max-rejection 0.5%
   placelab capacity --failures default --max-rejection 0.1% --max-heal-failure 1% --survive rack --buffers 0,0,2
   placelab capacity --catalog ../shared/data/catalogs/aws-ec2-us-east-1.csv --types 'family=m5,c5,r5' --max-rejection 0.5%
` + availabilityHelp,
		Flags:  flags,
		Action: runCapacity,
	}
}

// parsePercent reads a percentage ("0.1%", "2 %"); "0" needs no sign. A
// bare number other than 0 is refused: 0.1 could mean 0.1% or 10%.
func parsePercent(name, s string) (float64, error) {
	t := strings.TrimSpace(s)
	num, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("--%s %q: want a percentage such as 0.1%%", name, s)
	case !pct && v != 0:
		return 0, fmt.Errorf("--%s %q: write the percentage with its sign (%s%% or %s%%)", name, s, num, strconv.FormatFloat(100*v, 'g', -1, 64))
	case !(v >= 0 && v < 100):
		return 0, fmt.Errorf("--%s %q: want a percentage in [0%%, 100%%)", name, s)
	}
	return v / 100, nil
}

func checkSurvive(s string) error {
	if !slices.Contains(capacity.SurviveModes, s) {
		return fmt.Errorf("--survive %q: want %s", s, orList(capacity.SurviveModes))
	}
	return nil
}

func checkTargetCounts(s string) error {
	if !slices.Contains(capacity.TargetCountings, s) {
		return fmt.Errorf("--target-counts %q: want %s", s, orList(capacity.TargetCountings))
	}
	return nil
}

func checkScale(s string) error {
	if !slices.Contains(capacity.Scales, s) {
		return fmt.Errorf("--scale %q: want %s", s, orList(capacity.Scales))
	}
	return nil
}

func runCapacity(c *cli.Context) error {
	if c.IsSet("run") || c.IsSet("like") || c.IsSet("pool") {
		return runSnapshotCapacity(c)
	}
	if c.IsSet("at") {
		return errors.New("--at applies to snapshot mode (--run with --like or --pool)")
	}
	// The flags are checked before the database is opened; the dataset
	// is resolved there.
	spec := analysis.DefaultSpec(pendingDataset(c))
	spec.Policy = c.String("policy")
	if err := engineConfig(c, &spec.Engine, spec.Set); err != nil {
		return err
	}
	spec.Engine.Explain = false
	availabilitySpec(c, &spec)
	if err := spec.Validate(); err != nil {
		return err
	}
	target, err := parsePercent("max-rejection", c.String("max-rejection"))
	if err != nil {
		return err
	}
	scale := c.String("scale")
	if err := checkScale(scale); err != nil {
		return err
	}
	catalogFile := c.String("catalog")
	for _, f := range []string{"price", "types", "reserved"} {
		if c.IsSet(f) && catalogFile == "" {
			return fmt.Errorf("--%s applies to --catalog", f)
		}
	}
	if catalogFile != "" {
		if c.IsSet("failure-file") {
			return errors.New("--catalog with --failure-file: a failure file names the zone's machines, and a catalog fleet has none of them")
		}
		if _, err := os.Stat(catalogFile); err != nil {
			return fmt.Errorf("--catalog %s: %w", catalogFile, err)
		}
		if !c.IsSet("scale") {
			scale = capacity.ScalePerSKU
		}
	}
	survive := c.String("survive")
	if err := checkSurvive(survive); err != nil {
		return err
	}
	counts := c.String("target-counts")
	if err := checkTargetCounts(counts); err != nil {
		return err
	}
	o := capacity.Options{MaxRejection: target, TargetCounts: counts, Scale: scale, Survive: survive, LP: lpbound.Options{TimeLimit: c.Duration("time-limit")}}
	if c.IsSet("max-heal-failure") {
		h, err := parsePercent("max-heal-failure", c.String("max-heal-failure"))
		if err != nil {
			return err
		}
		o.MaxHealFailure = &h
	}
	if err := capacity.Validate(spec, o); err != nil {
		return err
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	if spec.Dataset, err = datasetArg(c, db); err != nil {
		return err
	}
	var bar *progressBar
	o.OnProbe = func(step string, machines int) {
		bar.Done()
		bar = newProgress(fmt.Sprintf("capacity %s %d machines", step, machines), "", c.Bool("quiet"))
	}
	o.Progress = func(done, total int64) { bar.Update(done, total) }
	var rep *capacity.Result
	if catalogFile != "" {
		rep, err = runCatalogCapacity(c, db, spec, o, catalogFile)
	} else {
		rep, err = capacity.Run(c.Context, db, spec, o)
	}
	bar.Done()
	if err != nil {
		return err
	}
	if !c.Bool("no-store") {
		if err := capacity.Store(c.Context, db, rep); err != nil {
			return err
		}
	}
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, rep)
	}
	return printCapacity(c.App.Writer, rep)
}

// runCatalogCapacity plans the trace's peak on the catalog (stored
// nothing) and searches fleets of the plan's mix.
func runCatalogCapacity(c *cli.Context, db *store.DB, spec analysis.Spec, o capacity.Options, file string) (*capacity.Result, error) {
	po := plan.DefaultOptions()
	po.Dataset, po.Peak, po.Store, po.Version = spec.Dataset, true, false, version
	po.Catalog, po.Price, po.Types, po.Reserved = file, c.String("price"), c.String("types"), c.String("reserved")
	if !c.Bool("quiet") {
		po.Progress = func(s string) { fmt.Fprintln(c.App.ErrWriter, "capacity: plan: "+s) }
	}
	pr, err := plan.Run(c.Context, db, po)
	if err != nil {
		return nil, err
	}
	return capacity.RunCatalog(c.Context, db, spec, o, capacity.Catalog{File: file, Price: po.Price, Types: po.Types, Reserved: po.Reserved,
		Mix: pr.Types, PlanCostPerHour: pr.CostPerHour, PlanLBCostPerHour: pr.LBCostPerHour})
}

// printCapacity writes the probes as a table and the answer beside the
// bound.
func printCapacity(w io.Writer, rep *capacity.Result) error {
	var skus []string
	for name := range rep.ZonePerSKU {
		skus = append(skus, name)
	}
	slices.Sort(skus)
	perSKU := func(m map[string]int) string {
		var out []string
		for _, s := range skus {
			out = append(out, fmt.Sprintf("%s %d", s, m[s]))
		}
		return strings.Join(out, ", ")
	}
	what := "not served (rejected, or evicted and never placed again)"
	if rep.TargetCounts == capacity.CountRejected {
		what = "rejected (evictions not counted)"
	}
	fmt.Fprintf(w, "%s on %q (%s): at most %s of %d VMs %s (%d VMs)%s; the zone has %d machines (%s)\n", rep.Policy, rep.Dataset, rep.Scale,
		pct(rep.MaxRejection), rep.VMs, what, rep.AllowedRejections, availTargets(rep), rep.ZoneMachines, perSKU(rep.ZonePerSKU))
	heals := rep.Failures != "none" || rep.FailureFile != ""
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	healHead := ""
	if heals {
		healHead = "failures\theal VMs\theal failed\t"
	}
	costHead := ""
	if rep.Catalog != nil {
		costHead = "$ per hour\t"
	}
	fmt.Fprintf(tw, "step\tmachines\t%s%s\tcores\trejected\tevicted\tshed\tshed rate\t%sracks healable at peak\tmet\tseconds\t\n", costHead, strings.Join(skus, "\t"), healHead)
	row := func(step string, machines int, cost *float64, per map[string]int, rest ...string) {
		cells := []string{step, strconv.Itoa(machines)}
		if rep.Catalog != nil {
			cells = append(cells, dollars(cost))
		}
		for _, s := range skus {
			cells = append(cells, strconv.Itoa(per[s]))
		}
		fmt.Fprintln(tw, strings.Join(append(cells, rest...), "\t")+"\t")
	}
	for _, p := range rep.Probes {
		cells := []string{strconv.FormatFloat(p.Cores, 'f', 0, 64), strconv.Itoa(p.Rejected), strconv.Itoa(p.Evicted), strconv.Itoa(p.ShedVMs), pct(p.ShedRate)}
		if heals {
			cells = append(cells, strconv.Itoa(p.MachineFailures+p.RackFailures), strconv.Itoa(p.HealVMs), fmt.Sprintf("%d (%s)", p.HealFailed, pct(p.HealFailureRate)))
		}
		cells = append(cells, strconv.FormatFloat(p.HealableRackPct, 'g', 4, 64)+"%", metCell(rep, &p), strconv.FormatFloat(p.Seconds, 'f', 1, 64))
		row(p.Step, p.Machines, p.CostPerHour, p.PerSKU, cells...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s needs %d machines for this trace (%s; %.0f cores), leaving %d of %d VMs unserved (%s: %d rejected, %d evicted)\n",
		rep.Policy, rep.Machines, perSKU(rep.PerSKU), rep.Cores, rep.ShedVMs, rep.VMs, pct(rep.ShedRate), rep.Rejected, rep.Evicted)
	if cf := rep.Catalog; cf != nil {
		fmt.Fprintf(w, "  %s machines at %s per hour; the plan at the peak: %d nodes at $%.4f per hour, no fleet holds the peak's VMs for less than $%.4f (catalog %s, price %s, reserved %s)\n",
			strconv.Itoa(rep.Machines), dollars(rep.CostPerHour), cf.PlanNodes, cf.PlanCostPerHour, cf.PlanLBCostPerHour, cf.File, cf.PriceColumn, cf.Reserved)
		if len(cf.Interruptions) > 0 {
			fmt.Fprintf(w, "  interrupted (spot, preemptible; per node-year): %s\n", perName(cf.Interruptions))
		}
	}
	if heals {
		fmt.Fprintf(w, "  and fails to heal %d of the %d VMs of its hard failures (%s)\n", rep.HealFailed, rep.HealVMs, pct(rep.HealFailureRate))
	}
	fmt.Fprintf(w, "  at its peak sample, t = %.1fh (%.0f cores allocated), %s of rack failures could be healed in their cluster\n",
		rep.PeakSampleT/3600, rep.PeakSampleCores, strconv.FormatFloat(rep.HealableRackPct, 'g', 4, 64)+"%")
	conv := "converged"
	if !rep.LPConverged {
		conv = fmt.Sprintf("stopped early (%v), still valid", rep.LPStop)
	}
	fmt.Fprintf(w, "no allocator can do with fewer than %.0f: the LP bound on machines (%.0f cores) holding the %d VMs alive at the peak, t = %.1fh, %.0f cores (%s, %.1fs)\n",
		rep.LPMachines, rep.LPCores, rep.PeakVMs, rep.PeakT/3600, rep.PeakCores, conv, rep.LPSeconds)
	if rep.MixLPMachines > 0 {
		fmt.Fprintf(w, "on this SKU mix, no allocator holds the peak's VMs on fewer than %d machines (the LP is infeasible below)\n", rep.MixLPMachines)
	}
	fmt.Fprintf(w, "one machine less: %s (floor %d machines); %d VMs of types no SKU hosts\n", rep.BelowAnswer, rep.FloorMachines, rep.Unplaceable)
	switch {
	case !rep.Monotone:
		fmt.Fprintln(w, "NOT MONOTONE — bisection assumed more machines never do worse, and these probes contradict it:")
	case len(rep.Notes) > 0:
		fmt.Fprintln(w, "notes:")
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	stored := ""
	if rep.AnswerID != 0 {
		stored = fmt.Sprintf("; stored as capacity answer %d", rep.AnswerID)
	}
	fmt.Fprintf(w, "%d probes in %.1fs%s\n", len(rep.Probes), rep.Seconds, stored)
	return nil
}

// dollars writes a cost per hour ("$1.2345"; "-" when unknown).
func dollars(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%.4f", *v)
}

// perName writes a map as "a 2, b 0.5", by name.
func perName(m map[string]float64) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, fmt.Sprintf("%s %g", k, m[k]))
	}
	return strings.Join(out, ", ")
}

// availTargets writes the availability targets in force for the heading.
func availTargets(rep *capacity.Result) string {
	var out string
	if h := rep.MaxHealFailure; h != nil {
		out += fmt.Sprintf(", at most %s of the VMs to heal not healed (failures %s%s)", pct(*h), rep.Failures, fileNote(rep.FailureFile))
	}
	if rep.Survive == capacity.SurviveRack {
		out += ", every rack failure healable at the peak sample"
	}
	return out
}

func fileNote(file string) string {
	if file == "" {
		return ""
	}
	return ", file " + file
}

// metCell says whether a probe met the targets in force and, if not,
// which it missed: "no: heal_failure, survive_rack".
func metCell(rep *capacity.Result, p *capacity.Probe) string {
	if p.Met {
		return "yes"
	}
	var miss []string
	for _, t := range rep.Targets {
		if !slices.Contains(p.MetTargets, t) {
			miss = append(miss, t)
		}
	}
	return "no: " + strings.Join(miss, ", ")
}

// pct writes a share as a percentage.
func pct(v float64) string {
	return strconv.FormatFloat(100*v, 'g', 4, 64) + "%"
}

// runSnapshotCapacity answers --like and --pool on a stored run; the
// replay-mode flags are refused.
func runSnapshotCapacity(c *cli.Context) error {
	if !c.IsSet("run") || c.IsSet("like") == c.IsSet("pool") {
		return errors.New("snapshot mode takes --run ID and one of --like POD and --pool POOL")
	}
	for _, fl := range c.Command.Flags {
		f := fl.Names()[0]
		switch f {
		case "run", "like", "pool", "at", "time-limit", "format":
		default:
			if c.IsSet(f) {
				return fmt.Errorf("--%s applies to the replay-mode capacity search, not to snapshot mode (--run with --like or --pool)", f)
			}
		}
	}
	at, err := timeFlag(c, "at", math.NaN())
	if err != nil {
		return err
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	w := c.App.Writer
	if c.IsSet("like") {
		rep, err := cluster.SnapshotFit(c.Context, db, c.Int64("run"), c.String("like"), at)
		if err != nil {
			return err
		}
		if c.String("format") == "json" {
			return printJSON(w, rep)
		}
		zones := make([]string, 0, len(rep.PerZone))
		for z, n := range rep.PerZone {
			zones = append(zones, fmt.Sprintf("%s %d", z, n))
		}
		slices.Sort(zones)
		fmt.Fprintf(w, "run %d (%s) at %s: %d more pods like %s fit on %d nodes (%s); limit: %s\n",
			rep.Run, rep.Dataset, atText(rep.T, rep.Time), rep.More, rep.Like, rep.NodesWithRoom, strings.Join(zones, ", "), rep.Limit)
		return nil
	}
	rep, err := cluster.PoolFewest(c.Context, db, c.Int64("run"), c.String("pool"), at, c.Duration("time-limit"))
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return printJSON(w, rep)
	}
	fmt.Fprintf(w, "run %d (%s) at %s: pool %s has %d nodes, %d in use; the running pods need at least %.0f of them (LP) and fit on %d (a drain plan of %d moves) [%.2fs]\n",
		rep.Run, rep.Dataset, atText(rep.T, rep.Time), rep.Pool, rep.PoolNodes, rep.PoolInUse, rep.LBNodes, rep.UBNodes, rep.Moves, rep.Seconds)
	return nil
}

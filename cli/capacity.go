package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer/lpbound"
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
		&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "synthetic", Usage: "dataset `NAME` (it needs machines)"},
		&cli.StringFlag{Name: "max-rejection", Value: "0.1%", Usage: "rejection target: the share of requested VMs the allocator may reject, as a percentage in [0%, 100%)",
			Action: func(_ *cli.Context, s string) error { _, err := parsePercent("max-rejection", s); return err }},
		&cli.StringFlag{Name: "scale", Value: analysis.ScaleMix, Usage: "mix (the zone's SKU mix scaled) or per-sku (then each SKU shrunk in turn)",
			Action: func(_ *cli.Context, s string) error { return checkScale(s) }},
		durationFlag("time-limit", 30*time.Second, "stop each LP solve at the peak after `D` with the best valid bound so far (it stays valid, only weaker); 0: none"),
		formatFlag("table", "json"),
	)
	return &cli.Command{
		Name:  "capacity",
		Usage: "the smallest inventory on which an allocator meets a rejection target, beside the LP lower bound",
		Description: `Replays --dataset through --policy on inventories of the zone's SKUs and finds,
by bisection, the fewest machines on which the policy rejects at most --max-rejection
of the requested VMs over the whole trace (rejected / requested VMs). Every probe runs
under the same validated settings; machines are the zone's own, in its clusters and
racks, all in service, copied into new clusters past the zone's size.

--scale mix scales the zone's SKU mix (counts proportional, at least one of each SKU)
and bisects on the total: the lower end is a proven floor (the LP bound below, less
the VMs the target lets the policy shed), the upper end doubles from the zone's size
(at most 16 times it). --scale per-sku then shrinks each SKU in turn, most cores first,
by bisection while the target holds: a greedy minimum, not a global one, checked by
probing one machine less of every SKU.

Bisection assumes more machines never reject more VMs, which online allocators do not
guarantee: every probe is printed, and the output says when two contradict it.

Beside the answer: the LP lower bound on machines at the trace's peak (the instant
with the most allocated cores), over the zone's SKUs with no limit on their number.
No allocator can place every VM alive then on fewer machines.

Examples:
   placelab capacity
   placelab capacity --policy bestfit --max-rejection 0% --format json
   placelab capacity --dataset huawei-east-1 --scale per-sku --max-rejection 0.5%`,
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

func checkScale(s string) error {
	if !slices.Contains(analysis.CapacityScales, s) {
		return fmt.Errorf("--scale %q: want %s", s, orList(analysis.CapacityScales))
	}
	return nil
}

func runCapacity(c *cli.Context) error {
	spec := analysis.DefaultSpec(c.String("dataset"))
	spec.Policy = c.String("policy")
	if err := engineConfig(c, &spec.Engine, spec.Set); err != nil {
		return err
	}
	spec.Engine.Explain = false
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
	o := analysis.CapacityOptions{MaxRejection: target, Scale: scale, LP: lpbound.Options{TimeLimit: c.Duration("time-limit")}}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	var bar *progressBar
	o.OnProbe = func(step string, machines int) {
		bar.Done()
		bar = newProgress(fmt.Sprintf("capacity %s %d machines", step, machines), "", c.Bool("quiet"))
	}
	o.Progress = func(done, total int64) { bar.Update(done, total) }
	rep, err := analysis.CapacityPlan(c.Context, db, spec, o)
	bar.Done()
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return printJSON(c.App.Writer, rep)
	}
	return printCapacity(c.App.Writer, rep)
}

// printCapacity writes the probes as a table and the answer beside the
// bound.
func printCapacity(w io.Writer, rep *analysis.CapacityReport) error {
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
	fmt.Fprintf(w, "%s on %q (%s): at most %s of %d VMs rejected (%d VMs); the zone has %d machines (%s)\n", rep.Policy, rep.Dataset, rep.Scale,
		pct(rep.MaxRejection), rep.VMs, rep.AllowedRejections, rep.ZoneMachines, perSKU(rep.ZonePerSKU))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\tmachines\t%s\tcores\trejected\trate\tevicted\tmet\tseconds\t\n", strings.Join(skus, "\t"))
	row := func(step string, machines int, per map[string]int, rest ...string) {
		cells := []string{step, strconv.Itoa(machines)}
		for _, s := range skus {
			cells = append(cells, strconv.Itoa(per[s]))
		}
		fmt.Fprintln(tw, strings.Join(append(cells, rest...), "\t")+"\t")
	}
	for _, p := range rep.Probes {
		met := "no"
		if p.Met {
			met = "yes"
		}
		row(p.Step, p.Machines, p.PerSKU, strconv.FormatFloat(p.Cores, 'f', 0, 64), strconv.Itoa(p.Rejected), pct(p.RejectionRate),
			strconv.Itoa(p.Evicted), met, strconv.FormatFloat(p.Seconds, 'f', 1, 64))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s needs %d machines for this trace (%s; %.0f cores), rejecting %d of %d VMs (%s) and evicting %d\n",
		rep.Policy, rep.Machines, perSKU(rep.PerSKU), rep.Cores, rep.Rejected, rep.VMs, pct(rep.RejectionRate), rep.Evicted)
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
	if !rep.Monotone {
		fmt.Fprintln(w, "NOT MONOTONE — bisection assumed more machines never reject more VMs, and these probes contradict it:")
		for _, n := range rep.Notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
	fmt.Fprintf(w, "%d probes in %.1fs\n", len(rep.Probes), rep.Seconds)
	return nil
}

// pct writes a share as a percentage.
func pct(v float64) string {
	return strconv.FormatFloat(100*v, 'g', 4, 64) + "%"
}

package main

import (
	"fmt"
	"placelab/analysis/oversub"
	"placelab/analysis/replay"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
	"placelab/optimizer/violation"
)

func violationCommand() *cli.Command {
	return &cli.Command{
		Name:  "violation",
		Usage: "Monte Carlo probability-of-violation placement on oversubscribed nodes (König et al., VLDB'22)",
		Description: `Simulates a cluster of --nodes nodes whose tenants' demand follows real demand curves
(--dataset, e.g. Bitbrains loaded with placelab ingest gwa; without it synthetic curves
with the paper's shapes): tenants arrive until the tenant density (Σ max CPU / cluster
CPU) reaches --density and are re-admitted after departures; a node reaching 95% of a
resource is in violation and its smallest tenants fail over. Every policy sees the same
tenant sequences (--seeds of them). PrV policies place by Algorithm 1's Monte Carlo
estimate of the probability of violation (--reps draws) with threshold --theta.
--density takes a list for a sweep (the paper's Fig 9). JSON: per density: curves,
best_baseline (the non-PrV policy with the fewest violations), best_baseline_violations,
prv_worstfit_violations, prv_worstfit_ms_per_placement, best_baseline_over_prv_worstfit,
and result.policies[]: policy, violations (mean over seeds), failovers, seconds,
ms_per_placement (wall clock of the simulation over its placement requests), ratio.
PrV conditions a placed tenant's simulated future on its observed prefix (--condition)
and, with no node below θ, places where the probability with the tenant is least
(--fallback); --condition max --fallback min-delta is the paper as printed.
Each (density, policy) is stored as a run (engine "violation"; view violation_results).

Policies: ` + strings.Join(violation.PolicyNames(), ", ") + `

Examples:
   placelab ingest gwa ../shared/data/bitbrains-rnd/bitbrains_rnd_2013-7.csv.gz --dataset bitbrains --max-rejects 71664
   placelab violation --dataset bitbrains --density 1.0,1.1,1.2 --format json
   placelab violation --policy prv-worstfit,bestfit --seeds 5`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "policy", Value: "all", Usage: "comma-separated `POLICIES` or all"},
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "dataset `NAME` of demand curves (default: synthetic curves)"},
			intFlag("nodes", violation.DefaultNodes, 1, 0, "nodes H"),
			&cli.StringFlag{Name: "density", Value: strconv.FormatFloat(violation.DefaultDensity, 'g', -1, 64), Usage: "tenant density, or a comma-separated sweep (each > 0, finite)"},
			floatFlag("hours", violation.DefaultHours, interval{lo: 0, hi: violation.MaxHours, openLo: true}, "simulated hours"),
			intFlag("seeds", violation.DefaultSeeds, 1, 0, "repetitions (tenant sequences)"),
			intFlag("reps", violation.DefaultRepetitions, 1, 0, "Monte Carlo draws per estimate (NumRepetitions)"),
			floatFlag("theta", violation.DefaultTheta, unitOpenLo, "PrV threshold θ"),
			&cli.StringFlag{Name: "condition", Value: string(violation.DefaultConditioning), Usage: "how PrV conditions a placed tenant's draws: prefix (its observed prefix: plateau window, anchored at its observed max) or max (§5.1: curves whose max reaches its observed max)",
				Action: func(_ *cli.Context, v string) error {
					if !slices.Contains(violation.Conditionings(), violation.Conditioning(v)) {
						return fmt.Errorf("--condition %q: want one of %v", v, violation.Conditionings())
					}
					return nil
				}},
			&cli.StringFlag{Name: "fallback", Value: string(violation.DefaultFallback), Usage: "PrV's rule when no node stays below θ: min-with (least Pr with the tenant) or min-delta (Algorithms 2–3: least Pr increase)",
				Action: func(_ *cli.Context, v string) error {
					if !slices.Contains(violation.Fallbacks(), violation.Fallback(v)) {
						return fmt.Errorf("--fallback %q: want one of %v", v, violation.Fallbacks())
					}
					return nil
				}},
			&cli.Float64Flag{Name: "node-cpu", Usage: "node CPU capacity (> 0)", DefaultText: "80 for synthetic curves, 64 cores for a dataset",
				Action: func(_ *cli.Context, v float64) error { return positive.check("node-cpu", v) }},
			&cli.Float64Flag{Name: "node-memory", Usage: "node memory capacity in GB (≥ 0; 0: memory untracked)", DefaultText: "the synthetic node's, 512 for a dataset",
				Action: func(_ *cli.Context, v float64) error { return nonNegative.check("node-memory", v) }},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "run `SEED`"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			pols := violation.PolicyNames()
			if p := c.String("policy"); p != "all" {
				pols = strings.Split(p, ",")
			}
			// θ and the Monte Carlo draws are the PrV policies' alone.
			var prvNames []string
			for _, n := range violation.PolicyNames() {
				if violation.IsPrV(n) {
					prvNames = append(prvNames, n)
				}
			}
			for _, f := range []string{"theta", "reps", "condition", "fallback"} {
				if err := onlyWith(c, f, slices.ContainsFunc(pols, violation.IsPrV), "to the PrV policies ("+strings.Join(prvNames, ", ")+")"); err != nil {
					return err
				}
			}
			var dens []float64
			for _, s := range strings.Split(c.String("density"), ",") {
				d, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil || !positive.contains(d) {
					return fmt.Errorf("--density %q: want finite numbers > 0, e.g. 1.0,1.1,1.2", c.String("density"))
				}
				dens = append(dens, d)
			}
			sim := violation.DefaultSimConfig()
			sim.Nodes, sim.Hours, sim.Seeds, sim.Seed = c.Int("nodes"), c.Float64("hours"), c.Int("seeds"), c.Uint64("seed")
			if c.String("dataset") != "" {
				sim.Capacity = oversub.DatasetSimConfig().Capacity
			}
			if c.IsSet("node-cpu") {
				sim.Capacity[violation.CPU] = c.Float64("node-cpu")
			}
			if c.IsSet("node-memory") {
				sim.Capacity[violation.Memory] = c.Float64("node-memory")
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			bar := newProgress("violation", "densities", c.Bool("quiet"))
			pts, err := oversub.ViolationSweep(c.Context, db, oversub.ViolationOptions{Dataset: c.String("dataset"), Policies: pols,
				Densities: dens, Sim: sim, Params: violation.PolicyParams{Theta: c.Float64("theta"), Fallback: violation.Fallback(c.String("fallback")),
					MC: violation.MCConfig{Reps: c.Int("reps"), Condition: violation.Conditioning(c.String("condition"))}},
				Progress: bar.Update})
			bar.Done()
			if err != nil {
				return err
			}
			for _, p := range pts {
				for _, r := range p.Result.Policies {
					ratio := 0.0
					if r.Ratio != nil {
						ratio = *r.Ratio
					}
					if _, err := analysis.WriteFigures(c.Context, db, analysis.RunMeta{Engine: "violation", Policy: r.Policy, Dataset: c.String("dataset"),
						Version: version, Seed: sim.Seed, Params: map[string]any{"density": p.Density, "nodes": sim.Nodes, "hours": sim.Hours,
							"seeds": sim.Seeds, "reps": c.Int("reps"), "theta": c.Float64("theta"),
							"condition": c.String("condition"), "fallback": c.String("fallback")}}, r.Seconds,
						[]replay.MetricRow{{Metric: "violations", Value: r.Violations}, {Metric: "failovers", Value: r.Failovers},
							{Metric: "ms_per_placement", Value: r.MsPerPlacement}, {Metric: "ratio_to_prv_worstfit", Value: ratio}}); err != nil {
						return err
					}
				}
			}
			if format == "json" {
				return printJSON(c.App.Writer, pts)
			}
			w := c.App.Writer
			for _, p := range pts {
				if p.Result.Policy(violation.NamePrVWorstFit) == nil {
					fmt.Fprintf(w, "density %.2f (%s curves): best baseline %s %.2f violations\n", p.Density, p.Curves, p.Best, p.BestViolations)
				} else {
					fmt.Fprintf(w, "density %.2f (%s curves): best baseline %s %.2f violations, PrV-WorstFit %.2f, ratio %.2f; PrV-WorstFit %.3f ms per placement on %d nodes (target ≤ 1)\n",
						p.Density, p.Curves, p.Best, p.BestViolations, p.PrVViolations, p.Ratio, p.PrVMsPerPlacement, sim.Nodes)
				}
				fmt.Fprintf(w, "  %-16s %11s %10s %9s %8s\n", "policy", "violations", "failovers", "ms/place", "secs")
				for _, r := range p.Result.Policies {
					fmt.Fprintf(w, "  %-16s %11.2f %10.2f %9.3f %8.1f\n", r.Policy, r.Violations, r.Failovers, r.MsPerPlacement, r.Seconds)
				}
			}
			return nil
		},
	}
}

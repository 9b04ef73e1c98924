package main

import (
	"fmt"
	"placelab/analysis/replay"
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
--density takes a list for a sweep (the paper's Fig 9). JSON: per density, per policy:
policy, violations (mean over seeds), failovers, seconds, ms_per_placement, ratio.
Each (density, policy) is stored as a run (engine "violation"; view violation_results).

Policies: ` + strings.Join(violation.PolicyNames(), ", ") + `

Examples:
   placelab ingest gwa ../shared/data/bitbrains-rnd/bitbrains_rnd_2013-7.csv.gz --dataset bitbrains --max-rejects 71664
   placelab violation --dataset bitbrains --density 1.0,1.1,1.2 --format json
   placelab violation --policy prv-worstfit,bestfit --seeds 5`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "policy", Value: "all", Usage: "comma-separated `POLICIES` or all"},
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "dataset `NAME` of demand curves (default: synthetic curves)"},
			&cli.IntFlag{Name: "nodes", Value: violation.DefaultNodes, Usage: "nodes H"},
			&cli.StringFlag{Name: "density", Value: strconv.FormatFloat(violation.DefaultDensity, 'g', -1, 64), Usage: "tenant density, or a comma-separated sweep"},
			&cli.Float64Flag{Name: "hours", Value: violation.DefaultHours, Usage: "simulated hours"},
			&cli.IntFlag{Name: "seeds", Value: violation.DefaultSeeds, Usage: "repetitions (tenant sequences)"},
			&cli.IntFlag{Name: "reps", Value: violation.DefaultRepetitions, Usage: "Monte Carlo draws per estimate (NumRepetitions)"},
			&cli.Float64Flag{Name: "theta", Value: violation.DefaultTheta, Usage: "PrV threshold θ"},
			&cli.Float64Flag{Name: "node-cpu", Usage: "node CPU capacity (default: 80 for synthetic curves, 64 cores for a dataset)"},
			&cli.Float64Flag{Name: "node-memory", Usage: "node memory capacity in GB (default: the synthetic node's, 512 for a dataset)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "run `SEED`"},
			formatFlag("table"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := checkFormat(format); err != nil {
				return err
			}
			pols := violation.PolicyNames()
			if p := c.String("policy"); p != "all" {
				pols = strings.Split(p, ",")
			}
			var dens []float64
			for _, s := range strings.Split(c.String("density"), ",") {
				d, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil || d <= 0 {
					return fmt.Errorf("--density %q: want positive numbers, e.g. 1.0,1.1,1.2", c.String("density"))
				}
				dens = append(dens, d)
			}
			sim := violation.DefaultSimConfig()
			sim.Nodes, sim.Hours, sim.Seeds, sim.Seed = c.Int("nodes"), c.Float64("hours"), c.Int("seeds"), c.Uint64("seed")
			if c.String("dataset") != "" {
				sim.Capacity[violation.CPU], sim.Capacity[violation.Memory] = 64, 512
			}
			if v := c.Float64("node-cpu"); v > 0 {
				sim.Capacity[violation.CPU] = v
			}
			if v := c.Float64("node-memory"); v > 0 {
				sim.Capacity[violation.Memory] = v
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			bar := newProgress("violation", "densities", c.Bool("quiet"))
			pts, err := analysis.ViolationSweep(c.Context, db, analysis.ViolationOptions{Dataset: c.String("dataset"), Policies: pols,
				Densities: dens, Sim: sim, Params: violation.PolicyParams{Theta: c.Float64("theta"), MC: violation.MCConfig{Reps: c.Int("reps")}},
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
							"seeds": sim.Seeds, "reps": c.Int("reps"), "theta": c.Float64("theta")}}, r.Seconds,
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
				fmt.Fprintf(w, "density %.2f: best baseline %s, its violations / PrV-WorstFit's = %.2f\n", p.Density, p.Best, p.Ratio)
				fmt.Fprintf(w, "  %-16s %11s %10s %9s %8s\n", "policy", "violations", "failovers", "ms/place", "secs")
				for _, r := range p.Result.Policies {
					fmt.Fprintf(w, "  %-16s %11.2f %10.2f %9.3f %8.1f\n", r.Policy, r.Violations, r.Failovers, r.MsPerPlacement, r.Seconds)
				}
			}
			return nil
		},
	}
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "verify a stored run against its data: no machine over capacity at any time",
		Description: `Checks a stored run independently of the engines that made it: SQL over the
run's placement rows and the vm, vm_type_demand and machine rows of the load the run
pinned sweeps every machine's load in every dimension (cores, memory, SSD, HDD, NIC,
GPUs) through time — a VM occupies its machine from its placement until its end or
eviction — and reports every machine whose load exceeds its capacity (cores: the
run's MAX_OVERSUB when it oversubscribed), and every placement of a VM or on a machine
the data lacks, or of a type the machine's SKU cannot host.

Exit status 0 when the run is clean, 1 with the offending machines when it is not.
A run whose dataset was re-ingested since is refused (its rows are gone).

Examples:
   placelab check --run 1
   placelab check --run 3 --format json`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "run", Required: true, Usage: "run `ID` (placelab sql --view run_summary lists them)"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := analysis.CheckRun(c.Context, db, c.Int64("run"))
			if err != nil {
				return err
			}
			w := c.App.Writer
			if format == "json" {
				if err := printJSON(w, rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "run %d: dataset %q load %d, %d placements checked\n", rep.Run, rep.Dataset, rep.LoadID, rep.Placements)
				if rep.OK() {
					fmt.Fprintln(w, "  ok: no machine over capacity in any dimension at any time")
				}
				for _, v := range rep.Violations {
					if v.Peak > 0 {
						fmt.Fprintf(w, "  machine %d: %s at %.1f%% of capacity at t = %.0f s\n", v.MachineID, v.Problem, 100*v.Peak, v.AtS)
					} else {
						fmt.Fprintf(w, "  machine %d: %s (first at t = %.0f s)\n", v.MachineID, v.Problem, v.AtS)
					}
				}
			}
			if !rep.OK() {
				return cli.Exit(fmt.Sprintf("run %d breaks capacity on %d (machine, problem) pairs", rep.Run, len(rep.Violations)), 1)
			}
			return nil
		},
	}
}

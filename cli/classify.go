package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"placelab/analysis/characterize"
)

func classifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "classify",
		Usage: "classify VMs by the periodicity of their CPU utilization (Resource Central §3.6)",
		Description: `For every VM of --dataset with a CPU series of at least 3 days, finds the dominant
period with an FFT; a period within 10% of 24 h makes the VM potentially interactive,
any other series delay-insensitive, a shorter one unknown. Results go to table
workload_class (replaced on each run) and feed views core_hours_by_class and
periodicity_accuracy.

Example:
   placelab ingest azure-cpu ../shared/data/azure-v1-cpu-100vms/azure_v1_cpu_78periodic_5min.csv.gz --dataset periodic78
   placelab classify --dataset periodic78
   placelab sql --view periodicity_accuracy`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Value: "synthetic", Usage: "dataset `NAME`"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			bar := newProgress("classify", "", c.Bool("quiet"))
			st, err := characterize.ClassifyWorkloads(c.Context, db, c.String("dataset"), bar.Update)
			bar.Done()
			if err != nil {
				return err
			}
			if format == "json" {
				return printJSON(c.App.Writer, st)
			}
			fmt.Fprintf(c.App.Writer, "dataset %q: %d CPU series; %d periodic; %d interactive, %d delay-insensitive, %d unknown (under 3 days)\n",
				st.Dataset, st.Series, st.Periodic, st.Interactive, st.DelayInsensitive, st.Unknown)
			return nil
		},
	}
}

package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"placelab/analysis/characterize"
)

func characterizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "characterize",
		Usage: "write the workload characterization report (Protean §2, Resource Central §3)",
		Description: `Runs every characterization view (sql/views) over --dataset (default: all) and
writes DIR/characterize.html: one section per view with its chart, its numbers, the
paper's numbers beside them where the paper printed them, and the view's SQL. Views
whose columns the dataset lacks say so instead of failing. Run placelab classify first
for the workload-class sections. --format json prints every view's rows instead.

Examples:
   placelab characterize --dataset huawei-east-1 --out report
   placelab characterize --format json > views.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "only dataset `NAME`"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "report", Usage: "output `DIR`"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := onlyWith(c, "out", format != "json", "to the HTML page (--format json prints to stdout)"); err != nil {
				return err
			}
			// Only reads: beside other readers (explain, sql --view, ...).
			db, err := openReadDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			bar := newProgress("characterize", "", c.Bool("quiet"))
			page, results, err := characterize.Run(c.Context, db, c.String("dataset"), bar.Update)
			bar.Done()
			if err != nil {
				return err
			}
			if format == "json" {
				out := map[string][]map[string]any{}
				for view, res := range results {
					rows := make([]map[string]any, len(res.Rows))
					for i, r := range res.Rows {
						m := map[string]any{}
						for j, col := range res.Columns {
							m[col] = jsonValue(r[j])
						}
						rows[i] = m
					}
					out[view] = rows
				}
				return printJSON(c.App.Writer, out)
			}
			path, err := page.Write(c.String("out"), "characterize.html")
			if err != nil {
				return err
			}
			abs, _ := filepath.Abs(path)
			fmt.Fprintln(c.App.Writer, abs)
			return nil
		},
	}
}

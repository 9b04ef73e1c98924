package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"placelab/analysis/characterize"
	"placelab/analysis/experiments"
	"placelab/analysis/overview"
	"placelab/analysis/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the offline HTML report (DIR/index.html, characterize.html, experiments.html)",
		Description: `Writes one offline site into DIR, with DIR/assets/ (the ECharts script, shipped
inside the binary: no page needs the network):
   index.html          datasets, inventory, workload, type mix, arrivals; every stored
                       replay with its packing density inside the LP interval; oversubscription
                       arms; Paragon runs
   characterize.html   the workload characterization views (as placelab characterize)
   experiments.html    every experiment's latest run of each grid point, the quick and the
                       full grid apart, with the papers' numbers (source, scale) beside ours
With --markdown each page is written beside it as Markdown too (index.md,
characterize.md, experiments.md: sections, notes and tables, no charts), the
form docs/results/ keeps (make results-docs). No dataset is needed: on a database that holds only experiments the overview and the
characterization say so. Run placelab experiment all --quick first for a complete
experiments page.

Example:
   placelab experiment all --quick && placelab report --out report && xdg-open report/index.html`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "report", Usage: "output `DIR`"},
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "only dataset `NAME`"},
			&cli.BoolFlag{Name: "markdown", Usage: "also write each page as Markdown (NAME.md beside NAME.html)"},
		},
		Action: func(c *cli.Context) error {
			// Only reads: beside other readers (explain, sql --view, ...).
			db, err := openReadDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			page, err := overview.Page(c.Context, db, c.String("dataset"))
			if err != nil {
				return err
			}
			path, err := page.Write(c.String("out"), "index.html")
			if err != nil {
				return err
			}
			md := func(p *report.Page, name string) error {
				if !c.Bool("markdown") {
					return nil
				}
				return os.WriteFile(filepath.Join(c.String("out"), name), []byte(p.Markdown()), 0o644)
			}
			if err := md(page, "index.md"); err != nil {
				return err
			}
			bar := newProgress("report", "views", c.Bool("quiet"))
			ch, _, err := characterize.Run(c.Context, db, c.String("dataset"), bar.Update)
			bar.Done()
			if err != nil {
				return err
			}
			if _, err := ch.Write(c.String("out"), "characterize.html"); err != nil {
				return err
			}
			if err := md(ch, "characterize.md"); err != nil {
				return err
			}
			ex, err := experiments.Page(c.Context, db)
			if err != nil {
				return err
			}
			if _, err := ex.Write(c.String("out"), "experiments.html"); err != nil {
				return err
			}
			if err := md(ex, "experiments.md"); err != nil {
				return err
			}
			abs, _ := filepath.Abs(path)
			fmt.Fprintln(c.App.Writer, abs)
			return nil
		},
	}
}

package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the offline HTML report (DIR/index.html)",
		Description: `Writes DIR/index.html and DIR/assets/ (the ECharts script, shipped inside the
binary: the page needs no network). The first page shows each loaded dataset, the
inventory, a workload summary, the VM type mix and arrivals per hour.

Example:
   placelab report --out report && xdg-open report/index.html`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "report", Usage: "output `DIR`"},
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "only dataset `NAME`"},
		},
		Action: func(c *cli.Context) error {
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			page, err := analysis.Overview(c.Context, db, c.String("dataset"))
			if err != nil {
				return err
			}
			path, err := page.Write(c.String("out"), "index.html")
			if err != nil {
				return err
			}
			abs, _ := filepath.Abs(path)
			fmt.Fprintln(c.App.Writer, abs)
			return nil
		},
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	store "placelab/sql"
)

func sqlCommand() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run a SQL query or print a named view, as a table, CSV or JSON",
		ArgsUsage: `["SELECT ..."]`,
		Description: `Runs one SQL statement against the database (DuckDB dialect) and prints the
result. --view NAME prints one of placelab's views (optionally for one --dataset);
--list shows the tables and views.

Examples:
   placelab sql --list
   placelab sql --view workload_summary
   placelab sql --view vm_type_mix --dataset synthetic --format csv
   placelab sql "SELECT dataset, count(*) AS vms FROM vm GROUP BY 1" --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "view", Usage: "print view `NAME`"},
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "with --view: only dataset `NAME`"},
			&cli.BoolFlag{Name: "list", Usage: "list tables and views"},
			&cli.BoolFlag{Name: "show", Usage: "with --view: print the view's SQL instead of running it"},
			formatFlag("table", "csv", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			view := c.String("view")
			for _, f := range []string{"dataset", "show"} {
				if err := onlyWith(c, f, view != "", "with --view"); err != nil {
					return err
				}
			}
			if c.Bool("show") {
				q, err := store.ViewSQL(view)
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, q)
				return nil
			}
			if !c.Bool("list") && view == "" && c.NArg() != 1 {
				return cli.Exit(`usage: placelab sql "SELECT ..." | --view NAME | --list (see placelab sql --help)`, 2)
			}
			// A view or the list only reads; a statement may write.
			open := openDB
			if c.Bool("list") || view != "" {
				open = openReadDB
			}
			db, err := open(c)
			if err != nil {
				return err
			}
			defer db.Close()
			var res *store.Result
			switch {
			case c.Bool("list"):
				tables, err := db.Tables(c.Context)
				if err != nil {
					return err
				}
				res = &store.Result{Columns: []string{"name", "kind"}}
				for _, t := range tables {
					res.Rows = append(res.Rows, []any{t, "table"})
				}
				for _, v := range store.ViewNames() {
					res.Rows = append(res.Rows, []any{v, "view"})
				}
			case view != "":
				res, err = db.QueryView(c.Context, view, c.String("dataset"))
			default:
				res, err = db.Query(c.Context, c.Args().First())
			}
			if err != nil {
				return fmt.Errorf("sql: %s", strings.TrimSpace(err.Error()))
			}
			return writeResult(c.App.Writer, res, format)
		},
	}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a table or view to a Parquet or CSV file",
		ArgsUsage: "TABLE",
		Description: `The file type follows the --to extension: .parquet or .csv (with a header).

Examples:
   placelab export vm --to vms.parquet
   placelab export workload_summary --to summary.csv`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Required: true, Usage: "output `FILE` (.parquet or .csv)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: placelab export TABLE --to FILE.parquet|FILE.csv", 2)
			}
			db, err := openReadDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.Export(c.Context, c.Args().First(), c.String("to"))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %d rows to %s\n", n, c.String("to"))
			return nil
		},
	}
}

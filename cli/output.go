package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"placelab/analysis/report"
	store "placelab/sql"
)

// formatFlag declares the output formats a command writes, its default
// first: --format refuses any other with a one-line error when the flags
// are parsed, so a format a command does not write is never accepted and
// ignored.
func formatFlag(def string, more ...string) *cli.StringFlag {
	formats := append([]string{def}, more...)
	return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: def,
		Usage: "output `FORMAT`: " + orList(formats),
		Action: func(_ *cli.Context, f string) error {
			if !slices.Contains(formats, f) {
				return fmt.Errorf("--format %q: this command writes %s", f, orList(formats))
			}
			return nil
		}}
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// writeResult prints a query result as a table, CSV or JSON (an array of
// objects keyed by column name).
func writeResult(w io.Writer, res *store.Result, format string) error {
	switch format {
	case "json":
		rows := make([]map[string]any, len(res.Rows))
		for i, r := range res.Rows {
			m := make(map[string]any, len(r))
			for j, c := range res.Columns {
				m[c] = jsonValue(r[j])
			}
			rows[i] = m
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(res.Columns)
		for _, r := range res.Rows {
			rec := make([]string, len(r))
			for i, x := range r {
				if x == nil {
					rec[i] = ""
				} else {
					rec[i] = fmt.Sprint(x)
				}
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	default:
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(res.Columns, "\t")+"\t")
		for _, r := range res.Rows {
			cells := make([]string, len(r))
			for i, x := range r {
				cells[i] = report.Cell(x)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "(%d rows)\n", len(res.Rows))
		return nil
	}
}

// jsonValue keeps JSON-unfriendly floats (NaN, Inf) from breaking encoding.
func jsonValue(x any) any {
	if f, ok := x.(float64); ok && (f != f || f > 1e308 || f < -1e308) {
		return fmt.Sprint(f)
	}
	return x
}

// printJSON writes one indented JSON value.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

package main

import (
	"fmt"
	"io"
	"placelab/datasets/catalog"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"placelab/datasets"
	store "placelab/sql"
)

func ingestCommand() *cli.Command {
	var formats strings.Builder
	for _, f := range datasets.Formats() {
		fmt.Fprintf(&formats, "   %-14s %s\n", f.Name, f.Summary)
	}
	return &cli.Command{
		Name:      "ingest",
		Usage:     "load trace files of a known FORMAT into the database, as one transaction",
		ArgsUsage: "FORMAT PATH...",
		Description: `Loads PATH... (plain or gzip-compressed) as dataset --dataset (default: the
format's name). Re-ingesting a dataset name replaces it. The whole ingest is one
transaction: a bad row stops it with an error naming file, row and field, and the
database is left exactly as it was (--max-rejects N skips up to N bad rows and
counts them by reason instead, in the trace formats; not in placelab, k8s or an
--inventory file, which load whole). A row with more fields than the header names is
a bad row. What loads but should be known is a named warning, printed, under
"warnings" in --format json (source, object, row, count, code, message) and kept in
table ingest_warning: a file with a header and no rows ("0 rows"), a column a
format with a fixed column list does not define; for placelab, a VM no SKU can host,
a machine its recorded VMs fill beyond capacity, a VM recorded on an offline or
unhealthy machine, a VM of 0 cores or 0 memory ("placelab ingest help-format
placelab"). A warning many rows raise is one, with their count and the first few.

Formats:
` + formats.String() + `
Run "placelab ingest help-format FORMAT" for a format's column mapping.

Traces without servers (huawei, azure-vmtable, azure-packing, azure-flavor) take --inventory:
   synthetic:N                         the synthetic Protean-calibrated zone, N machines
   shape:gen5:N                        N machines of a named shape (gen3, gen4, gen5, gen6)
   shape:cores=64,memory=256:N         N machines of a custom shape (+ ssd, hdd, nic, gpus)
   per-sku:N                           N machines of each SKU the trace names (azure-packing)
   FILE.csv, FILE.parquet, file:FILE   your own fleet, one machine per row: name, cluster, rack, sku,
                                       cores, memory_gb (+ zone, datacenter, update_domain, ssd_gb,
                                       hdd_gb, nic_gbps, gpus, health); "placelab ingest help-format
                                       inventory" shows the format

Examples:
   placelab ingest huawei ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory synthetic:2000
   placelab ingest huawei ../shared/data/huawei-east-1/Huawei-East-1-lt.csv --inventory fleet.csv
   placelab ingest alibaba-openb ../shared/data/alibaba-gpu-v2023/openb_node_list_all_node.csv \
        ../shared/data/alibaba-gpu-v2023/openb_pod_list_default.csv
   placelab ingest azure-vmtable vmtable.csv.gz vm_cpu_readings-file-*.csv.gz --dataset azure-v1
   placelab ingest azure-flavor ../shared/data/azure-v1-flavor
   placelab ingest azure-flavor ../shared/data/azure-v1-flavor/v1.dev.txt \
        ../shared/data/azure-v1-flavor/v1.dev.c2100000.txt --dataset azure-flavor-dev`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Aliases: []string{"d"}, Usage: "dataset `NAME` (default: the format name)"},
			&cli.StringFlag{Name: "inventory", Usage: "machines for a trace without servers: a `SPEC` or an inventory file (see above)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed for a synthetic inventory"},
			&cli.Int64Flag{Name: "max-rejects", Value: 0, Usage: "skip up to `N` bad rows (counted by reason) instead of failing (N ≥ 0)",
				Action: func(_ *cli.Context, n int64) error {
					if n < 0 {
						return fmt.Errorf("--max-rejects %d: want max-rejects ≥ 0", n)
					}
					return nil
				}},
			formatFlag("table", "json"),
		},
		Action: runIngest,
		Subcommands: []*cli.Command{{
			Name:      "help-format",
			Usage:     "explain one format's files and column mapping (\"inventory\": the --inventory file; \"catalog\": plan's --catalog file)",
			ArgsUsage: "FORMAT|inventory|catalog",
			Action: func(c *cli.Context) error {
				if c.Args().First() == catalogFormat {
					fmt.Fprintf(c.App.Writer, "%s — a priced machine-type catalog for placelab plan --catalog\n\n%s\n", catalogFormat, catalog.Help)
					return nil
				}
				if c.Args().First() == inventoryFormat {
					fmt.Fprintf(c.App.Writer, "%s — your own fleet for --inventory\n\n%s\n", inventoryFormat, datasets.InventoryFileHelp)
					return nil
				}
				f, err := datasets.Lookup(c.Args().First())
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s — %s\n\n%s\n", f.Name, f.Summary, f.Help)
				return nil
			},
		}},
	}
}

// catalogFormat is the name help-format gives the --catalog file format.
const catalogFormat = "catalog"

// inventoryFormat is the name help-format gives the --inventory file format.
const inventoryFormat = "inventory"

// ingestSummary is what ingest prints (as JSON with --format json).
type ingestSummary struct {
	Dataset      string           `json:"dataset"`
	Format       string           `json:"format"`
	Files        []string         `json:"files"`
	RowsRead     int64            `json:"rows_read"`
	RowsLoaded   int64            `json:"rows_loaded"`
	RowsRejected int64            `json:"rows_rejected"`
	Rejected     map[string]int64 `json:"rejected"`
	Tables       map[string]int64 `json:"tables"`
	Seconds      float64          `json:"seconds"`
	RowsPerSec   float64          `json:"rows_per_sec"`
	// ObservedRun is the run of the placements the source recorded
	// (engine observed), 0 when it recorded none.
	ObservedRun int64 `json:"observed_run,omitempty"`
	// Report is the loader's account of what it read (ingest k8s: objects,
	// pods by phase, warnings).
	Report any `json:"report,omitempty"`
	// Warnings are what loaded but should be known (a file of 0 rows, a
	// column the format does not define), also in table ingest_warning.
	Warnings []store.Warning `json:"warnings"`
}

func runIngest(c *cli.Context) error {
	if c.NArg() < 2 {
		return cli.Exit("usage: placelab ingest FORMAT PATH... (see placelab ingest --help)", 2)
	}
	format := c.String("format")
	fmtName := c.Args().First()
	if _, err := datasets.Lookup(fmtName); err != nil {
		return err
	}
	paths := c.Args().Tail()
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	bar := newProgress("ingest "+fmtName, "B", c.Bool("quiet"))
	start := time.Now()
	counts, err := datasets.Ingest(c.Context, db, fmtName, paths, datasets.Options{
		Dataset:    c.String("dataset"),
		Inventory:  c.String("inventory"),
		Seed:       c.Int64("seed"),
		MaxRejects: c.Int64("max-rejects"),
		Progress:   bar.Update,
		Version:    version,
	})
	bar.Done()
	if err != nil {
		hint := ""
		if datasets.Skippable(err) && c.Int64("max-rejects") == 0 {
			// only a format that skips rows, at a row it would skip: never
			// an inventory file's rows, a header, ingest placelab or k8s
			hint = "; --max-rejects N skips up to N bad rows"
		}
		return fmt.Errorf("ingest %s: %w (nothing was changed%s)", fmtName, err, hint)
	}
	name := c.String("dataset")
	if name == "" {
		name = fmtName
	}
	sum := summarize(name, fmtName, paths, counts, time.Since(start))
	return printIngest(c.App.Writer, sum, format)
}

func summarize(name, format string, files []string, counts store.Counts, el time.Duration) ingestSummary {
	s := ingestSummary{Dataset: name, Format: format, Files: files, RowsRead: counts.RowsRead,
		RowsLoaded: counts.RowsLoaded, RowsRejected: counts.RowsRejected, Rejected: counts.Rejected,
		Tables: counts.Tables, Seconds: el.Seconds(), ObservedRun: counts.ObservedRun, Report: counts.Report, Warnings: counts.Warnings}
	if s.Rejected == nil {
		s.Rejected = map[string]int64{}
	}
	if s.Warnings == nil {
		s.Warnings = []store.Warning{}
	}
	if s.Seconds > 0 {
		s.RowsPerSec = float64(s.RowsLoaded) / s.Seconds
	}
	return s
}

func printIngest(w io.Writer, s ingestSummary, format string) error {
	if format == "json" {
		return printJSON(w, s)
	}
	fmt.Fprintf(w, "dataset %q (%s): read %d rows, loaded %d, rejected %d in %.2fs\n",
		s.Dataset, s.Format, s.RowsRead, s.RowsLoaded, s.RowsRejected, s.Seconds)
	for _, k := range sortedKeys(s.Rejected) {
		fmt.Fprintf(w, "  rejected %6d  %s\n", s.Rejected[k], k)
	}
	for _, k := range sortedKeys(s.Tables) {
		fmt.Fprintf(w, "  %-16s %d rows\n", k, s.Tables[k])
	}
	for _, wa := range s.Warnings {
		where := wa.Source
		if wa.Row > 0 {
			where += fmt.Sprintf(": row %d", wa.Row)
		}
		if wa.Object != "" {
			where += ": " + wa.Object
		}
		fmt.Fprintf(w, "  warning %s: %s: %s\n", wa.Code, where, wa.Message)
	}
	if r, ok := s.Report.(interface{ Lines() []string }); ok {
		for _, l := range r.Lines() {
			fmt.Fprintln(w, l)
		}
	}
	if s.ObservedRun > 0 {
		fmt.Fprintf(w, "observed run %d: the placements the source recorded (placelab check --run %d; placelab lpbound --run %d; placelab whatif drain --run %d)\n",
			s.ObservedRun, s.ObservedRun, s.ObservedRun, s.ObservedRun)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"placelab/analysis/experiments"
)

func experimentCommand() *cli.Command {
	return &cli.Command{
		Name:      "experiment",
		Usage:     "run the experiment grids that reproduce the papers' headline figures",
		ArgsUsage: "NAME|all",
		Description: `Each experiment is a named, seeded grid; every point is stored as a run (engine
"experiment", policy NAME, its parameters as JSON, its figures in run_metric; view
experiment_results) and shown by placelab report. Experiments:
   buckets            Protean Table 5: packing density, candidates after BestFit, p99
                      conflicts/min for BestFit buckets 1-5 and ∞, the LP interval on density beside
   inventory-scaling  Protean Figs 11-12: latency and memory vs machines, cache on/off
   agents             Protean Figs 13-15: burst span, conflicts, throughput vs agents, speed-up
   violations         König et al. Fig 9: violations per policy over tenant density
   oversubscription   Resource Central §6.2: the arms' readings above 100% and failures
   paragon            Paragon: QoS shares per scenario and policy, classification accuracy
   characterize       the workload views over every loaded dataset
--quick runs a reduced grid (all of them in about two minutes); without it each
experiment states its expected time in its help line of placelab experiment list.

--shard i/n runs the points whose index is i mod n and also writes their figures to
DIR/NAME-shard-i-of-n.parquet (--out DIR), so a grid can be spread over any batch
system; placelab merge DIR/*.parquet loads the shards into one database.

Examples:
   placelab experiment all --quick
   placelab experiment buckets --shard 0/4 --out shards/
   placelab merge shards/*.parquet
   placelab experiment list`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quick", Usage: "reduced grids (tests, the demo)"},
			&cli.StringFlag{Name: "shard", Usage: "run slice `i/n` of the grid"},
			&cli.StringFlag{Name: "out", Value: ".", Usage: "with --shard: write the shard's Parquet file to `DIR`"},
			formatFlag("table", "json"),
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			name := c.Args().First()
			if name == "" {
				return errors.New("give an experiment NAME, all, or list (see placelab experiment --help)")
			}
			if name == "list" {
				for _, e := range experiments.All() {
					fmt.Fprintf(c.App.Writer, "%-18s %-28s full grid: %s\n", e.Name, e.Reproduces, e.FullTime)
				}
				return nil
			}
			var exps []*experiments.Experiment
			if name == "all" {
				exps = experiments.All()
			} else {
				e, err := experiments.Lookup(name)
				if err != nil {
					return err
				}
				exps = []*experiments.Experiment{e}
			}
			if err := onlyWith(c, "out", c.IsSet("shard"), "with --shard (the shard's Parquet file)"); err != nil {
				return err
			}
			opts := experiments.Options{Quick: c.Bool("quick"), Version: version}
			if s := c.String("shard"); s != "" {
				i, n, err := parseShard(s)
				if err != nil {
					return err
				}
				opts.Shard, opts.Shards = i, n
				if err := os.MkdirAll(c.String("out"), 0o755); err != nil {
					return err
				}
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			var outs []*experiments.Outcome
			for _, e := range exps {
				bar := newProgress("experiment "+e.Name, "points", c.Bool("quiet"))
				opts.Progress = bar.Update
				o, err := experiments.Run(c.Context, db, e, opts)
				bar.Done()
				if err != nil {
					return err
				}
				if opts.Shards > 1 && len(o.Runs) > 0 {
					file := filepath.Join(c.String("out"), fmt.Sprintf("%s-shard-%d-of-%d.parquet", e.Name, opts.Shard, opts.Shards))
					if err := experiments.ExportShard(c.Context, db, o.Runs[0], o.Runs[len(o.Runs)-1], file); err != nil {
						return err
					}
				}
				outs = append(outs, o)
			}
			if format == "json" {
				return printJSON(c.App.Writer, outs)
			}
			for _, o := range outs {
				fmt.Fprintf(c.App.Writer, "%-18s %-5s grid %3d points in %6.1fs  runs %v\n", o.Experiment, o.Grid, o.Points, o.Seconds, o.Runs)
			}
			return nil
		},
	}
}

// parseShard reads "i/n" with 0 ≤ i < n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 ≤ i < n, e.g. 0/4", s)
	}
	return i, n, nil
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "load experiment shards (placelab experiment --shard) into the database",
		ArgsUsage: "FILE.parquet...",
		Description: `Reads the Parquet files that placelab experiment --shard i/n --out DIR wrote and stores
their points as runs, all in one transaction (a bad file changes nothing).

Example:
   placelab merge shards/*.parquet`,
		Flags: []cli.Flag{formatFlag("table", "json")},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if c.NArg() == 0 {
				return errors.New("give the shard files to merge, e.g. placelab merge shards/*.parquet")
			}
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			sum, err := experiments.Merge(c.Context, db, c.Args().Slice())
			if err != nil {
				return err
			}
			if format == "json" {
				return printJSON(c.App.Writer, sum)
			}
			fmt.Fprintf(c.App.Writer, "merged %d files: %d runs, %d figures\n", sum.Files, sum.Runs, sum.Figures)
			return nil
		},
	}
}

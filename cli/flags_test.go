package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// eachCommand calls fn for every command and subcommand with its path of
// names ("paragon classify").
func eachCommand(cmds []*cli.Command, path []string, fn func([]string, *cli.Command)) {
	for _, c := range cmds {
		p := append(append([]string{}, path...), c.Name)
		fn(p, c)
		eachCommand(c.Subcommands, p, fn)
	}
}

// requiredArgs gives every required flag of c a value, so that a command
// reaches its flag checks.
func requiredArgs(c *cli.Command) []string {
	var args []string
	for _, f := range c.Flags {
		rf, ok := f.(cli.RequiredFlag)
		df, doc := f.(cli.DocGenerationFlag)
		if (ok && rf.IsRequired()) || (doc && strings.HasSuffix(df.GetUsage(), "(required)")) {
			args = append(args, "--"+f.Names()[0], "1")
		}
	}
	return args
}

// TestFormatDeclared: every command with --format refuses a format it does
// not write, with a one-line error naming the ones it does; only sql
// writes CSV. Before, --format csv passed everywhere and printed a table.
func TestFormatDeclared(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	n := 0
	eachCommand(newApp().Commands, nil, func(path []string, c *cli.Command) {
		var ff *cli.StringFlag
		for _, f := range c.Flags {
			if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "format" {
				ff = sf
			}
		}
		if ff == nil {
			return
		}
		n++
		name := strings.Join(path, " ")
		t.Run(name, func(t *testing.T) {
			bad := "csv"
			if name == "sql" {
				bad = "xml"
			}
			args := append(append(append([]string{}, path...), requiredArgs(c)...), "--format", bad)
			_, err := run(t, db, args...)
			if err == nil || !strings.HasPrefix(err.Error(), `--format "`+bad+`": this command writes `) || strings.Contains(err.Error(), "\n") {
				t.Errorf("placelab %s: %v", strings.Join(args, " "), err)
			}
			if !strings.Contains(ff.Usage, ff.Value) {
				t.Errorf("usage %q does not list the default %q", ff.Usage, ff.Value)
			}
		})
	})
	if n < 15 {
		t.Errorf("%d commands with --format: the walk missed some", n)
	}
	if out := mustRun(t, db, "sql", "SELECT 1 AS n", "--format", "csv"); out != "n\n1\n" {
		t.Errorf("sql --format csv: %q", out)
	}
}

// TestFlagDefaultsValid: every flag that checks its value accepts its own
// default (the checks run only on flags given on the command line). A flag
// whose default is derived from other input says so in DefaultText and is
// not checked here.
func TestFlagDefaultsValid(t *testing.T) {
	checked := 0
	eachCommand(newApp().Commands, nil, func(path []string, c *cli.Command) {
		for _, f := range c.Flags {
			var err error
			switch f := f.(type) {
			case *cli.Float64Flag:
				if f.Action == nil || f.DefaultText != "" {
					continue
				}
				err = f.Action(nil, f.Value)
			case *cli.IntFlag:
				if f.Action == nil || f.DefaultText != "" {
					continue
				}
				err = f.Action(nil, f.Value)
			case *cli.Int64Flag:
				if f.Action == nil || f.DefaultText != "" {
					continue
				}
				err = f.Action(nil, f.Value)
			case *cli.DurationFlag:
				if f.Action == nil || f.DefaultText != "" {
					continue
				}
				err = f.Action(nil, f.Value)
			case *cli.StringFlag:
				if f.Action == nil || f.DefaultText != "" {
					continue
				}
				err = f.Action(nil, f.Value)
			default:
				continue
			}
			checked++
			if err != nil {
				t.Errorf("placelab %s --%s: the default is refused: %v", strings.Join(path, " "), f.Names()[0], err)
			}
		}
	})
	if checked < 30 {
		t.Errorf("only %d flags check their values", checked)
	}
}

// TestFlagRangeErrors: a value out of range — NaN, negative, zero where
// zero means nothing, a window that ends before it starts — or a flag the
// command would ignore is a one-line error naming the flag and what it
// accepts; none becomes a default.
func TestFlagRangeErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	for _, tc := range []struct {
		args []string
		want string
	}{
		// violation: θ and NumRepetitions 0 were the defaults.
		{[]string{"violation", "--theta", "0"}, "--theta 0: want 0 < theta ≤ 1"},
		{[]string{"violation", "--theta", "NaN"}, "--theta NaN: want 0 < theta ≤ 1"},
		{[]string{"violation", "--theta", "1.5"}, "--theta 1.5: want 0 < theta ≤ 1"},
		{[]string{"violation", "--reps", "0"}, "--reps 0: want reps ≥ 1"},
		{[]string{"violation", "--reps", "-5"}, "--reps -5: want reps ≥ 1"},
		{[]string{"violation", "--nodes", "0"}, "--nodes 0: want nodes ≥ 1"},
		{[]string{"violation", "--seeds", "0"}, "--seeds 0: want seeds ≥ 1"},
		{[]string{"violation", "--hours", "0"}, "--hours 0: want 0 < hours ≤ 87600"},
		{[]string{"violation", "--hours", "1e300"}, "--hours 1e+300: want 0 < hours ≤ 87600"},
		{[]string{"violation", "--density", "1.1,NaN"}, `--density "1.1,NaN": want finite numbers > 0`},
		{[]string{"violation", "--node-cpu", "0"}, "--node-cpu 0: want node-cpu > 0, finite"},
		{[]string{"violation", "--node-cpu", "NaN"}, "--node-cpu NaN: want node-cpu > 0, finite"},
		{[]string{"violation", "--node-memory", "-1"}, "--node-memory -1: want node-memory ≥ 0, finite"},
		{[]string{"violation", "--policy", "bestfit,worstfit", "--theta", "0.05"}, "--theta applies only to the PrV policies"},
		{[]string{"violation", "--policy", "bestfit", "--reps", "50"}, "--reps applies only to the PrV policies"},
		{[]string{"violation", "--condition", "mean"}, `--condition "mean": want one of [prefix max]`},
		{[]string{"violation", "--fallback", "random"}, `--fallback "random": want one of [min-with min-delta]`},
		{[]string{"violation", "--policy", "worstfit", "--fallback", "min-delta"}, "--fallback applies only to the PrV policies"},
		{[]string{"violation", "--policy", "dotproduct", "--condition", "max"}, "--condition applies only to the PrV policies"},
		// oversub: a share of 0 was 71%, --to 0 the whole trace.
		{[]string{"oversub", "--max-oversub", "0.5"}, "--max-oversub 0.5: want max-oversub ≥ 1, finite"},
		{[]string{"oversub", "--max-oversub", "NaN"}, "--max-oversub NaN: want max-oversub ≥ 1, finite"},
		{[]string{"oversub", "--max-util", "0"}, "--max-util 0: want max-util > 0, finite"},
		{[]string{"oversub", "--production-share", "1.5"}, "--production-share 1.5: want 0 ≤ production-share ≤ 1"},
		{[]string{"oversub", "--production-share", "NaN"}, "--production-share NaN: want 0 ≤ production-share ≤ 1"},
		{[]string{"oversub", "--from", "2d", "--to", "1d"}, "--from 2d --to 1d: the window must end after it starts"},
		{[]string{"oversub", "--from", "1d", "--to", "24h"}, "--from 1d --to 24h: the window must end after it starts"},
		{[]string{"oversub", "--to", "nan"}, `--to: time "nan": want a finite number`},
		{[]string{"oversub", "--arm", "baseline", "--max-oversub", "1.5"}, "--max-oversub applies only to the arms that oversubscribe"},
		{[]string{"oversub", "--arm", "naive", "--max-util", "0.9"}, "--max-util applies only to the arms with predictions"},
		// paragon
		{[]string{"paragon", "classify", "--known", "0"}, "--known 0: want known ≥ 1"},
		{[]string{"paragon", "classify", "--folds", "1"}, "--folds 1: want 0 (one application at a time) or ≥ 2"},
		{[]string{"paragon", "classify", "--profile", "best"}, "--profile \"best\": want one of cv, cover"},
		{[]string{"paragon", "classify", "--margin", "0.1"}, "--margin applies only with --profile cover, top-mean or random"},
		{[]string{"paragon", "classify", "--evaluate", "other", "--folds", "3"}, "--folds applies only when --evaluate is --dataset"},
		{[]string{"paragon", "schedule", "--scale", "NaN"}, "--scale NaN: want 0 < scale ≤ 10"},
		{[]string{"paragon", "schedule", "--seeds", "0"}, "--seeds 0: want 1 ≤ seeds ≤ 1000"},
		{[]string{"paragon", "schedule", "--scenario", "medium"}, `--scenario "medium": want one of low, high, oversubscribed, burst or all`},
		{[]string{"paragon", "schedule", "--policy", "ni", "--d1", "headroom"}, "--d1 applies only to policies that decide through D1"},
		{[]string{"paragon", "schedule", "--interference", "sum"}, `--interference "sum": want compound or worst`},
		{[]string{"paragon", "schedule", "--runs"}, "--runs applies only with --format json"},
		{[]string{"paragon", "schedule", "--scale", "0"}, "--scale 0: want 0 < scale ≤ 10"},
		// lpbound
		{[]string{"lpbound", "--run", "1", "--tolerance", "NaN"}, "--tolerance NaN: want tolerance > 0, finite"},
		{[]string{"lpbound", "--run", "1", "--time-limit", "-1s"}, "--time-limit -1s: want a duration ≥ 0"},
		{[]string{"lpbound", "--run", "1", "--every", "nan"}, `--every: time "nan": want a finite number`},
		{[]string{"lpbound", "--run", "1", "--every", "0"}, `--every "0": want a finite time > 0`},
		{[]string{"lpbound", "--instance", "x.txt", "--every", "2h"}, "--every applies only to stored runs"},
		// generate: the generator's own ranges.
		{[]string{"generate", "--days", "0"}, "days = 0, want > 0"},
		{[]string{"generate", "--load", "NaN"}, "load = NaN, want in [0, 1)"},
		{[]string{"generate", "--machines", "0"}, "machines = 0, want 1.."},
		// the others
		{[]string{"experiment", "buckets", "--jobs", "1", "--out", "shards"}, "--out applies only with --jobs > 1"},
		{[]string{"experiment", "buckets", "--jobs", "0"}, "--jobs 0: want at least 1"},
		{[]string{"experiment", "buckets", "--shard", "0/2"}, "--shard needs --out DIR"},
		{[]string{"experiment", "buckets", "--shard", "2/2", "--out", "x"}, "want i/n with 0 ≤ i < n"},
		{[]string{"experiment", "buckets", "--shards", "3", "--out", "x"}, "neither is set"},
		{[]string{"experiment", "buckets", "--shard", "0/2", "--jobs", "2"}, "choose one of --jobs"},
		{[]string{"experiment", "buckets", "--slurm", "--k8s", "--out", "x"}, "choose one of --jobs"},
		{[]string{"experiment", "buckets", "--submit"}, "--submit applies only with --slurm"},
		{[]string{"experiment", "buckets", "--image", "x"}, "--image applies only with --k8s"},
		{[]string{"experiment", "buckets", "--slurm"}, "need --out DIR"},
		{[]string{"experiment", "buckets", "--k8s", "--out", "x"}, "--k8s needs --image"},
		{[]string{"experiment", "nosuch"}, "unknown experiment"},
		{[]string{"merge", "nosuchdir"}, "no such file or directory"},
		{[]string{"whatif", "migrate", "--run", "1", "--at", "NaN"}, `--at: time "NaN": want a finite number`},
		{[]string{"whatif", "migrate", "--run", "1", "--budget", "-1"}, "--budget -1: want budget ≥ 0"},
		{[]string{"ingest", "huawei", "x.csv", "--max-rejects", "-1"}, "--max-rejects -1: want max-rejects ≥ 0"},
		{[]string{"sql", "SELECT 1", "--dataset", "x"}, "--dataset applies only with --view"},
		{[]string{"characterize", "--format", "json", "--out", "dir"}, "--out applies only to the HTML page"},
	} {
		_, err := run(t, db, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("placelab %s: %v\nwant an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

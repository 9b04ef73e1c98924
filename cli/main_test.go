package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// run executes placelab with args against db and returns stdout.
func run(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &out
	full := append([]string{"placelab", "--quiet", "--db", db}, args...)
	err := app.RunContext(context.Background(), interspersed(app, full))
	return out.String(), err
}

func mustRun(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, err := run(t, db, args...)
	if err != nil {
		t.Fatalf("placelab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIngestSQLExportReport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.duckdb")
	good := write(t, dir, "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0.0,194.0\n1,2,4,2.0,498.0\n2,4,16,3700,10\n")
	out := mustRun(t, db, "ingest", "huawei", good, "--dataset", "hw", "--format", "json")
	var sum ingestSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("ingest JSON: %v\n%s", err, out)
	}
	if sum.RowsRead != 3 || sum.RowsLoaded != 3 || sum.RowsRejected != 0 || sum.Tables["vm"] != 3 || sum.Dataset != "hw" {
		t.Fatalf("summary = %+v", sum)
	}

	// A bad last row: non-zero exit, an error naming file, row and field, nothing changed.
	bad := write(t, dir, "bad.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,1\n1,4,16,0,1\n2,4,x,0,1\n")
	_, err := run(t, db, "ingest", "huawei", bad, "--dataset", "hw")
	if err == nil || !strings.Contains(err.Error(), bad+": row 4: field mem") || exitCode(err) == 0 {
		t.Fatalf("bad ingest: %v", err)
	}
	out = mustRun(t, db, "sql", "SELECT count(*) AS n FROM vm WHERE dataset = 'hw'", "--format", "csv")
	if out != "n\n3\n" {
		t.Fatalf("after failed ingest: %q", out)
	}
	// --max-rejects lets the bad row be skipped and counted.
	out = mustRun(t, db, "ingest", "huawei", bad, "--dataset", "hw", "--max-rejects", "1", "--format", "json")
	json.Unmarshal([]byte(out), &sum)
	if sum.RowsLoaded != 2 || sum.RowsRejected != 1 || sum.Rejected["mem: not a number"] != 1 {
		t.Fatalf("with rejects: %+v", sum)
	}

	// Views in every format.
	out = mustRun(t, db, "sql", "--view", "vm_type_mix", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["vm_type"] != "c4m16" {
		t.Fatalf("view json: %v %s", err, out)
	}
	out = mustRun(t, db, "sql", "--view", "workload_summary")
	if !strings.Contains(out, "(1 rows)") {
		t.Fatalf("table output: %s", out)
	}
	if out := mustRun(t, db, "sql", "--list"); !strings.Contains(out, "placement") || !strings.Contains(out, "vm_type_mix") {
		t.Fatalf("list: %s", out)
	}
	if _, err := run(t, db, "sql", "--view", "nope"); err == nil || !strings.Contains(err.Error(), "vm_type_mix") {
		t.Fatalf("unknown view: %v", err)
	}
	if _, err := run(t, db, "sql", "SELEC 1"); err == nil {
		t.Fatal("bad SQL accepted")
	}

	// Export round trip.
	pq := filepath.Join(dir, "vm.parquet")
	if out := mustRun(t, db, "export", "vm", "--to", pq); !strings.Contains(out, "wrote 2 rows") {
		t.Fatalf("export: %s", out)
	}
	out = mustRun(t, ":memory:", "sql", "SELECT count(*) AS n FROM '"+pq+"'", "--format", "csv")
	if out != "n\n2\n" {
		t.Fatalf("parquet read back: %q", out)
	}

	// Report.
	rep := filepath.Join(dir, "report")
	out = mustRun(t, db, "report", "--out", rep)
	if !strings.HasSuffix(strings.TrimSpace(out), "index.html") {
		t.Fatalf("report output: %s", out)
	}
	if _, err := os.Stat(filepath.Join(rep, "assets", "echarts.min.js")); err != nil {
		t.Fatal(err)
	}
}

func TestUsageErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	for _, args := range [][]string{
		{"ingest"},
		{"ingest", "huawei"},
		{"ingest", "nosuchformat", "x.csv"},
		{"ingest", "huawei", "/nonexistent/file.csv"},
		{"sql"},
		{"export", "vm"},
		{"sql", "SELECT 1", "--format", "xml"},
	} {
		if _, err := run(t, db, args...); err == nil {
			t.Errorf("placelab %v: no error", args)
		}
	}
	_, err := run(t, db, "ingest", "huawei", "/nonexistent/file.csv")
	if !strings.Contains(err.Error(), "/nonexistent/file.csv") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file error: %v", err)
	}
}

// TestMemoryLimitFlag: --memory-limit reaches DuckDB on read-write opens
// (sql with a statement) and read-only ones (openReadDB, which the reading
// commands use), and a bad size is refused naming the flag.
func TestMemoryLimitFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	q := "SELECT current_setting('memory_limit') AS m"
	// probe reads the setting through openReadDB, read-only once db exists.
	probe := func(flags ...string) string {
		t.Helper()
		app := newApp()
		var out bytes.Buffer
		app.Writer = &out
		app.Commands = append(app.Commands, &cli.Command{Name: "probe", Action: func(c *cli.Context) error {
			d, err := openReadDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			var v string
			if err := d.SQL().QueryRow(q).Scan(&v); err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, v)
			return nil
		}})
		args := append(append([]string{"placelab", "--quiet", "--db", db}, flags...), "probe")
		if err := app.RunContext(context.Background(), args); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, c := range []struct{ flag, want string }{{"", "1.8 GiB"}, {"300MB", "286.1 MiB"}, {"2GiB", "2.0 GiB"}} {
		args := []string{"sql", q}
		var flags []string
		if c.flag != "" {
			flags = []string{"--memory-limit", c.flag}
		}
		if out := mustRun(t, db, append(flags, args...)...); !strings.Contains(out, c.want) {
			t.Errorf("read-write, --memory-limit %q: %s, want %s", c.flag, out, c.want)
		}
		if out := probe(flags...); out != c.want {
			t.Errorf("read-only, --memory-limit %q: %s, want %s", c.flag, out, c.want)
		}
	}
	_, err := run(t, db, "--memory-limit", "2 parsecs", "sql", q)
	if err == nil || !strings.Contains(err.Error(), "--memory-limit") || !strings.Contains(err.Error(), "2 parsecs") {
		t.Errorf("bad size: %v", err)
	}
}

// TestMissingRequiredFlag: a command run without a required flag says in
// one line which flag and where the help is, instead of printing the whole
// help (issue 52: whatif drain without --run dumped it).
func TestMissingRequiredFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	for _, args := range [][]string{{"whatif", "drain"}, {"whatif", "migrate"}, {"explain"}} {
		out, err := run(t, db, args...)
		if err == nil || !strings.Contains(err.Error(), "--run is required") || strings.Contains(out, "USAGE") {
			t.Errorf("placelab %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

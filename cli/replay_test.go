package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"placelab/analysis"
)

// specOf parses replay flags into the run spec the command would run,
// without opening a database.
func specOf(t *testing.T, args ...string) (analysis.Spec, error) {
	t.Helper()
	var spec analysis.Spec
	var specErr error
	cmd := replayCommand()
	cmd.Action = func(c *cli.Context) error {
		spec, specErr = replaySpec(c, "synthetic")
		return nil
	}
	app := &cli.App{Name: "placelab", Commands: []*cli.Command{cmd}, ExitErrHandler: func(*cli.Context, error) {}}
	if err := app.RunContext(context.Background(), append([]string{"placelab", "replay"}, args...)); err != nil {
		return spec, err
	}
	return spec, specErr
}

// TestReplayFlagsToSpec: the replay command is parse → spec → run; each
// row says what a command line becomes, or the one-line error it gets.
// Flags a policy or time model cannot honour are refused (issue 13,
// defects 5 and 8), never recorded and ignored.
func TestReplayFlagsToSpec(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
		check   func(analysis.Spec) bool
	}{
		{"defaults", nil, "", func(s analysis.Spec) bool {
			return s.Policy == "protean" && s.Agents == nil && s.Engine.K == 8 && s.Engine.Buckets == 3 && s.Engine.Evict &&
				math.IsInf(s.From, -1) && math.IsInf(s.To, 1) && s.Interval == 3600
		}},
		{"window", []string{"--from", "1d", "--to", "36h", "--interval", "30m"}, "", func(s analysis.Spec) bool {
			return s.From == 86400 && s.To == 36*3600 && s.Interval == 1800
		}},
		{"buckets inf", []string{"--buckets", "inf"}, "", func(s analysis.Spec) bool { return s.Engine.Buckets == 0 }},
		{"baseline evicts unless told", []string{"--policy", "bestfit", "--no-evict", "--top-pct", "0.3", "--buffers", "1,1,0"}, "", func(s analysis.Spec) bool {
			return s.Policy == "bestfit" && !s.Engine.Evict && s.Engine.TopPct == 0.3 && s.Engine.Buffers.NewDeployment == 1
		}},
		{"agents defaults are the paper's", []string{"--agents", "4"}, "", func(s analysis.Spec) bool {
			a := s.Agents
			return a != nil && a.Agents == 4 && a.TimeModel == "sim" && a.MaxRetries == 20 && a.Window == 50 && a.N0 == 100 &&
				a.Avoid && a.HitRate == 0.9 && !s.Engine.Explain
		}},
		{"agents tuned", []string{"--agents", "2", "--window", "10", "--n0", "5", "--avoid", "off", "--speedup", "100"}, "", func(s analysis.Spec) bool {
			return s.Agents.Window == 10 && s.Agents.N0 == 5 && !s.Agents.Avoid && s.Agents.Speedup == 100
		}},
		{"k with a baseline", []string{"--policy", "firstfit", "--k", "8"}, "--k applies to Protean", nil},
		{"buckets with a baseline", []string{"--policy", "worstfit", "--buckets", "5"}, "--buckets applies to Protean", nil},
		{"cache with a baseline", []string{"--policy", "random", "--cache", "off"}, "--cache applies to Protean", nil},
		{"safety with a baseline", []string{"--policy", "bestfit", "--safety", "on"}, "--safety applies to Protean", nil},
		{"agents with a baseline", []string{"--policy", "bestfit", "--agents", "2"}, "has no allocation agents", nil},
		{"agent flag without agents", []string{"--window", "10"}, "--window applies to multi-agent replays", nil},
		{"time without agents", []string{"--time", "real"}, "--time applies to multi-agent replays", nil},
		{"speedup in real time", []string{"--agents", "2", "--time", "real", "--speedup", "10"}, "--speedup applies to simulated time", nil},
		{"hit rate with the cache off", []string{"--agents", "2", "--cache", "off", "--hit-rate", "0.5"}, "without the cache every simulated evaluation is a miss", nil},
		{"avoidance without a window", []string{"--agents", "2", "--window", "0"}, "avoidance never triggers", nil},
		{"to before from", []string{"--from", "2d", "--to", "1d"}, "ends (to = 86400 s) before it starts", nil},
		{"to equal from", []string{"--from", "1d", "--to", "1d"}, "before it starts", nil},
		{"interval nan", []string{"--interval", "nan"}, "--interval", nil},
		{"interval zero", []string{"--interval", "0"}, "--interval", nil},
		{"from inf", []string{"--from", "inf"}, "--from", nil},
		{"zero agents", []string{"--agents", "0"}, "agents = 0", nil},
		{"speedup zero", []string{"--agents", "2", "--speedup", "0"}, "speedup = 0", nil},
		{"hit rate over 1", []string{"--agents", "2", "--hit-rate", "1.5"}, "hit rate = 1.5", nil},
		{"negative retries", []string{"--agents", "2", "--max-retries", "-1"}, "max retries = -1", nil},
		{"unknown policy", []string{"--policy", "tetris"}, "policy \"tetris\"", nil},
		{"top-pct nan", []string{"--top-pct", "nan"}, "--top-pct", nil},
		{"top-pct over 1", []string{"--top-pct", "2"}, "top share 2", nil},
		{"bad buckets", []string{"--buckets", "-2"}, "--buckets", nil},
		{"availability", []string{"--failures", "default", "--fault-domains", "3", "--update-domains", "5", "--maintenance", "every=7d,ud-minutes=30"}, "", func(s analysis.Spec) bool {
			return s.Failures == "default" && s.FaultDomains == 3 && s.UpdateDomains == 5 && s.Maintenance == "every=7d,ud-minutes=30"
		}},
		{"availability with agents in real time", []string{"--agents", "2", "--time", "real", "--failures", "default"}, "", func(s analysis.Spec) bool {
			return s.Agents != nil && s.Failures == "default"
		}},
		{"unknown failure key", []string{"--failures", "machine-afr=1,mtbf=3"}, "unknown key \"mtbf\"", nil},
		{"failure rate NaN", []string{"--failures", "machine-afr=nan"}, "machine-afr", nil},
		{"reboot share over 1", []string{"--failures", "reboot-share=1.5"}, "reboot-share", nil},
		{"four fault domains", []string{"--fault-domains", "4"}, "4 fault domains, want 0..3", nil},
		{"21 update domains", []string{"--update-domains", "21"}, "21 update domains, want 0..20", nil},
		{"negative update domains", []string{"--update-domains", "-1"}, "-1 update domains", nil},
		{"bad maintenance", []string{"--maintenance", "every=0d"}, "every", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := specOf(t, tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(spec) {
				t.Fatalf("spec %+v (agents %+v)", spec, spec.Agents)
			}
		})
	}
}

// TestReplayRecordsOnlyWhatRan: a baseline's run params carry no Protean-
// only settings; an agent run's carry its agent model (defect 5: flags were
// recorded and ignored).
func TestReplayRecordsOnlyWhatRan(t *testing.T) {
	s, err := specOf(t, "--policy", "bestfit")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Params()
	for _, k := range []string{"k", "buckets", "cache", "safety", "agents"} {
		if _, ok := p[k]; ok {
			t.Fatalf("bestfit params record %q: %v", k, p)
		}
	}
	s, err = specOf(t, "--agents", "3", "--cache", "off")
	if err != nil {
		t.Fatal(err)
	}
	p = s.Params()
	if p["agents"] != 3 || p["hit_rate"] != 0.0 || p["window"] != 50 {
		t.Fatalf("agent params %v: want agents 3, hit_rate 0 (cache off), window 50", p)
	}
}

// TestCheckCommand: placelab check passes a clean run (exit 0) and, after a
// placement is moved by hand onto a full machine, exits 1 naming it.
func TestCheckCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.duckdb")
	mustRun(t, db, "generate", "--machines", "120", "--vms", "2000", "--days", "1", "--series", "0")
	mustRun(t, db, "replay", "--agents", "2", "--speedup", "10")
	out := mustRun(t, db, "check", "--run", "1")
	if !strings.Contains(out, "ok: no machine over capacity") {
		t.Fatalf("clean run:\n%s", out)
	}
	// Stack every VM alive at the end on one machine.
	mustRun(t, db, "sql", "UPDATE placement SET machine_id = 0 WHERE run_id = 1 AND outcome = 'placed'")
	out, err := run(t, db, "check", "--run", "1", "--format", "json")
	if err == nil || exitCode(err) != 1 {
		t.Fatalf("overcommitted run: err %v\n%s", err, out)
	}
	var rep analysis.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if len(rep.Violations) == 0 || rep.Violations[0].MachineID != 0 || rep.Violations[0].Peak <= 1 {
		t.Fatalf("violations %+v", rep.Violations)
	}
	if _, err := run(t, db, "check", "--run", "99"); err == nil || !strings.Contains(err.Error(), "no such run") {
		t.Fatalf("unknown run: %v", err)
	}
}

// TestReplayCatalogCost: replay --catalog prices the zone's machines by SKU
// name: cost_per_hour = Σ machines × price, worked out by hand from the
// zone's machines per SKU, in the JSON summary and as run metric
// cost_per_hour; a catalog that lacks a SKU names it and gives no cost;
// capacity --catalog refuses what it cannot honour in one line.
func TestReplayCatalogCost(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.duckdb")
	mustRun(t, db, "generate", "--machines", "120", "--vms", "1000", "--days", "1", "--series", "0")
	out := mustRun(t, db, "sql", "--format", "json", "SELECT sku, count(*) AS n FROM machine GROUP BY sku ORDER BY sku")
	var rows []struct {
		SKU string `json:"sku"`
		N   int    `json:"n"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	csv := "name,vcpus,memory_mib,price_per_hour\n"
	want, machines := 0.0, 0
	for i, r := range rows {
		price := 0.25 * float64(i+1)
		csv += fmt.Sprintf("%s,8,32768,%g\n", r.SKU, price)
		want += float64(r.N) * price
		machines += r.N
	}
	full := filepath.Join(dir, "full.csv")
	part := filepath.Join(dir, "part.csv")
	if err := os.WriteFile(full, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(csv, "\n")
	if err := os.WriteFile(part, []byte(strings.Join(lines[:len(lines)-2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var sm struct {
		RunID    int64    `json:"run_id"`
		Cost     *float64 `json:"cost_per_hour"`
		Machines int      `json:"machines"`
		Unpriced []string `json:"unpriced_skus"`
	}
	out = mustRun(t, db, "replay", "--catalog", full, "--no-explain", "--format", "json")
	if err := json.Unmarshal([]byte(out), &sm); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sm.Cost == nil || math.Abs(*sm.Cost-want) > 1e-6 || sm.Machines != machines || len(sm.Unpriced) > 0 {
		t.Fatalf("cost %v on %d machines (unpriced %v), want $%v on %d", sm.Cost, sm.Machines, sm.Unpriced, want, machines)
	}
	out = mustRun(t, db, "sql", "--format", "json", fmt.Sprintf("SELECT value FROM run_metric WHERE run_id = %d AND metric = 'cost_per_hour'", sm.RunID))
	var ms []struct {
		Value float64 `json:"value"`
	}
	if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 1 || math.Abs(ms[0].Value-want) > 1e-6 {
		t.Fatalf("run metric cost_per_hour: %s (%v), want one row of %v", out, err, want)
	}
	sm.Cost, sm.Unpriced = nil, nil
	out = mustRun(t, db, "replay", "--catalog", part, "--no-explain", "--format", "json")
	if err := json.Unmarshal([]byte(out), &sm); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sm.Cost != nil || len(sm.Unpriced) != 1 || sm.Unpriced[0] != rows[len(rows)-1].SKU {
		t.Fatalf("partial catalog: cost %v, unpriced %v; want no cost and %s unpriced", sm.Cost, sm.Unpriced, rows[len(rows)-1].SKU)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--price", "x"}, "--price applies to --catalog"},
		{[]string{"capacity", "--types", "vcpus=8"}, "--types applies to --catalog"},
		{[]string{"capacity", "--catalog", full, "--failure-file", "f.csv"}, "--catalog with --failure-file"},
		{[]string{"capacity", "--catalog", full, "--run", "1", "--like", "x"}, "--catalog applies to the replay-mode capacity search"},
	} {
		if _, err := run(t, db, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("placelab %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

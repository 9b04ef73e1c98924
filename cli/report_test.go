package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"placelab/analysis/experiments"
	"placelab/analysis/report"
)

// TestReportSiteInChromium writes the whole site for a small database (a
// replay with its LP bound, a migration plan, a quick experiment) and opens
// every page in headless Chromium: every chart draws non-blank, the console
// stays clean, every link — to another page, an asset or an anchor —
// resolves, no table cell prints NULL, <nil> or NaN, and every table's box
// takes its section's width with its first column sticky (issue 52 item
// 10: tables capped near 1,140 px, NULL printed). The overview has the
// planner's section with the plan's moves by name.
func TestReportSiteInChromium(t *testing.T) {
	if _, err := report.Browser(); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "site.duckdb")
	mustRun(t, db, "generate", "--machines", "200", "--vms", "3000", "--days", "2", "--series", "20")
	mustRun(t, db, "replay", "--to", "1d")
	mustRun(t, db, "lpbound", "--run", "1", "--every", "12h", "--time-limit", "2s")
	mustRun(t, db, "whatif", "migrate", "--run", "1", "--budget", "5")
	mustRun(t, db, "experiment", "paragon", "--quick")
	out := filepath.Join(dir, "site")
	mustRun(t, db, "report", "--out", out)
	href := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	pages := []string{"index.html", "characterize.html", "experiments.html"}
	for _, p := range pages {
		chk, err := report.Check(context.Background(), filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		if len(chk.Errors) != 0 {
			t.Errorf("%s: console errors %q", p, chk.Errors)
		}
		if chk.Charts == 0 || chk.Rendered != chk.Charts {
			t.Errorf("%s: %d charts, %d rendered", p, chk.Charts, chk.Rendered)
		}
		for i, n := range chk.Canvases {
			if n < 500 {
				t.Errorf("%s: canvas %d has %d non-blank pixels", p, i, n)
			}
		}
		links := 0
		for _, m := range href.FindAllStringSubmatch(chk.DOM, -1) {
			l := m[1]
			if strings.HasPrefix(l, "http:") || strings.HasPrefix(l, "https:") {
				t.Errorf("%s: network link %s", p, l)
				continue
			}
			links++
			file, anchor, _ := strings.Cut(l, "#")
			if file == "" {
				file = p
			}
			if _, err := os.Stat(filepath.Join(out, file)); err != nil {
				t.Errorf("%s: link %q: no file %s", p, l, file)
			}
			if anchor != "" && file == p && !strings.Contains(chk.DOM, `id="`+anchor+`"`) {
				t.Errorf("%s: link %q: no element with that id", p, l)
			}
		}
		if links < 3 {
			t.Errorf("%s: only %d links", p, links)
		}
		if len(chk.Raw) != 0 {
			t.Errorf("%s: cells print a missing value raw: %q", p, chk.Raw)
		}
		if len(chk.Tables) == 0 {
			t.Errorf("%s: %d tables measured", p, len(chk.Tables))
		}
		for i, tb := range chk.Tables {
			if tb.Container != tb.Section-40 || tb.Container < report.CheckWidth-150 || !tb.Sticky {
				t.Errorf("%s: table %d: box %d px in a section of %d (20 px padding) in a %d px window, first column sticky %v", p, i, tb.Container, tb.Section, chk.Window, tb.Sticky)
			}
		}
		if p == "index.html" {
			if !strings.Contains(chk.DOM, `id="what-a-planner-asks-stored-plans"`) || !strings.Contains(chk.DOM, "whatif migrate of run 1") ||
				!regexp.MustCompile(`<td class="text">c[0-9]+-r[0-9]+-m[0-9]+</td>`).MatchString(chk.DOM) {
				t.Error("index.html: no planner section with the plan's moves by machine name")
			}
		}
	}
}

// TestReportAfterQuickExperimentsOnFreshDatabase is the sequence a new user
// runs first: placelab experiment all --quick, then placelab report, on a
// database that holds no dataset. Every experiment says it ran its quick
// grid; the report draws all three pages (the overview and the
// characterization saying that no dataset is loaded), every experiments
// row names the quick grid, and in Chromium every chart draws.
func TestReportAfterQuickExperimentsOnFreshDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every quick grid (about a minute)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "fresh.duckdb")
	out := mustRun(t, db, "experiment", "all", "--quick", "--format", "json")
	var outcomes []struct {
		Experiment string `json:"experiment"`
		Grid       string `json:"grid"`
		Points     int    `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &outcomes); err != nil {
		t.Fatalf("experiment --format json: %v\n%s", err, out)
	}
	if len(outcomes) != len(experiments.All()) {
		t.Errorf("%d outcomes, want %d", len(outcomes), len(experiments.All()))
	}
	for _, o := range outcomes {
		if o.Grid != "quick" || o.Points == 0 {
			t.Errorf("%s: grid %q, %d points; want quick, > 0", o.Experiment, o.Grid, o.Points)
		}
	}
	site := filepath.Join(dir, "site")
	mustRun(t, db, "report", "--out", site)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(site, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ex := read("experiments.html")
	for _, e := range experiments.All() {
		if !strings.Contains(ex, "<h2>"+e.Name+" — ") {
			t.Errorf("experiments page has no section for %s", e.Name)
		}
	}
	if strings.Contains(ex, "No stored runs") {
		t.Error("experiments page says an experiment has no stored runs")
	}
	if n := strings.Count(ex, `<td class="text">quick</td>`); n < 100 || strings.Contains(ex, `<td class="text">full</td>`) {
		t.Errorf("experiments page: %d rows of the quick grid, full rows %v", n, strings.Contains(ex, `<td class="text">full</td>`))
	}
	if !strings.Contains(read("index.html"), "holds no datasets") || !strings.Contains(read("characterize.html"), "holds no datasets") {
		t.Error("the overview or characterization page does not say that no dataset is loaded")
	}
	if _, err := report.Browser(); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Log("no Chromium: pages not drawn:", err)
		return
	}
	for _, p := range []string{"index.html", "characterize.html", "experiments.html"} {
		chk, err := report.Check(context.Background(), filepath.Join(site, p))
		if err != nil {
			t.Fatal(err)
		}
		if len(chk.Errors) != 0 || chk.Rendered != chk.Charts {
			t.Errorf("%s: %d charts, %d rendered, errors %q", p, chk.Charts, chk.Rendered, chk.Errors)
		}
		for i, n := range chk.Canvases {
			if n < 500 {
				t.Errorf("%s: canvas %d has %d non-blank pixels", p, i, n)
			}
		}
		if p == "experiments.html" && chk.Charts < len(experiments.All()) {
			t.Errorf("experiments page drew %d charts for %d experiments", chk.Charts, len(experiments.All()))
		}
	}
}

// TestExperimentTextSaysGrid: the table output names the grid too.
func TestExperimentTextSaysGrid(t *testing.T) {
	out := mustRun(t, filepath.Join(t.TempDir(), "g.duckdb"), "experiment", "paragon", "--quick")
	if !strings.Contains(out, "paragon            quick grid   5 points") {
		t.Errorf("output %q does not name the quick grid", out)
	}
}

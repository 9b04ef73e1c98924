package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"placelab/analysis/report"
)

// TestReportSiteInChromium writes the whole site for a small database (a
// replay with its LP bound, a quick experiment) and opens every page in
// headless Chromium: every chart draws non-blank, the console stays clean,
// and every link — to another page, an asset or an anchor — resolves.
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
	}
}

package analysis

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"placelab/analysis/report"
	"placelab/datasets/synth"
)

// TestCharacterizeInChromium renders the characterization of a small
// synthetic dataset plus the hand-made one whose VM type name is an attack,
// in headless Chromium: every chart draws non-blank pixels, the console
// stays clean, and the name is shown, not run.
func TestCharacterizeInChromium(t *testing.T) {
	if _, err := report.Browser(); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	db := memDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs, cfg.SeriesDays = 200, 4000, 5, 30, 4
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	// "a-tiny" sorts before "s", so its <script> type is in the shown rows.
	tinyDataset(t, db, "a-tiny")
	if _, err := ClassifyWorkloads(ctx, db, "s", nil); err != nil {
		t.Fatal(err)
	}
	page, results, err := Characterize(ctx, db, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(charViews()) {
		t.Fatalf("%d views ran, want %d", len(results), len(charViews()))
	}
	charts := 0
	for _, s := range page.Sections {
		if s.Chart != nil {
			charts++
		}
	}
	dir := t.TempDir()
	path, err := page.Write(dir, "characterize.html")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := report.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if chk.Charts != charts || chk.Rendered != charts || charts < 12 {
		t.Errorf("charts %d, rendered %d, built %d", chk.Charts, chk.Rendered, charts)
	}
	if len(chk.Errors) != 0 {
		t.Errorf("console errors: %q", chk.Errors)
	}
	for i, n := range chk.Canvases {
		if n < 500 {
			t.Errorf("canvas %d has %d non-blank pixels", i, n)
		}
	}
	if regexp.MustCompile(`<body[^>]*data-pwned`).MatchString(chk.DOM) {
		t.Error("a VM type name ran as script")
	}
	if !strings.Contains(chk.DOM, "&lt;script&gt;document.body") {
		t.Error("the VM type name is not shown escaped")
	}
}

package characterize

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis/internal/testkit"
	"placelab/analysis/report"
	"placelab/datasets/synth"
	store "placelab/sql"
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
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs, cfg.SeriesDays = 200, 4000, 5, 30, 4
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	// "a-tiny" sorts before "s", so its <script> type is in the shown rows.
	testkit.TinyDataset(t, db, "a-tiny")
	if _, err := ClassifyWorkloads(ctx, db, "s", nil); err != nil {
		t.Fatal(err)
	}
	page, results, err := Run(ctx, db, "", nil)
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

// sectionOf returns the page's section of a view's title prefix.
func sectionOf(t *testing.T, p *report.Page, prefix string) report.Section {
	t.Helper()
	for _, s := range p.Sections {
		if strings.HasPrefix(s.Title, prefix) {
			return s
		}
	}
	t.Fatalf("no section %q", prefix)
	return report.Section{}
}

// seriesNames lists a chart's series names.
func seriesNames(t *testing.T, c report.Chart) []string {
	t.Helper()
	var names []string
	if c == nil {
		return nil
	}
	b, err := json.Marshal(c.JSON()["series"])
	if err != nil {
		t.Fatal(err)
	}
	var series []struct{ Name string }
	if err := json.Unmarshal(b, &series); err != nil {
		t.Fatal(err)
	}
	for _, s := range series {
		names = append(names, s.Name)
	}
	return names
}

// TestCharacterizeSyntheticIsCalibration loads a synthetic dataset (made
// from Protean Tables 1–3 and the papers' figures), a hand-made one, and a
// trace whose machines came from --inventory synthetic:N. Where the page
// sets the papers' numbers beside them, it calls the synthetic comparisons
// calibration checks that match by construction, names every dataset, and
// labels the synthetic series in the charts; the hand-made dataset is set
// beside the paper by name, not called a calibration.
func TestCharacterizeSyntheticIsCalibration(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 100, 1500, 2, 0
	if err := synth.Ingest(ctx, db, "gen", "test", cfg); err != nil {
		t.Fatal(err)
	}
	testkit.TinyDataset(t, db, "measured")
	params, _ := json.Marshal(map[string]any{"inventory": "synthetic:60", "seed": 1})
	if _, err := db.Ingest(ctx, store.IngestInfo{Dataset: "trace-inv", Format: "azure-packing", Source: "test", Params: string(params)},
		func(w *store.Writer) error {
			_, err := synth.WriteInventory(w, "synthetic:60", 1)
			return err
		}); err != nil {
		t.Fatal(err)
	}
	page, _, err := Run(ctx, db, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Subtitle, "synthetic dataset gen") {
		t.Errorf("subtitle %q does not name the synthetic dataset", page.Subtitle)
	}
	inv := sectionOf(t, page, "Inventory by hardware generation")
	for _, w := range []string{
		"Calibration check, not a reproduction: dataset gen is synthetic, generated from Protean Table 1's machine counts per generation, and matches by construction.",
		"the machines of dataset trace-inv were generated (--inventory synthetic) from Protean Table 1's machine counts",
		"Beside Protean Table 1: dataset measured.",
	} {
		if !strings.Contains(inv.Note, w) {
			t.Errorf("inventory note lacks %q:\n%s", w, inv.Note)
		}
	}
	names := strings.Join(seriesNames(t, inv.Chart), "; ")
	for _, w := range []string{"gen (synthetic: calibration check)", "trace-inv (generated inventory: calibration check)", "measured", "paper: Protean Table 1"} {
		if !strings.Contains(names, w) {
			t.Errorf("inventory chart series %q lack %q", names, w)
		}
	}
	cores := sectionOf(t, page, "VM cores mix")
	if !strings.Contains(cores.Note, "dataset gen is synthetic, generated from Protean Table 3 Zone1") || !strings.Contains(cores.Note, "Beside Protean Table 3: dataset measured.") {
		t.Errorf("cores mix note: %s", cores.Note)
	}
	if strings.Contains(cores.Note, "trace-inv") {
		t.Errorf("cores mix calls a trace with a generated inventory a calibration: %s", cores.Note)
	}
	buckets := sectionOf(t, page, "Prediction buckets")
	if !strings.Contains(buckets.Note, "not Table 4 itself; any agreement with the papers comes from those inputs") || strings.Contains(buckets.Note, "by construction") {
		t.Errorf("buckets note: %s", buckets.Note)
	}
	types := sectionOf(t, page, "VM type mix")
	if !strings.Contains(types.Note, "generated from the shape of Protean Table 2") || strings.Contains(types.Note, "measured is synthetic") {
		t.Errorf("type mix note: %s", types.Note)
	}
}

// TestCharacterizeEmptyDatabase: with no dataset loaded the page is drawn,
// every section saying so, with no chart.
func TestCharacterizeEmptyDatabase(t *testing.T) {
	page, _, err := Run(context.Background(), testkit.MemDB(t), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Sections {
		if s.Chart != nil || !strings.Contains(s.Note, "holds no datasets") {
			t.Errorf("section %q: chart %v, note %q", s.Title, s.Chart != nil, s.Note)
		}
	}
}

// TestLineSeriesUndefined: an undefined CDF point (NULL: a dataset with no
// completed VM) is a gap, never a point at 0, and a dataset with no
// defined point draws no series (so no legend entry without a line).
func TestLineSeriesUndefined(t *testing.T) {
	r := &store.Result{Columns: []string{"dataset", "label", "cdf_pct"}, Rows: [][]any{
		{"a", "5m", 10.0}, {"a", "1h", nil}, {"a", "1d", 100.0},
		{"cluster", "5m", nil}, {"cluster", "1h", nil}, {"cluster", "1d", nil},
	}}
	line := lineSeries(r, func(s string) string { return s }, "label", "lifetime", "cdf_pct", "category", "CDF")
	if len(line.MultiSeries) != 1 || line.MultiSeries[0].Name != "a" {
		t.Fatalf("series %v, want only a", len(line.MultiSeries))
	}
	data := line.MultiSeries[0].Data.([]opts.LineData)
	if len(data) != 3 || data[1].Value != "-" || data[0].Value != 10.0 {
		t.Errorf("a's points %v", data)
	}
}

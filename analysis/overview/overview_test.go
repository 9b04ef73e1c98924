package overview

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/oversub"
	"placelab/analysis/replay"
	"regexp"
	"strings"
	"testing"

	"placelab/analysis/report"
	"placelab/optimizer"
	store "placelab/sql"
)

func TestOverviewInChromium(t *testing.T) {
	if _, err := report.Browser(); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testkit.TinyDataset(t, db, "tiny")
	// One stored replay, so the runs table, the density chart and the
	// availability section's healable-rack-failures chart render too.
	tr, err := analysis.LoadTrace(ctx, db, "tiny", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	alloc, _ := replay.NewAllocator("protean", tr, optimizer.DefaultConfig())
	res, err := replay.Replay(ctx, tr, alloc, replay.ReplayOptions{From: math.Inf(-1), To: math.Inf(1), Interval: 600})
	if err != nil {
		t.Fatal(err)
	}
	id, err := analysis.WriteRun(ctx, db, analysis.RunMeta{Engine: "replay", Policy: "protean", Dataset: "tiny", Version: "test"}, res)
	if err != nil {
		t.Fatal(err)
	}
	// Its LP interval (the figures placelab lpbound writes, one snapshot
	// converged, one not, one empty) and two oversubscription arms: two
	// more charts.
	for _, snap := range [][]replay.MetricRow{testkit.LPInterval(0, 2, 2, 1, 1, 0.1, 0.15, 0.15, 1),
		testkit.LPInterval(3600, 3, 3, 1, 2, 0.2, 0.3, 0.5, 0), testkit.LPInterval(7200, 0, 0, 0, 0, 0, 0, 0, 1)} {
		for _, r := range snap {
			if _, err := db.SQL().Exec("INSERT INTO run_metric (run_id, t_s, metric, value) VALUES (?, ?, ?, ?)", id, r.T, r.Metric, r.Value); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, arm := range []string{"baseline", "naive"} {
		r := &oversub.Result{Arm: arm, VMs: 100, Failures: 3, Readings: 1000, ReadingsOver100: 7, MaxOversub: 1.25, MaxUtil: 1}
		if _, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "oversub", Policy: arm, Dataset: "tiny", Version: "test"}, 0, r.Figures()); err != nil {
			t.Fatal(err)
		}
	}
	page, err := Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, err := page.Write(dir, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "assets", "echarts.min.js")); err != nil {
		t.Fatal("echarts not written beside the page:", err)
	}
	html, _ := os.ReadFile(path)
	if strings.Contains(string(html), "http://") || strings.Contains(string(html), "https://") {
		t.Error("page references the network")
	}
	chk, err := report.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if chk.Charts != 6 || chk.Rendered != 6 {
		t.Errorf("charts %d, rendered %d; want 6, 6", chk.Charts, chk.Rendered)
	}
	if len(chk.Errors) != 0 {
		t.Errorf("console errors: %q", chk.Errors)
	}
	if len(chk.Canvases) != 6 {
		t.Fatalf("canvases = %v, want 6", chk.Canvases)
	}
	for i, n := range chk.Canvases {
		if n < 1000 {
			t.Errorf("canvas %d has only %d non-blank pixels", i, n)
		}
	}
	if regexp.MustCompile(`<body[^>]*data-pwned`).MatchString(chk.DOM) {
		t.Error("a VM type name ran as script")
	}
	if !strings.Contains(chk.DOM, "&lt;script&gt;document.body") {
		t.Error("the VM type name is not shown escaped in the table")
	}
	if !strings.Contains(chk.DOM, "LP interval over time: run") || !strings.Contains(chk.DOM, "mean_interval_gap_pct") {
		t.Error("the LP interval's chart section or its table is missing")
	}
}

// TestOverviewEmptyDatabase: a database with no dataset (only runs that
// need none, as placelab experiment all --quick leaves) still gets its
// overview page, which says that no dataset is loaded and draws no empty
// chart; a dataset named but absent is an error.
func TestOverviewEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := &oversub.Result{Arm: "baseline", VMs: 100, Failures: 3, Readings: 1000, MaxOversub: 1.25, MaxUtil: 1}
	if _, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "oversub", Policy: "baseline", Version: "test"}, 0, r.Figures()); err != nil {
		t.Fatal(err)
	}
	page, err := Page(ctx, db, "")
	if err != nil {
		t.Fatalf("overview of a database without datasets: %v", err)
	}
	if len(page.Sections) == 0 || page.Sections[0].Title != "Datasets" || !strings.Contains(page.Sections[0].Note, "holds no datasets") {
		t.Fatalf("first section %+v, want Datasets saying the database holds no datasets", page.Sections[0])
	}
	for _, s := range page.Sections {
		switch s.Title {
		case "Inventory", "Workload", "VM type mix", "Arrivals per hour":
			t.Errorf("section %q drawn without a dataset", s.Title)
		}
	}
	if _, err := page.Render(); err != nil {
		t.Fatal(err)
	}
	testkit.TinyDataset(t, db, "tiny")
	if _, err := Page(ctx, db, "other"); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestOverviewTable4: a stored evaluation appears as the report's Table 4
// section; the paper's numbers stand beside a real dataset's model row
// only (not beside a baseline's, and not for a synthetic trace); the chart
// draws the bucket-0 rows (accuracy, P^θ, R^θ).
func TestOverviewTable4(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.TinyDataset(t, db, "real")
	if _, err := db.SQL().Exec(`INSERT INTO dataset (name, load_id, format, source, loaded_at, rows_read, rows_loaded, rows_rejected)
		VALUES ('synth', 99, 'synthetic', 'generated', now(), 0, 0, 0)`); err != nil {
		t.Fatal(err)
	}
	for i, ds := range []string{"real", "synth"} {
		run := int64(100 + i)
		if _, err := db.SQL().Exec(`INSERT INTO run (run_id, engine, policy, params, seed, dataset, version, started_at, seconds, status)
			VALUES (?, 'predict', 'table4', '{}', 0, ?, 'test', now(), 1, 'done')`, run, ds); err != nil {
			t.Fatal(err)
		}
		for _, r := range [][]any{{"xgboost", 0, 0.7}, {"majority", 0, 0.3}} {
			if _, err := db.SQL().Exec(`INSERT INTO prediction_eval (run_id, metric, predictor, bucket, vms, accuracy, p_theta, r_theta)
				VALUES (?, 'lifetime', ?, ?, 10, ?, 0.8, 0.5)`, run, r[0], r[1], r[2]); err != nil {
				t.Fatal(err)
			}
		}
	}
	page, err := Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	var sec *report.Section
	for i := range page.Sections {
		if page.Sections[i].Title == "Predictions (Resource Central Table 4)" {
			sec = &page.Sections[i]
		}
	}
	if sec == nil || sec.Table == nil || sec.Chart == nil {
		t.Fatalf("no Table 4 section: %+v", sec)
	}
	dc, pc, ac := analysis.Col(sec.Table, "dataset"), analysis.Col(sec.Table, "predictor"), analysis.Col(sec.Table, "paper_accuracy")
	withPaper := 0
	for _, r := range sec.Table.Rows {
		if r[ac] != nil {
			withPaper++
			if r[dc] != "real" || r[pc] != "xgboost" || analysis.Num(r[ac]) != 0.79 {
				t.Errorf("paper value on %v", r)
			}
		}
	}
	if len(sec.Table.Rows) != 4 || withPaper != 1 {
		t.Errorf("%d rows, %d with the paper's accuracy: %v", len(sec.Table.Rows), withPaper, sec.Table.Rows)
	}
}

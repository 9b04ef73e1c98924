package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"slices"
	"strconv"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/report"
	store "placelab/sql"
)

// withExperiment registers e for the test's duration.
func withExperiment(t *testing.T, e *Experiment) {
	t.Helper()
	register(e)
	t.Cleanup(func() {
		registry = slices.DeleteFunc(registry, func(x *Experiment) bool { return x == e })
	})
}

// section returns the page's section of experiment name.
func section(t *testing.T, p *report.Page, name string) report.Section {
	t.Helper()
	for _, s := range p.Sections {
		if strings.HasPrefix(s.Title, name+" — ") {
			return s
		}
	}
	t.Fatalf("no section for %s", name)
	return report.Section{}
}

// rowsOf returns a table's rows as column → cell maps.
func rowsOf(r *store.Result) []map[string]any {
	var out []map[string]any
	for _, row := range r.Rows {
		m := map[string]any{}
		for i, c := range r.Columns {
			m[c] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// TestGridKindKeepsQuickAndFullApart runs one experiment's quick grid and
// then its full grid, whose single point has the same index and parameters
// in both: the view says which grid each run came from, and the page shows
// two rows, one per grid, with each grid's own figure — not the latest run
// of the point whatever its grid, and not a mean of the two.
func TestGridKindKeepsQuickAndFullApart(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	e := &Experiment{Name: "test-grid", Title: "grid kinds", Reproduces: "nothing", FullTime: "instant",
		Points: func(bool) []Point { return []Point{{Index: 0, Params: map[string]any{"n": 1}, Seed: 7}} },
		Run: func(_ context.Context, _ *store.DB, _ Point, quick bool) ([]replay.MetricRow, error) {
			if quick {
				return []replay.MetricRow{fig("x", 1)}, nil
			}
			return []replay.MetricRow{fig("x", 2)}, nil
		}}
	withExperiment(t, e)
	for _, quick := range []bool{true, false} {
		if _, err := Run(ctx, db, e, Options{Quick: quick, Version: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	// The view: a grid column, quick for the first run and full for the second.
	res, err := db.Query(ctx, "SELECT run_id, grid, value FROM experiment_results WHERE experiment = 'test-grid' ORDER BY run_id")
	if err != nil {
		t.Error(err)
	} else if got := fmt.Sprint(res.Rows); got != "[[1 quick 1] [2 full 2]]" {
		t.Errorf("experiment_results (run_id, grid, value) = %s, want [[1 quick 1] [2 full 2]]", got)
	}
	page, err := Page(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sec := section(t, page, "test-grid")
	if sec.Table == nil {
		t.Fatalf("no table: %s", sec.Note)
	}
	var got []string
	for _, r := range rowsOf(sec.Table) {
		got = append(got, fmt.Sprintf("%v %v %v %v", r["grid"], r["parameters"], r["figure"], r["placelab"]))
	}
	want := []string{"full n=1 x 2", "quick n=1 x 1"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("page rows %q, want %q", got, want)
	}
	for _, w := range []string{"full grid: 1 point", "quick grid: 1 point", "never averaged"} {
		if !strings.Contains(sec.Note, w) {
			t.Errorf("note lacks %q: %s", w, sec.Note)
		}
	}
}

// TestGridKindLegacyRuns reads runs stored before the grid key (params
// with a boolean quick) as the grid they were run on.
func TestGridKindLegacyRuns(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	for _, p := range []map[string]any{{"point": 0, "quick": true}, {"point": 0, "quick": false}} {
		if _, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "experiment", Policy: "legacy", Params: p}, 0,
			[]replay.MetricRow{fig("x", 1)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := db.Query(ctx, "SELECT grid FROM experiment_results ORDER BY run_id")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows); got != "[[quick] [full]]" {
		t.Errorf("grids %s, want [[quick] [full]]", got)
	}
}

// TestRunRefusesReservedParameter: a point parameter named like a key Run
// stores itself would be overwritten, so Run refuses it.
func TestRunRefusesReservedParameter(t *testing.T) {
	e := &Experiment{Name: "test-reserved", Points: func(bool) []Point { return []Point{{Params: map[string]any{"grid": "x"}}} },
		Run: func(context.Context, *store.DB, Point, bool) ([]replay.MetricRow, error) {
			return []replay.MetricRow{fig("x", 1)}, nil
		}}
	if _, err := Run(context.Background(), testkit.MemDB(t), e, Options{}); err == nil || !strings.Contains(err.Error(), `"grid" is reserved`) {
		t.Errorf("err = %v", err)
	}
}

// seedFiles maps the paper a Source names to its text in ../shared/seeds.
var seedFiles = map[string]string{
	"Protean":          "protean-osdi20.txt",
	"Resource Central": "resource-central-sosp17.txt",
	"Paragon":          "paragon-asplos13.txt",
	"König et al.":     "tenant-placement-oversubscribed-dbaas-vldb22.txt",
}

const seedsDir = "../../../shared/seeds"

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// printed reports whether the quote prints v: as a number, as a percentage
// of a share, or as the words of a zero ("no failures").
func printed(quote string, v float64) bool {
	pct := math.Round(100*v*1e9) / 1e9
	for _, s := range []string{strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(pct, 'f', -1, 64) + "%"} {
		if strings.Contains(quote, s) {
			return true
		}
	}
	return v == 0 && (strings.Contains(quote, "no ") || strings.Contains(quote, "not "))
}

// TestPaperValuesQuoteTheSeeds checks every paper number against the
// paper's own text: its quote is in the paper, the quote prints the number,
// it names its source and scale, and it points at points the full grid has
// (so the page can set it beside one of ours).
func TestPaperValuesQuoteTheSeeds(t *testing.T) {
	if _, err := os.Stat(seedsDir); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_DATA") != "" {
			t.Fatal(err)
		}
		t.Skip("no ../shared/seeds:", err)
	}
	texts := map[string]string{}
	for paper, f := range seedFiles {
		b, err := os.ReadFile(seedsDir + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		texts[paper] = normalize(string(b))
	}
	n := 0
	for _, e := range All() {
		labels := map[string]bool{}
		for _, p := range e.Points(false) {
			b, _ := json.Marshal(p.Params)
			labels[pointLabel(string(b))] = true
		}
		for _, pv := range e.Paper {
			n++
			name := fmt.Sprintf("%s %s %s/%s", e.Name, pv.Figure, pv.Point, pv.Versus)
			var text string
			for paper, tx := range texts {
				if strings.HasPrefix(pv.Source, paper) {
					text = tx
				}
			}
			switch {
			case text == "":
				t.Errorf("%s: source %q names no paper of the seeds", name, pv.Source)
			case pv.Quote == "" || !strings.Contains(text, normalize(pv.Quote)):
				t.Errorf("%s: quote %q is not in %s", name, pv.Quote, pv.Source)
			case !printed(pv.Quote, pv.Value):
				t.Errorf("%s: quote %q does not print %g", name, pv.Quote, pv.Value)
			}
			if pv.Scale == "" {
				t.Errorf("%s: no scale", name)
			}
			for _, l := range []string{pv.Point, pv.Versus} {
				if l != "" && !labels[l] {
					t.Errorf("%s: the full grid has no point %q", name, l)
				}
			}
			if pv.Versus != "" && pv.Point == "" {
				t.Errorf("%s: a ratio needs both points", name)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d paper values checked", n)
	}
}

// TestPageSetsPaperOnlyBesideItsScale runs two quick grids with paper
// numbers (Paragon's shares, RC's arms) and checks the page: every grid
// states its scale and the paper's, every paper number names its source,
// RC's absolute counts are nowhere, and the arms' ratios are set beside
// ours computed from the same grid.
func TestPageSetsPaperOnlyBesideItsScale(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	for _, name := range []string{"paragon", "oversubscription"} {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, db, e, Options{Quick: true}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := Page(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	pg := section(t, page, "paragon")
	for _, w := range []string{"quick grid: 5 points, low: 100 servers of 14 configurations", "burst: 40 servers of 10 configurations", "1,000 EC2 servers", "Paragon §5.2, Fig 9", "Where ours differ"} {
		if !strings.Contains(pg.Note, w) {
			t.Errorf("paragon note lacks %q: %s", w, pg.Note)
		}
	}
	withPaper := 0
	for _, r := range rowsOf(pg.Table) {
		if r["grid"] != "quick" {
			t.Errorf("row without its grid: %v", r)
		}
		if r["paper"] != nil {
			withPaper++
			if r["paper source"] == nil || r["paper source"] == "" {
				t.Errorf("paper value without a source: %v", r)
			}
		}
	}
	if want := len(paragonFig9) + len(paragonTable1); withPaper != want {
		t.Errorf("%d paragon rows carry a paper value, want %d", withPaper, want)
	}
	ov := section(t, page, "oversubscription")
	if !strings.Contains(ov.Note, "880 servers") || !strings.Contains(ov.Note, "quick grid: 7 points, a synthetic zone of 600 machines and 12,000 VMs") {
		t.Errorf("oversubscription note lacks the scales: %s", ov.Note)
	}
	ratios := 0
	figs := map[string]float64{}
	for _, r := range rowsOf(ov.Table) {
		if r["figure"] == "readings_over_100" && r["point"] != "all" {
			figs[fmt.Sprint(r["parameters"])] = r["placelab"].(float64)
		}
	}
	for _, r := range rowsOf(ov.Table) {
		switch r["paper"] {
		case 77.0, 462.0:
			t.Errorf("an absolute count of RC's 880-server month is set beside ours: %v", r)
		}
		if r["parameters"] == "arm=naive ÷ arm=rc-soft" {
			ratios++
			if r["paper"] != 6.0 {
				t.Errorf("naive ÷ rc-soft: paper %v, want 6", r["paper"])
			}
			if d := figs["arm=rc-soft"]; d != 0 {
				if want := round4(figs["arm=naive"] / d); r["placelab"] != want {
					t.Errorf("naive ÷ rc-soft: ours %v, want %v", r["placelab"], want)
				}
			} else if r["placelab"] != nil {
				t.Errorf("naive ÷ rc-soft with no rc-soft readings: ours %v, want NULL", r["placelab"])
			}
		}
	}
	if ratios != 1 {
		t.Errorf("%d naive ÷ rc-soft rows, want 1", ratios)
	}
}

// TestGridFigureMean: the mean over a grid's points leaves out points whose
// figure is undefined (stored as 0) and says so.
func TestGridFigureMean(t *testing.T) {
	pv := PaperValue{Figure: "best_baseline_over_prv_worstfit"}
	pts := []*pointResult{
		{figs: map[string]float64{"best_baseline_over_prv_worstfit": 2, "violations policy=prv-worstfit": 3}},
		{figs: map[string]float64{"best_baseline_over_prv_worstfit": 4, "violations policy=prv-worstfit": 1}},
		{figs: map[string]float64{"best_baseline_over_prv_worstfit": 0, "violations policy=prv-worstfit": 0}},
	}
	v, label, ok := gridFigure(pv, pts)
	if !ok || v != 3 || label != "mean over 2 points (1 left out: undefined)" {
		t.Errorf("gridFigure = %v, %q, %v; want 3, mean over 2 points (1 left out: undefined), true", v, label, ok)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12000: "12,000", 1234567: "1,234,567", -5000: "-5,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBucketsPageShowsLPInterval: the buckets experiment's chart draws the
// LP interval's two ends (lp_lb_density_pct, lp_ub_density_pct) beside the
// policy's density at the same snapshots, never a single LP bound, and its
// note says what each end means and how often the snapshots were taken.
func TestBucketsPageShowsLPInterval(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	figs := []replay.MetricRow{fig("pd_pct", 80), fig("lp_online_density_pct", 81), fig("lp_lb_density_pct", 88.4),
		fig("lp_ub_density_pct", 88.9), fig("post_bestfit_pct", 20), fig("conflicts_p99_per_min", 3)}
	if _, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "experiment", Policy: "buckets",
		Params: map[string]any{"buckets": 1, paramPoint: 0, paramGrid: string(GridQuick)}}, 0, figs); err != nil {
		t.Fatal(err)
	}
	page, err := Page(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sec := section(t, page, "buckets")
	if sec.Chart == nil {
		t.Fatal("no chart")
	}
	b, _ := json.Marshal(sec.Chart.JSON())
	var opt struct {
		Series []struct{ Name string } `json:"series"`
	}
	if err := json.Unmarshal(b, &opt); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range opt.Series {
		names = append(names, s.Name)
	}
	want := []string{"pd_pct", "pd_pct (paper)", "lp_online_density_pct", "lp_lb_density_pct", "lp_ub_density_pct",
		"post_bestfit_pct", "post_bestfit_pct (paper)", "conflicts_p99_per_min"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("series %q, want %q", names, want)
	}
	for _, w := range []string{"the LP interval on density at snapshots every 24 h", "a packing this dense exists", "no packing is denser"} {
		if !strings.Contains(sec.Note, w) {
			t.Errorf("note lacks %q: %s", w, sec.Note)
		}
	}
}

// TestExperimentChartsOneUnitPerAxis: every headline figure has a known
// unit, a chart holds at most two (one axis each, left and right), and
// each experiment's chart, its paper's bars included, passes
// report.CheckUnits. Issue 32: the buckets chart (Table 5) drew conflicts
// per minute on the axis of its percentages.
func TestExperimentChartsOneUnitPerAxis(t *testing.T) {
	for name, figs := range headline {
		units := map[string]bool{}
		for _, f := range figs {
			u, ok := report.MetricUnit(f)
			if !ok {
				t.Errorf("%s: headline figure %q has no known unit (report.MetricUnit)", name, f)
			}
			units[u] = true
		}
		if len(units) > 2 {
			t.Errorf("%s: headline figures in %d units, want at most two (one axis each)", name, len(units))
		}
		e := &Experiment{Name: name}
		pr := &pointResult{grid: GridQuick, label: "k=1", figs: map[string]float64{}}
		for i, f := range figs {
			pr.figs[f] = float64(i + 1)
			e.Paper = append(e.Paper, PaperValue{Figure: f, Point: "k=1", Value: float64(i)})
		}
		ch := experimentChart(e, []*pointResult{pr})
		if ch == nil {
			t.Errorf("%s: no chart", name)
			continue
		}
		if err := report.CheckUnits(ch); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// buckets: the densities on one axis, conflicts per minute on the other.
	_, axis := report.UnitAxes(headline["buckets"])
	if axis["pd_pct"] != axis["post_bestfit_pct"] || axis["pd_pct"] == axis["conflicts_p99_per_min"] {
		t.Errorf("buckets axes %v: want the densities together and conflicts per minute apart", axis)
	}
}

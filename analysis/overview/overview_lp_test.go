package overview

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/report"
	store "placelab/sql"
)

// storeLPRun stores a replay-like run holding only LP snapshot figures.
func storeLPRun(t *testing.T, db *store.DB, policy string, figs ...[]replay.MetricRow) int64 {
	t.Helper()
	var all []replay.MetricRow
	for _, f := range figs {
		all = append(all, f...)
	}
	id, err := analysis.WriteFigures(context.Background(), db, analysis.RunMeta{Engine: "replay", Policy: policy, Dataset: "zone", Version: "test"}, 0, all)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// chartJSON is a chart's options as the page inlines them.
func chartJSON(t *testing.T, c report.Chart) map[string]any {
	t.Helper()
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLPIntervalSections: the overview's LP part is the lpbound_gap table
// under the note that explains the band, then per run a chart of the
// policy's density inside [LB, UB] — LB as a line, the band UB − LB stacked
// on it and filled, UB as a line, the online density — and a note with the
// run's means in words. A run with only the old single-bound rows gets no
// section; an empty snapshot is a gap; past maxLPCharts runs only the
// latest are drawn and the note says so.
func TestLPIntervalSections(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := storeLPRun(t, db, "protean",
		testkit.LPInterval(0, 10, 5, 4, 4, 0.6, 0.75, 0.75, 1),
		testkit.LPInterval(3600, 20, 10, 8, 9, 0.5, 0.55, 0.625, 0),
		testkit.LPInterval(10800, 0, 0, 0, 0, 0, 0, 0, 1))
	storeLPRun(t, db, "bestfit", []replay.MetricRow{{T: 0, Metric: "lp_bound_density", Value: 1}, {T: 0, Metric: "lp_bound_machines", Value: 4},
		{T: 0, Metric: "lp_density_gap", Value: 0.3}, {T: 0, Metric: "lp_bound_cores", Value: 96}, {T: 0, Metric: "lp_online_machines", Value: 5}})

	page, err := Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	var lp []report.Section
	for _, s := range page.Sections {
		if strings.Contains(s.Title, "LP interval") {
			lp = append(lp, s)
		}
	}
	if len(lp) != 2 {
		t.Fatalf("LP sections %d, want the table and one run's chart", len(lp))
	}
	if lp[0].Table == nil || len(lp[0].Table.Rows) != 1 || !strings.Contains(lp[0].Note, "the best packing lies inside the band") || lp[0].Chart != nil {
		t.Errorf("first LP section: note %q, table %v, chart %v", lp[0].Note, lp[0].Table, lp[0].Chart)
	}
	if want := fmt.Sprintf("LP interval over time: run %d, protean on zone", a); lp[1].Title != want {
		t.Errorf("title %q, want %q", lp[1].Title, want)
	}
	wantNote := "Mean over 2 snapshots with VMs: the policy held 7.5 machines; no packing of the same VMs needs fewer than 6, and one found offline uses 6.5, " +
		"so 1 could have been emptied. 1 of 2 snapshots converged; the others' bounds are valid but weaker."
	if lp[1].Note != wantNote {
		t.Errorf("run note\n got  %q\n want %q", lp[1].Note, wantNote)
	}

	m := chartJSON(t, lp[1].Chart)
	series := m["series"].([]any)
	var names []string
	data := map[string]string{}
	byName := map[string]map[string]any{}
	for _, s := range series {
		s := s.(map[string]any)
		n := s["name"].(string)
		names = append(names, n)
		data[n] = fmt.Sprint(s["data"])
		byName[n] = s
	}
	if fmt.Sprint(names) != fmt.Sprint([]string{lpLB, lpBand, lpUB, lpOnline}) {
		t.Fatalf("series %q", names)
	}
	// Hours 0 and 1 as categories, then the empty snapshot at hour 3: a gap.
	// A category axis, because over two value axes ECharts stacks x, not y
	// (seen in Chromium: the band ran to twice the last hour).
	xa := m["xAxis"].([]any)[0].(map[string]any)
	if x := fmt.Sprint(xa["data"]); xa["type"] != "category" || x != "[0 1 3]" {
		t.Errorf("x axis %v %s, want category [0 1 3]", xa["type"], x)
	}
	for n, want := range map[string]string{
		lpLB:     "[map[value:75] map[value:55] map[value:-]]",
		lpBand:   "[map[value:0] map[value:7.5] map[value:-]]", // UB − LB
		lpUB:     "[map[value:75] map[value:62.5] map[value:-]]",
		lpOnline: "[map[value:60] map[value:50] map[value:-]]",
	} {
		if data[n] != want {
			t.Errorf("%s data %s, want %s", n, data[n], want)
		}
	}
	band, lbs := byName[lpBand], byName[lpLB]
	if band["stack"] != "interval" || lbs["stack"] != "interval" || byName[lpUB]["stack"] != nil || byName[lpOnline]["stack"] != nil {
		t.Errorf("stacks: band %v, LB %v, UB %v, online %v; want the band on LB only", band["stack"], lbs["stack"], byName[lpUB]["stack"], byName[lpOnline]["stack"])
	}
	if band["areaStyle"] == nil || lbs["areaStyle"] != nil {
		t.Errorf("areas: band %v, LB %v; want only the band filled", band["areaStyle"], lbs["areaStyle"])
	}
	if fmt.Sprint(band["tooltip"]) != "map[show:false]" || byName[lpUB]["tooltip"] != nil {
		t.Errorf("tooltip: band %v, UB %v; want the band's width kept out of the tooltip", band["tooltip"], byName[lpUB]["tooltip"])
	}
	legend := m["legend"].(map[string]any)
	if legend["selectedMode"] != false || fmt.Sprint(legend["data"]) != fmt.Sprint([]string{lpOnline, lpLB, lpUB}) {
		t.Errorf("legend %v: want no toggling, no band entry", legend)
	}

	// Eight bounded runs: the table lists all, charts for the latest six.
	var ids []int64
	for i := 0; i < 7; i++ {
		ids = append(ids, storeLPRun(t, db, "worstfit", testkit.LPInterval(0, 10, 6, 4, 5, 0.5, 0.6, 0.75, 1)))
	}
	page, err = Page(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range page.Sections {
		if strings.HasPrefix(s.Title, "LP interval over time") {
			titles = append(titles, s.Title)
		}
		if strings.HasPrefix(s.Title, "How far from optimal packing") {
			if len(s.Table.Rows) != 8 || !strings.Contains(s.Note, "Charts for the latest 6 of the 8 runs.") {
				t.Errorf("table %d rows, note %q", len(s.Table.Rows), s.Note)
			}
		}
	}
	if len(titles) != maxLPCharts || titles[0] != fmt.Sprintf("LP interval over time: run %d, worstfit on zone", ids[1]) {
		t.Errorf("charted runs %q, want the latest %d", titles, maxLPCharts)
	}
}

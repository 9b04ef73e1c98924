package lifetime

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/datasets/synth"
	"placelab/predict"
	store "placelab/sql"
)

// TestLifetimeCompareOutOfSample: on a synthetic zone with both lifetime
// models trained, a comparison with model arms starts at the models'
// training cut (out of sample), refuses a window before it unless asked
// (then labelled in-sample), runs every arm on every seed, and sums up:
// the oracle arms capture all of their own gain (share 1), every share is
// the arm's gain over its oracle's, and the JSON has no NaN (a missing
// share is null).
func TestLifetimeCompareOutOfSample(t *testing.T) {
	ctx := context.Background()
	db := lifetimeDB(t)
	arms := []string{"off", "oracle", "model", "nilas", "lava", "nilas-oracle", "lava-oracle"}
	o := CompareOptions{Arms: arms, Seeds: []uint64{1, 2, 3}, From: math.Inf(-1), To: math.Inf(1), Version: "test"}
	cmp, err := Compare(ctx, db, "s", o)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.InSample || !(cmp.Cut > 0) || cmp.From < cmp.Cut || len(cmp.Results) != len(arms)*len(o.Seeds) || len(cmp.Arms) != len(arms) {
		t.Fatalf("comparison: cut %v, from %v, in sample %v, %d results, %d arms", cmp.Cut, cmp.From, cmp.InSample, len(cmp.Results), len(cmp.Arms))
	}
	by := map[string]ArmSummary{}
	for _, a := range cmp.Arms {
		by[a.Arm] = a
	}
	for _, a := range []string{"oracle", "nilas-oracle", "lava-oracle"} {
		if s := by[a].OracleGainShare; !math.IsNaN(s.Median) && (s.Median != 1 || s.Min != 1) {
			t.Errorf("%s: own-oracle share %+v, want 1", a, s)
		}
	}
	if g := by["off"].GainVsOff; g.Median != 0 || g.Min != 0 || g.Max != 0 {
		t.Errorf("off's gain over itself: %+v", g)
	}
	if _, err := json.Marshal(cmp); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	// The view lifetime_arms computes the same figures again in SQL from
	// the stored runs alone.
	checkLifetimeArmsView(t, db, cmp, false)
	// A window before the cut is refused, unless in-sample is asked for.
	o.From = 0
	if _, err := Compare(ctx, db, "s", o); !errors.Is(err, analysis.ErrBadSpec) || !strings.Contains(err.Error(), "in sample") {
		t.Fatalf("window before the cut: %v", err)
	}
	o.InSample, o.Arms, o.Seeds = true, []string{"off", "nilas"}, []uint64{1}
	cmp, err = Compare(ctx, db, "s", o)
	if err != nil || !cmp.InSample {
		t.Fatalf("in-sample run: %v (in sample %v)", err, cmp != nil && cmp.InSample)
	}
	// The in-sample runs are a window of their own in the view, labelled.
	checkLifetimeArmsView(t, db, cmp, true)
	// Zero seeds and a repeated arm are errors.
	for _, bad := range []CompareOptions{{Arms: []string{"off"}}, {Arms: []string{"off", "off"}, Seeds: []uint64{1}}} {
		bad.From, bad.To = math.Inf(-1), math.Inf(1)
		if _, err := Compare(ctx, db, "s", bad); !errors.Is(err, analysis.ErrBadSpec) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// lifetimeDB is a small synthetic zone ("s") with both lifetime models
// trained.
func lifetimeDB(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 300, 6000, 3, 0
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	to := predict.DefaultTrainOptions("s")
	to.Metrics, to.AllMetrics = []predict.Metric{predict.Lifetime, predict.LifetimeDist}, false
	tr, err := predict.Train(ctx, db, to)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	return db
}

// TestLifetimeCompareWorkers: one worker and three give the same
// comparison — every arm's figures, every run's figures but its timings,
// the same run ids in the same order — and reports the runs done one at a
// time up to all of them; a negative worker count is refused.
func TestLifetimeCompareWorkers(t *testing.T) {
	ctx := context.Background()
	var cmps []*Comparison
	for _, workers := range []int{1, 3} {
		db := lifetimeDB(t)
		var calls []int64
		o := CompareOptions{Arms: []string{"off", "model", "lava", "lava-oracle"}, Seeds: []uint64{1, 2}, From: math.Inf(-1), To: math.Inf(1),
			Version: "test", Workers: workers, Progress: func(done, total int64) {
				if total != 8 {
					t.Errorf("progress total %d, want 8 runs", total)
				}
				calls = append(calls, done)
			}}
		cmp, err := Compare(ctx, db, "s", o)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 8 || calls[7] != 8 || !slices.IsSorted(calls) {
			t.Fatalf("%d workers: progress %v, want 1..8", workers, calls)
		}
		cmps = append(cmps, cmp)
		o.Workers = -1
		if _, err := Compare(ctx, db, "s", o); !errors.Is(err, analysis.ErrBadSpec) {
			t.Fatalf("-1 workers: %v", err)
		}
	}
	a, b := cmps[0], cmps[1]
	ja, _ := json.Marshal(a.Arms) // a missing share (NaN) is null
	jb, _ := json.Marshal(b.Arms)
	if string(ja) != string(jb) {
		t.Fatalf("arms differ between 1 and 3 workers:\n%s\n%s", ja, jb)
	}
	for i := range a.Results {
		x, y := a.Results[i], b.Results[i]
		if x.RunID != y.RunID || x.Arm != y.Arm {
			t.Fatalf("run %d: %s #%d with 1 worker, %s #%d with 3", i, x.Arm, x.RunID, y.Arm, y.RunID)
		}
		fx, fy := x.Figures(), y.Figures()
		for k := range fx {
			if !strings.HasSuffix(fx[k].Metric, "seconds") && fx[k] != fy[k] {
				t.Errorf("run %d (%s): %s = %v with 1 worker, %v with 3", i, x.Arm, fx[k].Metric, fx[k].Value, fy[k].Value)
			}
		}
	}
}

// checkLifetimeArmsView compares the view lifetime_arms, for cmp's window,
// with the comparison's figures: every arm, every range.
func checkLifetimeArmsView(t *testing.T, db *store.DB, cmp *Comparison, inSample bool) {
	t.Helper()
	res, err := db.Query(context.Background(), "SELECT * FROM lifetime_arms WHERE dataset = ? AND window_from_s = ? AND window_to_s = ? AND in_sample = ?",
		cmp.Dataset, cmp.From, cmp.To, inSample)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(cmp.Arms) {
		t.Fatalf("view lifetime_arms: %d rows for the window, want %d arms", len(res.Rows), len(cmp.Arms))
	}
	idx := map[string]int{}
	for i, c := range res.Columns {
		idx[c] = i
	}
	num := func(v any) float64 { // NULL is NaN, as a missing share is in an analysis.Range
		f, ok := analysis.AsFloat(v)
		if !ok && v != nil {
			t.Fatalf("view value %v (%T)", v, v)
		}
		if v == nil {
			return math.NaN()
		}
		return f
	}
	for i, a := range cmp.Arms {
		row := res.Rows[i]
		if row[idx["arm"]] != a.Arm {
			t.Fatalf("row %d is arm %v, want %s (the comparison's order)", i, row[idx["arm"]], a.Arm)
		}
		if got := num(row[idx["seeds"]]); int(got) != len(cmp.Seeds) {
			t.Errorf("%s: %v seeds, want %d", a.Arm, got, len(cmp.Seeds))
		}
		for _, f := range []struct {
			col string
			r   analysis.Range
		}{{"empty_machines", a.EmptyMachines}, {"empty_gain_vs_off", a.GainVsOff}, {"oracle_gain_share", a.OracleGainShare},
			{"best_oracle_gain_share", a.BestOracleGainShare}} {
			for _, st := range []struct {
				suffix string
				want   float64
			}{{"_median", f.r.Median}, {"_min", f.r.Min}, {"_max", f.r.Max}} {
				got := num(row[idx[f.col+st.suffix]])
				if math.IsNaN(got) != math.IsNaN(st.want) || math.Abs(got-st.want) > 1e-9*math.Max(1, math.Abs(st.want)) {
					t.Errorf("%s %s%s: view %v, comparison %v", a.Arm, f.col, st.suffix, got, st.want)
				}
			}
		}
		for _, f := range []struct {
			col  string
			want float64
		}{{"packing_density_pct_median", a.PackingPct.Median}, {"stranded_cores_pct_median", a.StrandedCores.Median},
			{"stranded_memory_pct_median", a.StrandedMem.Median}, {"rejected_median", a.Rejected.Median},
			{"seeds_losing_to_off", float64(a.LosesToOff)}} {
			if got := num(row[idx[f.col]]); math.Abs(got-f.want) > 1e-9*math.Max(1, math.Abs(f.want)) {
				t.Errorf("%s %s: view %v, comparison %v", a.Arm, f.col, got, f.want)
			}
		}
	}
}

// TestLifetimeArmsViewByHand: the view lifetime_arms on runs written by
// hand, whose figures are worked out here. Seed 1: off 10, lava 12 then a
// later run at 13 (the latest counts), lava-oracle 14: gain 3 of 4, both
// shares 0.75. Seed 2: off 11, lava 10.5, lava-oracle 9: gain −0.5 of −2,
// own share 0.25, no best share (the best oracle gain is not above 0).
// Off's spread is 1, so lava-oracle's −2 loses to off beyond it and
// lava's −0.5 does not. A run of another window stays apart.
func TestLifetimeArmsViewByHand(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	write := func(arm string, seed uint64, empty, from float64) {
		params := map[string]any{"in_sample": false, "repredict_every_s": 3600.0}
		figs := []replay.MetricRow{{Metric: "empty_machines_time_mean", Value: empty}, {Metric: "window_from_s", Value: from},
			{Metric: "window_to_s", Value: 100}, {Metric: "packing_density_mean_pct", Value: 50}, {Metric: "rejected", Value: 0},
			{Metric: "stranded_cores_pct_mean", Value: 1}, {Metric: "stranded_memory_pct_mean", Value: 2}}
		if _, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "lifetime", Policy: arm, Dataset: "h", Version: "test", Seed: seed, Params: params}, 1, figs); err != nil {
			t.Fatal(err)
		}
	}
	write("off", 1, 10, 0)
	write("off", 2, 11, 0)
	write("lava", 1, 12, 0)
	write("lava", 2, 10.5, 0)
	write("lava-oracle", 1, 14, 0)
	write("lava-oracle", 2, 9, 0)
	write("lava", 1, 13, 0)
	write("lava", 1, 99, 50) // another window
	res, err := db.Query(ctx, `SELECT arm, seeds, empty_gain_vs_off_median, empty_gain_vs_off_min, oracle_gain_share_median,
		oracle_gain_share_min, oracle_gain_share_max, best_oracle_gain_share_median, best_oracle_gain_share_min,
		best_oracle_gain_share_max, seeds_losing_to_off FROM lifetime_arms WHERE dataset = 'h' AND window_from_s = 0`)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"off", int64(2), 0.0, 0.0, nil, nil, nil, 0.0, 0.0, 0.0, int64(0)}, // off gains 0 of the best oracle's
		{"lava", int64(2), 1.25, -0.5, 0.5, 0.25, 0.75, 0.75, 0.75, 0.75, int64(0)},
		{"lava-oracle", int64(2), 1.0, -2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, int64(1)},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(res.Rows), len(want), res.Rows)
	}
	for i, w := range want {
		for j, v := range w {
			got := res.Rows[i][j]
			if f, ok := v.(float64); ok {
				g, ok := got.(float64)
				if !ok || math.Abs(g-f) > 1e-12 {
					t.Errorf("row %s, %s = %v, want %v", w[0], res.Columns[j], got, v)
				}
				continue
			}
			if got != v {
				t.Errorf("row %s, %s = %v (%T), want %v", w[0], res.Columns[j], got, got, v)
			}
		}
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM lifetime_arms WHERE dataset = 'h' AND window_from_s = 50").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the other window: %d rows (%v), want 1", n, err)
	}
}

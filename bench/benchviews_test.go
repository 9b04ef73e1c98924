package bench

import (
	"context"
	"os"
	"placelab/analysis/characterize"
	"strings"
	"testing"

	store "placelab/sql"
)

// The pandas side of bench views is an independent check of the views:
// pandas_views.py computes six of them from a CSV export with groupby and
// value_counts, and every number must equal the SQL view's (the trace holds
// censored lifetimes, simultaneous arrivals, multi-VM requests and mixed
// VM sizes). Required under make test (PLACELAB_REQUIRE_PANDAS, Debian's
// python3-pandas); skipped elsewhere when pandas is missing.
func TestBenchViewsAgreeWithPandas(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a trace and runs pandas")
	}
	o := DefaultBenchViewsOptions()
	o.Sizes, o.Reps, o.Pandas = []int{40_000}, 1, "require"
	if info, why := pandasAvailable(context.Background(), o.Python); info == nil {
		if os.Getenv("PLACELAB_REQUIRE_PANDAS") != "" {
			t.Fatalf("PLACELAB_REQUIRE_PANDAS is set but %s", why)
		}
		t.Skip(why)
	}
	r, err := RunBenchViews(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sizes) != 1 {
		t.Fatalf("%d sizes", len(r.Sizes))
	}
	s := r.Sizes[0]
	if s.VMs != 40_000 || s.Machines != 400 || s.GenerateSeconds <= 0 || s.CharacterizeSeconds.Median <= 0 {
		t.Fatalf("size figures: %+v", s)
	}
	if len(s.Views) != len(characterize.ViewNames()) {
		t.Fatalf("%d views timed, want %d", len(s.Views), len(characterize.ViewNames()))
	}
	compared := 0
	for _, v := range s.Views {
		if v.Seconds.Median <= 0 {
			t.Errorf("%s: no time", v.View)
		}
		if _, ok := pandasViews[v.View]; !ok {
			continue
		}
		if v.Pandas == nil {
			t.Errorf("%s: pandas did not run", v.View)
			continue
		}
		if !v.Pandas.Agree {
			t.Errorf("%s: %s", v.View, v.Pandas.Mismatch)
		}
		if v.Rows == 0 {
			t.Errorf("%s: no rows to compare", v.View)
		}
		compared++
		if v.View == "interarrival" && (v.PandasNumPy == nil || !v.PandasNumPy.Agree) {
			t.Errorf("interarrival by numpy sort: %+v", v.PandasNumPy)
		}
	}
	if compared != len(pandasViews) {
		t.Fatalf("%d views compared with pandas, want %d", compared, len(pandasViews))
	}
	if bad := r.Disagreements(); len(bad) > 0 {
		t.Fatal(bad)
	}
}

// The comparison can fail: a count off by one, a share off by more than
// its rounding, a missing row and an extra row are each reported; a share
// within the rounding is not, and a sampled Weibull fit is held to 2%.
func TestComparePandasFindsDifferences(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	res := &store.Result{Columns: []string{"dataset", "size", "requests", "pct", "cdf_pct"},
		Rows: [][]any{{"d", int64(1), int64(90), 90.0, 90.0}, {"d", int64(2), int64(10), 10.0, 100.0}}}
	same := map[string]map[string]*float64{
		"1": {"requests": f(90), "pct": f(90.0004), "cdf_pct": f(90.0004)},
		"2": {"requests": f(10), "pct": f(10), "cdf_pct": f(100)},
	}
	if m := comparePandas("tenant_size", res, same); m != "" {
		t.Fatalf("equal within rounding reported: %s", m)
	}
	cases := map[string]map[string]map[string]*float64{
		"requests: placelab 90, pandas 91": {"1": {"requests": f(91), "pct": f(90), "cdf_pct": f(90)}, "2": same["2"]},
		"pct: placelab 90, pandas 90.01":   {"1": {"requests": f(90), "pct": f(90.01), "cdf_pct": f(90)}, "2": same["2"]},
		"row 2 missing in pandas":          {"1": same["1"]},
		"pandas has 3 rows, placelab 2":    {"1": same["1"], "2": same["2"], "3": same["2"]},
	}
	for want, p := range cases {
		if m := comparePandas("tenant_size", res, p); !strings.Contains(m, want) {
			t.Errorf("want %q in %q", want, m)
		}
	}
	ia := &store.Result{Columns: []string{"dataset", "gaps", "zero_gaps", "mean_gap_s", "median_gap_s", "weibull_shape", "weibull_scale_s", "fit_gaps"},
		Rows: [][]any{{"d", int64(5_000_000), int64(7), 1.5, 1.0, 0.9, 2.0, int64(1_000_003)}}}
	fit := func(shape float64) map[string]map[string]*float64 {
		return map[string]map[string]*float64{"all": {"gaps": f(5_000_000), "zero_gaps": f(7), "mean_gap_s": f(1.5), "median_gap_s": f(1.0),
			"weibull_shape": f(shape), "weibull_scale_s": f(2.0), "fit_gaps": f(1_000_000), "fit_stride": f(5)}}
	}
	if m := comparePandas("interarrival", ia, fit(0.91)); m != "" {
		t.Errorf("sampled fit within 2%%: %s", m)
	}
	if m := comparePandas("interarrival", ia, fit(0.95)); !strings.Contains(m, "weibull_shape") {
		t.Errorf("sampled fit 5.5%% off not reported: %q", m)
	}
}

package paragon

import (
	"context"
	"math"
	"testing"
)

// table1 is the paper's Table 1 (§2.2): per figure the least and greatest
// of its ST, MT and MP columns.
var table1 = []struct {
	name     string
	lo, hi   float64
	measured func(HeterogeneityMetrics) float64
}{
	{"selected best SC", 0.83, 0.86, func(h HeterogeneityMetrics) float64 { return h.BestSC }},
	{"selected SC within 5% of best", 0.89, 0.91, func(h HeterogeneityMetrics) float64 { return h.Within5 }},
	{"correct SC ranking", 0.59, 0.67, func(h HeterogeneityMetrics) float64 { return h.RankExact }},
	{"90% correct SC ranking", 0.63, 0.78, func(h HeterogeneityMetrics) float64 { return h.Rank90 }},
}

// table1Points is "within a few points": how far outside Table 1's
// ST–MP range a median may fall.
const table1Points = 0.06

// TestTable1Calibrated: on a world of Table 1's validation size (§2.2: 10
// configurations, 20 offline applications; the burst scenario's cluster),
// the classifier, from the two profiling runs every arrival gets, selects
// the best SC, an SC within 5% of the best, and the exact ranking as often
// as Table 1 says, and its ranking is almost correct (§2.2's "single
// reordering", Table 1's "90% correct SC ranking") as often, each within
// table1Points in the median over seeds 1–5 (600 arrivals each).
func TestTable1Calibrated(t *testing.T) {
	var got [4][]float64
	for seed := uint64(1); seed <= 5; seed++ {
		cfg, err := Scenario(ScenarioBurst)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Apps, cfg.Burst, cfg.Seed = 600, 0, seed
		w, err := prepare(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range table1 {
			got[i] = append(got[i], f.measured(w.class.Heterogeneity))
		}
	}
	for i, f := range table1 {
		r := RangeOf(got[i])
		t.Logf("%-30s median %.3f [%.3f, %.3f], Table 1 %.2f–%.2f", f.name, r.Median, r.Min, r.Max, f.lo, f.hi)
		if r.Median < f.lo-table1Points || r.Median > f.hi+table1Points {
			t.Errorf("%s: median %.3f, want Table 1's %.2f–%.2f within %.0f points", f.name, r.Median, f.lo, f.hi, 100*table1Points)
		}
	}
}

// TestUsableCapacity: two configurations, 4 cores of the first and 8 of
// the second; application A (1 core) is near-best on the first only, B (1
// core) on both. Half the demand can only use 4 cores, so the mix fits up
// to 8 cores of demand (T = {first}: 4 / 0.5), not the 12 cores there are.
func TestUsableCapacity(t *testing.T) {
	apps := []App{{Cores: 1, Perf: []float64{1, 0.5}}, {Cores: 1, Perf: []float64{1, 0.97}}}
	specs := []ServerSpec{{0, 4}, {1, 4}, {1, 4}}
	if u := UsableCapacity(apps, specs, 2); math.Abs(u-8) > 1e-9 {
		t.Errorf("usable capacity %v, want 8", u)
	}
	// With B alone every core is usable.
	if u := UsableCapacity(apps[1:], specs, 2); math.Abs(u-12) > 1e-9 {
		t.Errorf("usable capacity of B alone %v, want 12", u)
	}
}

func TestRangeOfAndSeeds(t *testing.T) {
	r := RangeOf([]float64{0.3, 0.1, 0.2, 0.5})
	if r.Median != 0.25 || r.Min != 0.1 || r.Max != 0.5 || r.Values[0] != 0.3 {
		t.Errorf("RangeOf: %+v", r)
	}
	if s, err := Seeds(7, 3); err != nil || len(s) != 3 || s[0] != 7 || s[2] != 9 {
		t.Errorf("Seeds(7, 3) = %v, %v", s, err)
	}
	if _, err := Seeds(1, 0); err == nil {
		t.Error("Seeds(1, 0): no error")
	}
	if _, err := Seeds(math.MaxUint64, 2); err == nil {
		t.Error("Seeds overflowing: no error")
	}
}

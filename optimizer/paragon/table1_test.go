package paragon

import (
	"context"
	"sort"
	"testing"
)

// Table 1 (§2.2) of the paper: the per-type figures ST, MT, MP.
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

func TestTable1Probe(t *testing.T) {
	for _, sc := range []string{ScenarioBurst, ScenarioLow} {
		var got [4][]float64
		for seed := uint64(1); seed <= 5; seed++ {
			cfg, _ := Scenario(sc)
			cfg.Apps, cfg.Burst, cfg.Seed = 1000, 0, seed
			w, err := prepare(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range table1 {
				got[i] = append(got[i], f.measured(w.class.Heterogeneity))
			}
			t.Logf("%s seed %d usable %.0f of %d cores", sc, seed, w.usable, w.cores)
		}
		for i, f := range table1 {
			sort.Float64s(got[i])
			t.Logf("%s %-30s median %.3f range [%.3f, %.3f] paper %.2f–%.2f", sc, f.name, got[i][2], got[i][0], got[i][4], f.lo, f.hi)
		}
	}
}

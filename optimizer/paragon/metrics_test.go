package paragon

import (
	"math"
	"testing"
)

func TestHeterogeneityMetrics(t *testing.T) {
	truth := []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1}
	swapped := []float64{0.9, 1, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1} // best two swapped
	nearBest := []float64{1, 0.97, 0.5}
	cases := []struct {
		name string
		p    Prediction
		want HeterogeneityMetrics
	}{
		{"exact", Prediction{Predicted: truth, Truth: truth, Known: []int{0, 1}},
			HeterogeneityMetrics{Workloads: 1, BestSC: 1, Within5: 1, Within10: 1, RankExact: 1, Rank90: 1, Rank50: 1, TrainingBest: 1, PairOrder: 1}},
		// One swap of neighbours among 10 SCs: 44 of 45 pairs in order,
		// §2.2's "single reordering" (Table 1's "90% correct"), best SC
		// missed by 10%.
		{"one swap of ten", Prediction{Predicted: swapped, Truth: truth, Known: []int{5, 6}},
			HeterogeneityMetrics{Workloads: 1, Within10: 1, Rank90: 1, Rank50: 1, PairOrder: 44.0 / 45, MeanAbsError: 0.2 / 8, MeanRelError: (0.1/1 + 0.1/0.9) / 8}},
		// Two swaps of neighbours among 10 SCs: 43 of 45 pairs in order
		// (≥ 90% of the pairs) but more than §2.2's "single reordering",
		// so not "90% correct".
		{"two swaps of ten", Prediction{Predicted: []float64{1, 0.9, 0.7, 0.8, 0.6, 0.5, 0.4, 0.3, 0.1, 0.2}, Truth: truth, Known: []int{0, 1}},
			HeterogeneityMetrics{Workloads: 1, BestSC: 1, Within5: 1, Within10: 1, Rank50: 1, TrainingBest: 1, PairOrder: 43.0 / 45, MeanAbsError: 0.4 / 8, MeanRelError: (0.1/0.8 + 0.1/0.7 + 0.1/0.2 + 0.1/0.1) / 8}},
		{"picked within 5%", Prediction{Predicted: []float64{0.9, 1, 0.5}, Truth: nearBest, Known: []int{2}},
			HeterogeneityMetrics{Workloads: 1, Within5: 1, Within10: 1, Rank90: 1, Rank50: 1, PairOrder: 2.0 / 3, MeanAbsError: 0.065, MeanRelError: (0.1 + 0.03/0.97) / 2}},
		// Times in whole seconds tie at the top: two configurations share
		// the best true score, and picking either is picking the best.
		{"tie at the top of the truth", Prediction{Predicted: []float64{0.8, 1, 0.5}, Truth: []float64{1, 1, 0.5}, Known: []int{2}},
			HeterogeneityMetrics{Workloads: 1, BestSC: 1, Within5: 1, Within10: 1, RankExact: 1, Rank90: 1, Rank50: 1, PairOrder: 1, MeanAbsError: 0.1, MeanRelError: 0.1}},
		// A predicted tie is a coin toss: one of the two tied picks is best,
		// the other 8% off, so best counts a half and within 5% a half.
		{"tie at the top of the prediction", Prediction{Predicted: []float64{1, 1, 0.5}, Truth: []float64{1, 0.92, 0.5}, Known: []int{2}},
			HeterogeneityMetrics{Workloads: 1, BestSC: 0.5, Within5: 0.5, Within10: 1, Rank90: 1, Rank50: 1, PairOrder: 2.0 / 3, MeanAbsError: 0.04, MeanRelError: (0.08 / 0.92) / 2}},
		// An explicit pick overrides the predicted row's maximum.
		{"explicit pick", Prediction{Predicted: []float64{1, 0.5, 0.2}, Truth: []float64{0.85, 1, 0.2}, Known: []int{2}, Pick: 1, Picked: true},
			HeterogeneityMetrics{Workloads: 1, BestSC: 1, Within5: 1, Within10: 1, Rank90: 1, Rank50: 1, PairOrder: 2.0 / 3, MeanAbsError: 0.325, MeanRelError: (0.15/0.85 + 0.5) / 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Heterogeneity([]Prediction{tc.p})
			if !closeStruct(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func closeStruct(a, b HeterogeneityMetrics) bool {
	f := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return a.Workloads == b.Workloads && f(a.BestSC, b.BestSC) && f(a.Within5, b.Within5) && f(a.Within10, b.Within10) &&
		f(a.RankExact, b.RankExact) && f(a.Rank90, b.Rank90) && f(a.Rank50, b.Rank50) &&
		f(a.TrainingBest, b.TrainingBest) && f(a.PairOrder, b.PairOrder) &&
		f(a.MeanAbsError, b.MeanAbsError) && f(a.MeanRelError, b.MeanRelError)
}

func TestInterferenceMetrics(t *testing.T) {
	ps := []Prediction{
		// errors 0.02 (true 0.2), 0.04 (true 0.5), 0.00 (true 0.9); column 3 profiled.
		{Predicted: []float64{0.22, 0.46, 0.9, 0}, Truth: []float64{0.2, 0.5, 0.9, 0.7}, Known: []int{3}},
		// errors 0.30, 0.00, 0.12, 0.00.
		{Predicted: []float64{0.5, 0.5, 0.78, 0.7}, Truth: []float64{0.2, 0.5, 0.9, 0.7}},
	}
	m := Interference(ps)
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mean error", m.MeanError, 0.48 / 7},
		{"sensitivity < 30%", m.ErrorBelow30, 0.32 / 2},
		{"sensitivity < 60%", m.ErrorBelow60, 0.36 / 4},
		{"sensitivity > 60%", m.ErrorAbove60, 0.12 / 3},
		{"apps < 5%", m.Under5, 0.5},
		{"apps < 10%", m.Under10, 0.5},
		{"apps < 20%", m.Under20, 1},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.WorstColumn != 0 || m.BestColumn != 3 {
		t.Errorf("worst/best column %d/%d, want 0/3", m.WorstColumn, m.BestColumn)
	}
}

package characterize

import (
	"slices"
	"testing"
)

// TestFigureNames: a classification stores the figures the views and the
// experiments read by name (the hand-written list they replaced), the
// ceiling's only when there is one.
func TestFigureNames(t *testing.T) {
	base := []string{"workloads", "applications", "best_sc_accuracy", "within_5pct_accuracy", "within_10pct_accuracy",
		"rank_exact", "rank_90pct", "rank_50pct", "mean_abs_error", "mean_rel_error", "rank", "fold_in_us",
		"baseline_best_sc_accuracy", "baseline_within_5pct_accuracy", "baseline_within_10pct_accuracy", "baseline_mean_abs_error",
		"random_profile_best_sc_accuracy", "random_profile_within_5pct_accuracy", "random_profile_within_10pct_accuracy"}
	ceiling := []string{"ceiling_best_sc_accuracy", "ceiling_within_5pct_accuracy", "ceiling_within_10pct_accuracy", "ceiling_comparisons"}
	for _, r := range []*ClassifyReport{{}, {Ceiling: &RepeatCeiling{Comparisons: 3}}} {
		want := slices.Clone(base)
		if r.Ceiling != nil {
			want = append(want, ceiling...)
		}
		var got []string
		for _, f := range r.Figures() {
			got = append(got, f.Metric)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("figures %v, want %v", got, want)
		}
	}
}

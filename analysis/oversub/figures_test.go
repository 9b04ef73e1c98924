package oversub

import (
	"slices"
	"testing"
)

// TestFigureNames: the figures an arm stores are the ones the views and
// the experiments read by name (the hand-written list they replaced).
func TestFigureNames(t *testing.T) {
	want := []string{"vms", "failures", "failure_pct", "readings", "readings_over_100", "mean_util_pct", "p99_util_pct",
		"oversubscribed_readings", "non_production_requests", "confident_predictions", "correct_predictions",
		"packing_density_mean_pct", "max_oversub", "max_util", "in_sample_requests"}
	var got []string
	for _, f := range (&Result{}).Figures() {
		got = append(got, f.Metric)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
}

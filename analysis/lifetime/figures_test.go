package lifetime

import (
	"fmt"
	"placelab/optimizer"
	"slices"
	"testing"
)

// TestFigureNames: the figures an arm stores are the ones the views and
// the experiments read by name (the hand-written list they replaced).
func TestFigureNames(t *testing.T) {
	want := []string{"machines", "vms", "rejected", "rejection_rate_pct", "empty_machines_time_mean",
		"packing_density_mean_pct", "window_from_s", "window_to_s", "stranded_cores_pct_mean", "stranded_memory_pct_mean",
		"predicted_vms", "correct_vms", "coverage_pct", "accuracy_pct", "censored_vms", "replay_seconds",
	}
	for b := range optimizer.NumLifetimeBuckets {
		want = append(want, fmt.Sprintf("true_bucket_%d", b))
	}
	r := &Result{}
	r.TrueBuckets[2] = 5
	var got []string
	for _, f := range r.Figures() {
		got = append(got, f.Metric)
		if f.Metric == "true_bucket_2" && f.Value != 5 {
			t.Errorf("true_bucket_2 = %v, want 5", f.Value)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
}

package analysis_test

import (
	"encoding/json"
	"placelab/analysis"
	"testing"
)

// TestRangeOf: the median of an even count is the mean of the two middle
// values (the lifetime arms' medians over 4 seeds used the upper one), an
// odd count's the middle one; no values give NaN, written as JSON null.
func TestRangeOf(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want analysis.Range
	}{
		{[]float64{5}, analysis.Range{5, 5, 5}},
		{[]float64{3, 1, 2}, analysis.Range{2, 1, 3}},
		{[]float64{4, 1, 3, 2}, analysis.Range{2.5, 1, 4}},
	} {
		if got := analysis.RangeOf(tc.xs); got != tc.want {
			t.Errorf("analysis.RangeOf(%v) = %+v, want %+v", tc.xs, got, tc.want)
		}
	}
	if b, err := json.Marshal(analysis.RangeOf(nil)); err != nil || string(b) != "null" {
		t.Errorf("analysis.RangeOf(nil) as JSON: %s, %v; want null", b, err)
	}
}

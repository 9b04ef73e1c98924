package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"placelab/datasets/synth"
	"placelab/predict"
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
	db := memDB(t)
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
	arms := []string{"off", "oracle", "model", "nilas", "lava", "nilas-oracle", "lava-oracle"}
	o := LifetimeCompareOptions{Arms: arms, Seeds: []uint64{1, 2}, From: math.Inf(-1), To: math.Inf(1), Version: "test"}
	cmp, err := LifetimeCompare(ctx, db, "s", o)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.InSample || !(cmp.Cut > 0) || cmp.From < cmp.Cut || len(cmp.Results) != len(arms)*2 || len(cmp.Arms) != len(arms) {
		t.Fatalf("comparison: cut %v, from %v, in sample %v, %d results, %d arms", cmp.Cut, cmp.From, cmp.InSample, len(cmp.Results), len(cmp.Arms))
	}
	by := map[string]LifetimeArmSummary{}
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
	// A window before the cut is refused, unless in-sample is asked for.
	o.From = 0
	if _, err := LifetimeCompare(ctx, db, "s", o); !errors.Is(err, ErrBadSpec) || !strings.Contains(err.Error(), "in sample") {
		t.Fatalf("window before the cut: %v", err)
	}
	o.InSample, o.Arms, o.Seeds = true, []string{"off", "nilas"}, []uint64{1}
	cmp, err = LifetimeCompare(ctx, db, "s", o)
	if err != nil || !cmp.InSample {
		t.Fatalf("in-sample run: %v (in sample %v)", err, cmp != nil && cmp.InSample)
	}
	// Zero seeds and a repeated arm are errors.
	for _, bad := range []LifetimeCompareOptions{{Arms: []string{"off"}}, {Arms: []string{"off", "off"}, Seeds: []uint64{1}}} {
		bad.From, bad.To = math.Inf(-1), math.Inf(1)
		if _, err := LifetimeCompare(ctx, db, "s", bad); !errors.Is(err, ErrBadSpec) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestRangeOf: the median of an even count is the mean of the two middle
// values (the lifetime arms' medians over 4 seeds used the upper one), an
// odd count's the middle one; no values give NaN, written as JSON null.
func TestRangeOf(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want Range
	}{
		{[]float64{5}, Range{5, 5, 5}},
		{[]float64{3, 1, 2}, Range{2, 1, 3}},
		{[]float64{4, 1, 3, 2}, Range{2.5, 1, 4}},
	} {
		if got := RangeOf(tc.xs); got != tc.want {
			t.Errorf("RangeOf(%v) = %+v, want %+v", tc.xs, got, tc.want)
		}
	}
	if b, err := json.Marshal(RangeOf(nil)); err != nil || string(b) != "null" {
		t.Errorf("RangeOf(nil) as JSON: %s, %v; want null", b, err)
	}
}

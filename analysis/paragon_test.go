package analysis

import (
	"context"
	"errors"
	"testing"

	"placelab/datasets"
	"placelab/internal/shareddata"
)

// TestParagonOnLumos learns the real Lumos matrix (run times of 67 workloads
// on 55 VM types) fold by fold and classifies each held-out workload from
// two measurements: the result is reproducible, every fully measured
// workload is evaluated, and revealing more measurements lowers the error.
//
// Paragon's claim, that a few profiles and the matrix of known apps
// predict a new app's performance on every platform (Table 1), is asserted
// against the platform-mean baseline (each platform's mean score over the
// training apps, no fold-in) where it holds on this data: leaving one
// workload out at a time — its other data sizes stay in training — the
// fold-in's predictions from two measurements have a lower mean absolute
// and mean relative error than the platform means, for each of three
// seeds. Picking the best platform (best SC, within 5% of the best) does
// not beat the platform means here (measured: 17–26% and 65–76% against
// 22% and 72%), nor does anything with a single measurement, so those are
// logged, not asserted; issue 19 reports fold-in losing on a new family.
func TestParagonOnLumos(t *testing.T) {
	p := shareddata.Path(t, "lumos-cloud-perf/lumos_runs.csv")
	ctx := context.Background()
	db := memDB(t)
	if _, err := EvaluateClassification(ctx, db, "lumos", "lumos", ClassifyOptions{Known: 2}); !errors.Is(err, ErrNoMatrix) {
		t.Fatalf("empty database: %v", err)
	}
	if _, err := datasets.Ingest(ctx, db, "lumos", []string{p}, datasets.Options{Dataset: "lumos"}); err != nil {
		t.Fatal(err)
	}
	two, err := EvaluateClassification(ctx, db, "lumos", "lumos", ClassifyOptions{Known: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := EvaluateClassification(ctx, db, "lumos", "lumos", ClassifyOptions{Known: 2, Seed: 1})
	if two.HeterogeneityMetrics != again.HeterogeneityMetrics {
		t.Errorf("not reproducible:\n%+v\n%+v", two.HeterogeneityMetrics, again.HeterogeneityMetrics)
	}
	five, err := EvaluateClassification(ctx, db, "lumos", "lumos", ClassifyOptions{Known: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if two.Workloads < 50 || two.Columns != 55 {
		t.Errorf("%d workloads on %d platforms", two.Workloads, two.Columns)
	}
	if five.MeanAbsError >= two.MeanAbsError {
		t.Errorf("mean abs error with 5 known %.4f, with 2 %.4f", five.MeanAbsError, two.MeanAbsError)
	}
	t.Logf("2 known: %+v\nbaseline: %+v\n5 known: %+v", two.HeterogeneityMetrics, two.Baseline, five.HeterogeneityMetrics)

	m, err := LoadAppMatrix(ctx, db, "lumos")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		loo, err := EvaluateClassification(ctx, db, "lumos", "lumos", ClassifyOptions{Known: 2, Seed: seed, LeaveOneOut: true})
		if err != nil {
			t.Fatal(err)
		}
		h, b := loo.HeterogeneityMetrics, loo.Baseline
		t.Logf("leave-one-out, 2 known, seed %d: %d workloads; mean abs error %.4f (platform means %.4f), mean rel error %.4f (%.4f); best SC %.3f (%.3f), within 5%% %.3f (%.3f)",
			seed, h.Workloads, h.MeanAbsError, b.MeanAbsError, h.MeanRelError, b.MeanRelError, h.BestSC, b.BestSC, h.Within5, b.Within5)
		if loo.Folds != len(m.Apps) {
			t.Errorf("leave-one-out ran %d folds for %d apps", loo.Folds, len(m.Apps))
		}
		if h.Workloads != two.Workloads {
			t.Errorf("leave-one-out evaluated %d workloads, the folds %d", h.Workloads, two.Workloads)
		}
		if !(h.MeanAbsError < b.MeanAbsError) || !(h.MeanRelError < b.MeanRelError) {
			t.Errorf("seed %d: fold-in mean abs error %.4f, rel %.4f; platform means %.4f, %.4f: want the fold-in lower",
				seed, h.MeanAbsError, h.MeanRelError, b.MeanAbsError, b.MeanRelError)
		}
	}
	if _, err := EvaluateClassification(ctx, db, "lumos", "other", ClassifyOptions{Known: 2, LeaveOneOut: true}); err == nil {
		t.Error("leave-one-out across two datasets accepted")
	}
}

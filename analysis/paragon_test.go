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
}

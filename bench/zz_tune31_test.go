package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"placelab/analysis/replay"
	"placelab/optimizer"
)

// temporary tuning harness for issue 31 (removed before the end)
func TestZZTune31(t *testing.T) {
	if os.Getenv("TUNE31") == "" {
		t.Skip()
	}
	ctx := context.Background()
	tr, err := BenchZone(ctx, 30000, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newBenchWorkload(tr, 20000)
	if err != nil {
		t.Fatal(err)
	}
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	for rep := 0; rep < 3; rep++ {
		run, err := w.start(cfg, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		a, err := run.timed(ctx, w.stop)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("age %d: wall %.3f refresh %.3f release %.3f decision %.3f cost %.2fus p50 %.2f p99 %.2f cells %d hash %x", optimizer.RefreshAge, a.WallSeconds, a.RefreshSeconds, a.ReleaseSeconds, a.DecisionSeconds, a.CostPerPlacementUS, a.DecisionLatencyP50US, a.DecisionLatencyP99US, a.RefreshedCells, a.decisions)
	}
}

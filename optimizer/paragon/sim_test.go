package paragon

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestSimulatorOrdering: on the high scenario (a tenth of the default
// cluster: 100 servers, 550 applications with the memory-bound burst),
// Paragon keeps QoS for more applications than NH, NI and random, with
// the same seeded arrivals and classifications.
func TestSimulatorOrdering(t *testing.T) {
	cfg, err := Scenario(ScenarioHigh)
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.Scaled(0.1)
	rs, err := SimulateAll(context.Background(), cfg, Policies)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Result{}
	for _, r := range rs {
		byName[r.Policy] = r
		t.Logf("%-7s qos %.3f perf %.3f", r.Policy, r.QoSShare, r.MeanNormalizedPerf)
		if r.Apps != cfg.Apps+cfg.Burst {
			t.Errorf("%s: %d applications, want %d", r.Policy, r.Apps, cfg.Apps+cfg.Burst)
		}
	}
	p := byName[PolicyParagon]
	for _, other := range []string{PolicyNH, PolicyNI, PolicyRandom} {
		if p.QoSShare < byName[other].QoSShare {
			t.Errorf("paragon QoS share %.3f < %s %.3f", p.QoSShare, other, byName[other].QoSShare)
		}
		if p.MeanNormalizedPerf < byName[other].MeanNormalizedPerf {
			t.Errorf("paragon mean performance %.3f < %s %.3f", p.MeanNormalizedPerf, other, byName[other].MeanNormalizedPerf)
		}
	}
}

func TestSimulateDeterministic(t *testing.T) {
	cfg, _ := Scenario(ScenarioLow)
	cfg = cfg.Scaled(0.04)
	cfg.Outcomes = true
	run := func() []byte {
		r, err := Simulate(context.Background(), cfg, PolicyParagon)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := run(), run()
	if string(a) != string(b) {
		t.Fatal("same seed, different results")
	}
	var back map[string]any
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"qos_share", "mean_normalized_perf", "heterogeneity_quality", "outcomes"} {
		if _, ok := back[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
}

func TestSimulateNames(t *testing.T) {
	if _, err := Scenario("medium"); !errors.Is(err, ErrUnknownName) {
		t.Errorf("Scenario(medium): %v", err)
	}
	cfg, _ := Scenario(ScenarioLow)
	if _, err := Simulate(context.Background(), cfg, "best-fit"); !errors.Is(err, ErrUnknownName) {
		t.Errorf("policy best-fit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, cfg.Scaled(0.02), PolicyRandom); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

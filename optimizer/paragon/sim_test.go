package paragon

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// TestSimulatorOrdering: on the low scenario (a tenth of the default
// cluster: 100 servers, 250 applications), over seeds 1–5 with the same
// seeded arrivals and classifications for every policy, the oracle keeps
// QoS for at least as many applications as Paragon in the median, Paragon
// for more than NH and random, and every result counts every application.
func TestSimulatorOrdering(t *testing.T) {
	cfg, err := Scenario(ScenarioLow)
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.Scaled(0.1)
	seeds, _ := Seeds(1, DefaultSeeds)
	s, err := SimulateSeeds(context.Background(), cfg, Policies, seeds, true)
	if err != nil {
		t.Fatal(err)
	}
	med := map[string]float64{}
	for _, p := range s.Policies {
		med[p.Policy] = p.QoSShare.Median
		t.Logf("%-7s qos %.3f [%.3f, %.3f]", p.Policy, p.QoSShare.Median, p.QoSShare.Min, p.QoSShare.Max)
	}
	for _, r := range s.Runs {
		if r.Apps != cfg.Apps+cfg.Burst {
			t.Errorf("%s seed %d: %d applications, want %d", r.Policy, r.Seed, r.Apps, cfg.Apps+cfg.Burst)
		}
		if k := r.Knows; (r.Policy == PolicyOracle) != (k.TruePlatform && k.TrueInterference) {
			t.Errorf("%s: knows %+v", r.Policy, k)
		}
	}
	if med[PolicyOracle] < med[PolicyParagon] {
		t.Errorf("oracle median QoS %.3f < paragon %.3f", med[PolicyOracle], med[PolicyParagon])
	}
	for _, other := range []string{PolicyNH, PolicyRandom} {
		if med[PolicyParagon] <= med[other] {
			t.Errorf("paragon median QoS %.3f ≤ %s %.3f", med[PolicyParagon], other, med[other])
		}
	}
}

// TestSimulateSeedsReproducible: the same seeds give byte-identical
// summaries; another first seed gives another.
func TestSimulateSeedsReproducible(t *testing.T) {
	cfg, _ := Scenario(ScenarioBurst)
	run := func(first uint64) []byte {
		seeds, _ := Seeds(first, 2)
		s, err := SimulateSeeds(context.Background(), cfg, append(append([]string{}, Policies...), DiagnosticPolicies...), seeds, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.Gap == nil || len(s.Policies) != len(Policies)+len(DiagnosticPolicies) {
			t.Fatalf("summary without gap or policies: %+v", s)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := run(1), run(1)
	if string(a) != string(b) {
		t.Fatal("same seeds, different summaries")
	}
	if string(a) == string(run(3)) {
		t.Fatal("different seeds, same summary")
	}
	if _, err := SimulateSeeds(context.Background(), cfg, Policies, nil, false); !errors.Is(err, ErrBadOptions) {
		t.Errorf("no seeds: %v", err)
	}
}

// TestScenarioOptionsRefused: unknown D1 rules, interference models and
// non-finite loads are refused before anything runs.
func TestScenarioOptionsRefused(t *testing.T) {
	for name, mut := range map[string]func(*ScenarioConfig){
		"d1":           func(c *ScenarioConfig) { c.D1 = "max" },
		"interference": func(c *ScenarioConfig) { c.Interference = "sum" },
		"load":         func(c *ScenarioConfig) { c.Load = math.Inf(1) },
		"configs":      func(c *ScenarioConfig) { c.Configs = maxConfigs + 1 },
	} {
		cfg, _ := Scenario(ScenarioBurst)
		mut(&cfg)
		if _, err := Simulate(context.Background(), cfg, PolicyParagon); err == nil {
			t.Errorf("%s: no error", name)
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

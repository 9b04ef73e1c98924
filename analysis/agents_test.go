package analysis_test

import (
	"context"
	"os"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"reflect"
	"testing"

	"placelab/optimizer"
)

func agentCfg(tr *replay.Trace) optimizer.Config {
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	cfg.Explain = false
	return cfg
}

// checkOutcomes: every VM ends placed, rejected or evicted exactly once, and
// every placed VM is where the authoritative state says.
func checkOutcomes(t *testing.T, tr *replay.Trace, res *replay.Result) {
	t.Helper()
	seen := map[int64]bool{}
	for _, p := range res.Placements {
		if seen[p.VM] {
			t.Fatalf("VM %d has two outcomes", p.VM)
		}
		seen[p.VM] = true
		if p.Outcome == "placed" && p.Machine < 0 || p.Outcome == "rejected" && p.Reason == "" {
			t.Fatalf("bad row %+v", p)
		}
	}
	if len(seen) != len(tr.VMs) {
		t.Fatalf("%d outcomes for %d VMs", len(seen), len(tr.VMs))
	}
	s := res.Summary
	if s.Accepted+s.Rejected != s.VMs {
		t.Fatalf("summary %+v", s)
	}
}

func TestAgentsSimulatedTimeIsDeterministic(t *testing.T) {
	tr := testkit.SynthTrace(t, 200, 4000, 1)
	opt := replay.DefaultAgentOptions()
	opt.Agents, opt.Speedup, opt.CheckEvery = 8, 200, true
	run := func() *replay.Result {
		res, err := replay.ReplayAgents(context.Background(), tr, agentCfg(tr), opt)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcomes(t, tr, res)
		return res
	}
	a, b := run(), run()
	type key struct {
		m, agent, retries int
		out               string
		lat               float64
	}
	keys := func(r *replay.Result) []key {
		var out []key
		for _, p := range r.Placements {
			// Decision latency is wall-clock time; the simulated response
			// time is what the seed determines.
			out = append(out, key{int(p.Machine), p.Agent, p.Retries, p.Outcome, p.ResponseS})
		}
		return out
	}
	if !reflect.DeepEqual(keys(a), keys(b)) || a.Summary.Conflicts != b.Summary.Conflicts {
		t.Fatal("same seed and simulated time, different results")
	}
	if a.Summary.Conflicts == 0 {
		t.Fatal("8 agents at 200x produced no conflicts: staleness is not exercised")
	}
}

// TestAgentsConcurrent runs 8 goroutine agents under -race with the
// authoritative invariants (capacity in every dimension, isolation, fault
// domains) checked after every commit. PLACELAB_LONG raises the placements
// past 10^6 over the suite.
func TestAgentsConcurrent(t *testing.T) {
	machines, vms, rounds := 300, 6000, 1
	if os.Getenv("PLACELAB_LONG") != "" {
		machines, vms, rounds = 2000, 100000, 11
	}
	tr := testkit.SynthTrace(t, machines, vms, 2)
	total := 0
	for r := 0; r < rounds; r++ {
		opt := replay.DefaultAgentOptions()
		opt.Agents, opt.TimeModel, opt.CheckEvery = 8, replay.TimeReal, rounds == 1
		res, err := replay.ReplayAgents(context.Background(), tr, agentCfg(tr), opt)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcomes(t, tr, res)
		total += res.Summary.Accepted
	}
	t.Logf("%d placements by 8 concurrent agents", total)
}

// TestConflictAvoidance: at a high speed-up with many agents, the
// avoidance scheme activates and does not raise conflicts.
func TestConflictAvoidance(t *testing.T) {
	tr := testkit.SynthTrace(t, 200, 4000, 1)
	run := func(avoid bool) *replay.Result {
		opt := replay.DefaultAgentOptions()
		opt.Agents, opt.Speedup, opt.Avoid = 16, 1000, avoid
		res, err := replay.ReplayAgents(context.Background(), tr, agentCfg(tr), opt)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	on, off := run(true), run(false)
	if on.Summary.AvoidanceActivations == 0 || off.Summary.AvoidanceActivations != 0 {
		t.Fatalf("activations on %d off %d", on.Summary.AvoidanceActivations, off.Summary.AvoidanceActivations)
	}
	if on.Summary.Conflicts > off.Summary.Conflicts {
		t.Fatalf("conflicts with avoidance %d > without %d", on.Summary.Conflicts, off.Summary.Conflicts)
	}
	t.Logf("conflicts: avoidance on %d, off %d", on.Summary.Conflicts, off.Summary.Conflicts)
}

package replay

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"placelab/optimizer"
)

// postBFTrace: two 1-core VMs of two tenants on availZone(4) (four empty
// 4-core machines, one rack each). Worked out by hand with the default
// rules (PreferNonEmptyMachines, then BestFit): the first VM finds four
// empty machines, all tied after BestFit (4/4); the second finds one
// non-empty machine, the only one left after PreferNonEmptyMachines and
// BestFit (1/4). Post-BestFit = (1 + 1/4) / 2 = 62.5%.
func postBFTrace(t *testing.T) *Trace {
	tr := &Trace{Dataset: "postbf", Inv: availZone(t, 4), MachineIDs: machineIDs(4)}
	for i, at := range []float64{10, 20} {
		tr.VMs = append(tr.VMs, TraceVM{ID: int64(i), Tenant: int32(i), Type: 1, Start: at, End: math.Inf(1)})
	}
	return tr
}

const postBFByHand = 62.5

// TestPostBestFitWithoutExplanations is issue 32 item 3: `replay
// --no-explain` printed post_bestfit_pct 0 where the same run with
// explanations printed the real share, because the share was read from the
// explanations. The engine now counts it on every path; a run that cannot
// measure it (a baseline: no BestFit rule) reports null, never 0.
func TestPostBestFitWithoutExplanations(t *testing.T) {
	ctx := context.Background()
	replayWith := func(t *testing.T, policy string, explain bool) *Result {
		t.Helper()
		cfg := optimizer.DefaultConfig()
		cfg.Explain = explain
		tr := postBFTrace(t)
		alloc, err := NewAllocator(policy, tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Replay(ctx, tr, alloc, DefaultReplayOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Accepted != 2 {
			t.Fatalf("%s: %d of 2 VMs placed, want both (the case needs them ranked)", policy, res.Summary.Accepted)
		}
		return res
	}
	for _, tc := range []struct {
		name    string
		policy  string
		explain bool
		want    float64 // NaN: not measured (null)
	}{
		{"protean, explanations on", "protean", true, postBFByHand},
		{"protean, --no-explain (was 0)", "protean", false, postBFByHand},
		{"bestfit baseline: no BestFit rule ranks, null", "bestfit", true, math.NaN()},
		{"bestfit baseline, --no-explain: null", "bestfit", false, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayWith(t, tc.policy, tc.explain)
			got := res.Summary.PostBestFitPct
			js, err := json.Marshal(res.Summary)
			if err != nil {
				t.Fatal(err)
			}
			stored := metricAt(res, MetricPostBestFitPct)
			if math.IsNaN(tc.want) {
				if got != nil {
					t.Errorf("post_bestfit_pct = %v, want nil (not measured)", *got)
				}
				if !strings.Contains(string(js), `"post_bestfit_pct":null`) {
					t.Errorf("JSON summary has no \"post_bestfit_pct\":null: %s", js)
				}
				if stored != nil {
					t.Errorf("run_metric %s = %v, want no row (NULL)", MetricPostBestFitPct, *stored)
				}
				return
			}
			if got == nil || math.Abs(*got-tc.want) > 1e-9 {
				t.Fatalf("post_bestfit_pct = %v, want %v", fmtPtr(got), tc.want)
			}
			if stored == nil || *stored != *got {
				t.Errorf("run_metric %s = %v, want %v", MetricPostBestFitPct, fmtPtr(stored), *got)
			}
			if tc.explain {
				// The engine's count is the definition read from the records.
				var sum float64
				n := 0
				for _, p := range res.Placements {
					if p.Explain == nil {
						t.Fatalf("VM %d has no explanation with explanations on", p.VM)
					}
					if f, ok := optimizer.PostBestFitOf(p.Explain); ok {
						sum += f
						n++
					}
				}
				if n != 2 || math.Abs(100*sum/float64(n)-*got) > 1e-9 {
					t.Errorf("explanations give %v over %d VMs, the engine %v", 100*sum/float64(n), n, *got)
				}
			}
		})
	}
	t.Run("agents", func(t *testing.T) {
		cfg := optimizer.DefaultConfig()
		cfg.Explain = false
		o := DefaultAgentOptions()
		o.Agents = 1
		res, err := ReplayAgents(ctx, postBFTrace(t), cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Summary.PostBestFitPct; got == nil || math.Abs(*got-postBFByHand) > 1e-9 {
			t.Errorf("one simulated agent: post_bestfit_pct = %v, want %v (was never measured on this path)", fmtPtr(got), postBFByHand)
		}
	})
}

func metricAt(res *Result, name string) *float64 {
	for _, m := range res.Metrics {
		if m.Metric == name {
			v := m.Value
			return &v
		}
	}
	return nil
}

func fmtPtr(v *float64) any {
	if v == nil {
		return "nil"
	}
	return *v
}

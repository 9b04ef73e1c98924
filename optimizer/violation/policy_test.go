package violation

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// handCluster has one tenant per node (its usage is the node's load), so
// that W_Sum's weights are computable by hand. Node 3 cannot take a demand
// of 1 CPU.
func handCluster(loads ...Vec) *Cluster {
	c := &Cluster{Capacity: Vec{10, 10, 10}, Threshold: Vec{1, 1, 1}}
	for i, l := range loads {
		c.Nodes = append(c.Nodes, Node{Load: l, Tenants: []Tenant{{ID: int64(100 + i), Class: "x", Usage: l}}})
	}
	return c
}

// TestBaselines places a demand of (1, 1, 0) into nodes loaded
// (2,8) (7,2) (4,4.5) (9.5,0) of capacity 10. Node 3 does not fit. By hand,
// after placing: W_Max = 0.9, 0.8, 0.55; W_Sum with w = (22.5/40, 14.5/40)
// = 4.95, 5.5875, 4.80625; Σ_r σ_r = 0.5920, 0.5888, 0.5837; the
// alignment Σ (d/c)·(free/c) = 0.100, 0.110, 0.115.
func TestBaselines(t *testing.T) {
	c := handCluster(Vec{2, 8, 0}, Vec{7, 2, 0}, Vec{4, 4.5, 0}, Vec{9.5, 0, 0})
	req := Request{Tenant: Tenant{ID: 1, Class: "x", Usage: Vec{1, 1, 0}}}
	cases := []struct {
		p    Policy
		want int
	}{
		{NewBestFit(WSum), 1},
		{NewBestFit(WMax), 0},
		{NewWorstFit(WSum), 2},
		{NewWorstFit(WMax), 2},
		{NewMinStdDev(), 2},
		{NewDotProduct(), 2},
	}
	for _, tc := range cases {
		t.Run(tc.p.Name(), func(t *testing.T) {
			if got, ok := tc.p.Place(c, req); !ok || got != tc.want {
				t.Errorf("Place = %d, %v; want %d", got, ok, tc.want)
			}
			big := req
			big.Tenant.Usage = Vec{9, 9, 0}
			if got, ok := tc.p.Place(c, big); ok {
				t.Errorf("a demand no node fits went to node %d", got)
			}
		})
	}
	if _, err := NewPolicy("firstfit", nil, PolicyParams{}); !errors.Is(err, ErrPolicy) {
		t.Errorf("unknown name: %v, want ErrPolicy", err)
	}
	if _, err := NewPolicies([]string{NameBestFit, NameBestFit}, nil, PolicyParams{}); !errors.Is(err, ErrPolicy) {
		t.Errorf("duplicate name: %v, want ErrPolicy", err)
	}
	// Out-of-range parameters are errors, not defaults (0 means default).
	for _, p := range []PolicyParams{{Theta: -0.01}, {Theta: math.NaN()}, {Theta: 1.5}, {MC: MCConfig{Reps: -1}}} {
		if _, err := NewPolicy(NamePrVWorstFit, handRepo(t), p); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", p, err)
		}
	}
	for _, n := range PolicyNames() {
		p, err := NewPolicy(n, handRepo(t), PolicyParams{})
		if err != nil || p.Name() != n {
			t.Errorf("NewPolicy(%q) = %v, %v", n, p, err)
		}
	}
}

// stubProber returns fixed estimates per node (keyed by the ID of the
// node's one tenant) and logs Below calls.
type stubProber struct {
	est   map[int64]Estimate
	calls []int
}

func (s *stubProber) Estimate(ts []Tenant, _ *Tenant, _ Vec, _ uint64) Estimate {
	return s.est[ts[0].ID]
}

func (s *stubProber) Below(ts []Tenant, _ *Tenant, _ Vec, _ uint64, theta float64) bool {
	s.calls = append(s.calls, int(ts[0].ID-100))
	return s.est[ts[0].ID].With < theta
}

func (s *stubProber) WithBelow(ts []Tenant, _ *Tenant, _ Vec, _ uint64, bound float64) (float64, bool) {
	w := s.est[ts[0].ID].With
	return w, w < bound
}

func (s *stubProber) DeltaBelow(ts []Tenant, _ *Tenant, _ Vec, _ uint64, bound float64) (float64, bool) {
	d := s.est[ts[0].ID].Delta
	return d, d < bound
}

// TestPrVAlgorithms walks Algorithms 2 and 3 on five nodes with CPU loads
// 1, 2, 3, 4, 9.5 of 10 and a candidate of 1 CPU (node 4 does not fit), so
// W_Max after placing is 0.2, 0.3, 0.4, 0.5; PrV-WorstFit holds out M = 2
// nodes, the least loaded: 0 and 1. θ = 0.01. Estimates are (With,
// Without) per node 0–3, exact binary fractions so Deltas tie exactly.
func TestPrVAlgorithms(t *testing.T) {
	type est struct{ with, without float64 }
	cases := []struct {
		name   string
		worst  bool
		fb     Fallback
		est    [4]est // With, Without
		node   int
		reason Reason
		cands  []int
		hoc    []int
		// calls are the lazy path's Below calls, in order.
		calls []int
	}{
		{"wf: a node not held out is below θ; held-out nodes are not used",
			true, DefaultFallback, [4]est{{0, 0}, {0, 0}, {0.5, 0}, {0, 0}},
			3, ReasonCandidates, []int{3}, []int{0, 1}, []int{2, 3}},
		{"wf: only held-out nodes are below θ: the least loaded of them (lines 17–18)",
			true, DefaultFallback, [4]est{{0, 0}, {0, 0}, {0.5, 0}, {0.25, 0}},
			0, ReasonHeldOut, nil, []int{0, 1}, []int{2, 3, 0}},
		{"wf min-delta: no node below θ: least Delta, tie to the lower W (line 22)",
			true, FallbackMinDelta, [4]est{{0.5, 0}, {0.75, 0.5}, {1, 0.75}, {0.5, 0}},
			1, ReasonMinDelta, nil, nil, []int{2, 3, 0, 1}},
		{"wf min-delta: no node below θ and every Delta is 1: WorstFit over all feasible nodes",
			true, FallbackMinDelta, [4]est{{1, 0}, {1, 0}, {1, 0}, {1, 0}},
			0, ReasonCertain, nil, nil, []int{2, 3, 0, 1}},
		{"wf min-with: no node below θ: least With, not node 1 whose violation looks likely already; tie to the lower W",
			true, FallbackMinWith, [4]est{{0.5, 0}, {0.75, 0.5}, {1, 0.75}, {0.5, 0}},
			0, ReasonMinWith, nil, nil, []int{2, 3, 0, 1}},
		{"wf min-with: least With wins over a lower W",
			true, FallbackMinWith, [4]est{{0.5, 0}, {0.75, 0.5}, {1, 0.75}, {0.25, 0}},
			3, ReasonMinWith, nil, nil, []int{2, 3, 0, 1}},
		{"wf min-with: every With is 1: WorstFit over all feasible nodes",
			true, FallbackMinWith, [4]est{{1, 0}, {1, 0.5}, {1, 1}, {1, 0}},
			0, ReasonCertain, nil, nil, []int{2, 3, 0, 1}},
		{"bf: BestFit among the nodes below θ (line 14)",
			false, DefaultFallback, [4]est{{0, 0}, {0.5, 0}, {0, 0}, {0.5, 0}},
			2, ReasonCandidates, []int{0, 2}, nil, []int{3, 2}},
		{"bf min-delta: no node below θ: least Delta, tie to the higher W (line 16)",
			false, FallbackMinDelta, [4]est{{0.5, 0}, {0.75, 0.5}, {1, 0.75}, {0.5, 0}},
			2, ReasonMinDelta, nil, nil, []int{3, 2, 1, 0}},
		{"bf min-with: no node below θ: least With, tie to the higher W",
			false, FallbackMinWith, [4]est{{0.5, 0}, {0.75, 0.5}, {1, 0.75}, {0.5, 0}},
			3, ReasonMinWith, nil, nil, []int{3, 2, 1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := handCluster(Vec{CPU: 1}, Vec{CPU: 2}, Vec{CPU: 3}, Vec{CPU: 4}, Vec{CPU: 9.5})
			stub := &stubProber{est: map[int64]Estimate{104: {}}}
			for i, e := range tc.est {
				// Binary fractions: the difference is exact.
				stub.est[int64(100+i)] = Estimate{With: e.with, Without: e.without, Delta: e.with - e.without}
			}
			var p Explainer = NewPrVBestFit(stub, 0.01, WMax).WithFallback(tc.fb)
			if tc.worst {
				p = NewPrVWorstFit(stub, 0.01, 2, WMax).WithFallback(tc.fb)
			}
			req := Request{ID: 7, Tenant: Tenant{ID: 1, Class: "x", Usage: Vec{CPU: 1}}}
			d := p.Explain(c, req)
			if d.Node != tc.node || d.Reason != tc.reason {
				t.Errorf("Explain chose node %d (%s), want %d (%s)", d.Node, d.Reason, tc.node, tc.reason)
			}
			if tc.worst && !slices.Equal(d.HeldOut, []int{0, 1}) {
				t.Errorf("HeldOut = %v, want [0 1]", d.HeldOut)
			}
			if !slices.Equal(d.Candidates, tc.cands) || !slices.Equal(d.HeldOutCandidates, tc.hoc) {
				t.Errorf("Candidates %v, HeldOut_Cand %v; want %v, %v", d.Candidates, d.HeldOutCandidates, tc.cands, tc.hoc)
			}
			if len(d.Estimates) != 4 || d.Estimates[3].Node != 3 {
				t.Errorf("estimates %v, want one per feasible node 0–3", d.Estimates)
			}
			stub.calls = nil
			if got, ok := p.Place(c, req); !ok || got != tc.node {
				t.Errorf("Place = %d, %v; Explain chose %d", got, ok, tc.node)
			}
			if !slices.Equal(stub.calls, tc.calls) {
				t.Errorf("lazy screening tested nodes %v, want %v", stub.calls, tc.calls)
			}
		})
	}
}

// TestPrVWithEstimator: on the hand repository, BestFit would put A next
// to B (node 0, the fuller), but Pr_violation({A, B}) = 1/2 ≥ θ while A
// alone on node 1 never violates.
func TestPrVWithEstimator(t *testing.T) {
	repo := handRepo(t)
	b := handB
	b.Usage = Vec{Disk: 20}
	c := &Cluster{Capacity: Vec{1, 1, 100}, Threshold: Vec{1, 1, 1}, Nodes: []Node{
		{Tenants: []Tenant{b}, Load: b.Usage}, {},
	}}
	p := NewPrVBestFit(NewEstimator(repo, MCConfig{Reps: 400}), 0.01, WMax)
	req := Request{ID: 1, Seed: RequestSeed(1, 1), Tenant: handA}
	if n, _ := NewBestFit(WMax).Place(c, req); n != 0 {
		t.Fatalf("BestFit chose %d; the case needs it to choose node 0", n)
	}
	d := p.Explain(c, req)
	if d.Node != 1 || d.Reason != ReasonCandidates {
		t.Errorf("chose %d (%s), want 1 (candidates)", d.Node, d.Reason)
	}
	if e := d.Estimates[0]; e.With < 0.4 || e.With > 0.6 || e.Without != 0 {
		t.Errorf("node 0 estimate %+v, want about 1/2 with, 0 without", e)
	}
}

// TestLazyEqualsExplain: Place's lazy screening chooses the node Explain's
// full listing chooses, on a warmed-up oversubscribed cluster, for new
// tenants and for tenants with a history (as when failed over).
func TestLazyEqualsExplain(t *testing.T) {
	if testing.Short() {
		t.Skip("warms up a simulated cluster")
	}
	_, pool, c, initial := benchCluster(t, 40, DefaultDensity, 60)
	repo, _ := benchData()
	var old []Tenant
	for i := range c.Nodes {
		old = append(old, c.Nodes[i].Tenants...)
	}
	for _, name := range []string{NamePrVWorstFit, NamePrVBestFit} {
		for _, fb := range Fallbacks() {
			t.Run(name+"/"+string(fb), func(t *testing.T) {
				pol, _ := NewPolicy(name, repo, PolicyParams{MC: MCConfig{Reps: 50}, Fallback: fb})
				ex := pol.(Explainer)
				reasons := map[Reason]int{}
				for i := range 120 {
					cv := &pool[(7*i)%len(pool)]
					tn := Tenant{ID: 1<<40 + int64(i), Class: cv.Class, Usage: initial[cv.Class], Max: cv.Max}
					if i%3 == 0 {
						tn = old[(11*i)%len(old)]
						tn.ID = 1<<41 + int64(i)
					}
					req := Request{ID: int64(i), Seed: RequestSeed(2, int64(i)), Tenant: tn}
					d := ex.Explain(c, req)
					reasons[d.Reason]++
					if n, ok := pol.Place(c, req); n != d.Node || ok != (d.Node >= 0) {
						t.Fatalf("request %d: Place chose %d, Explain %d (%s)", i, n, d.Node, d.Reason)
					}
				}
				if reasons[ReasonCandidates] == 0 || reasons[ReasonMinWith]+reasons[ReasonMinDelta]+reasons[ReasonHeldOut]+reasons[ReasonCertain] == 0 {
					t.Errorf("branches taken %v: the comparison did not cover both screening outcomes", reasons)
				}
			})
		}
	}
}

// viaExplain places with the full listing (every node's full Estimate).
type viaExplain struct{ Explainer }

func (v viaExplain) Place(c *Cluster, req Request) (int, bool) {
	d := v.Explain(c, req)
	return d.Node, d.Node >= 0
}

// TestLazyEqualsExplainInSimulation: a whole simulation gives the same
// counts with lazy screening as with the full listing. It broke once when
// Delta was With − Without in floating point: 0.12 − 0.11 < 0.01, so a
// node whose partial Delta had reached the bound 0.01 could still end
// below it, and early stopping dropped it.
func TestLazyEqualsExplainInSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("two simulations")
	}
	if a, b := (&Estimator{cfg: MCConfig{Reps: 100}}).ratio(12, 11), (&Estimator{cfg: MCConfig{Reps: 100}}).ratio(1, 0); a.Delta != b.Delta {
		t.Errorf("Delta of 12−11 = %v, of 1−0 = %v", a.Delta, b.Delta)
	}
	repo, pool, cfg := smallSim(t)
	cfg.Nodes, cfg.Density, cfg.Hours, cfg.Seeds = 16, 1.2, 72, 1
	lazy, _ := NewPolicy(NamePrVWorstFit, repo, PolicyParams{})
	full, _ := NewPolicy(NamePrVWorstFit, repo, PolicyParams{})
	a, err := Simulate(context.Background(), repo, pool, cfg, []Policy{lazy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Simulate(context.Background(), repo, pool, cfg, []Policy{viaExplain{full.(Explainer)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, y := a.Policies[0].PerSeed[0], b.Policies[0].PerSeed[0]
	x.Seconds, y.Seconds = 0, 0
	if x != y {
		t.Errorf("lazy %+v\nfull %+v", x, y)
	}
	if x.Violations == 0 {
		t.Error("no violations: the run did not reach the Delta branch")
	}
}

package violation

import (
	"math"
	"slices"
	"testing"
)

// prefixRepo is the disk-only class "p" of the prefix-conditioning tests
// (every curve is exactly its §5.3 model):
//
//	p1: L=40, 10→50 over 4 steps      (fast grower)
//	p2: L=40, 20→60 over 16 steps     (slow grower)
//	p3: L=40, 30 flat
//	p4: L=2,  90 flat                 (too short for any tenant below)
//	p5: L=40, 5→30 over 1 step        (plateaued at once)
func prefixRepo(t *testing.T) *Repository {
	return mustRepo(t, []Curve{
		diskCurve("p1", "p", ramp(40, 10, 50, 4)),
		diskCurve("p2", "p", ramp(40, 20, 60, 16)),
		diskCurve("p3", "p", ramp(40, 30, 30, 0)),
		diskCurve("p4", "p", ramp(2, 90, 90, 0)),
		diskCurve("p5", "p", ramp(40, 5, 30, 1)),
	})
}

// observed is a tenant of class "p" that has observed the disk samples.
func observed(id int64, disk ...float64) Tenant {
	t := Tenant{ID: id, Class: "p"}
	for _, d := range disk {
		t.Observe(Vec{Disk: d})
	}
	return t
}

// exactWith is Equation 1 under the estimator's conditioning, by
// enumeration: every assignment of the tenants' eligible curves (as
// Estimator.fill resolves them, drawn as the Monte Carlo loop draws them)
// is checked at every future step.
func exactWith(t *testing.T, e *Estimator, s []Tenant, limit Vec) float64 {
	t.Helper()
	ts := make([]tstate, len(s))
	total := 1
	for k := range s {
		ts[k] = e.fill(&s[k], &pool{}, false, 1)
		if len(ts[k].idx) == 0 {
			t.Fatalf("tenant %d has an empty eligible set", k)
		}
		total *= len(ts[k].idx)
	}
	bad := 0
	ds := make([]draw, len(s))
	for a := range total {
		for k := range ts {
			n := len(ts[k].idx)
			ds[k] = ts[k].draw(&e.repo.recs[ts[k].idx[a%n]])
			a /= n
		}
		if violatesModelAll(ds, limit) {
			bad++
		}
	}
	return float64(bad) / float64(total)
}

// names lists the curve IDs of a tenant's eligible set under e.
func names(e *Estimator, t Tenant) []string {
	ts := e.fill(&t, &pool{}, false, 1)
	var out []string
	for _, i := range ts.idx {
		out = append(out, e.repo.Curve(int(i)).ID)
	}
	slices.Sort(out)
	return out
}

// TestPrefixConditioning: a tenant that has sat at 30 for eight samples
// (disk 25, then 30 ×9; its last rise at sample 1) is not simulated above
// its plateau, while §5.1's max condition simulates it by the curves that
// end at or above 30 — p1 at 50 and p2 at 60 — and puts a limit of 31 at
// 1/2. A young tenant (disk 10, 20: still rising) can still grow, by what
// the class's curves add after its age: p1 +30, p2 +37.5, p3 and p5 +0 on
// top of its 20, so a limit of 45 is reached 1/2 of the time, and a limit
// of 25 also 1/2 (the max condition replays p3 and p5 at 30, so 1); a cap
// of 40 stops the growth below 45.
func TestPrefixConditioning(t *testing.T) {
	repo := prefixRepo(t)
	pre := NewEstimator(repo, MCConfig{Reps: 4000})
	max := NewEstimator(repo, MCConfig{Reps: 4000, Condition: ConditionMax})
	if pre.Config().Condition != ConditionPrefix || DefaultConditioning != ConditionPrefix {
		t.Fatalf("default conditioning %q", pre.Config().Condition)
	}
	flat := observed(1, 25, 30, 30, 30, 30, 30, 30, 30, 30, 30)
	if flat.Age != 10 || flat.RiseAge[Disk] != 2 || flat.ObservedMax[Disk] != 30 {
		t.Fatalf("Observe: age %d, rise age %d, max %v; want 10, 2, 30", flat.Age, flat.RiseAge[Disk], flat.ObservedMax[Disk])
	}
	young := observed(2, 10, 20)
	if young.RiseAge[Disk] != 2 {
		t.Fatalf("young tenant's rise age %d, want 2", young.RiseAge[Disk])
	}
	capped := young
	capped.Max = Vec{Disk: 40}
	for _, c := range []struct {
		name     string
		e        *Estimator
		t        Tenant
		limit    float64
		eligible []string
		want     float64
	}{
		{"plateaued, prefix", pre, flat, 31, []string{"p3", "p5"}, 0},
		{"plateaued, §5.1 max", max, flat, 31, []string{"p1", "p2", "p3", "p5"}, 0.5},
		{"young, prefix, limit 45", pre, young, 45, []string{"p1", "p2", "p3", "p5"}, 0.5},
		{"young, prefix, limit 25", pre, young, 25, []string{"p1", "p2", "p3", "p5"}, 0.5},
		{"young, §5.1 max, limit 25", max, young, 25, []string{"p1", "p2", "p3", "p5"}, 1},
		{"young, capped at 40, limit 45", pre, capped, 45, []string{"p1", "p2", "p3", "p5"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			limit := Vec{CPU: math.Inf(1), Memory: math.Inf(1), Disk: c.limit}
			if got := names(c.e, c.t); !slices.Equal(got, c.eligible) {
				t.Errorf("eligible %v, want %v", got, c.eligible)
			}
			if got := exactWith(t, c.e, []Tenant{c.t}, limit); got != c.want {
				t.Errorf("Equation 1 by enumeration = %v, want %v", got, c.want)
			}
			est := c.e.Estimate([]Tenant{c.t}, nil, limit, RequestSeed(3, 1))
			if tol := 4 * math.Sqrt(0.25/4000); math.Abs(est.With-c.want) > tol {
				t.Errorf("Estimate = %v, want %v ± %.3f", est.With, c.want, tol)
			}
		})
	}
}

// TestMinWithExact: with no node below θ, FallbackMinWith places the new
// tenant where Pr_violation(S_n ∪ {db}) is least, checked against Equation
// 1 by enumeration on three nodes of prefix-conditioned tenants (limit 85):
//
//	node 0: young + two plateaued at 30   with 1,   without 1/2, Delta 1/2
//	node 1: plateaued + young             with 4/5, without 1/4, Delta 0.55
//	node 2: two young                     with 9/10, without 1/4, Delta 0.65
//
// min-with picks node 1; min-delta (Algorithms 2–3) picks node 0, whose
// violation is an even chance already and certain with the tenant. The
// lazy path (Place) and the full listing (Explain) agree under both rules.
func TestMinWithExact(t *testing.T) {
	repo := prefixRepo(t)
	limit := Vec{CPU: math.Inf(1), Memory: math.Inf(1), Disk: 85}
	nodes := [][]Tenant{
		{observed(10, 10, 20), observed(11, 30, 30, 30, 30, 30), observed(12, 30, 30, 30)},
		{observed(13, 25, 30, 30, 30, 30), observed(14, 10, 20)},
		{observed(15, 10, 20), observed(16, 10, 20)},
	}
	c := &Cluster{Capacity: Vec{1, 1, 100}, Threshold: Vec{1, 1, 0.85}}
	for _, ts := range nodes {
		c.Nodes = append(c.Nodes, Node{Tenants: ts, Load: loadOf(ts)})
	}
	req := Request{ID: 1, Seed: RequestSeed(5, 1), Tenant: Tenant{ID: 99, Class: "p", Usage: Vec{Disk: 1}}}
	e := NewEstimator(repo, MCConfig{Reps: 4000})
	var with, without []float64
	for _, ts := range nodes {
		with = append(with, exactWith(t, e, append(slices.Clone(ts), req.Tenant), limit))
		without = append(without, exactWith(t, e, ts, limit))
	}
	best := 0
	for n := range with {
		if with[n] < with[best] {
			best = n
		}
	}
	t.Logf("exact Pr with %v, without %v", with, without)
	if want := []float64{1, 0.8, 0.9}; !slices.Equal(with, want) || !slices.Equal(without, []float64{0.5, 0.25, 0.25}) {
		t.Fatalf("exact With %v, Without %v; the case is built for With %v, Without [0.5 0.25 0.25]", with, without, want)
	}
	if slices.Min(with) < 0.01 || slices.Contains(with[:best], with[best]) || slices.Contains(with[best+1:], with[best]) {
		t.Fatalf("the case needs every node over θ and one least With: %v", with)
	}
	for _, fb := range Fallbacks() {
		p := NewPrVWorstFit(NewEstimator(repo, MCConfig{Reps: 4000}), 0.01, 0, WMax).WithFallback(fb)
		d := p.Explain(c, req)
		if n, _ := p.Place(c, req); n != d.Node {
			t.Errorf("%s: Place chose %d, Explain %d", fb, n, d.Node)
		}
		switch fb {
		case FallbackMinWith:
			if d.Node != best || d.Reason != ReasonMinWith {
				t.Errorf("min-with chose %d (%s), want %d: exact With %v", d.Node, d.Reason, best, with)
			}
		case FallbackMinDelta:
			if d.Node != 0 || d.Reason != ReasonMinDelta {
				t.Errorf("min-delta chose %d (%s), want 0: exact Delta %v − %v", d.Node, d.Reason, with, without)
			}
		}
	}
}

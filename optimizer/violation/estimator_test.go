package violation

import (
	"math"
	"slices"
	"testing"
)

// handRepo is the 2-tenant case of TestProbViolationByHand. Disk only; the
// limit is 100.
//
//	class a (tenant A, new):       a1: L=20, 0→60 over 10 steps
//	                               a2: L=5,  30 flat
//	                               a3: L=40, 90 flat
//	class b (tenant B, age 5,      b1: L=30, 10→50 over 10 steps  eligible
//	         observed max 20):     b2: L=8,  45 flat              eligible
//	                               b3: L=50, 15 flat              max 15 < 20
//	                               b4: L=5,  70 flat              L = 5 ≤ age
func handRepo(t *testing.T) *Repository {
	return mustRepo(t, []Curve{
		diskCurve("a1", "a", ramp(20, 0, 60, 10)),
		diskCurve("a2", "a", ramp(5, 30, 30, 0)),
		diskCurve("a3", "a", ramp(40, 90, 90, 0)),
		diskCurve("b1", "b", ramp(30, 10, 50, 10)),
		diskCurve("b2", "b", ramp(8, 45, 45, 0)),
		diskCurve("b3", "b", ramp(50, 15, 15, 0)),
		diskCurve("b4", "b", ramp(5, 70, 70, 0)),
	})
}

var (
	handA     = Tenant{ID: 1, Class: "a"}
	handB     = Tenant{ID: 2, Class: "b", Age: 5, ObservedMax: Vec{Disk: 20}}
	handLimit = Vec{CPU: 1, Memory: 1, Disk: 100}
)

// TestProbViolationByHand: B reads b1 at δ = 5+t, i.e. 30+4t then 50 from
// t = 5, until t = 24; or b2 = 45 until t = 2. A reads a1 = 6t then 60 until
// t = 19, a2 = 30 until t = 4, or a3 = 90 until t = 39. Of the 3×2 pairs:
//
//	(a1,b1) t=19: 60+50 = 110 ≥ 100  violation
//	(a1,b2) t=2:  12+45 = 57, then a1 alone ≤ 60
//	(a2,b1) t=4:  30+46 = 76, then b1 alone ≤ 50
//	(a2,b2) t=2:  30+45 = 75
//	(a3,b1) t=24: 90+50 = 140        violation
//	(a3,b2) t=2:  90+45 = 135        violation
//
// so Pr_violation({A, B}) = 3/6 and Pr_violation({B}) = 0.
func TestProbViolationByHand(t *testing.T) {
	repo := handRepo(t)
	if got, want := repo.Eligible("a", 0, Vec{}), []int{2, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("𝒟(A) = %v, want %v (by lifetime descending)", got, want)
	}
	if got, want := repo.Eligible("b", 5, Vec{Disk: 20}), []int{3, 4}; !slices.Equal(got, want) {
		t.Errorf("𝒟(B) = %v, want %v", got, want)
	}
	if got := exactProb(t, repo, []Tenant{handA, handB}, handLimit); got != 0.5 {
		t.Errorf("Equation 1 by enumeration = %v, want 1/2", got)
	}
	const reps = 40000
	e := NewEstimator(repo, MCConfig{Reps: reps, Condition: ConditionMax})
	est := e.Estimate([]Tenant{handB}, &handA, handLimit, RequestSeed(7, 1))
	// 4 standard errors of a proportion 1/2 over reps draws.
	tol := 4 * math.Sqrt(0.25/reps)
	if math.Abs(est.With-0.5) > tol || est.Without != 0 {
		t.Errorf("Estimate = %+v, want With 1/2 ± %.3f, Without 0", est, tol)
	}
	full := NewEstimator(repo, MCConfig{Reps: reps, Full: true, Condition: ConditionMax}).Estimate([]Tenant{handB}, &handA, handLimit, RequestSeed(7, 1))
	if full != est {
		t.Errorf("full curves %+v differ from models %+v on curves the models fit exactly", full, est)
	}
	p := ProbViolation(repo, []Tenant{handA, handB}, handLimit, RequestSeed(7, 1), 100)
	if p != ProbViolation(repo, []Tenant{handB, handA}, handLimit, RequestSeed(7, 1), 100) {
		t.Error("ProbViolation depends on the order of S")
	}
	if math.Abs(p-0.5) > 4*math.Sqrt(0.25/100) {
		t.Errorf("ProbViolation with 100 reps = %v, far from 1/2", p)
	}
}

// TestRelaxation: an unmatched condition is dropped in the documented
// order, and counted.
func TestRelaxation(t *testing.T) {
	repo := handRepo(t)
	limit := handLimit
	cases := []struct {
		name  string
		t     Tenant
		level int
	}{
		{"exact", Tenant{ID: 1, Class: "b", Age: 5, ObservedMax: Vec{Disk: 20}}, levelExact},
		{"max above every curve drops the max condition", Tenant{ID: 1, Class: "b", Age: 5, ObservedMax: Vec{Disk: 99}}, levelNoMax},
		{"age beyond the class drops the class", Tenant{ID: 1, Class: "a", Age: 45}, levelAnyClass},
		{"unknown class uses every class", Tenant{ID: 1, Class: "zz"}, levelAnyClass},
		{"older than every curve is left out", Tenant{ID: 1, Class: "b", Age: 50}, levelNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEstimator(repo, MCConfig{Reps: 10, Condition: ConditionMax})
			e.Estimate([]Tenant{c.t}, nil, limit, 1)
			for l := range numLevels - 1 {
				want := int64(0)
				if l+1 == c.level {
					want = 1
				}
				if e.Stats.Relaxed[l] != want {
					t.Errorf("Relaxed = %v, want level %d", e.Stats.Relaxed, c.level)
				}
			}
		})
	}
}

// TestCommonRandomNumbers: the candidate's draws do not depend on the node,
// so a node with more load never looks safer than the same node with less.
func TestCommonRandomNumbers(t *testing.T) {
	repo := mustRepo(t, Synthetic(3, 600))
	e := NewEstimator(repo, MCConfig{})
	cand := Tenant{ID: 1000, Class: "gp-8"}
	limit := Vec{CPU: 76, Memory: 388, Disk: 4864}
	var s []Tenant
	prev := Estimate{}
	between := 0
	for k := range 30 {
		s = append(s, Tenant{ID: int64(k), Class: repo.curves[k].Class, Age: k * 7})
		est := e.Estimate(s, &cand, limit, 99)
		if est.With < prev.With || est.Without < prev.Without || est.Without > est.With {
			t.Fatalf("|S| = %d: %+v after %+v; adding a tenant lowered an estimate", len(s), est, prev)
		}
		prev = est
		if est.With > 0 && est.With < 1 {
			between++
		}
	}
	if between < 3 {
		t.Fatalf("only %d of 30 estimates strictly between 0 and 1: the test checks nothing", between)
	}
}

// TestCacheIsALayer: a tenant's eligible set narrows as it ages and its
// observed maximum grows; the cached path gives the same estimates, bit for
// bit, as rebuilding every set from the index.
func TestCacheIsALayer(t *testing.T) {
	repo := mustRepo(t, Synthetic(4, 800))
	for _, cond := range Conditionings() {
		on := NewEstimator(repo, MCConfig{Condition: cond})
		off := NewEstimator(repo, MCConfig{NoCache: true, Condition: cond})
		limit := Vec{CPU: 76, Memory: 388, Disk: 4864}
		s := make([]Tenant, 20)
		for k := range s {
			s[k] = Tenant{ID: int64(k), Class: repo.curves[k].Class, Max: repo.curves[k].Max}
		}
		plateaued := 0
		for step := range 200 {
			for k := range s {
				c := &repo.curves[k]
				if s[k].Age < c.Lifetime()-1 {
					s[k].Observe(Vec{c.At(CPU, s[k].Age), c.At(Memory, s[k].Age), c.At(Disk, s[k].Age)})
				}
				if s[k].Age-s[k].RiseAge[Disk] > 20 {
					plateaued++
				}
			}
			seed := RequestSeed(5, int64(step))
			if a, b := on.Estimate(s, nil, limit, seed), off.Estimate(s, nil, limit, seed); a != b {
				t.Fatalf("%s: step %d: cached %+v, uncached %+v", cond, step, a, b)
			}
		}
		if plateaued == 0 {
			t.Errorf("%s: no tenant sat on a disk plateau; the prefix conditions were not exercised", cond)
		}
	}
}

// TestEarlyStopping: Below and DeltaBelow, which stop drawing once the
// answer is settled, agree with the full Estimate on every node of a
// warmed-up cluster.
func TestEarlyStopping(t *testing.T) {
	repo, pool, c, initial := benchCluster(t, 40, 1.3, 60)
	limit := c.Limit()
	e := NewEstimator(repo, MCConfig{})
	stopped := 0
	for i := range c.Nodes {
		cv := &pool[i]
		cand := Tenant{ID: 1 << 40, Class: cv.Class, Usage: initial[cv.Class]}
		s := c.Nodes[i].Tenants
		full := e.Estimate(s, &cand, limit, 5)
		for _, theta := range []float64{0.01, 0.1, 0.5, 1} {
			if got := e.Below(s, &cand, limit, 5, theta); got != (full.With < theta) {
				t.Errorf("node %d: Below(%v) = %v, Estimate %+v", i, theta, got, full)
			}
		}
		for _, bound := range []float64{0, 0.03, 0.3, 1, 2} {
			d, ok := e.DeltaBelow(s, &cand, limit, 5, bound)
			switch {
			case ok != (full.Delta < bound):
				t.Errorf("node %d: DeltaBelow(%v) ok = %v, Estimate %+v", i, bound, ok, full)
			case ok && d != full.Delta:
				t.Errorf("node %d: DeltaBelow(%v) = %v, Estimate Delta %v", i, bound, d, full.Delta)
			case !ok && d > full.Delta:
				t.Errorf("node %d: DeltaBelow(%v) = %v is not a lower bound of %v", i, bound, d, full.Delta)
			case !ok && d < full.Delta:
				stopped++
			}
		}
	}
	if stopped == 0 {
		t.Error("DeltaBelow never stopped early: the test did not exercise it")
	}
}

package violation

import (
	"math/rand/v2"
	"testing"
)

// randomCurves returns n curves of up to 60 steps over 3 resources; with
// monotone set every series is non-decreasing (random increments, often 0),
// else a random walk.
func randomCurves(rng *rand.Rand, n int, monotone bool) []Curve {
	cs := make([]Curve, n)
	for i := range cs {
		l := 1 + rng.IntN(60)
		c := Curve{ID: "r", Class: "x", Step: 1, Max: Vec{100, 100, 100}}
		for r := range NumResources {
			x := 10 * rng.Float64()
			c.Demand[r] = series(l, func(int) float64 {
				step := 3 * rng.Float64()
				if monotone {
					if rng.IntN(3) == 0 {
						step = 0
					}
					x += step
				} else {
					x = max(x+step-1.5, 0)
				}
				return x
			})
		}
		cs[i] = c
	}
	return cs
}

// randomDraws places 1–6 of the repository's curves on a node with random
// ages below their lifetimes, as full curves and as models; about half the
// tenants are anchored (ConditionPrefix) at a random observed maximum with a
// random cap, as tstate.draw and tstate.curveDraw build them.
func randomDraws(rng *rand.Rand, repo *Repository) ([]curveDraw, []draw) {
	n := 1 + rng.IntN(6)
	cds, ds := make([]curveDraw, n), make([]draw, n)
	for k := range n {
		i := rng.IntN(repo.Len())
		c := repo.Curve(i)
		age := int32(rng.IntN(c.Lifetime()))
		t := tstate{age: age}
		if age >= 1 && rng.IntN(2) == 0 {
			t.anch, t.cap = true, noCap
			for r := range NumResources {
				t.obs[r] = 20 * rng.Float64()
				if rng.IntN(2) == 0 {
					t.cap[r] = t.obs[r] + 20*rng.Float64()
				}
			}
		}
		cds[k] = t.curveDraw(c, int32(c.Lifetime()))
		ds[k] = t.draw(&repo.recs[i])
	}
	return cds, ds
}

// TestTimePointReduction: on monotone curves, checking the |S| points 𝒯'
// finds a violation exactly when checking every future step does (§5.3),
// and likewise for the compressed models, which are monotone by
// construction. On non-monotone curves the reduction misses violations —
// the control that shows the test can fail.
func TestTimePointReduction(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	limit := Vec{60, 60, 60}
	for _, monotone := range []bool{true, false} {
		cs := randomCurves(rng, 200, monotone)
		repo := mustRepo(t, cs)
		var yes, no, differ int
		for range 20000 {
			cds, ms := randomDraws(rng, repo)
			all := violatesCurves(cds, limit, true)
			if violatesCurves(cds, limit, false) != all {
				differ++
			} else if all {
				yes++
			} else {
				no++
			}
			if !monotone {
				continue
			}
			want := violatesModelAll(ms, limit)
			if got := violatesModel(ms, limit); got != want {
				t.Fatalf("models: |S|-point check %v, full check %v", got, want)
			}
		}
		switch {
		case monotone && differ > 0:
			t.Errorf("monotone curves: the |S|-point check disagreed with the full check %d times", differ)
		case monotone && (yes < 1000 || no < 1000):
			t.Errorf("monotone curves: %d violating and %d safe draws; too few of one kind to test", yes, no)
		case !monotone && differ == 0:
			t.Error("non-monotone curves: the |S|-point check never missed a violation; the control is broken")
		}
	}
}

package violation

import (
	"testing"
	"time"
)

// series builds a float32 series from a function of δ.
func series(l int, f func(d int) float64) []float32 {
	s := make([]float32, l)
	for d := range s {
		s[d] = float32(f(d))
	}
	return s
}

// ramp is a disk series that grows linearly from i to m over g steps and
// then stays at m — exactly the §5.3 model when g < 1/(1−GrowthReach).
func ramp(l int, i, m float64, g int) []float32 {
	return series(l, func(d int) float64 { return Growth{M: m, G: g, I: i}.At(d) })
}

// diskCurve is a curve with only a disk series.
func diskCurve(id, class string, disk []float32) Curve {
	c := Curve{ID: id, Class: class, Step: time.Minute, Max: Vec{Disk: 100}}
	c.Demand[Disk] = disk
	return c
}

func mustRepo(t testing.TB, cs []Curve) *Repository {
	t.Helper()
	r, err := NewRepository(cs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// exactProb is Equation 1: the fraction of all assignments of eligible
// curves to the tenants that violate, by enumeration.
func exactProb(t *testing.T, repo *Repository, s []Tenant, limit Vec) float64 {
	t.Helper()
	sets := make([][]int, len(s))
	total := 1
	for k, x := range s {
		sets[k] = repo.Eligible(x.Class, x.Age, x.ObservedMax)
		if len(sets[k]) == 0 {
			t.Fatalf("tenant %d has an empty eligible set", k)
		}
		total *= len(sets[k])
	}
	bad := 0
	ds := make([]draw, len(s))
	for a := range total {
		for k, x := range s {
			i := sets[k][a%len(sets[k])]
			a /= len(sets[k])
			c := &repo.recs[i]
			ds[k] = draw{c: c, age: int32(x.Age), end: c.l - int32(x.Age)}
		}
		if violatesModel(ds, limit) {
			bad++
		}
	}
	return float64(bad) / float64(total)
}

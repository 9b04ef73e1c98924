package violation

import (
	"slices"
	"testing"
)

// TestSyntheticShapes checks the generator against the observations of
// §3.1 it is built from, and that a seed fixes the curves.
func TestSyntheticShapes(t *testing.T) {
	cs := Synthetic(8, 3000)
	again := Synthetic(8, 3000)
	for i := range cs {
		for r := range NumResources {
			if !slices.Equal(cs[i].Demand[r], again[i].Demand[r]) || cs[i].Class != again[i].Class {
				t.Fatalf("curve %d differs between two runs with one seed", i)
			}
		}
		if err := cs[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	var long, fastDisk, fastMem, diskDrop, memDrop int
	for _, c := range cs {
		l := c.Lifetime()
		reach := func(s []float32) (int, float32) {
			var m float32
			for _, x := range s {
				m = max(m, x)
			}
			for d, x := range s {
				if x >= 0.95*m {
					return d, m
				}
			}
			return l, m
		}
		dropsBelow := func(s []float32, f float32) bool {
			d, m := reach(s)
			return slices.ContainsFunc(s[d:], func(x float32) bool { return x < f*m })
		}
		if dropsBelow(c.Demand[Disk], 0.9) {
			diskDrop++
		}
		if dropsBelow(c.Demand[Memory], 0.8) {
			memDrop++
		}
		if l < 100 {
			continue // 5% of a short life is under one step
		}
		long++
		if d, _ := reach(c.Demand[Disk]); d <= l/20 {
			fastDisk++
		}
		if d, _ := reach(c.Demand[Memory]); d <= l*15/100 {
			fastMem++
		}
	}
	n := float64(len(cs))
	checks := []struct {
		what     string
		got, lim float64
		atLeast  bool
	}{
		{"share reaching 95% of peak disk within 5% of life", float64(fastDisk) / float64(long), 0.85, true},
		{"share reaching 95% of peak memory within 15% of life", float64(fastMem) / float64(long), 0.85, true},
		{"share dropping below 90% of peak disk afterwards (§3.1: < 1%)", float64(diskDrop) / n, 0.01, false},
		{"share dropping below 80% of peak memory afterwards (§3.1: < 7%)", float64(memDrop) / n, 0.07, false},
	}
	for _, c := range checks {
		if c.atLeast != (c.got >= c.lim) {
			t.Errorf("%s: %.3f, limit %.2f", c.what, c.got, c.lim)
		}
	}
}

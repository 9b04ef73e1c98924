package lpbound

import (
	"math"
	"testing"
)

func TestLagrangian(t *testing.T) {
	unlimited := func(c float64) mbin { return mbin{cost: c} }
	limited := func(c float64, l int) mbin { return mbin{cost: c, limit: l} }
	cases := []struct {
		name       string
		P          float64
		bins       []mbin
		U          []float64
		want       float64
		infeasible bool
	}{
		{"Farley: P/U", 10, []mbin{unlimited(1)}, []float64{2}, 5, false},
		{"Farley with costs: θ = min c/U", 10, []mbin{unlimited(1), unlimited(3)}, []float64{2, 3}, 5, false},
		// The heterogeneous example of TestSolveHandSolved: A (cost 3,
		// holds 2) unlimited, B (cost 1, holds 1) limited to 2, 5
		// items with π = 1.5: f(1) = 7.5 + 2·min(0, 1 − 1.5) = 6.5.
		{"limit dual priced in", 7.5, []mbin{unlimited(3), limited(1, 2)}, []float64{3, 1.5}, 6.5, false},
		{"only limited, room enough", 5, []mbin{limited(1, 10)}, []float64{1}, 5, false},
		{"only limited, too little room", 5, []mbin{limited(1, 2)}, []float64{1}, math.Inf(1), true},
		{"negative cost used to its limit", 0, []mbin{limited(-1, 3), unlimited(1)}, []float64{0, 0}, -3, false},
		{"zero duals", 0, []mbin{unlimited(1)}, []float64{0}, 0, false},
		{"cheap unlimited type caps θ", 4, []mbin{unlimited(0.5), limited(2, 1)}, []float64{1, 2}, 2, false},
		{"unlimited type that cannot use π: certificate", 4, []mbin{unlimited(0.5), limited(2, 1)}, []float64{0, 2}, math.Inf(1), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb, theta, inf := lagrangian(c.P, c.bins, c.U)
			if inf != c.infeasible || math.Abs(lb-c.want) > 1e-12 && !(math.IsInf(lb, 1) && math.IsInf(c.want, 1)) {
				t.Fatalf("lagrangian = %g (θ %g, infeasible %v), want %g (%v)", lb, theta, inf, c.want, c.infeasible)
			}
		})
	}
}

func TestRoundUp(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{3, 3},
		{3 + 1e-12, 3}, // float noise above an integer is given up
		{3.1, 4},
		{399.00001, 400},
		{-0.5, 0},
		{0, 0},
	} {
		if got := roundUp(c.in); got != c.want {
			t.Errorf("roundUp(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

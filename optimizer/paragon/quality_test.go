package paragon

import (
	"math"
	"testing"
)

// TestNormalizeQualityPaperExample is §3.2's worked example: unnormalized
// qualities in [−1.2, 0.8] and a candidate with Q = −1.0 normalize to
// (−1.0 + |min|)/(|max| + |min|) = 0.2/2 = 0.1.
func TestNormalizeQualityPaperExample(t *testing.T) {
	if got := NormalizeQuality(-1.0, -1.2, 0.8); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("NormalizeQuality(−1.0, −1.2, 0.8) = %v, want 0.1", got)
	}
}

func TestQuality(t *testing.T) {
	cases := []struct {
		name string
		t, c []float64
		want float64
	}{
		// ‖t − c‖₁ is normalized by its maximum, K: t = 1, c = 0 everywhere.
		{"largest deviation", []float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}, 0},
		{"perfect fit", []float64{0.4, 0.7}, []float64{0.4, 0.7}, 1},
		// Σ(t − c) = 0.3 > 0, ‖t − c‖₁/K = 0.3/2: Q = |1 − 0.15|.
		{"preserves QoS", []float64{0.6, 0.5}, []float64{0.4, 0.4}, 0.85},
		// Σ(t − c) = −0.3 < 0: a violation, Q = −|1 − 0.5/2|.
		{"violates QoS", []float64{0.3, 0.5}, []float64{0.7, 0.4}, -0.75},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quality(tc.t, tc.c); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Quality = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMissProbability is §3.2's guarantee Pr = a^R on uniform qualities:
// "for 128 candidates there is a 10⁻⁶ probability that no candidate will
// have quality over 0.9", and with 64 a 10⁻³ chance.
func TestMissProbability(t *testing.T) {
	cases := []struct {
		r      int
		lo, hi float64
	}{{128, 1e-6, 1e-5}, {64, 1e-3, 1e-2}}
	for _, tc := range cases {
		if p := MissProbability(0.9, tc.r); p < tc.lo || p >= tc.hi {
			t.Errorf("MissProbability(0.9, %d) = %.3g, want in [%g, %g)", tc.r, p, tc.lo, tc.hi)
		}
	}
	if r := CandidatesFor(0.9, 1e-3); r != 66 || MissProbability(0.9, r) > 1e-3 || MissProbability(0.9, r-1) <= 1e-3 {
		t.Errorf("CandidatesFor(0.9, 1e-3) = %d", r)
	}
}

func TestSelectSampled(t *testing.T) {
	specs := make([]ServerSpec, 500)
	for i := range specs {
		specs[i] = ServerSpec{Config: i % 2, Cores: 4}
	}
	c := NewCluster(specs, DefaultSoIs)
	caused := []float64{0.6, 0.1, 0.2, 0.2, 0.3, 0.4, 0.1, 0.2, 0, 0.1}
	req := &Request{ID: 1, Cores: 1, Class: Class{Perf: []float64{0.7, 1}, Tolerated: make([]float64, DefaultSoIs), Caused: caused}}
	a := SelectSampled(c, req, SampleOptions{Candidates: 64, Seed: 3})
	b := SelectSampled(c, req, SampleOptions{Candidates: 64, Seed: 3})
	if a.Server != b.Server || a.Candidates != 64 {
		t.Fatalf("decisions %+v and %+v, want the same of 64 candidates", a, b)
	}
	if c.Servers[a.Server].Config != 1 {
		t.Errorf("server %d has configuration %d, want the better 1", a.Server, c.Servers[a.Server].Config)
	}
	if d := SelectSampled(c, req, SampleOptions{Candidates: 64, Seed: 4}); d.Candidates != 64 {
		t.Errorf("another seed: %d candidates", d.Candidates)
	}
}

package predict

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > tol {
		t.Errorf("%s = %v, want %v (± %g)", name, got, want, tol)
	}
}

// S(t) of a log-normal: one half at the median exp(μ), Q(1) one σ above
// it on the log scale, 1 before 0, NaN for a bad σ.
func TestLifetimeSurvival(t *testing.T) {
	mu, sigma := math.Log(3600), 1.5
	near(t, "S(median)", LifetimeSurvival(mu, sigma, 3600), 0.5, 1e-15)
	near(t, "S(median·e^σ)", LifetimeSurvival(mu, sigma, 3600*math.Exp(sigma)), 0.15865525393145707, 1e-15)
	near(t, "S(0)", LifetimeSurvival(mu, sigma, 0), 1, 0)
	near(t, "S(-1)", LifetimeSurvival(mu, sigma, -1), 1, 0)
	near(t, "S(+Inf)", LifetimeSurvival(mu, sigma, math.Inf(1)), 0, 0)
	near(t, "σ 0", LifetimeSurvival(mu, 0, 10), math.NaN(), 0)
	near(t, "NaN μ", LifetimeSurvival(math.NaN(), 1, 10), math.NaN(), 0)
}

// BucketProbs worked by hand for a median of 1 h and σ 1: the bounds lie
// at z = ln(1/4), 0 and ln 24, so P = Φ(−1.386), ½ − Φ(−1.386),
// Φ(3.178) − ½, 1 − Φ(3.178). Every case sums to 1 and agrees with
// differences of LifetimeSurvival; far tails put all mass in one bucket.
func TestBucketProbs(t *testing.T) {
	p := BucketProbs(math.Log(3600), 1)
	want := [4]float64{0.0828285190016986, 0.41717148099830137, 0.49925866389746487, 0.0007413361025351284}
	for b := range p {
		near(t, "hand P", p[b], want[b], 1e-14)
	}
	if got := SurvivalPrediction(math.Log(3600), 1); got.Bucket != 3 || got.Score != p[2] {
		t.Errorf("SurvivalPrediction %+v, want bucket 3 scored %v", got, p[2])
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		mu, sigma := 2+12*r.Float64(), 0.1+3*r.Float64()
		p := BucketProbs(mu, sigma)
		s := LifetimeSurvival
		want := [4]float64{1 - s(mu, sigma, 900), s(mu, sigma, 900) - s(mu, sigma, 3600), s(mu, sigma, 3600) - s(mu, sigma, 86400), s(mu, sigma, 86400)}
		sum := 0.0
		for b := range p {
			near(t, "P vs S", p[b], want[b], 1e-12)
			if p[b] < 0 {
				t.Errorf("μ %v σ %v: P[%d] = %v < 0", mu, sigma, b, p[b])
			}
			sum += p[b]
		}
		near(t, "ΣP", sum, 1, 1e-12)
	}
	if p := BucketProbs(-50, 1); p != [4]float64{1, 0, 0, 0} {
		t.Errorf("μ −50: %v", p)
	}
	if p := BucketProbs(50, 1); p != [4]float64{0, 0, 0, 1} {
		t.Errorf("μ 50: %v", p)
	}
	if p := BucketProbs(5, 0); !math.IsNaN(p[0]) {
		t.Errorf("σ 0: %v", p)
	}
}

// RemainingQuantile solves P(T > age + r | T > age) = q: checked through
// that defining equation — on S where it is representable, on ln Q where a
// VM is so old that S(age) underflows (zₐ up to 200, the Mills-ratio
// path) — and at its fixed points: age 0 and q ½ is the median exp(μ), q 1
// is 0, q 0 is +Inf; the remaining time falls as q rises.
func TestRemainingQuantile(t *testing.T) {
	mu, sigma := math.Log(1800), 1.2
	near(t, "median at age 0", RemainingQuantile(mu, sigma, 0, 0.5), 1800, 1e-9)
	near(t, "q 1", RemainingQuantile(mu, sigma, 500, 1), 0, 0)
	if r := RemainingQuantile(mu, sigma, 500, 0); !math.IsInf(r, 1) {
		t.Errorf("q 0: %v", r)
	}
	for _, bad := range [][4]float64{{mu, 0, 10, 0.5}, {mu, sigma, 10, 1.5}, {mu, sigma, 10, -0.1}, {math.NaN(), sigma, 10, 0.5}, {mu, sigma, math.NaN(), 0.5}} {
		if r := RemainingQuantile(bad[0], bad[1], bad[2], bad[3]); !math.IsNaN(r) {
			t.Errorf("RemainingQuantile%v = %v, want NaN", bad, r)
		}
	}
	for _, age := range []float64{1, 60, 900, 1800, 3600, 86400, 30 * 86400} {
		prev := math.Inf(1)
		for _, q := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
			r := RemainingQuantile(mu, sigma, age, q)
			if !(r >= 0) || r >= prev {
				t.Errorf("age %v q %v: r %v (previous q: %v)", age, q, r, prev)
			}
			prev = r
			got := LifetimeSurvival(mu, sigma, age+r) / LifetimeSurvival(mu, sigma, age)
			near(t, "S(age+r)/S(age)", got, q, 1e-9*math.Max(1, q))
		}
	}
	for _, za := range []float64{5, 20, 36, 37.5, 38, 40, 60, 200} {
		age := math.Exp(mu + sigma*za)
		prev := math.Inf(1)
		for _, q := range []float64{0.05, 0.5, 0.95} {
			r := RemainingQuantile(mu, sigma, age, q)
			if !(r > 0) || math.IsInf(r, 1) || r >= prev {
				t.Fatalf("zₐ %v q %v: r %v (previous q: %v)", za, q, r, prev)
			}
			prev = r
			z := (math.Log(age+r) - mu) / sigma
			near(t, "ln Q(z) − ln Q(zₐ)", logUpperTail(z)-logUpperTail(za), math.Log(q), 1e-6)
		}
	}
}

// normQuantile inverts Φ to full precision from 10⁻³⁰⁰ to 1 − 10⁻¹⁶,
// where math.Erfcinv gives up below 10⁻¹⁶; logUpperTail joins ln Q
// smoothly where its asymptotic series takes over.
func TestNormQuantile(t *testing.T) {
	near(t, "Φ⁻¹(0.975)", normQuantile(0.975), 1.959963984540054, 1e-14)
	near(t, "Φ⁻¹(0.5)", normQuantile(0.5), 0, 1e-16)
	for _, p := range []float64{1e-300, 1e-200, 1e-100, 1e-30, 1e-17, 1e-9, 1e-3, 0.02425, 0.1, 0.3, 0.7, 0.9, 0.999} {
		x := normQuantile(p)
		near(t, "Φ(Φ⁻¹(p))/p", lowerTail(x)/p, 1, 1e-13)
	}
	if !math.IsInf(normQuantile(0), -1) || !math.IsInf(normQuantile(1), 1) || !math.IsNaN(normQuantile(1.1)) {
		t.Error("normQuantile's ends")
	}
	near(t, "ln Q at 30", logUpperTail(30), math.Log(upperTail(30)), 1e-9)
	near(t, "ln Q at 29.99", logUpperTail(29.99), math.Log(upperTail(29.99)), 1e-12)
}

// Harrell's C by hand, then the Fenwick-tree count against the pairwise
// definition on random lives with tied times, tied predictions and
// censoring.
func TestHarrellC(t *testing.T) {
	all := []bool{true, true, true}
	if c, n := HarrellC([]float64{1, 2, 3}, all, []float64{10, 20, 30}); c != 1 || n != 3 {
		t.Errorf("perfect: C %v over %d pairs", c, n)
	}
	if c, _ := HarrellC([]float64{1, 2, 3}, all, []float64{30, 20, 10}); c != 0 {
		t.Errorf("reversed: C %v", c)
	}
	// Lives 1 (ends at 5), 2 (censored at 5), 3 (ends at 5): pairs (1,2)
	// and (3,2) comparable (a censored life outlasts one that ended at the
	// same time), (1,3) not. Predictions 1: 7, 2: 7, 3: 9 — (1,2) tied,
	// (3,2) discordant: C = ½/2.
	if c, n := HarrellC([]float64{5, 5, 5}, []bool{true, false, true}, []float64{7, 7, 9}); c != 0.25 || n != 2 {
		t.Errorf("ties: C %v over %d pairs, want 0.25 over 2", c, n)
	}
	if c, n := HarrellC([]float64{1, 2}, []bool{false, false}, []float64{1, 2}); !math.IsNaN(float64(c)) || n != 0 {
		t.Errorf("all censored: C %v over %d", c, n)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		n := 50 + r.IntN(200)
		tm, pred := make([]float64, n), make([]float64, n)
		obs := make([]bool, n)
		for i := range tm {
			tm[i] = float64(r.IntN(30))
			pred[i] = float64(r.IntN(20))
			if r.IntN(10) == 0 {
				pred[i] = math.Inf(1)
			}
			obs[i] = r.IntN(3) > 0
		}
		var conc, pairs float64
		for i := range tm {
			for j := range tm {
				if i == j || !obs[i] || !(tm[j] > tm[i] || tm[j] == tm[i] && !obs[j]) {
					continue
				}
				pairs++
				switch {
				case pred[j] > pred[i]:
					conc++
				case pred[j] == pred[i]:
					conc += 0.5
				}
			}
		}
		c, m := HarrellC(tm, obs, pred)
		if float64(m) != pairs || math.Abs(float64(c)-conc/pairs) > 1e-12 {
			t.Fatalf("trial %d: C %v over %d pairs, pairwise %v over %v", trial, c, m, conc/pairs, pairs)
		}
	}
}

// Kaplan–Meier worked by hand: times 1, 2, 2⁺, 3, 4⁺, 5 (⁺ censored).
// At 1: 1 of 6 at risk ends, S = 5/6; at 2: 1 of 5 (the life censored at 2
// is still at risk), S = 4/6; at 3: 1 of 3, S = 4/9; at 5: 1 of 1, S = 0.
// The median is 3, the first time S ≤ ½.
func TestKaplanMeier(t *testing.T) {
	km := FitKaplanMeier([]float64{3, 2, 5, 1, 2, 4}, []bool{true, false, true, true, true, false})
	wantT := []float64{1, 2, 3, 5}
	wantS := []float64{5.0 / 6, 4.0 / 6, 4.0 / 9, 0}
	if len(km.Times) != 4 {
		t.Fatalf("%+v", km)
	}
	for i := range wantT {
		near(t, "time", km.Times[i], wantT[i], 0)
		near(t, "S", km.Surv[i], wantS[i], 1e-15)
	}
	near(t, "S(0.5)", km.At(0.5), 1, 0)
	near(t, "S(2.5)", km.At(2.5), 4.0/6, 1e-15)
	near(t, "S(4)", km.At(4), 4.0/9, 1e-15)
	near(t, "median", km.Median(), 3, 0)
	if m := FitKaplanMeier([]float64{1, 2, 3}, []bool{true, false, false}).Median(); !math.IsInf(m, 1) {
		t.Errorf("median never reached: %v", m)
	}
}

// The mean log-likelihood of log-normal lives: an observed life at the
// median contributes ln φ(0) − ln σ, a life censored at the median ln ½.
func TestLogLikelihood(t *testing.T) {
	mu := []float64{math.Log(100), math.Log(100)}
	got := LogLikelihood([]float64{100, 100}, []float64{100, math.Inf(1)}, mu, 2)
	near(t, "loglik", got, (logPhi(0)-math.Log(2)+math.Log(0.5))/2, 1e-12)
}

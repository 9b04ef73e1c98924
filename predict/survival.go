package predict

import (
	"fmt"
	"math"

	"placelab/optimizer"
	"placelab/predict/xgboost"
)

// The lifetime_dist model is log-normal: XGBoost's AFT objective with the
// normal distribution fits
//
//	ln T = μ(x) + σ·Z,  Z ~ N(0, 1)
//
// so a VM's lifetime T given its features x has median exp(μ(x)) and
//
//	S(t) = P(T > t) = Q((ln t − μ)/σ),  Q(z) = ½·erfc(z/√2) = 1 − Φ(z).
//
// The functions below turn (μ, σ) into what a scheduler asks: the survival
// probability at a horizon, the remaining lifetime of a VM already running
// for a while, and RC Table 3's bucket probabilities.

// Survival returns the distribution of a lifetime_dist model's noise
// ("normal": ln T is normal) and its σ; ok is false for a bucket
// classifier.
func (m *Model) Survival() (dist string, sigma float64, ok bool) {
	if !m.Params.Survival() {
		return "", 0, false
	}
	return m.Params.AFTDistribution, m.Params.AFTScale, true
}

// PredictMu returns μ, the predicted mean of ln T (T in seconds), of each
// row of a row-major matrix of a lifetime_dist model's features; exp(μ) is
// the predicted median lifetime.
func (m *Model) PredictMu(x []float32, rows int) ([]float64, error) {
	if _, _, ok := m.Survival(); !ok {
		return nil, fmt.Errorf("predict: model %s is a bucket classifier, not a survival model", m.Name)
	}
	mu, err := m.Booster.PredictMargin(x, rows, len(m.Features.Columns))
	if err != nil {
		return nil, fmt.Errorf("predict: model %s: %w", m.Name, err)
	}
	out := make([]float64, rows)
	for i, v := range mu {
		out[i] = float64(v)
	}
	return out, nil
}

// LifetimeSurvival is P(T > t) for ln T ~ N(mu, sigma²): Q((ln t − μ)/σ);
// 1 for t ≤ 0, NaN for sigma ≤ 0 or a NaN input.
func LifetimeSurvival(mu, sigma, t float64) float64 {
	if !(sigma > 0) || math.IsNaN(mu) || math.IsNaN(t) {
		return math.NaN()
	}
	if t <= 0 {
		return 1
	}
	return upperTail((math.Log(t) - mu) / sigma)
}

// RemainingQuantile is the remaining lifetime r ≥ 0 of a VM that has run
// for age seconds such that it outlives r more with probability q, for
// ln T ~ N(mu, sigma²):
//
//	P(T > age + r | T > age) = q  ⇔  Q(z) = q·Q(zₐ),  zₐ = (ln age − μ)/σ,
//	r = exp(μ + σz) − age = age·expm1(σ(z − zₐ)),  z = Q⁻¹(q·Q(zₐ)).
//
// q = 0.5 is the median remaining lifetime; at age 0 it is exp(μ). When
// Q(zₐ) underflows (a VM far older than the model expects, zₐ ≳ 37) the
// closed form is replaced by the normal tail's Mills-ratio limit
// z = √(zₐ² − 2 ln q), refined by Newton steps on ln Q. q = 1 gives 0, q = 0
// +Inf; a q outside [0, 1], sigma ≤ 0 or a NaN gives NaN; age < 0 counts as
// 0.
func RemainingQuantile(mu, sigma, age, q float64) float64 {
	if !(sigma > 0) || math.IsNaN(mu) || math.IsNaN(age) || !(q >= 0 && q <= 1) || math.IsInf(mu, 0) {
		return math.NaN()
	}
	switch {
	case q == 0:
		return math.Inf(1)
	case q == 1:
		return 0
	case math.IsInf(age, 1):
		return math.Inf(1)
	}
	if age <= 0 {
		return math.Exp(mu + sigma*upperTailInv(q))
	}
	za := (math.Log(age) - mu) / sigma
	var z float64
	if sa := upperTail(za); sa > minTail {
		z = upperTailInv(q * sa)
	} else {
		logp := math.Log(q) + logUpperTail(za)
		z = math.Sqrt(za*za - 2*math.Log(q))
		for range tailNewtonSteps {
			// d/dz ln Q(z) = −φ(z)/Q(z), the hazard of Z.
			h := math.Exp(logPhi(z) - logUpperTail(z))
			z += (logUpperTail(z) - logp) / h
		}
	}
	r := age * math.Expm1(sigma*(z-za))
	if !(r > 0) {
		return 0
	}
	return r
}

// BucketProbs is the probability of each of RC Table 3's lifetime buckets
// (≤ 15 min, 15–60 min, 1–24 h, > 24 h; optimizer.LifetimeBucket1Max …
// LifetimeBucket3Max) for ln T ~ N(mu, sigma²): the normal distribution's
// mass between consecutive bounds. The four sum to 1; NaN for sigma ≤ 0 or
// a NaN mu.
func BucketProbs(mu, sigma float64) [4]float64 {
	nan := math.NaN()
	if !(sigma > 0) || math.IsNaN(mu) {
		return [4]float64{nan, nan, nan, nan}
	}
	var z [3]float64
	for i, b := range [3]float64{optimizer.LifetimeBucket1Max, optimizer.LifetimeBucket2Max, optimizer.LifetimeBucket3Max} {
		z[i] = (math.Log(b) - mu) / sigma
	}
	// Lower tails left of the middle bound, upper tails right of it, so
	// that no probability is a difference of two numbers near 1.
	var p [4]float64
	p[0] = lowerTail(z[0])
	p[3] = upperTail(z[2])
	if z[1] <= 0 {
		p[1] = lowerTail(z[1]) - p[0]
		p[2] = 1 - p[0] - p[1] - p[3]
	} else {
		p[2] = upperTail(z[1]) - p[3]
		p[1] = 1 - p[0] - p[2] - p[3]
	}
	for i := range p {
		p[i] = math.Max(p[i], 0)
	}
	return p
}

// bucketArgmax is the most probable bucket (1-based) of BucketProbs and its
// probability, the lifetime_dist model's Prediction (ties go to the lower
// bucket, as Argmax).
func bucketArgmax(p [4]float64) Prediction {
	best := 0
	for b := 1; b < len(p); b++ {
		if p[b] > p[best] {
			best = b
		}
	}
	return Prediction{Bucket: int8(best + 1), Score: p[best]}
}

// SurvivalPrediction is a lifetime_dist model's Prediction from μ and σ:
// the most probable bucket of BucketProbs, scored by its probability.
func SurvivalPrediction(mu, sigma float64) Prediction { return bucketArgmax(BucketProbs(mu, sigma)) }

// Tolerances of the normal tail functions.
const (
	// minTail is the smallest Q(zₐ) RemainingQuantile takes the closed
	// form with: below it q·Q(zₐ) can be subnormal and lose digits.
	minTail = 1e-290
	// tailNewtonSteps refine the Mills-ratio start, whose error in z is
	// below 1/zₐ² (< 10⁻³ past zₐ = 37); each Newton step squares it.
	tailNewtonSteps = 3
)

// lowerTail is Φ(z), upperTail Q(z) = Φ(−z), both accurate in their own
// tail.
func lowerTail(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
func upperTail(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// logPhi is ln φ(z), the standard normal log density.
func logPhi(z float64) float64 { return -0.5*z*z - 0.5*math.Log(2*math.Pi) }

// logUpperTail is ln Q(z), also where Q underflows: past z = 30 the
// asymptotic series Q(z) = φ(z)/z·(1 − 1/z² + 3/z⁴ − 15/z⁶ + …), whose
// first omitted term is below 10⁻¹⁰ there.
func logUpperTail(z float64) float64 {
	if z < 30 {
		return math.Log(upperTail(z))
	}
	z2 := z * z
	return logPhi(z) - math.Log(z) + math.Log1p(-1/z2+3/(z2*z2)-15/(z2*z2*z2))
}

// upperTailInv is z with Q(z) = p for 0 < p < 1: −Φ⁻¹(p).
func upperTailInv(p float64) float64 { return -normQuantile(p) }

// normQuantile is Φ⁻¹(p) for 0 < p < 1 (±Inf at 0 and 1, NaN outside):
// Acklam's rational approximation (relative error 1.15·10⁻⁹), then one
// Halley step on Φ(x) = p, computed in the tail p lies in so that p down
// to the smallest normal float keeps full precision. (math.Erfcinv
// computes 1 − p first and is useless below 10⁻¹⁶.)
func normQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p > 0.5:
		return -normQuantile(1 - p)
	}
	const pLow = 0.02425
	a := [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	var x float64
	if p < pLow {
		q := math.Sqrt(-2 * math.Log(p))
		x = (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	} else {
		q := p - 0.5
		r := q * q
		x = (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	}
	// Halley: e = Φ(x) − p, u = e/φ(x), x ← x − u/(1 + x·u/2). u is formed
	// as a ratio of logs where φ(x) is tiny (p far in the tail).
	e := lowerTail(x) - p
	if e == 0 {
		return x
	}
	u := math.Copysign(math.Exp(math.Log(math.Abs(e))-logPhi(x)), e)
	return x - u/(1+x*u/2)
}

// checkSurvivalParams refuses AFT settings the helpers above cannot
// serve: a lifetime_dist model is log-normal.
func checkSurvivalParams(p xgboost.Params) error {
	if !p.Survival() {
		return fmt.Errorf("predict: lifetime_dist params: objective %q, want %q", p.Objective, xgboost.AFT)
	}
	if p.AFTDistribution != xgboost.AFTNormal {
		return fmt.Errorf("predict: lifetime_dist params: distribution %q: the model is log-normal (%q)", p.AFTDistribution, xgboost.AFTNormal)
	}
	return p.Validate()
}

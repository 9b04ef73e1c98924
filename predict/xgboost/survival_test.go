package xgboost

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Synthetic survival data of lognormalGroups: feature 0 is a group g in
// 0 … 3 and ln T ~ N(μ_g, σ²) with μ_g = 4 + g and σ = 1; feature 1 is
// noise. Censoring times C are log-normal, independent of T, located so
// that about 40% of the rows are right-censored (C < T): such a row is
// known only to live longer than C.
const (
	survGroups     = 4
	survMu0        = 4.0 // μ of group 0 (e^4 ≈ 55 s)
	survSigma      = 1.0
	survCensorMu   = 5.96 // ln C ~ N(5.96, 1.5²): P(C < T) ≈ 0.4 over the groups
	survCensorSD   = 1.5
	survRowsPerGrp = 2000
)

type survData struct {
	x            []float32
	lower, upper []float32
	group        []int
	censored     int
}

func lognormalGroups(seed uint64) survData {
	r := rand.New(rand.NewPCG(seed, 7))
	var d survData
	inf := float32(math.Inf(1))
	for g := range survGroups {
		for range survRowsPerGrp {
			t := math.Exp(survMu0 + float64(g) + survSigma*r.NormFloat64())
			c := math.Exp(survCensorMu + survCensorSD*r.NormFloat64())
			d.x = append(d.x, float32(g), float32(r.Float64()))
			d.group = append(d.group, g)
			if c < t {
				d.lower, d.upper = append(d.lower, float32(c)), append(d.upper, inf)
				d.censored++
			} else {
				d.lower, d.upper = append(d.lower, float32(t)), append(d.upper, float32(t))
			}
		}
	}
	return d
}

// survParams is DefaultSurvival at the true σ, cut to a size the tests
// train in a fraction of a second.
func survParams() Params {
	p := DefaultSurvival(AFTNormal, survSigma)
	p.Rounds, p.MaxDepth = 50, 3
	return p
}

// groupMeans averages a model's margin (μ) over each group's rows.
func groupMeans(t *testing.T, b *Booster, d survData) [survGroups]float64 {
	t.Helper()
	rows := len(d.group)
	mu, err := b.PredictMargin(d.x, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sum [survGroups]float64
	var n [survGroups]int
	for i, g := range d.group {
		sum[g] += float64(mu[i])
		n[g]++
	}
	for g := range sum {
		sum[g] /= float64(n[g])
	}
	return sum
}

// TestSurvivalRecoversMu: with 40% of the rows right-censored, the AFT
// model's μ per group is within 0.15 of the true μ_g (ln T's mean); the
// same model trained on the observed rows only (the censored ones dropped,
// which keeps the lucky short lives) is biased low — every group's μ below
// the truth and their mean off by more than 0.3. The prediction is
// exp(μ): Predict is exp of PredictMargin.
func TestSurvivalRecoversMu(t *testing.T) {
	d := lognormalGroups(1)
	rows := len(d.group)
	share := float64(d.censored) / float64(rows)
	if share < 0.35 || share > 0.45 {
		t.Fatalf("censored share %.3f, want about 0.4", share)
	}
	ctx := context.Background()
	b, err := TrainSurvival(ctx, d.x, rows, 2, d.lower, d.upper, nil, survParams())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.NumClass() != 1 || b.Objective() != AFT {
		t.Fatalf("outputs %d, objective %q", b.NumClass(), b.Objective())
	}
	if dist, s, ok := b.Survival(); !ok || dist != AFTNormal || s != survSigma {
		t.Errorf("Survival() = %q, %v, %v", dist, s, ok)
	}
	aft := groupMeans(t, b, d)

	var x, lo, hi []float32
	var group []int
	for i := range d.group {
		if d.upper[i] == d.lower[i] {
			x = append(x, d.x[2*i:2*i+2]...)
			lo, hi = append(lo, d.lower[i]), append(hi, d.upper[i])
			group = append(group, d.group[i])
		}
	}
	naive, err := TrainSurvival(ctx, x, len(lo), 2, lo, hi, nil, survParams())
	if err != nil {
		t.Fatal(err)
	}
	defer naive.Close()
	dropped := groupMeans(t, naive, d)

	const tol = 0.15 // a few standard errors of a mean of ~1,200 observed ln T
	var bias float64
	for g := range survGroups {
		want := survMu0 + float64(g)
		t.Logf("group %d: μ %.2f, AFT %.3f, censored dropped %.3f", g, want, aft[g], dropped[g])
		if math.Abs(aft[g]-want) > tol {
			t.Errorf("group %d: AFT μ %.3f, want %.2f ± %.2f", g, aft[g], want, tol)
		}
		if dropped[g] >= want {
			t.Errorf("group %d: dropping the censored rows gave μ %.3f, not below %.2f", g, dropped[g], want)
		}
		bias += (dropped[g] - want) / survGroups
	}
	if bias > -0.3 {
		t.Errorf("dropping the censored rows: mean bias %.3f, want below -0.3", bias)
	}

	times, err := b.Predict(d.x[:20], 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	mu, err := b.PredictMargin(d.x[:20], 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 1)
	for i := range times {
		if math.Abs(math.Log(float64(times[i]))-float64(mu[i])) > 1e-5 {
			t.Errorf("row %d: prediction %v, margin %v: want prediction = exp(margin)", i, times[i], mu[i])
		}
		if err := b.PredictRowMargin(d.x[2*i:2*i+2], out); err != nil || out[0] != mu[i] {
			t.Errorf("row %d: PredictRowMargin %v (%v), PredictMargin %v", i, out[0], err, mu[i])
		}
		if err := b.PredictRow(d.x[2*i:2*i+2], out); err != nil || out[0] != times[i] {
			t.Errorf("row %d: PredictRow %v (%v), Predict %v", i, out[0], err, times[i])
		}
	}
}

// An AFT model saves and loads back with one output, its distribution and
// σ, and the same predictions; the same seed trains the same bytes, also
// from concurrent trainings; an explicit BaseScore equal to the default
// (the lower bounds' geometric mean) gives the same model.
func TestSurvivalSaveLoadDeterministic(t *testing.T) {
	d := lognormalGroups(2)
	rows := len(d.group)
	p := survParams()
	p.AFTDistribution, p.AFTScale = AFTLogistic, 0.7
	p.Subsample, p.ColsampleByNode = 0.8, 0.5 // randomness the seed must pin
	ctx := context.Background()
	bufs := make([][]byte, 3)
	done := make(chan error, 2)
	for k := range 2 {
		go func() {
			b, err := TrainSurvival(ctx, d.x, rows, 2, d.lower, d.upper, nil, p)
			if err == nil {
				bufs[k], err = b.Save()
				b.Close()
			}
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(bufs[0], bufs[1]) {
		t.Error("same seed, different AFT models")
	}
	var logSum float64
	for _, v := range d.lower {
		logSum += math.Log(float64(v))
	}
	explicit := p
	explicit.BaseScore = math.Exp(logSum / float64(rows))
	b, err := TrainSurvival(ctx, d.x, rows, 2, d.lower, d.upper, nil, explicit)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if bufs[2] = save(t, b); !bytes.Equal(bufs[2], bufs[0]) {
		t.Error("explicit base_score of the lower bounds' geometric mean: another model than the default")
	}
	other := p
	other.Seed = 2
	b2, err := TrainSurvival(ctx, d.x, rows, 2, d.lower, d.upper, nil, other)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if bytes.Equal(save(t, b2), bufs[0]) {
		t.Error("another seed, the same subsampled model")
	}

	l, err := Load(bufs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.NumClass() != 1 || l.NumFeatures() != 2 || l.Objective() != AFT {
		t.Fatalf("loaded: %d outputs, %d features, %q", l.NumClass(), l.NumFeatures(), l.Objective())
	}
	if dist, s, ok := l.Survival(); !ok || dist != AFTLogistic || s != 0.7 {
		t.Errorf("loaded Survival() = %q, %v, %v", dist, s, ok)
	}
	a, _ := b.Predict(d.x, rows, 2)
	c, err := l.Predict(d.x, rows, 2)
	if err != nil || !bitsEqual(a, c) {
		t.Errorf("loaded model predicts otherwise (%v)", err)
	}
	if !bytes.Equal(save(t, l), bufs[0]) {
		t.Error("a loaded AFT model saves to other bytes")
	}
	// The base score is part of the model: a start far off shifts a
	// one-round model's predictions.
	if js, err := l.save("json"); err != nil || !strings.Contains(string(js), `"base_score"`) {
		t.Errorf("saved JSON has no base_score (%v)", err)
	}
	// A classifier is not a survival model.
	x, y, cr, cc := separable()
	cl := train(t, x, cr, cc, y, smallBoosted(3))
	if _, _, ok := cl.Survival(); ok || cl.Objective() != SoftProb {
		t.Errorf("classifier: Survival ok %v, objective %q", ok, cl.Objective())
	}
}

// TrainSurvival refuses bounds that are not an interval of positive times
// — lower above upper, NaN, negative, zero, infinite lower — and label
// counts that do not match, naming the row; Train and TrainSurvival refuse
// each other's objective.
func TestSurvivalInputErrors(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6}
	lo := []float32{10, 20, 30}
	hi := []float32{10, float32(math.Inf(1)), 40}
	with := func(s []float32, i int, v float32) []float32 {
		s = append([]float32(nil), s...)
		s[i] = v
		return s
	}
	p := survParams()
	cases := []struct {
		name, want string
		lo, hi     []float32
	}{
		{"lower above upper", "row 2: upper bound 25", lo, with(hi, 2, 25)},
		{"NaN lower", "row 1: lower bound NaN", with(lo, 1, nan32), hi},
		{"NaN upper", "row 0: upper bound NaN", lo, with(hi, 0, nan32)},
		{"negative lower", "row 0: lower bound -5", with(lo, 0, -5), hi},
		{"zero lower", "row 2: lower bound 0", with(lo, 2, 0), hi},
		{"infinite lower", "row 1: lower bound +Inf", with(lo, 1, float32(math.Inf(1))), hi},
		{"negative upper", "row 0: upper bound -10", lo, with(hi, 0, -10)},
		{"short lower", "2 lower and 3 upper bounds for 3 rows", lo[:2], hi},
	}
	for _, c := range cases {
		_, err := TrainSurvival(context.Background(), x, 3, 2, c.lo, c.hi, nil, p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInvalid saying %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name, want string
		w          []float32
	}{
		{"short weights", "2 weights for 3 rows", []float32{1, 1}},
		{"negative weight", "row 1: weight -1", []float32{1, -1, 1}},
		{"NaN weight", "row 2: weight NaN", []float32{1, 1, nan32}},
		{"infinite weight", "row 0: weight +Inf", []float32{float32(math.Inf(1)), 1, 1}},
		{"all zero", "every weight is 0", []float32{0, 0, 0}},
	} {
		_, err := TrainSurvival(context.Background(), x, 3, 2, lo, hi, c.w, p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInvalid saying %q", c.name, err, c.want)
		}
	}
	if _, err := TrainSurvival(context.Background(), x, 3, 2, lo, hi, nil, smallBoosted(3)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "TrainSurvival fits") {
		t.Errorf("softprob params to TrainSurvival: %v", err)
	}
	if _, err := Train(context.Background(), x, 3, 2, []float32{0, 0, 0}, nil, p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Train fits") {
		t.Errorf("AFT params to Train: %v", err)
	}
}

// TestSurvivalWeights: TrainSurvival passes per-row weights to XGBoost.
// Two regimes share one feature vector: the rows of regime A live
// ln T ~ N(4, 1), those of B ln T ~ N(7, 1). Unweighted, the model's μ is
// between the two; with B's rows weighed 0 it is A's μ (within 0.15), and
// with A's weighed 0, B's.
func TestSurvivalWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var x, lo, hi []float32
	var regime []int
	for i := range 4000 {
		g := i % 2
		v := float32(math.Exp(4 + 3*float64(g) + r.NormFloat64()))
		x = append(x, 1, float32(r.Float64()))
		lo, hi = append(lo, v), append(hi, v)
		regime = append(regime, g)
	}
	rows := len(lo)
	only := func(keep int) []float32 {
		w := make([]float32, rows)
		for i, g := range regime {
			if g == keep {
				w[i] = 1
			}
		}
		return w
	}
	mean := func(w []float32) float64 {
		b, err := TrainSurvival(context.Background(), x, rows, 2, lo, hi, w, survParams())
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		mu, err := b.PredictMargin(x, rows, 2)
		if err != nil {
			t.Fatal(err)
		}
		var s float64
		for _, v := range mu {
			s += float64(v)
		}
		return s / float64(rows)
	}
	all, a, b := mean(nil), mean(only(0)), mean(only(1))
	t.Logf("μ unweighted %.3f, A only %.3f, B only %.3f", all, a, b)
	if math.Abs(a-4) > 0.15 || math.Abs(b-7) > 0.15 {
		t.Errorf("μ with one regime weighed 0: A %.3f (want 4), B %.3f (want 7)", a, b)
	}
	if !(all > 4.5 && all < 6.5) {
		t.Errorf("μ unweighted %.3f, want between the regimes", all)
	}
}

// Validate accepts either objective's set and names the field that mixes
// them or is out of range.
func TestValidateSurvival(t *testing.T) {
	for _, dist := range []string{AFTNormal, AFTLogistic, AFTExtreme} {
		p := DefaultSurvival(dist, 1.5)
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", dist, err)
		}
		p.NumClass = 1
		if err := p.Validate(); err != nil {
			t.Errorf("%s with num_class 1: %v", dist, err)
		}
	}
	cases := []struct {
		field string
		p     Params
		edit  func(*Params)
	}{
		{"num_class", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.NumClass = 4 }},
		{"aft_loss_distribution", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.AFTDistribution = "weibull" }},
		{"aft_loss_distribution", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.AFTDistribution = "" }},
		{"aft_loss_distribution_scale", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.AFTScale = 0 }},
		{"aft_loss_distribution_scale", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.AFTScale = math.NaN() }},
		{"aft_loss_distribution_scale", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.AFTScale = math.Inf(1) }},
		{"base_score", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.BaseScore = -1 }},
		{"rounds", DefaultSurvival(AFTNormal, 1), func(p *Params) { p.Rounds = 0 }},
		{"aft_loss_distribution", DefaultBoosted(4), func(p *Params) { p.AFTDistribution = AFTNormal }},
		{"aft_loss_distribution_scale", DefaultBoosted(4), func(p *Params) { p.AFTScale = 1 }},
		{"base_score", DefaultBoosted(4), func(p *Params) { p.BaseScore = 0.5 }},
	}
	for _, c := range cases {
		p := c.p
		c.edit(&p)
		if err := p.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: Validate: %v", c.field, err)
		}
	}
}

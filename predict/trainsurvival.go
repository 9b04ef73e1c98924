package predict

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"placelab/predict/xgboost"
	store "placelab/sql"
)

// MinLifetime is the shortest lifetime (and censored age) the
// lifetime_dist model takes, in seconds: the model is of ln T, so T must be
// > 0. Shorter observed lifetimes and ages are floored at it, except a
// lifetime recorded as exactly 0 (see Lifetimes.Interval).
const MinLifetime = 1.0

// DefaultSigmas is the grid the lifetime_dist model's σ is chosen from
// (TrainOptions.Sigmas): ln T's spread around μ(x), from a tight 0.5 (a
// factor e^0.5 ≈ 1.6 either side) to a loose 3 (e³ ≈ 20). The real traces
// choose inside it (Huawei-East-1 2, the Azure V1 dev split 1.5); with the
// grid ending at 2, Huawei-East-1's choice sat on its edge.
var DefaultSigmas = []float64{0.5, 1, 1.5, 2, 2.5, 3}

// DefaultHalfLives is the grid the lifetime_dist model's recency weighting
// is chosen from (TrainOptions.HalfLives), in seconds: 0 weighs every
// training VM the same, h weighs a VM created d seconds before the cut
// 2^(−d/h) (RecencyWeights). A trace's lifetimes can drift within the
// training span — Huawei-East-1's median lifetime falls from about an hour
// in its first two weeks to a few minutes from its third week on, the
// regime its test window is in — and the validation slice, the newest
// part of the span, says whether weighing the newest VMs more predicts
// better: the half-life is chosen with σ, by the same validation
// log-likelihood, so a trace that does not drift keeps equal weights. The
// values are a day and three days: shorter than a day would let one day's
// pattern dominate, and a half-life beyond the span changes little.
var DefaultHalfLives = []float64{0, 3 * 86400, 86400}

// DefaultValidShare is the last share of the training span of creation
// times whose VMs validate σ (TrainOptions.ValidShare).
const DefaultValidShare = 0.2

// Lifetimes are each VM's lifetime as an interval known at one time, in
// the Frame's row order: [Lower, Upper] seconds, Upper = Lower for a VM
// that ended by At and +Inf for one still running then (or right-censored
// in the trace), whose Lower is its observed age. Neither is floored.
type Lifetimes struct {
	At           float64
	Lower, Upper []float64
	// Tick is the shortest positive lifetime observed by At, the trace's
	// clock resolution in practice (300 s in the Azure traces, whose
	// lifetimes are counted in 5-minute readings); 0 if none.
	Tick float64
}

// Observed says whether row r's lifetime is known exactly.
func (l *Lifetimes) Observed(r int) bool { return !math.IsInf(l.Upper[r], 1) }

// Informative says whether row r's label says anything: an observed
// lifetime, or a censored one with a positive age. A VM censored at age 0
// is only known to have lived (its likelihood term, ln P(T > 0), is 0): the
// Azure V1 train split, published without durations, is all such VMs
// (datasets' azure-flavor loader), as is a VM created at the very instant
// of a cut. The survival model neither learns from nor is tested on them.
func (l *Lifetimes) Informative(r int) bool { return l.Observed(r) || l.Lower[r] > 0 }

// informative keeps the rows whose label is Informative.
func (l *Lifetimes) informative(rows []int) []int {
	out := rows[:0:0]
	for _, r := range rows {
		if l.Informative(r) {
			out = append(out, r)
		}
	}
	return out
}

// observed counts the rows whose lifetime is known exactly.
func (l *Lifetimes) observed(rows []int) int {
	n := 0
	for _, r := range rows {
		if l.Observed(r) {
			n++
		}
	}
	return n
}

// LoadLifetimes runs the lifetime_labels query for a dataset as known at
// time at (+Inf: everything the trace says). Rows follow vm_id order, as
// the Frame.
func LoadLifetimes(ctx context.Context, db *store.DB, dataset string, at float64, f *Frame) (*Lifetimes, error) {
	rows, err := db.SQL().QueryContext(ctx, store.MustQuery("lifetime_labels"), dataset, at)
	if err != nil {
		return nil, fmt.Errorf("predict: lifetimes of %q: %w", dataset, err)
	}
	defer rows.Close()
	l := &Lifetimes{At: at, Lower: make([]float64, 0, f.Rows()), Upper: make([]float64, 0, f.Rows())}
	var vm int64
	var lo sql.NullFloat64
	var hi sql.NullFloat64
	i := 0
	for rows.Next() {
		if err := rows.Scan(&vm, &lo, &hi); err != nil {
			return nil, fmt.Errorf("predict: lifetimes of %q: %w", dataset, err)
		}
		if i >= f.Rows() || f.VMs[i] != vm {
			return nil, fmt.Errorf("predict: lifetimes of %q: row %d is vm %d, features have another order", dataset, i, vm)
		}
		if !lo.Valid {
			return nil, fmt.Errorf("predict: lifetimes of %q: vm %d has no start or age", dataset, vm)
		}
		u := math.Inf(1)
		if hi.Valid {
			u = hi.Float64
		}
		l.Lower, l.Upper = append(l.Lower, lo.Float64), append(l.Upper, u)
		if v := lo.Float64; hi.Valid && v > 0 && (l.Tick == 0 || v < l.Tick) {
			l.Tick = v
		}
		i++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("predict: lifetimes of %q: %w", dataset, err)
	}
	if i != f.Rows() {
		return nil, fmt.Errorf("predict: lifetimes of %q: %d rows for %d VMs", dataset, i, f.Rows())
	}
	return l, nil
}

// Interval is row r's lifetime as the AFT model takes it, [lo, hi]
// seconds (hi +Inf when censored). Bounds are floored at MinLifetime, but a
// lifetime recorded as exactly 0 — a VM that ended before the trace's
// clock ticked (7,029 of the Azure V1 dev trace's 244,842 finished VMs) —
// is the interval [MinLifetime, Tick]: it lived under a tick, not 1 s, and
// pinning it at 1 s would put it ln 300 ≈ 5.7 below its neighbours on the
// log scale the model fits.
func (l *Lifetimes) Interval(r int) (lo, hi float64) {
	lo, hi = math.Max(l.Lower[r], MinLifetime), math.Max(l.Upper[r], MinLifetime) // +Inf stays
	if l.Upper[r] == 0 && l.Lower[r] == 0 {
		hi = math.Max(l.Tick, MinLifetime)
	}
	return lo, hi
}

// bounds gathers the rows' Intervals as XGBoost's label bounds and counts
// the censored ones.
func (l *Lifetimes) bounds(rows []int) (lower, upper []float32, censored int) {
	lower, upper = make([]float32, len(rows)), make([]float32, len(rows))
	for i, r := range rows {
		lo, hi := l.Interval(r)
		lower[i], upper[i] = float32(lo), float32(hi)
		if !l.Observed(r) {
			censored++
		}
	}
	return lower, upper, censored
}

// SigmaScore is one point of the grid (σ, and the half-life of the
// training weights: RecencyWeights) on the validation slice: the mean
// log-likelihood per VM (the higher the better; the point chosen is the
// best) and the concordance of its predicted medians.
//
// A half-life tried against equal weights (chooseSigma) also has Gain, the
// mean per-VM log-likelihood it gains over the grid's first half-life at
// the same σ, and GainSE, that gain's standard error over the validation
// VMs (JSON null on the σ search's points).
type SigmaScore struct {
	Sigma    float64 `json:"sigma"`
	HalfLife float64 `json:"half_life_s"`
	LogLik   float64 `json:"validation_loglik"`
	CIndex   Frac    `json:"validation_c_index"`
	Gain     float64 `json:"-"`
	GainSE   float64 `json:"-"`
	HasGain  bool    `json:"-"`
}

// MarshalJSON writes Gain and GainSE as validation_loglik_gain and
// validation_loglik_gain_se, null where no gain was measured.
func (g SigmaScore) MarshalJSON() ([]byte, error) {
	type plain SigmaScore
	out := struct {
		plain
		Gain   *float64 `json:"validation_loglik_gain"`
		GainSE *float64 `json:"validation_loglik_gain_se"`
	}{plain: plain(g)}
	if g.HasGain {
		out.Gain, out.GainSE = &g.Gain, &g.GainSE
	}
	return json.Marshal(out)
}

// LogLikelihood is the mean log-likelihood of intervals [lower, upper] of T
// under ln T ~ N(μᵢ, σ²), on the log scale (observed lives contribute the
// density of ln T, ln φ(z)/σ; censored ones ln Q(z) at their lower bound;
// true intervals ln(Φ(z_u) − Φ(z_l))). Bounds are floored at MinLifetime.
func LogLikelihood(lower, upper, mu []float64, sigma float64) float64 {
	var sum float64
	for i := range lower {
		sum += logLik(lower[i], upper[i], mu[i], sigma)
	}
	return sum / float64(len(lower))
}

// logLik is one VM's term of LogLikelihood.
func logLik(lower, upper, mu, sigma float64) float64 {
	lo := math.Log(math.Max(lower, MinLifetime))
	zl := (lo - mu) / sigma
	switch {
	case math.IsInf(upper, 1):
		return logUpperTail(zl)
	case upper <= lower:
		return logPhi(zl) - math.Log(sigma)
	}
	zu := (math.Log(math.Max(upper, MinLifetime)) - mu) / sigma
	return math.Log(math.Max(upperTail(zl)-upperTail(zu), math.SmallestNonzeroFloat64))
}

// trainSurvival trains and stores the lifetime_dist model: XGBoost's AFT
// objective (log-normal) on the VMs created in [split.From, split.Cut),
// each labelled with its lifetime as known at the cut — observed if it
// ended by then, else censored at its age (never dropped; only a VM
// censored at age 0, whose label says nothing, is left out: Informative).
// σ and the training weights' half-life are chosen by validation
// log-likelihood (chooseSigma): models are trained on the VMs created in
// the first 1 − o.ValidShare of the training span (labels as known at that
// inner cut) and scored on the rest (labels as known at split.Cut),
// time-ordered like the outer split; the final model learns from every
// training VM with the σ and the weights chosen (RecencyWeights up to the
// cut). A non-empty skip says why there was too little to learn from.
func trainSurvival(ctx context.Context, db *store.DB, o TrainOptions, f *Frame, split Split, loadID int64,
	progress func(string)) (model *Model, skip string, err error) {
	lt, err := LoadLifetimes(ctx, db, o.Dataset, split.Cut, f)
	if err != nil {
		return nil, "", err
	}
	rows := lt.informative(f.rowsIn(split.From, split.Cut))
	if n := lt.observed(rows); n < MinTrainVMs {
		return nil, fmt.Sprintf("%d VMs created in [%.0f, %.0f) s ended by the cut, fewer than %d to learn lifetimes from (a trace published without durations, such as the Azure V1 train split, has none: start the span later with --from)",
			n, split.From, split.Cut, MinTrainVMs), nil
	}
	cols := f.featureCols(LifetimeDist)
	p := o.Survival
	p.Seed = o.Seed
	start := time.Now()
	grid, sigma, halfLife, err := chooseSigma(ctx, db, o, f, split, lt, cols, p, progress)
	if err != nil {
		return nil, "", err
	}
	p.AFTScale = sigma
	lower, upper, censored := lt.bounds(rows)
	var logSum float64
	for _, v := range lower {
		logSum += math.Log(float64(v))
	}
	p.BaseScore = math.Exp(logSum / float64(len(lower))) // TrainSurvival's default, stated
	progress(fmt.Sprintf("%s: %s on %d VMs (%d censored at the cut) × %d features, σ %g, half-life %s", LifetimeDist, AFT, len(rows), censored, len(cols), sigma, HalfLifeString(halfLife)))
	b, err := xgboost.TrainSurvival(ctx, f.matrix(rows, cols), len(rows), len(cols), lower, upper, RecencyWeights(f.Start, rows, split.Cut, halfLife), p)
	if err != nil {
		return nil, "", fmt.Errorf("predict: train %s on %q: %w", LifetimeDist, o.Dataset, err)
	}
	model = &Model{Name: ModelName(o.Dataset, LifetimeDist, AFT), Metric: LifetimeDist, Approach: AFT,
		Dataset: o.Dataset, LoadID: loadID, Params: p, Classes: LifetimeDist.Buckets(),
		TrainFrom: split.From, TrainTo: split.Cut, TrainRows: len(rows), TrainCensored: censored,
		SigmaGrid: grid, HalfLife: halfLife, TrainedAt: time.Now(), Booster: b}
	model.Features = FeatureSpec{View: "rc_features", Entity: f.EntityKind}
	for _, c := range cols {
		model.Features.Columns = append(model.Features.Columns, f.Names[c])
	}
	gain, err := b.Importance(xgboost.ImportanceTotalGain)
	if err != nil {
		model.Close()
		return nil, "", err
	}
	model.Importance = importance(model.Features.Columns, gain)
	model.Seconds = time.Since(start).Seconds()
	if err := model.save(ctx, db); err != nil {
		model.Close()
		return nil, "", err
	}
	return model, "", nil
}

// HalfLifeZ is how many standard errors a half-life's validation
// log-likelihood must gain over equal weights to be chosen (chooseSigma):
// weighing recent VMs more is a bet that the trace drifts, taken only on
// clear evidence, since a gain within the noise changes the model for
// nothing.
const HalfLifeZ = 2.0

// chooseSigma chooses σ and the training weights' half-life on the
// validation slice (see trainSurvival) and returns the grid's scores, the
// σ and the half-life. σ is chosen from o.Sigmas by validation
// log-likelihood with o.HalfLives[0]'s weights; then each other half-life
// is tried at that σ, and the one whose log-likelihood gains the most over
// o.HalfLives[0]'s is chosen if its gain, paired over the validation VMs,
// exceeds HalfLifeZ standard errors (pairedGain: clustered by entity). A single pair is taken as given; so
// is p.AFTScale with o.HalfLives[0] when either side of the inner split
// has fewer than MinTrainVMs VMs (the grid is then empty).
func chooseSigma(ctx context.Context, db *store.DB, o TrainOptions, f *Frame, split Split, lt *Lifetimes,
	cols []int, p xgboost.Params, progress func(string)) (grid []SigmaScore, sigma, halfLife float64, err error) {
	if len(o.Sigmas) == 1 && len(o.HalfLives) == 1 {
		return nil, o.Sigmas[0], o.HalfLives[0], nil
	}
	if len(o.Sigmas) == 1 {
		p.AFTScale = o.Sigmas[0]
	}
	vcut := split.From + (1-o.ValidShare)*(split.Cut-split.From)
	inner, err := LoadLifetimes(ctx, db, o.Dataset, vcut, f)
	if err != nil {
		return nil, 0, 0, err
	}
	sub, val := inner.informative(f.rowsIn(split.From, vcut)), lt.informative(f.rowsIn(vcut, split.Cut))
	if inner.observed(sub) < MinTrainVMs || lt.observed(val) < MinTrainVMs {
		progress(fmt.Sprintf("%s: %d VMs to learn from and %d to validate on, too few ended to choose σ and half-life: σ %g, half-life %s",
			LifetimeDist, len(sub), len(val), p.AFTScale, HalfLifeString(o.HalfLives[0])))
		return nil, p.AFTScale, o.HalfLives[0], nil
	}
	lower, upper, _ := inner.bounds(sub)
	x, xv := f.matrix(sub, cols), f.matrix(val, cols)
	vlo, vhi := make([]float64, len(val)), make([]float64, len(val))
	vobs := make([]bool, len(val))
	ent := make([]string, len(val))
	for i, r := range val {
		vlo[i], vhi[i] = lt.Interval(r)
		vobs[i] = lt.Observed(r)
		ent[i] = f.Entity[r]
	}
	// score trains at (s, h) and scores the validation VMs: per-VM
	// log-likelihoods and the grid point.
	score := func(s, h float64) ([]float64, SigmaScore, error) {
		q := p
		q.AFTScale = s
		b, err := xgboost.TrainSurvival(ctx, x, len(sub), len(cols), lower, upper, RecencyWeights(f.Start, sub, vcut, h), q)
		if err != nil {
			return nil, SigmaScore{}, fmt.Errorf("predict: train %s on %q, σ %g, half-life %s: %w", LifetimeDist, o.Dataset, s, HalfLifeString(h), err)
		}
		m32, err := b.PredictMargin(xv, len(val), len(cols))
		b.Close()
		if err != nil {
			return nil, SigmaScore{}, err
		}
		mu := margins(m32)
		ll := make([]float64, len(val))
		var sum float64
		for i := range ll {
			ll[i] = logLik(vlo[i], vhi[i], mu[i], s)
			sum += ll[i]
		}
		c, _ := HarrellC(vlo, vobs, mu)
		g := SigmaScore{Sigma: s, HalfLife: h, LogLik: sum / float64(len(ll)), CIndex: c}
		progress(fmt.Sprintf("%s: σ %g, half-life %s: validation log-likelihood %.4f, C-index %.4f (%d VMs to learn from, %d to validate on)",
			LifetimeDist, s, HalfLifeString(h), g.LogLik, float64(c), len(sub), len(val)))
		return ll, g, nil
	}
	h0 := o.HalfLives[0]
	var base []float64
	best := -1
	for _, s := range o.Sigmas {
		ll, g, err := score(s, h0)
		if err != nil {
			return nil, 0, 0, err
		}
		grid = append(grid, g)
		if best < 0 || g.LogLik > grid[best].LogLik {
			best, base = len(grid)-1, ll
		}
	}
	sigma, halfLife = grid[best].Sigma, h0
	bestGain := 0.0
	for _, h := range o.HalfLives[1:] {
		ll, g, err := score(sigma, h)
		if err != nil {
			return nil, 0, 0, err
		}
		g.Gain, g.GainSE = pairedGain(ll, base, ent)
		g.HasGain = true
		grid = append(grid, g)
		if g.Gain > HalfLifeZ*g.GainSE && g.Gain > bestGain {
			halfLife, bestGain = h, g.Gain
		}
	}
	return grid, sigma, halfLife, nil
}

// pairedGain is the mean of a[i] − b[i] over the validation VMs and its
// standard error, clustered by entity[i] (the VMs' subscription or
// tenant): a tenant's VMs share a deployment and their lifetimes move
// together, so counting them as independent draws would overstate the
// evidence (the cluster-robust estimator, with the G/(G−1) small-sample
// factor; 0 with one entity).
func pairedGain(a, b []float64, entity []string) (mean, se float64) {
	n := float64(len(a))
	for i := range a {
		mean += a[i] - b[i]
	}
	mean /= n
	sums := map[string]float64{}
	for i := range a {
		sums[entity[i]] += a[i] - b[i] - mean
	}
	g := float64(len(sums))
	if g < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range sums {
		ss += v * v
	}
	return mean, math.Sqrt(g/(g-1)*ss) / n
}

// RecencyWeights are the training weights of rows (indices into start,
// the VMs' creation times) for a model trained up to cut: a VM created d
// seconds before the cut weighs 2^(−d/halfLife), so the newest weigh about
// 1 and a VM one half-life older half as much. halfLife 0 weighs every VM
// the same (nil: XGBoost's default of 1).
func RecencyWeights(start []float64, rows []int, cut, halfLife float64) []float32 {
	if halfLife == 0 {
		return nil
	}
	w := make([]float32, len(rows))
	for i, r := range rows {
		w[i] = float32(math.Exp2(-math.Max(cut-start[r], 0) / halfLife))
	}
	return w
}

// HalfLifeString prints a half-life in seconds as --half-life takes it:
// "none" for 0, else in days, hours, minutes or seconds.
func HalfLifeString(h float64) string {
	switch {
	case h == 0:
		return "none"
	case math.Mod(h, 86400) == 0:
		return strconv.FormatFloat(h/86400, 'g', -1, 64) + "d"
	case math.Mod(h, 3600) == 0:
		return strconv.FormatFloat(h/3600, 'g', -1, 64) + "h"
	case math.Mod(h, 60) == 0:
		return strconv.FormatFloat(h/60, 'g', -1, 64) + "m"
	}
	return strconv.FormatFloat(h, 'g', -1, 64) + "s"
}

// margins widens XGBoost's float32 margins (μ).
func margins(m32 []float32) []float64 {
	out := make([]float64, len(m32))
	for i, v := range m32 {
		out[i] = float64(v)
	}
	return out
}

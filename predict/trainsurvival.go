package predict

import (
	"context"
	"database/sql"
	"fmt"
	"math"
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

// SigmaScore is one σ of the grid on the validation slice: the mean
// log-likelihood per VM (the higher the better; the σ chosen is the best)
// and the concordance of its predicted medians.
type SigmaScore struct {
	Sigma  float64 `json:"sigma"`
	LogLik float64 `json:"validation_loglik"`
	CIndex Frac    `json:"validation_c_index"`
}

// LogLikelihood is the mean log-likelihood of intervals [lower, upper] of T
// under ln T ~ N(μᵢ, σ²), on the log scale (observed lives contribute the
// density of ln T, ln φ(z)/σ; censored ones ln Q(z) at their lower bound;
// true intervals ln(Φ(z_u) − Φ(z_l))). Bounds are floored at MinLifetime.
func LogLikelihood(lower, upper, mu []float64, sigma float64) float64 {
	var sum float64
	for i := range lower {
		lo := math.Log(math.Max(lower[i], MinLifetime))
		zl := (lo - mu[i]) / sigma
		switch hi := upper[i]; {
		case math.IsInf(hi, 1):
			sum += logUpperTail(zl)
		case hi <= lower[i]:
			sum += logPhi(zl) - math.Log(sigma)
		default:
			zu := (math.Log(math.Max(hi, MinLifetime)) - mu[i]) / sigma
			sum += math.Log(math.Max(upperTail(zl)-upperTail(zu), math.SmallestNonzeroFloat64))
		}
	}
	return sum / float64(len(lower))
}

// trainSurvival trains and stores the lifetime_dist model: XGBoost's AFT
// objective (log-normal) on the VMs created in [split.From, split.Cut),
// each labelled with its lifetime as known at the cut — observed if it
// ended by then, else censored at its age (never dropped; only a VM
// censored at age 0, whose label says nothing, is left out: Informative). σ is chosen
// from o.Sigmas by the mean validation log-likelihood: models are trained
// on the VMs created in the first 1 − o.ValidShare of the training span
// (labels as known at that inner cut) and scored on the rest (labels as
// known at split.Cut), time-ordered like the outer split; the final model
// learns from every training VM with the σ chosen. A non-empty skip says
// why there was too little to learn from.
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
	grid, sigma, err := chooseSigma(ctx, db, o, f, split, lt, cols, p, progress)
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
	progress(fmt.Sprintf("%s: %s on %d VMs (%d censored at the cut) × %d features, σ %g", LifetimeDist, AFT, len(rows), censored, len(cols), sigma))
	b, err := xgboost.TrainSurvival(ctx, f.matrix(rows, cols), len(rows), len(cols), lower, upper, p)
	if err != nil {
		return nil, "", fmt.Errorf("predict: train %s on %q: %w", LifetimeDist, o.Dataset, err)
	}
	model = &Model{Name: ModelName(o.Dataset, LifetimeDist, AFT), Metric: LifetimeDist, Approach: AFT,
		Dataset: o.Dataset, LoadID: loadID, Params: p, Classes: LifetimeDist.Buckets(),
		TrainFrom: split.From, TrainTo: split.Cut, TrainRows: len(rows), TrainCensored: censored,
		SigmaGrid: grid, TrainedAt: time.Now(), Booster: b}
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

// chooseSigma scores each σ of o.Sigmas on the validation slice (see
// trainSurvival) and returns the scores and the best σ. One σ is taken as
// given; so is p.AFTScale when either side of the inner split has fewer
// than MinTrainVMs VMs (the grid is then empty).
func chooseSigma(ctx context.Context, db *store.DB, o TrainOptions, f *Frame, split Split, lt *Lifetimes,
	cols []int, p xgboost.Params, progress func(string)) ([]SigmaScore, float64, error) {
	if len(o.Sigmas) == 1 {
		return nil, o.Sigmas[0], nil
	}
	vcut := split.From + (1-o.ValidShare)*(split.Cut-split.From)
	inner, err := LoadLifetimes(ctx, db, o.Dataset, vcut, f)
	if err != nil {
		return nil, 0, err
	}
	sub, val := inner.informative(f.rowsIn(split.From, vcut)), lt.informative(f.rowsIn(vcut, split.Cut))
	if inner.observed(sub) < MinTrainVMs || lt.observed(val) < MinTrainVMs {
		progress(fmt.Sprintf("%s: %d VMs to learn from and %d to validate on, too few ended to choose σ: σ %g", LifetimeDist, len(sub), len(val), p.AFTScale))
		return nil, p.AFTScale, nil
	}
	lower, upper, _ := inner.bounds(sub)
	x, xv := f.matrix(sub, cols), f.matrix(val, cols)
	vlo, vhi := make([]float64, len(val)), make([]float64, len(val))
	vobs := make([]bool, len(val))
	for i, r := range val {
		vlo[i], vhi[i] = lt.Interval(r)
		vobs[i] = lt.Observed(r)
	}
	var grid []SigmaScore
	best := -1
	for _, s := range o.Sigmas {
		q := p
		q.AFTScale = s
		b, err := xgboost.TrainSurvival(ctx, x, len(sub), len(cols), lower, upper, q)
		if err != nil {
			return nil, 0, fmt.Errorf("predict: train %s on %q, σ %g: %w", LifetimeDist, o.Dataset, s, err)
		}
		m32, err := b.PredictMargin(xv, len(val), len(cols))
		b.Close()
		if err != nil {
			return nil, 0, err
		}
		mu := make([]float64, len(m32))
		for i, v := range m32 {
			mu[i] = float64(v)
		}
		c, _ := HarrellC(vlo, vobs, mu)
		g := SigmaScore{Sigma: s, LogLik: LogLikelihood(vlo, vhi, mu, s), CIndex: c}
		progress(fmt.Sprintf("%s: σ %g: validation log-likelihood %.4f, C-index %.4f (%d VMs to learn from, %d to validate on)",
			LifetimeDist, s, g.LogLik, float64(c), len(sub), len(val)))
		grid = append(grid, g)
		if best < 0 || g.LogLik > grid[best].LogLik {
			best = len(grid) - 1
		}
	}
	return grid, grid[best].Sigma, nil
}

package predict

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"placelab/predict/xgboost"
	store "placelab/sql"
)

// TrainOptions configure Train; start from DefaultTrainOptions.
type TrainOptions struct {
	Dataset string
	// Metrics to model; a metric the dataset has no labels for is an error
	// unless AllMetrics (then it is skipped and reported).
	Metrics    []Metric
	AllMetrics bool
	// Approach overrides RC Table 1's choice per bucket classifier (""
	// keeps it): Boosted or Forest. LifetimeDist is always AFT; Approach
	// AFT is accepted only when LifetimeDist is the one metric.
	Approach string
	// TrainShare of the span of creation times to learn from (RC: 2/3).
	TrainShare float64
	// From starts the span (0: the first creation at or after the trace's
	// start).
	From float64
	// Boosted and Forest are the XGBoost settings of each approach; their
	// NumClass is set per metric.
	Boosted, Forest xgboost.Params
	// Survival is the lifetime_dist model's settings (AFT, normal); its
	// AFTScale is the σ used when the grid cannot be searched.
	Survival xgboost.Params
	// Sigmas is the lifetime_dist model's σ grid (each > 0); one value is
	// taken without a search.
	Sigmas []float64
	// HalfLives is the grid of the lifetime_dist model's training-weight
	// half-life, in seconds (each ≥ 0; 0: equal weights), searched with
	// σ; one value with one σ is taken without a search.
	HalfLives []float64
	// ValidShare is the last share of the training span that validates σ,
	// in (0, 1).
	ValidShare float64
	Seed       uint64
	Progress   func(msg string)
}

// MinTrainVMs is the fewest training VMs with a known bucket a model is
// trained on; fewer is an error (or, for every metric, a skip).
const MinTrainVMs = 100

// DefaultTrainOptions: every metric of Table 4, Table 1's approaches, RC's
// split, the binding's defaults; for lifetime_dist (when asked for) a
// log-normal AFT model with σ chosen from DefaultSigmas.
func DefaultTrainOptions(dataset string) TrainOptions {
	return TrainOptions{Dataset: dataset, Metrics: append([]Metric(nil), Metrics...), AllMetrics: true,
		TrainShare: DefaultTrainShare, Boosted: xgboost.DefaultBoosted(4), Forest: xgboost.DefaultForest(4),
		Survival: xgboost.DefaultSurvival(xgboost.AFTNormal, xgboost.DefaultAFTScale),
		Sigmas:   append([]float64(nil), DefaultSigmas...), HalfLives: append([]float64(nil), DefaultHalfLives...),
		ValidShare: DefaultValidShare, Seed: 1}
}

// Validate refuses options Train cannot honour.
func (o *TrainOptions) Validate() error {
	if o.Dataset == "" {
		return fmt.Errorf("predict: no dataset")
	}
	if len(o.Metrics) == 0 {
		return fmt.Errorf("predict: no metric")
	}
	survival := false
	for _, m := range o.Metrics {
		if !m.valid() {
			return fmt.Errorf("predict: metric %q: want one of %s", m, metricList())
		}
		survival = survival || m == LifetimeDist
	}
	switch o.Approach {
	case "", Boosted, Forest:
	case AFT:
		if len(o.Metrics) != 1 || o.Metrics[0] != LifetimeDist {
			return fmt.Errorf("predict: approach %s fits only %s", AFT, LifetimeDist)
		}
	default:
		return fmt.Errorf("predict: approach %q: want %s or %s (%s for %s)", o.Approach, Boosted, Forest, AFT, LifetimeDist)
	}
	if survival {
		if err := checkSurvivalParams(o.Survival); err != nil {
			return err
		}
		if len(o.Sigmas) == 0 {
			return fmt.Errorf("predict: no σ for %s", LifetimeDist)
		}
		for _, s := range o.Sigmas {
			if !(s > 0) || math.IsInf(s, 1) {
				return fmt.Errorf("predict: σ %v: want a finite value > 0", s)
			}
		}
		if len(o.HalfLives) == 0 {
			return fmt.Errorf("predict: no half-life for %s (0: equal weights)", LifetimeDist)
		}
		for _, h := range o.HalfLives {
			if !(h >= 0) || math.IsInf(h, 1) {
				return fmt.Errorf("predict: half-life %v: want a finite value ≥ 0 seconds (0: equal weights)", h)
			}
		}
		if !(o.ValidShare > 0 && o.ValidShare < 1) {
			return fmt.Errorf("predict: validation share %v: want 0 < share < 1", o.ValidShare)
		}
	}
	if !(o.TrainShare > 0 && o.TrainShare < 1) {
		return fmt.Errorf("predict: train share %v: want 0 < share < 1", o.TrainShare)
	}
	if math.IsNaN(o.From) || math.IsInf(o.From, 0) {
		return fmt.Errorf("predict: from %v: want a finite time", o.From)
	}
	if o.Seed > xgboost.MaxSeed {
		return fmt.Errorf("predict: seed %d: want at most %d (XGBoost keeps 32 bits of a seed)", o.Seed, uint64(xgboost.MaxSeed))
	}
	for _, p := range []xgboost.Params{o.Boosted, o.Forest} {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// TrainResult lists the models stored and the metrics skipped (with why).
type TrainResult struct {
	Dataset string            `json:"dataset"`
	Split   Split             `json:"split"`
	Models  []*Model          `json:"models"`
	Skipped map[Metric]string `json:"skipped,omitempty"`
}

// Close frees the models' boosters.
func (r *TrainResult) Close() {
	for _, m := range r.Models {
		m.Close()
	}
}

// Train learns one bucket classifier per metric from the dataset's
// rc_features rows created in the first TrainShare of its span, with labels
// as known at the cut (a VM still running then is censored there), and
// stores each in the model table under ModelName, replacing an older one.
// LifetimeDist is a survival model instead (trainSurvival): the same rows
// and cut, each VM's lifetime known exactly or censored at its age.
func Train(ctx context.Context, db *store.DB, o TrainOptions) (*TrainResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	loadID, err := datasetLoad(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	progress("features")
	f, err := LoadFrame(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	split, err := TimeSplit(f, o.TrainShare, o.From)
	if err != nil {
		return nil, err
	}
	lab, err := LoadLabels(ctx, db, o.Dataset, split.Cut, f)
	if err != nil {
		return nil, err
	}
	res := &TrainResult{Dataset: o.Dataset, Split: split, Skipped: map[Metric]string{}}
	train := f.rowsIn(split.From, split.Cut)
	for _, m := range o.Metrics {
		if err := ctx.Err(); err != nil {
			res.Close()
			return nil, err
		}
		if m == LifetimeDist {
			model, why, err := trainSurvival(ctx, db, o, f, split, loadID, progress)
			switch {
			case err != nil:
				res.Close()
				return nil, err
			case why != "" && !o.AllMetrics:
				res.Close()
				return nil, fmt.Errorf("%w: dataset %q: %s", ErrNoData, o.Dataset, why)
			case why != "":
				res.Skipped[m] = why
			default:
				res.Models = append(res.Models, model)
			}
			continue
		}
		var rows []int
		var y []float32
		for _, r := range train {
			if b := lab.Bucket[m][r]; b > 0 {
				rows = append(rows, r)
				y = append(y, float32(b-1))
			}
		}
		if len(rows) < MinTrainVMs {
			why := fmt.Sprintf("%d VMs created in [%.0f, %.0f) s have a known %s, fewer than %d to learn from (are the creations bunched late in the span? start it later with --from, or move the cut with --train-share)",
				len(rows), split.From, split.Cut, m, MinTrainVMs)
			if !o.AllMetrics {
				res.Close()
				return nil, fmt.Errorf("%w: dataset %q: %s", ErrNoData, o.Dataset, why)
			}
			res.Skipped[m] = why
			continue
		}
		approach := m.Approach()
		if o.Approach != "" {
			approach = o.Approach
		}
		p := o.Boosted
		if approach == Forest {
			p = o.Forest
		}
		p.NumClass = m.Buckets()
		p.Seed = o.Seed
		cols := f.featureCols(m)
		progress(fmt.Sprintf("%s: %s on %d VMs × %d features", m, approach, len(rows), len(cols)))
		start := time.Now()
		b, err := xgboost.Train(ctx, f.matrix(rows, cols), len(rows), len(cols), y, nil, p)
		if err != nil {
			res.Close()
			return nil, fmt.Errorf("predict: train %s on %q: %w", m, o.Dataset, err)
		}
		model := &Model{Name: ModelName(o.Dataset, m, approach), Metric: m, Approach: approach,
			Dataset: o.Dataset, LoadID: loadID, Params: p, Classes: p.NumClass,
			TrainFrom: split.From, TrainTo: split.Cut, TrainRows: len(rows), TrainedAt: time.Now(), Booster: b}
		model.Features = FeatureSpec{View: "rc_features", Entity: f.EntityKind}
		for _, c := range cols {
			model.Features.Columns = append(model.Features.Columns, f.Names[c])
		}
		gain, err := b.Importance("total_gain")
		if err != nil {
			model.Close()
			res.Close()
			return nil, err
		}
		model.Importance = importance(model.Features.Columns, gain)
		model.Seconds = time.Since(start).Seconds()
		if err := model.save(ctx, db); err != nil {
			model.Close()
			res.Close()
			return nil, err
		}
		res.Models = append(res.Models, model)
	}
	return res, nil
}

// importance turns per-feature gains into shares of the total, largest
// first (features never split on are left out).
func importance(names []string, gain []float64) []Importance {
	total := 0.0
	for _, g := range gain {
		total += g
	}
	var out []Importance
	for i, g := range gain {
		if g > 0 && i < len(names) && total > 0 {
			out = append(out, Importance{Feature: names[i], Gain: math.Round(1e6*g/total) / 1e6})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Gain > out[b].Gain })
	return out
}

// ErrNoDataset says the database has no dataset of that name.
var ErrNoDataset = errors.New("predict: no such dataset")

func datasetLoad(ctx context.Context, db *store.DB, dataset string) (int64, error) {
	var id int64
	err := db.SQL().QueryRowContext(ctx, "SELECT load_id FROM dataset WHERE name = ?", dataset).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("%w %q (placelab sql \"SELECT name FROM dataset\" lists them)", ErrNoDataset, dataset)
	}
	return id, nil
}

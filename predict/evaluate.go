package predict

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	store "placelab/sql"
)

// The predictors beside a model in an evaluation.
const (
	// Majority predicts the bucket most training VMs fell in, scored by its
	// share of them.
	Majority = "majority"
	// History is the rule placelab used before models: the bucket most of
	// the entity's earlier VMs fell in (rc_features' hist_* shares), scored
	// by that share; without history, the majority bucket with score 0 (a
	// no-prediction under θ).
	History = "history"
)

// EvalOptions configure Evaluate.
type EvalOptions struct {
	Dataset string
	// Metrics to evaluate; nil: every metric with a stored model of the
	// dataset.
	Metrics []Metric
	// Approach picks the stored model per metric ("": Table 1's).
	Approach string
	// Version is recorded with the run.
	Version  string
	Progress func(msg string)
}

// Evaluation is one evaluation run: Table 4's rows per metric for the
// model and the two baselines, on the test VMs (created at or after the
// model's training cut) whose bucket is known.
type Evaluation struct {
	RunID   int64        `json:"run_id"`
	Dataset string       `json:"dataset"`
	Entity  string       `json:"entity"`
	Theta   float64      `json:"theta"`
	Rows    []Table4Row  `json:"rows"`
	Tests   []MetricTest `json:"tests"`
	Seconds float64      `json:"seconds"`
}

// MetricTest says what one metric's test set was: the window, the VMs
// created in it, and those left out because their bucket is unknown
// (censored lifetimes not yet past 24 h, VMs without CPU summaries).
type MetricTest struct {
	Metric    Metric  `json:"metric"`
	Model     string  `json:"model"`
	From      float64 `json:"from_s"`
	To        float64 `json:"to_s"`
	Created   int     `json:"created"`
	Known     int     `json:"known"`
	Censored  int     `json:"censored_unknown"`
	TrainRows int     `json:"train_rows"`
}

// Evaluate scores the dataset's stored models on their test windows beside
// the majority and history baselines, and stores the result as a run of
// engine "predict" with its prediction_eval rows.
func Evaluate(ctx context.Context, db *store.DB, o EvalOptions) (*Evaluation, error) {
	start := time.Now()
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	if o.Approach != "" && o.Approach != Boosted && o.Approach != Forest {
		return nil, fmt.Errorf("predict: approach %q: want %s or %s", o.Approach, Boosted, Forest)
	}
	loadID, err := datasetLoad(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	metrics := o.Metrics
	if metrics == nil {
		stored, err := ListModels(ctx, db, o.Dataset)
		if err != nil {
			return nil, err
		}
		for _, m := range Metrics {
			for _, s := range stored {
				if s.Metric == m && (o.Approach == "" && s.Approach == m.Approach() || s.Approach == o.Approach) {
					metrics = append(metrics, m)
					break
				}
			}
		}
		if len(metrics) == 0 {
			return nil, fmt.Errorf("%w for dataset %q (placelab predict train --dataset %s first)", ErrNoModel, o.Dataset, o.Dataset)
		}
	}
	for _, m := range metrics {
		if m == LifetimeDist {
			return nil, fmt.Errorf("predict: %s is a distribution, not a Table 4 bucket classifier: placelab predict survival evaluates it", m)
		}
	}
	progress("features")
	f, err := LoadFrame(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	truth, err := LoadLabels(ctx, db, o.Dataset, math.Inf(1), f)
	if err != nil {
		return nil, err
	}
	ev := &Evaluation{Dataset: o.Dataset, Entity: f.EntityKind, Theta: Theta}
	trainLabels := map[float64]*Labels{}
	for _, m := range metrics {
		approach := m.Approach()
		if o.Approach != "" {
			approach = o.Approach
		}
		model, err := LoadModel(ctx, db, ModelName(o.Dataset, m, approach))
		if err != nil {
			return nil, err
		}
		rows, err := evalMetric(ctx, db, f, truth, trainLabels, model, loadID, ev)
		model.Close()
		if err != nil {
			return nil, err
		}
		ev.Rows = append(ev.Rows, rows...)
		progress(fmt.Sprintf("%s: accuracy %.3f (majority %.3f, history %.3f)", m, rows[0].Accuracy, rows[1].Accuracy, rows[2].Accuracy))
	}
	ev.Seconds = time.Since(start).Seconds()
	if err := ev.store(ctx, db, loadID, o.Version, start); err != nil {
		return nil, err
	}
	return ev, nil
}

func evalMetric(ctx context.Context, db *store.DB, f *Frame, truth *Labels, trainLabels map[float64]*Labels,
	model *Model, loadID int64, ev *Evaluation) ([]Table4Row, error) {
	m := model.Metric
	if model.LoadID != loadID {
		return nil, fmt.Errorf("predict: model %s learned from load %d of %q, the dataset is now load %d: train it again",
			model.Name, model.LoadID, f.Dataset, loadID)
	}
	cols := make([]int, len(model.Features.Columns))
	for i, n := range model.Features.Columns {
		if cols[i] = f.Col(n); cols[i] < 0 {
			return nil, fmt.Errorf("predict: model %s reads feature %q, which rc_features no longer has: train it again", model.Name, n)
		}
	}
	// Majority: the most common training bucket as known at the cut.
	tl, ok := trainLabels[model.TrainTo]
	if !ok {
		var err error
		if tl, err = LoadLabels(ctx, db, f.Dataset, model.TrainTo, f); err != nil {
			return nil, err
		}
		trainLabels[model.TrainTo] = tl
	}
	counts := make([]int, m.Buckets()+1)
	trained := 0
	for _, r := range f.rowsIn(model.TrainFrom, model.TrainTo) {
		if b := tl.Bucket[m][r]; b > 0 {
			counts[b]++
			trained++
		}
	}
	maj := 1
	for b := 2; b <= m.Buckets(); b++ {
		if counts[b] > counts[maj] {
			maj = b
		}
	}
	majority := Prediction{Bucket: int8(maj), Score: float64(counts[maj]) / math.Max(float64(trained), 1)}
	// Test rows: created at or after the cut, bucket known.
	test := MetricTest{Metric: m, Model: model.Name, From: model.TrainTo, To: math.Inf(1), TrainRows: trained}
	var rows []int
	var y []int8
	for _, r := range f.rowsIn(model.TrainTo, math.Inf(1)) {
		test.Created++
		b := truth.Bucket[m][r]
		if b == 0 {
			if m == Lifetime && !math.IsNaN(truth.CensoredAge[r]) {
				test.Censored++
			}
			continue
		}
		rows = append(rows, r)
		y = append(y, b)
	}
	test.Known = len(rows)
	test.To = model.TrainTo
	for _, r := range rows {
		test.To = math.Max(test.To, f.Start[r])
	}
	ev.Tests = append(ev.Tests, test)
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: dataset %q: no VM created after %.0f s has a known %s to test %s on",
			ErrNoData, f.Dataset, model.TrainTo, m, model.Name)
	}
	pm, err := model.PredictRows(f.matrix(rows, cols), len(rows))
	if err != nil {
		return nil, err
	}
	pmaj := make([]Prediction, len(rows))
	phist := make([]Prediction, len(rows))
	hist := make([]int, m.Buckets())
	for b := range hist {
		hist[b] = f.Col(fmt.Sprintf("hist_%s_%d", m, b+1))
	}
	for i, r := range rows {
		pmaj[i] = majority
		phist[i] = Prediction{Bucket: int8(maj)}
		for b, c := range hist {
			if c < 0 {
				continue
			}
			s := float64(f.X[r*f.Cols()+c])
			if !math.IsNaN(s) && s > phist[i].Score {
				phist[i] = Prediction{Bucket: int8(b + 1), Score: s}
			}
		}
	}
	var out []Table4Row
	for _, p := range []struct {
		name string
		pred []Prediction
	}{{model.Approach, pm}, {Majority, pmaj}, {History, phist}} {
		row, err := Score(m, p.name, y, p.pred)
		if err != nil {
			return nil, err
		}
		if p.name == model.Approach {
			row.Model = model.Name
		}
		out = append(out, row)
	}
	return out, nil
}

func (ev *Evaluation) store(ctx context.Context, db *store.DB, loadID int64, version string, started time.Time) error {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return err
	}
	params, _ := json.Marshal(struct {
		Theta float64      `json:"theta"`
		Tests []MetricTest `json:"tests"`
	}{ev.Theta, ev.Tests})
	if version == "" {
		version = "dev"
	}
	null := func(f Frac) any {
		if math.IsNaN(float64(f)) {
			return nil
		}
		return float64(f)
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Append("run", id, "predict", "table4", string(params), int64(0), ev.Dataset,
			version, started.UTC(), time.Since(started).Seconds(), "done", loadID); err != nil {
			return err
		}
		for _, r := range ev.Rows {
			var model any
			if r.Model != "" {
				model = r.Model
			}
			if err := w.Append("prediction_eval", id, string(r.Metric), r.Predictor, model, int32(0), int64(r.VMs),
				nil, nil, nil, null(r.Accuracy), null(r.PTheta), null(r.RTheta), null(r.Coverage)); err != nil {
				return err
			}
			for _, b := range r.Buckets {
				if err := w.Append("prediction_eval", id, string(r.Metric), r.Predictor, model, int32(b.Bucket), int64(b.VMs),
					null(b.Share), null(b.Precision), null(b.Recall), nil, nil, nil, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("predict: store evaluation: %w", err)
	}
	ev.RunID = id
	return nil
}

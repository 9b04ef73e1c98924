package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"placelab/analysis/replay"
	"sort"
	"time"

	"placelab/optimizer/paragon"
	store "placelab/sql"
)

// ErrNoMatrix says a dataset has no app × platform scores.
var ErrNoMatrix = errors.New("analysis: no app_score platform matrix")

// AppMatrix is a dataset's app × platform matrix: Score[a][c] normalized
// per app (1 = best, higher is better), Raw the measured value (a run time,
// lower is better), NaN-free: absent cells are absent from Known.
type AppMatrix struct {
	Dataset string
	Apps    []string
	Cols    []string
	Score   []map[int]float64
	Raw     []map[int]float64
}

// LoadAppMatrix reads a dataset's platform matrix (placelab ingest lumos).
func LoadAppMatrix(ctx context.Context, db *store.DB, dataset string) (*AppMatrix, error) {
	m := &AppMatrix{Dataset: dataset}
	appIdx, colIdx := map[string]int{}, map[string]int{}
	type cell struct {
		a, c       string
		score, raw float64
	}
	var cells []cell
	err := each(ctx, db.SQL(), "paragon_matrix", []any{dataset}, func(r *sql.Rows) error {
		var c cell
		var raw sql.NullFloat64
		if err := r.Scan(&c.a, &c.c, &c.score, &raw); err != nil {
			return err
		}
		c.raw = raw.Float64
		if !raw.Valid {
			c.raw = 1 / c.score
		}
		cells = append(cells, c)
		if _, ok := colIdx[c.c]; !ok {
			colIdx[c.c] = 0
			m.Cols = append(m.Cols, c.c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%w in dataset %q (load one with placelab ingest lumos)", ErrNoMatrix, dataset)
	}
	sort.Strings(m.Cols)
	for i, c := range m.Cols {
		colIdx[c] = i
	}
	for _, c := range cells {
		a, ok := appIdx[c.a]
		if !ok {
			a = len(m.Apps)
			appIdx[c.a] = a
			m.Apps = append(m.Apps, c.a)
			m.Score = append(m.Score, map[int]float64{})
			m.Raw = append(m.Raw, map[int]float64{})
		}
		m.Score[a][colIdx[c.c]] = c.score
		m.Raw[a][colIdx[c.c]] = c.raw
	}
	return m, nil
}

// ClassifyOptions configure EvaluateClassification.
type ClassifyOptions struct {
	// Known entries revealed per evaluated app (the paper profiles two).
	Known int
	// Folds: when TRAIN and TEST are the same dataset, apps are split into
	// this many folds by a hash of their name; each fold is evaluated with
	// a model trained on the others (0: 5).
	Folds int
	// LeaveOneOut evaluates each app of the dataset with a model trained on
	// all the others (TRAIN and TEST the same; Folds is then unused).
	LeaveOneOut bool
	Seed        uint64
	Train       paragon.Options
}

// ClassifyReport is Table 1's metrics on real data.
type ClassifyReport struct {
	Train   string `json:"train"`
	Test    string `json:"test"`
	Known   int    `json:"known"`
	Folds   int    `json:"folds,omitempty"`
	Columns int    `json:"columns"`
	paragon.HeterogeneityMetrics
	// Baseline: the same metrics for predicting every held-out app by the
	// training apps' mean normalized score per platform (no fold-in).
	Baseline paragon.HeterogeneityMetrics `json:"column_mean_baseline"`
	Rank     int                          `json:"rank"`
	Seconds  float64                      `json:"seconds"`
	// FoldInUS is the mean time to classify one app.
	FoldInUS float64 `json:"fold_in_us"`
}

// EvaluateClassification learns the platform matrix of train and, for each
// app of test, reveals Known of its measurements (chosen at random, seeded
// by the app's name), predicts the rest by folding the app into the
// learned factors from its raw measurements (a new app's best is unknown,
// so the revealed performances — 1 / run time — are scaled by the fold-in,
// paragon.FoldInScaled), and scores the predicted row against the app's true
// normalized row (Paragon Table 1). With train == test the apps are
// evaluated fold by fold, never by a model that saw them.
func EvaluateClassification(ctx context.Context, db *store.DB, train, test string, o ClassifyOptions) (*ClassifyReport, error) {
	start := time.Now()
	if o.Known < 1 {
		return nil, fmt.Errorf("analysis: known = %d, want ≥ 1", o.Known)
	}
	if o.Folds == 0 {
		o.Folds = 5
	}
	tm, err := LoadAppMatrix(ctx, db, train)
	if err != nil {
		return nil, err
	}
	em := tm
	if test != train {
		if em, err = LoadAppMatrix(ctx, db, test); err != nil {
			return nil, err
		}
	}
	colOf := map[string]int{}
	for i, c := range tm.Cols {
		colOf[c] = i
	}
	if o.LeaveOneOut && test != train {
		return nil, fmt.Errorf("analysis: leave-one-out needs TEST = TRAIN, not %s and %s", test, train)
	}
	if o.Folds < 2 && !o.LeaveOneOut {
		return nil, fmt.Errorf("analysis: folds = %d, want ≥ 2", o.Folds)
	}
	rep := &ClassifyReport{Train: train, Test: test, Known: o.Known, Columns: len(tm.Cols)}
	appIndex := make(map[string]int, len(tm.Apps))
	for i, a := range tm.Apps {
		appIndex[a] = i
	}
	fold := func(app string) int {
		if o.LeaveOneOut {
			return appIndex[app]
		}
		h := fnv.New32a()
		h.Write([]byte(app))
		return int(h.Sum32() % uint32(o.Folds))
	}
	if o.LeaveOneOut {
		o.Folds = len(tm.Apps)
	}
	folds := []int{-1}
	if test == train {
		rep.Folds = o.Folds
		folds = folds[:0]
		for f := 0; f < o.Folds; f++ {
			folds = append(folds, f)
		}
	}
	var preds, base []paragon.Prediction
	var foldTime time.Duration
	var folded int
	for _, f := range folds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a := paragon.NewSparse(len(tm.Apps), len(tm.Cols))
		rows := 0
		for i, app := range tm.Apps {
			if f >= 0 && fold(app) == f {
				continue
			}
			for _, c := range sortedKeys(tm.Score[i]) {
				a.Set(rows, c, tm.Score[i][c])
			}
			rows++
		}
		a = trimRows(a, rows, len(tm.Cols))
		opts := o.Train
		if opts == (paragon.Options{}) {
			opts = paragon.DefaultOptions()
		}
		opts.Seed = o.Seed + uint64(f+1)
		model, err := paragon.Train(a, opts)
		if err != nil {
			return nil, fmt.Errorf("analysis: paragon train on %s: %w", train, err)
		}
		rep.Rank = model.Rank()
		colMean := make([]float64, len(tm.Cols))
		colN := make([]float64, len(tm.Cols))
		for r := 0; r < rows; r++ {
			row := a.Row(r)
			for _, c := range sortedKeys(row) {
				colMean[c] += row[c]
				colN[c]++
			}
		}
		for c := range colMean {
			if colN[c] > 0 {
				colMean[c] /= colN[c]
			}
		}
		for i, app := range em.Apps {
			if f >= 0 && fold(app) != f {
				continue
			}
			truth := make([]float64, len(tm.Cols))
			var have []int
			for c, v := range em.Score[i] {
				tc, ok := colOf[em.Cols[c]]
				if !ok {
					continue
				}
				truth[tc] = v
				have = append(have, tc)
			}
			if len(have) != len(tm.Cols) || len(have) <= o.Known {
				continue // only fully measured apps can be scored on every column
			}
			sort.Ints(have)
			h := fnv.New64a()
			h.Write([]byte(app))
			rng := rand.New(rand.NewPCG(o.Seed, h.Sum64()))
			rng.Shuffle(len(have), func(x, y int) { have[x], have[y] = have[y], have[x] })
			known := append([]int(nil), have[:o.Known]...)
			sort.Ints(known)
			raw := map[int]float64{}
			for _, c := range known {
				for ec, name := range em.Cols {
					if colOf[name] == c {
						raw[c] = 1 / em.Raw[i][ec]
					}
				}
			}
			t0 := time.Now()
			row, _ := model.FoldInScaled(raw)
			foldTime += time.Since(t0)
			folded++
			preds = append(preds, paragon.Prediction{Predicted: row, Truth: truth, Known: known})
			base = append(base, paragon.Prediction{Predicted: colMean, Truth: truth, Known: known})
		}
	}
	if len(preds) == 0 {
		return nil, fmt.Errorf("analysis: no app of %s is measured on every platform of %s", test, train)
	}
	rep.HeterogeneityMetrics = paragon.Heterogeneity(preds)
	rep.Baseline = paragon.Heterogeneity(base)
	rep.FoldInUS = float64(foldTime.Microseconds()) / float64(folded)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// trimRows copies the first rows of a into a matrix of that many rows.
func trimRows(a *paragon.Sparse, rows, cols int) *paragon.Sparse {
	out := paragon.NewSparse(rows, cols)
	for r := 0; r < rows; r++ {
		row := a.Row(r)
		for _, c := range sortedKeys(row) {
			out.Set(r, c, row[c])
		}
	}
	return out
}

// sortedKeys returns a row's columns in order: the matrix is built in the
// same order every run, so training is reproducible.
func sortedKeys(m map[int]float64) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// Figures lists the report as run_metric rows.
func (r *ClassifyReport) Figures() []replay.MetricRow {
	f := func(n string, v float64) replay.MetricRow { return replay.MetricRow{Metric: n, Value: v} }
	h := r.HeterogeneityMetrics
	return []replay.MetricRow{f("workloads", float64(h.Workloads)), f("best_sc_accuracy", h.BestSC), f("within_5pct_accuracy", h.Within5),
		f("rank_exact", h.RankExact), f("rank_90pct", h.Rank90), f("rank_50pct", h.Rank50), f("mean_abs_error", h.MeanAbsError),
		f("mean_rel_error", h.MeanRelError), f("rank", float64(r.Rank)), f("fold_in_us", r.FoldInUS),
		f("baseline_best_sc_accuracy", r.Baseline.BestSC), f("baseline_within_5pct_accuracy", r.Baseline.Within5),
		f("baseline_mean_abs_error", r.Baseline.MeanAbsError)}
}

// ScheduleFigures lists a scenario result as run_metric rows.
func ScheduleFigures(r *paragon.Result) []replay.MetricRow {
	f := func(n string, v float64) replay.MetricRow { return replay.MetricRow{Metric: n, Value: v} }
	return []replay.MetricRow{f("qos_share", r.QoSShare), f("mean_normalized_perf", r.MeanNormalizedPerf),
		f("within_10pct_share", r.Within10Share), f("degraded_20pct_share", r.Degraded20Share), f("apps", float64(r.Apps)),
		f("servers", float64(r.Servers))}
}

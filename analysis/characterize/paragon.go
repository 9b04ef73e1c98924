package characterize

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"

	"placelab/optimizer/paragon"
	store "placelab/sql"
)

// ErrNoMatrix says a dataset has no app × platform scores.
var ErrNoMatrix = errors.New("analysis: no app_score platform matrix")

// AppMatrix is a dataset's app × platform matrix: Score[a][c] normalized
// per app (1 = best, higher is better), Raw the measured value (a run time,
// lower is better), NaN-free: absent cells are absent from Known.
// Application[a] is the application app a belongs to (itself when the
// source names none): cross-validation holds out whole applications.
type AppMatrix struct {
	Dataset     string
	Apps        []string
	Application []string
	Cols        []string
	Score       []map[int]float64
	Raw         []map[int]float64
}

// LoadAppMatrix reads a dataset's platform matrix (placelab ingest lumos).
func LoadAppMatrix(ctx context.Context, db *store.DB, dataset string) (*AppMatrix, error) {
	m := &AppMatrix{Dataset: dataset}
	appIdx, colIdx := map[string]int{}, map[string]int{}
	type cell struct {
		a, c, application string
		score, raw        float64
	}
	var cells []cell
	err := analysis.Each(ctx, db.SQL(), "paragon_matrix", []any{dataset}, func(r *sql.Rows) error {
		var c cell
		var raw sql.NullFloat64
		if err := r.Scan(&c.a, &c.c, &c.score, &raw, &c.application); err != nil {
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
			m.Application = append(m.Application, c.application)
			m.Score = append(m.Score, map[int]float64{})
			m.Raw = append(m.Raw, map[int]float64{})
		}
		m.Score[a][colIdx[c.c]] = c.score
		m.Raw[a][colIdx[c.c]] = c.raw
	}
	return m, nil
}

// ClassifyOptions configure EvaluateClassification. Start from
// DefaultClassifyOptions.
type ClassifyOptions struct {
	// Folds: when TRAIN and TEST are the same dataset, 0 holds out one
	// application (all its apps: Lumos's data sizes of one program) at a
	// time; N ≥ 2 splits the applications into N folds by a hash of their
	// name. Each fold is classified by a model trained on the others.
	Folds int
	// Platform configures the classifier; Platform.Known is the number of
	// platforms profiled per app (the paper profiles two).
	Platform paragon.PlatformOptions
	// Seed draws the random profiles (SelectRandom and the random-profile
	// reference).
	Seed uint64
}

// DefaultClassifyOptions: leave one application out, the platform
// classifier's defaults, seed 1.
func DefaultClassifyOptions() ClassifyOptions {
	return ClassifyOptions{Platform: paragon.DefaultPlatformOptions(), Seed: 1}
}

// ClassifyReport is Table 1's metrics on real data, with the references
// that say what they mean: the platform means (no profiling), the same
// classifier profiling random platforms (§2.2's "any two"), and the
// repeat ceiling (how well one repeat of the measurements agrees with
// another).
type ClassifyReport struct {
	Train string `json:"train"`
	Test  string `json:"test"`
	Known int    `json:"known"`
	// Holdout says how TEST's apps were kept out of training:
	// "application" (one application at a time), "folds" (Folds folds of
	// applications) or "dataset" (TEST is another dataset).
	Holdout      string `json:"holdout"`
	Folds        int    `json:"folds"`
	Applications int    `figure:"applications" json:"applications"`
	Columns      int    `json:"columns"`
	// ProfileMethod is the requested selection method; ChosenMethods
	// counts the method each trained model used (the cross-validation's
	// choice under "cv").
	ProfileMethod string         `json:"profile_method"`
	ChosenMethods map[string]int `json:"chosen_methods"`
	// Profile names the profiled platforms when one model classified every
	// app (TEST another dataset) and CV is its cross-validation table.
	Profile                      []string              `json:"profile,omitempty"`
	CV                           []paragon.CVCandidate `json:"profile_cv,omitempty"`
	paragon.HeterogeneityMetrics `figure:",inline"`
	// Baseline: every app predicted by the training apps' mean normalized
	// score per platform (no profiling).
	Baseline paragon.HeterogeneityMetrics `figure:"baseline_,inline,only=best_sc_accuracy within_5pct_accuracy within_10pct_accuracy mean_abs_error" json:"column_mean_baseline"`
	// RandomProfile: the same trained classifier, each app profiled on
	// Known platforms drawn at random.
	RandomProfile paragon.HeterogeneityMetrics `figure:"random_profile_,inline,only=best_sc_accuracy within_5pct_accuracy within_10pct_accuracy" json:"random_profile"`
	// Ceiling: the repeat ceiling of TEST's evaluated apps (nil when the
	// dataset holds no repeated runs: ingested before placelab stored them).
	Ceiling *RepeatCeiling `figure:"ceiling_,inline" json:"repeat_ceiling"`
	Rank    int            `figure:"rank" json:"rank"`
	Seconds float64        `json:"seconds"`
	// FoldInUS is the mean time to classify one app.
	FoldInUS float64 `figure:"fold_in_us" json:"fold_in_us"`
}

// RepeatCeiling is how often one repeat of a campaign's measurements picks
// what another repeat of the same cells calls best: for every app, campaign
// and ordered pair of repeat numbers (r, r′) measured on at least two
// common platforms, the platform fastest in r is scored against r′ by the
// same tie-aware rules as a classifier's pick. A classifier scored against
// the median of the repeats is not bounded by it exactly, but a best-SC
// figure above the ceiling's is more than the data can tell apart.
type RepeatCeiling struct {
	Comparisons int     `figure:"comparisons" json:"comparisons"`
	BestSC      float64 `figure:"best_sc_accuracy" json:"best_sc_accuracy"`
	Within5     float64 `figure:"within_5pct_accuracy" json:"within_5pct_accuracy"`
	Within10    float64 `figure:"within_10pct_accuracy" json:"within_10pct_accuracy"`
	// Campaigns: the same per campaign, with the most platforms a
	// comparison had in it.
	Campaigns []CampaignCeiling `json:"campaigns"`
}

// CampaignCeiling is RepeatCeiling for one campaign.
type CampaignCeiling struct {
	Campaign    string  `json:"campaign"`
	Columns     int     `json:"columns"`
	Comparisons int     `json:"comparisons"`
	BestSC      float64 `json:"best_sc_accuracy"`
	Within5     float64 `json:"within_5pct_accuracy"`
	Within10    float64 `json:"within_10pct_accuracy"`
}

// EvaluateClassification learns the platform matrix of train and, for each
// app of test, profiles the platforms the classifier chooses (measured
// performance: 1 / the app's raw run time), predicts the rest by the
// classifier's regularized fold-in, and scores its pick and row against
// the app's true normalized row (Paragon Table 1). With train == test the
// apps are classified fold by fold of whole applications, never by a model
// that saw any data size of the same program. Only apps measured on every
// platform are scored (their best is known).
func EvaluateClassification(ctx context.Context, db *store.DB, train, test string, o ClassifyOptions) (*ClassifyReport, error) {
	start := time.Now()
	if o.Folds != 0 && (o.Folds < 2 || test != train) {
		if test != train {
			return nil, fmt.Errorf("analysis: folds = %d: folds apply when TEST is TRAIN, not %s and %s", o.Folds, test, train)
		}
		return nil, fmt.Errorf("analysis: folds = %d, want 0 (one application at a time) or ≥ 2", o.Folds)
	}
	tm, err := LoadAppMatrix(ctx, db, train)
	if err != nil {
		return nil, err
	}
	if err := o.Platform.Validate(len(tm.Cols)); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
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
	rep := &ClassifyReport{Train: train, Test: test, Known: o.Platform.Known, Columns: len(tm.Cols),
		ProfileMethod: o.Platform.Method, ChosenMethods: map[string]int{}}
	// Folds of applications: fold(app) names the fold an app of tm is in.
	var folds []string
	fold := func(i int) string { return "" }
	switch {
	case test != train:
		rep.Holdout = "dataset"
		folds = []string{""}
	case o.Folds == 0:
		rep.Holdout = "application"
		fold = func(i int) string { return tm.Application[i] }
		folds = slices.Compact(slices.Sorted(slices.Values(slices.Clone(tm.Application))))
	default:
		rep.Holdout = "folds"
		fold = func(i int) string {
			h := fnv.New32a()
			h.Write([]byte(tm.Application[i]))
			return fmt.Sprint(h.Sum32() % uint32(o.Folds))
		}
		for f := 0; f < o.Folds; f++ {
			folds = append(folds, fmt.Sprint(f))
		}
	}
	rep.Folds = len(folds)
	apps := map[string]bool{}
	var preds, base, random []paragon.Prediction
	var scored []string
	var foldTime time.Duration
	for _, f := range folds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var rows []map[int]float64
		var groups []string
		for i := range tm.Apps {
			if test == train && fold(i) == f {
				continue
			}
			rows = append(rows, tm.Score[i])
			groups = append(groups, tm.Application[i])
		}
		// The test apps of this fold: measured on every training platform.
		type testApp struct {
			i     int
			truth []float64
			raw   []float64
		}
		var tests []testApp
		for i := range em.Apps {
			if test == train && fold(i) != f {
				continue
			}
			ta := testApp{i: i, truth: make([]float64, len(tm.Cols)), raw: make([]float64, len(tm.Cols))}
			n := 0
			for c, v := range em.Score[i] {
				if tc, ok := colOf[em.Cols[c]]; ok {
					ta.truth[tc], ta.raw[tc] = v, em.Raw[i][c]
					n++
				}
			}
			if n != len(tm.Cols) {
				continue // only fully measured apps can be scored on every column
			}
			tests = append(tests, ta)
		}
		if len(tests) == 0 {
			continue
		}
		if len(rows) < 2 {
			return nil, fmt.Errorf("analysis: %s has %d training apps outside fold %q, want ≥ 2", train, len(rows), f)
		}
		cl, err := paragon.TrainPlatform(rows, groups, len(tm.Cols), o.Platform)
		if err != nil {
			return nil, fmt.Errorf("analysis: paragon train on %s: %w", train, err)
		}
		rep.Rank = cl.Model.Rank()
		rep.ChosenMethods[cl.Method]++
		if test != train {
			rep.CV = cl.CV
			for _, c := range cl.Profile {
				rep.Profile = append(rep.Profile, tm.Cols[c])
			}
		}
		colMean := paragon.RowMeans(rows, len(tm.Cols))
		for _, ta := range tests {
			app := em.Apps[ta.i]
			apps[em.Application[ta.i]] = true
			scored = append(scored, app)
			h := fnv.New64a()
			h.Write([]byte(app))
			rng := rand.New(rand.NewPCG(o.Seed, h.Sum64()))
			measure := func(cols []int) map[int]float64 {
				perf := make(map[int]float64, len(cols))
				for _, c := range cols {
					perf[c] = 1 / ta.raw[c]
				}
				return perf
			}
			t0 := time.Now()
			pc := cl.Classify(measure(cl.ProfileFor(rng)))
			foldTime += time.Since(t0)
			preds = append(preds, paragon.Prediction{Predicted: pc.Perf, Truth: ta.truth, Known: pc.Known, Pick: pc.Pick, Picked: true})
			base = append(base, paragon.Prediction{Predicted: colMean, Truth: ta.truth})
			rc := rng.Perm(len(tm.Cols))[:o.Platform.Known]
			rp := cl.Classify(measure(rc))
			random = append(random, paragon.Prediction{Predicted: rp.Perf, Truth: ta.truth, Known: rp.Known, Pick: rp.Pick, Picked: true})
		}
	}
	if len(preds) == 0 {
		return nil, fmt.Errorf("analysis: no app of %s is measured on every platform of %s", test, train)
	}
	rep.Applications = len(apps)
	rep.HeterogeneityMetrics = paragon.Heterogeneity(preds)
	rep.Baseline = paragon.Heterogeneity(base)
	rep.RandomProfile = paragon.Heterogeneity(random)
	if rep.Ceiling, err = repeatCeiling(ctx, db, test, scored); err != nil {
		return nil, err
	}
	rep.FoldInUS = float64(foldTime.Nanoseconds()) / 1e3 / float64(len(preds))
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// repeatCeiling computes RepeatCeiling over the runs of the given apps of
// a dataset (nil when it has none).
func repeatCeiling(ctx context.Context, db *store.DB, dataset string, apps []string) (*RepeatCeiling, error) {
	want := make(map[string]bool, len(apps))
	for _, a := range apps {
		want[a] = true
	}
	type key struct{ app, campaign string }
	runs := map[key]map[string]map[string]float64{} // → repeat → col → value
	var keys []key
	err := analysis.Each(ctx, db.SQL(), "paragon_runs", []any{dataset}, func(r *sql.Rows) error {
		var k key
		var repeat, col string
		var v float64
		if err := r.Scan(&k.app, &k.campaign, &repeat, &col, &v); err != nil {
			return err
		}
		if !want[k.app] {
			return nil
		}
		if runs[k] == nil {
			runs[k] = map[string]map[string]float64{}
			keys = append(keys, k)
		}
		if runs[k][repeat] == nil {
			runs[k][repeat] = map[string]float64{}
		}
		runs[k][repeat][col] = v
		return nil
	})
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	byCampaign := map[string][]paragon.Prediction{}
	widest := map[string]int{}
	var campaigns []string
	var all []paragon.Prediction
	for _, k := range keys {
		reps := slices.Sorted(maps.Keys(runs[k]))
		for _, r1 := range reps {
			for _, r2 := range reps {
				if r1 == r2 {
					continue
				}
				var pred, truth []float64
				best := math.Inf(1)
				for _, col := range slices.Sorted(maps.Keys(runs[k][r1])) {
					if v2, ok := runs[k][r2][col]; ok {
						pred = append(pred, 1/runs[k][r1][col])
						truth = append(truth, v2)
						best = math.Min(best, v2)
					}
				}
				if len(pred) < 2 {
					continue
				}
				for i := range truth {
					truth[i] = best / truth[i]
				}
				p := paragon.Prediction{Predicted: pred, Truth: truth}
				if _, ok := byCampaign[k.campaign]; !ok {
					campaigns = append(campaigns, k.campaign)
				}
				byCampaign[k.campaign] = append(byCampaign[k.campaign], p)
				widest[k.campaign] = max(widest[k.campaign], len(pred))
				all = append(all, p)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	h := paragon.Heterogeneity(all)
	c := &RepeatCeiling{Comparisons: len(all), BestSC: h.BestSC, Within5: h.Within5, Within10: h.Within10}
	sort.Strings(campaigns)
	for _, name := range campaigns {
		hc := paragon.Heterogeneity(byCampaign[name])
		c.Campaigns = append(c.Campaigns, CampaignCeiling{Campaign: name, Columns: widest[name], Comparisons: len(byCampaign[name]),
			BestSC: hc.BestSC, Within5: hc.Within5, Within10: hc.Within10})
	}
	return c, nil
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
func (r *ClassifyReport) Figures() []replay.MetricRow { return analysis.Figures(r) }

// SummaryFigures lists a scenario run over seeds as run_metric rows: per
// policy the median QoS share and mean normalized performance with their
// least and greatest value over the seeds ("qos_share policy=paragon",
// "qos_share_min policy=paragon", …), why QoS was missed (median shares
// placed on a configuration more than 5% from the best, and missed through
// interference), the share of arrivals that found demand above usable
// capacity; and for the scenario its usable capacity, load, seeds, Table
// 1's four figures on the arrivals (medians), the seeds on which oracle ≥
// paragon ≥ max(nh, ni, random), and Paragon's gap to the oracle with what
// each half of the oracle closes.
func SummaryFigures(s *paragon.Summary) []replay.MetricRow {
	f := func(n string, v float64) replay.MetricRow { return replay.MetricRow{Metric: n, Value: v} }
	var rows []replay.MetricRow
	for _, p := range s.Policies {
		tag := " policy=" + p.Policy
		rows = append(rows, f("qos_share"+tag, p.QoSShare.Median), f("qos_share_min"+tag, p.QoSShare.Min), f("qos_share_max"+tag, p.QoSShare.Max),
			f("mean_normalized_perf"+tag, p.MeanNormalizedPerf.Median), f("mean_normalized_perf_min"+tag, p.MeanNormalizedPerf.Min),
			f("mean_normalized_perf_max"+tag, p.MeanNormalizedPerf.Max), f("qos_miss_platform"+tag, p.MissPlatform.Median),
			f("qos_miss_interference"+tag, p.MissInterference.Median), f("above_usable_share"+tag, p.AboveUsableShare.Median))
	}
	rows = append(rows, f("seeds", float64(len(s.Seeds))), f("servers", float64(s.Servers)), f("apps", float64(s.Apps)),
		f("cores", s.Cores.Median), f("usable_cores", s.UsableCores.Median), f("usable_cores_min", s.UsableCores.Min),
		f("usable_cores_max", s.UsableCores.Max), f("load", s.Load),
		f("best_sc_accuracy", s.Table1.BestSC.Median), f("within_5pct_accuracy", s.Table1.Within5.Median),
		f("rank_exact", s.Table1.RankExact.Median), f("rank_90pct", s.Table1.Rank90.Median))
	if s.OrderingChecked {
		rows = append(rows, f("ordered_seeds", float64(s.OrderedSeeds)))
	}
	if g := s.Gap; g != nil {
		rows = append(rows, f("gap_oracle_minus_paragon", g.OracleMinusParagon.Median), f("gap_closed_by_true_platform", g.TruePlatform.Median),
			f("gap_closed_by_true_interference", g.TrueInterference.Median))
	}
	return rows
}

// ScheduleFigures lists a scenario result as run_metric rows.
func ScheduleFigures(r *paragon.Result) []replay.MetricRow {
	f := func(n string, v float64) replay.MetricRow { return replay.MetricRow{Metric: n, Value: v} }
	return []replay.MetricRow{f("qos_share", r.QoSShare), f("mean_normalized_perf", r.MeanNormalizedPerf),
		f("within_10pct_share", r.Within10Share), f("degraded_20pct_share", r.Degraded20Share), f("apps", float64(r.Apps)),
		f("servers", float64(r.Servers)), f("usable_cores", r.UsableCores), f("load", r.Load),
		f("qos_miss_platform", r.MissPlatform), f("qos_miss_interference", r.MissInterference),
		f("above_usable_share", r.AboveUsableShare)}
}

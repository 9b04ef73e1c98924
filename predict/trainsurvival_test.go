package predict

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"placelab/predict/xgboost"
)

// TestTrainSurvival trains the lifetime_dist model on a small synthetic
// zone beside the lifetime classifier and checks, each against an
// independent count in SQL where there is one:
//   - every training VM is a label, those running at the cut censored at
//     their age, not dropped;
//   - σ is the grid's best by validation log-likelihood, and the stored
//     params say objective, distribution, scale and base score;
//   - the stored model loads back as an AFT survival model and predicts
//     the same μ; the same seed trains the same bytes;
//   - EvaluateSurvival's test set is the VMs created after the cut, its
//     censored ones those without an end, its C-index beats chance and the
//     per-type Kaplan–Meier baseline, and the run is stored;
//   - Table 4's Evaluate refuses lifetime_dist, Train refuses bad options.
func TestTrainSurvival(t *testing.T) {
	ctx := context.Background()
	db := smallZone(t)
	o := DefaultTrainOptions("z")
	o.Metrics, o.AllMetrics = []Metric{Lifetime, LifetimeDist}, false
	o.Boosted.Rounds, o.Survival.Rounds = 20, 20
	res, err := Train(ctx, db, o)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if len(res.Models) != 2 || res.Models[1].Metric != LifetimeDist {
		t.Fatalf("models %+v", res.Models)
	}
	m := res.Models[1]
	if m.Name != "z/lifetime_dist/xgboost-aft" || m.Approach != AFT || m.Classes != 4 {
		t.Errorf("model %s, approach %s, classes %d", m.Name, m.Approach, m.Classes)
	}
	dist, sigma, ok := m.Survival()
	if !ok || dist != xgboost.AFTNormal {
		t.Fatalf("Survival() = %q, %v, %v", dist, sigma, ok)
	}
	if _, _, ok := res.Models[0].Survival(); ok {
		t.Error("the bucket classifier says it is a survival model")
	}

	// Labels: every VM created in [From, Cut), censored ones included.
	var created, running int
	err = db.SQL().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE end_s IS NULL OR end_s > ?)
		FROM vm WHERE dataset = 'z' AND start_s >= ? AND start_s < ?`, res.Split.Cut, res.Split.From, res.Split.Cut).Scan(&created, &running)
	if err != nil {
		t.Fatal(err)
	}
	if m.TrainRows != created || m.TrainCensored != running || running == 0 {
		t.Errorf("trained on %d VMs, %d censored; SQL: %d created in the window, %d running at the cut", m.TrainRows, m.TrainCensored, created, running)
	}
	if res.Models[0].TrainRows >= m.TrainRows {
		t.Errorf("the classifier (which drops VMs censored under 24 h) learned from %d VMs, the survival model from %d", res.Models[0].TrainRows, m.TrainRows)
	}
	f, err := LoadFrame(ctx, db, "z")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := LoadLifetimes(ctx, db, "z", res.Split.Cut, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.rowsIn(res.Split.From, res.Split.Cut) {
		if !lt.Observed(r) && math.Abs(lt.Lower[r]-(res.Split.Cut-f.Start[r])) > 1e-6 {
			var end *float64
			db.SQL().QueryRowContext(ctx, "SELECT end_s FROM vm WHERE dataset = 'z' AND vm_id = ?", f.VMs[r]).Scan(&end)
			if end != nil { // a trace-censored VM may be seen last before the cut
				t.Fatalf("vm %d running at the cut: censored at %v, want its age %v", f.VMs[r], lt.Lower[r], res.Split.Cut-f.Start[r])
			}
		}
	}

	// σ: the grid's best among equal weights; then each other half-life at
	// that σ, with its gain over equal weights (the difference of the two
	// mean log-likelihoods, an independent check of the paired mean).
	if len(m.SigmaGrid) != len(DefaultSigmas)+len(DefaultHalfLives)-1 {
		t.Fatalf("grid %+v", m.SigmaGrid)
	}
	sigmas, halves := m.SigmaGrid[:len(DefaultSigmas)], m.SigmaGrid[len(DefaultSigmas):]
	best := sigmas[0]
	for _, g := range sigmas {
		if g.HalfLife != 0 || g.HasGain {
			t.Errorf("σ search point %+v: want equal weights and no gain", g)
		}
		if g.LogLik > best.LogLik {
			best = g
		}
	}
	if sigma != best.Sigma {
		t.Errorf("σ %v, grid's best %+v", sigma, best)
	}
	for i, g := range halves {
		if g.Sigma != sigma || g.HalfLife != DefaultHalfLives[i+1] || !g.HasGain {
			t.Errorf("half-life point %+v: want σ %v, half-life %v, a gain", g, sigma, DefaultHalfLives[i+1])
		}
		if d := g.LogLik - best.LogLik; math.Abs(g.Gain-d) > 1e-9 {
			t.Errorf("half-life %v: gain %v, difference of mean log-likelihoods %v", g.HalfLife, g.Gain, d)
		}
		chosen := g.Gain > HalfLifeZ*g.GainSE
		if !chosen && m.HalfLife == g.HalfLife {
			t.Errorf("half-life %v chosen with gain %v, standard error %v", g.HalfLife, g.Gain, g.GainSE)
		}
	}
	var storedHalfLife float64
	if err := db.SQL().QueryRowContext(ctx, "SELECT half_life_s FROM model WHERE name = ?", m.Name).Scan(&storedHalfLife); err != nil || storedHalfLife != m.HalfLife {
		t.Errorf("stored half_life_s %v (%v), model's %v", storedHalfLife, err, m.HalfLife)
	}
	var params, approach string
	if err := db.SQL().QueryRowContext(ctx, "SELECT params, approach FROM model WHERE name = ?", m.Name).Scan(&params, &approach); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"objective":"survival:aft"`, `"aft_loss_distribution":"normal"`, `"aft_loss_distribution_scale":`, `"base_score":`} {
		if !strings.Contains(params, want) {
			t.Errorf("stored params %s lack %s", params, want)
		}
	}
	if approach != Boosted {
		t.Errorf("approach column %q, want %q (schema 0007 allows xgboost and random-forest)", approach, Boosted)
	}

	// Load back: same kind, same μ, same bucket predictions.
	back, err := LoadModel(ctx, db, m.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if _, s, ok := back.Survival(); !ok || s != sigma || back.Approach != AFT || back.Metric != LifetimeDist {
		t.Errorf("loaded: %s %s σ %v ok %v", back.Metric, back.Approach, s, ok)
	}
	if back.HalfLife != m.HalfLife {
		t.Errorf("loaded half-life %v, trained %v", back.HalfLife, m.HalfLife)
	}
	rows := f.rowsIn(res.Split.Cut, math.Inf(1))[:50]
	x := f.matrix(rows, f.featureCols(LifetimeDist))
	a, err := m.PredictMu(x, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	b, err := back.PredictMu(x, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := back.PredictRows(x, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] || pb[i] != SurvivalPrediction(b[i], sigma) {
			t.Fatalf("row %d: μ %v before storing, %v after; prediction %+v", i, a[i], b[i], pb[i])
		}
	}
	if _, err := res.Models[0].PredictMu(x, len(rows)); err == nil {
		t.Error("PredictMu of a bucket classifier")
	}
	o2 := o
	o2.Metrics = []Metric{LifetimeDist}
	again, err := Train(ctx, db, o2)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	b1, _ := m.Booster.Save()
	b2, _ := again.Models[0].Booster.Save()
	if !bytes.Equal(b1, b2) {
		t.Error("same seed, different lifetime_dist model")
	}

	// Evaluation.
	ev, err := EvaluateSurvival(ctx, db, SurvivalEvalOptions{Dataset: "z", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var test, censored int
	err = db.SQL().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE end_s IS NULL)
		FROM vm WHERE dataset = 'z' AND start_s >= ?`, res.Split.Cut).Scan(&test, &censored)
	if err != nil {
		t.Fatal(err)
	}
	if ev.TestVMs+ev.UninformativeTestVMs != test || ev.CensoredTestVMs > censored || ev.Sigma != sigma {
		t.Errorf("test %d VMs (%d censored, %d uninformative), SQL %d (%d without an end); σ %v", ev.TestVMs, ev.CensoredTestVMs, ev.UninformativeTestVMs, test, censored, ev.Sigma)
	}
	t.Logf("C %.3f (KM by type %.3f over %d types), bucket accuracy %.3f (classifier %.3f, majority %.3f), calibration %+v",
		ev.CIndex, ev.CIndexKMByType, ev.KMTypes, ev.BucketAccuracy, ev.BucketAccuracyClassifier, ev.BucketAccuracyMajority, ev.Calibration)
	if !(ev.CIndex > 0.5) || !(ev.CIndex > ev.CIndexKMByType) || ev.ComparablePairs == 0 {
		t.Errorf("C-index %v, per-type KM %v over %d pairs", ev.CIndex, ev.CIndexKMByType, ev.ComparablePairs)
	}
	if len(ev.Calibration) != 3 || ev.Calibration[0].HorizonS != 900 || ev.Calibration[2].HorizonS != 86400 {
		t.Errorf("calibration %+v", ev.Calibration)
	}
	for _, c := range ev.Calibration {
		if !(c.Predicted >= 0 && c.Predicted <= 1 && c.KaplanMeier >= 0 && c.KaplanMeier <= 1) {
			t.Errorf("calibration %+v", c)
		}
	}
	// The followed VMs, counted in SQL from the trace: informative test VMs
	// created at least 24 h before the last instant any VM is seen. Each
	// must have a known bucket (the evaluation counts them among those).
	var followed int
	err = db.SQL().QueryRowContext(ctx, `WITH v AS (
		    SELECT v.start_s, v.end_s, c.observed_s FROM vm v
		    LEFT JOIN vm_censor c ON c.load_id = v.load_id AND c.vm_id = v.vm_id WHERE v.dataset = 'z'
		), last AS (SELECT max(greatest(start_s, coalesce(end_s, start_s))) AS t FROM v),
		seen AS (SELECT max(coalesce(end_s, observed_s, last.t)) AS s FROM v, last)
		SELECT count(*) FROM v, last, seen WHERE start_s >= ? AND start_s <= seen.s - 86400
		  AND (end_s IS NOT NULL OR coalesce(observed_s, last.t) > start_s)`, res.Split.Cut).Scan(&followed)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("followed %d of %d known-bucket test VMs: model %.3f, classifier %.3f, majority %.3f", ev.FollowedTestVMs, ev.BucketTestVMs,
		ev.BucketAccuracyFollowed, ev.BucketAccuracyClassifierFollowed, ev.BucketAccuracyMajorityFollowed)
	if ev.FollowedTestVMs != followed || followed == 0 || followed >= ev.BucketTestVMs ||
		math.IsNaN(float64(ev.BucketAccuracyFollowed)) || math.IsNaN(float64(ev.BucketAccuracyClassifierFollowed)) {
		t.Errorf("followed test VMs %d (accuracy %v, classifier %v), SQL %d, of %d with a known bucket", ev.FollowedTestVMs,
			ev.BucketAccuracyFollowed, ev.BucketAccuracyClassifierFollowed, followed, ev.BucketTestVMs)
	}
	if ev.Classifier != "z/lifetime/xgboost" || math.IsNaN(float64(ev.BucketAccuracyClassifier)) || !(ev.BucketAccuracy > ev.BucketAccuracyMajority) {
		t.Errorf("bucket accuracy %v, classifier %s %v, majority %v", ev.BucketAccuracy, ev.Classifier, ev.BucketAccuracyClassifier, ev.BucketAccuracyMajority)
	}
	var policy string
	if err := db.SQL().QueryRowContext(ctx, "SELECT policy FROM run WHERE run_id = ?", ev.RunID).Scan(&policy); err != nil || policy != "survival" {
		t.Errorf("stored run %d: policy %q (%v)", ev.RunID, policy, err)
	}

	// Table 4 is for the bucket classifiers; its default set skips the
	// survival model.
	if _, err := Evaluate(ctx, db, EvalOptions{Dataset: "z", Metrics: []Metric{LifetimeDist}}); err == nil || !strings.Contains(err.Error(), "predict survival") {
		t.Errorf("Evaluate lifetime_dist: %v", err)
	}
	t4, err := Evaluate(ctx, db, EvalOptions{Dataset: "z"})
	if err != nil || len(t4.Rows) != 3 {
		t.Errorf("Table 4 beside a survival model: %v", err)
	}

	for name, edit := range map[string]func(*TrainOptions){
		"σ 0":           func(o *TrainOptions) { o.Sigmas = []float64{1, 0} },
		"no σ":          func(o *TrainOptions) { o.Sigmas = nil },
		"logistic":      func(o *TrainOptions) { o.Survival.AFTDistribution = xgboost.AFTLogistic },
		"softprob":      func(o *TrainOptions) { o.Survival = xgboost.DefaultBoosted(4) },
		"valid share 1": func(o *TrainOptions) { o.ValidShare = 1 },
		"aft for lifetime": func(o *TrainOptions) {
			o.Metrics, o.Approach = []Metric{Lifetime}, AFT
		},
	} {
		bad := o2
		bad.Sigmas = slices.Clone(o2.Sigmas)
		edit(&bad)
		if _, err := Train(ctx, db, bad); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if ms, err := ParseMetrics("lifetime,lifetime_dist"); err != nil || len(ms) != 2 {
		t.Errorf("ParseMetrics: %v %v", ms, err)
	}
	if ms, _ := ParseMetrics("all"); slices.Contains(ms, LifetimeDist) {
		t.Error("all includes lifetime_dist")
	}
	if _, err := EvaluateSurvival(ctx, db, SurvivalEvalOptions{Dataset: "nope"}); !errors.Is(err, ErrNoDataset) {
		t.Errorf("unknown dataset: %v", err)
	}
}

// TestHalfLifeFollowsDrift: the training weights' half-life is chosen only
// where the trace drifts. On the small synthetic zone as generated, whose
// lifetimes do not depend on the time of creation, every half-life's
// validation gain is within HalfLifeZ standard errors and the model keeps
// equal weights. On the same zone with the lifetimes of every VM created
// from day 1.8 on divided by 30 (the regime change Huawei-East-1 has in its
// third week), a half-life is chosen, and the model it trains predicts the
// VMs after the cut better (higher log-likelihood) than the one trained
// with equal weights at the same σ.
func TestHalfLifeFollowsDrift(t *testing.T) {
	ctx := context.Background()
	for _, drift := range []bool{false, true} {
		db := smallZone(t)
		if drift {
			if _, err := db.SQL().ExecContext(ctx, `UPDATE vm SET end_s = start_s + (end_s - start_s) / 30
				WHERE dataset = 'z' AND start_s >= 1.8 * 86400 AND end_s IS NOT NULL`); err != nil {
				t.Fatal(err)
			}
		}
		o := DefaultTrainOptions("z")
		o.Metrics, o.AllMetrics = []Metric{LifetimeDist}, false
		o.Survival.Rounds = 20
		res, err := Train(ctx, db, o)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Models[0]
		for _, g := range m.SigmaGrid {
			if g.HasGain {
				t.Logf("drift %v: half-life %v: gain %.4f ± %.4f", drift, g.HalfLife, g.Gain, g.GainSE)
			}
		}
		if !drift {
			if m.HalfLife != 0 {
				t.Errorf("no drift: half-life %v chosen, want equal weights", m.HalfLife)
			}
			res.Close()
			continue
		}
		if m.HalfLife == 0 {
			t.Fatalf("drift: equal weights kept")
		}
		_, sigma, _ := m.Survival()
		// The same σ with equal weights, scored on the VMs after the cut.
		o.Sigmas, o.HalfLives = []float64{sigma}, []float64{0}
		eq, err := Train(ctx, db, o)
		if err != nil {
			t.Fatal(err)
		}
		f, err := LoadFrame(ctx, db, "z")
		if err != nil {
			t.Fatal(err)
		}
		lt, err := LoadLifetimes(ctx, db, "z", math.Inf(1), f)
		if err != nil {
			t.Fatal(err)
		}
		test := lt.informative(f.rowsIn(res.Split.Cut, math.Inf(1)))
		lo, hi := make([]float64, len(test)), make([]float64, len(test))
		for i, r := range test {
			lo[i], hi[i] = lt.Interval(r)
		}
		x := f.matrix(test, f.featureCols(LifetimeDist))
		score := func(m *Model) float64 {
			mu, err := m.PredictMu(x, len(test))
			if err != nil {
				t.Fatal(err)
			}
			return LogLikelihood(lo, hi, mu, sigma)
		}
		weighted, equal := score(m), score(eq.Models[0])
		t.Logf("drift: half-life %v: test log-likelihood %.4f, equal weights %.4f (%d test VMs)", m.HalfLife, weighted, equal, len(test))
		if !(weighted > equal) {
			t.Errorf("drift: half-life %v: test log-likelihood %.4f, not above equal weights' %.4f", m.HalfLife, weighted, equal)
		}
		eq.Close()
		res.Close()
	}
}

// TestPairedGain: the mean difference and its standard error clustered by
// entity, against hand arithmetic; with every VM its own entity the
// clustered error is the usual paired one, sd/√n.
func TestPairedGain(t *testing.T) {
	a := []float64{1, 2, 3, 5, 4}
	b := []float64{0, 0, 0, 0, 0}
	// d = 1 2 3 5 4, mean 3; clusters {1,2} {3,5} {4}: sums of d − 3 = −3, 2, 1.
	mean, se := pairedGain(a, b, []string{"x", "x", "y", "y", "z"})
	want := math.Sqrt(1.5*(9+4+1)) / 5
	if mean != 3 || math.Abs(se-want) > 1e-12 {
		t.Errorf("clustered: mean %v, se %v; want 3, %v", mean, se, want)
	}
	// Singletons: sd of d is √2.5, se √2.5/√5.
	if _, se := pairedGain(a, b, []string{"1", "2", "3", "4", "5"}); math.Abs(se-math.Sqrt(2.5/5)) > 1e-12 {
		t.Errorf("singletons: se %v, want %v", se, math.Sqrt(2.5/5))
	}
	if _, se := pairedGain(a, b, []string{"x", "x", "x", "x", "x"}); se != 0 {
		t.Errorf("one entity: se %v, want 0", se)
	}
}

// TestRecencyWeights: 2^(−d/h) by age at the cut; half-life 0 is nil.
func TestRecencyWeights(t *testing.T) {
	start := []float64{100, 0, 86400, 50}
	w := RecencyWeights(start, []int{2, 1, 3}, 86400, 43200)
	if len(w) != 3 || w[0] != 1 || w[1] != 0.25 || math.Abs(float64(w[2])-math.Exp2(-(86400.0-50)/43200)) > 1e-7 {
		t.Errorf("weights %v", w)
	}
	if RecencyWeights(start, []int{0}, 86400, 0) != nil {
		t.Error("half-life 0 weighs")
	}
	for h, want := range map[float64]string{0: "none", 86400: "1d", 259200: "3d", 43200: "12h", 5400: "90m", 90: "90s", 1.5: "1.5s"} {
		if got := HalfLifeString(h); got != want {
			t.Errorf("HalfLifeString(%v) = %q, want %q", h, got, want)
		}
	}
}

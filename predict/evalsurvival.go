package predict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"placelab/optimizer"
	store "placelab/sql"
)

// CalibrationHorizons are the times (seconds) at which EvaluateSurvival
// sets the mean predicted survival beside the test VMs' Kaplan–Meier
// estimate: RC Table 3's lifetime bucket bounds, 15 min, 1 h and 24 h.
var CalibrationHorizons = []float64{optimizer.LifetimeBucket1Max, optimizer.LifetimeBucket2Max, optimizer.LifetimeBucket3Max}

// SurvivalEvalOptions configure EvaluateSurvival.
type SurvivalEvalOptions struct {
	Dataset string
	// Version is recorded with the run.
	Version  string
	Progress func(msg string)
}

// CalibrationPoint is the mean of the model's S(h) over the test VMs
// beside the Kaplan–Meier S(h) of their true (censored) lifetimes.
type CalibrationPoint struct {
	HorizonS    float64 `json:"horizon_s"`
	Predicted   Frac    `json:"predicted"`
	KaplanMeier Frac    `json:"kaplan_meier"`
}

// SurvivalEvaluation is the lifetime_dist model on its test window: the VMs
// created at or after its training cut, with lifetimes as the whole trace
// knows them (censored ones censored at their observed age; those censored
// at age 0, which the trace says nothing about, left out).
//
//   - CIndex is Harrell's C of the predicted median exp(μ) (HarrellC);
//     CIndexKMByType that of the features-free baseline, each VM's type's
//     Kaplan–Meier median fitted on the training VMs (lifetimes as known at
//     the cut; a type unseen in training gets the pooled median; a median
//     never reached is +Inf).
//   - Calibration: at each of CalibrationHorizons the mean predicted S(h)
//     and the Kaplan–Meier S(h) of the test VMs.
//   - BucketAccuracy: the share of test VMs whose RC Table 3 lifetime
//     bucket is known (ended, or censored past 24 h) and equals the argmax
//     of BucketProbs; beside it the stored lifetime bucket classifier's
//     accuracy on the same VMs (NaN, JSON null, without one) and the
//     majority training bucket's; BucketAccuracyMedian scores the bucket of
//     the predicted median instead.
//   - BucketAccuracyFollowed and its classifier and majority figures: the
//     same on the followed test VMs, created at least 24 h before the
//     trace's last observed instant. Each of them has a known bucket
//     whatever its lifetime, where among the later VMs censoring keeps
//     only those that ended, the shorter-lived: BucketAccuracy's set is
//     biased toward short lifetimes when the test part has censored VMs,
//     and this one is not.
type SurvivalEvaluation struct {
	RunID           int64   `json:"run_id"`
	Dataset         string  `json:"dataset"`
	Model           string  `json:"model"`
	Distribution    string  `json:"distribution"`
	Sigma           float64 `json:"sigma"`
	TrainFrom       float64 `json:"train_from_s"`
	Cut             float64 `json:"cut_s"`
	TrainVMs        int     `json:"train_vms"`
	TestVMs         int     `json:"test_vms"`
	CensoredTestVMs int     `json:"censored_test_vms"`
	// UninformativeTestVMs were created in the test window but are censored
	// at age 0 (Lifetimes.Informative): left out.
	UninformativeTestVMs int                `json:"uninformative_test_vms"`
	ComparablePairs      int64              `json:"comparable_pairs"`
	CIndex               Frac               `json:"c_index"`
	CIndexKMByType       Frac               `json:"c_index_km_by_type"`
	KMTypes              int                `json:"km_types"`
	Calibration          []CalibrationPoint `json:"calibration"`
	BucketTestVMs        int                `json:"bucket_test_vms"`
	BucketAccuracy       Frac               `json:"bucket_accuracy"`
	// BucketAccuracyMedian is the same share for the bucket of the
	// predicted median exp(μ) (the life-class arms' point estimate), beside
	// the argmax of BucketProbs.
	BucketAccuracyMedian Frac   `json:"bucket_accuracy_median"`
	Classifier           string `json:"classifier,omitempty"`
	// ClassifierNote says why there is no classifier accuracy.
	ClassifierNote           string `json:"classifier_note,omitempty"`
	BucketAccuracyClassifier Frac   `json:"bucket_accuracy_classifier"`
	MajorityBucket           int    `json:"majority_bucket"`
	BucketAccuracyMajority   Frac   `json:"bucket_accuracy_majority"`
	// FollowedTestVMs are the test VMs followed for 24 h or more (see
	// above), a subset of BucketTestVMs.
	FollowedTestVMs                  int     `json:"followed_test_vms"`
	BucketAccuracyFollowed           Frac    `json:"bucket_accuracy_followed"`
	BucketAccuracyClassifierFollowed Frac    `json:"bucket_accuracy_classifier_followed"`
	BucketAccuracyMajorityFollowed   Frac    `json:"bucket_accuracy_majority_followed"`
	Seconds                          float64 `json:"seconds"`
}

// EvaluateSurvival scores the dataset's stored lifetime_dist model (placelab
// predict train --metric lifetime_dist) on its test window (see
// SurvivalEvaluation) and stores the result as a run of engine "predict",
// policy "survival", whose params are the evaluation's JSON.
func EvaluateSurvival(ctx context.Context, db *store.DB, o SurvivalEvalOptions) (*SurvivalEvaluation, error) {
	started := time.Now()
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	loadID, err := datasetLoad(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	model, err := LoadModel(ctx, db, ModelName(o.Dataset, LifetimeDist, AFT))
	if err != nil {
		return nil, fmt.Errorf("%w (placelab predict train --dataset %s --metric %s)", err, o.Dataset, LifetimeDist)
	}
	defer model.Close()
	dist, sigma, ok := model.Survival()
	if !ok {
		return nil, fmt.Errorf("predict: model %s is not a survival model", model.Name)
	}
	if model.LoadID != loadID {
		return nil, fmt.Errorf("predict: model %s learned from load %d of %q, the dataset is now load %d: train it again",
			model.Name, model.LoadID, o.Dataset, loadID)
	}
	progress("features")
	f, err := LoadFrame(ctx, db, o.Dataset)
	if err != nil {
		return nil, err
	}
	cols, err := modelCols(f, model)
	if err != nil {
		return nil, err
	}
	truth, err := LoadLifetimes(ctx, db, o.Dataset, math.Inf(1), f)
	if err != nil {
		return nil, err
	}
	atCut, err := LoadLifetimes(ctx, db, o.Dataset, model.TrainTo, f)
	if err != nil {
		return nil, err
	}
	ev := &SurvivalEvaluation{Dataset: o.Dataset, Model: model.Name, Distribution: dist, Sigma: sigma,
		TrainFrom: model.TrainFrom, Cut: model.TrainTo}
	train := atCut.informative(f.rowsIn(model.TrainFrom, model.TrainTo))
	created := f.rowsIn(model.TrainTo, math.Inf(1))
	test := truth.informative(created)
	ev.TrainVMs, ev.TestVMs, ev.UninformativeTestVMs = len(train), len(test), len(created)-len(test)
	if len(test) == 0 {
		return nil, fmt.Errorf("%w: dataset %q: no VM created at or after the cut %.0f s to test %s on", ErrNoData, o.Dataset, model.TrainTo, model.Name)
	}
	mu, err := model.PredictMu(f.matrix(test, cols), len(test))
	if err != nil {
		return nil, err
	}
	tt, obs := make([]float64, len(test)), make([]bool, len(test))
	for i, r := range test {
		tt[i], obs[i] = truth.Lower[r], truth.Observed(r)
		if !obs[i] {
			ev.CensoredTestVMs++
		}
	}
	progress(fmt.Sprintf("concordance over %d test VMs (%d censored)", len(test), ev.CensoredTestVMs))
	ev.CIndex, ev.ComparablePairs = HarrellC(tt, obs, mu)

	// Baseline: the Kaplan–Meier median of the VM's type.
	km := kmMedianByType(f, train, atCut)
	ev.KMTypes = len(km.byType)
	base := make([]float64, len(test))
	for i, r := range test {
		base[i] = km.median(f, r)
	}
	ev.CIndexKMByType, _ = HarrellC(tt, obs, base)

	testKM := FitKaplanMeier(tt, obs)
	for _, h := range CalibrationHorizons {
		var s float64
		for _, m := range mu {
			s += LifetimeSurvival(m, sigma, h)
		}
		ev.Calibration = append(ev.Calibration, CalibrationPoint{HorizonS: h,
			Predicted: Frac(s / float64(len(mu))), KaplanMeier: Frac(testKM.At(h))})
	}

	// The trace's last observed instant: the latest end, or censoring age,
	// of any VM.
	lastSeen := math.Inf(-1)
	for r := range f.Start {
		lastSeen = math.Max(lastSeen, f.Start[r]+truth.Lower[r])
	}
	if err := ev.buckets(ctx, db, f, model, test, mu, loadID, lastSeen); err != nil {
		return nil, err
	}
	ev.Seconds = time.Since(started).Seconds()
	if err := ev.store(ctx, db, loadID, o.Version, started); err != nil {
		return nil, err
	}
	return ev, nil
}

// modelCols maps a model's feature names to the frame's columns.
func modelCols(f *Frame, model *Model) ([]int, error) {
	cols := make([]int, len(model.Features.Columns))
	for i, n := range model.Features.Columns {
		if cols[i] = f.Col(n); cols[i] < 0 {
			return nil, fmt.Errorf("predict: model %s reads feature %q, which rc_features no longer has: train it again", model.Name, n)
		}
	}
	return cols, nil
}

// kmBaseline holds the Kaplan–Meier median lifetime per VM type code, and
// pooled.
type kmBaseline struct {
	col    int // type_code's column, -1 if absent
	byType map[float32]float64
	pooled float64
}

func kmMedianByType(f *Frame, rows []int, l *Lifetimes) kmBaseline {
	k := kmBaseline{col: f.Col("type_code"), byType: map[float32]float64{}}
	type sample struct {
		t   []float64
		obs []bool
	}
	groups := map[float32]*sample{}
	all := &sample{}
	for _, r := range rows {
		t, o := l.Lower[r], l.Observed(r)
		all.t, all.obs = append(all.t, t), append(all.obs, o)
		if k.col < 0 {
			continue
		}
		code := f.X[r*f.Cols()+k.col]
		if code != code { // NaN: no type
			continue
		}
		g := groups[code]
		if g == nil {
			g = &sample{}
			groups[code] = g
		}
		g.t, g.obs = append(g.t, t), append(g.obs, o)
	}
	k.pooled = FitKaplanMeier(all.t, all.obs).Median()
	for code, g := range groups {
		k.byType[code] = FitKaplanMeier(g.t, g.obs).Median()
	}
	return k
}

func (k kmBaseline) median(f *Frame, r int) float64 {
	if k.col >= 0 {
		if m, ok := k.byType[f.X[r*f.Cols()+k.col]]; ok {
			return m
		}
	}
	return k.pooled
}

// buckets fills the bucket accuracies: the model's argmax of BucketProbs,
// the stored lifetime classifier's and the majority bucket's, on the test
// VMs whose lifetime bucket the whole trace knows, and on those of them
// created at least 24 h before lastSeen (followed).
func (ev *SurvivalEvaluation) buckets(ctx context.Context, db *store.DB, f *Frame, model *Model, test []int, mu []float64, loadID int64, lastSeen float64) error {
	truth, err := LoadLabels(ctx, db, f.Dataset, math.Inf(1), f)
	if err != nil {
		return err
	}
	atCut, err := LoadLabels(ctx, db, f.Dataset, model.TrainTo, f)
	if err != nil {
		return err
	}
	var counts [5]int
	for _, r := range f.rowsIn(model.TrainFrom, model.TrainTo) {
		counts[atCut.Bucket[Lifetime][r]]++
	}
	ev.MajorityBucket = 1
	for b := 2; b <= 4; b++ {
		if counts[b] > counts[ev.MajorityBucket] {
			ev.MajorityBucket = b
		}
	}
	var known []int
	var followed []bool // per known VM
	hit, hitMaj, hitMed := 0, 0, 0
	nf, hitF, hitMajF := 0, 0, 0
	for i, r := range test {
		b := truth.Bucket[Lifetime][r]
		if b == 0 {
			continue
		}
		known = append(known, r)
		fl := lastSeen-f.Start[r] >= optimizer.LifetimeBucket3Max
		followed = append(followed, fl)
		ok, okMaj := SurvivalPrediction(mu[i], ev.Sigma).Bucket == b, int(b) == ev.MajorityBucket
		hit, hitMaj = hit+b2i(ok), hitMaj+b2i(okMaj)
		if fl {
			nf, hitF, hitMajF = nf+1, hitF+b2i(ok), hitMajF+b2i(okMaj)
		}
		if optimizer.LifetimeBucketOf(math.Exp(mu[i])) == b {
			hitMed++
		}
	}
	ev.BucketTestVMs, ev.FollowedTestVMs = len(known), nf
	ev.BucketAccuracy, ev.BucketAccuracyMajority = ratio(hit, len(known)), ratio(hitMaj, len(known))
	ev.BucketAccuracyFollowed, ev.BucketAccuracyMajorityFollowed = ratio(hitF, nf), ratio(hitMajF, nf)
	ev.BucketAccuracyMedian = ratio(hitMed, len(known))
	ev.BucketAccuracyClassifier = Frac(math.NaN())
	ev.BucketAccuracyClassifierFollowed = Frac(math.NaN())
	name := ModelName(f.Dataset, Lifetime, Lifetime.Approach())
	cl, err := LoadModel(ctx, db, name)
	switch {
	case errors.Is(err, ErrNoModel):
		ev.ClassifierNote = fmt.Sprintf("no model %s (placelab predict train --dataset %s --metric lifetime)", name, f.Dataset)
		return nil
	case err != nil:
		return err
	}
	defer cl.Close()
	switch {
	case cl.LoadID != loadID:
		ev.ClassifierNote = fmt.Sprintf("%s learned from another load of the dataset: train it again", name)
		return nil
	case cl.TrainTo != model.TrainTo || cl.TrainFrom != model.TrainFrom:
		ev.ClassifierNote = fmt.Sprintf("%s learned from [%.0f, %.0f) s, not this model's [%.0f, %.0f) s", name, cl.TrainFrom, cl.TrainTo, model.TrainFrom, model.TrainTo)
	}
	if len(known) == 0 {
		return nil
	}
	ccols, err := modelCols(f, cl)
	if err != nil {
		return err
	}
	pred, err := cl.PredictRows(f.matrix(known, ccols), len(known))
	if err != nil {
		return err
	}
	hit, hitF = 0, 0
	for i, r := range known {
		ok := pred[i].Bucket == truth.Bucket[Lifetime][r]
		hit += b2i(ok)
		hitF += b2i(ok && followed[i])
	}
	ev.Classifier, ev.BucketAccuracyClassifier = name, ratio(hit, len(known))
	ev.BucketAccuracyClassifierFollowed = ratio(hitF, nf)
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (ev *SurvivalEvaluation) store(ctx context.Context, db *store.DB, loadID int64, version string, started time.Time) error {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return err
	}
	params, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if version == "" {
		version = "dev"
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		return w.Append("run", id, "predict", "survival", string(params), int64(0), ev.Dataset,
			version, started.UTC(), time.Since(started).Seconds(), "done", loadID)
	})
	if err != nil {
		return fmt.Errorf("predict: store survival evaluation: %w", err)
	}
	ev.RunID = id
	return nil
}

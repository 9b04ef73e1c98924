package bench

import (
	"context"
	"fmt"
	"sort"
	"time"

	"placelab/datasets/synth"
	"placelab/predict"
	"placelab/predict/client"
	store "placelab/sql"
)

// PredictBenchOptions size placelab bench predict; start from
// DefaultPredictBenchOptions.
type PredictBenchOptions struct {
	// Machines and VMs size the synthetic zone whose lifetime model is
	// served (over Days days).
	Machines, VMs, Days int
	// Requests is how many predictions each path times (≥ 1).
	Requests int
	Seed     uint64
}

// DefaultPredictBenchOptions: a 600-machine zone with 30,000 VMs over 7
// days, 100,000 requests per path.
func DefaultPredictBenchOptions() PredictBenchOptions {
	return PredictBenchOptions{Machines: 600, VMs: 30000, Days: 7, Requests: 100000, Seed: 1}
}

// Validate refuses sizes that cannot run.
func (o *PredictBenchOptions) Validate() error {
	if o.Machines < 1 || o.VMs < 1000 || o.Days < 1 || o.Requests < 1 {
		return fmt.Errorf("bench: predict: machines %d (≥ 1), VMs %d (≥ 1,000), days %d (≥ 1), requests %d (≥ 1)", o.Machines, o.VMs, o.Days, o.Requests)
	}
	return nil
}

// PredictBenchPath is one way of getting a prediction, timed per request.
type PredictBenchPath struct {
	Path      string  `json:"path"`
	Requests  int     `json:"requests"`
	P50US     float64 `json:"p50_us"`
	P99US     float64 `json:"p99_us"`
	MeanUS    float64 `json:"mean_us"`
	PerSecond float64 `json:"predictions_per_s"`
	Hits      int64   `json:"cache_hits"`
}

// PredictBenchResult is placelab bench predict's report. Paths are the
// lifetime classifier's (uncached, cached, batch (baseline)), SurvivalPaths
// the lifetime_dist survival model's, the same prefixed "aft ".
type PredictBenchResult struct {
	Machines, VMs int
	Model         string             `json:"model"`
	Trees         int                `json:"trees"`
	Features      int                `json:"features"`
	TrainSeconds  float64            `json:"train_seconds"`
	InitSeconds   float64            `json:"initialize_seconds"`
	SurvivalModel string             `json:"survival_model"`
	SurvivalTrees int                `json:"survival_trees"`
	SurvivalSigma float64            `json:"survival_sigma"`
	Paths         []PredictBenchPath `json:"paths"`
	SurvivalPaths []PredictBenchPath `json:"survival_paths"`
}

// SurvivalPathPrefix starts the names of the survival model's paths.
const SurvivalPathPrefix = "aft "

// RunBenchPredict times Resource Central's client as a scheduler uses it:
// a synthetic zone's lifetime model (RC Table 1: gradient-boosted trees at
// the binding's defaults) and its lifetime_dist survival model (XGBoost's
// AFT objective, one tree per round; σ from the default grid) are trained
// and stored, a client initialized, and Requests predictions asked of it
// over the zone's VMs in turn, per model on three paths: uncached (result
// cache off: every request executes the model), cached (result cache on
// and warm: every request is a hit), and as the baseline the model's batch
// prediction of all the VMs' feature rows, per row (no client, no
// per-request work).
func RunBenchPredict(ctx context.Context, o PredictBenchOptions, progress func(string)) (*PredictBenchResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(string) {}
	}
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.Seed = o.Machines, o.VMs, float64(o.Days), o.Seed
	progress("zone")
	db, err := benchReplayZone(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	to := predict.DefaultTrainOptions("b")
	to.Metrics, to.AllMetrics, to.Seed = []predict.Metric{predict.Lifetime}, false, o.Seed
	progress("train")
	t0 := time.Now()
	tr, err := predict.Train(ctx, db, to)
	if err != nil {
		return nil, err
	}
	tr.Close()
	res := &PredictBenchResult{Machines: o.Machines, VMs: o.VMs, TrainSeconds: time.Since(t0).Seconds()}
	m := tr.Models[0]
	res.Model, res.Features = m.Name, len(m.Features.Columns)
	res.Trees = m.Params.Rounds * m.Params.NumParallelTree * m.Classes
	to.Metrics = []predict.Metric{predict.LifetimeDist}
	progress("train survival")
	ts, err := predict.Train(ctx, db, to)
	if err != nil {
		return nil, err
	}
	ts.Close()
	sm := ts.Models[0]
	_, res.SurvivalSigma, _ = sm.Survival()
	res.SurvivalModel, res.SurvivalTrees = sm.Name, sm.Params.Rounds*sm.Params.NumParallelTree
	f, err := predict.LoadFrame(ctx, db, "b")
	if err != nil {
		return nil, err
	}
	for _, model := range []*predict.Model{m, sm} {
		prefix := ""
		if model == sm {
			prefix = SurvivalPathPrefix
		}
		paths, init, err := benchPredictModel(ctx, db, f, model, o.Requests, prefix, progress)
		if err != nil {
			return nil, err
		}
		if model == m {
			res.InitSeconds, res.Paths = init, paths
		} else {
			res.SurvivalPaths = paths
		}
	}
	return res, nil
}

// benchPredictModel times one stored model through RC's client, uncached
// and cached, and its batch prediction, naming the paths with prefix; it
// also returns how long the client took to initialize.
func benchPredictModel(ctx context.Context, db *store.DB, f *predict.Frame, m *predict.Model, requests int,
	prefix string, progress func(string)) ([]PredictBenchPath, float64, error) {
	var out []PredictBenchPath
	var initSeconds float64
	for _, cached := range []bool{false, true} {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		co := client.DefaultOptions()
		co.ResultCache = cached
		c, err := client.New(db, co)
		if err != nil {
			return nil, 0, err
		}
		t0 := time.Now()
		if err := c.Initialize(ctx); err != nil {
			c.Close()
			return nil, 0, err
		}
		initSeconds = time.Since(t0).Seconds()
		name := prefix + "uncached"
		if cached {
			name = prefix + "cached"
			for _, vm := range f.VMs { // warm: every VM once
				if _, err := c.Predict(m.Name, client.Input{VM: vm}); err != nil {
					c.Close()
					return nil, 0, err
				}
			}
			c.Flush() // the counters, and the cache: warm it again
			for _, vm := range f.VMs {
				c.Predict(m.Name, client.Input{VM: vm})
			}
		}
		progress(name)
		lat := make([]float64, requests)
		start := time.Now()
		before := c.Stats().Hits
		for i := 0; i < requests; i++ {
			t := time.Now()
			if _, err := c.Predict(m.Name, client.Input{VM: f.VMs[i%len(f.VMs)]}); err != nil {
				c.Close()
				return nil, 0, err
			}
			lat[i] = float64(time.Since(t).Nanoseconds()) / 1e3
		}
		total := time.Since(start).Seconds()
		p := summarizeLatency(name, lat, total)
		p.Hits = c.Stats().Hits - before
		out = append(out, p)
		c.Close()
	}
	// Baseline: the model's own batch prediction of every VM's row.
	back, err := predict.LoadModel(ctx, db, m.Name)
	if err != nil {
		return nil, 0, err
	}
	defer back.Close()
	x := make([]float32, 0, f.Rows()*len(m.Features.Columns))
	for r := 0; r < f.Rows(); r++ {
		for _, n := range m.Features.Columns {
			x = append(x, f.X[r*f.Cols()+f.Col(n)])
		}
	}
	progress(prefix + "batch")
	t0 := time.Now()
	if _, err := back.PredictRows(x, f.Rows()); err != nil {
		return nil, 0, err
	}
	total := time.Since(t0).Seconds()
	per := 1e6 * total / float64(f.Rows())
	out = append(out, PredictBenchPath{Path: prefix + "batch (baseline)", Requests: f.Rows(), P50US: per, P99US: per, MeanUS: per, PerSecond: float64(f.Rows()) / total})
	return out, initSeconds, nil
}

func summarizeLatency(name string, lat []float64, total float64) PredictBenchPath {
	s := append([]float64(nil), lat...)
	sort.Float64s(s)
	return PredictBenchPath{Path: name, Requests: len(s), P50US: s[len(s)/2], P99US: s[len(s)*99/100],
		MeanUS: 1e6 * total / float64(len(s)), PerSecond: float64(len(s)) / total}
}

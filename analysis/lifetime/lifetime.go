package lifetime

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/optimizer"
	"placelab/predict"
	"placelab/predict/client"
	store "placelab/sql"
)

// Arms are the arms of the lifetime-aware placement comparison:
//
//   - off: Protean without a lifetime rule;
//   - model, oracle: PreferAlignedLifetime on one-shot RC buckets, from the
//     bucket classifier or the true buckets (the baseline);
//   - nilas, lava: PreferLifetimeNILAS or PreferLifetimeLAVA on the
//     survival model's lifetime distributions, repredicted as VMs age;
//   - nilas-oracle, lava-oracle: the same rules on the true lifetimes.
var Arms = []string{"off", "model", "oracle", "nilas", "lava", "nilas-oracle", "lava-oracle"}

// DefaultRepredictEvery is how often the life-class arms repredict every
// machine's VMs (on top of every departure): hourly, the replay's sample
// interval. A machine's class is stale by at most this much.
const DefaultRepredictEvery = 3600.0

// distArm reports whether arm uses the life-class rules, and whether on a
// model's distributions (true) or the true lifetimes.
func distArm(arm string) (classes, model bool) {
	switch arm {
	case "nilas", "lava":
		return true, true
	case "nilas-oracle", "lava-oracle":
		return true, false
	}
	return false, false
}

// armRule is the life-class rule of a distribution arm.
func armRule(arm string) optimizer.MachinePreferenceRule {
	if strings.HasPrefix(arm, "lava") {
		return optimizer.PreferLifetimeLAVA{}
	}
	return optimizer.PreferLifetimeNILAS{}
}

// Options configure LifetimeReplay; start from
// DefaultOptions.
type Options struct {
	// Dataset is the dataset the arm replays (For sets it).
	Dataset string
	Arm     string
	// Predict is the model arm's predictor: VM vm_id's lifetime bucket
	// (RC Table 3, 1..4) and whether the prediction is confident (ok false,
	// or bucket 0: no prediction). The model arm requires it; the other
	// arms refuse it.
	Predict func(vmID int64) (bucket int8, ok bool)
	// PredictDist is the nilas and lava arms' predictor: VM vm_id's
	// lifetime distribution (ok false: no prediction). Those arms require
	// it; the others refuse it.
	PredictDist func(vmID int64) (d optimizer.LifetimeDist, ok bool)
	// RepredictEvery is the life-class arms' reprediction cadence in
	// seconds (> 0; DefaultRepredictEvery).
	RepredictEvery float64
	// Seed is the engine's seed (tie-breaks), the same for every arm.
	Seed uint64
	// From and To bound the replay window in seconds (±Inf: all); To must
	// be after From.
	From, To float64
	// InSample records that the window starts before a model's training
	// cut (LifetimeCompare sets it; stored with the run, so the view
	// lifetime_arms keeps in-sample runs apart).
	InSample bool
	Progress func(done, total int64)
}

// lifetimeArm returns the options of arm (one of LifetimeArms) on dataset,
// starting from base: the model arm serves the dataset's trained lifetime
// model (approach "": RC Table 1's) through RC's client, a prediction
// counting when confident (score ≥ predict.Theta); nilas and lava serve
// its survival model. The model arms take the client from getClient
// (called only by them; the caller closes it). cut is the model's
// training cut (its predictions before it are in-sample; 0 for the other
// arms). The options are validated.
func lifetimeArm(dataset, arm, approach string, base Options, getClient func() (*client.Client, error)) (o Options, cut float64, err error) {
	o = base
	if !slices.Contains(Arms, arm) {
		return o, 0, fmt.Errorf("analysis: unknown lifetime arm %q: want one of %s", arm, strings.Join(Arms, ", "))
	}
	o.Arm = arm
	_, model := distArm(arm)
	if model || arm == "model" {
		c, err := getClient()
		if err != nil {
			return o, 0, fmt.Errorf("%s arm: %w", arm, err)
		}
		if model {
			pred, c, err := survivalPredictor(c, dataset)
			if err != nil {
				return o, 0, fmt.Errorf("%s arm: %w", arm, err)
			}
			cut, o.PredictDist = c, pred
		} else {
			pred, c, err := analysis.ClientPredictor(c, dataset, predict.Lifetime, approach)
			if err != nil {
				return o, 0, fmt.Errorf("model arm: %w", err)
			}
			cut = c
			o.Predict = func(vm int64) (int8, bool) {
				b, score := pred(vm)
				return b, b > 0 && score >= predict.Theta
			}
		}
	}
	if err := o.Validate(); err != nil {
		return o, 0, err
	}
	return o, cut, nil
}

// storeLifetime stores a replayed arm as a run and sets its RunID.
func storeLifetime(ctx context.Context, db *store.DB, dataset string, o Options, r *Result, version string) error {
	id, err := analysis.WriteFigures(ctx, db, analysis.RunMeta{Engine: "lifetime", Policy: o.Arm, Dataset: dataset,
		LoadID: r.LoadID, Version: version, Seed: o.Seed, Params: r.Params(o)}, r.Seconds, r.Figures())
	if err != nil {
		return err
	}
	r.RunID = id
	return nil
}

// DefaultOptions replay the whole trace with Protean's default
// seed, with no arm.
func DefaultOptions() Options {
	return Options{Seed: optimizer.DefaultConfig().Seed, From: math.Inf(-1), To: math.Inf(1), RepredictEvery: DefaultRepredictEvery}
}

// Validate refuses options LifetimeReplay cannot run: an unknown arm, the
// model arm without a predictor, a predictor given to another arm, a NaN
// bound or a window that ends before it starts.
func (o *Options) Validate() error {
	switch {
	case !slices.Contains(Arms, o.Arm):
		return fmt.Errorf("analysis: arm %q: want one of %v", o.Arm, Arms)
	case o.Arm == "model" && o.Predict == nil:
		return fmt.Errorf("analysis: arm model needs a lifetime predictor (LifetimeOptions.Predict) and none was given")
	case o.Arm != "model" && o.Predict != nil:
		return fmt.Errorf("analysis: arm %s takes no predictor (only arm model uses LifetimeOptions.Predict)", o.Arm)
	case (o.Arm == "nilas" || o.Arm == "lava") && o.PredictDist == nil:
		return fmt.Errorf("analysis: arm %s needs a lifetime distribution predictor (LifetimeOptions.PredictDist) and none was given", o.Arm)
	case o.Arm != "nilas" && o.Arm != "lava" && o.PredictDist != nil:
		return fmt.Errorf("analysis: arm %s takes no distribution predictor (only arms nilas and lava use LifetimeOptions.PredictDist)", o.Arm)
	case !(o.RepredictEvery > 0) || math.IsInf(o.RepredictEvery, 0):
		return fmt.Errorf("analysis: repredict every %v s: want a finite time > 0", o.RepredictEvery)
	case math.IsNaN(o.From) || math.IsNaN(o.To) || !(o.To > o.From):
		return fmt.Errorf("analysis: window [%v, %v): want from < to", o.From, o.To)
	}
	return nil
}

// Result is one arm's outcome.
//
// EmptyMachinesTimeMean is the time-weighted mean number of machines
// hosting no VM over the replay window [WindowFrom, WindowTo] (from the
// window's start, or 0, to the later of the last arrival and a finite To:
// the span the run's samples cover), computed from the run's own
// placements — each placed VM occupies its machine from its placement until
// its end or eviction —
//
//	(1 / (T1 − T0)) ∫_{T0}^{T1} #{machines with no VM at t} dt.
//
// It is exact, where the run's hourly empty_machines samples only sample
// it. PackingPct is the run's packing_density_mean (allocated cores over
// the cores of non-empty machines, Protean §6.3) in percent.
//
// Predictions are counted per VM at the level the rule sees: a request
// carries one bucket (Request.LifetimeBucket, the longest of its VMs'
// when every one of them has a prediction, else none); PredictedVMs are
// the VMs of requests that carried one, CorrectVMs those of them whose
// own true bucket is that bucket. TrueBuckets counts the replayed VMs by
// true bucket, index 0 holding the censored VMs whose observed age does
// not prove bucket 4 (see LifetimeReplay).
type Result struct {
	RunID                 int64          `json:"run_id,omitempty"`
	Arm                   string         `json:"arm"`
	Dataset               string         `json:"dataset"`
	LoadID                int64          `json:"load_id,omitempty"`
	Machines              int            `figure:"machines" json:"machines"`
	VMs                   int            `figure:"vms" json:"vms"`
	Rejected              int            `figure:"rejected" json:"rejected"`
	RejectedBy            map[string]int `json:"rejected_by"`
	RejectionRatePct      float64        `figure:"rejection_rate_pct" json:"rejection_rate_pct"`
	EmptyMachinesTimeMean float64        `figure:"empty_machines_time_mean" json:"empty_machines_time_mean"`
	// StrandedCoresPct and StrandedMemoryPct are the run's means of the
	// replay's stranded-resource samples (replay.Summary).
	StrandedCoresPct  float64                           `figure:"stranded_cores_pct_mean" json:"stranded_cores_pct_mean"`
	StrandedMemoryPct float64                           `figure:"stranded_memory_pct_mean" json:"stranded_memory_pct_mean"`
	PackingPct        float64                           `figure:"packing_density_mean_pct" json:"packing_density_mean_pct"`
	WindowFrom        float64                           `figure:"window_from_s" json:"window_from_s"`
	WindowTo          float64                           `figure:"window_to_s" json:"window_to_s"`
	PredictedVMs      int                               `figure:"predicted_vms" json:"predicted_vms"`
	CorrectVMs        int                               `figure:"correct_vms" json:"correct_vms"`
	CoveragePct       float64                           `figure:"coverage_pct" json:"coverage_pct"`
	AccuracyPct       float64                           `figure:"accuracy_pct" json:"accuracy_pct"`
	CensoredVMs       int                               `figure:"censored_vms" json:"censored_vms"`
	TrueBuckets       [optimizer.NumLifetimeBuckets]int `figure:"true_bucket_%d" json:"true_buckets"`
	// PreferenceOrder is the machine preference rules the arm ran with.
	PreferenceOrder []string `json:"preference_order"`
	Evict           bool     `json:"evict"`
	LatencyP50US    float64  `json:"latency_p50_us"`
	LatencyP99US    float64  `json:"latency_p99_us"`
	// ReplaySeconds is the replay alone; Seconds the whole arm (load,
	// replay, figures).
	ReplaySeconds float64 `figure:"replay_seconds" json:"replay_seconds"`
	Seconds       float64 `json:"seconds"`
}

// Figures lists the result as run_metric rows (t = 0) for WriteFigures,
// from its figure-tagged fields (analysis.Figures).
// The decision latencies stay out: in run_metric, latency_p50_us and
// latency_p99_us are a replay's per-interval samples, not whole-run
// figures.
func (r *Result) Figures() []replay.MetricRow { return analysis.Figures(r) }

// Params are the settings the arm ran with, for the run table.
func (r *Result) Params(o Options) map[string]any {
	return map[string]any{"from": analysis.Finite(o.From), "to": analysis.Finite(o.To), "preference_order": r.PreferenceOrder, "evict": r.Evict,
		"in_sample": o.InSample, "repredict_every_s": o.RepredictEvery}
}

// For is o replaying dataset.
func (o Options) For(dataset string) Options {
	o.Dataset = dataset
	return o
}

// Run replays a dataset through Protean under one arm of the
// lifetime-aware placement comparison and measures empty machines, packing
// density and rejections:
//
//   - off: Protean's default rules (optimizer.DefaultRules);
//   - model: optimizer.LifetimeRules, each request carrying the bucket
//     o.Predict gives its VMs;
//   - oracle: optimizer.LifetimeRules on the true buckets.
//
// Every arm is one run spec from DefaultSpec — the same inventory,
// validators, eviction setting, seed and window; explanations off — and
// differs only in its rule set and the buckets its requests carry.
//
// A VM's true bucket is RC Table 3's bucket of its remaining lifetime when
// the replay places it (end − placement time: its lifetime, for a VM
// created inside the window). A censored VM (no end) is known only to
// outlive its observed age (observed − placement time; observed is its
// vm_censor row's time, else the dataset's last event): it is bucket 4
// when that age exceeds 24 h, and has no true bucket — no oracle
// prediction — otherwise. A request's bucket is the longest of its VMs'
// when each has one, else none (the rule then treats it as unpredicted).
func Run(ctx context.Context, db *store.DB, o Options) (*Result, error) {
	dataset := o.Dataset
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	tr, err := analysis.LoadTrace(ctx, db, dataset, o.From, o.To)
	if err != nil {
		return nil, err
	}
	if len(tr.VMs) == 0 {
		return nil, fmt.Errorf("%w: dataset %q has no VMs in the window", analysis.ErrBadSpec, dataset)
	}
	observed, err := loadCensored(ctx, db, dataset)
	if err != nil {
		return nil, err
	}
	index := make(map[int64]int, len(tr.VMs))
	for i, v := range tr.VMs {
		index[v.ID] = i
	}
	// truth is VM i's true bucket when placed at t (0: none known).
	truth := func(i int, t float64) int8 {
		v := &tr.VMs[i]
		if !math.IsInf(v.End, 1) {
			return optimizer.LifetimeBucketOf(v.End - t)
		}
		if obs, ok := observed[v.ID]; ok && obs-t > optimizer.LifetimeBucket3Max {
			return 4
		}
		return 0
	}
	res := &Result{Arm: o.Arm, Dataset: dataset, LoadID: tr.LoadID, Machines: len(tr.Inv.Machines)}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var badPrediction error
	var want []int8
	classes, _ := distArm(o.Arm)
	var state *optimizer.State
	nextRep := math.Inf(1)
	decorate := func(r *optimizer.Request) {
		want = want[:0]
		if classes {
			// Reprediction: every machine's class as of each cadence
			// boundary passed since the last request.
			for ; nextRep <= r.Time; nextRep += o.RepredictEvery {
				state.Repredict(nextRep)
			}
			decorateDist(r, o, tr, index, truth, observed, res, &want)
			return
		}
		var bucket int8
		all := true
		for _, v := range r.VMs {
			i := index[v.ID]
			w := truth(i, r.Time)
			want = append(want, w)
			res.TrueBuckets[w]++
			if math.IsInf(tr.VMs[i].End, 1) {
				res.CensoredVMs++
			}
			var b int8
			switch o.Arm {
			case "oracle":
				b = w
			case "model":
				p, ok := o.Predict(v.ID)
				if ok && (p < 0 || p > 4) {
					if badPrediction == nil {
						badPrediction = fmt.Errorf("analysis: the lifetime predictor gave bucket %d for VM %d: want 1–4 (or 0, no prediction)", p, v.ID)
						cancel()
					}
					ok = false
				}
				if ok {
					b = p
				}
			}
			if b == 0 {
				all = false
			}
			bucket = max(bucket, b)
		}
		if !all || o.Arm == "off" {
			return
		}
		r.LifetimeBucket = bucket
		res.PredictedVMs += len(r.VMs)
		for _, w := range want {
			if w == bucket {
				res.CorrectVMs++
			}
		}
	}
	spec := analysis.DefaultSpec(dataset)
	spec.From, spec.To = o.From, o.To
	spec.Engine.Explain, spec.Engine.Seed = false, o.Seed
	switch {
	case classes:
		rules := optimizer.LifeClassRules(armRule(o.Arm))
		spec.Rules = &rules
	case o.Arm != "off":
		rules := optimizer.LifetimeRules()
		spec.Rules = &rules
	}
	ropts := analysis.RunOptions{Progress: o.Progress, Decorate: decorate}
	if classes {
		ropts.Allocator = func(a optimizer.Allocator) {
			start := o.From
			if math.IsInf(start, -1) {
				start = 0
			}
			state = a.State()
			state.EnableLifeClasses(start)
			nextRep = start + o.RepredictEvery
		}
	}
	rep, err := analysis.RunTrace(rctx, tr, &spec, ropts)
	if badPrediction != nil {
		return nil, badPrediction
	}
	if err != nil {
		return nil, err
	}
	rules := optimizer.RulesFor(&spec.Engine)
	if spec.Rules != nil {
		rules = *spec.Rules
	}
	res.PreferenceOrder, res.Evict = rules.PreferenceOrder(), spec.Engine.Evict
	s := &rep.Summary
	res.VMs, res.Rejected, res.RejectedBy = s.VMs, s.Rejected, s.RejectedBy
	if res.VMs > 0 {
		res.RejectionRatePct = 100 * float64(res.Rejected) / float64(res.VMs)
	}
	res.PackingPct = 100 * s.PackingDensityMean
	res.StrandedCoresPct, res.StrandedMemoryPct = s.StrandedCoresPctMean, s.StrandedMemoryPctMean
	res.LatencyP50US, res.LatencyP99US, res.ReplaySeconds = s.LatencyP50US, s.LatencyP99US, s.Seconds
	if res.PredictedVMs > 0 {
		res.AccuracyPct = 100 * float64(res.CorrectVMs) / float64(res.PredictedVMs)
	}
	if res.VMs > 0 {
		res.CoveragePct = 100 * float64(res.PredictedVMs) / float64(res.VMs)
	}
	t0 := o.From
	if math.IsInf(t0, -1) {
		// The first placement: a trace that begins late (the Azure V1
		// flavor trace's dev split at 1,800,000 s) must not count the
		// empty time before it.
		t0 = math.Inf(1)
		for i := range rep.Placements {
			t0 = math.Min(t0, rep.Placements[i].T)
		}
		if math.IsInf(t0, 1) {
			t0 = 0
		}
	}
	res.EmptyMachinesTimeMean, res.WindowFrom, res.WindowTo = EmptyMachinesTimeMean(tr, rep.Placements, t0, o.To)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// EmptyMachinesTimeMean is the time-weighted mean number of machines of tr
// hosting no VM over [t0, t1] (see Result), from a run's placement
// rows: a placed or evicted row occupies its machine from its time T until
// the VM's end in the trace, or its eviction, whichever comes first. t1 is
// the later of the last row's time and to (when finite). It returns the
// mean with t0 and t1; for t1 = t0 it is the number of machines empty at
// t0.
func EmptyMachinesTimeMean(tr *replay.Trace, rows []replay.PlacementRow, t0, to float64) (mean, from, t1 float64) {
	t1 = t0
	for i := range rows {
		t1 = math.Max(t1, rows[i].T)
	}
	if !math.IsInf(to, 1) {
		t1 = math.Max(t1, to)
	}
	end := make(map[int64]float64, len(tr.VMs))
	for _, v := range tr.VMs {
		end[v.ID] = v.End
	}
	machine := make(map[int32]int, len(tr.MachineIDs))
	for i, id := range tr.MachineIDs {
		machine[id] = i
	}
	type span struct{ a, b float64 }
	busy := make([][]span, len(tr.MachineIDs))
	for i := range rows {
		p := &rows[i]
		if p.Machine < 0 || p.Outcome == "rejected" {
			continue
		}
		b := end[p.VM]
		if !math.IsNaN(p.EvictedAt) {
			b = math.Min(b, p.EvictedAt)
		}
		if t1 == t0 {
			if p.T <= t0 && b > t0 {
				busy[machine[p.Machine]] = append(busy[machine[p.Machine]], span{t0, t0})
			}
			continue
		}
		a, b := math.Max(p.T, t0), math.Min(b, t1)
		if b > a {
			m := machine[p.Machine]
			busy[m] = append(busy[m], span{a, b})
		}
	}
	M := float64(len(tr.MachineIDs))
	if t1 == t0 {
		n := 0
		for _, s := range busy {
			if len(s) > 0 {
				n++
			}
		}
		return M - float64(n), t0, t1
	}
	covered := 0.0
	for _, ss := range busy {
		sort.Slice(ss, func(i, j int) bool { return ss[i].a < ss[j].a })
		var cur span
		for k, s := range ss {
			switch {
			case k == 0:
				cur = s
			case s.a > cur.b:
				covered += cur.b - cur.a
				cur = s
			default:
				cur.b = math.Max(cur.b, s.b)
			}
		}
		if len(ss) > 0 {
			covered += cur.b - cur.a
		}
	}
	return M - covered/(t1-t0), t0, t1
}

// loadCensored maps each right-censored VM of dataset to the time it was
// last seen alive (query lifetime_censored).
func loadCensored(ctx context.Context, db *store.DB, dataset string) (map[int64]float64, error) {
	out := map[int64]float64{}
	err := analysis.Each(ctx, db.SQL(), "lifetime_censored", []any{dataset}, func(r *sql.Rows) error {
		var vm int64
		var t float64
		if err := r.Scan(&vm, &t); err != nil {
			return err
		}
		out[vm] = t
		return nil
	})
	return out, err
}

// decorateDist gives a request of a life-class arm its VMs' lifetime
// distributions and its life class (the longest of its VMs' predicted
// classes when every VM has a prediction, else none), and counts the
// predictions as LifetimeReplay does: a VM's predicted bucket is RC
// Table 3's bucket of its predicted median lifetime. On the oracle arms a
// VM's distribution is its true remaining lifetime from its placement
// (end − placement time), a censored VM's its observed age there, a lower
// bound (the rule then sees it as at least that long).
func decorateDist(r *optimizer.Request, o Options, tr *replay.Trace, index map[int64]int,
	truth func(int, float64) int8, observed map[int64]float64, res *Result, want *[]int8) {
	_, model := distArm(o.Arm)
	var class int8
	all := true
	for k := range r.VMs {
		v := &r.VMs[k]
		i := index[v.ID]
		w := truth(i, r.Time)
		*want = append(*want, w)
		res.TrueBuckets[w]++
		tv := &tr.VMs[i]
		if math.IsInf(tv.End, 1) {
			res.CensoredVMs++
		}
		var d optimizer.LifetimeDist
		ok := false
		switch {
		case model:
			d, ok = o.PredictDist(v.ID)
			ok = ok && d.Known && !math.IsNaN(d.Mu) && !math.IsInf(d.Mu, 0) && d.Sigma >= 0
		case !math.IsInf(tv.End, 1):
			d, ok = optimizer.DistOf(tv.End-r.Time), true
		default:
			if obs, seen := observed[v.ID]; seen && obs > r.Time {
				d, ok = optimizer.DistOf(obs-r.Time), true
			}
		}
		if !ok {
			all = false
			continue
		}
		v.Life = d
		class = max(class, optimizer.LifeClassOf(d.RemainingMedian(0)))
		if model {
			res.PredictedVMs++
			if optimizer.LifetimeBucketOf(d.RemainingMedian(0)) == w {
				res.CorrectVMs++
			}
		}
	}
	if all {
		r.LifeClass = class
	}
}

// SurvivalPredictor serves dataset's lifetime distribution model (metric
// lifetime_dist, XGBoost's survival:aft) through RC's client: VM vm_id's
// predicted log-lifetime location μ (the client's cached prediction, its
// median exp μ) with the model's scale σ, as an optimizer.LifetimeDist. cut
// is the model's training cut; close releases the client.
func SurvivalPredictor(ctx context.Context, db *store.DB, dataset string) (func(int64) (optimizer.LifetimeDist, bool), float64, func(), error) {
	c, err := analysis.DatasetClient(ctx, db, dataset)
	if err != nil {
		return nil, 0, nil, err
	}
	pred, cut, err := survivalPredictor(c, dataset)
	if err != nil {
		c.Close()
		return nil, 0, nil, err
	}
	return pred, cut, c.Close, nil
}

// survivalPredictor is SurvivalPredictor served by c (which the caller
// closes).
func survivalPredictor(c *client.Client, dataset string) (func(int64) (optimizer.LifetimeDist, bool), float64, error) {
	name := predict.ModelName(dataset, predict.LifetimeDist, predict.AFT)
	m := c.Model(name)
	if m == nil {
		return nil, 0, fmt.Errorf("%w %q (placelab predict train --dataset %s --metric %s)", predict.ErrNoModel, name, dataset, predict.LifetimeDist)
	}
	_, sigma, ok := m.Survival()
	if !ok {
		return nil, 0, fmt.Errorf("analysis: model %q is not a lifetime distribution", name)
	}
	pred := func(vm int64) (optimizer.LifetimeDist, bool) {
		r, err := c.Predict(name, client.Input{VM: vm})
		if err != nil || !(r.Time > 0) {
			return optimizer.LifetimeDist{}, false
		}
		return optimizer.LifetimeDist{Mu: math.Log(r.Time), Sigma: sigma, Known: true}, true
	}
	return pred, m.TrainTo, nil
}

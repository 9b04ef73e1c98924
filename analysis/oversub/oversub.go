package oversub

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"placelab/analysis"
	"placelab/analysis/replay"
	"slices"
	"sort"
	"time"

	"placelab/optimizer"
	"placelab/predict"
	"placelab/predict/client"
	store "placelab/sql"
)

// The arms of Resource Central's §6.2 comparison.
var Arms = []string{"baseline", "naive", "rc-hard", "rc-soft", "rc-model", "rc-soft-right", "rc-soft-wrong"}

// Defaults of the oversubscription experiment, from Resource Central §6.2.
const (
	// DefaultProductionShare is the share of VMs tagged production in RC's
	// simulation (71%); placelab tags whole subscriptions.
	DefaultProductionShare = 0.71
	// ReadingSeconds is the utilization reading period (5 minutes).
	ReadingSeconds = 300.0
	// SubscriptionSpread is the standard deviation, in quantiles of the
	// series pool, of a VM's series around its subscription's: VMs of one
	// subscription behave alike (RC §3, per-subscription CoV) but not
	// identically.
	SubscriptionSpread = 0.05
)

// MaxOversubCells bounds the grid of utilization readings OversubReplay
// allocates, 5-minute periods × machines: 2^27 cells, 1 GiB in its two
// float32 arrays. A month on 2,500 machines is 21.6M cells; a longer span
// is refused (ErrSpanTooLarge) rather than allocated — narrow From and To.
const MaxOversubCells = 1 << 27

// ErrSpanTooLarge says a trace's time span is too long for the arrays an
// analysis would allocate over it.
var ErrSpanTooLarge = errors.New("analysis: time span too large")

// Options configure OversubReplay; start from DefaultOptions.
type Options struct {
	// Dataset is the dataset the arm replays (For sets it).
	Dataset string
	Arm     string
	// MaxOversub and MaxUtil are Algorithm 1's MAX_OVERSUB (≥ 1) and
	// MAX_UTIL (> 0).
	MaxOversub, MaxUtil float64
	// ProductionShare of subscriptions tagged production, in [0, 1].
	ProductionShare float64
	// Series names the dataset whose CPU readings (max per 5 minutes, else
	// the average) are the pool of utilization series given to the VMs; ""
	// uses the replayed dataset's own.
	Series string
	// Predict gives the rc-model arm a VM's P95 bucket and its score from
	// a trained model (placelab predict; the CLI asks Resource Central's
	// client); only that arm takes it, and it needs it.
	Predict func(vm int64) (bucket int8, score float64)
	// ModelCut is the model's training cut: rc-model counts the requests
	// created before it (their predictions are in-sample).
	ModelCut float64
	Seed     uint64
	// From and To bound the replay window in seconds (±Inf: all); To must
	// be after From.
	From, To float64
	Progress func(done, total int64)
}

// DefaultOptions are RC §6.2's settings — MAX_OVERSUB 125%,
// MAX_UTIL 100%, 71% production — over the whole trace, with no arm.
func DefaultOptions() Options {
	return Options{MaxOversub: optimizer.DefaultMaxOversub, MaxUtil: optimizer.DefaultMaxUtil,
		ProductionShare: DefaultProductionShare, From: math.Inf(-1), To: math.Inf(1)}
}

// Validate refuses options OversubReplay cannot run: an unknown arm,
// MAX_OVERSUB below 1, MAX_UTIL not above 0, a share outside [0, 1], NaN
// anywhere, a window that ends before it starts. Zero is never taken for a
// default.
func (o *Options) Validate() error {
	switch {
	case !slices.Contains(Arms, o.Arm):
		return fmt.Errorf("analysis: arm %q: want one of %v", o.Arm, Arms)
	case !(o.MaxOversub >= 1) || math.IsInf(o.MaxOversub, 1):
		return fmt.Errorf("analysis: MAX_OVERSUB %v: want a finite value ≥ 1", o.MaxOversub)
	case !(o.MaxUtil > 0) || math.IsInf(o.MaxUtil, 1):
		return fmt.Errorf("analysis: MAX_UTIL %v: want a finite value > 0", o.MaxUtil)
	case !(o.ProductionShare >= 0 && o.ProductionShare <= 1):
		return fmt.Errorf("analysis: production share %v: want 0 ≤ share ≤ 1", o.ProductionShare)
	case math.IsNaN(o.From) || math.IsNaN(o.To) || !(o.To > o.From):
		return fmt.Errorf("analysis: window [%v, %v): want from < to", o.From, o.To)
	case o.Arm == "rc-model" && o.Predict == nil:
		return fmt.Errorf("analysis: arm rc-model needs a P95 model's predictions (placelab predict train --metric p95_cpu)")
	case o.Arm != "rc-model" && o.Predict != nil:
		return fmt.Errorf("analysis: arm %s takes no model predictions (only rc-model does)", o.Arm)
	}
	return nil
}

// Result is one arm's outcome. Readings are server utilizations per
// 5 minutes — the sum of the co-located VMs' maximum utilizations in the
// period over the server's cores, RC §6.2's pessimistic aggregation — of
// servers with load.
type Result struct {
	RunID           int64   `json:"run_id,omitempty"`
	Arm             string  `json:"arm"`
	Dataset         string  `json:"dataset"`
	Series          string  `json:"series"`
	MaxOversub      float64 `figure:"max_oversub" json:"max_oversub"`
	MaxUtil         float64 `figure:"max_util" json:"max_util"`
	VMs             int     `figure:"vms" json:"vms"`
	Failures        int     `figure:"failures" json:"failures"`
	FailurePct      float64 `figure:"failure_pct" json:"failure_pct"`
	Readings        int64   `figure:"readings" json:"readings"`
	ReadingsOver100 int64   `figure:"readings_over_100" json:"readings_over_100"`
	MeanUtilPct     float64 `figure:"mean_util_pct" json:"mean_util_pct"`
	P99UtilPct      float64 `figure:"p99_util_pct" json:"p99_util_pct"`
	// OversubscribedServerPct is the share of readings of oversubscribable
	// servers whose allocated cores exceeded their physical cores.
	OversubscribedReadings int64 `figure:"oversubscribed_readings" json:"oversubscribed_readings"`
	// Predictions: non-production requests, those with a confident
	// prediction (score ≥ 0.6), and how many of those named the true bucket.
	NonProduction int `figure:"non_production_requests" json:"non_production_requests"`
	Confident     int `figure:"confident_predictions" json:"confident_predictions"`
	Correct       int `figure:"correct_predictions" json:"correct_predictions"`
	// InSample counts rc-model's non-production requests created before
	// the model's training cut: their predictions come from a model that
	// saw them.
	InSample   int     `figure:"in_sample_requests" json:"in_sample_requests,omitempty"`
	PackingPct float64 `figure:"packing_density_mean_pct" json:"packing_density_mean_pct"`
	Seconds    float64 `json:"seconds"`
}

// Figures lists the result as run_metric rows (t = 0) for WriteFigures.
func (r *Result) Figures() []replay.MetricRow { return analysis.Figures(r) }

// ErrNoSeries says the series pool is empty.
var ErrNoSeries = errors.New("analysis: no CPU utilization series")

// For is o replaying dataset.
func (o Options) For(dataset string) Options {
	o.Dataset = dataset
	return o
}

// Run replays a dataset through Protean under one arm of RC §6.2
// and measures server utilization per 5 minutes and scheduling failures:
//
//   - baseline: no oversubscription, production and non-production alike;
//   - naive: non-production VMs oversubscribe up to MAX_OVERSUB, no
//     predictions;
//   - rc-hard / rc-soft: Algorithm 1 with P95 predictions from the
//     subscription's history to date, the utilization check hard or soft;
//   - rc-model: the soft rule with P95 predictions from a trained model
//     (o.Predict), scored like the history's: a request's bucket is its
//     VMs' highest, none unless every VM's prediction scores ≥ θ;
//   - rc-soft-right / rc-soft-wrong: the soft rule with an oracle that
//     always names the true bucket, or always a wrong one.
//
// Each VM is given a utilization series from the pool (see
// assignSeries): the one whose P95 is nearest the VM's own (cpu_p95max)
// when the dataset records it, so that a model of the VM's P95 predicts its
// simulated behaviour; its true P95 bucket (RC Table 3) is that series'. The
// prediction for a subscription is the bucket most of its completed VMs
// fell in, scored by their share (RC: "the percentage of VMs classified into
// each bucket to date in the subscription" is the strongest feature); below
// optimizer.ConfidenceThreshold the VM is assumed to use all its cores.
func Run(ctx context.Context, db *store.DB, o Options) (*Result, error) {
	dataset := o.Dataset
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Series == "" {
		o.Series = dataset
	}
	tr, err := analysis.LoadTrace(ctx, db, dataset, o.From, o.To)
	if err != nil {
		return nil, err
	}
	// The readings grid spans the window's VMs: refuse it before the
	// replay if it is too large to allocate.
	lo := math.Max(0, o.From)
	hi := 0.0
	for _, v := range tr.VMs {
		hi = math.Max(hi, math.Max(v.Start, 0))
		if !math.IsInf(v.End, 1) {
			hi = math.Max(hi, v.End)
		}
	}
	hi = math.Min(hi, o.To)
	span := math.Max(math.Ceil((hi-lo)/ReadingSeconds), 1)
	M := len(tr.Inv.Machines)
	if cells := span * float64(M); cells > MaxOversubCells {
		return nil, fmt.Errorf("%w: dataset %q spans %.0f s from %.0f s: %.0f readings of %d machines is %.3g cells, more than %d; narrow the window (--from, --to)",
			ErrSpanTooLarge, dataset, hi-lo, lo, span, M, cells, MaxOversubCells)
	}
	periods := int(span)
	pool, err := loadSeries(ctx, db, o.Series)
	if err != nil {
		return nil, err
	}
	subs, own, err := loadSubscriptions(ctx, db, dataset)
	if err != nil {
		return nil, err
	}
	res := &Result{Arm: o.Arm, Dataset: dataset, Series: o.Series, MaxOversub: o.MaxOversub, MaxUtil: o.MaxUtil}
	// Per VM: subscription, production flag, series and true bucket.
	n := len(tr.VMs)
	vmSub := make([]string, n)
	series := make([]int, n)
	offset := make([]int, n)
	truth := make([]int8, n)
	prod := make([]bool, n)
	index := make(map[int64]int, n)
	assignSeries(tr, subs, own, pool, o.Seed, vmSub, series, offset)
	for i, v := range tr.VMs {
		index[v.ID] = i
		truth[i] = pool[series[i]].bucket
		prod[i] = unitHash(o.Seed, "prod", vmSub[i]) < o.ProductionShare
	}
	// Completed VMs in order of end time feed each subscription's history.
	byEnd := make([]int, 0, n)
	for i, v := range tr.VMs {
		if !math.IsInf(v.End, 1) {
			byEnd = append(byEnd, i)
		}
	}
	sort.SliceStable(byEnd, func(a, b int) bool { return tr.VMs[byEnd[a]].End < tr.VMs[byEnd[b]].End })
	history := map[string]*[5]int{}
	next := 0
	rng := rand.New(rand.NewPCG(o.Seed, 0x0c5ab))
	decorate := func(r *optimizer.Request) {
		for next < len(byEnd) && tr.VMs[byEnd[next]].End <= r.Time {
			i := byEnd[next]
			h := history[vmSub[i]]
			if h == nil {
				h = &[5]int{}
				history[vmSub[i]] = h
			}
			h[truth[i]]++
			next++
		}
		first := index[r.VMs[0].ID]
		r.Production = prod[first] && o.Arm != "baseline"
		if r.Production || o.Arm == "baseline" || o.Arm == "naive" {
			return
		}
		res.NonProduction++
		var want int8 // the request's true bucket: its largest VM's
		for _, v := range r.VMs {
			want = max(want, truth[index[v.ID]])
		}
		var pred int8
		switch o.Arm {
		case "rc-soft-right":
			pred = want
		case "rc-soft-wrong":
			pred = int8(1 + rng.IntN(3))
			if pred >= want {
				pred++
			}
		case "rc-model":
			if r.Time < o.ModelCut {
				res.InSample++
			}
			for _, v := range r.VMs {
				b, score := o.Predict(v.ID)
				if b < 1 || b > 4 || score < optimizer.ConfidenceThreshold {
					pred = 0
					break
				}
				pred = max(pred, b)
			}
		default:
			if h := history[vmSub[first]]; h != nil {
				total, best := 0, 1
				for b := 1; b <= 4; b++ {
					total += h[b]
					if h[b] > h[best] {
						best = b
					}
				}
				if total > 0 && float64(h[best])/float64(total) >= optimizer.ConfidenceThreshold {
					pred = int8(best)
				}
			}
		}
		r.UtilBucket = pred
		if pred > 0 {
			res.Confident++
			if pred == want {
				res.Correct++
			}
		}
	}
	// Every arm is one run spec through the run pipeline: Protean's
	// defaults, no eviction and no explanations for every arm alike, the
	// oversubscription rule set (RulesFor) for all but the baseline.
	spec := analysis.DefaultSpec(dataset)
	spec.From, spec.To = o.From, o.To
	spec.Engine.Explain, spec.Engine.Evict, spec.Engine.Seed = false, false, o.Seed+1
	if o.Arm != "baseline" {
		spec.Engine.Oversub = &optimizer.OversubConfig{MaxOversub: o.MaxOversub, MaxUtil: o.MaxUtil,
			Soft: o.Arm != "rc-hard", Naive: o.Arm == "naive"}
	}
	rep, err := analysis.RunTrace(ctx, tr, &spec, analysis.RunOptions{Progress: o.Progress, Decorate: decorate})
	if err != nil {
		return nil, err
	}
	res.PackingPct = 100 * rep.Summary.PackingDensityMean
	// Utilization readings.
	machineOf := make(map[int32]int32, len(tr.MachineIDs))
	for i, id := range tr.MachineIDs {
		machineOf[id] = int32(i)
	}
	util := make([]float32, periods*M)    // predicted-free truth: Σ cores × max util
	alloced := make([]float32, periods*M) // allocated cores, for oversubscription
	for _, p := range rep.Placements {
		res.VMs++
		if p.Machine < 0 || p.Outcome == "rejected" {
			res.Failures++
			continue
		}
		i := index[p.VM]
		v := tr.VMs[i]
		m := machineOf[p.Machine]
		d, _ := tr.Inv.Demand(v.Type, m)
		end := math.Min(v.End, hi)
		if !math.IsNaN(p.EvictedAt) {
			end = math.Min(end, p.EvictedAt)
		}
		s := pool[series[i]]
		k0 := int(math.Ceil((math.Max(p.T, lo) - lo) / ReadingSeconds))
		for k := k0; k < periods && lo+float64(k)*ReadingSeconds < end; k++ {
			u := s.max[(offset[i]+k-k0)%len(s.max)]
			util[k*M+int(m)] += float32(d[optimizer.Cores] * u / 100)
			alloced[k*M+int(m)] += float32(d[optimizer.Cores])
		}
	}
	var vals []float64
	for k := 0; k < periods; k++ {
		for m := 0; m < M; m++ {
			a := alloced[k*M+m]
			if a == 0 {
				continue
			}
			c := tr.Inv.Capacity(int32(m))[optimizer.Cores]
			u := float64(util[k*M+m]) / c
			res.Readings++
			vals = append(vals, u)
			if u > 1+1e-9 {
				res.ReadingsOver100++
			}
			if float64(a) > c+1e-6 {
				res.OversubscribedReadings++
			}
		}
	}
	if len(vals) > 0 {
		sort.Float64s(vals)
		sum := 0.0
		for _, v := range vals {
			sum += v
		}
		res.MeanUtilPct = 100 * sum / float64(len(vals))
		res.P99UtilPct = 100 * vals[int(0.99*float64(len(vals)-1))]
	}
	if res.VMs > 0 {
		res.FailurePct = 100 * float64(res.Failures) / float64(res.VMs)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// utilSeries is one VM's 5-minute maximum CPU utilization (%) and the RC
// Table 3 bucket of its 95th percentile.
type utilSeries struct {
	max    []float64
	p95    float64
	bucket int8
}

// p95Bucket is RC Table 3's bucket of a P95 utilization in percent.
func p95Bucket(p float64) int8 {
	switch {
	case p <= 25:
		return 1
	case p <= 50:
		return 2
	case p <= 75:
		return 3
	}
	return 4
}

// loadSeries reads the CPU series of a dataset (cpu_max per reading, the
// average where the maximum is missing), ordered by P95.
func loadSeries(ctx context.Context, db *store.DB, dataset string) ([]utilSeries, error) {
	var pool []utilSeries
	var cur int64 = -1
	var xs []float64
	flush := func() {
		if len(xs) >= 12 { // at least an hour of readings
			s := utilSeries{max: append([]float64(nil), xs...)}
			sorted := append([]float64(nil), xs...)
			sort.Float64s(sorted)
			s.p95 = sorted[int(math.Ceil(0.95*float64(len(sorted))))-1]
			s.bucket = p95Bucket(s.p95)
			pool = append(pool, s)
		}
		xs = xs[:0]
	}
	err := analysis.Each(ctx, db.SQL(), "oversub_series", []any{dataset}, func(r *sql.Rows) error {
		var vm int64
		var v float64
		if err := r.Scan(&vm, &v); err != nil {
			return err
		}
		if vm != cur {
			flush()
			cur = vm
		}
		xs = append(xs, math.Min(math.Max(v, 0), 100))
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	if len(pool) == 0 {
		return nil, fmt.Errorf("%w in dataset %q (give --series with a dataset of CPU readings, e.g. one ingested with placelab ingest azure-cpu)", ErrNoSeries, dataset)
	}
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].p95 < pool[j].p95 })
	return pool, nil
}

// loadSubscriptions maps vm_id to subscription (the tenant when the dataset
// has none) and to the VM's own P95 CPU utilization where recorded.
func loadSubscriptions(ctx context.Context, db *store.DB, dataset string) (map[int64]string, map[int64]float64, error) {
	out := map[int64]string{}
	own := map[int64]float64{}
	err := analysis.Each(ctx, db.SQL(), "oversub_subscriptions", []any{dataset}, func(r *sql.Rows) error {
		var vm int64
		var s string
		var p95 sql.NullFloat64
		if err := r.Scan(&vm, &s, &p95); err != nil {
			return err
		}
		out[vm] = s
		if p95.Valid {
			own[vm] = p95.Float64
		}
		return nil
	})
	return out, own, err
}

// assignSeries gives every VM a series of the pool (sorted by P95). A VM
// whose own P95 is known gets the series nearest it (the lower of two
// equally near). Otherwise each subscription draws a quantile q uniformly,
// each of its VMs the series at q + N(0, SubscriptionSpread) (clamped), so a
// subscription's VMs have similar — not equal — P95 utilization. Each VM
// starts its series at a random offset. Draws are seeded by the
// subscription and VM, so an arm does not change them.
func assignSeries(tr *replay.Trace, subs map[int64]string, own map[int64]float64, pool []utilSeries, seed uint64, vmSub []string, series, offset []int) {
	for i, v := range tr.VMs {
		s, ok := subs[v.ID]
		if !ok {
			s = fmt.Sprintf("vm-%d", v.ID)
		}
		vmSub[i] = s
		q := unitHash(seed, "sub", s)
		r := rand.New(rand.NewPCG(seed, uint64(v.ID)))
		q = math.Min(math.Max(q+SubscriptionSpread*r.NormFloat64(), 0), 1)
		series[i] = int(math.Round(q * float64(len(pool)-1)))
		if p, ok := own[v.ID]; ok {
			k := sort.Search(len(pool), func(j int) bool { return pool[j].p95 >= p })
			if k == len(pool) || k > 0 && p-pool[k-1].p95 <= pool[k].p95-p {
				k--
			}
			series[i] = k
		}
		offset[i] = r.IntN(len(pool[series[i]].max))
	}
}

// unitHash maps (seed, kind, key) to [0, 1): FNV-1a, whose high bits
// barely move when only the last characters differ ("sub72", "sub73"),
// then the splitmix64 finalizer to spread every input bit over the output.
func unitHash(seed uint64, kind, key string) float64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%s|%s", seed, kind, key)
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / float64(1<<53)
}

// P95Predictor serves the rc-model arm: ModelPredictor for the P95 CPU
// metric.
func P95Predictor(ctx context.Context, db *store.DB, dataset, approach string) (func(int64) (int8, float64), float64, *client.Client, error) {
	return ModelPredictor(ctx, db, dataset, predict.P95CPU, approach)
}

// ModelPredictor serves a trained model's predictions of metric for the
// VMs of dataset (placelab predict train; approach "" is RC Table 1's for
// the metric) through Resource Central's client: each VM's top bucket and
// its score (0, 0 when the client has none), with the model's training cut
// (predictions for VMs created before it are in-sample). Close the client
// when done.
func ModelPredictor(ctx context.Context, db *store.DB, dataset string, metric predict.Metric, approach string) (func(int64) (int8, float64), float64, *client.Client, error) {
	c, err := analysis.DatasetClient(ctx, db, dataset)
	if err != nil {
		return nil, 0, nil, err
	}
	pred, cut, err := analysis.ClientPredictor(c, dataset, metric, approach)
	if err != nil {
		c.Close()
		return nil, 0, nil, err
	}
	return pred, cut, c, nil
}

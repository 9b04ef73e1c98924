package paragon

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Constants of the simulator's performance model.
const (
	// slowdownAtTolerance makes a pressure equal to the tolerated score
	// cost QoSFraction of performance, the definition of tolerated
	// sensitivity (§2.3): g(t, t) = 1/(1 + δ) = 0.95, δ = 1/0.95 − 1.
	slowdownAtTolerance = 1/QoSFraction - 1
	// slowdownBelow and slowdownAbove are γ in g(p, t) = 1/(1 + δ
	// (p/t)^γ) below and above the tolerance. Below, contention costs
	// little (the tolerated score is the first microbenchmark intensity
	// that breaks QoS, §2.3, so there is a knee: 70% of it costs 0.6%);
	// above, performance falls with the square of the overload (twice the
	// tolerated pressure costs 17%, four times 46%) rather than collapsing.
	slowdownBelow = 6
	slowdownAbove = 2
	// minTolerance floors a tolerated score in the slowdown, so a score of
	// 0 means "hurt by any pressure" rather than a division by zero.
	minTolerance = 0.01
	// Bands of Figs. 5 and 10's decision quality: no degradation (< 1%),
	// < 10%, 10–20% and ≥ 20%.
	bandNone, band10, band20 = 0.01, 0.10, 0.20
	// ctxEvery is how many events pass between checks of the context.
	ctxEvery = 1024
)

// Breakdown is the share of applications per degradation band (Figs. 5
// and 10).
type Breakdown struct {
	None    float64 `json:"none"`
	Under10 float64 `json:"lt_10pct"`
	Under20 float64 `json:"lt_20pct"`
	Over20  float64 `json:"ge_20pct"`
}

func (b *Breakdown) add(degradation float64) {
	switch {
	case degradation < bandNone:
		b.None++
	case degradation < band10:
		b.Under10++
	case degradation < band20:
		b.Under20++
	default:
		b.Over20++
	}
}

func (b *Breakdown) scale(f float64) {
	b.None *= f
	b.Under10 *= f
	b.Under20 *= f
	b.Over20 *= f
}

// PlacementSummary aggregates the Decisions of one run (§3.2's statistics).
type PlacementSummary struct {
	// NoBacktrack: share placed without relaxing any level (§3.2: 89%).
	NoBacktrack float64 `json:"no_backtrack"`
	// NegativeOne and NegativeMany: share placed with D1 or D2 negative
	// (by the classification) at one SoI, and at several (§3.2: 8%, 3%).
	NegativeOne  float64 `json:"negative_one_soi"`
	NegativeMany float64 `json:"negative_many_sois"`
	// TimedOut (§3.2: < 0.1%) and Overcommitted (no server had the cores).
	TimedOut      float64 `json:"timed_out"`
	Overcommitted float64 `json:"overcommitted"`
	// MeanChecks is the mean number of (server, SoI) checks per placement.
	MeanChecks float64 `json:"mean_checks"`
	// RejectedD1 and RejectedD2 total the servers each SoI's level filtered
	// out, over all placements.
	RejectedD1 []int `json:"rejected_d1"`
	RejectedD2 []int `json:"rejected_d2"`
}

// ClassificationSummary is the quality of the online classification of the
// arriving applications (Tables 1–2), the same for every policy of a run.
type ClassificationSummary struct {
	Rank [3]int `json:"rank"` // performance (LogPCA), tolerated, caused
	// ProfileMethod is how the profiled configurations were chosen (the
	// method the platform classifier's cross-validation picked).
	ProfileMethod string `json:"profile_method"`
	// Profile lists the configurations every arrival is profiled on (none
	// when they are drawn at random per arrival); ProfileCV is the
	// cross-validation that chose the method.
	Profile       []int                `json:"profile,omitempty"`
	ProfileCV     []CVCandidate        `json:"profile_cv,omitempty"`
	Heterogeneity HeterogeneityMetrics `json:"heterogeneity"`
	Tolerated     InterferenceMetrics  `json:"tolerated"`
	Caused        InterferenceMetrics  `json:"caused"`
}

// Outcome is one application's fate in a run.
type Outcome struct {
	App         int     `json:"app"`
	Workload    int     `json:"workload"`
	Kind        string  `json:"kind"`
	MemoryBound bool    `json:"memory_bound"`
	Cores       int     `json:"cores"`
	Arrival     float64 `json:"arrival_s"`
	Finish      float64 `json:"finish_s"`
	Server      int     `json:"server"`
	Config      int     `json:"config"`
	// Platform is the true score of the chosen configuration (1 = best);
	// Interference the time-averaged interference and core-sharing factor;
	// Perf their product averaged over the run: work done alone on the best
	// configuration over the time taken.
	Platform     float64  `json:"platform"`
	Interference float64  `json:"interference"`
	Perf         float64  `json:"perf"`
	QoS          bool     `json:"qos"`
	Decision     Decision `json:"decision"`
}

// Result is one (scenario, policy) run.
type Result struct {
	Scenario string `json:"scenario"`
	Policy   string `json:"policy"`
	// Knows says which true scores the policy was given (the oracle).
	Knows   Knowledge `json:"knows"`
	Seed    uint64    `json:"seed"`
	Servers int       `json:"servers"`
	Cores   int       `json:"cores"`
	// UsableCores is the usable capacity (UsableCapacity) and Load the
	// offered core demand at full speed over it (ScenarioConfig.Load).
	UsableCores float64 `json:"usable_cores"`
	Load        float64 `json:"load"`
	// D1 and InterferenceModel are the run's D1 rule and interference
	// model.
	D1                string `json:"d1"`
	InterferenceModel string `json:"interference_model"`
	Apps              int    `json:"apps"`
	// QoSShare: applications at ≥ QoSFraction of their performance alone
	// on their best configuration.
	QoSShare float64 `json:"qos_share"`
	// MeanNormalizedPerf: mean of Outcome.Perf.
	MeanNormalizedPerf float64 `json:"mean_normalized_perf"`
	// Within10Share: Perf ≥ 0.9; Degraded20Share: Perf < 0.8.
	Within10Share   float64 `json:"within_10pct_share"`
	Degraded20Share float64 `json:"degraded_20pct_share"`
	// Why QoS was missed: MissPlatform is the share of applications placed
	// on a configuration whose true score is below QoSFraction (no
	// co-runner could help); MissInterference the share on a near-best
	// configuration that still fell below QoS (interference and shared
	// cores). QoSShare + MissPlatform + MissInterference = 1.
	MissPlatform     float64 `json:"qos_miss_platform"`
	MissInterference float64 `json:"qos_miss_interference"`
	// Heterogeneity and Interference are Figs. 5 and 10's decision-quality
	// breakdowns: bands of 1 − Platform and of 1 − Interference.
	Heterogeneity Breakdown        `json:"heterogeneity_quality"`
	Interference  Breakdown        `json:"interference_quality"`
	Placement     PlacementSummary `json:"placement"`
	// PeakDemand is the largest core demand over the cluster's cores seen
	// at an arrival, PeakDemandUsable the same over UsableCores, and
	// AboveUsableShare the share of arrivals that found the core demand of
	// the running applications above UsableCores; Makespan the last finish
	// time.
	PeakDemand       float64               `json:"peak_demand"`
	PeakDemandUsable float64               `json:"peak_demand_usable"`
	AboveUsableShare float64               `json:"above_usable_share"`
	Makespan         float64               `json:"makespan_s"`
	Classification   ClassificationSummary `json:"classification"`
	Outcomes         []Outcome             `json:"outcomes,omitempty"`
}

// SortedPerf returns the applications' normalized performance from worst
// to best, the curves of Figs. 4, 6 and 9 (nil without Outcomes).
func (r *Result) SortedPerf() []float64 {
	out := make([]float64, 0, len(r.Outcomes))
	for _, o := range r.Outcomes {
		out = append(out, o.Perf)
	}
	sort.Float64s(out)
	return out
}

// slowdown is g(p, t) of SimulateAll: the share of its speed an
// application with tolerated score t keeps under pressure p on one SoI.
func slowdown(p, t float64) float64 {
	x := math.Max(0, p) / math.Max(t, minTolerance)
	gamma := float64(slowdownBelow)
	if x > 1 {
		gamma = slowdownAbove
	}
	return 1 / (1 + slowdownAtTolerance*math.Pow(x, gamma))
}

// arrival is one application of a scenario, classified once and shared by
// every policy.
type arrival struct {
	time, work float64
	typ        int
	req        Request // classified
	truth      Class   // the true scores
}

// workload is everything about a scenario that does not depend on the
// policy.
type workload struct {
	cfg      ScenarioConfig
	syn      *Synth
	specs    []ServerSpec
	cores    int
	usable   float64
	arrivals []arrival
	class    ClassificationSummary
}

// subSeed derives independent seeds from the run seed (splitmix64).
func subSeed(seed uint64, k uint64) uint64 {
	z := seed + k*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// prepare generates the pool, trains the classifier on the offline rows,
// and draws, profiles and classifies the arrivals.
func prepare(ctx context.Context, cfg ScenarioConfig) (*workload, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	pn := cfg.PlatformNoise
	if pn == 0 {
		pn = -1 // none: Synthesize's zero is its default
	}
	syn, err := Synthesize(SynthOptions{Apps: cfg.Pool, Configs: cfg.Configs, Noise: cfg.Noise,
		MeasureNoise: cfg.MeasureNoise, PlatformNoise: pn, Seed: subSeed(cfg.Seed, 1)})
	if err != nil {
		return nil, fmt.Errorf("paragon: scenario %q: %w", cfg.Name, err)
	}
	w := &workload{cfg: cfg, syn: syn}
	for i := 0; i < cfg.Servers; i++ {
		c := i % cfg.Configs
		w.specs = append(w.specs, ServerSpec{Config: c, Cores: syn.Configs[c].Cores})
		w.cores += syn.Configs[c].Cores
	}
	w.usable = UsableCapacity(syn.Apps, w.specs, cfg.Configs)

	// Offline training: the first Offline workloads, every entry profiled.
	rng := rand.New(rand.NewPCG(subSeed(cfg.Seed, 2), 0))
	noisy := func(v float64) float64 { return v * (1 + cfg.MeasureNoise*rng.NormFloat64()) }
	noisyPerf := func(v float64) float64 { return v * (1 + cfg.PlatformMeasureNoise*rng.NormFloat64()) }
	perf := NewSparse(cfg.Offline, cfg.Configs)
	tol := NewSparse(cfg.Offline, DefaultSoIs)
	cau := NewSparse(cfg.Offline, DefaultSoIs)
	for i := 0; i < cfg.Offline; i++ {
		a := &syn.Apps[i]
		for c, v := range a.Perf {
			perf.Set(i, c, noisyPerf(v))
		}
		for s := range a.Tolerated {
			tol.Set(i, s, clamp01(noisy(a.Tolerated[s])))
			cau.Set(i, s, clamp01(noisy(a.Caused[s])))
		}
	}
	popts := DefaultPlatformOptions()
	popts.Known = cfg.Known
	// The greedy search ranks every configuration by the row.
	popts.Objective = ObjectiveRow
	cl, err := TrainClassifier(perf, tol, cau, nil, popts, Options{Seed: subSeed(cfg.Seed, 3)})
	if err != nil {
		return nil, fmt.Errorf("paragon: scenario %q: training: %w", cfg.Name, err)
	}
	w.class.Rank = [3]int{cl.Platform.Model.Rank(), cl.Tolerated.Rank(), cl.Caused.Rank()}
	w.class.ProfileMethod = cl.Platform.Method
	w.class.Profile = cl.Platform.Profile
	w.class.ProfileCV = cl.Platform.CV
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Arrivals.
	var memBound []int
	meanCores := 0.0
	for i, a := range syn.Apps {
		meanCores += float64(a.Cores)
		if a.MemoryBound {
			memBound = append(memBound, i)
		}
	}
	meanCores /= float64(len(syn.Apps))
	if !(w.usable > 0) {
		return nil, fmt.Errorf("%w: scenario %q: no usable capacity", ErrEmpty, cfg.Name)
	}
	duration := cfg.Load * w.usable * cfg.Interval / meanCores
	total := cfg.Apps + cfg.Burst
	t, burstT := 0.0, 0.0
	var hp, tp, cp []Prediction
	for n, normal := 0, 0; n < total; n++ {
		var ar arrival
		inBurst := cfg.Burst > 0 && normal >= cfg.BurstAfter && n-normal < cfg.Burst
		if inBurst {
			if n-normal == 0 {
				burstT = t
			}
			burstT += cfg.BurstInterval
			ar.time = burstT
			if cfg.BurstMemoryBound && len(memBound) > 0 {
				ar.typ = memBound[rng.IntN(len(memBound))]
			} else {
				ar.typ = rng.IntN(len(syn.Apps))
			}
		} else {
			if normal > 0 {
				t += cfg.Interval
			}
			if burstT > t {
				t = burstT
			}
			ar.time = t
			ar.typ = rng.IntN(len(syn.Apps))
			normal++
		}
		ar.work = duration * (0.5 + rng.Float64())
		a := &syn.Apps[ar.typ]
		prof := Profile{Perf: map[int]float64{}, Tolerated: map[int]float64{}, Caused: map[int]float64{}}
		kp := cl.Platform.ProfileFor(rng)
		kt := pick(rng, DefaultSoIs, cfg.Known)
		kc := pick(rng, DefaultSoIs, cfg.Known)
		for _, c := range kp {
			prof.Perf[c] = math.Max(1e-9, noisyPerf(a.Perf[c]*a.Scale))
		}
		for _, s := range kt {
			prof.Tolerated[s] = clamp01(noisy(a.Tolerated[s]))
		}
		for _, s := range kc {
			prof.Caused[s] = clamp01(noisy(a.Caused[s]))
		}
		ar.req = Request{ID: n, Cores: a.Cores, Class: cl.Classify(prof)}
		ar.truth = Class{Perf: a.Perf, PerfPick: argmax(a.Perf), Tolerated: a.Tolerated, Caused: a.Caused,
			ToleratedConfidence: 1, CausedConfidence: 1}
		hp = append(hp, Prediction{Predicted: ar.req.Class.Perf, Truth: a.Perf, Known: kp, Pick: ar.req.Class.PerfPick, Picked: true})
		tp = append(tp, Prediction{Predicted: ar.req.Class.Tolerated, Truth: a.Tolerated, Known: kt})
		cp = append(cp, Prediction{Predicted: ar.req.Class.Caused, Truth: a.Caused, Known: kc})
		w.arrivals = append(w.arrivals, ar)
	}
	sort.SliceStable(w.arrivals, func(i, j int) bool { return w.arrivals[i].time < w.arrivals[j].time })
	w.class.Heterogeneity = Heterogeneity(hp)
	w.class.Tolerated = Interference(tp)
	w.class.Caused = Interference(cp)
	return w, nil
}

// pick returns k distinct columns of n, drawn at random.
func pick(rng *rand.Rand, n, k int) []int {
	p := rng.Perm(n)[:k]
	sort.Ints(p)
	return p
}

// Simulate runs one policy on one scenario. See SimulateAll.
func Simulate(ctx context.Context, cfg ScenarioConfig, policy string) (*Result, error) {
	rs, err := SimulateAll(ctx, cfg, []string{policy})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// SimulateAll runs each policy on the same scenario: the same
// configurations, arrivals, profiles and classifications (common random
// numbers), so that differences come from the policies alone. The same
// configuration and seed give the same results.
//
// The model (§4): servers of cfg.Configs configurations in equal numbers;
// applications arrive, are profiled on cfg.Known configurations and
// microbenchmarks, classified by folding in (§2), placed by the policy on
// its view of the cluster (classified scores of the residents; the true
// ones for what an Informed policy knows: the oracle), and run until their
// work is done. An application b on a server runs at rate
//
//	platform_b(SC) × interference_b × share
//
// of its speed alone on its best configuration, where, with p_s the true
// pressure Σ_{x≠b} c_x,s its co-runners put on SoI s and t_s its true
// tolerated score,
//
//	g_s = 1 / (1 + δ (p_s / t_s)^γ),  δ = 1/0.95 − 1,
//	γ = 6 for p_s ≤ t_s (a knee), 2 above (no collapse)
//	interference_b = Π_s g_s          (InterferenceWorst: min_s g_s)
//	share = min(1, cores/demand) / min(1, cores/cores_b)
//
// so pressure at the tolerance costs exactly 5% (§2.3's definition),
// contention on several resources compounds (InterferenceWorst, the
// lenient alternative, lets the most contended resource alone set the
// pace), and oversubscribed cores are time-shared. Rates change at every arrival and
// departure on the server; Perf is work over time taken.
func SimulateAll(ctx context.Context, cfg ScenarioConfig, policies []string) ([]*Result, error) {
	ps := make([]Policy, len(policies))
	for i, name := range policies {
		headroom := cfg.D1 == D1Headroom
		p, err := NewPolicy(name, PolicyOptions{Seed: subSeed(cfg.Seed, 4),
			Greedy: GreedyOptions{Headroom: headroom},
			Sample: SampleOptions{Headroom: headroom}})
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	w, err := prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]*Result, len(ps))
	for i, p := range ps {
		r, err := w.run(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("paragon: scenario %q, policy %q: %w", cfg.Name, p.Name(), err)
		}
		out[i] = r
	}
	return out, nil
}

// running is one application's state during a run.
type running struct {
	arr       *arrival
	server    int
	platform  float64
	remaining float64
	rate      float64 // of alone-on-best speed
	factor    float64 // interference × share
	last      float64 // time remaining and the integrals were brought to
	factorInt float64 // ∫ factor dt
	finish    float64
	version   int
	dec       Decision
	done      bool
}

// completion is a projected finish in the event heap.
type completion struct {
	time    float64
	app     int
	version int
}

type completions []completion

func (h completions) Len() int { return len(h) }
func (h completions) Less(i, j int) bool {
	if h[i].time != h[j].time {
		return h[i].time < h[j].time
	}
	return h[i].app < h[j].app
}
func (h completions) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *completions) Push(x any)   { *h = append(*h, x.(completion)) }
func (h *completions) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// run simulates one policy over the prepared workload.
func (w *workload) run(ctx context.Context, p Policy) (*Result, error) {
	cfg := w.cfg
	cluster := NewCluster(w.specs, DefaultSoIs)
	apps := make([]running, len(w.arrivals))
	onServer := make([][]int, len(w.specs))
	demand := 0
	var events completions
	knows := KnowledgeOf(p)
	res := &Result{Scenario: cfg.Name, Policy: p.Name(), Knows: knows, Seed: cfg.Seed, Servers: len(w.specs),
		Cores: w.cores, UsableCores: w.usable, Load: cfg.Load, D1: cfg.D1, InterferenceModel: cfg.Interference,
		Apps: len(w.arrivals), Classification: w.class}
	// The requests as this policy sees them.
	reqs := make([]Request, len(w.arrivals))
	for i := range w.arrivals {
		ar := &w.arrivals[i]
		reqs[i] = ar.req
		if knows.TruePlatform {
			reqs[i].Class.Perf, reqs[i].Class.PerfPick = ar.truth.Perf, ar.truth.PerfPick
		}
		if knows.TrueInterference {
			reqs[i].Class.Tolerated, reqs[i].Class.Caused = ar.truth.Tolerated, ar.truth.Caused
			reqs[i].Class.ToleratedConfidence, reqs[i].Class.CausedConfidence = 1, 1
		}
	}
	res.Placement.RejectedD1 = make([]int, DefaultSoIs)
	res.Placement.RejectedD2 = make([]int, DefaultSoIs)

	advance := func(s int, now float64) {
		for _, id := range onServer[s] {
			a := &apps[id]
			dt := now - a.last
			a.remaining -= a.rate * dt
			a.factorInt += a.factor * dt
			a.last = now
		}
	}
	pressure := make([]float64, DefaultSoIs)
	reschedule := func(s int, now float64) {
		srv := &w.specs[s]
		for k := range pressure {
			pressure[k] = 0
		}
		used := 0
		for _, id := range onServer[s] {
			t := &w.syn.Apps[apps[id].arr.typ]
			for k, c := range t.Caused {
				pressure[k] += c
			}
			used += t.Cores
		}
		for _, id := range onServer[s] {
			a := &apps[id]
			t := &w.syn.Apps[a.arr.typ]
			interf := 1.0
			for k, tol := range t.Tolerated {
				g := slowdown(pressure[k]-t.Caused[k], tol)
				if cfg.Interference == InterferenceCompound {
					interf *= g
				} else {
					interf = math.Min(interf, g)
				}
			}
			share := math.Min(1, float64(srv.Cores)/float64(used)) / math.Min(1, float64(srv.Cores)/float64(t.Cores))
			a.factor = interf * share
			a.rate = a.platform * a.factor
			a.version++
			fin := now + math.Max(0, a.remaining)/a.rate
			heap.Push(&events, completion{fin, id, a.version})
		}
	}

	next := 0
	for n := 0; next < len(apps) || events.Len() > 0; n++ {
		if n%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for events.Len() > 0 && events[0].version != apps[events[0].app].version {
			heap.Pop(&events)
		}
		if next == len(apps) && events.Len() == 0 {
			break
		}
		if next < len(apps) && (events.Len() == 0 || w.arrivals[next].time <= events[0].time) {
			ar := &w.arrivals[next]
			id := next
			next++
			req := &reqs[id]
			dec := p.Place(cluster, req)
			if dec.Server < 0 {
				return nil, fmt.Errorf("%w: application %d", ErrNoServer, id)
			}
			s := dec.Server
			typ := &w.syn.Apps[ar.typ]
			advance(s, ar.time)
			apps[id] = running{arr: ar, server: s, platform: typ.Perf[w.specs[s].Config],
				remaining: ar.work, last: ar.time, dec: dec}
			cluster.Add(s, Resident{ID: id, Cores: req.Cores, Tolerated: req.Class.Tolerated, Caused: req.Class.Caused})
			onServer[s] = append(onServer[s], id)
			if float64(demand) > w.usable {
				res.AboveUsableShare++
			}
			demand += typ.Cores
			res.PeakDemand = math.Max(res.PeakDemand, float64(demand)/float64(w.cores))
			res.PeakDemandUsable = math.Max(res.PeakDemandUsable, float64(demand)/w.usable)
			reschedule(s, ar.time)
			continue
		}
		ev := heap.Pop(&events).(completion)
		a := &apps[ev.app]
		s := a.server
		advance(s, ev.time)
		a.done, a.finish = true, ev.time
		a.version++
		for i, id := range onServer[s] {
			if id == ev.app {
				onServer[s] = append(onServer[s][:i], onServer[s][i+1:]...)
				break
			}
		}
		cluster.Remove(ev.app)
		demand -= w.syn.Apps[a.arr.typ].Cores
		reschedule(s, ev.time)
	}

	// Summaries.
	n := float64(len(apps))
	checks := 0.0
	for id := range apps {
		a := &apps[id]
		span := a.finish - a.arr.time
		perf, factor := a.platform, 1.0
		if span > 0 {
			perf = a.arr.work / span
			factor = a.factorInt / span
		}
		qos := perf >= QoSFraction
		switch {
		case qos:
			res.QoSShare++
		case a.platform < QoSFraction:
			res.MissPlatform++
		default:
			res.MissInterference++
		}
		res.MeanNormalizedPerf += perf
		if perf >= 0.9 {
			res.Within10Share++
		}
		if perf < 0.8 {
			res.Degraded20Share++
		}
		res.Heterogeneity.add(1 - a.platform)
		res.Interference.add(1 - factor)
		res.Makespan = math.Max(res.Makespan, a.finish)
		d := &a.dec
		if d.Backtracks == 0 && d.SelfRelaxed == 0 {
			res.Placement.NoBacktrack++
		}
		switch {
		case d.NegativeSoIs == 1:
			res.Placement.NegativeOne++
		case d.NegativeSoIs > 1:
			res.Placement.NegativeMany++
		}
		if d.TimedOut {
			res.Placement.TimedOut++
		}
		if d.Overcommitted {
			res.Placement.Overcommitted++
		}
		checks += float64(d.Checks)
		for k := range d.RejectedD1 {
			res.Placement.RejectedD1[k] += d.RejectedD1[k]
			res.Placement.RejectedD2[k] += d.RejectedD2[k]
		}
		if cfg.Outcomes {
			typ := &w.syn.Apps[a.arr.typ]
			dec := *d
			dec.RejectedD1, dec.RejectedD2 = nil, nil
			res.Outcomes = append(res.Outcomes, Outcome{App: id, Workload: a.arr.typ, Kind: typ.Kind.String(),
				MemoryBound: typ.MemoryBound, Cores: typ.Cores, Arrival: a.arr.time, Finish: a.finish,
				Server: a.server, Config: w.specs[a.server].Config, Platform: a.platform, Interference: factor,
				Perf: perf, QoS: qos, Decision: dec})
		}
	}
	res.QoSShare /= n
	res.MissPlatform /= n
	res.MissInterference /= n
	res.AboveUsableShare /= n
	res.MeanNormalizedPerf /= n
	res.Within10Share /= n
	res.Degraded20Share /= n
	res.Heterogeneity.scale(1 / n)
	res.Interference.scale(1 / n)
	res.Placement.NoBacktrack /= n
	res.Placement.NegativeOne /= n
	res.Placement.NegativeMany /= n
	res.Placement.TimedOut /= n
	res.Placement.Overcommitted /= n
	res.Placement.MeanChecks = checks / n
	return res, nil
}

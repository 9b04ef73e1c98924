package synth

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Workload categories (Resource Central §3.6): VMs that live at least 3 days
// are Interactive when their utilization is diurnal-periodic and
// Delay-insensitive otherwise; shorter-lived VMs cannot be classified.
const (
	CategoryInteractive      = "Interactive"
	CategoryDelayInsensitive = "Delay-insensitive"
	CategoryUnknown          = "Unknown"
	classifyAfter            = 3 * day // RC §3.6: periodicity needs 3 days of readings
	DiurnalPeriodHours       = 24      // the period of periodic VMs
)

const (
	minute = 60.0
	hour   = 3600.0
	day    = 86400.0
)

// Request sizes (Protean §2.2: "94% of requests are for a single VM. 99% of
// requests are for five or less VMs. We also observe a few requests for
// hundreds of VMs").
var requestSizes2to5 = [4]float64{0.025, 0.011, 0.008, 0.006} // P(size = 2..5), sums to 0.05

const (
	pSingleVM        = 0.94
	requestTailMin   = 6    // sizes > 5 follow a discrete Pareto from here
	requestTailMax   = 1000 // ... up to here
	requestTailAlpha = 1.2  // P(size ≥ k | ≥ 6) = (6/k)^α: ~0.03% of requests ≥ 100 VMs
	maxRequestCores  = 1024 // a request's VMs hold at most this many cores (size shrinks)
)

// Locality and subscriptions. Protean Fig 2: > 80% of VM requests have
// zero reuse distance. Resource Central §3: subscriptions behave
// consistently (types, sizes, lifetimes, utilization, class).
const (
	pRepeat            = 0.80 // a service request repeats the previous one's subscription and VM type
	pPrimaryType       = 0.80 // a subscription's request is of its primary type
	vmsPerSubscription = 40   // subscriptions = max(minSubscriptions, VMs / this)
	minSubscriptions   = 10
	zipfExponent       = 0.8  // subscription i (from 1) submits ∝ i^-0.8
	shareInteractive   = 0.27 // RC Fig 6: interactive VMs hold ~28% of core hours
	pPeriodicIfInter   = 0.90 // RC §3.6: 76% of subscriptions are dominated by one class
	pPeriodicOtherwise = 0.05
)

// Lifetimes (Resource Central Fig 5, Protean §2.2): three classes. Short
// and medium are log-normal; long is 1 day plus a log-normal, which puts
// the knee of the CDF at 1 day (> 90% of lifetimes shorter, then a long
// flat tail of weeks to months). A subscription prefers one class and
// scales lifetimes by its own factor (RC §3.5: lifetimes consistent per
// subscription).
var lifeClasses = [3]struct {
	weight, median, sigma float64
}{
	{0.58, 8 * minute, 1.0}, // minutes (first-party test VMs, short jobs)
	{0.35, 2.5 * hour, 1.1}, // hours
	{0.07, 0, 1.2},          // 1 day + weeks: median solved by longMedian
}

const (
	lifeLong         = 2
	prefLifeShare    = 0.5  // share of a subscription's requests in its preferred class
	subLifeSigma     = 0.5  // log-sd of a subscription's lifetime factor (mean 1)
	vmLifeSigma      = 0.3  // log-sd of a VM's lifetime around its request's
	minLifetime      = 60.0 // seconds
	longMedianMin    = 2 * day
	longMedianMax    = 180 * day
	longMedianNoFlow = 14 * day // when the trace has no arrivals to balance
)

// Arrival intensity (Protean Figs 3–4, RC Fig 7): diurnal, lower on
// weekends, with bursts.
const (
	diurnalAmplitude = 0.40 // rate ∝ 1 + A·cos(2π(h − peak)/24): peak/trough = 1.4/0.6
	diurnalPeakHour  = 14
	weekendFactor    = 0.70 // t = 0 is a Monday 00:00; days 5 and 6 of each week
	burstsPerDay     = 4
	burstMedian      = 10 * minute
	burstSigma       = 0.6
	burstMaxGain     = 5 // a burst multiplies the rate by 1 + U(1, burstMaxGain)
	intensityBin     = minute
)

// VM is one generated VM. Times are seconds from the trace start.
type VM struct {
	ID           int64
	Request      int32 // service request (tenant), numbered in start order
	Subscription int32
	Type         int16 // index into VMTypes()
	Priority     int8  // 0 high, 1 low (evictable)
	Start        float64
	End          float64 // true end; written as NULL when Censored
	Censored     bool    // End is after the trace end
	Category     string
	Periodic     bool // utilization is diurnal-periodic (24 h); labelled only when Interactive
	CPUAvg       float64
	CPUP95Max    float64
	CPUMax       float64
}

// PeriodHours returns the VM's ground-truth period label: 24 for
// Interactive VMs, 0 (NULL) otherwise.
func (v VM) PeriodHours() float64 {
	if v.Category == CategoryInteractive {
		return DiurnalPeriodHours
	}
	return 0
}

// Trace is a generated zone and workload.
type Trace struct {
	Config Config
	Zone   Zone
	Types  []VMType
	VMs    []VM // by ID: the initial population (negative starts), then arrivals
	Series []Series

	Subscriptions   int
	Requests        int // service requests (tenants), initial and arrivals
	InitialRequests int
	InitialVMs      int
	// LongMedianDays is the median of the long lifetime class beyond its
	// first day, solved so that arrivals replace departures (Stationary) or
	// clamped to [2, 180] days when they cannot.
	LongMedianDays float64
	Stationary     bool
}

type subscription struct {
	weight      float64
	primary     int // VM type index
	priority    int8
	interactive bool
	lifeClass   int
	lifeScale   float64
	utilZ       float64 // standard-normal utilization level
}

// maxInitialAge caps how long before t = 0 a VM of the initial population
// started: the length-biased long class has a heavy tail, and a zone's
// oldest VMs are a few years old, not decades. Capping the age moves only
// the start time; the VM still ends when it would have.
const maxInitialAge = 3 * 365 * day

// lifeModel holds the lifetime classes with the solved long median.
type lifeModel struct {
	longMedian float64
}

// classMean is the mean lifetime of class k for a subscription factor m.
func (lm lifeModel) classMean(k int, m float64) float64 {
	c := lifeClasses[k]
	if k == lifeLong {
		return day + m*lm.longMedian*math.Exp(c.sigma*c.sigma/2)
	}
	return m * c.median * math.Exp(c.sigma*c.sigma/2)
}

// draw returns a lifetime of class k for subscription factor m; biased
// draws are length-biased (density ∝ L·f(L)), as seen by a snapshot.
func (lm lifeModel) draw(rng *rand.Rand, k int, m float64, biased bool) float64 {
	c := lifeClasses[k]
	mu := math.Log(c.median)
	if k == lifeLong {
		mu = math.Log(lm.longMedian)
		// (day + X)·f: with probability day/(day + E[mX]) unbiased X, else X length-biased.
		ex := m * lm.longMedian * math.Exp(c.sigma*c.sigma/2)
		if biased && rng.Float64() < ex/(day+ex) {
			mu += c.sigma * c.sigma
		}
		return day + m*lognormal(rng, mu, c.sigma)
	}
	if biased {
		mu += c.sigma * c.sigma // the length-biased log-normal is log-normal(μ+σ², σ)
	}
	return m * lognormal(rng, mu, c.sigma)
}

// jitter spreads a VM's lifetime around its request's, keeping the knee:
// the long class is jittered beyond its first day only.
func (lm lifeModel) jitter(rng *rand.Rand, k int, life float64) float64 {
	f := math.Exp(vmLifeSigma*rng.NormFloat64() - vmLifeSigma*vmLifeSigma/2)
	if k == lifeLong {
		return day + (life-day)*f
	}
	return life * f
}

// classProb is P(class k) for a subscription preferring class pref.
func classProb(k, pref int) float64 {
	p := (1 - prefLifeShare) * lifeClasses[k].weight
	if k == pref {
		p += prefLifeShare
	}
	return p
}

// solveLongMedian picks the long class's median so that the mean lifetime
// equals n0 / λ (λ: arrival rate of VMs), the stationary population that
// arrivals sustain (Little's law). It reports false when it had to clamp.
func solveLongMedian(n0, arrivals, horizon float64) (float64, bool) {
	if arrivals <= 0 || n0 <= 0 {
		return longMedianNoFlow, false
	}
	want := n0 / (arrivals / horizon)
	lm := lifeModel{}
	rest := 0.0
	for k := 0; k < lifeLong; k++ {
		rest += lifeClasses[k].weight * lm.classMean(k, 1)
	}
	c := lifeClasses[lifeLong]
	med := ((want-rest)/c.weight - day) / math.Exp(c.sigma*c.sigma/2)
	switch {
	case med < longMedianMin:
		return longMedianMin, false
	case med > longMedianMax:
		return longMedianMax, false
	}
	return med, true
}

// requestSize draws a service request's VM count.
func requestSize(rng *rand.Rand) int {
	u := rng.Float64()
	if u < pSingleVM {
		return 1
	}
	u -= pSingleVM
	for i, p := range requestSizes2to5 {
		if u < p {
			return i + 2
		}
		u -= p
	}
	for {
		k := int(requestTailMin * math.Pow(1-rng.Float64(), -1/requestTailAlpha))
		if k <= requestTailMax {
			return k
		}
	}
}

// Generate builds the zone, VM types, VMs and CPU series of cfg.
func Generate(cfg Config) (*Trace, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	zone, err := NewZone(cfg.Machines, cfg.Seed)
	if err != nil {
		return nil, err
	}
	tr := &Trace{Config: cfg, Zone: zone, Types: VMTypes()}
	g := &generator{
		cfg:     cfg,
		subs:    newSubscriptions(cfg),
		typeCum: cumulative(requestTypeShares()),
		horizon: cfg.Days * day,
	}
	tr.Subscriptions = len(g.subs)

	// Size the initial population by cores, then solve the long lifetime
	// class so that the arrivals sustain it.
	targetCores := cfg.Load * zone.Cores()
	n0 := math.Min(targetCores/meanCores(), float64(cfg.VMs))
	g.lm.longMedian, tr.Stationary = solveLongMedian(n0, float64(cfg.VMs)-n0, g.horizon)
	tr.LongMedianDays = g.lm.longMedian / day

	vms := make([]VM, 0, cfg.VMs)
	vms, tr.InitialRequests = g.initial(vms, targetCores)
	tr.InitialVMs = len(vms)
	vms, tr.Requests = g.arrivals(vms, tr.InitialRequests)
	g.finish(vms)
	tr.VMs = vms
	tr.Series = makeSeries(cfg, tr.VMs)
	return tr, nil
}

// generator holds what the trace's parts share.
type generator struct {
	cfg     Config
	subs    []subscription
	lm      lifeModel
	typeCum []float64 // cumulative requestTypeShares
	horizon float64
}

// chooseType draws a request's VM type: the subscription's primary type,
// or one from the whole mix.
func (g *generator) chooseType(rng *rand.Rand, s *subscription) int {
	if rng.Float64() < pPrimaryType {
		return s.primary
	}
	return pick(rng, g.typeCum)
}

// size draws a request's VM count for type t, within the core cap and
// the VMs left.
func (g *generator) size(rng *rand.Rand, t, left int) int {
	return min(requestSize(rng), max(1, int(maxRequestCores/vmTypes[t].Cores)), left)
}

// initial appends the population alive at t = 0, a snapshot of the
// stationary process: requests drawn until their cores reach targetCores
// (or the VMs run out), numbered in start order. A subscription holds VMs
// at t = 0 in proportion to its request rate times its mean lifetime, a
// lifetime class in proportion to its probability times its mean; the
// lifetime is length-biased and the age uniform over it.
func (g *generator) initial(vms []VM, targetCores float64) ([]VM, int) {
	if targetCores <= 0 {
		return vms, 0
	}
	rng := stream(g.cfg.Seed, streamInitial)
	sw := make([]float64, len(g.subs))
	for i, s := range g.subs {
		for k := range lifeClasses {
			sw[i] += s.weight * classProb(k, s.lifeClass) * g.lm.classMean(k, s.lifeScale)
		}
	}
	subCum := cumulative(sw)
	type span struct {
		start    float64
		first, n int
	}
	var spans []span
	var gen []VM
	var cores float64
	var cw [len(lifeClasses)]float64
	for cores < targetCores && len(gen) < g.cfg.VMs {
		si := pick(rng, subCum)
		s := &g.subs[si]
		for k := range lifeClasses {
			cw[k] = classProb(k, s.lifeClass) * g.lm.classMean(k, s.lifeScale)
		}
		k := pick(rng, cumulative(cw[:]))
		life := g.lm.draw(rng, k, s.lifeScale, true)
		age := math.Min(math.Max(1, rng.Float64()*life), maxInitialAge)
		t := g.chooseType(rng, s)
		need := int(math.Ceil((targetCores - cores) / vmTypes[t].Cores))
		n := g.size(rng, t, min(need, g.cfg.VMs-len(gen)))
		start := -roundMS(age)
		spans = append(spans, span{start, len(gen), n})
		for j := 0; j < n; j++ {
			// Jitter the residual life, so every VM is alive at t = 0.
			rest := (life - age) * math.Exp(vmLifeSigma*rng.NormFloat64()-vmLifeSigma*vmLifeSigma/2)
			gen = append(gen, newVM(rng, s, si, t, start, age+math.Max(rest, 1)))
			cores += vmTypes[t].Cores
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.first, b.first))
	})
	for r, sp := range spans {
		for _, v := range gen[sp.first : sp.first+sp.n] {
			v.Request = int32(r)
			vms = append(vms, v)
		}
	}
	return vms, len(spans)
}

// arrivals appends service requests until there are cfg.VMs VMs: runs of
// requests from one subscription for one type (a new run with probability
// 1 − pRepeat), sizes from requestSize, lifetimes from the subscription's
// classes, and sorted arrival times from the diurnal, bursty intensity. It
// returns the VMs and the number of requests in all.
func (g *generator) arrivals(vms []VM, firstRequest int) ([]VM, int) {
	rng := stream(g.cfg.Seed, streamRequests)
	subCum := make([]float64, len(g.subs))
	for i, s := range g.subs {
		subCum[i] = s.weight
	}
	subCum = cumulative(subCum)
	var firsts []int // each request's first VM
	si, t := -1, 0
	var cw [len(lifeClasses)]float64
	for len(vms) < g.cfg.VMs {
		if si < 0 || rng.Float64() >= pRepeat {
			si = pick(rng, subCum)
			t = g.chooseType(rng, &g.subs[si])
		}
		s := &g.subs[si]
		n := g.size(rng, t, g.cfg.VMs-len(vms))
		for k := range lifeClasses {
			cw[k] = classProb(k, s.lifeClass)
		}
		k := pick(rng, cumulative(cw[:]))
		life := g.lm.draw(rng, k, s.lifeScale, false)
		r := int32(firstRequest + len(firsts))
		firsts = append(firsts, len(vms))
		for j := 0; j < n; j++ {
			v := newVM(rng, s, si, t, 0, g.lm.jitter(rng, k, life))
			v.Request = r
			vms = append(vms, v)
		}
	}
	times := arrivalTimes(stream(g.cfg.Seed, streamArrivals), len(firsts), g.horizon)
	for i, first := range firsts {
		end := len(vms)
		if i+1 < len(firsts) {
			end = firsts[i+1]
		}
		start := math.Min(roundMS(times[i]), g.horizon-0.001)
		for j := first; j < end; j++ {
			vms[j].Start = start
		}
	}
	return vms, firstRequest + len(firsts)
}

// finish numbers the VMs, sets their end (censored after the horizon) and
// category, and draws their utilization summaries.
func (g *generator) finish(vms []VM) {
	cpu := stream(g.cfg.Seed, streamCPU)
	for i := range vms {
		v := &vms[i]
		life := v.End // newVM parks the lifetime in End
		v.ID = int64(i)
		v.End = roundMS(v.Start + math.Max(life, minLifetime))
		v.Censored = v.End > g.horizon
		switch {
		case v.End-v.Start < classifyAfter:
			v.Category = CategoryUnknown
		case v.Periodic:
			v.Category = CategoryInteractive
		default:
			v.Category = CategoryDelayInsensitive
		}
		v.CPUAvg, v.CPUP95Max, v.CPUMax = cpuSummary(cpu, g.subs[v.Subscription].utilZ)
	}
}

// newVM fills the subscription-derived fields; End temporarily holds the
// lifetime.
func newVM(rng *rand.Rand, s *subscription, si, t int, start, life float64) VM {
	p := pPeriodicOtherwise
	switch {
	case s.interactive:
		p = pPeriodicIfInter
	case s.priority == 1:
		p = 0 // low-priority VMs are batch
	}
	return VM{
		Subscription: int32(si),
		Type:         int16(t),
		Priority:     s.priority,
		Start:        start,
		End:          life,
		Periodic:     rng.Float64() < p,
	}
}

func roundMS(x float64) float64 { return math.Round(x*1000) / 1000 }

// meanRequestSize is the mean VM count of a request whose size is capped
// at c: Σ_{k=1..c} P(size ≥ k).
func meanRequestSize(c int) float64 {
	m := 1.0 // P(size ≥ 1)
	tail := 1 - pSingleVM
	for k := 2; k <= min(c, requestTailMin-1); k++ {
		m += tail
		tail -= requestSizes2to5[k-2]
	}
	// Discrete Pareto floor(6·U^(-1/α)) conditioned on ≤ requestTailMax.
	cut := math.Pow(requestTailMin/float64(requestTailMax+1), requestTailAlpha)
	for k := requestTailMin; k <= min(c, requestTailMax); k++ {
		m += tail * (math.Pow(requestTailMin/float64(k), requestTailAlpha) - cut) / (1 - cut)
	}
	return m
}

// requestTypeShares is the probability of each VM type per service
// request: Share divided by the type's mean request size (big types have
// their requests capped by maxRequestCores), so that the share of VMs is
// Share.
func requestTypeShares() []float64 {
	out := make([]float64, len(vmTypes))
	var sum float64
	for i, t := range vmTypes {
		out[i] = t.Share / meanRequestSize(max(1, int(maxRequestCores/t.Cores)))
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// newSubscriptions draws the subscriptions, heaviest first: Zipf request
// rates, and per subscription a primary VM type, a priority and workload
// profile, a preferred lifetime class and factor, and a utilization level,
// each apportioned so that their rate-weighted shares match the targets.
func newSubscriptions(cfg Config) []subscription {
	rng := stream(cfg.Seed, streamSubscriptions)
	n := max(minSubscriptions, cfg.VMs/vmsPerSubscription)
	w := make([]float64, n)
	var sum float64
	for i := range w {
		w[i] = math.Pow(float64(i+1), -zipfExponent)
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	inter := math.Min(shareInteractive, 1-cfg.LowPriority)
	profile := apportion(w, []float64{inter, 1 - cfg.LowPriority - inter, cfg.LowPriority}, rng)
	var cls []float64
	for _, c := range lifeClasses {
		cls = append(cls, c.weight)
	}
	life := apportion(w, cls, rng)
	// Primary types are apportioned within each lifetime preference, so
	// that the initial population (dominated by long-lived preferences)
	// has the same type mix as the arrivals.
	primary := make([]int, n)
	shares := requestTypeShares()
	for k := range lifeClasses {
		var idx []int
		var wk []float64
		for i, l := range life {
			if l == k {
				idx = append(idx, i)
				wk = append(wk, w[i])
			}
		}
		for j, t := range apportion(wk, shares, rng) {
			primary[idx[j]] = t
		}
	}
	deciles := apportion(w, []float64{.1, .1, .1, .1, .1, .1, .1, .1, .1, .1}, rng)
	subs := make([]subscription, n)
	for i := range subs {
		u := (float64(deciles[i]) + 0.001 + 0.998*rng.Float64()) / 10
		subs[i] = subscription{
			weight:      w[i],
			primary:     primary[i],
			priority:    int8(profile[i] / 2),
			interactive: profile[i] == 0,
			lifeClass:   life[i],
			lifeScale:   lognormal(rng, -subLifeSigma*subLifeSigma/2, subLifeSigma),
			utilZ:       normQuantile(u),
		}
	}
	return subs
}

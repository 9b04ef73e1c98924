package violation

import (
	"fmt"
	"math"
)

// DefaultRepetitions is NumRepetitions of §8.1: "100 repetitions … a good
// trade-off between placement quality and overhead".
const DefaultRepetitions = 100

// cacheLimit bounds the Estimator's per-tenant cache; past it the cache is
// dropped and refilled (it is only a layer: results do not depend on it).
const cacheLimit = 1 << 16

// MCConfig configures the Monte Carlo estimate of Algorithm 1.
type MCConfig struct {
	// Reps is NumRepetitions; 0 means DefaultRepetitions.
	Reps int `json:"reps"`
	// Full replays the drawn full curves at every future step instead of
	// their compressed models at the |S| steps of §5.3 (the reference side
	// of the paper's Fig 7; much slower).
	Full bool `json:"full,omitempty"`
	// NoCache rebuilds every tenant's 𝒟(db) from the repository's index on
	// every call (the cache-off side of the cache benchmark pair).
	NoCache bool `json:"no_cache,omitempty"`
	// Condition says how a placed tenant's draws are conditioned on what
	// is known of it; "" means DefaultConditioning.
	Condition Conditioning `json:"condition"`
}

// Conditioning is how Algorithm 1 conditions the draws of a tenant already
// placed (Age ≥ 1) on its observed prefix.
type Conditioning string

const (
	// ConditionMax is §5.1 as printed: draw curves of the class that
	// outlive the tenant's age and whose maximum reaches its observed
	// maximum on every resource, and replay them from δ = age. The
	// condition is a lower bound: a tenant already on its plateau is
	// simulated by curves that end at or above it, so estimates run high
	// (doc.go, "Reading notes").
	ConditionMax Conditioning = "max"
	// ConditionPrefix conditions on the observed prefix: curves of the
	// class that outlive the tenant's age, whose CPU maximum reaches the
	// observed CPU maximum, and whose memory and disk models grew no more
	// than PlateauTolerance over the window in which the tenant's did not
	// (Tenant.RiseAge); memory and disk are replayed anchored at the
	// tenant's observed maximum, adding only the drawn model's growth
	// after the tenant's last sample and capped at MaxUsage:
	//
	//	demand^r(age+t) = min(Max^r, LBMax^r + m_o^r(age+t) − m_o^r(age−1))
	//
	// so a plateaued tenant stays at its level and a young one can grow as
	// the class's curves did at its age. CPU keeps the drawn U90.
	ConditionPrefix Conditioning = "prefix"
	// DefaultConditioning is the conditioning of every caller that does
	// not choose.
	DefaultConditioning = ConditionPrefix
)

// Conditionings lists the valid Conditioning values.
func Conditionings() []Conditioning { return []Conditioning{ConditionPrefix, ConditionMax} }

func (c Conditioning) valid() bool { return c == ConditionPrefix || c == ConditionMax }

// Stats counts the Estimator's work.
type Stats struct {
	Calls   int64 // Estimate calls
	Bounded int64 // calls settled by the node bound without drawing
	Draws   int64 // trace offsets drawn (line 5 of Algorithm 1)
	Checks  int64 // repetitions that needed the time-point check of line 7
	// Relaxed counts tenant resolutions (one per tenant per call) whose
	// 𝒟(db) needed relaxed conditions, by level: [0] dropped the max-demand condition, [1] also the class, [2]
	// no curve outlived the tenant's age, which was then left out.
	Relaxed [numLevels - 1]int64
}

// Estimate is the outcome of Algorithm 1 on one node for one candidate,
// both probabilities from the same draws.
type Estimate struct {
	With    float64 `json:"with"`    // Pr_violation(S_n ∪ {db})
	Without float64 `json:"without"` // Pr_violation(S_n)
	// Delta is Pr_violation(S_n ∪ {db}) − Pr_violation(S_n), the expected
	// number of violations placing db on the node adds (Algorithms 2–3),
	// computed from the counts — (with − without)/reps — so that equal
	// differences compare equal (0.12 − 0.11 ≠ 0.01 in floating point).
	Delta float64 `json:"delta"`
}

// Estimator runs Algorithm 1 against a Repository. It keeps scratch space
// and a per-tenant cache of eligible sets, so it is not safe for concurrent
// use; use one Estimator per goroutine.
type Estimator struct {
	repo  *Repository
	cfg   MCConfig
	cache map[int64]*pool

	// Stats accumulates over calls; reset it freely.
	Stats Stats

	tmp   []pool
	ts    []tstate
	ds    []draw
	js    []int
	cds   []curveDraw
	cand  tstate
	candK candKey
	candD []draw
}

// tstate is one tenant of an estimate, resolved to its eligible set.
type tstate struct {
	idx  []int32
	base uint64
	age  int32
	peak Vec
	// anch: the draws are anchored at obs (ConditionPrefix), capped at
	// cap; off and apk are the pool's per-curve offsets and draw peaks.
	anch     bool
	obs      Vec
	cap      Vec
	off, apk []Vec
}

// noCap is the cap of an unanchored draw or resource.
var noCap = Vec{math.Inf(1), math.Inf(1), math.Inf(1)}

// draw returns the draw of curve c for t: when anchored, its offsets move
// memory and disk to t's observed maximum at its last sample (age−1).
func (t *tstate) draw(c *rec) draw {
	d := draw{c: c, age: t.age, end: c.l - t.age, cap: noCap}
	if t.anch {
		d.anch = true
		d.cap = t.cap
		d.off = anchorOffset(c, t.obs, t.age)
	}
	return d
}

// anchorOffset is the offset that moves memory and disk of curve c to obs
// at sample age−1.
func anchorOffset(c *rec, obs Vec, age int32) Vec {
	var off Vec
	for _, r := range [...]int{int(Memory), int(Disk)} {
		off[r] = obs[r] - c.at(r, age-1)
	}
	return off
}

// drawAt is draw of the j-th curve of t's eligible set, from the pool's
// precomputed offsets when anchored.
func (t *tstate) drawAt(recs []rec, j int) draw {
	c := &recs[t.idx[j]]
	if !t.anch {
		return draw{c: c, age: t.age, end: c.l - t.age, cap: noCap}
	}
	return draw{c: c, age: t.age, end: c.l - t.age, anch: true, off: t.off[j], cap: t.cap}
}

// peakAt is drawAt(recs, j).peak() without building the draw.
func (t *tstate) peakAt(recs []rec, j int) Vec {
	if t.anch {
		return t.apk[j]
	}
	return recs[t.idx[j]].peak.vec()
}

// curveDraw is draw for the full curve c of lifetime l, anchored at the
// curve's sample age−1.
func (t *tstate) curveDraw(c *Curve, l int32) curveDraw {
	d := curveDraw{c: c, age: t.age, end: l - t.age, cap: noCap}
	if t.anch {
		d.cap = t.cap
		for _, r := range [...]Resource{Memory, Disk} {
			d.off[r] = t.obs[r] - c.At(r, int(t.age-1))
		}
	}
	return d
}

type candKey struct {
	ok    bool
	seed  uint64
	id    int64
	class string
	age   int
	obs   Vec
	rise  [NumResources]int
	max   Vec
}

// NewEstimator returns an estimator over repo.
//
// An empty cfg.Condition means DefaultConditioning; an unknown one panics
// (NewPolicy refuses it with ErrConfig first).
func NewEstimator(repo *Repository, cfg MCConfig) *Estimator {
	if cfg.Reps <= 0 {
		cfg.Reps = DefaultRepetitions
	}
	if cfg.Condition == "" {
		cfg.Condition = DefaultConditioning
	}
	if !cfg.Condition.valid() {
		panic(fmt.Sprintf("violation: conditioning %q, want one of %v", cfg.Condition, Conditionings()))
	}
	return &Estimator{repo: repo, cfg: cfg, cache: map[int64]*pool{}}
}

// Config is the estimator's configuration with defaults filled in.
func (e *Estimator) Config() MCConfig { return e.cfg }

// ProbViolation is Algorithm 1 under DefaultConditioning: the fraction of
// reps Monte Carlo draws in which the tenants S, each simulated by a curve
// drawn uniformly from its 𝒟(db) (same class, lifetime L > age, and the
// conditions of ConditionPrefix), reach limit = f_r·c_r on some resource
// at some future step:
//
//	Pr_violation(S) ≈ (1/reps) · Σ_l 1[∃ r, t : Σ_j demand_{o_j^l, age_j+t}^r ≥ f_r·c_r]
//
// checked on the compressed models at the |S| time points of §5.3. The
// draws are a function of (seed, tenant ID, repetition) only; derive seed
// with RequestSeed. reps ≤ 0 means DefaultRepetitions.
func ProbViolation(repo *Repository, s []Tenant, limit Vec, seed uint64, reps int) float64 {
	return NewEstimator(repo, MCConfig{Reps: reps, NoCache: true}).Estimate(s, nil, limit, seed).With
}

// Estimate runs Algorithm 1 for the tenants s of one node and a candidate
// (nil for none), returning Pr_violation(s ∪ {cand}) and Pr_violation(s)
// from the same draws, so Delta ≥ 0. Every tenant's draws depend only on
// (seed, its ID, repetition): the candidate's are the same for every node
// of a request (common random numbers).
//
// A node is settled without drawing when even the largest model peaks of
// every tenant's eligible set cannot reach the limit (the estimate is then
// exactly 0, as the draws would find).
func (e *Estimator) Estimate(s []Tenant, cand *Tenant, limit Vec, seed uint64) Estimate {
	return e.run(s, cand, limit, seed, stopNever, 0)
}

func (e *Estimator) ratio(with, without int) Estimate {
	reps := float64(e.cfg.Reps)
	return Estimate{With: float64(with) / reps, Without: float64(without) / reps, Delta: float64(with-without) / reps}
}

// Below reports whether Pr_violation(s ∪ {cand}) < theta, exactly as
// Estimate(s, cand, limit, seed).With < theta, but stops drawing at the
// repetition that settles it — the test of line 5 of Algorithms 2 and 3.
func (e *Estimator) Below(s []Tenant, cand *Tenant, limit Vec, seed uint64, theta float64) bool {
	return e.run(s, cand, limit, seed, stopWith, theta).With < theta
}

// WithBelow returns Estimate(s, cand, limit, seed).With and whether it is
// below bound; when it is not, it may stop drawing early and return a lower
// bound of With. It finds the node of least Pr_violation(S_n ∪ {db}) for
// FallbackMinWith without finishing the nodes that cannot win.
func (e *Estimator) WithBelow(s []Tenant, cand *Tenant, limit Vec, seed uint64, bound float64) (float64, bool) {
	w := e.run(s, cand, limit, seed, stopWith, bound).With
	return w, w < bound
}

// DeltaBelow returns Estimate(s, cand, limit, seed).Delta and whether it
// is below bound; when it is not, it may stop drawing early and return a
// lower bound of Delta. It finds the arg min of line 16 (Algorithm 2) and
// 22 (Algorithm 3) without finishing the nodes that cannot win.
func (e *Estimator) DeltaBelow(s []Tenant, cand *Tenant, limit Vec, seed uint64, bound float64) (float64, bool) {
	d := e.run(s, cand, limit, seed, stopDelta, bound).Delta
	return d, d < bound
}

// What run may stop at.
const (
	stopNever = iota
	stopWith  // With ≥ bound; Without is not counted
	stopDelta // Delta ≥ bound
)

// run counts the repetitions in which s ∪ {cand} and s violate. With a
// stop mode it returns once the partial counts, divided by NumRepetitions
// as Estimate reports them, reach bound: counts only grow, so the final
// estimate would too.
func (e *Estimator) run(s []Tenant, cand *Tenant, limit Vec, seed uint64, mode int, bound float64) Estimate {
	e.Stats.Calls++
	if len(e.tmp) < len(s) {
		e.tmp = append(e.tmp, make([]pool, len(s)-len(e.tmp))...)
	}
	e.ts = e.ts[:0]
	var peaks Vec
	for k := range s {
		t := e.resolve(&s[k], &e.tmp[k], seed)
		if t.idx != nil {
			e.ts = append(e.ts, t)
			peaks = peaks.Add(t.peak)
		}
	}
	hasCand := false
	if cand != nil {
		e.candidate(cand, seed)
		hasCand = e.cand.idx != nil
		if hasCand {
			peaks = peaks.Add(e.cand.peak)
		}
	}
	if !e.cfg.Full && !peaks.AnyAtLeast(limit) {
		e.Stats.Bounded++
		return Estimate{}
	}
	var with, without int
	recs := e.repo.recs
	curves := e.repo.curves
	for rep := range e.cfg.Reps {
		e.Stats.Draws += int64(len(e.ts))
		if e.cfg.Full {
			cds := e.cds[:0]
			for k := range e.ts {
				t := &e.ts[k]
				i := t.idx[pick(t.base, rep, len(t.idx))]
				cds = append(cds, t.curveDraw(&curves[i], recs[i].l))
			}
			if hasCand {
				i := e.cand.idx[pick(e.cand.base, rep, len(e.cand.idx))]
				cds = append(cds, e.cand.curveDraw(&curves[i], recs[i].l))
			}
			e.cds = cds
			e.Stats.Checks++
			if violatesCurves(cds, limit, true) {
				with++
				if mode != stopWith && (!hasCand || violatesCurves(cds[:len(cds)-1], limit, true)) {
					without++
				}
			}
		} else {
			// The peaks first: most repetitions of a safe node end here,
			// before any draw is built.
			js := e.js[:0]
			var peak Vec
			for k := range e.ts {
				t := &e.ts[k]
				j := pick(t.base, rep, len(t.idx))
				js = append(js, j)
				peak = peak.Add(t.peakAt(recs, j))
			}
			e.js = js
			alone := peak.AnyAtLeast(limit)
			if hasCand {
				peak = peak.Add(e.candD[rep].peak())
			}
			if !peak.AnyAtLeast(limit) {
				continue
			}
			ds := e.ds[:0]
			for k := range e.ts {
				ds = append(ds, e.ts[k].drawAt(recs, js[k]))
			}
			if hasCand {
				ds = append(ds, e.candD[rep])
			}
			e.ds = ds
			e.Stats.Checks++
			if violatesModel(ds, limit) {
				with++
				if mode != stopWith && (!hasCand || (alone && violatesModel(ds[:len(ds)-1], limit))) {
					without++
				}
			}
		}
		if mode != stopNever {
			est := e.ratio(with, without)
			if (mode == stopWith && est.With >= bound) || (mode == stopDelta && est.Delta >= bound) {
				return est
			}
		}
	}
	return e.ratio(with, without)
}

// resolve finds a tenant's eligible set, through the cache unless disabled.
func (e *Estimator) resolve(t *Tenant, scratch *pool, seed uint64) tstate {
	p := scratch
	if !e.cfg.NoCache {
		p = e.cache[t.ID]
		if p == nil {
			if len(e.cache) >= cacheLimit {
				clear(e.cache)
			}
			p = &pool{}
			e.cache[t.ID] = p
		}
	}
	return e.fill(t, p, !e.cfg.NoCache, seed)
}

func (e *Estimator) fill(t *Tenant, p *pool, reuse bool, seed uint64) tstate {
	e.repo.refresh(p, t, reuse, e.cfg.Condition)
	if p.level > levelExact {
		e.Stats.Relaxed[p.level-1]++
	}
	if p.idx == nil {
		return tstate{}
	}
	ts := tstate{idx: p.idx, base: stream(seed, t.ID), age: int32(t.Age), peak: p.maxPeak()}
	if e.cfg.Condition == ConditionPrefix && t.Age >= 1 {
		ts.anch, ts.obs, ts.cap = true, t.ObservedMax, noCap
		for _, r := range [...]Resource{Memory, Disk} {
			if m := t.Max[r]; m > 0 && m >= t.ObservedMax[r] {
				ts.cap[r] = m
			}
		}
		if p.climbAge != t.Age || p.climbObs != ts.obs || p.climbCap != ts.cap {
			e.repo.anchor(p, &ts)
			p.climbAge, p.climbObs, p.climbCap = t.Age, ts.obs, ts.cap
		}
		ts.off, ts.apk, ts.peak = p.off, p.apk, p.amax
	}
	return ts
}

// anchor fills p's per-curve offsets and draw peaks for the anchored
// tenant t, and their maximum: the bound of any of t's draws.
func (repo *Repository) anchor(p *pool, t *tstate) {
	p.off, p.apk, p.amax = p.off[:0], p.apk[:0], Vec{}
	for _, i := range p.idx {
		d := draw{c: &repo.recs[i], anch: true, off: anchorOffset(&repo.recs[i], t.obs, t.age), cap: t.cap}
		pk := d.peak()
		p.off, p.apk, p.amax = append(p.off, d.off), append(p.apk, pk), p.amax.Max(pk)
	}
}

// candidate resolves the candidate and draws its futures once per request:
// every node's estimate of the request reuses them.
func (e *Estimator) candidate(t *Tenant, seed uint64) {
	k := candKey{ok: true, seed: seed, id: t.ID, class: t.Class, age: t.Age, obs: t.ObservedMax, rise: t.RiseAge, max: t.Max}
	if k == e.candK {
		return
	}
	e.candK = k
	e.cand = e.fill(t, &pool{}, false, seed)
	e.candD = e.candD[:0]
	if e.cand.idx == nil {
		return
	}
	e.Stats.Draws += int64(e.cfg.Reps)
	for rep := range e.cfg.Reps {
		e.candD = append(e.candD, e.cand.drawAt(e.repo.recs, pick(e.cand.base, rep, len(e.cand.idx))))
	}
}

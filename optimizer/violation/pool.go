package violation

import "sort"

// Relaxation levels of 𝒟(db). Level 0 is §5.1; the paper does not say what
// to do when no past tenant matches, so the conditions are dropped in this
// order and the Estimator counts how often (Stats.Relaxed).
const (
	levelExact    = iota // same class, L > age, max ≥ observed max (§5.1)
	levelNoMax           // same class, L > age
	levelAnyClass        // any class, L > age (also for a class 𝒟 lacks)
	levelNone            // no curve outlives the tenant: it is left out
	numLevels
)

// pool is a tenant's eligible set 𝒟(db) in lifetime-descending order (ties
// by curve index), with the running maximum of the models' peaks, built for
// one (class, age, observed max, rise ages) under one Conditioning. Age and
// observed max only grow over a tenant's life, and so does the plateau
// window while the rise ages stay, so a later, tighter set is a prefix (age)
// and a filter of an earlier one; refresh exploits that when it may.
type pool struct {
	built bool
	class string
	age   int
	obs   Vec
	rise  [NumResources]int
	level int
	idx   []int32
	pmax  []Vec
	own   bool // idx and pmax live in buf and pbuf
	buf   []int32
	pbuf  []Vec
	// For an anchored tenant (ConditionPrefix, age ≥ 1), off and apk hold
	// per curve of idx the draw's offsets and its peak (tstate.draw), amax
	// their maximum; climbAge is the age they were computed for, −1 for
	// none, with the observed maximum and cap they were computed from.
	off, apk []Vec
	amax     Vec
	climbAge int
	climbObs Vec
	climbCap Vec
}

// maxPeak bounds the demand of any draw from the pool at any step.
func (p *pool) maxPeak() Vec {
	if len(p.pmax) == 0 {
		return Vec{}
	}
	return p.pmax[len(p.pmax)-1]
}

// refresh makes p the eligible set of t under cond. With reuse, and when p
// was built for the same class and constraints no tighter than t's, it
// narrows p's previous set instead of starting from the repository's class
// index; both paths give the same set in the same order.
func (repo *Repository) refresh(p *pool, t *Tenant, reuse bool, cond Conditioning) {
	start := levelExact
	if reuse && p.built && p.class == t.Class && t.Age >= p.age && t.ObservedMax.AllAtLeast(p.obs) && t.RiseAge == p.rise {
		start = p.level
		if start == levelExact {
			n := sort.Search(len(p.idx), func(i int) bool { return int(repo.recs[p.idx[i]].l) <= t.Age })
			if n != len(p.idx) || t.Age != p.age {
				p.climbAge = -1
			}
			p.idx, p.pmax = p.idx[:n], p.pmax[:n]
			if t.ObservedMax != p.obs || (cond == ConditionPrefix && t.Age != p.age) {
				repo.filter(p, p.idx, t, cond)
			}
			if len(p.idx) > 0 {
				p.age, p.obs = t.Age, t.ObservedMax
				return
			}
			start = levelNoMax
		}
	}
	p.built, p.class, p.age, p.obs, p.rise, p.climbAge = true, t.Class, t.Age, t.ObservedMax, t.RiseAge, -1
	k, known := repo.classOf[t.Class]
	if !known {
		start = max(start, levelAnyClass)
	}
	for p.level = start; p.level < levelNone; p.level++ {
		o := &repo.all
		if p.level < levelAnyClass {
			o = &repo.byClass[k]
		}
		n := o.outliving(t.Age)
		p.idx, p.pmax, p.own = o.idx[:n], o.prefMax[:n], false
		if p.level == levelExact && conditioned(t, cond) {
			repo.filter(p, p.idx, t, cond)
		}
		if len(p.idx) > 0 {
			return
		}
	}
	p.idx, p.pmax = nil, nil
}

// conditioned reports whether the exact level filters the class's curves
// that outlive t at all.
func conditioned(t *Tenant, cond Conditioning) bool {
	if cond == ConditionMax {
		return t.ObservedMax != (Vec{})
	}
	return t.ObservedMax[CPU] > 0 || plateaued(t, Memory) || plateaued(t, Disk)
}

// plateaued reports whether t's observed window since its last rise of r
// spans more than its last sample, so that curves can be tested against it.
func plateaued(t *Tenant, r Resource) bool {
	return t.RiseAge[r] >= 1 && t.RiseAge[r] < t.Age
}

// eligible is the exact-level condition on curve i for tenant t:
//
//	ConditionMax:    max_δ demand_{i,δ}^r ≥ LBMax^r for every r (§5.1)
//	ConditionPrefix: max_δ demand_{i,δ}^cpu ≥ LBMax^cpu, and for memory and
//	                 disk the model did not grow more than PlateauTolerance
//	                 over the tenant's plateau window, between samples
//	                 RiseAge−1 and Age−1, as the tenant did not
func (repo *Repository) eligible(i int32, t *Tenant, cond Conditioning) bool {
	if cond == ConditionMax {
		return repo.raw[i].AllAtLeast(t.ObservedMax)
	}
	if repo.raw[i][CPU] < t.ObservedMax[CPU] {
		return false
	}
	c := &repo.recs[i]
	for _, r := range [...]Resource{Memory, Disk} {
		if plateaued(t, r) && c.at(int(r), int32(t.Age-1)) > (1+PlateauTolerance)*c.at(int(r), int32(t.RiseAge[r]-1)) {
			return false
		}
	}
	return true
}

// filter keeps the curves of src eligible for t, in order, in p's own
// buffers (src may be p's own buffer: the write index never passes the read
// index).
func (repo *Repository) filter(p *pool, src []int32, t *Tenant, cond Conditioning) {
	if !p.own {
		p.buf, p.pbuf = p.buf[:0], p.pbuf[:0]
	}
	out, pm := p.buf[:0], p.pbuf[:0]
	var run Vec
	for _, i := range src {
		if repo.eligible(i, t, cond) {
			run = run.Max(repo.recs[i].peak.vec())
			out = append(out, i)
			pm = append(pm, run)
		}
	}
	p.buf, p.pbuf = out, pm
	p.idx, p.pmax, p.own = out, pm, true
	p.climbAge = -1
}

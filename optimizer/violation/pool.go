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
// one (class, age, observed max). Age and observed max only grow over a
// tenant's life, so a later, tighter set is a prefix (age) and a filter
// (observed max) of an earlier one; refresh exploits that when it may.
type pool struct {
	built bool
	class string
	age   int
	obs   Vec
	level int
	idx   []int32
	pmax  []Vec
	own   bool // idx and pmax live in buf and pbuf
	buf   []int32
	pbuf  []Vec
}

// maxPeak bounds the demand of any draw from the pool at any step.
func (p *pool) maxPeak() Vec {
	if len(p.pmax) == 0 {
		return Vec{}
	}
	return p.pmax[len(p.pmax)-1]
}

// refresh makes p the eligible set of t. With reuse, and when p was built
// for the same class and constraints no tighter than t's, it narrows p's
// previous set instead of starting from the repository's class index; both
// paths give the same set in the same order.
func (repo *Repository) refresh(p *pool, t *Tenant, reuse bool) {
	start := levelExact
	if reuse && p.built && p.class == t.Class && t.Age >= p.age && t.ObservedMax.AllAtLeast(p.obs) {
		start = p.level
		if start == levelExact {
			n := sort.Search(len(p.idx), func(i int) bool { return int(repo.recs[p.idx[i]].l) <= t.Age })
			p.idx, p.pmax = p.idx[:n], p.pmax[:n]
			if t.ObservedMax != p.obs {
				repo.filter(p, p.idx, t.ObservedMax)
			}
			if len(p.idx) > 0 {
				p.age, p.obs = t.Age, t.ObservedMax
				return
			}
			start = levelNoMax
		}
	}
	p.built, p.class, p.age, p.obs = true, t.Class, t.Age, t.ObservedMax
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
		if p.level == levelExact && t.ObservedMax != (Vec{}) {
			repo.filter(p, p.idx, t.ObservedMax)
		}
		if len(p.idx) > 0 {
			return
		}
	}
	p.idx, p.pmax = nil, nil
}

// filter keeps the curves of src whose full-curve maximum reaches obs, in
// order, in p's own buffers (src may be p's own buffer: the write index never
// passes the read index).
func (repo *Repository) filter(p *pool, src []int32, obs Vec) {
	if !p.own {
		p.buf, p.pbuf = p.buf[:0], p.pbuf[:0]
	}
	out, pm := p.buf[:0], p.pbuf[:0]
	var run Vec
	for _, i := range src {
		if repo.raw[i].AllAtLeast(obs) {
			run = run.Max(repo.recs[i].peak.vec())
			out = append(out, i)
			pm = append(pm, run)
		}
	}
	p.buf, p.pbuf = out, pm
	p.idx, p.pmax, p.own = out, pm, true
}

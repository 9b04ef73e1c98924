package lpbound

import (
	"math"
	"sort"
	"time"
)

// DefaultNodeLimit is the default number of branch-and-bound nodes per
// pricing problem: a few milliseconds for the instances here. When it runs
// out, the pricing returns its best pattern and a valid upper bound.
const DefaultNodeLimit = 200_000

// bbPricer solves the bounded multi-dimensional knapsack
//
//	max Σ π_i a_i  s.t.  Σ_i a_i s_ij ≤ cap_j + FitSlack (every j),
//	                     0 ≤ a_i ≤ d_i integer
//
// by depth-first branch and bound. Item types (with π_i > 0) are ordered by
// π_i / w_i for the surrogate weight w_i = Σ_j s_ij / cap_j; a node fixes
// a_i for a prefix of that order, trying the largest count first. Its upper
// bound is the Dantzig bound of the surrogate relaxation (the constraints
// summed with multipliers 1/cap_j, then the integrality dropped): greedy in
// the same order with one fractional item, which is valid for any
// non-negative multipliers. A node whose bound does not exceed the best
// pattern is pruned, and so are its siblings with fewer copies (their
// bounds are no larger). If the node limit (or the deadline) stops the
// search, the maximum over the best pattern and the bounds of the nodes
// still open on the current path is a valid upper bound on the optimum.
type bbPricer struct {
	bin      int
	m        *model
	cap      []float64
	ord      []bbItem
	a        []int
	best     []int
	bestV    float64
	ub       []float64 // bound of the child being explored, per depth
	room     []float64 // free capacity per depth and dimension
	nodes    int
	limit    int
	stop     bool
	deadline time.Time
}

type bbItem struct {
	i  int
	pi float64
	w  float64 // surrogate weight
	u  int     // max copies in an empty machine
	s  []float64
}

func newBBPricer(m *model, k int) *bbPricer {
	return &bbPricer{bin: k, m: m, cap: m.bins[k].cap}
}

// price returns a best pattern found with at most cnt[i] copies of item i
// (dense counts written to a), its value, and an upper bound on the
// optimum (equal to the value when the search finished within limit
// nodes).
func (p *bbPricer) price(pi []float64, cnt []int, a []int, limit int, deadline time.Time) (value, upper float64) {
	clear(a)
	b := p.m.bins[p.bin]
	p.ord = p.ord[:0]
	free := 0.0
	for _, i := range b.fit {
		if pi[i] <= 0 {
			continue
		}
		s := p.m.items[i].size[p.bin]
		u := maxCopies(s, b.cap, cnt[i])
		if u == 0 {
			continue
		}
		w := 0.0
		for j, v := range s {
			if b.cap[j] > 0 {
				w += v / b.cap[j]
			}
		}
		if w == 0 { // takes no room
			a[i] = u
			free += pi[i] * float64(u)
			continue
		}
		p.ord = append(p.ord, bbItem{i: i, pi: pi[i], w: w, u: u, s: s})
	}
	// By ratio; ties (volume duals make every ratio equal) larger first,
	// so the first leaf is a first-fit-decreasing pattern.
	sort.Slice(p.ord, func(x, y int) bool {
		l, r := p.ord[x].pi*p.ord[y].w, p.ord[y].pi*p.ord[x].w
		if math.Abs(l-r) > 1e-12*max(l, r) {
			return l > r
		}
		return p.ord[x].w > p.ord[y].w
	})
	n := len(p.ord)
	if cap(p.a) < n || cap(p.ub) < n+1 {
		p.a = make([]int, n)
		p.best = make([]int, n)
		p.ub = make([]float64, n+1)
	}
	p.a, p.best, p.ub = p.a[:n], p.best[:n], p.ub[:n+1]
	clear(p.a)
	clear(p.best)
	clear(p.ub)
	p.bestV, p.nodes, p.stop, p.deadline, p.limit = 0, 0, false, deadline, limit
	free2 := make([]float64, len(b.cap))
	surrogate := 0.0
	for j, c := range b.cap {
		free2[j] = c + FitSlack
		if c > 0 {
			surrogate += free2[j] / c
		}
	}
	d := len(b.cap)
	if cap(p.room) < (n+1)*d {
		p.room = make([]float64, (n+1)*d)
	}
	p.room = p.room[:(n+1)*d]
	copy(p.room, free2)
	p.dfs(0, 0, surrogate)
	upper = p.bestV
	if p.stop {
		for _, u := range p.ub {
			upper = max(upper, u)
		}
	}
	for x, q := range p.best {
		a[p.ord[x].i] += q
	}
	return free + p.bestV, free + upper
}

// dantzig bounds the value of items ord[l:] in surrogate room R.
func (p *bbPricer) dantzig(l int, R float64) float64 {
	v := 0.0
	for _, it := range p.ord[l:] {
		if R <= 0 {
			break
		}
		if t := float64(it.u) * it.w; t <= R {
			v += float64(it.u) * it.pi
			R -= t
		} else {
			v += R / it.w * it.pi
			break
		}
	}
	return v
}

// dfs explores the node with a fixed for ord[:l] (a[l:] = 0), value v,
// free room p.room[l*d:(l+1)*d] and surrogate room R.
func (p *bbPricer) dfs(l int, v float64, R float64) {
	if v > p.bestV {
		p.bestV = v
		copy(p.best, p.a)
	}
	if l == len(p.ord) {
		return
	}
	it := p.ord[l]
	d := len(it.s)
	free, child := p.room[l*d:(l+1)*d], p.room[(l+1)*d:(l+2)*d]
	q := it.u
	for j, s := range it.s {
		if s > 0 {
			q = min(q, int(math.Floor(free[j]/s)))
		}
	}
	for c := q; c >= 0; c-- {
		cv := v + float64(c)*it.pi
		cR := R - float64(c)*it.w
		ub := cv + p.dantzig(l+1, cR)
		if ub <= p.bestV {
			p.ub[l+1] = 0
			return // fewer copies bound no higher
		}
		p.nodes++
		if p.nodes > p.limit || (p.nodes&4095 == 0 && !p.deadline.IsZero() && time.Now().After(p.deadline)) {
			p.stop = true
		}
		if p.stop {
			p.ub[l+1] = ub
			return
		}
		for j, s := range it.s {
			child[j] = free[j] - float64(c)*s
		}
		p.a[l] = c
		p.ub[l+1] = ub
		p.dfs(l+1, cv, cR)
		p.a[l] = 0
		if p.stop {
			return
		}
	}
	p.ub[l+1] = 0
}

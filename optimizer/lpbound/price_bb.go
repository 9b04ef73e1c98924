package lpbound

import (
	"math"
	"sort"
)

// DefaultNodeLimit is the default number of branch-and-bound nodes per
// pricing problem (about 0.1 s on 10-dimensional vbp instances). When it runs out, the pricing returns its best pattern
// and a valid upper bound.
const DefaultNodeLimit = 2_000_000

// bbPricer solves the bounded multi-dimensional knapsack
//
//	max Σ π_i a_i  s.t.  Σ_i a_i s_ij ≤ cap_j + FitSlack (every j),
//	                     0 ≤ a_i ≤ d_i integer
//
// by depth-first branch and bound. Item types (with π_i > 0) are ordered by
// π_i / w_i for the surrogate weight w_i = Σ_j s_ij / cap_j; a node fixes
// a_i for a prefix of that order, trying the largest count first. The bound
// of a node is the least of the Dantzig bounds (the LP relaxation of a
// single knapsack constraint, greedy by ratio with one fractional item) of
// the surrogate constraint (the constraints summed with multipliers
// 1/cap_j) and of each dimension alone; each relaxes the problem, so each
// is valid. A node whose bound does not exceed the best pattern is pruned.
// If the node limit (or the deadline) stops the search, the maximum of the
// best pattern and the bounds still covering unexplored nodes is a valid
// upper bound on the optimum: for each node on the current path, the
// surrogate bound of the next sibling of the child being explored (which
// covers all later siblings: surrogate bounds do not grow as a count
// decreases, since the order is by surrogate ratio), and the bound of the
// child where the search stopped.
type bbPricer struct {
	bin   int
	m     *model
	cap   []float64 // the capacity in the dimensions that can bind (act)
	act   []int     // those dimensions, of the model's
	proj  []float64 // the items' sizes in them, len(act) per item of ord
	use   []float64 // per model dimension: the items' most use of it
	ord   []bbItem
	dim   [][]int32   // per dimension: positions in ord with s_j > 0, by π/s_j
	zero  [][]float64 // per dimension: suffix sums over ord of u·π of items with s_j = 0
	a     []int
	best  []int
	bestV float64
	cover []float64 // per depth: bound of the unexplored part of that node
	room  []float64 // free capacity per depth and dimension
	// minSize[l*d+j] is the smallest size in dimension j of ord[l:].
	minSize []float64
	nodes   int
	limit   int
	stop    bool
	abort   func() bool // checked every 1024 nodes: deadline passed or context done
	// mult are the surrogate multipliers: bbItem.w = Σ_j mult_j s_j.
	mult []float64
	lp   knapsackLP
}

type bbItem struct {
	i  int
	pi float64
	w  float64 // surrogate weight
	u  int     // max copies in an empty machine
	s  []float64
}

func newBBPricer(m *model, k int) *bbPricer {
	return &bbPricer{bin: k, m: m}
}

// price returns a best pattern found with at most cnt[i] copies of item i
// (dense counts written to a), its value, and an upper bound on the
// optimum (equal to the value when the search finished within limit
// nodes and abort, if not nil, did not report true).
func (p *bbPricer) price(pi []float64, cnt []int, a []int, limit int, abort func() bool) (value, upper float64) {
	clear(a)
	b := p.m.bins[p.bin]
	p.ord = p.ord[:0]
	for _, i := range b.fit {
		if pi[i] <= 0 {
			continue
		}
		s := p.m.items[i].size[p.bin]
		if u := p.m.copiesIn(i, p.bin, cnt[i]); u > 0 {
			p.ord = append(p.ord, bbItem{i: i, pi: pi[i], u: u, s: s})
		}
	}
	// The search runs on the dimensions that can bind: those where the
	// items' most copies (u, which every dimension already caps) overflow
	// the capacity. Any other constraint holds for every a ≤ u, so leaving
	// it out changes no pattern's feasibility. An anti-affinity set's
	// dimension used by one item type (u ≤ its capacity), or by none, is
	// one of them; with hundreds of sets, most dimensions of a type are.
	if len(p.use) != len(b.cap) {
		p.use = make([]float64, len(b.cap))
	}
	clear(p.use)
	for x := range p.ord {
		it := &p.ord[x]
		for _, j := range p.m.items[it.i].nz[p.bin] {
			p.use[j] += float64(it.u) * it.s[j]
		}
	}
	p.act = p.act[:0]
	for j, c := range b.cap {
		if p.use[j] > c+FitSlack {
			p.act = append(p.act, j)
		}
	}
	d := len(p.act)
	p.cap = p.cap[:0]
	for _, j := range p.act {
		p.cap = append(p.cap, b.cap[j])
	}
	// The search itself sees the binding dimensions only (the items'
	// sizes projected onto them). The surrogate constraint sums every
	// dimension's, the others included: it is valid either way.
	if need := len(p.ord) * d; cap(p.proj) < need {
		p.proj = make([]float64, need)
	}
	free := 0.0
	n := 0
	for x := range p.ord {
		it := p.ord[x]
		w := 0.0
		for _, j := range p.m.items[it.i].nz[p.bin] {
			if c := b.cap[j]; c > 0 {
				w += it.s[j] / c
			}
		}
		if w == 0 { // takes no room
			a[it.i] = it.u
			free += it.pi * float64(it.u)
			continue
		}
		ps := p.proj[n*d : (n+1)*d : (n+1)*d]
		for k, j := range p.act {
			ps[k] = it.s[j]
		}
		it.s, it.w = ps, w
		p.ord[n] = it
		n++
	}
	p.ord = p.ord[:n]
	// The surrogate multipliers: the capacity-normalized 1/cap_j, or with
	// several dimensions the LP duals of the knapsack (see knapsackLP). Its
	// LP over the binding dimensions has the optimum of the LP over all of
	// them (the others hold for every a ≤ u), and its duals with 0 for
	// the others are optimal duals of the whole.
	full := len(b.cap)
	p.mult = append(p.mult[:0], make([]float64, full)...)
	for j, c := range b.cap {
		if c > 0 {
			p.mult[j] = 1 / c
		}
	}
	if full > 1 && n > 1 && d > 0 {
		room := make([]float64, d)
		for k, c := range p.cap {
			room[k] = c + FitSlack
		}
		if lam := p.lp.duals(p.ord, room); lam != nil {
			scale := 0.0
			for k, l := range lam {
				scale += l * p.cap[k]
			}
			if scale > 0 {
				for j, c := range b.cap {
					if c > 0 {
						p.mult[j] = surrogateEps * scale / c
					}
				}
				for k, j := range p.act {
					if b.cap[j] > 0 {
						p.mult[j] += lam[k]
					}
				}
				for x := range p.ord {
					it := &p.ord[x]
					full := p.m.items[it.i].size[p.bin]
					w := 0.0
					for _, j := range p.m.items[it.i].nz[p.bin] {
						w += p.mult[j] * full[j]
					}
					it.w = w
				}
			}
		}
	}
	surrogate := 0.0
	for j, c := range b.cap {
		surrogate += p.mult[j] * (c + FitSlack)
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
	if d > 1 {
		p.dimOrders(n, d)
	}
	if cap(p.a) < n || cap(p.cover) < n+1 {
		p.a = make([]int, n)
		p.best = make([]int, n)
		p.cover = make([]float64, n+1)
	}
	p.a, p.best, p.cover = p.a[:n], p.best[:n], p.cover[:n+1]
	clear(p.a)
	clear(p.best)
	clear(p.cover)
	p.bestV, p.nodes, p.stop, p.abort, p.limit = 0, 0, false, abort, limit
	if cap(p.minSize) < (n+1)*d {
		p.minSize = make([]float64, (n+1)*d)
	}
	p.minSize = p.minSize[:(n+1)*d]
	for j := range d {
		p.minSize[n*d+j] = math.Inf(1)
	}
	for x := n - 1; x >= 0; x-- {
		for j, v := range p.ord[x].s {
			p.minSize[x*d+j] = min(v, p.minSize[(x+1)*d+j])
		}
	}
	if cap(p.room) < (n+2)*d {
		p.room = make([]float64, (n+2)*d)
	}
	p.room = p.room[:(n+2)*d]
	for j, c := range p.cap {
		p.room[j] = c + FitSlack
	}
	p.dfs(0, 0, 0, surrogate)
	upper = p.bestV
	if p.stop {
		for _, u := range p.cover {
			upper = max(upper, u)
		}
	}
	for x, q := range p.best {
		a[p.ord[x].i] += q
	}
	return free + p.bestV, free + upper
}

// dimOrders sorts, per dimension, the positions of ord by π/s_j.
func (p *bbPricer) dimOrders(n, d int) {
	if len(p.dim) != d {
		p.dim = make([][]int32, d)
		p.zero = make([][]float64, d)
	}
	for j := range d {
		pos := p.dim[j][:0]
		if cap(p.zero[j]) < n+1 {
			p.zero[j] = make([]float64, n+1)
		}
		z := p.zero[j][:n+1]
		z[n] = 0
		for x := n - 1; x >= 0; x-- {
			z[x] = z[x+1]
			if p.ord[x].s[j] == 0 {
				z[x] += float64(p.ord[x].u) * p.ord[x].pi
			}
		}
		p.zero[j] = z
		for x := range n {
			if p.ord[x].s[j] > 0 {
				pos = append(pos, int32(x))
			}
		}
		sort.Slice(pos, func(a, b int) bool {
			x, y := p.ord[pos[a]], p.ord[pos[b]]
			return x.pi*y.s[j] > y.pi*x.s[j]
		})
		p.dim[j] = pos
	}
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

// dimBound bounds the value of items ord[l:] by dimension j alone, with
// room r.
func (p *bbPricer) dimBound(j, l int, r float64) float64 {
	v := p.zero[j][l]
	for _, x := range p.dim[j] {
		if int(x) < l {
			continue
		}
		if r <= 0 {
			break
		}
		it := &p.ord[x]
		if t := float64(it.u) * it.s[j]; t <= r {
			v += float64(it.u) * it.pi
			r -= t
		} else {
			v += r / it.s[j] * it.pi
			break
		}
	}
	return v
}

// bound of items ord[l:] with room free (per dimension) and R
// (surrogate); it stops early once it is no more than the best value.
func (p *bbPricer) bound(l int, free []float64, R float64) (b, surrogate float64) {
	surrogate = p.dantzig(l, R)
	b = surrogate
	if p.dim == nil || len(free) < 2 {
		return b, surrogate
	}
	for j := range free {
		if b <= p.bestV {
			break
		}
		b = min(b, p.dimBound(j, l, free[j]))
	}
	return b, surrogate
}

// dfs explores the node with a fixed for ord[:l] (a[l:] = 0), value v,
// free room p.room[depth*d:(depth+1)*d] (depth counts the items taken)
// and surrogate room R.
func (p *bbPricer) dfs(l, depth int, v float64, R float64) {
	if v > p.bestV {
		p.bestV = v
		copy(p.best, p.a)
	}
	d := len(p.cap)
	free := p.room[depth*d : (depth+1)*d]
	// Skip the items that do not fit once; stop when the smallest sizes
	// of the items left do not fit.
next:
	for k := 0; l < len(p.ord); l, k = l+1, k+1 {
		if k&31 == 0 {
			for j, m := range p.minSize[l*d : (l+1)*d] {
				if m > free[j] {
					return
				}
			}
		}
		for j, s := range p.ord[l].s {
			if s > free[j] {
				continue next
			}
		}
		break
	}
	if l == len(p.ord) {
		return
	}
	it := p.ord[l]
	child := p.room[(depth+1)*d : (depth+2)*d]
	q := it.u
	for j, s := range it.s {
		if s > 0 {
			q = min(q, int(math.Floor(free[j]/s)))
		}
	}
	for c := q; c >= 0; c-- {
		cv := v + float64(c)*it.pi
		cR := R - float64(c)*it.w
		for j, s := range it.s {
			child[j] = free[j] - float64(c)*s
		}
		ub, sur := p.bound(l+1, child, cR)
		if cv+sur <= p.bestV {
			break // fewer copies: surrogate bound no higher
		}
		if cv+ub <= p.bestV {
			continue
		}
		p.nodes++
		if p.nodes > p.limit || (p.nodes&1023 == 0 && p.abort != nil && p.abort()) {
			p.stop = true
		}
		// If the search stops inside child c, what stays unexplored at
		// this level are the siblings with fewer copies; if it stops
		// here, child c too.
		p.cover[l] = 0
		if c > 0 {
			p.cover[l] = v + float64(c-1)*it.pi + p.dantzig(l+1, R-float64(c-1)*it.w)
		}
		if p.stop {
			p.cover[l] = max(p.cover[l], cv+ub)
			return
		}
		p.a[l] = c
		p.dfs(l+1, depth+1, cv, cR)
		p.a[l] = 0
		if p.stop {
			return
		}
	}
	p.cover[l] = 0
}

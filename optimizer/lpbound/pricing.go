package lpbound

import (
	"cmp"
	"math"
	"slices"
)

// maxExtraColumns bounds the extra pricing rounds per iteration (see
// cg.disjoint); with exact pricing they cut the master LPs on AI and
// Hard28 instances several times over, which pays for their pricing.
const maxExtraColumns = 50

// extraNodeLimit bounds the branch-and-bound nodes of an extra pricing
// round: those columns need to be good, not proven best.
const extraNodeLimit = 20_000

// pricing solves the pricing problem of every bin type at one π.
type pricing struct {
	s    *cg
	a    []int
	pats []column  // per bin type: best pattern found
	V    []float64 // its value
	U    []float64 // upper bound on the optimum
	// screen: skip the exact pricing of a bin type whose cheap bound
	// (screenBound) shows that no pattern of it can price out against
	// its cost; off in phase 1, where costs are 0.
	screen bool
	// prove: after branch and bound, price exactly the unproven types that
	// set the Lagrangian bound (see refine) when that could raise it
	// above best, the best bound so far.
	prove bool
	best  float64
	ord   []screenItem
	ga    []int // the grid DP's pattern, kept apart until it is known to fit
	la    []int // a line DP's pattern (only its value is used)
}

// screenItem is one item of screenBound's fractional knapsacks.
type screenItem struct {
	r float64 // π_i / s_ij
	s float64 // s_ij
	u int     // max copies
}

// screenBound is a cheap upper bound on bin type k's pricing value at pi:
// the least, over the dimensions, of the fractional (Dantzig) bound of
// the one-dimensional knapsack on that dimension alone. Each is a
// relaxation of the d-dimensional knapsack, so each bounds it from above;
// a dimension that some item with a positive dual does not use bounds
// nothing and is skipped.
func (pr *pricing) screenBound(pi []float64, k int) float64 {
	b := pr.s.m.bins[k]
	best := math.Inf(1)
	// With every dual positive, only the dimensions every item uses
	// (b.every) bound anything; checking the others costs a scan each,
	// and an anti-affinity set is a dimension.
	for _, i := range b.fit {
		if pi[i] <= 0 {
			for j := range b.cap {
				best = min(best, pr.screenDim(pi, k, j))
			}
			return best
		}
	}
	for _, j := range b.every {
		best = min(best, pr.screenDim(pi, k, j))
	}
	return best
}

// screenDim is screenBound's bound from dimension j alone (+Inf when some
// item with a positive dual does not use it).
func (pr *pricing) screenDim(pi []float64, k, j int) float64 {
	m := pr.s.m
	b := m.bins[k]
	pr.ord = pr.ord[:0]
	for _, i := range b.fit {
		if pi[i] <= 0 {
			continue
		}
		sz := m.items[i].size[k]
		if sz[j] <= 0 {
			return math.Inf(1)
		}
		if u := m.copiesIn(i, k, pr.s.counts[i]); u > 0 {
			pr.ord = append(pr.ord, screenItem{r: pi[i] / sz[j], s: sz[j], u: u})
		}
	}
	slices.SortFunc(pr.ord, func(x, y screenItem) int {
		switch {
		case x.r > y.r:
			return -1
		case x.r < y.r:
			return 1
		}
		return 0
	})
	room, v := b.cap[j]+FitSlack, 0.0
	for _, it := range pr.ord {
		take := float64(it.u) * it.s
		if take >= room {
			v += it.r * room
			room = 0
			break
		}
		v += it.r * take
		room -= take
	}
	return v * (1 + 1e-12)
}

// run prices every bin type at pi and returns the Lagrangian bound, the
// multiplier θ that attains it, and whether pi certifies infeasibility.
func (pr *pricing) run(pi []float64, nodes int) (lb, theta float64, infeasible bool) {
	s, m := pr.s, pr.s.m
	P := 0.0
	for i, it := range m.items {
		P += pi[i] * float64(it.count)
	}
	for k := range m.bins {
		if pr.screen && len(m.bins) > 1 {
			if u := pr.screenBound(pi, k); m.bins[k].cost-u >= s.tol*m.costScale {
				clear(pr.a)
				pr.V[k], pr.U[k] = 0, u
				pr.pats[k] = column{bin: k}
				continue
			}
		}
		if dp := s.dp[k]; dp != nil && dp.work(pi, s.counts) <= DPWorkLimit {
			pr.V[k] = dp.price(pi, s.counts, pr.a)
			pr.U[k] = pr.V[k]
		} else {
			pr.V[k], pr.U[k] = s.bb[k].price(pi, s.counts, pr.a, nodes, s.abort)
			// Past the cheap first level, an unproven search goes to the
			// grid DP where it applies: a millisecond-scale exact answer
			// against escalating node limits that rarely prove it; where
			// it does not, the line DPs tighten the upper bound.
			if pr.prove && nodes > extraNodeLimit && pr.unproven(k) {
				if pr.exact(pi, k) {
					continue
				}
				pr.lines(pi, k)
			}
		}
		pr.pats[k] = fromCounts(k, pr.a)
	}
	if pr.prove {
		// Proving can raise the bound at most to the bound the
		// patterns found would give were they optimal: only refine
		// when that beats the best bound so far.
		if hi, _, _ := lagrangian(P, m.bins, pr.V); hi > pr.best {
			pr.refine(pi, P)
		}
	}
	return lagrangian(P, m.bins, pr.U)
}

// unproven reports whether bin type k's last pricing left a gap between its
// pattern's value and its upper bound.
func (pr *pricing) unproven(k int) bool { return pr.U[k] > pr.V[k]*(1+1e-9) }

// exact prices bin type k at pi by its grid DP (newGridPricer) and reports
// whether it could: the DP must exist, its work be within DPWorkLimit and
// the deadline not passed.
func (pr *pricing) exact(pi []float64, k int) bool {
	s := pr.s
	if !s.gridDone[k] {
		s.grid[k], s.gridDone[k] = newGridPricer(s.m, k), true
	}
	g := s.grid[k]
	if g == nil || g.work(pi, s.counts) > DPWorkLimit || s.abort != nil && s.abort() {
		return false
	}
	if len(pr.ga) != len(pr.a) {
		pr.ga = make([]int, len(pr.a))
	}
	v := g.price(pi, s.counts, pr.ga)
	c := fromCounts(k, pr.ga)
	if !s.m.fits(c) { // a grid that does not match the sizes: keep branch and bound's answer
		return false
	}
	copy(pr.a, pr.ga)
	pr.V[k], pr.U[k], pr.pats[k] = v, v, c
	return true
}

// refine prices exactly (by the grid DP) the unproven bin types that set
// the Lagrangian bound at pi, one at a time, until the types that set it
// are proven or have no DP: the unlimited type with the least cost/U
// (it sets θ), and the limited types whose term at that θ is negative.
// Proving only these is what makes the bound exact where branch and
// bound cannot, at a fraction of pricing every type by the DP.
func (pr *pricing) refine(pi []float64, P float64) {
	m := pr.s.m
	tried := make([]bool, len(m.bins))
	for {
		_, theta, _ := lagrangian(P, m.bins, pr.U)
		pick, least := -1, math.Inf(1)
		for k, b := range m.bins {
			if b.limit == 0 && pr.U[k] > 0 && b.cost/pr.U[k] < least {
				pick, least = k, b.cost/pr.U[k]
			}
		}
		if pick >= 0 && (tried[pick] || !pr.unproven(pick)) {
			pick = -1
		}
		if pick < 0 && theta > 0 && !math.IsInf(theta, 1) {
			for k, b := range m.bins {
				if b.limit > 0 && !tried[k] && pr.unproven(k) && b.cost-theta*pr.U[k] < 0 {
					pick = k
					break
				}
			}
		}
		if pick < 0 {
			return
		}
		tried[pick] = true
		if !pr.exact(pi, pick) {
			pr.lines(pi, pick)
		}
	}
}

// lineWorkLimit bounds the cell updates of one line DP (lines): a few
// milliseconds.
const lineWorkLimit = 1 << 23

// lines lowers bin type k's upper bound U[k] to the least optimum of its
// line DPs (newLinePricer, one per dimension with a grid; each relaxes the
// other dimensions, so each bounds the pricing value from above). Where
// the grid DP over every dimension is too large (a 64-core, 512-GiB type
// holding thirty pods of 0.05-core and MiB steps), the dimension that
// binds alone is a small DP, and its bound is what branch and bound's
// fractional bounds were not: close enough to prove that no pattern
// prices out.
func (pr *pricing) lines(pi []float64, k int) {
	s := pr.s
	if !s.linesDone[k] {
		s.linesDone[k] = true
		for j := range s.m.dims {
			if g := newLinePricer(s.m, k, j); g != nil {
				s.line[k] = append(s.line[k], g)
			}
		}
	}
	if len(pr.la) != len(pr.a) {
		pr.la = make([]int, len(pr.a))
	}
	for _, g := range s.line[k] {
		if g.work(pi, s.counts) > lineWorkLimit || s.abort != nil && s.abort() {
			continue
		}
		if v := g.price(pi, s.counts, pr.la) * (1 + 1e-12); v < pr.U[k] {
			pr.U[k] = max(v, pr.V[k])
		}
	}
}

// disjoint prices again at the master duals with the items of the columns
// found so far removed (their duals set to 0), up to maxExtraColumns times,
// and returns the columns that price out: a set of nearly disjoint
// patterns per iteration, which cuts the iterations of degenerate masters.
func (s *cg) disjoint(pr *pricing, found []column, sol *solution, phase1 bool) []column {
	pi := slices.Clone(sol.pi)
	pr.screen = !phase1
	var out []column
	// Each round prices every bin type: with more bin types than rounds
	// (a priced catalog's hundreds), one round already adds a column per
	// type.
	rounds := maxExtraColumns
	if len(s.m.bins) > maxExtraColumns {
		rounds = 1
	}
	for range rounds {
		for _, c := range found {
			for _, i := range c.items {
				pi[i] = 0
			}
		}
		found = found[:0]
		pr.run(pi, min(s.nodeLimit, extraNodeLimit))
		for k, b := range s.m.bins {
			c, scale := b.cost, s.m.costScale
			if phase1 {
				c, scale = 0, 1
			}
			if p := pr.pats[k]; len(p.items) > 0 && c+sol.mu[k]-p.value(sol.pi) < -s.tol*scale {
				found = append(found, p)
			}
		}
		if len(found) == 0 {
			break
		}
		out = append(out, found...)
	}
	return out
}

// volumeDuals are dual vectors that price an item by the capacity it
// takes: per dimension j (the volumeSeedDims most loaded of them), π_i = min_k c_k·s_ikj/cap_kj over the bin types k
// that hold it, and the same with the mean over the dimensions. Their
// Lagrangian bounds are the volume (L1) bounds; they seed the bound and
// the stabilization center.
func (m *model) volumeDuals() [][]float64 {
	out := make([][]float64, 0, m.dims+1)
	dims := m.seedDims()
	for j := -1; j < m.dims; j++ {
		if j == -1 && m.dims == 1 || j >= 0 && !dims[j] {
			continue
		}
		pi := make([]float64, len(m.items))
		for i, it := range m.items {
			v := math.Inf(1)
			for k, b := range m.bins {
				s := it.size[k]
				if s == nil || b.cost < 0 {
					continue
				}
				w, n := 0.0, 0
				for d := range s {
					if (j == -1 || d == j) && b.cap[d] > 0 {
						w += s[d] / b.cap[d]
						n++
					}
				}
				if n > 0 {
					v = min(v, b.cost*w/float64(n))
				} else {
					v = 0
				}
			}
			if math.IsInf(v, 1) {
				v = 0
			}
			pi[i] = v
		}
		out = append(out, pi)
	}
	return out
}

// volumeSeedDims is how many dimensions get a volume dual of their own:
// with many dimensions (a fleet's anti-affinity sets are one each) pricing
// one seed per dimension cost more than column generation had.
const volumeSeedDims = 6

// seedDims marks the volumeSeedDims dimensions with the largest demand
// relative to the largest capacity, Σ_i count_i·s_ij / max_k cap_kj (ties
// to the lower index): the ones whose volume duals bound best.
func (m *model) seedDims() []bool {
	keep := make([]bool, m.dims)
	if m.dims <= volumeSeedDims {
		for j := range keep {
			keep[j] = true
		}
		return keep
	}
	load := make([]float64, m.dims)
	for j := range m.dims {
		c := 0.0
		for _, b := range m.bins {
			c = max(c, b.cap[j])
		}
		if c <= 0 {
			continue
		}
		for _, it := range m.items {
			s := 0.0
			for _, v := range it.size {
				if v != nil {
					s = max(s, v[j])
				}
			}
			load[j] += float64(it.count) * s / c
		}
	}
	idx := make([]int, m.dims)
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(load[b], load[a]) })
	for _, j := range idx[:volumeSeedDims] {
		keep[j] = true
	}
	return keep
}

package lpbound

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"placelab/optimizer/cbc"
)

// DefaultIntegerTimeLimit bounds the integer master (Options.IntegerTimeLimit
// 0) when Options.TimeLimit leaves more time.
const DefaultIntegerTimeLimit = 2 * time.Second

// IntegerNodes bounds CBC's branch-and-bound nodes in the integer master.
// A node limit, unlike a time limit, stops at the same point on every
// machine, so the packing (and UB) is reproducible; closing the last
// machine of a gap CBC cannot close in a few hundred nodes is rarely
// possible with these patterns anyway (the demo zone's small variant spent
// 2 s a snapshot on it, to no avail).
const IntegerNodes = 50

// IntegerColumnsPerRow bounds the integer master's columns: at most this
// many per row of the master, those of least reduced cost.
const IntegerColumnsPerRow = 20

// DefaultIntegerGap: the integer master runs when the best packing is more
// than 0.1% above the rounded bound, and CBC stops within 0.1%.
const DefaultIntegerGap = 1e-3

// Where Result.Packing came from (Result.UpperSource).
const (
	SourceIncumbent = "incumbent"      // Options.Incumbent, unimproved
	SourceHeuristic = "heuristic"      // minimum bin slack, or a rounded master
	SourceInteger   = "integer master" // CBC over the generated patterns
)

// integerMaster solves the master over the generated patterns with x
// integer (price-and-branch) on CBC,
//
//	min Σ_p c_p x_p  s.t.  Σ_p a_ip x_p ≥ d_i,  Σ_{p of k} x_p ≤ L_k,  x ∈ ℕ,
//
// starting from the best packing found so far, and turns its solution into
// a packing: items a pattern holds beyond the demand are taken out (which
// keeps every machine feasible), and what stays unplaced — nothing, when
// CBC's solution covers the demand — is packed greedily. The patterns are
// those of column generation, so its optimum is an upper bound on OPT, not
// OPT itself. It returns whether CBC proved its solution optimal over
// these patterns.
func (s *cg) integerMaster(ctx context.Context, limit time.Duration, gap float64, pi []float64) (proven bool) {
	m := s.m
	// Reduced-cost fixing: with the last master's optimal duals, a column
	// whose reduced cost exceeds UB − z cannot be in a packing cheaper
	// than UB (Σ_p rc_p x_p ≤ cost(x) − z), so it is left out.
	var cols []column
	for _, c := range s.ms.cols {
		if sl := s.last; sl != nil && s.best != nil {
			rc := m.bins[c.bin].cost + sl.mu[c.bin] - c.value(sl.pi)
			if rc > s.best.cost-sl.z+s.tol*max(m.costScale, math.Abs(sl.z)) {
				continue
			}
		}
		cols = append(cols, c)
	}
	// CBC's root work grows with the columns (7,700 columns took it 2 s
	// without a node): keep the IntegerColumnsPerRow·rows of least reduced
	// cost, which include the master's support (reduced cost 0).
	// Without optimal duals (column generation stopped on a limit), the
	// first columns: the seeds, first fit and the heuristic's.
	if most := IntegerColumnsPerRow * (len(m.items) + len(m.bins)); len(cols) > most {
		if sl := s.last; sl != nil {
			rc := func(c column) float64 { return m.bins[c.bin].cost + sl.mu[c.bin] - c.value(sl.pi) }
			sort.SliceStable(cols, func(a, b int) bool { return rc(cols[a]) < rc(cols[b]) })
		}
		cols = cols[:most]
	}
	have := make(map[string]bool, len(cols))
	for _, c := range cols {
		have[c.key()] = true
	}
	if s.best != nil {
		for _, c := range s.best.cols {
			if !have[c.key()] {
				have[c.key()] = true
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		return false
	}
	rows := len(m.items)
	limitRow := make([]int, len(m.bins))
	p := &cbc.Problem{}
	for i, it := range m.items {
		_ = i
		p.RowLower = append(p.RowLower, float64(it.count))
		p.RowUpper = append(p.RowUpper, math.Inf(1))
	}
	for k, b := range m.bins {
		limitRow[k] = -1
		if b.limit > 0 {
			limitRow[k] = rows
			rows++
			p.RowLower = append(p.RowLower, math.Inf(-1))
			p.RowUpper = append(p.RowUpper, float64(b.limit))
		}
	}
	for _, c := range cols {
		var nz []cbc.Nonzero
		ub := math.Inf(1)
		for j, i := range c.items {
			nz = append(nz, cbc.Nonzero{Row: int(i), Value: float64(c.cnt[j])})
			// More machines than it takes to cover item i alone never help.
			ub = min(ub, math.Ceil(float64(m.items[i].count)/float64(c.cnt[j])))
		}
		if r := limitRow[c.bin]; r >= 0 {
			nz = append(nz, cbc.Nonzero{Row: r, Value: 1})
			ub = min(ub, float64(m.bins[c.bin].limit))
		}
		p.Cols = append(p.Cols, nz)
		p.Obj = append(p.Obj, m.bins[c.bin].cost)
		p.ColLower = append(p.ColLower, 0)
		p.ColUpper = append(p.ColUpper, ub)
		p.Integer = append(p.Integer, true)
	}
	opts := cbc.Options{TimeLimit: limit, RelGap: gap, MaxNodes: IntegerNodes}
	if s.best != nil {
		at := make(map[string]int, len(cols))
		for j, c := range cols {
			at[c.key()] = j
		}
		opts.Start = make([]float64, len(cols))
		for j, c := range s.best.cols {
			opts.Start[at[c.key()]] += float64(s.best.n[j])
		}
	}
	res, err := cbc.Solve(ctx, p, opts)
	if err != nil || !res.Status.HasSolution() {
		return false
	}
	// Machines by decreasing count, each pattern trimmed to the demand left.
	order := make([]int, 0, len(cols))
	for j, x := range res.X {
		if x > 0.5 {
			order = append(order, j)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return res.X[order[a]] > res.X[order[b]] })
	rem := slices.Clone(s.counts)
	used := make([]int, len(m.bins))
	var pk packing
	a := make([]int, len(m.items))
	for _, j := range order {
		pk.trimmed(m, cols[j], int(math.Round(res.X[j])), rem, used, a)
	}
	left := 0
	for _, r := range rem {
		left += r
	}
	if left > 0 {
		rest, ok := s.greedy(pi, rem, used)
		if !ok {
			return false
		}
		pk.merge(m, rest)
	}
	if pk.cost < s.upper() {
		s.best = &pk
		s.source = SourceInteger
	}
	return res.Status == cbc.Optimal
}

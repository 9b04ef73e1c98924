package lpbound

import (
	"math"
	"slices"
	"sort"
)

// heuristicNodes bounds the branch-and-bound nodes per pattern of the
// packing heuristic: it needs good patterns, not proven ones.
// The DP replaces it when its table is below heuristicDPWork cells.
const (
	heuristicNodes  = 2000
	heuristicDPWork = 1 << 21
)

// greedy packs the demand with a sequence of patterns, each maximizing
// Σ π_i a_i / c_k over the bin types with machines left (found by branch
// and bound with heuristicNodes nodes) and used as many times as the
// remaining demand allows. Each pattern holds the largest item left (by
// π), which makes it, with volume duals, the minimum bin slack heuristic. It
// returns the machines it opened as a packing; ok is false if the limits (or
// the deadline) stopped it.
func (s *cg) greedy(pi []float64, rem, used []int) (pk packing, ok bool) {
	m := s.m
	left := 0
	for _, r := range rem {
		left += r
	}
	w := make([]float64, len(pi))
	top := slices.Max(pi)
	for i, v := range pi {
		w[i] = max(v, 1e-9*top, 1e-300) // every item is worth packing
	}
	a := make([]int, len(m.items))
	best := make([]int, len(m.items))
	wb := slices.Clone(w)
	for left > 0 {
		if s.abort() {
			return pk, false
		}
		// Minimum bin slack: the pattern must hold the largest item
		// left (a bonus worth more than all others) and fills the rest
		// best.
		big, total := -1, 0.0
		for i, r := range rem {
			if r > 0 {
				total += w[i] * float64(r)
				if big < 0 || w[i] > w[big] {
					big = i
				}
			}
		}
		copy(wb, w)
		wb[big] += total
		bestK, bestScore := -1, 0.0
		// With many bin types, each is tried in order of a cheap upper
		// bound on its score (screenBound at wb ≥ w, per unit of cost)
		// and the rest skipped once that bound cannot beat the best score
		// found (ties to the lowest index, as a scan in order gives): the
		// same pattern, found with fewer searches.
		order := s.greedyOrder(wb, used)
		for _, ob := range order {
			k, b := ob.k, m.bins[ob.k]
			if bestK >= 0 && ob.ub < bestScore {
				break
			}
			if dp := s.dp[k]; dp != nil && dp.work(wb, rem) <= heuristicDPWork {
				dp.price(wb, rem, a)
			} else {
				s.bb[k].price(wb, rem, a, heuristicNodes, s.abort)
			}
			v := 0.0
			for i, q := range a {
				v += w[i] * float64(q)
			}
			if v <= 0 {
				continue
			}
			score := v / max(b.cost, 1e-300)
			if b.cost <= 0 {
				score = math.Inf(1)
			}
			// Ties go to the first bin type, as in catalog order.
			if bestK < 0 || score > bestScore || (score == bestScore && k < bestK) {
				bestK, bestScore = k, score
				copy(best, a)
			}
		}
		if bestK < 0 {
			return pk, false
		}
		times := math.MaxInt
		for i, q := range best {
			if q > 0 {
				times = min(times, rem[i]/q)
			}
		}
		if b := m.bins[bestK]; b.limit > 0 {
			times = min(times, b.limit-used[bestK])
		}
		if times == math.MaxInt || times <= 0 { // cannot happen: q ≤ rem
			return pk, false
		}
		for i, q := range best {
			rem[i] -= times * q
			left -= times * q
		}
		used[bestK] += times
		pk.add(m, fromCounts(bestK, best), times)
	}
	return pk, true
}

// greedyBin is a bin type and an upper bound on its greedy score.
type greedyBin struct {
	k  int
	ub float64
}

// greedyOrder lists the bin types with machines left, by descending upper
// bound on Σ wb·a / c (screenBound; +Inf when it does not apply: one bin
// type, or a cost ≤ 0).
func (s *cg) greedyOrder(wb []float64, used []int) []greedyBin {
	m := s.m
	pr := &pricing{s: s}
	out := make([]greedyBin, 0, len(m.bins))
	for k, b := range m.bins {
		if b.limit > 0 && used[k] >= b.limit {
			continue
		}
		ub := math.Inf(1)
		if len(m.bins) > 1 && b.cost > 0 {
			ub = pr.screenBound(wb, k) / b.cost
		}
		out = append(out, greedyBin{k, ub})
	}
	slices.SortStableFunc(out, func(x, y greedyBin) int {
		switch {
		case x.ub > y.ub:
			return -1
		case x.ub < y.ub:
			return 1
		}
		return 0
	})
	return out
}

// round builds packings from a master solution and returns the better of
// two roundings:
//   - down: ⌊x_p⌋ machines of every pattern, then one more of the patterns
//     with the largest fractional parts that still fit the demand left,
//     then the greedy heuristic for the rest;
//   - up: ⌈x_p⌉ machines of every pattern in decreasing order of x, each
//     trimmed to the demand left (taking items out keeps a machine
//     feasible) and within the limits, then the greedy heuristic for
//     whatever the limits kept out.
//
// Rounding down leaves a residual that the greedy may pack poorly when the
// limits bind; rounding up adds at most one machine per fractional pattern.
func (s *cg) round(sol *solution, pi []float64) (packing, bool) {
	down, okd := s.roundDown(sol, pi)
	up, oku := s.roundUp(sol, pi)
	switch {
	case okd && (!oku || down.cost <= up.cost):
		return down, true
	case oku:
		return up, true
	}
	return packing{}, false
}

func (s *cg) roundDown(sol *solution, pi []float64) (packing, bool) {
	m := s.m
	rem := slices.Clone(s.counts)
	used := make([]int, len(m.bins))
	var pk packing
	order := s.support(sol)
	for _, j := range order {
		pk.take(m, s.ms.cols[j], int(math.Floor(sol.x[j]+1e-6)), rem, used)
	}
	frac := func(j int) float64 { return sol.x[j] - math.Floor(sol.x[j]+1e-6) }
	sort.SliceStable(order, func(a, b int) bool { return frac(order[a]) > frac(order[b]) })
	for _, j := range order {
		if frac(j) > 1e-6 {
			pk.take(m, s.ms.cols[j], 1, rem, used)
		}
	}
	rest, ok := s.greedy(pi, rem, used)
	pk.merge(m, rest)
	return pk, ok
}

func (s *cg) roundUp(sol *solution, pi []float64) (packing, bool) {
	m := s.m
	rem := slices.Clone(s.counts)
	used := make([]int, len(m.bins))
	var pk packing
	a := make([]int, len(m.items))
	for _, j := range s.support(sol) {
		c := s.ms.cols[j]
		pk.trimmed(m, c, int(math.Ceil(sol.x[j]-1e-6)), rem, used, a)
	}
	rest, ok := s.greedy(pi, rem, used)
	pk.merge(m, rest)
	return pk, ok
}

// support lists the columns with x > 0, by decreasing x.
func (s *cg) support(sol *solution) []int {
	order := make([]int, 0, len(sol.x))
	for j, x := range sol.x {
		if x > 1e-9 {
			order = append(order, j)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return sol.x[order[a]] > sol.x[order[b]] })
	return order
}

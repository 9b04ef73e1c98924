package predict

import (
	"math"
	"slices"
	"sort"
)

// HarrellC is Harrell's concordance index of predicted times against
// right-censored true times: among comparable pairs, the share whose
// predicted order agrees with the true one, tied predictions counting ½.
// A pair (i, j) is comparable when the shorter life is observed to end: i
// observed and time[j] > time[i], or time[j] = time[i] with j censored (a
// life censored at t outlasts one that ended at t; two lives ending at the
// same instant are not compared). It is concordant when
// predicted[j] > predicted[i] (the risk score is −predicted):
//
//	C = (concordant + ½·tied) / comparable
//
// 0.5 is chance, 1 a perfect ranking. predicted may hold +Inf (a predictor
// that says only "longer than all"). C is NaN with no comparable pair.
// O(n log n): lives are taken longest first into a Fenwick tree over the
// ranks of their predictions.
func HarrellC(time []float64, observed []bool, predicted []float64) (c Frac, comparable int64) {
	n := len(time)
	vals := slices.Clone(predicted)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	rank := make([]int, n)
	for i, p := range predicted {
		rank[i], _ = slices.BinarySearch(vals, p)
	}
	tree := make([]int64, len(vals)+1) // Fenwick tree of counts by rank
	add := func(r int) {
		for r++; r < len(tree); r += r & -r {
			tree[r]++
		}
	}
	below := func(r int) (s int64) { // lives in the tree with rank < r
		for ; r > 0; r -= r & -r {
			s += tree[r]
		}
		return s
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return time[idx[a]] > time[idx[b]] })
	var inTree, concordant, tied int64
	for i := 0; i < n; {
		j := i
		for j < n && time[idx[j]] == time[idx[i]] {
			j++
		}
		group := idx[i:j]
		for _, k := range group { // censored at this time: comparable to the observed ones here
			if !observed[k] {
				add(rank[k])
				inTree++
			}
		}
		for _, k := range group {
			if observed[k] {
				lo, le := below(rank[k]), below(rank[k]+1)
				concordant += inTree - le
				tied += le - lo
				comparable += inTree
			}
		}
		for _, k := range group {
			if observed[k] {
				add(rank[k])
				inTree++
			}
		}
		i = j
	}
	if comparable == 0 {
		return Frac(math.NaN()), 0
	}
	return Frac((float64(concordant) + 0.5*float64(tied)) / float64(comparable)), comparable
}

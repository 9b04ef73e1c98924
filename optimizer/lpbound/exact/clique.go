package exact

import (
	"slices"
	"sort"

	"placelab/optimizer/lpbound"
)

// cliques returns item types of bin type k that pairwise cannot share a
// machine of type k, each set of two or more (a greedy clique cover of
// the conflict graph). Only types of which one copy at most fits a machine
// (one copy, or two exceed the capacity) qualify, so a machine holds at
// most one item of a clique Q:
//
//	Σ_{i∈Q} x_ikm ≤ y_km
//
// These rows are valid for every packing and lift the assignment LP from
// the volume bound towards Martello and Toth's L2 (items above half the
// capacity need a machine each). Measured with a 2 s limit per instance
// (with / without them): scholl_1 N1C1W1 4 / 3 of 20 proven, mean
// optimum − bound 0.95 / 1.15; N1C2W1 10 / 8, 0.60 / 0.90; vbp *_20_3_*
// 53 / 50 of 70, 0.24 / 0.30.
func (in *inst) cliques(k int) [][]int {
	b := in.bins[k]
	var single []int
	for i, it := range in.items {
		if s := it.size[k]; s != nil && maxCopies(s, b.cap, it.count) == 1 {
			single = append(single, i)
		}
	}
	sort.SliceStable(single, func(a, c int) bool { return in.weight(single[a], k) > in.weight(single[c], k) })
	conflict := func(i, j int) bool {
		si, sj := in.items[i].size[k], in.items[j].size[k]
		for d := range si {
			if si[d]+sj[d] > b.cap[d]+lpbound.FitSlack {
				return true
			}
		}
		return false
	}
	covered := make([]bool, len(in.items))
	var out [][]int
	for _, i := range single {
		if covered[i] {
			continue
		}
		q := []int{i}
		for _, j := range single {
			if j != i && !slices.ContainsFunc(q, func(m int) bool { return !conflict(m, j) }) {
				q = append(q, j)
			}
		}
		for _, j := range q {
			covered[j] = true
		}
		if len(q) > 1 {
			out = append(out, q)
		}
	}
	return out
}

package exact

import (
	"slices"
	"sort"
)

// packed is one machine of a heuristic packing: its bin type, free room
// and copies per item type (index into inst.items).
type packed struct {
	bin  int
	free []float64
	cnt  map[int]int
}

// weight orders item types for first fit decreasing on bin type k: the sum
// over dimensions of size/capacity.
func (in *inst) weight(i, k int) float64 {
	w := 0.0
	for j, s := range in.items[i].size[k] {
		if c := in.bins[k].cap[j]; c > 0 {
			w += s / c
		}
	}
	return w
}

// place puts up to left copies of item type i on mc and returns how many.
func (in *inst) place(mc *packed, i, left int) int {
	s := in.items[i].size[mc.bin]
	q := maxCopies(s, mc.free, left)
	if q == 0 {
		return 0
	}
	mc.cnt[i] += q
	for j := range mc.free {
		mc.free[j] -= float64(q) * s[j]
	}
	return q
}

func (in *inst) open(k int) *packed {
	return &packed{bin: k, free: slices.Clone(in.bins[k].cap), cnt: map[int]int{}}
}

// firstFit is F_k: the machines first fit decreasing needs to pack every
// item that fits bin type k into machines of type k alone (no limit).
func (in *inst) firstFit(k int) int {
	var order []int
	for i, it := range in.items {
		if it.size[k] != nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return in.weight(order[a], k) > in.weight(order[b], k) })
	var ms []*packed
	for _, i := range order {
		left := in.items[i].count
		for _, mc := range ms {
			if left -= in.place(mc, i, left); left == 0 {
				break
			}
		}
		for left > 0 {
			mc := in.open(k)
			left -= in.place(mc, i, left) // ≥ 1: i fits an empty machine of type k
			ms = append(ms, mc)
		}
	}
	return len(ms)
}

// greedy packs every item over all bin types within their limits: item
// types with the fewest fitting bin types first, then by decreasing
// weight on their cheapest type; each copy into the first open machine
// with room, else a new machine of the cheapest type that fits it and has
// machines left (room[k], at most the limit). Negative-cost types are
// opened to their limit first (an optimal packing opens them all). It
// returns nil when it runs out of machines.
func (in *inst) greedy(room []int) []*packed {
	var ms []*packed
	used := make([]int, len(in.bins))
	for k, b := range in.bins {
		if b.cost < 0 {
			for range room[k] {
				ms = append(ms, in.open(k))
			}
			used[k] = room[k]
		}
	}
	cheapest := func(i int) int {
		best := -1
		for k, s := range in.items[i].size {
			if s != nil && (best < 0 || in.bins[k].cost < in.bins[best].cost) {
				best = k
			}
		}
		return best
	}
	fits := func(i int) int {
		n := 0
		for _, s := range in.items[i].size {
			if s != nil {
				n++
			}
		}
		return n
	}
	order := make([]int, len(in.items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ia, ib := order[a], order[b]
		if fa, fb := fits(ia), fits(ib); fa != fb {
			return fa < fb
		}
		return in.weight(ia, cheapest(ia)) > in.weight(ib, cheapest(ib))
	})
	for _, i := range order {
		left := in.items[i].count
		for _, mc := range ms {
			if in.items[i].size[mc.bin] != nil {
				if left -= in.place(mc, i, left); left == 0 {
					break
				}
			}
		}
		for left > 0 {
			k := -1
			for kk, s := range in.items[i].size {
				if s != nil && used[kk] < room[kk] && (k < 0 || in.bins[kk].cost < in.bins[k].cost) {
					k = kk
				}
			}
			if k < 0 {
				return nil
			}
			mc := in.open(k)
			used[k]++
			left -= in.place(mc, i, left)
			ms = append(ms, mc)
		}
	}
	return ms
}

package fleet_test

// An exact optimum for small fleets, written apart from package fleet: it
// enumerates node multisets in order of cost and tests each by an
// exhaustive assignment of the pods to the nodes.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"placelab/optimizer/fleet"
)

// eps is how far pods may exceed a node's allocatable and still fit; the
// test instances use halves and whole numbers, so any small value will do.
const eps = 1e-9

// room is type k's allocatable less its overhead; ok is false when the
// overhead alone does not fit.
func room(p *fleet.Problem, k int) (r []float64, ok bool) {
	t := p.Types[k]
	r = make([]float64, len(t.Cap))
	ok = true
	for j, c := range t.Cap {
		r[j] = c
		if p.Overhead != nil && p.Overhead[k] != nil {
			r[j] -= p.Overhead[k][j]
		}
		if r[j] < -eps {
			ok = false
		}
	}
	return r, ok
}

// allowedOn: group g may run on type k and one pod of it fits an empty node.
func allowedOn(p *fleet.Problem, g, k int) bool {
	gr := &p.Groups[g]
	if gr.Allowed != nil && !gr.Allowed[k] {
		return false
	}
	r, ok := room(p, k)
	if !ok {
		return false
	}
	for j, x := range gr.Demand {
		if x > r[j]+eps {
			return false
		}
	}
	return true
}

// placeable: group g has pods and some type holds one of them.
func placeable(p *fleet.Problem, g int) bool {
	if p.Groups[g].Count == 0 {
		return false
	}
	for k := range p.Types {
		if allowedOn(p, g, k) {
			return true
		}
	}
	return false
}

// antiCaps: per anti-affinity key, the most pods of it on one node (the
// smallest MaxPerNode of its groups; the generators give a key one value).
func antiCaps(p *fleet.Problem) map[int]int {
	out := map[int]int{}
	for _, g := range p.Groups {
		if g.AntiKey >= 0 {
			if c, ok := out[g.AntiKey]; !ok || g.MaxPerNode < c {
				out[g.AntiKey] = g.MaxPerNode
			}
		}
	}
	return out
}

// exactOptimum is the cheapest fleet (node counts per type) holding every
// placeable pod; ok is false when none exists (the limits are too tight).
func exactOptimum(p *fleet.Problem) (opt float64, counts []int, ok bool) {
	nt := len(p.Types)
	var groups []int
	pods := 0
	for g := range p.Groups {
		if placeable(p, g) {
			groups = append(groups, g)
			pods += p.Groups[g].Count
		}
	}
	if pods == 0 {
		return 0, make([]int, nt), true
	}
	// A fleet never needs more nodes than pods, nor a type no pod can use.
	maxN := make([]int, nt)
	for k := range p.Types {
		for _, g := range groups {
			if allowedOn(p, g, k) {
				maxN[k] = pods
				if l := p.Types[k].Limit; l > 0 {
					maxN[k] = min(l, pods)
				}
				break
			}
		}
	}
	var all [][]int
	cur := make([]int, nt)
	var gen func(k, left int)
	gen = func(k, left int) {
		if k == nt {
			all = append(all, slices.Clone(cur))
			return
		}
		for n := 0; n <= min(maxN[k], left); n++ {
			cur[k] = n
			gen(k+1, left-n)
		}
		cur[k] = 0
	}
	gen(0, pods)
	cost := func(c []int) float64 {
		s := 0.0
		for k, n := range c {
			s += float64(n) * p.Types[k].Price
		}
		return s
	}
	slices.SortStableFunc(all, func(a, b []int) int { return cmp.Compare(cost(a), cost(b)) })
	// Larger pods first: the search fails sooner.
	slices.SortStableFunc(groups, func(a, b int) int {
		return cmp.Compare(slices.Max(p.Groups[b].Demand), slices.Max(p.Groups[a].Demand))
	})
	for _, c := range all {
		if feasible(p, groups, c) {
			return cost(c), c, true
		}
	}
	return 0, nil, false
}

// feasible says whether nodes counts[k] of each type k hold every pod of
// groups, by exhaustive search: group after group, each group's pods
// spread over the nodes in every way, nodes identical so far (same type,
// same pods) taking non-increasing numbers of the group's pods.
func feasible(p *fleet.Problem, groups []int, counts []int) bool {
	d := len(p.Dims)
	caps := antiCaps(p)
	var types []int
	for k, n := range counts {
		for range n {
			types = append(types, k)
		}
	}
	nn := len(types)
	free := make([][]float64, nn)
	for j, k := range types {
		free[j], _ = room(p, k)
	}
	// Quick necessary check: total volume per dimension.
	for dim := range d {
		need, have := 0.0, 0.0
		for _, g := range groups {
			need += float64(p.Groups[g].Count) * p.Groups[g].Demand[dim]
		}
		for j := range nn {
			have += free[j][dim]
		}
		if need > have+1e-7 {
			return false
		}
	}
	used := make([][]float64, nn)
	anti := make([]map[int]int, nn)
	content := make([][]int, nn) // pods of each groups[i] on the node
	for j := range nn {
		used[j] = make([]float64, d)
		anti[j] = map[int]int{}
		content[j] = make([]int, len(groups))
	}
	// most pods of g node j can take on top of what it holds.
	most := func(g, j int) int {
		gr := &p.Groups[g]
		if !allowedOn(p, g, types[j]) {
			return 0
		}
		m := gr.Count
		if gr.AntiKey >= 0 {
			m = min(m, caps[gr.AntiKey]-anti[j][gr.AntiKey])
		}
		for dim, x := range gr.Demand {
			if x > 0 {
				m = min(m, int(math.Floor((free[j][dim]-used[j][dim]+eps)/x)))
			}
		}
		return max(0, m)
	}
	var place func(gi int) bool
	place = func(gi int) bool {
		if gi == len(groups) {
			return true
		}
		// Remaining volume.
		for dim := range d {
			need, have := 0.0, 0.0
			for _, g := range groups[gi:] {
				need += float64(p.Groups[g].Count) * p.Groups[g].Demand[dim]
			}
			for j := range nn {
				have += free[j][dim] - used[j][dim]
			}
			if need > have+1e-7 {
				return false
			}
		}
		g := groups[gi]
		gr := &p.Groups[g]
		prev := make([]int, nn) // the last earlier node identical to j, or -1
		for j := range nn {
			prev[j] = -1
			for i := j - 1; i >= 0; i-- {
				if types[i] == types[j] && slices.Equal(content[i][:gi], content[j][:gi]) {
					prev[j] = i
					break
				}
			}
		}
		top := make([]int, nn)
		suffix := make([]int, nn+1)
		for j := nn - 1; j >= 0; j-- {
			top[j] = most(g, j)
			suffix[j] = suffix[j+1] + top[j]
		}
		assign := make([]int, nn)
		put := func(j, m int) {
			for dim, x := range gr.Demand {
				used[j][dim] += float64(m) * x
			}
			if gr.AntiKey >= 0 {
				anti[j][gr.AntiKey] += m
			}
			content[j][gi] += m
			assign[j] = m
		}
		var spread func(j, left int) bool
		spread = func(j, left int) bool {
			if left == 0 {
				return place(gi + 1)
			}
			if j == nn || suffix[j] < left {
				return false
			}
			hi := min(left, top[j])
			if prev[j] >= 0 {
				hi = min(hi, assign[prev[j]])
			}
			for m := hi; m >= 0; m-- {
				put(j, m)
				ok := spread(j+1, left-m)
				put(j, -m)
				assign[j] = 0
				if ok {
					return true
				}
			}
			return false
		}
		return spread(0, gr.Count)
	}
	return place(0)
}

// smallInstance is a random fleet small enough for exactOptimum: 2–4 types
// with small whole capacities on 2–3 dimensions and distinct prices (in
// cents or arbitrary), sometimes limits and overheads; 1–4 groups of 1–6
// pods in halves, some allowed on some types only, some with anti-affinity,
// some that fit nothing, some with no pods.
func smallInstance(rng *rand.Rand) *fleet.Problem {
	d := 2 + rng.IntN(2)
	p := &fleet.Problem{Dims: []string{"cpu", "memory", "slots"}[:d]}
	nt := 2 + rng.IntN(3)
	cents := rng.IntN(2) == 0
	seen := map[float64]bool{}
	for k := range nt {
		c := make([]float64, d)
		for j := range c {
			c[j] = float64(1 + rng.IntN(8))
		}
		var price float64
		for price == 0 || seen[price] {
			if cents {
				price = float64(50+rng.IntN(1950)) / 100
			} else {
				price = 0.5 + 19.5*rng.Float64()
			}
		}
		seen[price] = true
		t := fleet.Type{Name: fmt.Sprintf("t%d", k), Cap: c, Price: price}
		if rng.IntN(6) == 0 {
			t.Limit = 1 + rng.IntN(3)
		}
		p.Types = append(p.Types, t)
	}
	if rng.IntN(4) == 0 {
		p.Overhead = make([][]float64, nt)
		for k := range nt {
			if rng.IntN(3) == 0 {
				continue
			}
			o := make([]float64, d)
			for j := range o {
				o[j] = float64(rng.IntN(3)) / 2
			}
			p.Overhead[k] = o
		}
	}
	ng := 1 + rng.IntN(4)
	for i := range ng {
		dem := make([]float64, d)
		for j := range dem {
			dem[j] = float64(rng.IntN(9)) / 2
		}
		dem[0] = max(dem[0], 0.5)
		g := fleet.Group{Name: fmt.Sprintf("g%d", i), Demand: dem, Count: 1 + rng.IntN(6), AntiKey: -1}
		if rng.IntN(3) == 0 {
			g.Allowed = make([]bool, nt)
			for k := range g.Allowed {
				g.Allowed[k] = rng.IntN(2) == 0
			}
		}
		if rng.IntN(4) == 0 {
			key := rng.IntN(2)
			g.AntiKey, g.MaxPerNode = key, 1+key
		}
		switch rng.IntN(15) {
		case 0:
			g.Count = 0
		case 1:
			g.Demand[rng.IntN(d)] = 9 // more than any type offers
		}
		p.Groups = append(p.Groups, g)
	}
	return p
}

// naiveOptimum is exactOptimum without its shortcuts, for tiny instances:
// every vector of node counts (at most one node per pod, within limits),
// each tried by placing pod after pod on every node, the cheapest feasible
// one kept.
func naiveOptimum(p *fleet.Problem) (float64, bool) {
	caps := antiCaps(p)
	var pods []int
	for g := range p.Groups {
		if placeable(p, g) {
			for range p.Groups[g].Count {
				pods = append(pods, g)
			}
		}
	}
	nt := len(p.Types)
	best, found := math.Inf(1), false
	counts := make([]int, nt)
	var try func(types []int) bool
	try = func(types []int) bool {
		used := make([][]float64, len(types))
		anti := make([]map[int]int, len(types))
		for j := range types {
			used[j] = make([]float64, len(p.Dims))
			anti[j] = map[int]int{}
		}
		var put func(i int) bool
		put = func(i int) bool {
			if i == len(pods) {
				return true
			}
			gr := &p.Groups[pods[i]]
			for j, k := range types {
				if !allowedOn(p, pods[i], k) || gr.AntiKey >= 0 && anti[j][gr.AntiKey] >= caps[gr.AntiKey] {
					continue
				}
				r, _ := room(p, k)
				fit := true
				for d, x := range gr.Demand {
					if used[j][d]+x > r[d]+eps {
						fit = false
					}
				}
				if !fit {
					continue
				}
				for d, x := range gr.Demand {
					used[j][d] += x
				}
				if gr.AntiKey >= 0 {
					anti[j][gr.AntiKey]++
				}
				ok := put(i + 1)
				for d, x := range gr.Demand {
					used[j][d] -= x
				}
				if gr.AntiKey >= 0 {
					anti[j][gr.AntiKey]--
				}
				if ok {
					return true
				}
			}
			return false
		}
		return put(0)
	}
	var gen func(k, left int)
	gen = func(k, left int) {
		if k == nt {
			var types []int
			cost := 0.0
			for t, n := range counts {
				for range n {
					types = append(types, t)
				}
				cost += float64(n) * p.Types[t].Price
			}
			if cost < best && try(types) {
				best, found = cost, true
			}
			return
		}
		for n := 0; n <= left; n++ {
			if l := p.Types[k].Limit; l > 0 && n > l {
				break
			}
			counts[k] = n
			gen(k+1, left-n)
		}
		counts[k] = 0
	}
	gen(0, len(pods))
	return best, found
}

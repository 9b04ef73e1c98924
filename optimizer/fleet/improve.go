package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// improve is a local search on a fleet that keeps every constraint Check
// verifies (allowed types, allocatable less overhead, anti-affinity,
// limits) and never raises the cost, once the pods a fleet may hold
// against their anti-affinity sets have moved (fixAnti below; a fleet
// with none is unchanged by it; an empty Fleet when a pod fits no kept
// type). Two moves, repeated while either saves and the deadline allows:
//
//   - drain: the emptiest nodes first, a node whose pods all fit on the
//     other nodes' free room (each pod on the fullest node that holds it)
//     is removed;
//   - downsize: each node becomes the cheapest kept type that is allowed
//     for all of its pods and holds them (a dominated type is never
//     cheaper than the type that replaces it, so the kept types suffice).
//
// Packings rounded from a relaxation leave a partial last node of every
// type they use, and column generation stopped early leaves loose
// patterns: these two moves take most of that slack back.
func (pr *prepared) improve(f Fleet, kept []int, deadline time.Time) Fleet {
	return pr.improveIn(f, kept, nil, deadline)
}

// improveIn is improve with every move within a class of types (class[k];
// nil: one class).
func (pr *prepared) improveIn(f Fleet, kept, class []int, deadline time.Time) Fleet {
	p := pr.p
	if len(f.Nodes) == 0 {
		return f
	}
	d := len(p.Dims)
	type inode struct {
		typ   int
		used  []float64
		cnt   map[int]int
		anti  map[int]int
		alive bool
	}
	nodes := make([]*inode, len(f.Nodes))
	perType := make([]int, len(p.Types))
	for i, n := range f.Nodes {
		in := &inode{typ: n.Type, used: make([]float64, d), cnt: map[int]int{}, anti: map[int]int{}, alive: true}
		for j, g := range n.Groups {
			c := n.Counts[j]
			if c <= 0 {
				continue
			}
			in.cnt[g] += c
			for k, x := range p.Groups[g].Demand {
				in.used[k] += float64(c) * x
			}
			if a := p.Groups[g].AntiKey; a >= 0 {
				in.anti[a] += c
			}
		}
		nodes[i] = in
		perType[n.Type]++
	}
	// With classes (Improve's), every move keeps a pod within its node's
	// class.
	same := func(a, b int) bool { return class == nil || class[a] == class[b] }
	fill := func(n *inode) float64 {
		s := 0.0
		for j, x := range n.used {
			if c := pr.free[n.typ][j]; c > 0 {
				s = max(s, x/c)
			}
		}
		return s
	}
	canHold := func(n *inode, g int) bool {
		gr := &p.Groups[g]
		if !pr.allowed[g][n.typ] {
			return false
		}
		if gr.AntiKey >= 0 && n.anti[gr.AntiKey] >= pr.antiCap[gr.AntiKey] {
			return false
		}
		return pr.fitsOn(n.used, gr.Demand, n.typ)
	}
	add := func(n *inode, g, c int) {
		gr := &p.Groups[g]
		n.cnt[g] += c
		if n.cnt[g] == 0 {
			delete(n.cnt, g)
		}
		for j, x := range gr.Demand {
			n.used[j] += float64(c) * x
		}
		if gr.AntiKey >= 0 {
			n.anti[gr.AntiKey] += c
		}
	}
	groupsOf := func(n *inode) []int {
		gs := make([]int, 0, len(n.cnt))
		for g := range n.cnt {
			gs = append(gs, g)
		}
		slices.Sort(gs)
		return gs
	}

	byPrice := slices.Clone(kept)
	slices.SortStableFunc(byPrice, func(a, b int) int { return cmp.Compare(p.Types[a].Price, p.Types[b].Price) })
	// Pods that break an anti-affinity set (a packing from the LP
	// without the sets' dimensions) move first: to a node that holds
	// them, else by a swap with a pod of another set that the node can
	// take, else onto a new node of the cheapest kept type that holds it.
	fits2 := func(used, minus, plus []float64, k int) bool {
		for j := range used {
			if used[j]-minus[j]+plus[j] > pr.free[k][j]+fitSlack {
				return false
			}
		}
		return true
	}
	fixAnti := func() bool {
		for i := 0; i < len(nodes); i++ {
			n := nodes[i]
			if !n.alive {
				continue
			}
			for _, g := range groupsOf(n) {
				a := p.Groups[g].AntiKey
				for a >= 0 && n.cnt[g] > 0 && n.anti[a] > pr.antiCap[a] {
					gd := p.Groups[g].Demand
					done := false
					for t, m := range nodes {
						if t != i && m.alive && same(m.typ, n.typ) && canHold(m, g) {
							add(n, g, -1)
							add(m, g, 1)
							done = true
							break
						}
					}
					for t := 0; t < len(nodes) && !done; t++ {
						m := nodes[t]
						if t == i || !m.alive || !same(m.typ, n.typ) || !pr.allowed[g][m.typ] || m.anti[a] >= pr.antiCap[a] {
							continue
						}
						for _, h := range groupsOf(m) {
							hk := p.Groups[h].AntiKey
							if hk == a || !pr.allowed[h][n.typ] || hk >= 0 && n.anti[hk] >= pr.antiCap[hk] {
								continue
							}
							hd := p.Groups[h].Demand
							if !fits2(n.used, gd, hd, n.typ) || !fits2(m.used, hd, gd, m.typ) {
								continue
							}
							add(n, g, -1)
							add(m, h, -1)
							add(n, h, 1)
							add(m, g, 1)
							done = true
							break
						}
					}
					if !done {
						k := -1
						for _, c := range byPrice {
							if same(c, n.typ) && pr.free[c] != nil && pr.allowed[g][c] && fits(gd, pr.free[c]) && (p.Types[c].Limit == 0 || perType[c] < p.Types[c].Limit) {
								k = c
								break
							}
						}
						if k < 0 {
							return false
						}
						add(n, g, -1)
						m := &inode{typ: k, used: make([]float64, d), cnt: map[int]int{}, anti: map[int]int{}, alive: true}
						add(m, g, 1)
						nodes = append(nodes, m)
						perType[k]++
					}
				}
			}
		}
		return true
	}
	if !fixAnti() {
		return Fleet{}
	}
	drain := func() bool {
		saved := false
		order := make([]int, 0, len(nodes))
		for i, n := range nodes {
			if n.alive {
				order = append(order, i)
			}
		}
		fl := make([]float64, len(nodes))
		for _, i := range order {
			fl[i] = fill(nodes[i])
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(fl[a], fl[b]) })
		// Targets: fullest first.
		targets := slices.Clone(order)
		slices.Reverse(targets)
		type moved struct{ to, g int }
		for _, i := range order {
			if time.Now().After(deadline) {
				return saved
			}
			n := nodes[i]
			if !n.alive {
				continue
			}
			var log []moved
			ok := true
			for _, g := range groupsOf(n) {
				for range n.cnt[g] {
					placed := false
					for _, t := range targets {
						m := nodes[t]
						if t == i || !m.alive || !same(m.typ, n.typ) || !canHold(m, g) {
							continue
						}
						add(m, g, 1)
						log = append(log, moved{t, g})
						placed = true
						break
					}
					if !placed {
						ok = false
						break
					}
				}
				if !ok {
					break
				}
			}
			if !ok {
				for _, mv := range log {
					add(nodes[mv.to], mv.g, -1)
				}
				continue
			}
			n.alive = false
			perType[n.typ]--
			saved = true
		}
		return saved
	}
	downsize := func() bool {
		saved := false
		for _, n := range nodes {
			if !n.alive {
				continue
			}
			gs := groupsOf(n)
			for _, k := range byPrice {
				if p.Types[k].Price >= p.Types[n.typ].Price {
					break
				}
				if !same(k, n.typ) {
					continue
				}
				if pr.free[k] == nil || !fits(n.used, pr.free[k]) {
					continue
				}
				if l := p.Types[k].Limit; l > 0 && perType[k] >= l {
					continue
				}
				all := true
				for _, g := range gs {
					if !pr.allowed[g][k] {
						all = false
						break
					}
				}
				if !all {
					continue
				}
				perType[n.typ]--
				perType[k]++
				n.typ = k
				saved = true
				break
			}
		}
		return saved
	}
	// merge: two nodes whose pods together fit one kept type cheaper than
	// the two of them become one node of that type (Karpenter's "m → n
	// consolidation" with n = 1): drain cannot do it when neither node's
	// pods fit the other's room, downsize when each node alone is already
	// its cheapest type. Each node, emptiest-priced first, takes the
	// partner that saves the most.
	nt := len(byPrice)
	words := (nt + 63) / 64
	var allow []uint64 // node i's bit t: byPrice[t] is allowed for all of its pods
	setAllow := func(i int) {
		n := nodes[i]
		row := allow[i*words : (i+1)*words]
		clear(row)
		gs := groupsOf(n)
	types:
		for t, k := range byPrice {
			if pr.free[k] == nil || !same(k, n.typ) {
				continue
			}
			for _, g := range gs {
				if !pr.allowed[g][k] {
					continue types
				}
			}
			row[t/64] |= 1 << (t % 64)
		}
	}
	// roomUpTo[t] is the most room of each dimension among byPrice[:t+1]:
	// a union of pods fits no type before the first t whose room holds
	// it, found by binary search.
	roomUpTo := make([][]float64, nt)
	for t, k := range byPrice {
		r := make([]float64, d)
		if t > 0 {
			copy(r, roomUpTo[t-1])
		}
		for j, x := range pr.free[k] {
			r[j] = max(r[j], x)
		}
		roomUpTo[t] = r
	}
	merge := func() bool {
		allow = make([]uint64, len(nodes)*words)
		var order []int
		for i, n := range nodes {
			if n.alive && len(n.cnt) > 0 {
				setAllow(i)
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.Types[nodes[a].typ].Price, p.Types[nodes[b].typ].Price) })
		union := make([]float64, d)
		saved := false
		for _, i := range order {
			if time.Now().After(deadline) {
				return saved
			}
			a := nodes[i]
			if !a.alive {
				continue
			}
			pa := p.Types[a.typ].Price
			bestSave, bestJ, bestT := 1e-9, -1, -1
			ra := allow[i*words : (i+1)*words]
			for _, j := range order {
				b := nodes[j]
				if j == i || !b.alive || !same(a.typ, b.typ) {
					continue
				}
				limit := pa + p.Types[b.typ].Price - bestSave
				if p.Types[byPrice[0]].Price >= limit {
					continue
				}
				rb := allow[j*words : (j+1)*words]
				common := false
				for w := range ra {
					if ra[w]&rb[w] != 0 {
						common = true
						break
					}
				}
				if !common {
					continue
				}
				small, large := a.anti, b.anti
				if len(small) > len(large) {
					small, large = large, small
				}
				clash := false
				for k, c := range small {
					if c+large[k] > pr.antiCap[k] {
						clash = true
						break
					}
				}
				if clash {
					continue
				}
				for x := range union {
					union[x] = a.used[x] + b.used[x]
				}
				from, _ := slices.BinarySearchFunc(roomUpTo, union, func(r, u []float64) int {
					if fits(u, r) {
						return 1
					}
					return -1
				})
				for t := from; t < nt; t++ {
					k := byPrice[t]
					if p.Types[k].Price >= limit {
						break
					}
					if ra[t/64]&rb[t/64]&(1<<(t%64)) == 0 || !fits(union, pr.free[k]) {
						continue
					}
					// The two nodes' types are freed, k is taken.
					if l := p.Types[k].Limit; l > 0 && perType[k]+1-b2i(k == a.typ)-b2i(k == b.typ) > l {
						continue
					}
					bestSave, bestJ, bestT = pa+p.Types[b.typ].Price-p.Types[k].Price, j, t
					break
				}
			}
			if bestJ < 0 {
				continue
			}
			b := nodes[bestJ]
			for _, g := range groupsOf(b) {
				add(a, g, b.cnt[g])
			}
			perType[a.typ]--
			perType[b.typ]--
			a.typ = byPrice[bestT]
			perType[a.typ]++
			b.alive = false
			setAllow(i)
			saved = true
		}
		return saved
	}
	for round := 0; round < 8 && time.Now().Before(deadline); round++ {
		a := drain()
		b := downsize()
		c := merge()
		if !a && !b && !c {
			break
		}
	}
	out := Fleet{Nodes: make([]Node, 0, len(nodes))}
	for _, n := range nodes {
		if !n.alive || len(n.cnt) == 0 {
			continue
		}
		nd := Node{Type: n.typ}
		for _, g := range groupsOf(n) {
			nd.Groups = append(nd.Groups, g)
			nd.Counts = append(nd.Counts, n.cnt[g])
		}
		out.Nodes = append(out.Nodes, nd)
	}
	out.Cost = out.cost(p)
	return out
}

// Improve runs improve's local search on a fleet of p over every type,
// with each pod kept within the class of its node's type (class[k], one
// per type; nil: one class) — a plan whose pods were spread over zones
// keeps each pod's zone with the zone as the class. It stops after limit.
// The fleet it returns passes Check; f must hold every placeable pod.
func Improve(p *Problem, f Fleet, class []int, limit time.Duration) (Fleet, error) {
	if err := p.Validate(); err != nil {
		return Fleet{}, err
	}
	if class != nil && len(class) != len(p.Types) {
		return Fleet{}, fmt.Errorf("%w: %d classes for %d types", ErrInvalid, len(class), len(p.Types))
	}
	pr := prepare(p)
	all := make([]int, len(p.Types))
	for k := range all {
		all[k] = k
	}
	out := pr.improveIn(f, all, class, time.Now().Add(limit))
	if len(out.Nodes) == 0 && len(f.Nodes) > 0 {
		return f, nil
	}
	if err := pr.Check(&out); err != nil {
		return Fleet{}, fmt.Errorf("fleet: improve: %w", err)
	}
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

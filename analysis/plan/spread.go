package plan

import (
	"fmt"
	"sort"
	"time"

	"placelab/optimizer/fleet"
)

// repair keeps DoNotSchedule topology spread on the zone key, which the LP
// relaxes (so its bound stays valid): while a spread tenant's pods per
// zone (over the zones holding a plan node its pods may use) differ by more
// than its maxSkew, one pod moves from its fullest zone to its emptiest, to
// a node there with room, else to a new node of the cheapest type there
// that holds it. It returns the pods moved and the nodes added.
func (s *k8sSource) repair(f *fleet.Fleet) (moves, added int, err error) {
	if len(s.spread) == 0 {
		return 0, 0, nil
	}
	s.rezone(f)
	p := s.p
	d := len(p.Dims)
	used := make([][]float64, len(f.Nodes))
	anti := make([]map[int]int, len(f.Nodes))
	load := func(n int) {
		used[n] = make([]float64, d)
		anti[n] = map[int]int{}
		nd := f.Nodes[n]
		if o := p.Overhead[nd.Type]; o != nil {
			copy(used[n], o)
		}
		for j, g := range nd.Groups {
			for x := range d {
				used[n][x] += float64(nd.Counts[j]) * p.Groups[g].Demand[x]
			}
			if k := p.Groups[g].AntiKey; k >= 0 {
				anti[n][k] += nd.Counts[j]
			}
		}
	}
	for n := range f.Nodes {
		load(n)
	}
	antiCap := map[int]int{}
	for _, g := range p.Groups {
		if g.AntiKey >= 0 {
			if c, ok := antiCap[g.AntiKey]; !ok || g.MaxPerNode < c {
				antiCap[g.AntiKey] = g.MaxPerNode
			}
		}
	}
	room := func(n, g int) bool {
		gr := &p.Groups[g]
		if !gr.Allowed[f.Nodes[n].Type] {
			return false
		}
		if gr.AntiKey >= 0 && anti[n][gr.AntiKey] >= antiCap[gr.AntiKey] {
			return false
		}
		for x := range d {
			if used[n][x]+gr.Demand[x] > p.Types[f.Nodes[n].Type].Cap[x]+1e-9 {
				return false
			}
		}
		return true
	}
	add := func(n, g, c int) {
		nd := &f.Nodes[n]
		for j, h := range nd.Groups {
			if h == g {
				nd.Counts[j] += c
				goto done
			}
		}
		nd.Groups = append(nd.Groups, g)
		nd.Counts = append(nd.Counts, c)
	done:
		gr := &p.Groups[g]
		for x := range d {
			used[n][x] += float64(c) * gr.Demand[x]
		}
		if gr.AntiKey >= 0 {
			anti[n][gr.AntiKey] += c
		}
	}
	// Tenants and their groups.
	tenants := map[string][]int{}
	skew := map[string]int{}
	for g, si := range s.spread {
		tenants[si.tenant] = append(tenants[si.tenant], g)
		if v, ok := skew[si.tenant]; !ok || si.skew < v {
			skew[si.tenant] = si.skew
		}
	}
	names := make([]string, 0, len(tenants))
	for t := range tenants {
		names = append(names, t)
		sort.Ints(tenants[t])
	}
	sort.Strings(names)
	zoneOf := func(n int) string { return s.protoOf[f.Nodes[n].Type].zone }
	for pass := 0; pass < 8; pass++ {
		changed := false
		for _, t := range names {
			gs := tenants[t]
			for step := 0; ; step++ {
				if step > 100000 {
					return moves, added, fmt.Errorf("plan: topology spread of %s: no balance found", t)
				}
				// Zones eligible: a plan node some group of the tenant may use.
				count := map[string]int{}
				for n, nd := range f.Nodes {
					for _, g := range gs {
						if p.Groups[g].Allowed[nd.Type] {
							if _, ok := count[zoneOf(n)]; !ok {
								count[zoneOf(n)] = 0
							}
						}
					}
					for j, g := range nd.Groups {
						if _, ok := s.spread[g]; ok && s.spread[g].tenant == t {
							count[zoneOf(n)] += nd.Counts[j]
						}
					}
				}
				zmax, zmin := "", ""
				first := true
				zs := make([]string, 0, len(count))
				for z := range count {
					zs = append(zs, z)
				}
				sort.Strings(zs)
				for _, z := range zs {
					if first || count[z] > count[zmax] {
						zmax = z
					}
					if first || count[z] < count[zmin] {
						zmin = z
					}
					first = false
				}
				if first || count[zmax]-count[zmin] <= skew[t] {
					break
				}
				// A pod of the tenant in zmax, and a place for it in zmin.
				moved := false
				for n := range f.Nodes {
					if zoneOf(n) != zmax || moved {
						continue
					}
					for j, g := range f.Nodes[n].Groups {
						if f.Nodes[n].Counts[j] == 0 || !contains(gs, g) {
							continue
						}
						to := -1
						for m := range f.Nodes {
							if zoneOf(m) == zmin && room(m, g) {
								to = m
								break
							}
						}
						if to < 0 {
							// A swap: a pod of a group without spread, of the
							// same demand, on a node of zmin, trades places.
							if m, j2, ok := s.swapWith(f, n, g, zmin, anti, antiCap); ok {
								h := f.Nodes[m].Groups[j2]
								f.Nodes[m].Counts[j2]--
								f.Nodes[n].Counts[j]--
								gr, hr := &p.Groups[g], &p.Groups[h]
								if gr.AntiKey >= 0 {
									anti[n][gr.AntiKey]--
								}
								if hr.AntiKey >= 0 {
									anti[m][hr.AntiKey]--
								}
								add(m, g, 1)
								add(n, h, 1)
								for x := range d { // equal demands: undo add's sums
									used[m][x] -= gr.Demand[x]
									used[n][x] -= hr.Demand[x]
								}
								moves += 2
								moved, changed = true, true
								break
							}
							k := s.cheapestIn(zmin, g)
							if k < 0 {
								continue
							}
							f.Nodes = append(f.Nodes, fleet.Node{Type: k})
							used = append(used, nil)
							anti = append(anti, nil)
							to = len(f.Nodes) - 1
							load(to)
							f.Cost += p.Types[k].Price
							added++
						}
						f.Nodes[n].Counts[j]--
						gr := &p.Groups[g]
						for x := range d {
							used[n][x] -= gr.Demand[x]
						}
						if gr.AntiKey >= 0 {
							anti[n][gr.AntiKey]--
						}
						add(to, g, 1)
						moves++
						moved, changed = true, true
						break
					}
				}
				if !moved {
					return moves, added, fmt.Errorf("plan: topology spread of %s (maxSkew %d): %d pods in zone %s, %d in %s, and no pod of it can move", t, skew[t], count[zmax], zmax, count[zmin], zmin)
				}
			}
		}
		if !changed {
			break
		}
	}
	// Drop emptied group entries.
	for n := range f.Nodes {
		nd := &f.Nodes[n]
		var gs, cs []int
		for j, g := range nd.Groups {
			if nd.Counts[j] > 0 {
				gs, cs = append(gs, g), append(cs, nd.Counts[j])
			}
		}
		nd.Groups, nd.Counts = gs, cs
	}
	// What the moves left behind (a node a pod left, a new node with room)
	// goes back by the fleet's local search, each pod kept in its zone,
	// so every tenant's pods per zone stay as repaired.
	if moves > 0 || added > 0 {
		zone := map[string]int{}
		class := make([]int, len(s.protoOf))
		for k, pr := range s.protoOf {
			if _, ok := zone[pr.zone]; !ok {
				zone[pr.zone] = len(zone)
			}
			class[k] = zone[pr.zone]
		}
		f.Cost = 0
		for _, n := range f.Nodes {
			f.Cost += p.Types[n.Type].Price
		}
		g, err := fleet.Improve(p, *f, class, spreadImproveTime)
		if err != nil {
			return moves, added, err
		}
		*f = g
	}
	return moves, added, nil
}

// spreadImproveTime bounds the local search after the spread repair.
const spreadImproveTime = 2 * time.Second

// rezone spreads the spread tenants' pods over the zones by moving whole
// nodes between zones first: a node of a pool and type is the same node in
// any zone, at the same price, so a node all of whose groups may run on
// its pool and type in another zone can be given that zone. Nodes are
// taken most spread pods first, each given the zone where its tenants have
// the fewest pods so far (ties: fewest nodes, then zone order). It keeps
// the fleet's cost and what every node holds.
func (s *k8sSource) rezone(f *fleet.Fleet) {
	p := s.p
	at := map[proto]int{}
	for k, pr := range s.protoOf {
		at[pr] = k
	}
	type cand struct {
		n      int
		zones  []int // fleet types of the node's pool and type in each zone it may take
		spread int
	}
	count := map[string]map[string]int{} // tenant → zone → pods
	nodesIn := map[string]int{}
	var cands []cand
	for n, nd := range f.Nodes {
		pr := s.protoOf[nd.Type]
		var zs []int
		for _, z := range s.zones {
			k, ok := at[proto{pool: pr.pool, typ: pr.typ, zone: z}]
			if !ok {
				continue
			}
			all := true
			for _, g := range nd.Groups {
				if !p.Groups[g].Allowed[k] {
					all = false
					break
				}
			}
			if all {
				zs = append(zs, k)
			}
		}
		sp := 0
		for j, g := range nd.Groups {
			if _, ok := s.spread[g]; ok {
				sp += nd.Counts[j]
			}
		}
		if len(zs) < 2 || sp == 0 {
			nodesIn[pr.zone]++
			for j, g := range nd.Groups {
				if si, ok := s.spread[g]; ok {
					if count[si.tenant] == nil {
						count[si.tenant] = map[string]int{}
					}
					count[si.tenant][pr.zone] += nd.Counts[j]
				}
			}
			continue
		}
		cands = append(cands, cand{n, zs, sp})
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].spread > cands[b].spread })
	for _, c := range cands {
		nd := &f.Nodes[c.n]
		best, bestScore, bestNodes := -1, 0, 0
		for _, k := range c.zones {
			z := s.protoOf[k].zone
			score := 0
			for j, g := range nd.Groups {
				if si, ok := s.spread[g]; ok {
					score = max(score, count[si.tenant][z]+nd.Counts[j])
				}
			}
			if best < 0 || score < bestScore || (score == bestScore && nodesIn[z] < bestNodes) {
				best, bestScore, bestNodes = k, score, nodesIn[z]
			}
		}
		nd.Type = best
		z := s.protoOf[best].zone
		nodesIn[z]++
		for j, g := range nd.Groups {
			if si, ok := s.spread[g]; ok {
				if count[si.tenant] == nil {
					count[si.tenant] = map[string]int{}
				}
				count[si.tenant][z] += nd.Counts[j]
			}
		}
	}
}

// swapWith finds, on a node of zone z, a pod of a group without topology
// spread whose demand equals group g's, that may run on node n's type
// while g may run on that node's, without breaking anti-affinity.
func (s *k8sSource) swapWith(f *fleet.Fleet, n, g int, z string, anti []map[int]int, antiCap map[int]int) (int, int, bool) {
	p := s.p
	gr := &p.Groups[g]
	for m, nd := range f.Nodes {
		if s.protoOf[nd.Type].zone != z || !gr.Allowed[nd.Type] {
			continue
		}
		for j, h := range nd.Groups {
			if nd.Counts[j] == 0 || h == g {
				continue
			}
			if _, sp := s.spread[h]; sp {
				continue
			}
			hr := &p.Groups[h]
			if !hr.Allowed[f.Nodes[n].Type] || !sameVec(hr.Demand, gr.Demand) {
				continue
			}
			if gr.AntiKey >= 0 && gr.AntiKey != hr.AntiKey && anti[m][gr.AntiKey] >= antiCap[gr.AntiKey] {
				continue
			}
			if hr.AntiKey >= 0 && hr.AntiKey != gr.AntiKey && anti[n][hr.AntiKey] >= antiCap[hr.AntiKey] {
				continue
			}
			return m, j, true
		}
	}
	return 0, 0, false
}

func sameVec(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// cheapestIn is the cheapest type in zone z that group g may use and that
// holds one of its pods beside its overhead; -1 if none.
func (s *k8sSource) cheapestIn(z string, g int) int {
	p := s.p
	best := -1
	for k, t := range p.Types {
		if s.protoOf[k].zone != z || !p.Groups[g].Allowed[k] {
			continue
		}
		ok := true
		for x := range p.Dims {
			o := 0.0
			if p.Overhead[k] != nil {
				o = p.Overhead[k][x]
			}
			if o+p.Groups[g].Demand[x] > t.Cap[x]+1e-9 {
				ok = false
			}
		}
		if ok && (best < 0 || t.Price < p.Types[best].Price) {
			best = k
		}
	}
	return best
}

package drain

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// nodeStat is what candidate orders sort by.
type nodeStat struct {
	pods int
	util float64 // mean over dimensions with Free > 0 of used / Free
	load float64 // Σ size of its pods (normalized by the largest Free)
	cost float64
}

func (s *state) stats() []nodeStat {
	m := s.m
	st := make([]nodeStat, m.n)
	for t := range m.p.Nodes {
		nd := &m.p.Nodes[t]
		st[t].pods = len(s.nodePods[t])
		st[t].cost = nd.Cost
		for _, i := range s.nodePods[t] {
			st[t].load += m.size[i]
		}
		dims := 0
		for k, f := range nd.Free {
			if f > 0 {
				st[t].util += (f - s.rem[t*m.d+k]) / f
				dims++
			}
		}
		if dims > 0 {
			st[t].util /= float64(dims)
		}
	}
	return st
}

// candidateOrder sorts the Removable nodes by the key, then costlier first,
// then by index.
func (m *model) candidateOrder(key func(a, b int) int) []int {
	var ord []int
	for t := range m.p.Nodes {
		if m.p.Nodes[t].Removable {
			ord = append(ord, t)
		}
	}
	slices.SortStableFunc(ord, func(a, b int) int {
		if c := key(a, b); c != 0 {
			return c
		}
		if c := cmp.Compare(m.p.Nodes[b].Cost, m.p.Nodes[a].Cost); c != 0 {
			return c
		}
		return a - b
	})
	return ord
}

// disruptionOrder is Karpenter's: fewest pods first, then least utilised.
func (m *model) disruptionOrder(st []nodeStat) []int {
	return m.candidateOrder(func(a, b int) int {
		if c := cmp.Compare(st[a].pods, st[b].pods); c != 0 {
			return c
		}
		return cmp.Compare(st[a].util, st[b].util)
	})
}

// targetOrder puts the nodes that stay first: those not Removable (by
// index), then the candidates from the last to the first, so drained pods
// fill the nodes least likely to be drained next.
func (m *model) targetOrder(cands []int) []int {
	var ord []int
	for t := range m.p.Nodes {
		if !m.p.Nodes[t].Removable {
			ord = append(ord, t)
		}
	}
	for j := len(cands) - 1; j >= 0; j-- {
		ord = append(ord, cands[j])
	}
	return ord
}

func identity(n int) []int {
	ord := make([]int, n)
	for j := range ord {
		ord[j] = j
	}
	return ord
}

// randomOrder is a seeded shuffle of the Removable nodes; with byPods the
// shuffle only breaks ties of a fewest-pods-first order.
func (m *model) randomOrder(st []nodeStat, seed uint64, round int, byPods bool) []int {
	ord := m.candidateOrder(func(a, b int) int { return 0 })
	r := rand.New(rand.NewPCG(seed, uint64(round)))
	r.Shuffle(len(ord), func(a, b int) { ord[a], ord[b] = ord[b], ord[a] })
	if byPods {
		slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(st[a].pods, st[b].pods) })
	}
	return ord
}

// sortBy sorts xs by key ascending, ties by value.
func sortBy(xs []int, key func(int) float64) {
	slices.SortFunc(xs, func(a, b int) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return a - b
	})
}

package optimizer

import (
	"cmp"
	"math"
	"slices"
)

// ReasonEvicted is the reason recorded for a low-priority VM evicted to make
// room for a high-priority one.
const ReasonEvicted = "EvictedByHighPriority"

// evictFor is the eviction fallback for a high-priority VM that fits
// nowhere (slides, "Multi-Priority Allocation": low-priority VMs fill free
// capacity and are evicted when high-priority VMs arrive). Its candidates
// are the machines, in clusters that pass the cluster validators, that the
// rule set's machine and request validators accept once the machine's
// low-priority capacity is counted as free (State.asIfFree: their demand
// and predicted use leave the machine's sums, on a hypothetical state), so
// every validator — resources, CPUOversubscription, any added rule — has
// its say, not a resource check of its own. A candidate's victims are its
// low-priority VMs largest first, as few as the validators need. As the
// slides balance packing and eviction cost, the candidates are ordered by
// packing score (with all low-priority capacity free), the best TopPct
// kept, and the one evicting the fewest low-priority cores among those wins
// (ties: packing, then machine id); its victims are evicted. It is an
// uncached scan over the zone, run only when the cached path found nothing;
// Protean and the baselines share it.
func evictFor(env *Env, rules *Rules, req *Request, kind RequestKind, v VMRequest) (int32, []Placement) {
	s := env.State
	inv := env.Inv
	chk := NewCheck(env, rules, req, kind, v)
	type cand struct {
		m         int32
		fit, cost float64
		n         int
	}
	var cands []cand
	var m int32
	valid := func() bool { return chk.OnMachine(m).OK() }
	var low []Placement
	for c := range inv.Clusters {
		if !chk.Cluster(int32(c)).OK() {
			continue
		}
		for _, m = range inv.Clusters[c].Machines {
			if s.LowUsed[m] == (Vec{}) || !s.asIfFree(m, s.LowUsed[m], s.LowPredUtil[m], valid) {
				continue // nothing to evict, or not enough even with all of it
			}
			low = lowPriority(s, m, low[:0])
			n := len(low)
			var d Vec
			var pred float64
			for k := 0; k < len(low); k++ {
				if s.asIfFree(m, d, pred, valid) {
					n = k
					break
				}
				d, pred = d.Add(low[k].Demand), pred+low[k].PredUtil
			}
			var cost float64
			for _, p := range low[:n] {
				cost += p.Demand[Cores]
			}
			dv, _ := inv.Demand(v.Type, m)
			room := s.Free(m).Add(s.LowUsed[m])
			cands = append(cands, cand{m, BestFitScore(room, dv, inv.Capacity(m), env.Cfg.Weights), cost, n})
		}
	}
	if len(cands) == 0 {
		return -1, nil
	}
	// The slides' balancing: order by packing, keep the top X%, then the
	// least eviction cost (ties: packing, then machine id).
	slices.SortFunc(cands, func(a, b cand) int {
		if a.fit != b.fit {
			return cmp.Compare(a.fit, b.fit)
		}
		return int(a.m - b.m)
	})
	keep := topCount(len(cands), env.Cfg.TopPct)
	best := cands[0]
	for _, c := range cands[1:keep] {
		if c.cost < best.cost {
			best = c
		}
	}
	evicted := lowPriority(s, best.m, nil)[:best.n]
	for _, p := range evicted {
		s.Remove(p.VM)
	}
	return best.m, evicted
}

// topCount is how many of n candidates the top share x keeps (at least 1).
func topCount(n int, x float64) int {
	k := int(math.Ceil(x * float64(n)))
	if k < 1 {
		k = 1
	}
	if k > n {
		k = n
	}
	return k
}

// lowPriority appends machine m's low-priority VMs to buf, largest first
// (by cores, then VM id): the order in which eviction takes them.
func lowPriority(s *State, m int32, buf []Placement) []Placement {
	for _, vm := range s.VMsOn(m) {
		if p, _ := s.Lookup(vm); p.Priority > 0 {
			buf = append(buf, p)
		}
	}
	slices.SortFunc(buf, func(a, b Placement) int {
		switch {
		case a.Demand[Cores] > b.Demand[Cores]:
			return -1
		case a.Demand[Cores] < b.Demand[Cores]:
			return 1
		}
		return int(a.VM - b.VM)
	})
	return buf
}

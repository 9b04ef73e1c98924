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
// capacity and are evicted when high-priority VMs arrive). Over the clusters
// that pass the cluster validators, the candidates are the machines where
// the VM fits in free plus low-priority capacity, passing every validator
// except resources. As the slides balance packing and eviction cost, it
// orders them by packing score, keeps the best TopPct, picks the least
// low-priority cores to evict among those, and evicts that machine's
// low-priority VMs largest first until the VM fits. It is an uncached scan:
// it runs only when the cached path found nothing.
func evictFor(env *Env, rules Rules, req *Request, kind RequestKind, v VMRequest) (int32, []Placement) {
	s := env.State
	inv := env.Inv
	t := req.traits(v)
	type cand struct {
		m         int32
		fit, cost float64
	}
	var cands []cand
	for c := range inv.Clusters {
		ok := true
		for _, cv := range rules.ClusterValidators {
			if !cv.ValidCluster(env, req, kind, t, int32(c)) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, m := range inv.Clusters[c].Machines {
			mc := &inv.Machines[m]
			d, sup := inv.Demand(v.Type, m)
			if !sup || !mc.Healthy || lowEmpty(s, m) {
				continue
			}
			if req.Isolation && s.Count[m] > 0 || !req.Isolation && s.Exclusive[m] >= 0 {
				continue
			}
			if !antiColocationOK(s, req, m) {
				continue
			}
			room := s.Free(m).Add(s.LowUsed[m])
			if !Fits(d, room) {
				continue
			}
			cost := evictionCost(s, m, d)
			if cost < 0 {
				continue
			}
			cands = append(cands, cand{m, BestFitScore(room, d, inv.Capacity(m), env.Cfg.Weights), cost})
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
	d, _ := inv.Demand(v.Type, best.m)
	var evicted []Placement
	for _, vm := range victims(s, best.m, d) {
		p, _ := s.Remove(vm)
		evicted = append(evicted, p)
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

func lowEmpty(s *State, m int32) bool { return s.LowUsed[m] == (Vec{}) }

// victims lists the low-priority VMs to evict from m, largest first, until
// demand d fits; nil if it never fits.
func victims(s *State, m int32, d Vec) []VMID {
	var low []Placement
	for _, vm := range s.VMsOn(m) {
		if p, _ := s.Lookup(vm); p.Priority > 0 {
			low = append(low, p)
		}
	}
	slices.SortFunc(low, func(a, b Placement) int {
		switch {
		case a.Demand[Cores] > b.Demand[Cores]:
			return -1
		case a.Demand[Cores] < b.Demand[Cores]:
			return 1
		}
		return int(a.VM - b.VM)
	})
	free := s.Free(m)
	var out []VMID
	for _, p := range low {
		if Fits(d, free) {
			break
		}
		free = free.Add(p.Demand)
		out = append(out, p.VM)
	}
	if !Fits(d, free) {
		return nil
	}
	return out
}

// evictionCost is the low-priority cores evicted to fit d on m (0 if it
// fits already, -1 if it cannot).
func evictionCost(s *State, m int32, d Vec) float64 {
	if Fits(d, s.Free(m)) {
		return 0
	}
	vs := victims(s, m, d)
	if vs == nil {
		return -1
	}
	var c float64
	for _, vm := range vs {
		p, _ := s.Lookup(vm)
		c += p.Demand[Cores]
	}
	return c
}

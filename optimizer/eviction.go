package optimizer

import "slices"

// ReasonEvicted is the reason recorded for a low-priority VM evicted to make
// room for a high-priority one.
const ReasonEvicted = "EvictedByHighPriority"

// evictFor is the eviction fallback for a high-priority VM that fits
// nowhere (slides, "Multi-Priority Allocation": low-priority VMs fill free
// capacity and are evicted when high-priority VMs arrive). Over the clusters
// that pass the cluster validators, it finds the machine where the VM fits
// in free plus low-priority capacity, passing every validator except
// resources, with the least low-priority cores to evict (ties: best fit,
// then lowest id), and evicts that machine's low-priority VMs largest
// first until the VM fits. It is an uncached scan: it runs only when the
// cached path found nothing.
func evictFor(env *Env, rules Rules, req *Request, kind RequestKind, v VMRequest) (int32, []Placement) {
	s := env.State
	inv := env.Inv
	t := req.traits(v)
	best := int32(-1)
	var bestCost, bestFit float64
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
			fit := BestFitScore(room, d, inv.Capacity(m), env.Cfg.Weights)
			if best < 0 || cost < bestCost || cost == bestCost && fit < bestFit {
				best, bestCost, bestFit = m, cost, fit
			}
		}
	}
	if best < 0 {
		return -1, nil
	}
	d, _ := inv.Demand(v.Type, best)
	var evicted []Placement
	for _, vm := range victims(s, best, d) {
		p, _ := s.Remove(vm)
		evicted = append(evicted, p)
	}
	return best, evicted
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

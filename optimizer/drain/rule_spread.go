package drain

import "math"

// spreadOK is topology spread over zones (Pod.MaxSkew, DoNotSchedule).
// With cnt(z) the pods of a group in zone z and, for a skew class k of the
// group (its pods with one MaxSkew S_k and one Allowed vector), E_k the
// zones holding a node the class's node affinity allows (AffinityOK, not
// removed; taints and schedulability ignored, as Kubernetes'
// nodeAffinityPolicy Honor and nodeTaintsPolicy Ignore count domains), the
// class's worst skew is
//
//	worst_k = max_{z holds a pod of k} cnt(z) − min_{z ∈ E_k} cnt(z)
//
// and Check requires worst_k ≤ S_k (vacuous when E_k is empty). Moving pod
// i from zone a to zone b (a ≠ b; a = none for a new placement) changes
// cnt to cnt'; it is allowed when
//
//	cnt'(b) − min_{z ∈ E_k} cnt'(z) ≤ S_k           for i's own class k (Kubernetes' filter), and
//	worst_k(cnt') ≤ max(S_k, worst_k(cnt))           for every class k of i's group,
//
// so a valid snapshot stays valid after every move, and a snapshot that
// already breaks the rule is made no worse. A move within a zone changes
// no count and is always allowed. Removing a node only shrinks E_k, which
// can only lower worst_k.
func (s *state) spreadOK(i, to int) bool {
	m := s.m
	g := m.gid[i]
	if g < 0 || len(m.gclasses[g]) == 0 {
		return true
	}
	nz := m.nz
	za, zb := -1, m.zone(to)
	if from := s.assign[i]; from >= 0 {
		za = m.zone(from)
	}
	if za == zb {
		return true
	}
	cnt := s.zcnt[g*nz : g*nz+nz]
	delta := func(z int) int {
		switch z {
		case zb:
			return 1
		case za:
			return -1
		}
		return 0
	}
	own := m.pclass[i]
	for _, k := range m.gclasses[g] {
		cl := m.classes[k]
		el := s.elig[cl.elig*nz : cl.elig*nz+nz]
		occ := s.occ[k*nz : k*nz+nz]
		minB, minA := math.MaxInt, math.MaxInt
		for z := range nz {
			if el[z] > 0 {
				minB = min(minB, cnt[z])
				minA = min(minA, cnt[z]+delta(z))
			}
		}
		if minA == math.MaxInt {
			continue // no eligible zone: nothing to balance
		}
		worstB, worstA := math.MinInt, math.MinInt
		for z := range nz {
			if occ[z] > 0 {
				worstB = max(worstB, cnt[z]-minB)
			}
			o := occ[z]
			if k == own {
				o += delta(z)
			}
			if o > 0 {
				worstA = max(worstA, cnt[z]+delta(z)-minA)
			}
		}
		if k == own && cnt[zb]+1-minA > cl.maxSkew {
			return false
		}
		if worstA > max(cl.maxSkew, worstB) {
			return false
		}
	}
	return true
}

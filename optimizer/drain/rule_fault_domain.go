package drain

// faultDomainOK is the fault-domain rule of availability sets
// (Pod.FaultDomain, as the online allocator's AvailabilitySetSpread): a
// rack holds pods of at most one fault domain of a group. With f(q) the
// fault domain of pod q (0 = none), g(q) its group and rack(t) node t's
// rack, pod i may go to node t iff
//
//	f(i) = 0  or  ∀ q ≠ i, g(q) = g(i), f(q) ≠ 0, rack(node(q)) = rack(t):  f(q) = f(i).
//
// The state keeps, per group with fault domains and rack, the group's pods
// with a fault domain on the rack, c(g, r), and among them those of each
// fault domain k, c(g, r, k), updated on every place and unplace
// (addFaultDomain). Pod i itself counts, if at all, under f(i), so the
// rule is
//
//	f(i) = 0  or  c(g(i), rack(t)) = c(g(i), rack(t), f(i)),
//
// O(1) per node. A move never brings a second fault domain onto a rack, so
// a snapshot that passes Check stays valid; from one that already breaks
// the rule a move may leave a mixed rack but never enters one (not even
// from another node of the same rack).
func (s *state) faultDomainOK(i, t int) bool {
	m := s.m
	if m.fdg == nil || m.fdg[i] < 0 {
		return true
	}
	at, ok := s.fdAt[m.fdg[i]*m.nrack+m.rack[t]]
	return !ok || s.fdCnt[at] == s.fdCnt[at+m.fdOf[i]]
}

// addFaultDomain adds delta to pod i's counts on node t's rack (pod i has
// a fault domain).
func (s *state) addFaultDomain(i, t, delta int) {
	m := s.m
	fg := m.fdg[i]
	key := fg*m.nrack + m.rack[t]
	at, ok := s.fdAt[key]
	if !ok {
		at = len(s.fdCnt)
		s.fdAt[key] = at
		s.fdCnt = append(s.fdCnt, make([]int32, 1+m.fdNum[fg])...)
	}
	s.fdCnt[at] += int32(delta)
	s.fdCnt[at+m.fdOf[i]] += int32(delta)
}

// rackFaultDomains lists the fault domains other than pod i's that hold a
// pod of i's group on node t's rack (the domains faultDomainOK refuses i
// for), ascending.
func (s *state) rackFaultDomains(i, t int) []int {
	m := s.m
	if m.fdg == nil || m.fdg[i] < 0 {
		return nil
	}
	fg := m.fdg[i]
	at, ok := s.fdAt[fg*m.nrack+m.rack[t]]
	if !ok {
		return nil
	}
	var ks []int
	for k := 1; k <= m.fdNum[fg]; k++ {
		if k != m.fdOf[i] && s.fdCnt[at+k] > 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

package drain

// perNodeOK is required hostname anti-affinity (Pod.MaxPerNode): pod i may
// join node t when, with c the pods of its group already on t,
//
//	c + 1 ≤ MaxPerNode(q)  for q = i and every pod q of the group on t with MaxPerNode(q) > 0.
func (s *state) perNodeOK(i, t int) bool {
	m := s.m
	g := m.gid[i]
	if g < 0 {
		return true
	}
	if !m.mixed[g] {
		return m.limit[g] == 0 || s.groupCount(t, g)+1 <= m.limit[g]
	}
	c := s.groupCount(t, g) + 1
	if l := m.p.Pods[i].MaxPerNode; l > 0 && c > l {
		return false
	}
	for _, q := range s.nodePods[t] {
		if l := m.p.Pods[q].MaxPerNode; m.gid[q] == g && l > 0 && c > l {
			return false
		}
	}
	return true
}

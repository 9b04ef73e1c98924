package drain

// Greedy is the Karpenter-style baseline. Empty Removable nodes go first;
// then the Removable candidates, sorted by disruption cost (fewest pods,
// then least utilised, then costlier, then by index), are tried one at a
// time on the state the earlier ones left: the candidate's pods, largest
// first, each go to the first node in index order that takes new pods
// (Schedulable, not removed, not the candidate) and admits it (Allowed,
// capacity, MaxPerNode, MaxSkew). If every pod finds a node within
// opts.MaxMoves the candidate is removed and the moves stay; otherwise
// nothing changes and the next candidate is tried.
//
// Greedy panics if Validate(p) fails.
func Greedy(p *Problem, opts Options) *Result {
	mustValidate(p)
	s, _ := compile(p).greedy(opts.budget())
	return s.plan(s.nremoved)
}

func (m *model) greedy(budget int) (*state, []int) {
	s := m.newState(identity(m.n), false, budget, &effort{})
	s.removeEmpty()
	ord := m.disruptionOrder(s.stats())
	for _, c := range ord {
		if !s.removed[c] {
			s.drainNode(c, false, false)
		}
	}
	return s, ord
}

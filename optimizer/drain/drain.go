package drain

// minCost is the fewest moves that emptying the nodes cs can add: each of
// their pods still at its snapshot node moves away, each pod that moved
// there earlier may at best return home.
func (s *state) minCost(cs []int) int {
	c := 0
	for _, t := range cs {
		for _, i := range s.nodePods[t] {
			if s.assign[i] == s.orig[i] {
				c++
			} else {
				c--
			}
		}
	}
	return c
}

func (s *state) affordable(cs []int) bool {
	return s.budget < 0 || s.moved+s.minCost(cs) <= s.budget
}

// drainNode empties node c onto the nodes that take pods, largest pod
// first, each on the first node of the target order that may take it (and,
// with eject, by making room there when none may). On success c is removed
// (closed in Repack) and the moves stay; otherwise nothing changes.
func (s *state) drainNode(c int, eject, closeOnly bool) bool {
	if !s.affordable([]int{c}) {
		return false
	}
	mark := len(s.log)
	if closeOnly {
		s.close(c)
	} else {
		s.remove(c)
	}
	pods := append([]int(nil), s.nodePods[c]...)
	s.m.byRank(pods)
	for _, i := range pods {
		t := s.find(i)
		if t < 0 && eject && !s.ef.out() {
			t = s.eject(i)
		}
		if t < 0 || s.overBudget() {
			s.rollback(mark)
			return false
		}
		s.move(i, t)
	}
	if s.overBudget() {
		s.rollback(mark)
		return false
	}
	return true
}

// drainSet removes the nodes cs at once and places all their pods, largest
// first, by first fit on the other nodes: a multi-node consolidation. On
// failure nothing changes.
func (s *state) drainSet(cs []int, closeOnly bool) bool {
	if !s.affordable(cs) {
		return false
	}
	mark := len(s.log)
	var pods []int
	for _, c := range cs {
		if closeOnly {
			s.close(c)
		} else {
			s.remove(c)
		}
		pods = append(pods, s.nodePods[c]...)
	}
	s.m.byRank(pods)
	for _, i := range pods {
		t := s.find(i)
		if t < 0 {
			s.rollback(mark)
			return false
		}
		s.move(i, t)
	}
	if s.overBudget() {
		s.rollback(mark)
		return false
	}
	return true
}

// removeEmpty removes every empty Removable node, in index order, at no
// cost.
func (s *state) removeEmpty() {
	for t := range s.m.p.Nodes {
		if s.m.p.Nodes[t].Removable && !s.removed[t] && len(s.nodePods[t]) == 0 {
			s.remove(t)
		}
	}
}

// plan reads the committed removals and moves.
func (s *state) plan(greedy int) *Result {
	pl := &Result{Greedy: greedy}
	for _, o := range s.log {
		if o.kind == opRemove {
			pl.Removed = append(pl.Removed, o.node)
		}
	}
	var pods []int
	for i, t := range s.assign {
		if t != s.orig[i] {
			pods = append(pods, i)
		}
	}
	sortBy(pods, func(i int) float64 { return float64(s.last[i]) })
	for _, i := range pods {
		pl.Moves = append(pl.Moves, Move{Pod: i, From: s.orig[i], To: s.assign[i]})
	}
	pl.Kept = s.m.n - len(pl.Removed)
	return pl
}

package drain

import (
	"cmp"
	"fmt"
	"slices"
)

// Repack places every pod from scratch on as few nodes as it can and
// returns the node of each pod: a full rescheduling that ignores the
// current placement, so only Schedulable nodes take pods (a pod on a
// cordoned node moves too), and every rule of Check holds with no node
// removed. The number of distinct nodes in assign is an upper bound on the
// nodes the pods need. Every node counts the same; nodes are opened
// largest first (Σ Free normalized by the largest Free), those not
// Removable first among equals.
//
// It tries first-fit decreasing in two pod orders (largest first; fewest
// allowed nodes first) and the snapshot itself once the pods of
// unschedulable nodes have moved (if they can, and if it then passes
// Check); each start is compacted (see compact: the snapshot drains first
// the nodes the first packing leaves empty), and the start that ends on
// the fewest nodes wins. It returns an error
// wrapping ErrNoFit, naming the pod, when no start places every pod, and
// one wrapping ErrProblem when Validate(p) fails.
func Repack(p *Problem) (assign []int, err error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	m := compile(p)
	s, err := m.repack(m.openOrder(false), &effort{limit: DefaultEffort})
	if err != nil {
		return nil, err
	}
	return append([]int(nil), s.assign...), nil
}

// repack is Repack with the nodes opened in the given order; the state it
// returns has every pod placed.
func (m *model) repack(open []int, ef *effort) (*state, error) {
	p := m.p
	var best *state
	var err error
	keep := func(s *state) {
		if best == nil || s.busyCount() < best.busyCount() {
			best = s
		}
	}
	perSig := make([]int, len(m.sigAll))
	for sig, al := range m.sigAll {
		for _, t := range open {
			if al == nil || al[t] {
				perSig[sig]++
			}
		}
	}
	constrained := m.byRankAll()
	sortBy(constrained, func(i int) float64 { return float64(perSig[m.sigOf[i]])*float64(len(p.Pods)) + float64(m.rank[i]) })
	var packed []bool // the nodes the first packing uses
	for v, order := range [][]int{m.byRankAll(), constrained} {
		s := m.newState(open, true, -1, ef.share(3-v))
		s.busyOnly = true
		i := s.firstFitDecreasing(order)
		if i < 0 {
			if packed == nil {
				packed = make([]bool, m.n)
				for t := range packed {
					packed[t] = len(s.nodePods[t]) > 0
				}
			}
			s.compact(nil)
			keep(s)
		} else if err == nil {
			err = m.noFit(i, s)
		}
		ef.used += s.ef.used
	}
	s := m.newState(open, false, -1, ef.share(1))
	if s.leaveUnschedulable() {
		s.compact(packed)
		keep(s)
	}
	ef.used += s.ef.used
	if best == nil {
		return nil, err
	}
	return best, nil
}

func (m *model) noFit(i int, s *state) error {
	pod := &m.p.Pods[i]
	for _, t := range s.ff.at {
		if t >= 0 && m.allowed(i, t) && fits(pod.Demand, m.p.Nodes[t].Free) {
			return fmt.Errorf("%w: pod %d %q: first-fit found no node for it next to the pods already placed", ErrNoFit, i, pod.Name)
		}
	}
	return fmt.Errorf("%w: pod %d %q: no Schedulable node it is Allowed on has room for it even when empty", ErrNoFit, i, pod.Name)
}

// openOrder lists the Schedulable nodes, largest first, not Removable
// first among equals (or first of all with keptFirst), then by index.
func (m *model) openOrder(keptFirst bool) []int {
	var ord []int
	size := make([]float64, m.n)
	for t := range m.p.Nodes {
		nd := &m.p.Nodes[t]
		if !nd.Schedulable {
			continue
		}
		for k, f := range nd.Free {
			size[t] += f / m.scale[k]
		}
		ord = append(ord, t)
	}
	slices.SortFunc(ord, func(a, b int) int {
		kept := cmp.Compare(b2i(m.p.Nodes[a].Removable), b2i(m.p.Nodes[b].Removable))
		if keptFirst && kept != 0 {
			return kept
		}
		if c := cmp.Compare(size[b], size[a]); c != 0 {
			return c
		}
		if kept != 0 {
			return kept
		}
		return a - b
	})
	return ord
}

func (m *model) byRankAll() []int {
	order := make([]int, len(m.p.Pods))
	for i, r := range m.rank {
		order[r] = i
	}
	return order
}

// firstFitDecreasing places the pods in order on the first node that holds
// a pod and takes it, else on the first that takes it. It returns the
// first pod that found no node, or -1.
func (s *state) firstFitDecreasing(order []int) int {
	for _, i := range order {
		t := s.find(i)
		if t < 0 {
			return i
		}
		s.move(i, t)
	}
	return -1
}

// compact empties busy nodes into the other busy ones, as Plan's
// candidates do: the empty nodes are closed (they stay eligible for
// spread), then the busy nodes — those not in keep first, if given, then
// fewest pods and least load first — are drained as the longest prefix
// of those drainable alone that goes at once, then one by one, then one
// by one with ejection while a round empties one; pods go by first fit
// over the busy nodes in the reverse order.
func (s *state) compact(keep []bool) {
	for t := range s.nodePods {
		if len(s.nodePods[t]) == 0 && !s.closed[t] {
			s.close(t)
		}
	}
	s.busyOnly = false
	st := s.stats()
	var busy []int
	for t := range s.nodePods {
		if len(s.nodePods[t]) > 0 && !s.closed[t] {
			busy = append(busy, t)
		}
	}
	slices.SortFunc(busy, func(a, b int) int {
		if keep != nil && keep[a] != keep[b] {
			return cmp.Compare(b2i(keep[a]), b2i(keep[b]))
		}
		if c := cmp.Compare(st[a].pods, st[b].pods); c != 0 {
			return c
		}
		if c := cmp.Compare(st[a].load, st[b].load); c != 0 {
			return c
		}
		return a - b
	})
	targets := slices.Clone(busy)
	slices.Reverse(targets)
	s.retarget(targets)
	alone := make([]bool, s.m.n)
	for _, c := range busy {
		mark := len(s.log)
		alone[c] = s.drainNode(c, false, true)
		s.rollback(mark)
	}
	s.drainPrefix(busy, alone, true)
	for _, c := range busy {
		if s.ef.out() {
			return
		}
		if !s.closed[c] {
			s.drainNode(c, false, true)
		}
	}
	for range 2 {
		progress := false
		for _, c := range busy {
			if s.ef.out() {
				return
			}
			if !s.closed[c] && s.drainNode(c, true, true) {
				progress = true
			}
		}
		if !progress {
			return
		}
	}
}

func (s *state) busyCount() int {
	c := 0
	for _, list := range s.nodePods {
		if len(list) > 0 {
			c++
		}
	}
	return c
}

// leaveUnschedulable drains the nodes that are not Schedulable, so that the
// snapshot can start a packing; it reports whether every pod then sits on a
// Schedulable node and the placement passes Check.
func (s *state) leaveUnschedulable() bool {
	m := s.m
	for t := range m.p.Nodes {
		if !m.p.Nodes[t].Schedulable && len(s.nodePods[t]) > 0 && !s.drainNode(t, true, true) {
			return false
		}
	}
	return Check(m.p, s.assign, nil) == nil
}

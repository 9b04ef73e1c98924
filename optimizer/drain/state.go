package drain

// state is one simulation of a Problem: where every pod is, what is left
// on every node, the counts the group rules read, which nodes are removed,
// and a log to undo back to any earlier point.
type state struct {
	m        *model
	assign   []int // pod → node, -1 unplaced (Repack)
	orig     []int // pod → node in the snapshot (-1 in Repack)
	rem      []float64
	removed  []bool // removed from the cluster: holds nothing, no longer eligible for spread
	closed   []bool // takes no new pod (removed, or emptied by Repack)
	nodePods [][]int
	podPos   []int
	ngc      [][]groupCount // per node: pods per group
	zcnt     []int          // group*nz + zone: pods of the group in the zone
	occ      []int          // class*nz + zone: pods of the skew class in the zone
	elig     []int          // elig*nz + zone: eligible nodes of the signature in the zone
	fdAt     map[int]int    // fault-domain group*nrack + rack → offset of its counts in fdCnt
	fdCnt    []int32        // at fdAt's offset: the group's pods with a FaultDomain in the rack, then per fault domain 1..fdNum
	moved    int            // pods with assign ≠ orig
	nremoved int
	budget   int // most moved pods, -1 = no limit
	seq      int
	last     []int // pod → seq of its last move
	log      []op
	ff       *ffIndex
	busyOnly bool            // searches look only at nodes that hold a pod (Repack)
	zc       []int8          // per zone: spread verdict cached during one search
	stuck    []int           // per pod class: the eject call that found it no node
	epoch    int             // bumped whenever room may appear for some pod (find's memory)
	memo     [2][]searchMemo // per placed?, pod class
	ejectSeq int
	ef       *effort
}

type groupCount struct{ g, c int }

type opKind int8

const (
	opMove opKind = iota
	opRemove
	opClose
)

// op is one logged change; undo restores pod to from, or reopens node.
type op struct {
	kind     opKind
	pod      int
	from     int
	node     int
	prevLast int
	wasShut  bool
}

// effort counts search steps (tree nodes visited, nodes considered for a
// pod) against a limit shared by the searches of one call; limit 0 = none.
type effort struct{ used, limit int64 }

func (e *effort) out() bool { return e != nil && e.limit > 0 && e.used >= e.limit }

// share is a fresh budget of 1/parts of what is left (unlimited if e is);
// the caller adds its use back.
func (e *effort) share(parts int) *effort {
	if e.limit <= 0 {
		return &effort{}
	}
	return &effort{limit: max(1, (e.limit-e.used)/int64(parts))}
}

// newState starts from the snapshot's placement (or with every pod
// unplaced) with first-fit searches in the given target order.
func (m *model) newState(targets []int, unplaced bool, budget int, ef *effort) *state {
	p := m.p
	s := &state{m: m, budget: budget, ef: ef}
	s.assign = make([]int, len(p.Pods))
	s.orig = make([]int, len(p.Pods))
	s.last = make([]int, len(p.Pods))
	s.podPos = make([]int, len(p.Pods))
	s.rem = make([]float64, m.n*m.d)
	for j := range p.Nodes {
		copy(s.rem[j*m.d:], p.Nodes[j].Free)
	}
	s.removed = make([]bool, m.n)
	s.closed = make([]bool, m.n)
	s.nodePods = make([][]int, m.n)
	s.ngc = make([][]groupCount, m.n)
	s.zcnt = make([]int, len(m.limit)*m.nz)
	s.occ = make([]int, len(m.classes)*m.nz)
	s.elig = make([]int, len(m.eligSigs)*m.nz)
	if m.fdg != nil {
		s.fdAt = map[int]int{}
	}
	s.zc = make([]int8, m.nz)
	s.stuck = make([]int, m.nclass)
	s.epoch = 1
	for mode := range s.memo {
		s.memo[mode] = make([]searchMemo, m.nclass)
	}
	for e, al := range m.eligAff {
		for j := range p.Nodes {
			if al == nil || al[j] {
				s.elig[e*m.nz+m.zone(j)]++
			}
		}
	}
	for i := range s.assign {
		s.assign[i], s.orig[i] = -1, -1
		if !unplaced {
			s.orig[i] = p.Pods[i].Node
			s.place(i, p.Pods[i].Node)
		}
	}
	s.moved = 0 // every pod is where the snapshot has it
	s.ff = newFFIndex(targets, m.n, m.d)
	for j := range p.Nodes {
		s.index(j)
	}
	return s
}

// retarget rebuilds the first-fit index over a new target order.
func (s *state) retarget(order []int) {
	s.ff = newFFIndex(order, s.m.n, s.m.d)
	for t := range s.nodePods {
		s.index(t)
	}
	s.epoch++
}

// target reports whether node t takes new pods.
func (s *state) target(t int) bool { return !s.closed[t] && s.m.p.Nodes[t].Schedulable }

func (s *state) index(t int) {
	if s.ff == nil {
		return
	}
	var free []float64
	if s.target(t) {
		free = s.rem[t*s.m.d : t*s.m.d+s.m.d]
	}
	s.ff.set(t, free, len(s.nodePods[t]) > 0)
}

// place moves pod i to node to (-1: unplace) without logging.
func (s *state) place(i, to int) {
	m := s.m
	d, nz := m.d, m.nz
	dem := m.p.Pods[i].Demand
	from := s.assign[i]
	g, c := m.gid[i], m.pclass[i]
	if (from >= 0 && s.target(from)) || (to >= 0 && s.busyOnly && len(s.nodePods[to]) == 0) {
		s.epoch++ // room on a target, or a new busy node
	}
	if from >= 0 {
		r := s.rem[from*d : from*d+d]
		for k := range r {
			r[k] += dem[k]
		}
		list := s.nodePods[from]
		pos, tail := s.podPos[i], list[len(list)-1]
		list[pos] = tail
		s.podPos[tail] = pos
		s.nodePods[from] = list[:len(list)-1]
		if g >= 0 {
			s.addGroup(from, g, -1)
			s.zcnt[g*nz+m.zone(from)]--
		}
		if c >= 0 {
			s.occ[c*nz+m.zone(from)]--
		}
		if m.fdg != nil && m.fdg[i] >= 0 {
			s.addFaultDomain(i, from, -1)
		}
	}
	if to >= 0 {
		r := s.rem[to*d : to*d+d]
		for k := range r {
			r[k] -= dem[k]
		}
		s.podPos[i] = len(s.nodePods[to])
		s.nodePods[to] = append(s.nodePods[to], i)
		if g >= 0 {
			s.addGroup(to, g, 1)
			s.zcnt[g*nz+m.zone(to)]++
		}
		if c >= 0 {
			s.occ[c*nz+m.zone(to)]++
		}
		if m.fdg != nil && m.fdg[i] >= 0 {
			s.addFaultDomain(i, to, 1)
		}
	}
	if from != s.orig[i] {
		s.moved--
	}
	if to != s.orig[i] {
		s.moved++
	}
	s.assign[i] = to
	if s.ff != nil {
		if from >= 0 {
			s.index(from)
		}
		if to >= 0 {
			s.index(to)
		}
	}
}

func (s *state) groupCount(t, g int) int {
	for _, e := range s.ngc[t] {
		if e.g == g {
			return e.c
		}
	}
	return 0
}

func (s *state) addGroup(t, g, delta int) {
	list := s.ngc[t]
	for j := range list {
		if list[j].g == g {
			list[j].c += delta
			if list[j].c == 0 {
				list[j] = list[len(list)-1]
				s.ngc[t] = list[:len(list)-1]
			}
			return
		}
	}
	s.ngc[t] = append(list, groupCount{g, delta})
}

// move logs and performs pod i's move to node to.
func (s *state) move(i, to int) {
	s.seq++
	s.log = append(s.log, op{kind: opMove, pod: i, from: s.assign[i], prevLast: s.last[i]})
	s.last[i] = s.seq
	s.place(i, to)
}

// remove takes node t out of the cluster (its pods must leave before the
// plan is read); close only stops new pods (Repack).
func (s *state) remove(t int) {
	s.log = append(s.log, op{kind: opRemove, node: t, wasShut: s.closed[t]})
	s.setRemoved(t, true)
	s.nremoved++
	s.closed[t] = true
	s.index(t)
}

func (s *state) close(t int) {
	s.log = append(s.log, op{kind: opClose, node: t, wasShut: s.closed[t]})
	s.closed[t] = true
	s.index(t)
}

func (s *state) setRemoved(t int, on bool) {
	m := s.m
	s.removed[t] = on
	if !m.p.Nodes[t].Schedulable {
		return
	}
	delta := -1
	if !on {
		delta = 1
	}
	z := m.zone(t)
	for e, al := range m.eligAff {
		if al == nil || al[t] {
			s.elig[e*m.nz+z] += delta
		}
	}
}

// rollback undoes the log back to mark.
func (s *state) rollback(mark int) {
	for len(s.log) > mark {
		o := s.log[len(s.log)-1]
		s.log = s.log[:len(s.log)-1]
		switch o.kind {
		case opMove:
			s.place(o.pod, o.from)
			s.last[o.pod] = o.prevLast
		case opRemove:
			s.epoch++
			s.setRemoved(o.node, false)
			s.nremoved--
			s.closed[o.node] = o.wasShut
			s.index(o.node)
		case opClose:
			s.epoch++
			s.closed[o.node] = o.wasShut
			s.index(o.node)
		}
	}
}

// overBudget reports whether more pods moved than allowed.
func (s *state) overBudget() bool { return s.budget >= 0 && s.moved > s.budget }

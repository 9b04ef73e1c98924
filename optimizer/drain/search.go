package drain

import "math"

// canPlace reports whether pod i may move to node t now: t takes new pods
// and is not i's node, i is Allowed there, it fits, and the group rules
// hold (perNodeOK, spreadOK, faultDomainOK).
func (s *state) canPlace(i, t int) bool {
	m := s.m
	if t == s.assign[i] || !s.target(t) || !m.allowed(i, t) {
		return false
	}
	d := m.d
	if !fits(m.p.Pods[i].Demand, s.rem[t*d:t*d+d]) {
		return false
	}
	return s.perNodeOK(i, t) && s.spreadOK(i, t) && s.faultDomainOK(i, t)
}

// placeable is canPlace with the spread verdict cached per zone: valid
// only while the state does not change (one search).
func (s *state) placeable(i, t int) bool {
	m := s.m
	s.ef.used++
	if t == s.assign[i] || !s.target(t) || !m.allowed(i, t) {
		return false
	}
	d := m.d
	if !fits(m.p.Pods[i].Demand, s.rem[t*d:t*d+d]) || !s.perNodeOK(i, t) || !s.faultDomainOK(i, t) {
		return false
	}
	if g := m.gid[i]; g < 0 || len(m.gclasses[g]) == 0 {
		return true
	}
	z := m.zone(t)
	if s.zc[z] == 0 {
		s.zc[z] = 2
		if s.spreadOK(i, t) {
			s.zc[z] = 1
		}
	}
	return s.zc[z] == 1
}

// find returns the first node in the target order that may take pod i, or
// -1. In Repack (busyOnly) it looks at nodes that hold a pod first and
// then at all.
//
// Searches remember, per pod class without a spread rule or fault domain
// in its group (whose verdicts depend only on the node and the pods on it,
// not on the zone a pod leaves or the other nodes of a rack), where the
// last one ended: if a pod of the class on node a found its first fit at
// position q of the target order (q = ∞: none), every node before q but a
// refused the class, and until something frees room (epoch) a twin need
// only look at a and then from q on. First fit over a filling order is so amortized; the
// answers are the same as without the memory. In Repack only failures are
// remembered (its two-phase search is not a single scan).
func (s *state) find(i int) int {
	m := s.m
	k := m.class[i]
	if !m.cacheable[k] {
		return s.find0(i, 0)
	}
	mode := b2i(s.assign[i] >= 0)
	mm := &s.memo[mode][k]
	from := 0
	if mm.epoch == s.epoch {
		if own := mm.own; own >= 0 && own != s.assign[i] && s.ff.pos[own] >= 0 && s.ff.pos[own] < mm.pos {
			s.ef.used++
			if (!s.busyOnly || mode == 0 || len(s.nodePods[own]) > 0) && s.canPlace(i, own) {
				mm.pos, mm.own = s.ff.pos[own], s.assign[i]
				return own
			}
		}
		from = mm.pos
	}
	t := -1
	if from < math.MaxInt {
		t = s.find0(i, from)
	}
	mm.epoch, mm.own, mm.pos = s.epoch, s.assign[i], math.MaxInt
	switch {
	case t >= 0 && s.busyOnly:
		mm.epoch = 0
	case t >= 0:
		mm.pos = s.ff.pos[t]
	}
	return t
}

// searchMemo is find's memory for one pod class.
type searchMemo struct{ epoch, pos, own int }

// find0 is find without memory, over positions ≥ from.
func (s *state) find0(i, from int) int {
	clear(s.zc)
	if s.busyOnly {
		if t := s.search(i, from, true); t >= 0 {
			return t
		}
		if s.assign[i] >= 0 {
			return -1 // emptying a node into an empty one saves nothing
		}
	}
	return s.search(i, from, false)
}

func (s *state) search(i, from int, busy bool) int {
	m := s.m
	if list := m.sigList[m.sigOf[i]]; list != nil {
		best, bp := -1, math.MaxInt
		for _, t := range list {
			if pos := s.ff.pos[t]; pos < bp && pos >= from && (!busy || len(s.nodePods[t]) > 0) && s.placeable(i, t) {
				best, bp = t, pos
			}
		}
		return best
	}
	return s.descend(1, 0, s.ff.size, from, i, m.p.Pods[i].Demand, busy)
}

// descend searches tree node v, which covers leaf positions [lo, hi).
func (s *state) descend(v, lo, hi, from, i int, demand []float64, busy bool) int {
	f := s.ff
	if hi <= from {
		return -1
	}
	s.ef.used++
	if !f.covers(v, demand, busy) {
		return -1
	}
	if v >= f.size {
		if t := f.at[v-f.size]; t >= 0 && s.placeable(i, t) {
			return t
		}
		return -1
	}
	mid := (lo + hi) / 2
	if t := s.descend(2*v, lo, mid, from, i, demand, busy); t >= 0 {
		return t
	}
	return s.descend(2*v+1, mid, hi, from, i, demand, busy)
}

// eject makes room for pod i by moving one pod x off a node t to another
// node u. The nodes t are tried in target order among those that take new
// pods and admit i; x must free what i lacks in every dimension (and be of
// i's group when a group rule, not capacity, refuses i on t; a fault
// domain that another node of t's rack holds is not cleared by moving x,
// and canPlace then refuses); the smallest
// such x that finds a node u goes, if i then passes every rule on t. It
// returns t with x's move done (the caller moves i), or -1 with nothing
// changed. A pod x that finds no node marks its class (same demand,
// signature and group rules) stuck for the rest of the call: the state
// does not change between tries, and a twin on another node differs only
// in the node it may not move to.
func (s *state) eject(i int) int {
	m := s.m
	d := m.d
	dem := m.p.Pods[i].Demand
	need := make([]float64, d)
	var xs []int
	s.ejectSeq++
	seq, stuck := s.ejectSeq, s.stuck
	for _, t := range s.ff.at {
		if s.ef.out() {
			return -1
		}
		if t < 0 || t == s.assign[i] || !s.target(t) || !m.allowed(i, t) || (s.busyOnly && len(s.nodePods[t]) == 0) {
			continue
		}
		s.ef.used++
		r := s.rem[t*d : t*d+d]
		for k := range need {
			need[k] = dem[k] - r[k] - Eps
		}
		group := s.perNodeOK(i, t) && s.spreadOK(i, t) && s.faultDomainOK(i, t)
		xs = xs[:0]
		for _, x := range s.nodePods[t] {
			if covers(m.p.Pods[x].Demand, need) && (group || m.gid[x] == m.gid[i]) {
				xs = append(xs, x)
			}
		}
		m.byRank(xs)
		for j := len(xs) - 1; j >= 0; j-- { // smallest first
			x := xs[j]
			if stuck[m.class[x]] == seq {
				continue
			}
			u := s.find(x)
			if u < 0 {
				stuck[m.class[x]] = seq // its twins on other nodes are stuck too, nearly always
				continue
			}
			mark := len(s.log)
			s.move(x, u)
			if s.canPlace(i, t) {
				return t
			}
			s.rollback(mark)
		}
	}
	return -1
}

// covers reports whether freeing demand covers need in every dimension.
func covers(demand, need []float64) bool {
	for k, x := range need {
		if x > 0 && demand[k] < x {
			return false
		}
	}
	return true
}

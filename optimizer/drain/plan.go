package drain

import "cmp"

// Plan returns a consolidation plan that removes as many nodes as it can
// within opts.MaxMoves, and never fewer than Greedy: the greedy run is one
// of its candidates. Empty Removable nodes are removed at 0 moves (in one
// variant of each order they are first kept as last-resort targets, see
// runOrder, and removed at the end if still empty).
//
// The candidates, tried in this order while opts.Effort lasts, are
//
//   - Greedy;
//   - for each candidate order of the Removable nodes — fewest pods then
//     least utilised (Karpenter's); the nodes a packing from scratch
//     (Repack, on a share of the effort) leaves empty first; least
//     utilised; least load (Σ of the pods' normalized sizes); smallest
//     node (Σ Free normalized); then opts.Restarts seeded random orders
//     — runOrder: a multi-node consolidation of the longest prefix that
//     drains at once (binary search, as Karpenter's), then single-node
//     consolidation of the rest, in order;
//   - the packing from scratch itself (fromPacking).
//
// The best candidate (most nodes removed, then fewest pods moved, then
// most Cost removed, then the earliest) gets an ejection pass: each node
// still kept is drained again, and a pod that finds no node may displace
// one pod of a node to a third node to make room. Every move is checked
// against every rule on the current state, so from a snapshot that passes
// Check the plan passes Check.
//
// Plan returns an error wrapping ErrProblem when Validate(p) fails.
func Plan(p *Problem, opts Options) (*Result, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	m := compile(p)
	pl := &planner{m: m, budget: opts.budget(), ef: &effort{limit: opts.effort()}}
	pl.best, pl.bestOrd = m.greedy(pl.budget)
	greedy := pl.best.nremoved

	base := m.newState(identity(m.n), false, pl.budget, pl.ef)
	st := base.stats()
	pl.alone = make([]bool, m.n)
	for t := range p.Nodes {
		if p.Nodes[t].Removable && len(base.nodePods[t]) > 0 {
			mark := len(base.log)
			pl.alone[t] = base.drainNode(t, false, false)
			base.rollback(mark)
		}
		pl.hasEmpty = pl.hasEmpty || (p.Nodes[t].Removable && len(base.nodePods[t]) == 0)
	}
	by := func(keys ...func(t int) float64) []int {
		return m.candidateOrder(func(a, b int) int {
			for _, key := range keys {
				if c := cmp.Compare(key(a), key(b)); c != 0 {
					return c
				}
			}
			return 0
		})
	}
	pods := func(t int) float64 { return float64(st[t].pods) }
	util := func(t int) float64 { return st[t].util }
	load := func(t int) float64 { return st[t].load }
	pl.run(by(pods, util), true, true)
	if !pl.ef.out() {
		sub := pl.ef.share(repackShare)
		r, err := m.repack(m.openOrder(true), sub)
		pl.ef.used += sub.used
		if err == nil {
			ord := by(func(t int) float64 { return float64(b2i(len(r.nodePods[t]) > 0)) }, pods, util)
			pl.run(ord, true, true)
			pl.consider(m.fromPacking(r, pl.budget, pl.ef), ord)
		}
	}
	pl.run(by(util, pods), true, true)
	pl.run(by(load, pods), true, true)
	pl.run(by(m.capacity, pods, util), true, true)
	for r := range opts.restarts() {
		if pl.ef.used >= pl.ef.limit/ejectShare*(ejectShare-1) {
			break // leave the ejection pass its share
		}
		pl.run(m.randomOrder(st, opts.seed(), r, r%2 == 1), r%2 == 0, r%2 == 1)
	}
	pl.best.ef = pl.ef
	pl.best.ejectPass(pl.bestOrd)
	return pl.best.plan(greedy), nil
}

// repackShare: the packing from scratch may spend at most 1/repackShare of
// the effort left when it starts.
const repackShare = 4

// ejectShare: random restarts start only while less than
// (ejectShare−1)/ejectShare of the effort is spent, so the ejection pass
// has at least about 1/ejectShare of it.
const ejectShare = 4

// planner holds Plan's best candidate so far.
type planner struct {
	m        *model
	budget   int
	ef       *effort
	alone    []bool // per node: drainable alone in the snapshot
	hasEmpty bool
	best     *state
	bestOrd  []int
}

// run tries one candidate order with the empty nodes removed first and/or
// kept as last-resort targets (the same when there is no empty node).
func (pl *planner) run(ord []int, emptiesFirst, emptiesLast bool) {
	if !pl.hasEmpty {
		emptiesFirst, emptiesLast = true, false
	}
	for _, last := range []bool{false, true} {
		if (last && !emptiesLast) || (!last && !emptiesFirst) || pl.ef.out() {
			continue
		}
		pl.consider(pl.m.runOrder(ord, pl.budget, pl.alone, last, pl.ef), ord)
	}
}

func (pl *planner) consider(s *state, ord []int) {
	if s != nil && s.better(pl.best) {
		pl.best, pl.bestOrd = s, ord
	}
}

// fromPacking is Plan's candidate from a packing r of every pod from
// scratch: drain at once the Removable nodes r leaves empty, pods first
// fit on the nodes not Removable and those r uses; if that fails, move
// every pod to its node in r. Nil if it takes more moves than allowed.
func (m *model) fromPacking(r *state, budget int, ef *effort) *state {
	var targets []int
	for t := range m.p.Nodes {
		if !m.p.Nodes[t].Removable {
			targets = append(targets, t)
		}
	}
	for t := range m.p.Nodes {
		if m.p.Nodes[t].Removable && len(r.nodePods[t]) > 0 {
			targets = append(targets, t)
		}
	}
	s := m.newState(targets, false, budget, ef)
	s.removeEmpty()
	var drop []int
	for t := range m.p.Nodes {
		if m.p.Nodes[t].Removable && len(r.nodePods[t]) == 0 && !s.removed[t] {
			drop = append(drop, t)
		}
	}
	if s.drainSet(drop, false) {
		return s
	}
	s = m.newState(targets, false, budget, ef)
	pods := m.byRankAll()
	for _, i := range pods {
		if t := r.assign[i]; t != s.assign[i] {
			s.move(i, t)
		}
	}
	s.removeEmpty()
	if s.overBudget() {
		return nil
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runOrder is one candidate of Plan: empty nodes, the longest prefix
// drained at once, then node by node. With emptiesLast the empty nodes are
// not removed first but kept as the last targets, largest first, and
// removed at the end if still empty: one empty node may absorb two
// partly used ones (Karpenter's replacement, without a new node).
func (m *model) runOrder(ord []int, budget int, alone []bool, emptiesLast bool, ef *effort) *state {
	var cands, empties []int
	for _, c := range ord {
		if m.podsOn(c) == 0 {
			empties = append(empties, c)
		} else {
			cands = append(cands, c)
		}
	}
	targets := m.targetOrder(cands)
	if emptiesLast {
		sortBy(empties, func(t int) float64 { return -m.capacity(t) })
		targets = append(targets, empties...)
	}
	s := m.newState(targets, false, budget, ef)
	if !emptiesLast {
		s.removeEmpty()
	}
	s.drainPrefix(cands, alone, false)
	for _, c := range cands {
		if ef.out() {
			break
		}
		if !s.removed[c] {
			s.drainNode(c, false, false)
		}
	}
	s.removeEmpty()
	return s
}

// drainPrefix drains at once the longest prefix of cands (those marked
// in alone, unless nil, and as many as the move budget pays for) that
// goes by first fit, found by binary search after a try of the whole;
// closeOnly closes the nodes instead of removing them (Repack).
func (s *state) drainPrefix(cands []int, alone []bool, closeOnly bool) {
	var pref []int
	cost := 0
	for _, c := range cands {
		n := len(s.nodePods[c])
		if (alone != nil && !alone[c]) || n == 0 || (s.budget >= 0 && cost+n > s.budget) {
			continue
		}
		pref = append(pref, c)
		cost += n
	}
	try := func(k int) bool {
		mark := len(s.log)
		ok := s.drainSet(pref[:k], closeOnly)
		s.rollback(mark)
		return ok
	}
	lo, hi := 0, len(pref)
	if hi > 0 && try(hi) {
		lo = hi
	}
	for lo < hi && !s.ef.out() {
		mid := (lo + hi + 1) / 2
		if try(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		s.drainSet(pref[:lo], closeOnly)
	}
}

// podsOn counts the snapshot's pods on node t.
func (m *model) podsOn(t int) int {
	if m.count == nil {
		m.count = make([]int, m.n)
		for i := range m.p.Pods {
			m.count[m.p.Pods[i].Node]++
		}
	}
	return m.count[t]
}

// capacity is Σ_k Free_k / scale_k.
func (m *model) capacity(t int) float64 {
	c := 0.0
	for k, f := range m.p.Nodes[t].Free {
		c += f / m.scale[k]
	}
	return c
}

// better orders candidates: more nodes removed, then fewer pods moved,
// then more Cost removed.
func (s *state) better(o *state) bool {
	if s.nremoved != o.nremoved {
		return s.nremoved > o.nremoved
	}
	if s.moved != o.moved {
		return s.moved < o.moved
	}
	return s.removedCost() > o.removedCost()
}

func (s *state) removedCost() float64 {
	c := 0.0
	for t, r := range s.removed {
		if r {
			c += s.m.p.Nodes[t].Cost
		}
	}
	return c
}

// ejectPass drains each kept Removable node again, in order, now letting
// a pod displace another (eject); up to two rounds while one succeeds.
func (s *state) ejectPass(ord []int) {
	for range 2 {
		progress := false
		for _, c := range ord {
			if s.ef.out() {
				return
			}
			if !s.removed[c] && s.drainNode(c, true, false) {
				progress = true
			}
		}
		if !progress {
			return
		}
	}
}

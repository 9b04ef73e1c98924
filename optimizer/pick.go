package optimizer

import (
	"cmp"
	"math"
	"slices"
)

type tie struct {
	cl    *cell
	rack  int
	start int
	n     int
}

// cmpKey compares keys and then global scores: -1, 0 or 1.
func cmpKey(a *key, ga int64, b *key, gb int64) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case ga < gb:
		return -1
	case ga > gb:
		return 1
	}
	return 0
}

// pick finds the best machines across the racks of the selected clusters:
// each rack's sorted list gives its best machine, racks compare by that
// machine's key and then the global rule (§5.2.5, N_c log N_c with N_c the
// racks), and one of the tied best is picked at random, seeded by the run
// seed and the request id. Request validators that apply (tenant-dependent,
// uncached) are applied to rack heads here. last says this is the final
// walk of assign: a failure is then recorded as the VM's.
func (p *Protean) pick(req *Request, v VMRequest, t Traits, sel []*cell, ex *Explanation, last bool) (int32, string) {
	if len(p.reqApply) == 0 {
		return p.pickFast(sel, ex)
	}
	if m, ok := p.pickSampled(req, v, t, sel, ex); ok {
		return m, ""
	}
	return p.pickWalk(req, v, t, sel, ex, last, true, true)
}

// pickWalk is pick by walking the racks (see pick). record says the rule
// statistics take its counts; draw says it picks (else it only fills ex,
// drawing nothing from the seeded generator).
func (p *Protean) pickWalk(req *Request, v VMRequest, t Traits, sel []*cell, ex *Explanation, last, record, draw bool) (int32, string) {
	if !record {
		// explanation only: the counts go to ex, not to the statistics
		p.muteStats = true
		defer func() { p.muteStats = false }()
	}
	env := &p.env
	inv := env.Inv
	npref := len(p.rules.Preferences)
	global := p.rules.Global
	var best key
	var bestG int64
	found := false
	ties := p.ties[:0]
	p.top = p.top[:0]
	p.pickStamp++
	if len(p.rackSeen) != len(inv.Racks) {
		p.rackSeen = make([]uint32, len(inv.Racks))
	}
	// Racks are visited best head first (each cell's heap of rack heads,
	// depth first): a rack whose head — its best machine, whichever the
	// request validators pass — is worse than the best valid machine found
	// cannot hold the pick or a tie, and neither can the racks below it in
	// the heap, so they are not walked.
	walked := p.walked[:0]
	// Ties are marked (tieGen, tieAt: the rack's first valid machine) and
	// collected in rack order after the walk: the heap's order depends on
	// history, rack order does not, so the seeded pick is the same with the
	// cache on or off. A better machine starts a new generation.
	if len(p.tieGen) != len(inv.Racks) {
		p.tieGen, p.tieAt = make([]uint32, len(inv.Racks)), make([]int32, len(inv.Racks))
	}
	p.gen++
	for _, cl := range sel {
		racks := inv.Clusters[cl.cluster].Racks
		cl.walk(0, func(rl32 int32) bool {
			hd := &cl.heads[rl32]
			if found && cmpKey(&hd.k, hd.g, &best, bestG) > 0 {
				return false
			}
			rl := int(rl32)
			size := cl.size(rl)
			r := racks[rl]
			p.rackSeen[r] = p.pickStamp
			walked = append(walked, walkedRack{cl: cl, rl: rl})
			w := &walked[len(walked)-1]
			if i := p.rackRule(req, v, r); i >= 0 {
				w.rej[i] += int32(size)
				return true
			}
			h := 0
			for ; h < size; h++ {
				i := p.inRackRule(req, v, cl.machine(rl, h))
				if i < 0 {
					break
				}
				w.rej[i]++
			}
			if h == size {
				return true
			}
			hkv := cl.key(rl, h)
			hk := &hkv
			// Without the global score, a head worse than the best (and than
			// the worst kept top machine) cannot matter: skip it.
			if found && !hk.less(&best) && *hk != best && (!ex.recording() || !p.mayEnterTop(hk)) {
				return true
			}
			var g int64
			if global != nil {
				g = global.ScoreRack(env, t, r)
			}
			ex.offerTop(p, cl.machine(rl, h), hk, g)
			switch c := cmpKey(hk, g, &best, bestG); {
			case !found || c < 0:
				best, bestG, found = *hk, g, true
				p.gen++
				p.tieGen[r], p.tieAt[r] = p.gen, int32(h)
			case c == 0:
				p.tieGen[r], p.tieAt[r] = p.gen, int32(h)
			}
			return true
		})
	}
	p.walked = walked
	for _, cl := range sel {
		for rl, r := range inv.Clusters[cl.cluster].Racks {
			if p.tieGen[r] == p.gen {
				ties = append(ties, tie{cl, rl, int(p.tieAt[r]), 0})
			}
		}
	}
	// The request validators' removals, as the statistics and explanations
	// count them: in the racks that could hold the pick (head no worse than
	// it; all racks walked when nothing was found), whatever order the
	// heap visited them in.
	var reqRej [maxValidators]int
	for i := range walked {
		w := &walked[i]
		if hd := &w.cl.heads[w.rl]; found && cmpKey(&hd.k, hd.g, &best, bestG) > 0 {
			continue
		}
		for k, n := range w.rej {
			reqRej[k] += int(n)
		}
	}
	ex.offerUnwalked(p, req, v, t, sel)
	if !found {
		if last {
			return -1, p.requestFailure(sel, &reqRej, ex)
		}
		return -1, ""
	}
	total := 0
	for i := range ties {
		tt := &ties[i]
		if tt.start == 0 {
			tt.n = tt.cl.headRun(tt.rack, npref)
		} else {
			tt.n = tt.cl.runFrom(tt.rack, tt.start, npref)
		}
		total += tt.n
	}
	p.ties = ties
	p.explainPrefs(sel, &best, total, ex, &reqRej)
	ex.ranked(p, npref)
	if !draw {
		return -1, ""
	}
	// Seeded random tie-break among the best; candidates failing a
	// request validator inside a run are skipped by resampling, then by
	// falling back to a run's head (which passed).
	for attempt := 0; attempt < 4; attempt++ {
		i := p.rng.IntN(total)
		for _, tt := range ties {
			if i < tt.n {
				m := tt.cl.machine(tt.rack, tt.start+i)
				if p.requestRule(req, v, m) < 0 {
					return m, ""
				}
				break
			}
			i -= tt.n
		}
	}
	tt := ties[p.rng.IntN(len(ties))]
	return tt.cl.machine(tt.rack, tt.start), ""
}

// bestHead is the best rack head of the selected cells (key, then rack
// score), and whether any cell has a valid machine.
func bestHead(sel []*cell) (rackHead, bool) {
	var best rackHead
	found := false
	for _, cl := range sel {
		rl := cl.best()
		if rl < 0 {
			continue
		}
		h := &cl.heads[rl]
		if c := cmpKey(&h.k, h.g, &best.k, best.g); !found || c < 0 {
			best, found = *h, true
		}
	}
	return best, found
}

// bestTies lists the racks of the selected cells whose head ties with best
// (key and rack score), with the run of machines tied with each head, in
// rack order — the heap's order depends on history, rack order does not, so
// the seeded pick is the same with the cache on or off —, and how many
// machines they hold in all. The racks are marked through each cell's heap,
// then collected in order (no sort).
func (p *Protean) bestTies(sel []*cell, best *rackHead, npref int) ([]tie, int) {
	if len(p.rackSeen) != len(p.env.Inv.Racks) {
		p.rackSeen = make([]uint32, len(p.env.Inv.Racks))
	}
	ties := p.ties[:0]
	total := 0
	for _, cl := range sel {
		p.pickStamp++
		racks := p.env.Inv.Clusters[cl.cluster].Racks
		lo, hi := len(cl.racks), -1
		cl.walk(0, func(rl int32) bool {
			h := &cl.heads[rl]
			if cmpKey(&h.k, h.g, &best.k, best.g) != 0 {
				return false
			}
			p.rackSeen[racks[rl]] = p.pickStamp
			lo, hi = min(lo, int(rl)), max(hi, int(rl))
			return true
		})
		for rl := lo; rl <= hi; rl++ {
			if p.rackSeen[racks[rl]] == p.pickStamp {
				n := cl.headRun(rl, npref)
				ties = append(ties, tie{cl, rl, 0, n})
				total += n
			}
		}
	}
	p.ties = ties
	return ties, total
}

// maxPickSamples bounds pickSampled's draws: with a validator that passes
// one machine in five of the best (update domains, U = 5), 16 draws find one
// 97% of the time; otherwise pick walks the racks.
const maxPickSamples = 16

// pickSampled is pick by rejection sampling, when it can: it draws machines
// uniformly from the best machines by the preference and global rules
// alone (pickFast's ties, found from each cell's heap of rack heads) until
// one passes the request validators (at most maxPickSamples of them: it
// asks each once and draws among those that pass). A machine that passes has the best
// key and rack score any valid machine has, so the draw is uniform among
// the valid machines tied for the best — what pick chooses among — without
// walking every tied rack. After maxPickSamples refusals (the validators
// refuse most of the best) it reports false and pick walks. The rule
// statistics count the draws it refused; an explanation is filled by a walk
// that draws nothing.
func (p *Protean) pickSampled(req *Request, v VMRequest, t Traits, sel []*cell, ex *Explanation) (int32, bool) {
	npref := len(p.rules.Preferences)
	best, found := bestHead(sel)
	if !found {
		return -1, false
	}
	ties, total := p.bestTies(sel, &best, npref)
	var reqRej [maxValidators]int
	chosen := int32(-1)
	if total <= maxPickSamples {
		// Few enough to ask each once: the valid ones, one drawn uniformly.
		valid := p.valid[:0]
		for _, tt := range ties {
			for i := range tt.n {
				m := tt.cl.machine(tt.rack, i)
				if k := p.requestRule(req, v, m); k >= 0 {
					reqRej[k]++
				} else {
					valid = append(valid, m)
				}
			}
		}
		p.valid = valid
		if len(valid) > 0 {
			chosen = valid[p.rng.IntN(len(valid))]
		}
	} else {
		for attempt := 0; attempt < maxPickSamples && chosen < 0; attempt++ {
			i := p.rng.IntN(total)
			for _, tt := range ties {
				if i >= tt.n {
					i -= tt.n
					continue
				}
				m := tt.cl.machine(tt.rack, i)
				if k := p.requestRule(req, v, m); k >= 0 {
					reqRej[k]++
				} else {
					chosen = m
				}
				break
			}
		}
	}
	if chosen < 0 {
		return -1, false
	}
	p.explainPrefs(sel, &best.k, total, nil, &reqRej)
	ex.walkAgain(p, req, v, t, sel)
	return chosen, true
}

// walkedRack is a rack pick walked, with the machines each request
// validator refused on the way.
type walkedRack struct {
	cl  *cell
	rl  int
	rej [maxValidators]int32
}

// offerUnwalked offers the explanation's top list the first valid machine
// of every rack pick did not walk, where it may enter the list.
func (p *Protean) offerUnwalked(req *Request, v VMRequest, t Traits, sel []*cell) {
	env := &p.env
	for _, cl := range sel {
		racks := env.Inv.Clusters[cl.cluster].Racks
		for rl := range cl.racks {
			r := racks[rl]
			size := cl.size(rl)
			if size == 0 || p.rackSeen[r] == p.pickStamp {
				continue
			}
			if k0 := cl.key(rl, 0); !p.mayEnterTop(&k0) || p.rackRule(req, v, r) >= 0 {
				continue
			}
			for h := range size {
				if m := cl.machine(rl, h); p.inRackRule(req, v, m) < 0 {
					if k := cl.key(rl, h); p.mayEnterTop(&k) {
						var g int64
						if p.rules.Global != nil {
							g = p.rules.Global.ScoreRack(env, t, r)
						}
						p.offerTop(m, &k, g)
					}
					break
				}
			}
		}
	}
}

// requestFailure records a VM whose valid machines the request validators
// all refused: their statistics, the explanation, and the reason — the
// last request validator that removed any.
func (p *Protean) requestFailure(sel []*cell, reqRej *[maxValidators]int, ex *Explanation) string {
	valid := 0
	for _, cl := range sel {
		valid += int(cl.valid)
	}
	reason := ReasonNoCluster
	for i, name := range p.names.request {
		p.stat(p.statAt.request+i, valid, reqRej[i])
		valid -= reqRej[i]
		if reqRej[i] > 0 {
			reason = name
		}
	}
	ex.requestRejected(p.names.request, reqRej[:len(p.names.request)])
	ex.fail(reason)
	return reason
}

// pickFast is pick for requests without tenant-dependent validators: each
// cell's rack heap gives its best rack in O(1); the tied best racks and the
// top-k are read off the heaps without visiting the other racks.
func (p *Protean) pickFast(sel []*cell, ex *Explanation) (int32, string) {
	p.avoided = false
	if p.avoidProb > 0 && p.avoidN0 > 1 && p.rng.Float64() < p.avoidProb {
		if m, ok := p.pickAvoiding(sel, p.avoidN0); ok {
			p.avoided = true
			ex.pick(PickAvoidance)
			return m, ""
		}
	}
	npref := len(p.rules.Preferences)
	best, found := bestHead(sel)
	var ties []tie
	total := 0
	p.top = p.top[:0]
	if found {
		ties, total = p.bestTies(sel, &best, npref)
	}
	ex.topFromTies(p, sel, ties, &best)
	p.ties = ties
	if !found {
		return -1, ReasonNoCluster // unreachable: every selected cell has a valid machine
	}
	var noRej [maxValidators]int
	p.explainPrefs(sel, &best.k, total, ex, &noRej)
	ex.ranked(p, npref)
	i := p.rng.IntN(total)
	for _, tt := range ties {
		if i < tt.n {
			return tt.cl.machine(tt.rack, i), ""
		}
		i -= tt.n
	}
	panic("optimizer: tie-break out of range")
}

type mergeNode struct {
	cell, rack, pos int
}

// pickAvoiding is the conflict-avoidance pick of §5.3: a uniformly random
// machine among the top N0 of the selected clusters (by key, then rack
// score), found by merging the racks' sorted lists best first.
func (p *Protean) pickAvoiding(sel []*cell, n0 int) (int32, bool) {
	fr := p.merge[:0]
	for ci, cl := range sel {
		if rl := cl.best(); rl >= 0 {
			fr = append(fr, mergeNode{ci, int(rl), 0})
		}
	}
	// The heap gives each cell's racks in order; a rack enters the merge when
	// its parent in the heap has been reached, so expand heap children too.
	type hk struct{ cell, rack int }
	inHeap := map[hk]bool{}
	for _, n := range fr {
		inHeap[hk{n.cell, n.rack}] = true
	}
	chosen := -1
	seen := 0
	target := p.rng.IntN(n0)
	var pickM int32
	for seen < n0 && len(fr) > 0 {
		bi := 0
		for j := 1; j < len(fr); j++ {
			a, b := fr[j], fr[bi]
			ka, kb := sel[a.cell].key(a.rack, a.pos), sel[b.cell].key(b.rack, b.pos)
			c := cmpKey(&ka, sel[a.cell].heads[a.rack].g, &kb, sel[b.cell].heads[b.rack].g)
			if c < 0 || c == 0 && (a.cell < b.cell || a.cell == b.cell && (a.rack < b.rack || a.rack == b.rack && a.pos < b.pos)) {
				bi = j
			}
		}
		n := fr[bi]
		fr[bi] = fr[len(fr)-1]
		fr = fr[:len(fr)-1]
		cl := sel[n.cell]
		if seen == target {
			chosen, pickM = seen, cl.machine(n.rack, n.pos)
		}
		seen++
		if n.pos+1 < cl.size(n.rack) {
			fr = append(fr, mergeNode{n.cell, n.rack, n.pos + 1})
		}
		if n.pos == 0 {
			i := int(cl.hpos[n.rack])
			for _, c := range [2]int{2*i + 1, 2*i + 2} {
				if c < len(cl.heap) {
					r := int(cl.heap[c])
					if cl.heads[r].ok && !inHeap[hk{n.cell, r}] {
						inHeap[hk{n.cell, r}] = true
						fr = append(fr, mergeNode{n.cell, r, 0})
					}
				}
			}
		}
	}
	p.merge = fr[:0]
	if chosen < 0 {
		if seen == 0 {
			return 0, false
		}
		return p.pickAvoiding(sel, seen) // fewer than n0 candidates: pick among them
	}
	return pickM, true
}

// pickSafe places a low-priority VM by the slides' balancing of packing and
// safety: the valid machines of the selected clusters ordered by packing
// score (BestFitScore), the best TopPct kept, and among them the one with
// the highest SafetyScore (ties: packing, then machine id). It scans the
// candidates (O(machines · types) per VM), so it is an option for
// multi-priority studies, off by default.
func (p *Protean) pickSafe(req *Request, v VMRequest, t Traits, sel []*cell) int32 {
	env := &p.env
	inv, s := env.Inv, env.State
	type cand struct {
		m   int32
		fit float64
	}
	var cands []cand
	var nodes []int32
	for _, cl := range sel {
		nodes = append(nodes, inv.Clusters[cl.cluster].Machines...)
		for rl := range cl.racks {
			for i := range cl.size(rl) {
				m := cl.machine(rl, i)
				if p.requestRule(req, v, m) >= 0 {
					continue
				}
				d, _ := inv.Demand(t[TraitType], m)
				cands = append(cands, cand{m, BestFitScore(s.Free(m), d, inv.Capacity(m), p.cfg.Weights)})
			}
		}
	}
	if len(cands) == 0 {
		return -1
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.fit != b.fit {
			return cmp.Compare(a.fit, b.fit)
		}
		return int(a.m - b.m)
	})
	cands = cands[:topCount(len(cands), p.cfg.TopPct)]
	// Node state of the selected clusters, and the no-eviction slots per type.
	index := make(map[int32]int, len(nodes))
	free := make([]Vec, len(nodes))
	low := make([]Vec, len(nodes))
	for i, m := range nodes {
		index[m] = i
		free[i], low[i] = s.Free(m), s.LowUsed[m]
	}
	rates := p.cfg.ArrivalRates
	demand := make([][]Vec, len(rates))
	slots := make([]int, len(rates))
	for ty, r := range rates {
		if r <= 0 || ty >= len(inv.Types) {
			continue
		}
		demand[ty] = make([]Vec, len(nodes))
		for i, m := range nodes {
			if d, ok := inv.Demand(int32(ty), m); ok {
				demand[ty][i] = d
				slots[ty] += Slots(free[i], d)
			}
		}
	}
	best, bestS := int32(-1), math.Inf(-1)
	for _, c := range cands {
		dx, _ := inv.Demand(t[TraitType], c.m)
		if sc := SafetyScore(index[c.m], dx, free, low, demand, rates, slots); sc > bestS {
			best, bestS = c.m, sc
		}
	}
	return best
}

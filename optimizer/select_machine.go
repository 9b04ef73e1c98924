package optimizer

// assign is ASSIGN_MACHINE_TO_VM: cluster selection, then machine selection
// over the k best clusters, then a pick among the best. It returns the
// machine, or -1 and the rule that emptied the candidate set.
//
// Machine selection walks the valid clusters best first and keeps the first
// k that have a valid machine (a cell of the cached RuleEvaluation per
// cluster: its machines that pass every machine validator, sorted per rack
// by the preference rules). If the request validators leave nothing to
// pick there, it walks on: a request never fails while a feasible machine
// exists (§3.4).
func (p *Protean) assign(req *Request, kind RequestKind, v VMRequest, ex *Explanation) (int32, string) {
	env := &p.env
	inv := env.Inv
	t := req.traits(v)
	cands, reason := p.selectClusters(req, kind, t, ex)
	if len(cands) == 0 {
		return -1, reason
	}
	p.applyRequestRules(req)
	p.prepareInRack(req, v)
	e := p.evaluation(t)
	var walkedRej [maxValidators]int
	walkedMachines := 0
	nval := len(p.rules.Validators)
	blocked, blocker, next := 0, -1, 0
	first := true
	for {
		sel := p.sel[:0]
		for next < len(cands) && len(sel) < p.cfg.K {
			before, idle, ns := e.caughtUp, e.idleUp, e.idleNs
			cl, hit := e.cell(env, cands[next])
			p.decisionUpdates += e.caughtUp - before
			p.bgUpdates += e.idleUp - idle
			p.idleNs += e.idleNs - ns
			next++
			if hit {
				p.cellHits.Hits++
			} else {
				p.cellHits.Misses++
			}
			walkedMachines += len(inv.Clusters[cl.cluster].Machines)
			for i, r := range cl.rejected {
				walkedRej[i] += int(r)
			}
			if cl.valid == 0 {
				continue
			}
			if b := p.allRacksRefused(req, v, cl); b >= 0 {
				blocked, blocker = blocked+1, b
				continue
			}
			sel = append(sel, cl)
		}
		p.sel = sel
		if first {
			p.explainMachines(sel, ex)
			first = false
		}
		if len(sel) == 0 {
			p.clusterPrefStats(len(cands), next)
			reason := ReasonNoCluster
			if blocked > 0 {
				reason = p.rules.Request[blocker].Name()
			} else {
				for i := nval - 1; i >= 0; i-- {
					if walkedRej[i] > 0 {
						reason = p.rules.Validators[i].Name()
						break
					}
				}
			}
			// No cluster had a valid machine: explain with every cluster walked.
			ex.fail(reason)
			ex.machineLevel(walkedMachines, p.names.validators, walkedRej[:nval])
			ex.short(p, e, cands[:next])
			return -1, reason
		}
		if p.cfg.Safety && req.Priority > 0 && len(p.cfg.ArrivalRates) > 0 {
			if m := p.pickSafe(req, v, t, sel); m >= 0 {
				p.clusterPrefStats(len(cands), next)
				ex.pickSafety()
				return m, ""
			}
		}
		if m, reason := p.pick(req, v, t, sel, ex, next == len(cands)); m >= 0 || next == len(cands) {
			p.clusterPrefStats(len(cands), next)
			return m, reason
		}
		ex.retry(nval)
	}
}

// applyRequestRules records which request validators apply to req.
func (p *Protean) applyRequestRules(req *Request) {
	p.reqApply = p.reqApply[:0]
	for i, rv := range p.rules.Request {
		if rv.Applies(req) {
			p.reqApply = append(p.reqApply, i)
		}
	}
}

// prepareInRack prepares, for VM v of req, the in-rack predicates of the
// applying request validators that offer one (PreparedInRack); the others
// are asked through InRackValidator or ValidFor.
func (p *Protean) prepareInRack(req *Request, v VMRequest) {
	p.inRack, p.onRack = p.inRack[:0], p.onRack[:0]
	for _, i := range p.reqApply {
		var f, g func(int32) bool
		if pr, ok := p.rules.Request[i].(PreparedInRack); ok {
			f, g = pr.PrepareInRack(&p.env, req, v), pr.PrepareRack(&p.env, req, v)
		}
		p.inRack, p.onRack = append(p.inRack, f), append(p.onRack, g)
	}
}

// allRacksRefused is the request validator that refuses, for VM v, every
// rack of cl holding a valid machine (through RackValidator), or -1.
func (p *Protean) allRacksRefused(req *Request, v VMRequest, cl *cell) int {
	if len(p.reqApply) == 0 {
		return -1
	}
	by := -1
	for rl, rack := range cl.racks {
		if len(rack) == 0 {
			continue
		}
		i := p.rackRule(req, v, p.env.Inv.Clusters[cl.cluster].Racks[rl])
		if i < 0 {
			return -1
		}
		by = i
	}
	return by
}

// rackRule is the first applying request validator that refuses all of
// rack r to VM v, or -1.
func (p *Protean) rackRule(req *Request, v VMRequest, r int32) int {
	for k, i := range p.reqApply {
		if g := p.onRack[k]; g != nil {
			if !g(r) {
				return i
			}
			continue
		}
		if rv, ok := p.rules.Request[i].(RackValidator); ok && !rv.ValidRack(&p.env, req, v, r) {
			return i
		}
	}
	return -1
}

// inRackRule is requestRule for a machine whose rack passed rackRule for
// the same VM: validators that say how (InRackValidator) skip the rack's
// conditions.
func (p *Protean) inRackRule(req *Request, v VMRequest, m int32) int {
	for k, i := range p.reqApply {
		if f := p.inRack[k]; f != nil {
			if !f(m) {
				return i
			}
			continue
		}
		r := p.rules.Request[i]
		if ir, ok := r.(InRackValidator); ok {
			if !ir.ValidInRack(&p.env, req, v, m) {
				return i
			}
		} else if !r.ValidFor(&p.env, req, v, m) {
			return i
		}
	}
	return -1
}

// requestRule is the first applying request validator that refuses
// machine m to VM v, or -1.
func (p *Protean) requestRule(req *Request, v VMRequest, m int32) int {
	for _, i := range p.reqApply {
		if !p.rules.Request[i].ValidFor(&p.env, req, v, m) {
			return i
		}
	}
	return -1
}

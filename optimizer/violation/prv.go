package violation

import (
	"cmp"
	"slices"
)

// prv is the common body of Algorithms 2 and 3; worst selects Algorithm 3
// (WorstFit as the secondary heuristic, M held-out nodes).
type prv struct {
	name    string
	est     Prober
	theta   float64
	w       Weighting
	heldOut int
	worst   bool
	fb      Fallback

	dec   Decision
	feas  []int
	all   []int
	order []int
	keys  []float64
}

// decide runs the algorithm. With explain every feasible node gets a full
// Estimate, as the listings do. Without, it screens lazily: the secondary
// heuristic's choice among the nodes below θ is the first of them in
// heuristic order, so it tests nodes in that order with Prober.Below
// (which itself stops drawing once a node is at or over θ) and stops at
// the first below θ — non-held-out nodes first, then held-out ones. When
// no node is below θ, the least Delta (ties to the heuristic order) is
// found in the same order with Prober.DeltaBelow against the best so far,
// which gives up on a node as soon as it cannot win. Both paths give the
// same node; the lazy one leaves Decision.Estimates empty.
func (p *prv) decide(c *Cluster, req Request, explain bool) *Decision {
	d := &p.dec
	*d = Decision{
		Policy: p.name, Request: req.ID, Node: -1,
		Estimates: d.Estimates[:0], HeldOut: d.HeldOut[:0],
		Candidates: d.Candidates[:0], HeldOutCandidates: d.HeldOutCandidates[:0],
	}
	p.feas = feasible(c, &req.Tenant, p.feas)
	if len(p.feas) == 0 {
		d.Reason = ReasonNoFit
		return d
	}
	wt := p.w.bind(c)
	// heuristic is the secondary criterion on nodeload_n + usage_db, as a
	// key to minimize: W for WorstFit, −W for BestFit.
	heuristic := func(n int) float64 {
		v := wt.of(c.Nodes[n].Load.Add(req.Tenant.Usage))
		if p.worst {
			return v
		}
		return -v
	}
	if p.worst && p.heldOut > 0 {
		// Line 3: HeldOut_Nodes := arg min_{|H|=M} Σ_{i∈H} W(nodeload_i),
		// the M available nodes of least W (ties to the lower index).
		p.all = p.all[:0]
		p.keys = p.keys[:0]
		for i := range c.Nodes {
			if !c.Nodes[i].Unavailable {
				p.all = append(p.all, i)
			}
			p.keys = append(p.keys, wt.of(c.Nodes[i].Load))
		}
		slices.SortStableFunc(p.all, func(a, b int) int { return cmp.Compare(p.keys[a], p.keys[b]) })
		d.HeldOut = append(d.HeldOut, p.all[:min(p.heldOut, len(p.all))]...)
		slices.Sort(d.HeldOut)
	}
	limit := c.Limit()
	tenants := func(n int) []Tenant { return c.Nodes[n].Tenants }
	if explain {
		for _, n := range p.feas {
			e := p.est.Estimate(tenants(n), &req.Tenant, limit, req.Seed)
			d.Estimates = append(d.Estimates, NodeEstimate{Node: n, Estimate: e})
			switch {
			case e.With >= p.theta:
			case slices.Contains(d.HeldOut, n):
				d.HeldOutCandidates = append(d.HeldOutCandidates, n)
			default:
				d.Candidates = append(d.Candidates, n)
			}
		}
	} else {
		p.keys = p.keys[:0]
		for i := range c.Nodes {
			k := 0.0
			if !c.Nodes[i].Unavailable {
				k = heuristic(i)
			}
			p.keys = append(p.keys, k)
		}
		p.order = append(p.order[:0], p.feas...)
		slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(p.keys[a], p.keys[b]) })
		for pass := range 2 {
			for _, n := range p.order {
				if slices.Contains(d.HeldOut, n) != (pass == 1) {
					continue
				}
				if p.est.Below(tenants(n), &req.Tenant, limit, req.Seed, p.theta) {
					if pass == 0 {
						d.Candidates = append(d.Candidates, n)
					} else {
						d.HeldOutCandidates = append(d.HeldOutCandidates, n)
					}
					break
				}
			}
			if len(d.Candidates)+len(d.HeldOutCandidates) > 0 {
				break
			}
		}
	}
	pool, reason := d.Candidates, ReasonCandidates
	if len(pool) == 0 && len(d.HeldOutCandidates) > 0 {
		pool, reason = d.HeldOutCandidates, ReasonHeldOut
	}
	if len(pool) > 0 {
		d.Reason = reason
		d.Node = argBest(pool, heuristic)
		d.Score = wt.of(c.Nodes[d.Node].Load.Add(req.Tenant.Usage))
		return d
	}
	// Every feasible node is at or over θ.
	if p.fb == FallbackMinWith {
		return p.minWith(c, req, explain, heuristic)
	}
	// Delta decides.
	if !explain {
		best, bestDelta := -1, 2.0
		for _, n := range p.order {
			if delta, ok := p.est.DeltaBelow(tenants(n), &req.Tenant, limit, req.Seed, bestDelta); ok {
				best, bestDelta = n, delta
			}
		}
		if bestDelta >= 1 {
			return p.certain(c, req, heuristic)
		}
		d.Reason, d.Node, d.Score = ReasonMinDelta, best, bestDelta
		return d
	}
	minDelta := 2.0
	for _, e := range d.Estimates {
		minDelta = min(minDelta, e.Delta)
	}
	if minDelta >= 1 {
		return p.certain(c, req, heuristic)
	}
	d.Reason = ReasonMinDelta
	bestH := 0.0
	for _, e := range d.Estimates {
		h := heuristic(e.Node)
		if d.Node < 0 || e.Delta < d.Score || (e.Delta == d.Score && h < bestH) {
			d.Node, d.Score, bestH = e.Node, e.Delta, h
		}
	}
	return d
}

// minWith is the all-over-θ branch under FallbackMinWith: the feasible node
// of least Pr_violation(S_n ∪ {db}), ties to the heuristic order (then the
// lower index); when that least With is 1 the estimates cannot rank the
// nodes and the heuristic picks (ReasonCertain). The lazy path finds the
// same node with Prober.WithBelow against the best so far.
func (p *prv) minWith(c *Cluster, req Request, explain bool, heuristic func(int) float64) *Decision {
	d := &p.dec
	best, bestWith := -1, 2.0
	if explain {
		bestH := 0.0
		for _, e := range d.Estimates {
			h := heuristic(e.Node)
			if best < 0 || e.With < bestWith || (e.With == bestWith && h < bestH) {
				best, bestWith, bestH = e.Node, e.With, h
			}
		}
	} else {
		limit := c.Limit()
		for _, n := range p.order {
			if w, ok := p.est.WithBelow(c.Nodes[n].Tenants, &req.Tenant, limit, req.Seed, bestWith); ok {
				best, bestWith = n, w
			}
		}
	}
	if bestWith >= 1 {
		return p.certain(c, req, heuristic)
	}
	d.Reason, d.Node, d.Score = ReasonMinWith, best, bestWith
	return d
}

// certain is the decision when every feasible node is certain to violate:
// the estimates cannot rank the nodes, so the secondary heuristic picks.
func (p *prv) certain(c *Cluster, req Request, heuristic func(int) float64) *Decision {
	d := &p.dec
	d.Reason = ReasonCertain
	d.Node = argBest(p.feas, heuristic)
	d.Score = p.w.bind(c).of(c.Nodes[d.Node].Load.Add(req.Tenant.Usage))
	return d
}

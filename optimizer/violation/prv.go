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

	dec  Decision
	feas []int
	all  []int
}

func (p *prv) decide(c *Cluster, req Request) *Decision {
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
		for i := range c.Nodes {
			if !c.Nodes[i].Unavailable {
				p.all = append(p.all, i)
			}
		}
		slices.SortStableFunc(p.all, func(a, b int) int {
			return cmp.Compare(wt.of(c.Nodes[a].Load), wt.of(c.Nodes[b].Load))
		})
		d.HeldOut = append(d.HeldOut, p.all[:min(p.heldOut, len(p.all))]...)
		slices.Sort(d.HeldOut)
	}
	limit := c.Limit()
	minDelta := 2.0
	for _, n := range p.feas {
		e := p.est.Estimate(c.Nodes[n].Tenants, &req.Tenant, limit, req.Seed)
		d.Estimates = append(d.Estimates, NodeEstimate{Node: n, Estimate: e})
		switch {
		case e.With >= p.theta:
			minDelta = min(minDelta, e.Delta())
		case slices.Contains(d.HeldOut, n):
			d.HeldOutCandidates = append(d.HeldOutCandidates, n)
		default:
			d.Candidates = append(d.Candidates, n)
		}
	}
	pool, reason := d.Candidates, ReasonCandidates
	if len(pool) == 0 && len(d.HeldOutCandidates) > 0 {
		pool, reason = d.HeldOutCandidates, ReasonHeldOut
	}
	if len(pool) == 0 && minDelta >= 1 {
		pool, reason = p.feas, ReasonCertain
	}
	d.Reason = reason
	if len(pool) > 0 {
		d.Node = argBest(pool, heuristic)
		d.Score = wt.of(c.Nodes[d.Node].Load.Add(req.Tenant.Usage))
		return d
	}
	d.Reason = ReasonMinDelta
	bestH := 0.0
	for _, e := range d.Estimates {
		h := heuristic(e.Node)
		if d.Node < 0 || e.Delta() < d.Score || (e.Delta() == d.Score && h < bestH) {
			d.Node, d.Score, bestH = e.Node, e.Delta(), h
		}
	}
	return d
}

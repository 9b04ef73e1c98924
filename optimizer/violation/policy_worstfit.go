package violation

// WorstFit places db on the feasible node with the most capacity left after
// placing it (§6.2, [39]): arg min_i W(nodeload_i + usage_db). Ties go to
// the lower node index.
type WorstFit struct {
	w   Weighting
	buf []int
}

var _ Policy = (*WorstFit)(nil)

// NewWorstFit returns WorstFit with the given weighting.
func NewWorstFit(w Weighting) *WorstFit { return &WorstFit{w: w} }

// Name is "worstfit" (W_Sum) or "worstfit-max".
func (p *WorstFit) Name() string {
	if p.w == WMax {
		return NameWorstFitMax
	}
	return NameWorstFit
}

// Place implements Policy.
func (p *WorstFit) Place(c *Cluster, req Request) (int, bool) {
	p.buf = feasible(c, &req.Tenant, p.buf)
	wt := p.w.bind(c)
	n := argBest(p.buf, func(n int) float64 { return wt.of(c.Nodes[n].Load.Add(req.Tenant.Usage)) })
	return n, n >= 0
}

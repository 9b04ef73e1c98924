package violation

// BestFit places db on the feasible node with the least capacity left after
// placing it (§6.1, [39]): arg max_i W(nodeload_i + usage_db). Ties go to
// the lower node index.
type BestFit struct {
	w   Weighting
	buf []int
}

var _ Policy = (*BestFit)(nil)

// NewBestFit returns BestFit with the given weighting.
func NewBestFit(w Weighting) *BestFit { return &BestFit{w: w} }

// Name is "bestfit" (W_Sum) or "bestfit-max".
func (p *BestFit) Name() string {
	if p.w == WMax {
		return NameBestFitMax
	}
	return NameBestFit
}

// Place implements Policy.
func (p *BestFit) Place(c *Cluster, req Request) (int, bool) {
	p.buf = feasible(c, &req.Tenant, p.buf)
	wt := p.w.bind(c)
	n := argBest(p.buf, func(n int) float64 { return -wt.of(c.Nodes[n].Load.Add(req.Tenant.Usage)) })
	return n, n >= 0
}

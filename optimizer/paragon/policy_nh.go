package paragon

// nhPolicy is §4's heterogeneity-oblivious scheduler: the interference
// classification and greedy D1/D2 selection without the configuration
// preference (the tightest fit decides).
type nhPolicy struct{ o GreedyOptions }

var _ Policy = (*nhPolicy)(nil)

func (p *nhPolicy) Name() string { return PolicyNH }

func (p *nhPolicy) Place(c *Cluster, req *Request) Decision {
	o := p.o
	o.IgnoreConfig = true
	return SelectGreedy(c, req, o)
}

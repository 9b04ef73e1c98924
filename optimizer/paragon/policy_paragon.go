package paragon

// paragonPolicy is Paragon (§3.2): interference first (D1/D2 filtering
// with backtracking), then the best configuration, then the tightest fit.
type paragonPolicy struct{ o GreedyOptions }

var _ Policy = (*paragonPolicy)(nil)

func (p *paragonPolicy) Name() string { return PolicyParagon }

func (p *paragonPolicy) Place(c *Cluster, req *Request) Decision {
	o := p.o
	o.IgnoreConfig = false
	return SelectGreedy(c, req, o)
}

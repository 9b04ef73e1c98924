package paragon

// paragonPolicy is Paragon (§3.2): interference first (D1/D2 filtering
// with backtracking), then the best configuration, then the tightest fit.
// Given true scores (knows) it is the oracle or one of its halves.
type paragonPolicy struct {
	o     GreedyOptions
	name  string // PolicyParagon when empty
	knows Knowledge
}

var (
	_ Policy   = (*paragonPolicy)(nil)
	_ Informed = (*paragonPolicy)(nil)
)

func (p *paragonPolicy) Name() string {
	if p.name == "" {
		return PolicyParagon
	}
	return p.name
}

func (p *paragonPolicy) Knows() Knowledge { return p.knows }

func (p *paragonPolicy) Place(c *Cluster, req *Request) Decision {
	o := p.o
	o.IgnoreConfig = false
	return SelectGreedy(c, req, o)
}

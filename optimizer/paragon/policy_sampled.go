package paragon

// sampledPolicy is Paragon with §3.2's statistical server selection
// (SelectSampled) in place of the greedy search.
type sampledPolicy struct{ o SampleOptions }

var _ Policy = (*sampledPolicy)(nil)

func (p *sampledPolicy) Name() string { return PolicySampled }

func (p *sampledPolicy) Place(c *Cluster, req *Request) Decision {
	return SelectSampled(c, req, p.o)
}

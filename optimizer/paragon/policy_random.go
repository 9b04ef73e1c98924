package paragon

// randomPolicy is §4's random scheduler: no classification; a uniformly
// random server among those with room for the cores (any server when none
// has room). Unlike the paper's, it does respect free cores, as every
// policy here does, so that the comparison is about heterogeneity and
// interference alone.
type randomPolicy struct{ seed uint64 }

var _ Policy = (*randomPolicy)(nil)

func (p *randomPolicy) Name() string { return PolicyRandom }

func (p *randomPolicy) Place(c *Cluster, req *Request) Decision {
	dec := Decision{Server: -1}
	cands, over := candidates(c, req)
	dec.Candidates, dec.Overcommitted = len(cands), over
	if len(cands) == 0 {
		return dec
	}
	dec.Server = cands[tieBreaker(p.seed, req.ID).IntN(len(cands))]
	dec.Survivors = len(cands)
	dec.NegativeSoIs = negativeSoIs(&c.Servers[dec.Server], req, false)
	return dec
}

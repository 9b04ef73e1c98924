package paragon

import "math"

// niPolicy is §4's interference-oblivious scheduler: it uses the
// heterogeneity classification only. Among servers with room for the
// cores it takes the best predicted configuration (bucketed as Paragon
// does), and within it the fullest server (best fit on cores), ties
// broken at random; with no room anywhere, the least loaded server of the
// best configuration. §5.1: "it assigns most workloads to the best SCs …
// NI selects the SC that is ranked second" once those fill up.
type niPolicy struct{ seed uint64 }

var _ Policy = (*niPolicy)(nil)

func (p *niPolicy) Name() string { return PolicyNI }

func (p *niPolicy) Place(c *Cluster, req *Request) Decision {
	dec := Decision{Server: -1}
	cands, over := candidates(c, req)
	dec.Candidates, dec.Overcommitted = len(cands), over
	if len(cands) == 0 {
		return dec
	}
	rng := tieBreaker(p.seed, req.ID)
	best, ties := -1, 0
	var bestBucket, bestFit int64
	for _, s := range cands {
		srv := &c.Servers[s]
		bucket := int64(math.Floor(req.Class.Perf[srv.Config]/DefaultConfigBucket + 1e-9))
		// Best fit: fewest free cores left; overcommitted: most free.
		fit := -int64(srv.FreeCores() - req.Cores)
		if over {
			fit = -fit
		}
		switch {
		case best < 0 || bucket > bestBucket || (bucket == bestBucket && fit > bestFit):
			best, ties, bestBucket, bestFit = s, 1, bucket, fit
		case bucket == bestBucket && fit == bestFit:
			ties++
			if rng.IntN(ties) == 0 {
				best = s
			}
		}
	}
	dec.Server = best
	dec.Survivors = len(cands) // no interference filtering
	dec.NegativeSoIs = negativeSoIs(&c.Servers[best], req, false)
	return dec
}

package optimizer

type clusterCand struct {
	c     int32
	score [maxClusterPrefs]int64
}

// clusterLess orders clusters by preference scores, then index.
func clusterLess(a, b *clusterCand) bool {
	for i := range a.score {
		if a.score[i] != b.score[i] {
			return a.score[i] < b.score[i]
		}
	}
	return a.c < b.c
}

// selectClusters is cluster selection (§3.2): every cluster ranked by the
// cluster preferences in strict priority (then by index) and filtered by
// the cluster validators in order, a cluster being charged to the first
// validator that refuses it. It returns the valid clusters best first, or
// none and the rule that emptied the set (the last validator that removed
// any).
func (p *Protean) selectClusters(req *Request, kind RequestKind, t Traits, ex *Explanation) ([]clusterCand, string) {
	env := &p.env
	inv := env.Inv
	// The order of the previous request is kept and re-sorted by
	// insertion: scores move little between requests, so this is
	// O(clusters) rather than a sort.
	order := p.order
	if len(order) != len(inv.Clusters) {
		order = make([]clusterCand, len(inv.Clusters))
		for c := range order {
			order[c].c = int32(c)
		}
	}
	for i := range order {
		c := order[i].c
		for j, cp := range p.rules.ClusterPreferences {
			order[i].score[j] = cp.ScoreCluster(env, t, c)
		}
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && clusterLess(&order[j], &order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	p.order = order
	var crej [maxValidators]int
	cands := p.cands[:0]
	for _, cc := range order {
		ok := true
		for i, cv := range p.rules.ClusterValidators {
			if !cv.ValidCluster(env, req, kind, t, cc.c) {
				crej[i]++
				ok = false
				break
			}
		}
		if ok {
			cands = append(cands, cc)
		}
	}
	p.cands = cands
	left := len(inv.Clusters)
	for i := range p.rules.ClusterValidators {
		p.stat(p.statAt.clusterValidators+i, left, crej[i])
		left -= crej[i]
	}
	if ex != nil {
		ex.Clusters = len(inv.Clusters)
		for i, cv := range p.rules.ClusterValidators {
			ex.ClusterRejected = append(ex.ClusterRejected, RuleCount{cv.Name(), crej[i]})
		}
	}
	if len(cands) > 0 {
		return cands, ""
	}
	reason := ReasonNoCluster
	for i := len(p.rules.ClusterValidators) - 1; i >= 0; i-- {
		if crej[i] > 0 {
			reason = p.rules.ClusterValidators[i].Name()
			break
		}
	}
	if ex != nil {
		ex.FailedRule = reason
	}
	return nil, reason
}

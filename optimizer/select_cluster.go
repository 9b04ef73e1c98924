package optimizer

import "slices"

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
	if prefs := p.rules.ClusterPreferences; len(prefs) == 1 && isPreferEmptier(prefs[0]) {
		for i := range order {
			order[i].score[0] = emptierScore(env, order[i].c)
		}
	} else {
		for i := range order {
			c := order[i].c
			for j, cp := range prefs {
				order[i].score[j] = cp.ScoreCluster(env, t, c)
			}
		}
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && clusterLess(&order[j], &order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	p.order = order
	// The validators that can refuse a cluster for this request, in
	// order, each with how it is evaluated: skipping the others, which
	// accept every cluster, charges every refusal to the same validator.
	var active [maxValidators]uint8
	var op [maxValidators]clusterOp
	na := 0
	for i, cv := range p.rules.ClusterValidators {
		if o := clusterValidatorOp(cv, req); o != cvAll {
			active[na], op[na] = uint8(i), o
			na++
		}
	}
	var crej [maxValidators]int
	cands := p.cands[:0]
	st, buffers := env.State, env.Cfg.Buffers
	var supported []bool // per cluster
	if slices.Contains(op[:na], cvTypeSupported) {
		supported = p.typeClusters(t[TraitType])
	}
	for _, cc := range order {
		c := cc.c
		ok := true
		for k := range na {
			var valid bool
			switch op[k] {
			case cvTypeSupported: // Inventory.TypeSupported, per cluster once per type
				valid = supported[c]
			case cvHealthy:
				valid = ClusterHealthy(st, c)
			case cvBelowLimit:
				valid = BelowLimit(st.ClusterEmpty[c], kind, buffers)
			default:
				valid = p.rules.ClusterValidators[active[k]].ValidCluster(env, req, kind, t, c)
			}
			if !valid {
				crej[active[k]]++
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

// typeClusters is, per cluster, whether it has a SKU that supports VM
// type ty (Inventory.TypeSupported), computed on the type's first request.
func (p *Protean) typeClusters(ty int32) []bool {
	if int(ty) >= len(p.typeIn) {
		p.typeIn = append(p.typeIn, make([][]bool, int(ty)+1-len(p.typeIn))...)
	}
	if p.typeIn[ty] == nil {
		inv := p.env.Inv
		in := make([]bool, len(inv.Clusters))
		for c := range inv.Clusters {
			in[c] = inv.TypeSupported(ty, int32(c))
		}
		p.typeIn[ty] = in
	}
	return p.typeIn[ty]
}

// clusterOp is how cluster selection evaluates a cluster validator for a
// request: the built-in validators inline (the same predicates, called
// directly rather than through the interface once per cluster), any other
// through ValidCluster.
type clusterOp uint8

const (
	cvCall          clusterOp = iota // ValidCluster
	cvAll                            // accepts every cluster for this request: not evaluated
	cvTypeSupported                  // IsTypeSupported
	cvHealthy                        // IsClusterHealthy
	cvBelowLimit                     // IsClusterBelowLimit
)

// clusterValidatorOp is how cv is evaluated for req: a validator that
// accepts every cluster for req (AcceptsAllClusters) is not evaluated.
func clusterValidatorOp(cv ClusterValidator, req *Request) clusterOp {
	if a, ok := cv.(AcceptsAllClusters); ok && a.AcceptsAllClusters(req) {
		return cvAll
	}
	switch cv.(type) {
	case IsTypeSupported:
		return cvTypeSupported
	case IsClusterHealthy:
		return cvHealthy
	case IsClusterBelowLimit:
		return cvBelowLimit
	}
	return cvCall
}

// isPreferEmptier reports whether cp is the built-in PreferEmptierClusters,
// whose score cluster selection computes inline (emptierScore).
func isPreferEmptier(cp ClusterPreference) bool {
	_, ok := cp.(PreferEmptierClusters)
	return ok
}

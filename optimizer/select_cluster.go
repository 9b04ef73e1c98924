package optimizer

import "slices"

// clusterScores are a cluster's preference scores in rule order.
type clusterScores [maxClusterPrefs]int64

// clusterLess orders clusters a and b by their preference scores, then
// index: a total order, so any sort of the clusters gives one ranking.
func clusterLess(score []clusterScores, a, b int32) bool {
	sa, sb := &score[a], &score[b]
	for i := range sa {
		if sa[i] != sb[i] {
			return sa[i] < sb[i]
		}
	}
	return a < b
}

// selectClusters is cluster selection (§3.2): every cluster ranked by the
// cluster preferences in strict priority (then by index) and filtered by
// the cluster validators in order, a cluster being charged to the first
// validator that refuses it. It returns the valid clusters best first, or
// none and the rule that emptied the set (the last validator that removed
// any).
func (p *Protean) selectClusters(req *Request, kind RequestKind, t Traits, ex *Explanation) ([]int32, string) {
	env := &p.env
	inv := env.Inv
	order := p.rankClusters(t)
	// The validators that can refuse a cluster for this request, in
	// order, each with how it is evaluated: skipping the others, which
	// accept every cluster, charges every refusal to the same validator.
	var active [maxValidators]uint8
	var op [maxValidators]clusterOp
	na := 0
	static := true // every active validator reads only types and health
	for i, o := range p.cluster.op {
		if a := p.cluster.accepts[i]; a != nil && a.AcceptsAllClusters(req) {
			o = cvAll // accepts every cluster for this request: not evaluated
		}
		if o == cvBelowLimit && bufferOf(kind, env.Cfg.Buffers) <= 0 {
			o = cvAll // no cluster has fewer than 0 empty machines
		}
		if o != cvAll {
			active[na], op[na] = uint8(i), o
			na++
			static = static && (o == cvTypeSupported || o == cvHealthy)
		}
	}
	var crej [maxValidators]int
	cands := p.cands[:0]
	if static && na <= maxVerdictValidators {
		// Types and health change rarely: the verdict is cached per type
		// until a machine's health changes (State.HealthEpoch).
		v := p.clusterVerdict(t[TraitType], active[:na], op[:na])
		p.staticSelections++
		crej = v.crej
		for _, c := range order {
			if v.valid[c] {
				cands = append(cands, c)
			}
		}
	} else {
		st, buffers := env.State, env.Cfg.Buffers
		var supported []bool // per cluster
		if slices.Contains(op[:na], cvTypeSupported) {
			supported = p.typeClusters(t[TraitType])
		}
		for _, c := range order {
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
				cands = append(cands, c)
			}
		}
	}
	p.cands = cands
	left := len(inv.Clusters)
	for i := range p.rules.ClusterValidators {
		p.stat(p.statAt.clusterValidators+i, left, crej[i])
		left -= crej[i]
	}
	ex.clusterLevel(len(inv.Clusters), p.names.clusterValidators, crej[:len(p.names.clusterValidators)])
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
	ex.fail(reason)
	return nil, reason
}

// rankClusters returns every cluster ranked by the cluster preferences
// (clusterLess). The ranking of the previous request is kept: with
// PreferEmptierClusters alone a cluster's score moves only when its
// machines change, so the clusters whose score moved are taken out and put
// back in place (O(clusters) in 4-byte moves, a binary search each);
// other preferences, which may read the request's traits, are scored anew
// and the ranking re-sorted by insertion (O(clusters) when scores move
// little).
func (p *Protean) rankClusters(t Traits) []int32 {
	env := &p.env
	nc := len(env.Inv.Clusters)
	prefs := p.rules.ClusterPreferences
	emptier := p.cluster.emptierOnly
	order, score := p.order, p.clusterScore
	if len(order) != nc {
		order, score = make([]int32, nc), make([]clusterScores, nc)
		for c := range order {
			order[c] = int32(c)
		}
		p.order, p.clusterScore, p.moved = order, score, make([]bool, nc)
		p.ranked = false
	}
	if !emptier || !p.ranked {
		for c := range score {
			for j, cp := range prefs {
				score[c][j] = cp.ScoreCluster(env, t, int32(c))
			}
		}
		for i := 1; i < len(order); i++ {
			x := order[i]
			j := i
			for ; j > 0 && clusterLess(score, x, order[j-1]); j-- {
				order[j] = order[j-1]
			}
			order[j] = x
		}
		p.ranked = emptier
		return order
	}
	moved := p.movedList[:0]
	for c := range score {
		if v := emptierScore(env, int32(c)); v != score[c][0] {
			score[c][0] = v
			moved = append(moved, int32(c))
			p.moved[c] = true
		}
	}
	p.movedList = moved
	if len(moved) == 0 {
		return order
	}
	// Out with the moved clusters: the rest keep their order.
	n := 0
	for _, c := range order {
		if !p.moved[c] {
			order[n] = c
			n++
		}
	}
	// Back in, each at its place among those already in.
	for _, c := range moved {
		p.moved[c] = false
		i, _ := slices.BinarySearchFunc(order[:n], c, func(x, c int32) int {
			if clusterLess(score, x, c) {
				return -1
			}
			return 1
		})
		copy(order[i+1:n+1], order[i:n])
		order[i] = c
		n++
	}
	return order
}

// clusterVerdictOf is the cluster validators' verdict for requests of one
// VM type that only IsTypeSupported and IsClusterHealthy can refuse: which
// clusters pass, and how many clusters each validator refused first. It
// holds while no machine's health changes (epoch) and the same validators
// are active (sig).
type clusterVerdictOf struct {
	epoch uint64
	sig   uint64
	valid []bool
	crej  [maxValidators]int
}

// maxVerdictValidators bounds the active validators a verdict's signature
// holds (8 bits each, and a count).
const maxVerdictValidators = 7

// clusterVerdict returns type ty's verdict under the active validators
// (their indices and ops), computed again when health changed since.
func (p *Protean) clusterVerdict(ty int32, active []uint8, op []clusterOp) *clusterVerdictOf {
	var sig uint64
	for k := range active {
		sig = sig<<8 | uint64(active[k])<<3 | uint64(op[k])
	}
	sig = sig<<8 | uint64(len(active))
	if int(ty) >= len(p.verdicts) {
		p.verdicts = append(p.verdicts, make([]*clusterVerdictOf, int(ty)+1-len(p.verdicts))...)
	}
	st := p.env.State
	v := p.verdicts[ty]
	if v != nil && v.epoch == st.HealthEpoch() && v.sig == sig {
		return v
	}
	if v == nil {
		v = &clusterVerdictOf{valid: make([]bool, len(p.env.Inv.Clusters))}
		p.verdicts[ty] = v
	}
	v.epoch, v.sig, v.crej = st.HealthEpoch(), sig, [maxValidators]int{}
	supported := p.typeClusters(ty)
	for c := range v.valid {
		v.valid[c] = true
		for k := range active {
			valid := true
			switch op[k] {
			case cvTypeSupported:
				valid = supported[c]
			case cvHealthy:
				valid = ClusterHealthy(st, int32(c))
			}
			if !valid {
				v.crej[active[k]]++
				v.valid[c] = false
				break
			}
		}
	}
	return v
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
	cpEmptier                        // PreferEmptierClusters (a preference: emptierScore)
)

// inlinedClusterRule is implemented by the built-in cluster rules that
// cluster selection evaluates inline: inlineOp names the predicate (or
// score) it computes for them instead of calling the rule. A rule declares
// it; cluster selection switches on no rule's type.
type inlinedClusterRule interface {
	inlineOp() clusterOp
}

func (IsTypeSupported) inlineOp() clusterOp       { return cvTypeSupported }
func (IsClusterHealthy) inlineOp() clusterOp      { return cvHealthy }
func (IsClusterBelowLimit) inlineOp() clusterOp   { return cvBelowLimit }
func (PreferEmptierClusters) inlineOp() clusterOp { return cpEmptier }

// clusterRules is how cluster selection evaluates a rule set's cluster
// rules, read once from the rules when the engine is built: per cluster
// validator its op (inlined, or ValidCluster) and, when it can tell from
// the request that it accepts every cluster, its AcceptsAllClusters;
// whether the one cluster preference is PreferEmptierClusters, whose
// score is computed inline (emptierScore) and moves only with the
// clusters' machines.
type clusterRules struct {
	op          []clusterOp
	accepts     []AcceptsAllClusters
	emptierOnly bool
}

func initClusterRules(r *Rules) clusterRules {
	var cr clusterRules
	for _, cv := range r.ClusterValidators {
		cr.op = append(cr.op, inlineOpOf(cv))
		a, _ := cv.(AcceptsAllClusters)
		cr.accepts = append(cr.accepts, a)
	}
	cr.emptierOnly = len(r.ClusterPreferences) == 1 && inlineOpOf(r.ClusterPreferences[0]) == cpEmptier
	return cr
}

// inlineOpOf is the op a cluster rule declares (inlinedClusterRule), or
// cvCall.
func inlineOpOf(rule any) clusterOp {
	if x, ok := rule.(inlinedClusterRule); ok {
		return x.inlineOp()
	}
	return cvCall
}

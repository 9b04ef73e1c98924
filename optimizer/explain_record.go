package optimizer

// The engines record an explanation through the methods below, and only
// through them: each is a no-op on a nil *Explanation (explanations off),
// so a call site is one unconditional line. Each is a small wrapper the
// compiler inlines — the no-explain path pays a nil test, not a call —
// around the recording itself; their arguments are values the engine has
// at hand anyway (counts in its arrays, rule names fixed at construction),
// never work done only for the explanation.

// ruleNames are a rule set's names per level, in rule order (fixed when
// the engine is built: recording a count by rule calls no Name method).
type ruleNames struct {
	clusterValidators, validators, request []string
}

func newRuleNames(r *Rules) ruleNames {
	var n ruleNames
	for _, v := range r.ClusterValidators {
		n.clusterValidators = append(n.clusterValidators, v.Name())
	}
	for _, v := range r.Validators {
		n.validators = append(n.validators, v.Name())
	}
	for _, v := range r.Request {
		n.request = append(n.request, v.Name())
	}
	return n
}

// appendCounts appends (names[i], counts[i]) to list.
func appendCounts(list []RuleCount, names []string, counts []int) []RuleCount {
	for i, name := range names {
		list = append(list, RuleCount{name, counts[i]})
	}
	return list
}

// recording reports whether ex records (explanations on): for the work
// that only an explanation needs, such as keeping the top machines.
func (ex *Explanation) recording() bool { return ex != nil }

// clusterLevel records the clusters considered and how many each cluster
// validator (names, in rule order) removed.
func (ex *Explanation) clusterLevel(clusters int, names []string, removed []int) {
	if ex != nil {
		ex.Clusters = clusters
		ex.ClusterRejected = appendCounts(ex.ClusterRejected, names, removed)
	}
}

// fail records the rule that emptied the candidate set.
func (ex *Explanation) fail(rule string) {
	if ex != nil {
		ex.FailedRule = rule
	}
}

// machineLevel records the machines considered and how many each machine
// validator (names, in rule order) removed, replacing what was recorded.
func (ex *Explanation) machineLevel(machines int, names []string, removed []int) {
	if ex != nil {
		ex.Machines = machines
		ex.Rejected = appendCounts(ex.Rejected[:0], names, removed)
	}
}

// selected records the clusters passed on to machine selection.
func (ex *Explanation) selected(sel []*cell) {
	if ex != nil {
		ex.Selected = ex.Selected[:0]
		for _, cl := range sel {
			ex.Selected = append(ex.Selected, cl.cluster)
		}
	}
}

// requestRejected records how many each request validator (names, in rule
// order) removed, after the machine validators.
func (ex *Explanation) requestRejected(names []string, removed []int) {
	if ex != nil {
		ex.Rejected = appendCounts(ex.Rejected, names, removed)
	}
}

// leftAfter records the candidates left after each preference rule
// (names: the rule order, the global rule last).
func (ex *Explanation) leftAfter(names []string, left []int) {
	if ex != nil {
		ex.AfterPrefs = appendCounts(ex.AfterPrefs, names, left)
	}
}

// short records the short dimensions of a failure: over the given
// clusters' cells, the machines each resource validator removed, by their
// first short dimension (it visits every machine of those clusters).
func (ex *Explanation) short(p *Protean, e *evaluation, clusters []int32) {
	if ex != nil {
		p.explainShort(e, clusters, ex)
	}
}

// pick records how the machine was picked.
func (ex *Explanation) pick(how string) {
	if ex != nil {
		ex.Pick = how
	}
}

// pickSafety records a pick by the safety score: no rule failed.
func (ex *Explanation) pickSafety() {
	if ex != nil {
		ex.FailedRule, ex.Pick = "", PickSafety
	}
}

// ranked records a pick of the best by the preference rules, with the top
// machines p kept (npref preference rules, then the global rule).
func (ex *Explanation) ranked(p *Protean, npref int) {
	if ex != nil {
		ex.Top = p.topScored(npref)
		ex.Pick = PickBest
	}
}

// walkAgain records a pick pickSampled drew, by the walk pick would have
// done: its counts and top machines, drawing nothing.
func (ex *Explanation) walkAgain(p *Protean, req *Request, v VMRequest, t Traits, sel []*cell) {
	if ex != nil {
		p.pickWalk(req, v, t, sel, ex, true, false, false)
		ex.Pick = PickBest
	}
}

// offerTop offers machine m (key k, global score g) to the top machines p
// keeps.
func (ex *Explanation) offerTop(p *Protean, m int32, k *key, g int64) {
	if ex != nil {
		p.offerTop(m, k, g)
	}
}

// offerUnwalked offers the top machines the first valid machine of every
// rack pick did not walk.
func (ex *Explanation) offerUnwalked(p *Protean, req *Request, v VMRequest, t Traits, sel []*cell) {
	if ex != nil {
		p.offerUnwalked(req, v, t, sel)
	}
}

// topFromTies makes the top machines of a pick without request validators:
// the heads of the tied racks in order, then, if fewer than TopK, the best
// heads strictly below them.
func (ex *Explanation) topFromTies(p *Protean, sel []*cell, ties []tie, best *rackHead) {
	if ex != nil {
		p.topFromTies(sel, ties, best)
	}
}

// retry forgets a walk whose clusters' request validators refused every
// machine, before machine selection walks on: the machine validators'
// nval counts stay.
func (ex *Explanation) retry(nval int) {
	if ex != nil {
		ex.FailedRule, ex.Top, ex.AfterPrefs = "", nil, nil
		ex.Rejected = ex.Rejected[:nval]
	}
}

// evicted records a placement by eviction of n low-priority VMs.
func (ex *Explanation) evicted(n int) {
	if ex != nil {
		ex.Pick, ex.Evicted = PickEviction, n
	}
}

// chosen records the machine the VM went to.
func (ex *Explanation) chosen(m int32) {
	if ex != nil {
		ex.Chosen = m
	}
}

// baseline records a baseline's choice: every cluster and the machines of
// the valid ones considered, the removals by rule level (machine
// validators then request validators in machineRej), and the policy's pick
// or the failure with its short dimensions.
func (ex *Explanation) baseline(b *Baseline, chk *Check, machines int, clusterRej *[maxValidators]int, machineRej *[2 * maxValidators]int, best int32, reason string) {
	if ex != nil {
		b.explain(ex, chk, machines, clusterRej, machineRej, best, reason)
	}
}

package optimizer

import "slices"

// Explanation is the record of one VM's machine selection (§3.4): how many
// candidates each level started with, how many each rule removed, how many
// were left after each preference rule, the best machines with their
// per-rule scores, and how the chosen machine was picked. Rule order is the
// order rules ran in. The engines fill it through its nil-safe recording
// methods (explain_record.go); Row makes the stored row (ExplainRow), with
// machines and clusters named.
type Explanation struct {
	VM VMID
	// Clusters: candidates, removed per cluster validator, and the clusters
	// passed on to machine selection (none listed: every valid cluster, as
	// for the baselines).
	Clusters        int
	ClusterRejected []RuleCount
	Selected        []int32
	// Machines: machines in the selected clusters, removed per machine
	// validator (then per request validator), and left after each
	// preference rule (in RuleOrder).
	Machines   int
	Rejected   []RuleCount
	AfterPrefs []RuleCount
	// Short counts, among the machines a resource validator
	// (ResourceValidator) removed, the first dimension that was short;
	// recorded when the VM found no machine as the state stood.
	Short []DimCount
	// RuleOrder names the preference rules in priority order, the global
	// rule last: the order of AfterPrefs and of each Top entry's Scores.
	RuleOrder []string
	Top       []Scored
	Chosen    int32 // -1 on failure
	// Pick says how Chosen was picked: PickBest, PickAvoidance, PickSafety,
	// PickEviction, or a baseline's policy name.
	Pick string
	// FailedRule is the rule that emptied the candidate set; it stays set
	// when eviction then placed the VM (Pick = PickEviction).
	FailedRule string
	// Evicted is the low-priority VMs evicted for this VM.
	Evicted int
}

// How an explained VM's machine was picked.
const (
	// PickBest: among the machines best by the preference rules in strict
	// priority, by the seeded tie-break.
	PickBest = "best"
	// PickAvoidance: at random among the top N0 machines, by the
	// conflict-avoidance scheme (§5.3); not necessarily the best.
	PickAvoidance = "avoidance"
	// PickSafety: the highest safety score among the best TopPct by
	// packing (low-priority VMs with Config.Safety); not necessarily the
	// best by the preference rules.
	PickSafety = "safety"
	// PickEviction: no machine took the VM as the state stood; low-priority
	// VMs were evicted to make room (Config.Evict).
	PickEviction = "eviction"
)

// RuleCount is a count attributed to a rule.
type RuleCount struct {
	Rule  string `json:"rule"`
	Count int    `json:"count"`
}

// DimCount is a count attributed to a resource dimension.
type DimCount struct {
	Dim   Dim `json:"dim"`
	Count int `json:"count"`
}

// Scored is a candidate machine with its score per preference rule, in
// rule order with the global rule last (Kubernetes' NodePluginScores).
type Scored struct {
	Machine int32       `json:"machine"`
	Scores  []RuleScore `json:"scores"`
}

// RuleScore is one rule's score of a machine (Kubernetes' PluginScore);
// lower is better.
type RuleScore struct {
	Rule  string `json:"rule"`
	Score int64  `json:"score"`
}

// RuleStats aggregates how aggressive a rule is (§3.4): over all requests
// it saw, how many candidates it was given and how many it removed. Every
// rule's statistics are kept whether or not explanations are on. A request
// counts for a machine preference rule only when the preference rules
// ranked its candidates: not when the VM was placed by conflict avoidance,
// by the safety score or by eviction, nor when it failed. A cluster
// preference is given the valid clusters and removes those ranked below the
// clusters machine selection walked (with several cluster preferences, each
// is charged with the ranking as a whole).
type RuleStats struct {
	Rule       string `json:"rule"`
	Level      string `json:"level"`
	Requests   int64  `json:"requests"`
	Candidates int64  `json:"candidates"`
	Removed    int64  `json:"removed"`
}

// SumRuleStats adds b's counts to a's rule by rule (e.g. the engines of
// several agents with one rule set); rules only in b are appended.
func SumRuleStats(a, b []RuleStats) []RuleStats {
	out := slices.Clone(a)
	for _, s := range b {
		i := slices.IndexFunc(out, func(x RuleStats) bool { return x.Rule == s.Rule && x.Level == s.Level })
		if i < 0 {
			out = append(out, s)
			continue
		}
		out[i].Requests += s.Requests
		out[i].Candidates += s.Candidates
		out[i].Removed += s.Removed
	}
	return out
}

// PostBestFit accumulates Protean Table 5's "Post-BestFit": per ranked VM,
// the share of its valid candidates left after the BestFit rule,
//
//	f = after(BestFit) / (valid − Σ removed by request validators other than TenantAntiColocation)
//
// where valid counts the machines of the selected clusters that pass every
// machine validator and after(BestFit) those also tied with the best machine
// on every preference rule up to BestFit. A VM counts when the preference
// rules ranked its candidates (as for RuleStats: not when it was placed by
// conflict avoidance, the safety score or eviction, nor when it failed) and
// the rule set has BestFit; an agent whose commit conflicted counts its
// retry again, as RuleStats does. It is kept whether or not explanations
// are on, so the figure does not depend on that flag; N = 0 means not
// measured.
type PostBestFit struct {
	Sum float64 // Σ f
	N   int64   // VMs counted
}

// Add adds b's shares to a's (the engines of several agents).
func (a PostBestFit) Add(b PostBestFit) PostBestFit { return PostBestFit{a.Sum + b.Sum, a.N + b.N} }

// Pct is the mean share in percent; ok is false when no VM was counted.
func (a PostBestFit) Pct() (pct float64, ok bool) {
	if a.N == 0 {
		return 0, false
	}
	return 100 * a.Sum / float64(a.N), true
}

// PostBestFitOf is the post-BestFit share of one explanation (the
// definition of PostBestFit, read from the record); ok is false when the
// explanation has no BestFit count or no valid candidate.
func PostBestFitOf(ex *Explanation) (float64, bool) {
	valid := ex.Machines
	for _, r := range ex.Rejected {
		if r.Rule != RuleTenantAntiColocation {
			valid -= r.Count
		}
	}
	if valid <= 0 {
		return 0, false
	}
	for _, a := range ex.AfterPrefs {
		if a.Rule == RuleBestFit {
			return float64(a.Count) / float64(valid), true
		}
	}
	return 0, false
}

// Positions of the rule levels in Protean.stats, in Rules.Names order.
type statIndex struct {
	clusterValidators, clusterPrefs, machineValidators, request, prefs, global int
}

func (p *Protean) initStats() {
	r := &p.rules
	p.names = newRuleNames(r)
	add := func(level string, names ...string) int {
		at := len(p.stats)
		for _, n := range names {
			p.stats = append(p.stats, RuleStats{Rule: n, Level: level})
		}
		return at
	}
	names := func(n int, name func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = name(i)
		}
		return out
	}
	p.statAt.clusterValidators = add("cluster", names(len(r.ClusterValidators), func(i int) string { return r.ClusterValidators[i].Name() })...)
	p.statAt.clusterPrefs = add("cluster", names(len(r.ClusterPreferences), func(i int) string { return r.ClusterPreferences[i].Name() })...)
	p.statAt.machineValidators = add("machine", names(len(r.Validators), func(i int) string { return r.Validators[i].Name() })...)
	p.statAt.request = add("machine", names(len(r.Request), func(i int) string { return r.Request[i].Name() })...)
	p.statAt.prefs = add("machine", names(len(r.Preferences), func(i int) string { return r.Preferences[i].Name() })...)
	p.statAt.global = -1
	if r.Global != nil {
		p.statAt.global = add("machine", r.Global.Name())
	}
}

// stat counts one request of the rule at stats index i: in candidates
// given, removed of them removed.
func (p *Protean) stat(i int, in, removed int) {
	if p.muteStats {
		return
	}
	s := &p.stats[i]
	s.Requests++
	s.Candidates += int64(in)
	s.Removed += int64(removed)
}

// clusterPrefStats charges the cluster preferences with the valid clusters
// (candidates) ranked below the walked ones.
func (p *Protean) clusterPrefStats(candidates, walked int) {
	for i := range p.rules.ClusterPreferences {
		p.stat(p.statAt.clusterPrefs+i, candidates, candidates-walked)
	}
}

// newExplanation returns an explanation whose slices share one backing
// array each, sized for the rule set (one allocation instead of several).
func (p *Protean) newExplanation(vm VMID) Explanation {
	ncv, nv, nr, np := len(p.rules.ClusterValidators), len(p.rules.Validators), len(p.rules.Request), len(p.rules.Preferences)+1
	rc := make([]RuleCount, 0, ncv+nv+nr+np)
	return Explanation{VM: vm, Chosen: -1, RuleOrder: p.prefOrder,
		ClusterRejected: rc[0:0:ncv],
		Rejected:        rc[ncv : ncv : ncv+nv+nr],
		AfterPrefs:      rc[ncv+nv+nr : ncv+nv+nr : ncv+nv+nr+np],
		Selected:        make([]int32, 0, p.cfg.K),
	}
}

// explainMachines records the machine level of the first selection.
func (p *Protean) explainMachines(sel []*cell, ex *Explanation) {
	inv := p.env.Inv
	nval := len(p.rules.Validators)
	machines := 0
	var rej [maxValidators]int
	for _, cl := range sel {
		machines += len(inv.Clusters[cl.cluster].Machines)
		for i, r := range cl.rejected {
			rej[i] += int(r)
		}
	}
	left := machines
	for i := 0; i < nval; i++ {
		p.stat(p.statAt.machineValidators+i, left, rej[i])
		left -= rej[i]
	}
	ex.machineLevel(machines, p.names.validators, rej[:nval])
	ex.selected(sel)
}

// explainShort counts, over the given clusters' cells, the machines each
// resource validator removed by their first short dimension (the failure
// path only, through Explanation.short: it visits every machine of those
// clusters).
func (p *Protean) explainShort(e *evaluation, clusters []int32, ex *Explanation) {
	var short [NumDims]int
	found := false
	for i, v := range e.validators {
		rv, ok := v.(ResourceValidator)
		if !ok {
			continue
		}
		for _, c := range clusters {
			cl := e.cells[c]
			if cl == nil || cl.rejected[i] == 0 {
				continue
			}
			for local := range p.env.Inv.Clusters[c].Machines {
				if int(*cl.st(int32(local))) == i {
					if d := rv.Short(p.env.Inv.Clusters[c].Machines[local]); d != NoDim {
						short[d]++
						found = true
					}
				}
			}
		}
	}
	if !found {
		return
	}
	for d, n := range short {
		if n > 0 {
			ex.Short = append(ex.Short, DimCount{Dim(d), n})
		}
	}
}

type frontierNode struct {
	cell int // index into sel
	i    int // heap index
}

// topBelow appends to p.top the best `room` rack heads strictly worse than
// best, by a best-first search over the cells' rack heaps: O(room · k)
// nodes instead of every rack. Within a cell the heap's total order
// (key, global score, rack) makes the result independent of heap shape;
// across cells, ties go to the earlier selected cell.
func (p *Protean) topBelow(sel []*cell, best *rackHead, room int) {
	fr := p.frontier[:0]
	for ci, cl := range sel {
		if len(cl.heap) > 0 {
			fr = append(fr, frontierNode{ci, 0})
		}
	}
	for added := 0; added < room && len(fr) > 0; {
		bi := 0
		for j := 1; j < len(fr); j++ {
			a, b := fr[j], fr[bi]
			ca, cb := sel[a.cell], sel[b.cell]
			ra, rb := ca.heap[a.i], cb.heap[b.i]
			ha, hb := &ca.heads[ra], &cb.heads[rb]
			c := cmpKey(&ha.k, ha.g, &hb.k, hb.g)
			if c < 0 || c == 0 && (a.cell < b.cell || a.cell == b.cell && ra < rb) {
				bi = j
			}
		}
		n := fr[bi]
		fr[bi] = fr[len(fr)-1]
		fr = fr[:len(fr)-1]
		cl := sel[n.cell]
		rl := cl.heap[n.i]
		h := &cl.heads[rl]
		if !h.ok {
			continue // empty racks sort last: nothing below either
		}
		if cmpKey(&h.k, h.g, &best.k, best.g) != 0 {
			p.top = append(p.top, topCand{h.k, h.g, cl.machine(int(rl), 0)})
			added++
		}
		for _, c := range [2]int{2*n.i + 1, 2*n.i + 2} {
			if c < len(cl.heap) {
				fr = append(fr, frontierNode{n.cell, c})
			}
		}
	}
	p.frontier = fr
}

// topFromTies makes the top machines of pickFast: the heads of the tied
// racks in order, then, if fewer than TopK, the best heads strictly below
// them.
func (p *Protean) topFromTies(sel []*cell, ties []tie, best *rackHead) {
	for _, tt := range ties {
		if len(p.top) == p.cfg.TopK {
			break
		}
		h := &tt.cl.heads[tt.rack]
		p.top = append(p.top, topCand{h.k, h.g, tt.cl.machine(tt.rack, 0)})
	}
	if room := p.cfg.TopK - len(p.top); room > 0 {
		p.topBelow(sel, best, room)
	}
}

type topCand struct {
	k key
	g int64
	m int32
}

// mayEnterTop reports whether a head with key k could rank among the
// TopK kept so far (by key alone; the global score only breaks key ties).
func (p *Protean) mayEnterTop(k *key) bool {
	if len(p.top) < p.cfg.TopK {
		return true
	}
	w := &p.top[len(p.top)-1]
	return !w.k.less(k)
}

// offerTop keeps the best TopK rack heads by (key, global score, machine).
// It is not inlined, so that Explanation.offerTop, its nil-safe caller in
// pick's walk, is.
//
//go:noinline
func (p *Protean) offerTop(m int32, k *key, g int64) {
	insertTop(&p.top, p.cfg.TopK, topCand{*k, g, m})
}

// insertTop inserts c into the sorted list if it ranks among the best limit.
func insertTop(list *[]topCand, limit int, c topCand) {
	less := func(a, b *topCand) bool {
		if x := cmpKey(&a.k, a.g, &b.k, b.g); x != 0 {
			return x < 0
		}
		return a.m < b.m
	}
	l := *list
	if len(l) >= limit && (limit == 0 || !less(&c, &l[len(l)-1])) {
		return
	}
	i := len(l)
	for i > 0 && less(&c, &l[i-1]) {
		i--
	}
	l = slices.Insert(l, i, c)
	if len(l) > limit {
		l = l[:limit]
	}
	*list = l
}

// topScored turns the kept top candidates into Scored records, scores
// named by rule (the preference rules, then the global rule).
func (p *Protean) topScored(npref int) []Scored {
	out := make([]Scored, len(p.top))
	all := make([]RuleScore, len(p.top)*len(p.prefOrder))
	for i, c := range p.top {
		sc := all[i*len(p.prefOrder) : (i+1)*len(p.prefOrder) : (i+1)*len(p.prefOrder)]
		for j := 0; j < npref; j++ {
			sc[j] = RuleScore{p.prefOrder[j], int64(c.k[j])}
		}
		if npref < len(sc) {
			sc[npref] = RuleScore{p.prefOrder[npref], c.g}
		}
		out[i] = Scored{Machine: c.m, Scores: sc}
	}
	return out
}

// explainPrefs counts the candidates the request validators removed, then
// those left after each preference rule — the valid machines whose first n
// scores equal the best machine's, read from the cells' prefix counts —
// and after the global rule (the tied best). It feeds RuleStats on every
// request (a few prefix-count lookups per selected cluster) and the
// explanation (a no-op when ex is nil).
func (p *Protean) explainPrefs(sel []*cell, best *key, tied int, ex *Explanation, reqRej *[maxValidators]int) {
	npref := len(p.rules.Preferences)
	var after [maxPrefs + 1]int // the preference rules', then the global rule's
	valid := 0
	for _, cl := range sel {
		valid += int(cl.valid)
		for n := 0; n < npref; n++ {
			after[n] += int(cl.prefix[n].get(truncated(*best, n+1)))
		}
	}
	prev := valid
	bfValid := valid
	for i, name := range p.names.request {
		p.stat(p.statAt.request+i, prev, reqRej[i])
		prev -= reqRej[i]
		if name != RuleTenantAntiColocation {
			bfValid -= reqRej[i]
		}
	}
	ex.requestRejected(p.names.request, reqRej[:len(p.names.request)])
	for i, name := range p.prefOrder[:npref] {
		p.stat(p.statAt.prefs+i, prev, prev-after[i])
		prev = after[i]
		if !p.muteStats && bfValid > 0 && name == RuleBestFit {
			p.postBF.Sum += float64(after[i]) / float64(bfValid)
			p.postBF.N++
		}
	}
	if p.rules.Global != nil {
		after[npref] = tied
		p.stat(p.statAt.global, prev, prev-tied)
	}
	ex.leftAfter(p.prefOrder, after[:len(p.prefOrder)])
}

package optimizer

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Rules is the ordered rule set of the engine: validators filter, preferences
// rank with strict priority in the order given, the global rule ranks racks
// last, request validators (tenant-dependent) apply at pick time.
type Rules struct {
	ClusterValidators  []ClusterValidator
	ClusterPreferences []ClusterPreference
	Validators         []MachineValidatorRule
	Preferences        []MachinePreferenceRule
	Global             GlobalRule // may be nil
	Request            []RequestValidator
}

// DefaultRules is the rule set of §3.2–3.3 and the slides: clusters must
// support the VM type, be below their buffer limit and healthy, and are
// ranked emptier first; machines must have the resources, be healthy and
// respect isolation; they are ranked non-empty first, then by best fit,
// then by the least used rack; tenant anti-colocation applies at pick time.
func DefaultRules() Rules {
	return Rules{
		ClusterValidators:  []ClusterValidator{IsTypeSupported{}, IsClusterHealthy{}, IsClusterBelowLimit{}},
		ClusterPreferences: []ClusterPreference{PreferEmptierClusters{}},
		Validators:         []MachineValidatorRule{IsMachineHealthy{}, RequireIsolation{}, AreNodeResourcesValid{}},
		Preferences:        []MachinePreferenceRule{PreferNonEmptyMachines{}, BestFit{}},
		Global:             RackBalance{},
		Request:            []RequestValidator{TenantAntiColocation{}},
	}
}

// RuleStats aggregates how aggressive a rule is (§3.4): over all requests
// it saw, how many candidates it was given and how many it removed.
type RuleStats struct {
	Rule       string `json:"rule"`
	Level      string `json:"level"`
	Requests   int64  `json:"requests"`
	Candidates int64  `json:"candidates"`
	Removed    int64  `json:"removed"`
}

type ruleKey struct {
	rule string
	t    Traits
}

type clusterCand struct {
	c     int32
	score [2]int64
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

// Protean is the rule-based allocation agent of §3–§5 with its cache
// hierarchy. It is not safe for concurrent use: one agent, one goroutine.
type Protean struct {
	env      Env
	cfg      Config
	rules    Rules
	rulePool *pool[ruleKey, any]
	evalPool *pool[Traits, *evaluation]
	perRule  map[string]*CacheStats
	cellHits CacheStats
	clock    uint64
	pcg      *rand.PCG
	rng      *rand.Rand
	stats    []RuleStats
	statIdx  map[string]int
	bg       int64
	// scratch buffers reused across requests
	evalTraits []Trait
	cands      []clusterCand
	order      []clusterCand
	sel        []*cell
	ties       []tie
	top        []topCand
	frontier   []frontierNode
	stale      []*evaluation
	// conflict avoidance (§5.3), set by the owning Agent per request
	avoidProb float64
	avoidN0   int
	avoided   bool
	merge     []mergeNode
}

type tie struct {
	cl    *cell
	rack  int
	start int
	n     int
}

var _ Allocator = (*Protean)(nil)

// NewProtean returns an agent over state with the given configuration and
// rules.
func NewProtean(state *State, cfg Config, rules Rules) (*Protean, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(rules.Preferences) > maxPrefs {
		return nil, ErrBadRequest
	}
	if cfg.TopK <= 0 {
		cfg.TopK = DefaultTopK
	}
	if cfg.Oversub != nil {
		state.OversubLimit = cfg.Oversub.MaxOversub
	}
	p := &Protean{cfg: cfg, rules: rules, perRule: map[string]*CacheStats{}, statIdx: map[string]int{}}
	p.env = Env{Inv: state.Inv, State: state, Cfg: &p.cfg}
	p.rulePool = newPool[ruleKey, any](cfg.RulePool, cfg.MaxAge)
	p.evalPool = newPool[Traits, *evaluation](cfg.EvalPool, cfg.MaxAge)
	p.pcg = rand.NewPCG(cfg.Seed, 0)
	// A RuleEvaluation depends only on the traits its rules declare:
	// requests that differ in other traits share it (§5.2.1's equivalence
	// classes applied to the whole evaluation).
	seen := map[Trait]bool{}
	add := func(ts []Trait) {
		for _, x := range ts {
			if !seen[x] {
				seen[x] = true
				p.evalTraits = append(p.evalTraits, x)
			}
		}
	}
	for _, r := range rules.Validators {
		add(r.Traits())
	}
	for _, r := range rules.Preferences {
		add(r.Traits())
	}
	if rules.Global != nil {
		add(rules.Global.Traits())
	}
	p.rng = rand.New(p.pcg)
	for _, r := range rules.ClusterValidators {
		p.addStat(r.Name(), "cluster")
	}
	for _, r := range rules.ClusterPreferences {
		p.addStat(r.Name(), "cluster")
	}
	for _, r := range rules.Validators {
		p.addStat(r.Name(), "machine")
	}
	for _, r := range rules.Request {
		p.addStat(r.Name(), "machine")
	}
	for _, r := range rules.Preferences {
		p.addStat(r.Name(), "machine")
	}
	if rules.Global != nil {
		p.addStat(rules.Global.Name(), "machine")
	}
	return p, nil
}

func (p *Protean) addStat(name, level string) {
	p.statIdx[name] = len(p.stats)
	p.stats = append(p.stats, RuleStats{Rule: name, Level: level})
}

func (p *Protean) stat(name string, in, removed int) {
	s := &p.stats[p.statIdx[name]]
	s.Requests++
	s.Candidates += int64(in)
	s.Removed += int64(removed)
}

// Name is "protean".
func (p *Protean) Name() string { return "protean" }

// State is the agent's view.
func (p *Protean) State() *State { return p.env.State }

// Config returns the agent's configuration.
func (p *Protean) Config() Config { return p.cfg }

// RuleStats returns per-rule aggressiveness so far.
func (p *Protean) RuleStats() []RuleStats { return slices.Clone(p.stats) }

// CacheStats returns hits and misses per cache class: "RuleEvaluation",
// "Cell" (a RuleEvaluation's per-cluster state), and one entry per rule type.
func (p *Protean) CacheStats() map[string]CacheStats {
	out := map[string]CacheStats{"RuleEvaluation": p.evalPool.Stats, "Cell": p.cellHits}
	for k, v := range p.perRule {
		out[k] = *v
	}
	return out
}

// BackgroundUpdates is how many cells Refresh brought up to date.
func (p *Protean) BackgroundUpdates() int64 { return p.bg }

// Refresh brings up to maxEvals cached evaluations (0: all) up to date
// from the journal, most recently used first, as an idle agent does
// (§5.2.4 background updates), and drops objects past their age. It
// returns the cells updated.
func (p *Protean) Refresh(maxEvals int) int {
	if !p.cfg.Cache {
		return 0
	}
	p.rulePool.expire(p.clock)
	p.evalPool.expire(p.clock)
	evals := p.stale[:0]
	p.evalPool.each(func(e *evaluation) { evals = append(evals, e) })
	// Stalest first: the most recently used evaluations are fresh already.
	slices.SortStableFunc(evals, func(a, b *evaluation) int { return cmp.Compare(a.fresh, b.fresh) })
	if maxEvals > 0 && len(evals) > maxEvals {
		evals = evals[:maxEvals]
	}
	n := 0
	for _, e := range evals {
		n += e.refresh(&p.env)
		e.fresh = p.clock
	}
	p.stale = evals[:0]
	p.bg += int64(n)
	return n
}

// ruleObject returns the cached object of a rule for a trait class.
func (p *Protean) ruleObject(r Rule, t Traits, mk func(Traits) any) any {
	pt := t.project(r.Traits())
	if !p.cfg.Cache {
		return mk(pt)
	}
	st := p.perRule[r.Name()]
	if st == nil {
		st = &CacheStats{}
		p.perRule[r.Name()] = st
	}
	obj, hit := p.rulePool.get(ruleKey{r.Name(), pt}, p.clock, func() any { return mk(pt) })
	if hit {
		st.Hits++
	} else {
		st.Misses++
	}
	return obj
}

// evaluation returns the RuleEvaluation for trait vector t: cached, or new
// (always new with the cache off).
func (p *Protean) evaluation(t Traits) *evaluation {
	pt := t.project(p.evalTraits)
	mk := func() *evaluation {
		vs := make([]MachineValidator, len(p.rules.Validators))
		for i, r := range p.rules.Validators {
			r := r
			vs[i] = p.ruleObject(r, pt, func(rt Traits) any { return r.NewValidator(&p.env, rt) }).(MachineValidator)
		}
		ps := make([]MachinePreference, len(p.rules.Preferences))
		for i, r := range p.rules.Preferences {
			r := r
			ps[i] = p.ruleObject(r, pt, func(rt Traits) any { return r.NewPreference(&p.env, rt) }).(MachinePreference)
		}
		return newEvaluation(pt, vs, ps, p.rules.Global, len(p.env.Inv.Clusters))
	}
	if !p.cfg.Cache {
		return mk()
	}
	e, _ := p.evalPool.get(pt, p.clock, mk)
	e.fresh = p.clock
	return e
}

// Allocate runs Algorithm 1: ORDER the VMs, assign each to a machine in
// turn on the agent's view, and commit all or roll back.
func (p *Protean) Allocate(req *Request) Decision {
	p.clock++
	d := Decision{Request: req.ID}
	if len(req.VMs) == 0 {
		d.Reason = ReasonEmptyRequest
		return d
	}
	kind := req.Kind
	if kind == KindAuto {
		kind = KindNew
		if p.env.State.TenantVMs(req.Tenant) > 0 {
			kind = KindScaleOut
		}
	}
	p.pcg.Seed(p.cfg.Seed, uint64(req.ID))
	for _, v := range orderVMs(p.env.Inv, req.VMs) {
		if v.Type < 0 || int(v.Type) >= len(p.env.Inv.Types) {
			p.rollback(&d)
			d.FailedVM, d.Reason = v.ID, ReasonBadType
			return d
		}
		var ex *Explanation
		if p.cfg.Explain {
			if d.Explain == nil {
				d.Explain = make([]Explanation, 0, len(req.VMs))
			}
			d.Explain = append(d.Explain, p.newExplanation(v.ID))
			ex = &d.Explain[len(d.Explain)-1]
		}
		m, reason := p.assign(req, kind, v, ex)
		var evicted []Placement
		if m < 0 && p.cfg.Evict && req.Priority == 0 {
			m, evicted = evictFor(&p.env, p.rules, req, kind, v)
		}
		if m < 0 {
			p.rollback(&d)
			d.FailedVM, d.Reason = v.ID, reason
			return d
		}
		if ex != nil {
			ex.Chosen, ex.Evicted = m, len(evicted)
		}
		d.Evicted = append(d.Evicted, evicted...)
		pl := placementFor(p.env.Inv, req, v, m)
		p.env.State.Place(pl)
		d.Placements = append(d.Placements, pl)
		d.Avoided = d.Avoided || p.avoided
	}
	d.OK = true
	return d
}

// setAvoidance turns the conflict-avoidance scheme on for the next requests
// with probability prob of picking among the top n0 machines.
func (p *Protean) setAvoidance(prob float64, n0 int) {
	p.avoidProb, p.avoidN0 = prob, n0
}

// newExplanation returns an explanation whose slices share one backing
// array each, sized for the rule set (one allocation instead of several).
func (p *Protean) newExplanation(vm VMID) Explanation {
	ncv, nv, nr, np := len(p.rules.ClusterValidators), len(p.rules.Validators), len(p.rules.Request), len(p.rules.Preferences)+1
	rc := make([]RuleCount, 0, ncv+nv+nr+np)
	return Explanation{VM: vm, Chosen: -1,
		ClusterRejected: rc[0:0:ncv],
		Rejected:        rc[ncv : ncv : ncv+nv+nr],
		AfterPrefs:      rc[ncv+nv+nr : ncv+nv+nr : ncv+nv+nr+np],
		Selected:        make([]int32, 0, p.cfg.K),
	}
}

// rollback undoes the tentative placements of a failed request; evicted
// VMs stay evicted only if the request succeeds, so they are restored.
func (p *Protean) rollback(d *Decision) {
	for i := len(d.Placements) - 1; i >= 0; i-- {
		p.env.State.Remove(d.Placements[i].VM)
	}
	for _, e := range d.Evicted {
		p.env.State.Place(e)
	}
	d.Placements, d.Evicted = nil, nil
}

// Release removes a departing VM.
func (p *Protean) Release(vm VMID) bool {
	_, ok := p.env.State.Remove(vm)
	return ok
}

func placementFor(inv *Inventory, req *Request, v VMRequest, m int32) Placement {
	d, _ := inv.Demand(v.Type, m)
	return Placement{VM: v.ID, Machine: m, Type: v.Type, Tenant: req.Tenant, Priority: req.Priority, Demand: d, Exclusive: req.Isolation,
		Production: req.Production, PredUtil: PredictedCores(req.UtilBucket, d[Cores])}
}

// orderVMs is ORDER of Algorithm 1: the largest VMs first (by their largest
// demand share on any SKU), so the VMs with the fewest candidate machines
// pick before the tenant's fault-domain budget is spent; ties keep request
// order.
func orderVMs(inv *Inventory, vms []VMRequest) []VMRequest {
	if len(vms) < 2 {
		return vms
	}
	size := func(v VMRequest) float64 {
		if v.Type < 0 || int(v.Type) >= len(inv.Types) {
			return 0
		}
		best := 0.0
		for s, d := range inv.Types[v.Type].Demand {
			c := inv.SKUs[s].Capacity
			for i := range d {
				if c[i] > 0 && d[i]/c[i] > best {
					best = d[i] / c[i]
				}
			}
		}
		return best
	}
	out := slices.Clone(vms)
	slices.SortStableFunc(out, func(a, b VMRequest) int {
		sa, sb := size(a), size(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return out
}

// assign is ASSIGN_MACHINE_TO_VM: cluster selection, then machine selection
// over the k best clusters, then a seeded random pick among the best. It
// returns the machine, or -1 and the rule that emptied the candidate set.
func (p *Protean) assign(req *Request, kind RequestKind, v VMRequest, ex *Explanation) (int32, string) {
	env := &p.env
	inv := env.Inv
	t := req.traits(v)

	// Rank every cluster by the cluster preferences. The order of the
	// previous request is kept and re-sorted by insertion: scores move
	// little between requests, so this is O(clusters) rather than a sort.
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
			if j < len(order[i].score) {
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
	// Cluster validators, in order; a cluster is charged to the first that rejects it.
	var crej [8]int
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
	for i, cv := range p.rules.ClusterValidators {
		p.stat(cv.Name(), left, crej[i])
		left -= crej[i]
	}
	if ex != nil {
		ex.Clusters = len(inv.Clusters)
		for i, cv := range p.rules.ClusterValidators {
			ex.ClusterRejected = append(ex.ClusterRejected, RuleCount{cv.Name(), crej[i]})
		}
	}
	if len(cands) == 0 {
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
		return -1, reason
	}

	// Walk clusters best first; keep the first k with a valid machine. If
	// the tenant's anti-colocation bounds leave nothing to pick there, walk
	// on: a request never fails while a feasible machine exists (§3.4).
	e := p.evaluation(t)
	var walkedRej [16]int
	walkedMachines := 0
	nval := len(p.rules.Validators)
	blocked, next := 0, 0
	first := true
	for {
		sel := p.sel[:0]
		for next < len(cands) && len(sel) < p.cfg.K {
			cl, hit := e.cell(env, cands[next].c)
			next++
			if hit {
				p.cellHits.Hits++
			} else {
				p.cellHits.Misses++
			}
			walkedMachines += len(inv.Clusters[cl.cluster].Machines)
			for i, r := range cl.rejected {
				if i < len(walkedRej) {
					walkedRej[i] += int(r)
				}
			}
			if cl.valid == 0 {
				continue
			}
			if req.MaxPerRack > 0 && p.allRacksBlocked(req, cl) {
				blocked++
				continue
			}
			sel = append(sel, cl)
		}
		p.sel = sel
		if first {
			p.explainMachines(sel, ex)
			first = false
		}
		if len(sel) == 0 {
			reason := ReasonNoCluster
			if blocked > 0 {
				reason = TenantAntiColocation{}.Name()
			} else {
				for i := nval - 1; i >= 0; i-- {
					if walkedRej[i] > 0 {
						reason = p.rules.Validators[i].Name()
						break
					}
				}
			}
			if ex != nil {
				// No cluster had a valid machine: explain with every cluster walked.
				ex.FailedRule = reason
				ex.Machines = walkedMachines
				ex.Rejected = ex.Rejected[:0]
				for i := 0; i < nval; i++ {
					ex.Rejected = append(ex.Rejected, RuleCount{p.rules.Validators[i].Name(), walkedRej[i]})
				}
			}
			return -1, reason
		}
		if p.cfg.Safety && req.Priority > 0 && len(p.cfg.ArrivalRates) > 0 {
			if m := p.pickSafe(req, t, sel); m >= 0 {
				if ex != nil {
					ex.FailedRule = ""
				}
				return m, ""
			}
		}
		if m, reason := p.pick(req, t, sel, ex); m >= 0 || next == len(cands) {
			return m, reason
		}
		if ex != nil {
			ex.FailedRule, ex.Top, ex.AfterPrefs = "", nil, nil
			ex.Rejected = ex.Rejected[:nval]
		}
	}
}

// explainMachines records the machine level of the first selection.
func (p *Protean) explainMachines(sel []*cell, ex *Explanation) {
	inv := p.env.Inv
	nval := len(p.rules.Validators)
	machines := 0
	var rej [16]int
	for _, cl := range sel {
		machines += len(inv.Clusters[cl.cluster].Machines)
		for i, r := range cl.rejected {
			rej[i] += int(r)
		}
	}
	left := machines
	for i := 0; i < nval; i++ {
		p.stat(p.rules.Validators[i].Name(), left, rej[i])
		left -= rej[i]
	}
	if ex == nil {
		return
	}
	ex.Machines = machines
	ex.Selected = ex.Selected[:0]
	for _, cl := range sel {
		ex.Selected = append(ex.Selected, cl.cluster)
	}
	ex.Rejected = ex.Rejected[:0]
	for i := 0; i < nval; i++ {
		ex.Rejected = append(ex.Rejected, RuleCount{p.rules.Validators[i].Name(), rej[i]})
	}
}

func (p *Protean) allRacksBlocked(req *Request, cl *cell) bool {
	for rl, rack := range cl.racks {
		if len(rack) > 0 && !rackBlocked(p.env.State, req, p.env.Inv.Clusters[cl.cluster].Racks[rl]) {
			return false
		}
	}
	return true
}

func (p *Protean) requestValid(req *Request, m int32) bool {
	for _, rv := range p.rules.Request {
		if rv.Applies(req) && !rv.ValidFor(&p.env, req, m) {
			return false
		}
	}
	return true
}

func (p *Protean) requestApplies(req *Request) bool {
	for _, rv := range p.rules.Request {
		if rv.Applies(req) {
			return true
		}
	}
	return false
}

// cmpKey compares keys and then global scores: -1, 0 or 1.
func cmpKey(a *key, ga int64, b *key, gb int64) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case ga < gb:
		return -1
	case ga > gb:
		return 1
	}
	return 0
}

// pick finds the best machines across the racks of the selected clusters:
// each rack's sorted list gives its best machine, racks compare by that
// machine's key and then the global rule (§5.2.5, N_c log N_c with N_c the
// racks), and one of the tied best is picked at random, seeded by the run
// seed and the request id.
func (p *Protean) pick(req *Request, t Traits, sel []*cell, ex *Explanation) (int32, string) {
	env := &p.env
	inv := env.Inv
	npref := len(p.rules.Preferences)
	global := p.rules.Global
	needReq := p.requestApplies(req)
	if !needReq {
		return p.pickFast(sel, ex)
	}
	var best key
	var bestG int64
	found := false
	ties := p.ties[:0]
	reqRejected := 0
	p.top = p.top[:0]
	for _, cl := range sel {
		racks := inv.Clusters[cl.cluster].Racks
		for rl, rack := range cl.racks {
			if len(rack) == 0 {
				continue
			}
			r := racks[rl]
			h := 0
			if needReq {
				if rackBlocked(env.State, req, r) {
					reqRejected += len(rack)
					continue
				}
				for h < len(rack) && !p.requestValid(req, rack[h].m) {
					h++
				}
				reqRejected += h
				if h == len(rack) {
					continue
				}
			}
			hk := &rack[h].k
			// Without the global score, a head worse than the best (and than
			// the worst kept top machine) cannot matter: skip it.
			if found && !hk.less(&best) && *hk != best && (ex == nil || !p.mayEnterTop(hk)) {
				continue
			}
			var g int64
			if global != nil {
				g = global.ScoreRack(env, t, r)
			}
			if ex != nil {
				p.offerTop(rack[h].m, hk, g)
			}
			switch c := cmpKey(hk, g, &best, bestG); {
			case !found || c < 0:
				best, bestG, found = *hk, g, true
				ties = append(ties[:0], tie{cl, rl, h, 0})
			case c == 0:
				ties = append(ties, tie{cl, rl, h, 0})
			}
		}
	}
	total := 0
	for i := range ties {
		tt := &ties[i]
		if tt.start == 0 {
			tt.n = tt.cl.headRun(tt.rack, npref)
		} else {
			r := tt.cl.racks[tt.rack]
			tt.n = countPrefix(r[tt.start:], &r[tt.start].k, npref)
		}
		total += tt.n
	}
	p.ties = ties
	if ex != nil {
		p.explainPrefs(sel, &best, total, ex, reqRejected)
		ex.Top = p.topScored(npref)
	}
	if !found {
		name := TenantAntiColocation{}.Name()
		if ex != nil {
			ex.FailedRule = name
		}
		return -1, name
	}
	// Seeded random tie-break among the best; candidates failing a
	// request validator inside a run are skipped by resampling, then by
	// falling back to a run's head (which passed).
	for attempt := 0; attempt < 4; attempt++ {
		i := p.rng.IntN(total)
		for _, tt := range ties {
			if i < tt.n {
				m := tt.cl.racks[tt.rack][tt.start+i].m
				if !needReq || p.requestValid(req, m) {
					return m, ""
				}
				break
			}
			i -= tt.n
		}
	}
	tt := ties[p.rng.IntN(len(ties))]
	return tt.cl.racks[tt.rack][tt.start].m, ""
}

// pickFast is pick for requests without tenant-dependent validators: each
// cell's rack heap gives its best rack in O(1); the tied best racks and the
// top-k are read off the heaps without visiting the other racks.
func (p *Protean) pickFast(sel []*cell, ex *Explanation) (int32, string) {
	p.avoided = false
	if p.avoidProb > 0 && p.avoidN0 > 1 && p.rng.Float64() < p.avoidProb {
		if m, ok := p.pickAvoiding(sel, p.avoidN0); ok {
			p.avoided = true
			return m, ""
		}
	}
	npref := len(p.rules.Preferences)
	var best rackHead
	found := false
	for _, cl := range sel {
		rl := cl.best()
		if rl < 0 {
			continue
		}
		h := &cl.heads[rl]
		if c := cmpKey(&h.k, h.g, &best.k, best.g); !found || c < 0 {
			best, found = *h, true
		}
	}
	ties := p.ties[:0]
	total := 0
	p.top = p.top[:0]
	for _, cl := range sel {
		if !found {
			break
		}
		start := len(ties)
		cl.walk(0, func(rl int32) bool {
			h := &cl.heads[rl]
			if cmpKey(&h.k, h.g, &best.k, best.g) != 0 {
				return false
			}
			n := cl.headRun(int(rl), npref)
			ties = append(ties, tie{cl, int(rl), 0, n})
			total += n
			return true
		})
		// Heap order depends on history; rack order does not: sort so that
		// the seeded pick is the same with the cache on or off.
		slices.SortFunc(ties[start:], func(a, b tie) int { return a.rack - b.rack })
	}
	if ex != nil {
		// The top machines: the heads of the tied racks in order, then, if
		// fewer than TopK, the best heads strictly below them.
		for _, tt := range ties {
			if len(p.top) == p.cfg.TopK {
				break
			}
			h := &tt.cl.heads[tt.rack]
			p.top = append(p.top, topCand{h.k, h.g, tt.cl.racks[tt.rack][0].m})
		}
		if room := p.cfg.TopK - len(p.top); room > 0 {
			p.topBelow(sel, &best, room)
		}
	}
	p.ties = ties
	if ex != nil {
		p.explainPrefs(sel, &best.k, total, ex, 0)
		ex.Top = p.topScored(npref)
	}
	if !found {
		return -1, TenantAntiColocation{}.Name()
	}
	i := p.rng.IntN(total)
	for _, tt := range ties {
		if i < tt.n {
			return tt.cl.racks[tt.rack][i].m, ""
		}
		i -= tt.n
	}
	panic("optimizer: tie-break out of range")
}

type mergeNode struct {
	cell, rack, pos int
}

// pickAvoiding is the conflict-avoidance pick of §5.3: a uniformly random
// machine among the top N0 of the selected clusters (by key, then rack
// score), found by merging the racks' sorted lists best first.
func (p *Protean) pickAvoiding(sel []*cell, n0 int) (int32, bool) {
	fr := p.merge[:0]
	for ci, cl := range sel {
		if rl := cl.best(); rl >= 0 {
			fr = append(fr, mergeNode{ci, int(rl), 0})
		}
	}
	// The heap gives each cell's racks in order; a rack enters the merge when
	// its parent in the heap has been reached, so expand heap children too.
	type hk struct{ cell, rack int }
	inHeap := map[hk]bool{}
	for _, n := range fr {
		inHeap[hk{n.cell, n.rack}] = true
	}
	chosen := -1
	seen := 0
	target := p.rng.IntN(n0)
	var pickM int32
	for seen < n0 && len(fr) > 0 {
		bi := 0
		for j := 1; j < len(fr); j++ {
			a, b := fr[j], fr[bi]
			ea := &sel[a.cell].racks[a.rack][a.pos]
			eb := &sel[b.cell].racks[b.rack][b.pos]
			c := cmpKey(&ea.k, sel[a.cell].heads[a.rack].g, &eb.k, sel[b.cell].heads[b.rack].g)
			if c < 0 || c == 0 && (a.cell < b.cell || a.cell == b.cell && (a.rack < b.rack || a.rack == b.rack && a.pos < b.pos)) {
				bi = j
			}
		}
		n := fr[bi]
		fr[bi] = fr[len(fr)-1]
		fr = fr[:len(fr)-1]
		cl := sel[n.cell]
		if seen == target {
			chosen, pickM = seen, cl.racks[n.rack][n.pos].m
		}
		seen++
		if n.pos+1 < len(cl.racks[n.rack]) {
			fr = append(fr, mergeNode{n.cell, n.rack, n.pos + 1})
		}
		if n.pos == 0 {
			i := int(cl.hpos[n.rack])
			for _, c := range [2]int{2*i + 1, 2*i + 2} {
				if c < len(cl.heap) {
					r := int(cl.heap[c])
					if cl.heads[r].ok && !inHeap[hk{n.cell, r}] {
						inHeap[hk{n.cell, r}] = true
						fr = append(fr, mergeNode{n.cell, r, 0})
					}
				}
			}
		}
	}
	p.merge = fr[:0]
	if chosen < 0 {
		if seen == 0 {
			return 0, false
		}
		return p.pickAvoiding(sel, seen) // fewer than n0 candidates: pick among them
	}
	return pickM, true
}

// pickSafe places a low-priority VM by the slides' balancing of packing and
// safety: the valid machines of the selected clusters ordered by packing
// score (BestFitScore), the best TopPct kept, and among them the one with
// the highest SafetyScore (ties: packing, then machine id). It scans the
// candidates (O(machines · types) per VM), so it is an option for
// multi-priority studies, off by default.
func (p *Protean) pickSafe(req *Request, t Traits, sel []*cell) int32 {
	env := &p.env
	inv, s := env.Inv, env.State
	needReq := p.requestApplies(req)
	type cand struct {
		m   int32
		fit float64
	}
	var cands []cand
	var nodes []int32
	for _, cl := range sel {
		nodes = append(nodes, inv.Clusters[cl.cluster].Machines...)
		for _, rack := range cl.racks {
			for _, e := range rack {
				if needReq && !p.requestValid(req, e.m) {
					continue
				}
				d, _ := inv.Demand(t[TraitType], e.m)
				cands = append(cands, cand{e.m, BestFitScore(s.Free(e.m), d, inv.Capacity(e.m), p.cfg.Weights)})
			}
		}
	}
	if len(cands) == 0 {
		return -1
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.fit != b.fit {
			return cmp.Compare(a.fit, b.fit)
		}
		return int(a.m - b.m)
	})
	cands = cands[:topCount(len(cands), p.cfg.TopPct)]
	// Node state of the selected clusters, and the no-eviction slots per type.
	index := make(map[int32]int, len(nodes))
	free := make([]Vec, len(nodes))
	low := make([]Vec, len(nodes))
	for i, m := range nodes {
		index[m] = i
		free[i], low[i] = s.Free(m), s.LowUsed[m]
	}
	rates := p.cfg.ArrivalRates
	demand := make([][]Vec, len(rates))
	slots := make([]int, len(rates))
	for ty, r := range rates {
		if r <= 0 || ty >= len(inv.Types) {
			continue
		}
		demand[ty] = make([]Vec, len(nodes))
		for i, m := range nodes {
			if d, ok := inv.Demand(int32(ty), m); ok {
				demand[ty][i] = d
				slots[ty] += Slots(free[i], d)
			}
		}
	}
	best, bestS := int32(-1), math.Inf(-1)
	for _, c := range cands {
		dx, _ := inv.Demand(t[TraitType], c.m)
		if sc := SafetyScore(index[c.m], dx, free, low, demand, rates, slots); sc > bestS {
			best, bestS = c.m, sc
		}
	}
	return best
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
			p.top = append(p.top, topCand{h.k, h.g, cl.racks[rl][0].m})
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

func (p *Protean) topScored(npref int) []Scored {
	out := make([]Scored, len(p.top))
	all := make([]int64, len(p.top)*(npref+1))
	for i, c := range p.top {
		sc := all[i*(npref+1) : (i+1)*(npref+1) : (i+1)*(npref+1)]
		for i := 0; i < npref; i++ {
			sc[i] = int64(c.k[i])
		}
		sc[npref] = c.g
		out[i] = Scored{Machine: c.m, Scores: sc}
	}
	return out
}

// explainPrefs counts the candidates left after each preference rule —
// the valid machines whose first n scores equal the best machine's, read
// from the cells' prefix counts — and after the global rule (the tied best).
func (p *Protean) explainPrefs(sel []*cell, best *key, tied int, ex *Explanation, reqRejected int) {
	npref := len(p.rules.Preferences)
	after := make([]int, npref)
	valid := 0
	for _, cl := range sel {
		valid += int(cl.valid)
		for n := 0; n < npref; n++ {
			after[n] += int(cl.prefix[n][truncated(*best, n+1)])
		}
	}
	for _, rv := range p.rules.Request {
		ex.Rejected = append(ex.Rejected, RuleCount{rv.Name(), reqRejected})
		p.stat(rv.Name(), valid, reqRejected)
	}
	prev := valid - reqRejected
	for i, r := range p.rules.Preferences {
		ex.AfterPrefs = append(ex.AfterPrefs, RuleCount{r.Name(), after[i]})
		p.stat(r.Name(), prev, prev-after[i])
		prev = after[i]
	}
	if p.rules.Global != nil {
		ex.AfterPrefs = append(ex.AfterPrefs, RuleCount{p.rules.Global.Name(), tied})
		p.stat(p.rules.Global.Name(), prev, prev-tied)
	}
}

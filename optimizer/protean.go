package optimizer

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
)

// The Protean engine, stage by stage (after Nomad's scheduler, one stage
// per file):
//
//	rules.go           the rule set (DefaultRules is the registry)
//	protean.go         the engine, its cache hierarchy and background refresh
//	gang.go            Algorithm 1: ORDER, a machine per VM, commit or roll back
//	select_cluster.go  cluster selection: rank by cluster preferences, filter
//	select_machine.go  machine selection over the k best clusters' cells
//	pick.go            the pick among the best (tie-break, avoidance, safety)
//	eviction.go        the eviction fallback (shared with the baselines)
//	explain.go         explanations and rule statistics
//	check.go           the uncached Check every other path decides with

type ruleKey struct {
	rule string
	t    Traits
}

// Protean is the rule-based allocation agent of §3–§5 with its cache
// hierarchy. It is not safe for concurrent use: one agent, one goroutine.
type Protean struct {
	env       Env
	cfg       Config
	rules     Rules
	prefOrder []string // Rules.PreferenceOrder, shared by every explanation
	names     ruleNames
	cluster   clusterRules // how cluster selection evaluates the cluster rules (initClusterRules)
	rulePool  *pool[ruleKey, any]
	evalPool  *pool[Traits, *evaluation]
	tabs      *statusTables // the cached evaluations' machine statuses
	perRule   map[string]*CacheStats
	cellHits  CacheStats
	clock     uint64
	pcg       *rand.PCG
	rng       *rand.Rand
	stats     []RuleStats
	statAt    statIndex
	postBF    PostBestFit
	bg        int64
	// bgUpdates and decisionUpdates are CellUpdates', idleNs IdleUpkeep's,
	// outcomes CellUpdateOutcomes'.
	bgUpdates, decisionUpdates int64
	idleNs                     int64
	outcomes                   UpdateOutcomes
	// scratch buffers reused across requests
	evalTraits []Trait
	cands      []int32
	typeIn     [][]bool // per VM type: typeClusters
	// order is cluster selection's ranking of the previous request and
	// clusterScore the clusters' preference scores (rankClusters); ranked
	// says whether they are current but for the clusters whose score
	// moved since, moved and movedList its scratch; verdicts are the
	// cluster validators' cached verdicts per VM type (clusterVerdict).
	order        []int32
	clusterScore []clusterScores
	ranked       bool
	moved        []bool
	movedList    []int32
	verdicts     []*clusterVerdictOf
	// for tests: cluster selections made from a cached verdict
	staticSelections int
	sel              []*cell
	ties             []tie
	top              []topCand
	frontier         []frontierNode
	stale            []*evaluation
	reqApply         []int // indices of the request validators that apply to the current request
	walked           []walkedRack
	inRack           []func(int32) bool // per applying request validator: its prepared in-rack predicate, or nil
	onRack           []func(int32) bool // ... and its prepared rack predicate, or nil
	valid            []int32            // pickSampled's scratch
	rackSeen         []uint32           // pickStamp of the racks pick walked
	pickStamp        uint32
	muteStats        bool     // an explanation-only walk: stat records nothing
	tieGen           []uint32 // per rack: the pickWalk generation that marked it tied
	tieAt            []int32  // ... and its first valid machine's index in the rack
	gen              uint32
	// Refresh's: per cluster the journal's head at the last refresh, the
	// refreshes so far plus one, and the clusters that moved since
	refreshHeads  []Cursor
	refreshCall   uint64
	movedClusters []int32
	// shapeOf maps a VM type to the first type of its shape when every
	// rule reads types by shape (TypeByShape); nil otherwise
	shapeOf []int32
	// conflict avoidance (§5.3), set by the owning Agent per request
	avoidProb float64
	avoidN0   int
	avoided   bool
	merge     []mergeNode
}

var _ Allocator = (*Protean)(nil)

// NewProtean returns an agent over state with the given configuration and
// rules.
func NewProtean(state *State, cfg Config, rules Rules) (*Protean, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if cfg.TopK <= 0 {
		cfg.TopK = DefaultTopK
	}
	if cfg.Oversub != nil {
		state.OversubLimit = cfg.Oversub.MaxOversub
	}
	p := &Protean{cfg: cfg, rules: rules, prefOrder: rules.PreferenceOrder(), perRule: map[string]*CacheStats{}}
	p.env = Env{Inv: state.Inv, State: state, Cfg: &p.cfg}
	p.cluster = initClusterRules(&rules)
	p.rulePool = newPool[ruleKey, any](cfg.RulePool, cfg.MaxAge)
	p.evalPool = newPool[Traits, *evaluation](cfg.EvalPool, cfg.MaxAge)
	p.tabs = newStatusTables(state.Inv)
	p.evalPool.onRemove = func(e *evaluation) { p.tabs.release(e.slot, p.clock) }
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
	if cfg.Cache && slices.Contains(p.evalTraits, TraitType) && rules.typeByShape() {
		p.shapeOf = typeShapes(state.Inv)
	}
	p.rng = rand.New(p.pcg)
	p.initStats()
	return p, nil
}

// typeByShape reports whether every rule that declares TraitType reads the
// type only through its shape (TypeByShape).
func (r *Rules) typeByShape() bool {
	var rules []Rule
	for _, v := range r.Validators {
		rules = append(rules, v)
	}
	for _, p := range r.Preferences {
		rules = append(rules, p)
	}
	if r.Global != nil {
		rules = append(rules, r.Global)
	}
	for _, x := range rules {
		if !slices.Contains(x.Traits(), TraitType) {
			continue
		}
		if s, ok := x.(TypeByShape); !ok || !s.TypeByShape() {
			return false
		}
	}
	return true
}

// typeShapes maps each VM type of inv to the first type of its shape:
// the same demand on every SKU (bit for bit) and the same supported SKUs.
// Types are keyed by their shape's bytes, so a catalog of many types (a
// Kubernetes cluster's pod shapes) costs one pass.
func typeShapes(inv *Inventory) []int32 {
	out := make([]int32, len(inv.Types))
	first := make(map[string]int32, len(inv.Types))
	var b []byte
	for t := range inv.Types {
		ty := &inv.Types[t]
		b = b[:0]
		for s, d := range ty.Demand {
			for _, x := range d {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
			if s < len(ty.Supported) && ty.Supported[s] {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ty.Supported)))
		u, ok := first[string(b)]
		if !ok {
			u = int32(t)
			first[string(b)] = u
		}
		out[t] = u
	}
	return out
}

// Name is "protean".
func (p *Protean) Name() string { return "protean" }

// State is the agent's view.
func (p *Protean) State() *State { return p.env.State }

// Config returns the agent's configuration.
func (p *Protean) Config() Config { return p.cfg }

// RuleStats returns per-rule aggressiveness so far.
func (p *Protean) RuleStats() []RuleStats { return slices.Clone(p.stats) }

// PostBestFit returns the post-BestFit shares recorded so far (whether or
// not explanations are on; see PostBestFit).
func (p *Protean) PostBestFit() PostBestFit { return p.postBF }

// CacheStats returns hits and misses per cache class: "RuleEvaluation",
// "Cell" (a RuleEvaluation's per-cluster state), and one entry per rule type.
func (p *Protean) CacheStats() map[string]CacheStats {
	out := map[string]CacheStats{"RuleEvaluation": p.evalPool.Stats, "Cell": p.cellHits}
	for k, v := range p.perRule {
		out[k] = *v
	}
	return out
}

// BackgroundUpdates is how many cells Refresh marked as brought up to
// date (see Refresh).
func (p *Protean) BackgroundUpdates() int64 { return p.bg }

// CellUpdates counts the cache's upkeep in machines: a cell update is one
// changed machine re-evaluated, and repositioned when its key moved, in one
// cell (an evaluation's state for one cluster). background counts those a
// background refresh owed (a decision applies them, up to the cell's
// refresh mark: see Refresh), decision those a decision owed itself (the
// changes since the mark, or since the cell was last read). A machine that
// changed several times between two updates of a cell is updated once; a
// cell rebuilt from scratch (a miss: new, or fallen behind the journal's
// log) counts none. Their sum over the machine changes (State.Journal.Rev)
// is the upkeep per change, whose limit is the number of cells holding the
// changed machine.
func (p *Protean) CellUpdates() (background, decision int64) { return p.bgUpdates, p.decisionUpdates }

// CellUpdateOutcomes splits the cell updates (both accounts of CellUpdates)
// by what the re-evaluation found.
func (p *Protean) CellUpdateOutcomes() UpdateOutcomes { return p.outcomes }

// IdleUpkeep is the time, in nanoseconds since the agent was made, that
// decisions spent applying the background refresh's share of the upkeep
// (CellUpdates' background): work the modelled agent does while idle
// (§5.2.4), so a decision's latency leaves it out (the replay and the
// allocator bench subtract it from the time Allocate took) while every
// wall time and throughput keeps it.
func (p *Protean) IdleUpkeep() int64 { return p.idleNs }

// RefreshAge is how many requests after its last use an evaluation stays
// in the background refresh (§5.2.4): past it, Refresh skips the
// evaluation, which catches up from the journal (or rebuilds, when the
// journal dropped what it missed) when a request next uses it, as its
// decision's own work. 512 keeps the decision latency p99 of refreshing
// every evaluation while skipping the rarely used ones; `placelab bench
// allocator` at 30,000 machines measured 64 (p99 ×2) and 1024–∞ (more
// refresh, same p99) beside it, when Refresh still applied the changes
// at once (the cells a decision reads, and so its latency, are the same
// now).
const RefreshAge = 512

// Refresh is the background refresh of an idle agent (§5.2.4): it brings
// up to maxEvals cached evaluations (0: all) used within the last
// RefreshAge requests up to date with the journal, the stalest first, and
// drops objects past their age. It returns the cells it brought up to
// date.
//
// A cell is brought up to date lazily: Refresh marks it with the
// journal's head (cell.mark), and the next decision that reads the cell
// applies the changes up to the mark, on the background's account
// (CellUpdates' background, IdleUpkeep), before its own changes since.
// The cell a decision reads is the same as if Refresh had applied the
// changes at once — a cell's end state does not depend on when its
// changes are applied — but a machine changed again before the read is
// re-evaluated once, not once per refresh, and a cell no decision reads
// again costs nothing. A marked cell that falls behind the journal's log
// before it is read is rebuilt by the decision, on its own account.
func (p *Protean) Refresh(maxEvals int) int {
	if !p.cfg.Cache {
		return 0
	}
	p.rulePool.expire(p.clock)
	p.evalPool.expire(p.clock)
	evals := p.stale[:0]
	p.evalPool.each(func(e *evaluation) {
		// An evaluation no request used within RefreshAge requests is
		// left alone: it catches up from the journal (or rebuilds) when a
		// request uses it again.
		if p.clock-e.used <= RefreshAge {
			evals = append(evals, e)
		}
	})
	if maxEvals > 0 && len(evals) > maxEvals {
		// Stalest first: the most recently used evaluations are fresh
		// already.
		slices.SortStableFunc(evals, func(a, b *evaluation) int { return cmp.Compare(a.fresh, b.fresh) })
		evals = evals[:maxEvals]
	}
	j := p.env.State.Journal
	if len(p.refreshHeads) != len(p.env.Inv.Clusters) {
		p.refreshHeads = make([]Cursor, len(p.env.Inv.Clusters))
		p.refreshCall = 1 // no evaluation was refreshed at call 0
	}
	// The clusters whose journal moved since the previous refresh: an
	// evaluation refreshed then has all its cells marked at least there,
	// so only these move its marks; any other evaluation's cells are all
	// marked.
	moved := p.movedClusters[:0]
	for c := range p.refreshHeads {
		if h := j.Head(int32(c)); h != p.refreshHeads[c] {
			p.refreshHeads[c] = h
			moved = append(moved, int32(c))
		}
	}
	p.movedClusters = moved
	n := 0
	mark := func(cl *cell, c int32) {
		if cl != nil && cl.cursor != p.refreshHeads[c] {
			cl.mark = p.refreshHeads[c]
			n++
		}
	}
	for _, e := range evals {
		if e.refreshed == p.refreshCall-1 {
			for _, c := range moved {
				mark(e.cells[c], c)
			}
		} else {
			for c, cl := range e.cells {
				mark(cl, int32(c))
			}
		}
		e.refreshed = p.refreshCall
		e.fresh = p.clock
	}
	p.refreshCall++
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
	if ty := pt[TraitType]; p.shapeOf != nil && int(ty) < len(p.shapeOf) && ty >= 0 {
		// Types of one shape share the evaluation (TypeByShape).
		pt[TraitType] = p.shapeOf[ty]
	}
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
		if !p.cfg.Cache {
			return newEvaluation(pt, vs, ps, p.rules.Global, len(p.env.Inv.Clusters), nil, 0)
		}
		e := newEvaluation(pt, vs, ps, p.rules.Global, len(p.env.Inv.Clusters), p.tabs, p.tabs.alloc(p.clock))
		e.outcomes = &p.outcomes
		return e
	}
	if !p.cfg.Cache {
		return mk()
	}
	e, _ := p.evalPool.get(pt, p.clock, mk)
	e.fresh, e.used = p.clock, p.clock
	return e
}

// setAvoidance turns the conflict-avoidance scheme on for the next requests
// with probability prob of picking among the top n0 machines.
func (p *Protean) setAvoidance(prob float64, n0 int) {
	p.avoidProb, p.avoidN0 = prob, n0
}

// Release removes a departing VM.
func (p *Protean) Release(vm VMID) bool {
	_, ok := p.env.State.Remove(vm)
	return ok
}

package optimizer

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
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
	// bgUpdates and decisionUpdates are CellUpdates'.
	bgUpdates, decisionUpdates int64
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
	// refreshCells' scratch: per cluster the cells to refresh, the
	// clusters with cells, and each refreshing goroutine's own
	byCluster       [][]cellRef
	touchedClusters []int32
	refreshers      [2]refreshScratch
	job             refreshJob
	helper          atomic.Int32 // helperNone, helperIdle, ...
	procs           int          // GOMAXPROCS when the agent was made
	refreshHeads    []Cursor     // per cluster: the journal's head at the last refresh
	refreshCall     uint64       // refreshes so far, plus one
	movedClusters   []int32
	// for tests: parallel refreshes, cells the helper refreshed, and
	// whether the agent waits for the helper to take each job
	parallelRefreshes, helperCells int64
	waitHelper                     bool
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
	p := &Protean{cfg: cfg, rules: rules, prefOrder: rules.PreferenceOrder(), perRule: map[string]*CacheStats{}, procs: runtime.GOMAXPROCS(0)}
	p.env = Env{Inv: state.Inv, State: state, Cfg: &p.cfg}
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

// BackgroundUpdates is how many cells Refresh brought up to date.
func (p *Protean) BackgroundUpdates() int64 { return p.bg }

// CellUpdates counts the cache's upkeep in machines: a cell update is one
// changed machine re-evaluated, and repositioned when its key moved, in one
// cell (an evaluation's state for one cluster). background counts those
// Refresh applied, decision those applied when a decision read a cell
// behind the journal. A machine that changed several times between two
// updates of a cell is updated once; a cell rebuilt from scratch (a miss:
// new, or fallen behind the journal's log) counts none. Their sum over the
// machine changes (State.Journal.Rev) is the upkeep per change, whose
// limit is the number of cells holding the changed machine.
func (p *Protean) CellUpdates() (background, decision int64) { return p.bgUpdates, p.decisionUpdates }

// RefreshAge is how many requests after its last use an evaluation stays
// in the background refresh (§5.2.4): past it, Refresh skips the
// evaluation, which catches up from the journal (or rebuilds, when the
// journal dropped what it missed) when a request next uses it. 512 keeps
// the decision latency p99 of refreshing every evaluation while skipping
// the rarely used ones, whose catch-up the journal deduplicates (each
// changed machine once); `placelab bench allocator` at 30,000 machines
// measured 64 (p99 ×2) and 1024–∞ (more refresh, same p99) beside it.
const RefreshAge = 512

// Refresh brings up to maxEvals cached evaluations (0: all) used within
// the last RefreshAge requests up to date from the journal, the stalest
// first, as an idle agent does (§5.2.4 background updates), and drops
// objects past their age. It returns the cells updated.
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
		// request uses it again, so idle evaluations cost nothing per
		// placement.
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
	// In slot order, the statuses a changed machine's updates read are
	// consecutive in its row of the status tables (statusTable).
	slices.SortFunc(evals, func(a, b *evaluation) int { return cmp.Compare(a.slot, b.slot) })
	n := p.refreshCells(evals)
	for _, e := range evals {
		e.fresh = p.clock
	}
	p.stale = evals[:0]
	p.bg += int64(n)
	return n
}

// rackScoreMoved reports whether the global rule's score of rack rl
// (cluster-local) differs from the score the group's cells hold, read
// from the first cell whose rack has a valid machine (a rack with none
// holds no score, and stays so unless its entries change).
func (p *Protean) rackScoreMoved(group []cellRef, rl int) bool {
	for _, r := range group {
		if h := &r.cl.heads[rl]; h.ok {
			return p.rules.Global.ScoreRack(&p.env, r.e.traits, p.env.Inv.Clusters[r.cl.cluster].Racks[rl]) != h.g
		}
	}
	return false
}

// cellRef is a cell with the evaluation that owns it.
type cellRef struct {
	e  *evaluation
	cl *cell
}

// refreshScratch is one refreshing goroutine's scratch: a cursor group and
// the rest, and the racks whose shared global score may have moved.
type refreshScratch struct {
	// updates counts machine re-evaluations in cells (cell updates: see
	// Protean.CellUpdates) since the agent last collected them.
	updates     int64
	group, rest []cellRef
	scoreRacks  []int32
	rackStamp   []uint32 // per cluster-local rack: stamp when listed in scoreRacks
	stamp       uint32
}

// parallelRefreshMin is the work (cells × journal entries pending) from
// which refreshCells splits the changed clusters between two goroutines:
// below it, starting the second one costs more than it saves.
const parallelRefreshMin = 32

// refreshCells brings the cells of evals up to date, machine-major: the
// cells of one cluster that wait at the same journal position read the
// changes once, and each changed machine is re-evaluated in all of them in
// turn, while its inventory row, its state and its row of the status
// tables are in cache. A cell's end state does not depend on the order
// its changes are applied in (its racks are sorted by a total order and
// its heads recomputed once at the end), so this equals each evaluation
// catching up alone. It returns the cells updated.
//
// Clusters are independent (a cell, its status table and its journal log
// belong to one cluster), so with enough work and more than one processor
// two goroutines share the changed clusters, each cluster refreshed whole
// by one of them: rules are read concurrently then (MachineValidator,
// MachinePreference and GlobalRule say so), the state is not written, and
// the result is the same as one goroutine's.
func (p *Protean) refreshCells(evals []*evaluation) int {
	env := &p.env
	j := env.State.Journal
	if len(p.byCluster) != len(env.Inv.Clusters) {
		p.byCluster = make([][]cellRef, len(env.Inv.Clusters))
	}
	touched := p.touchedClusters[:0]
	n, work := 0, 0
	// The clusters whose journal moved since the previous refresh: an
	// evaluation refreshed then has all its cells at least there, so only
	// these can hold its pending changes; any other evaluation's cells are
	// all looked at.
	if len(p.refreshHeads) != len(env.Inv.Clusters) {
		p.refreshHeads = make([]Cursor, len(env.Inv.Clusters))
		p.refreshCall = 1 // no evaluation was refreshed at call 0
	}
	moved := p.movedClusters[:0]
	for c := range p.refreshHeads {
		if h := j.Head(int32(c)); h != p.refreshHeads[c] {
			p.refreshHeads[c] = h
			moved = append(moved, int32(c))
		}
	}
	p.movedClusters = moved
	list := func(e *evaluation, c int32) {
		cl := e.cells[c]
		if cl == nil {
			return
		}
		pending := j.Pending(c, cl.cursor)
		switch pending {
		case 0:
			return
		case -1: // fell behind the journal: rebuild alone
			e.cell(env, c)
			n++
			return
		}
		if len(p.byCluster[c]) == 0 {
			touched = append(touched, c)
		}
		p.byCluster[c] = append(p.byCluster[c], cellRef{e, cl})
		work += pending
	}
	for _, e := range evals {
		if e.refreshed == p.refreshCall-1 {
			for _, c := range moved {
				list(e, c)
			}
		} else {
			for c := range e.cells {
				list(e, int32(c))
			}
		}
		e.refreshed = p.refreshCall
	}
	p.refreshCall++
	if work < parallelRefreshMin || len(touched) < 2 || p.procs < 2 {
		for _, c := range touched {
			n += p.refreshCluster(&p.refreshers[0], c)
		}
	} else {
		job := &p.job
		job.touched = touched
		job.next.Store(0)
		job.cells = 0
		if !p.helper.CompareAndSwap(helperIdle, helperJob) {
			// No helper lingers: start one.
			p.helper.Store(helperJob)
			go p.helpRefresh()
		}
		p.parallelRefreshes++
		if p.waitHelper {
			for p.helper.Load() == helperJob {
				runtime.Gosched()
			}
		}
		n += p.takeClusters(&p.refreshers[0])
		// A helper that has not taken the job by now never will.
		if !p.helper.CompareAndSwap(helperJob, helperIdle) {
			for p.helper.Load() == helperBusy {
				runtime.Gosched()
			}
			n += job.cells
			p.helperCells += int64(job.cells)
		}
		job.touched = nil
	}
	p.touchedClusters = touched[:0]
	// The helper, if it took the job, is done with its scratch.
	for i := range p.refreshers {
		p.bgUpdates += p.refreshers[i].updates
		p.refreshers[i].updates = 0
	}
	return n
}

// A parallel refresh's second goroutine, the helper, lingers for
// helperLinger after its last job, spinning, so that the next refresh
// hands it work without the latency of starting a goroutine; then it ends.
// Its states:
const (
	helperNone int32 = iota // no helper goroutine
	helperIdle              // lingering, waiting for a job
	helperJob               // a job posted
	helperBusy              // working on it
)

const helperLinger = 200 * time.Microsecond

// refreshJob is the changed clusters of one parallel refresh, taken in
// turn by the agent and its helper (next), and the cells the helper
// refreshed.
type refreshJob struct {
	touched []int32
	next    atomic.Int32
	cells   int
}

// takeClusters refreshes the job's clusters not yet taken, one at a time,
// and returns the cells it refreshed.
func (p *Protean) takeClusters(w *refreshScratch) (cells int) {
	job := &p.job
	for {
		i := int(job.next.Add(1)) - 1
		if i >= len(job.touched) {
			return cells
		}
		cells += p.refreshCluster(w, job.touched[i])
	}
}

// helpRefresh is the helper goroutine: it takes posted jobs until it has
// lingered helperLinger without one.
func (p *Protean) helpRefresh() {
	idle := time.Now()
	for {
		if p.helper.CompareAndSwap(helperJob, helperBusy) {
			p.job.cells = p.takeClusters(&p.refreshers[1])
			p.helper.Store(helperIdle)
			idle = time.Now()
			continue
		}
		if time.Since(idle) > helperLinger && p.helper.CompareAndSwap(helperIdle, helperNone) {
			return
		}
		runtime.Gosched()
	}
}

// refreshCluster brings the cells listed for cluster c (byCluster[c]) up
// to date with w's scratch, empties the list and returns its length.
func (p *Protean) refreshCluster(w *refreshScratch, c int32) int {
	env := &p.env
	j := env.State.Journal
	inv := env.Inv
	global := p.rules.Global
	shared := global != nil && len(global.Traits()) == 0
	if w.rackStamp == nil {
		maxRacks := 0
		for c := range inv.Clusters {
			maxRacks = max(maxRacks, len(inv.Clusters[c].Racks))
		}
		w.rackStamp = make([]uint32, maxRacks)
		w.stamp = 1
	}
	refs := p.byCluster[c]
	n := len(refs)
	// Cells at one cursor form a group (usually all of them).
	for len(refs) > 0 {
		pos := refs[0].cl.cursor
		group, rest := w.group[:0], w.rest[:0]
		for _, r := range refs {
			if r.cl.cursor == pos {
				group = append(group, r)
			} else {
				rest = append(rest, r)
			}
		}
		cur := pos
		racks := w.scoreRacks[:0]
		j.Changed(c, &cur, func(m int32) {
			w.updates += int64(len(group))
			rl := int(inv.Machines[m].RackLocal)
			for _, r := range group {
				if r.e.update(env, r.cl, m) {
					switch {
					case global == nil: // no rack score: nothing to mark
					case shared:
						if w.rackStamp[rl] != w.stamp {
							w.rackStamp[rl] = w.stamp
							racks = append(racks, int32(rl))
						}
					default:
						r.cl.markHead(rl, dirtyScore)
					}
				}
			}
		})
		// A rule scoring racks alike for every evaluation: every
		// cell of the group holds a rack's score as of the group's
		// cursor, so one cell tells whether the score moved since.
		for _, rl := range racks {
			if !p.rackScoreMoved(group, int(rl)) {
				continue
			}
			for _, r := range group {
				r.cl.markHead(int(rl), dirtyScore)
			}
		}
		w.scoreRacks = racks[:0]
		if w.stamp++; w.stamp == 0 { // wrapped: no rack may hold a stale stamp
			clear(w.rackStamp)
			w.stamp = 1
		}
		for _, r := range group {
			r.cl.cursor = cur
			r.cl.flushHeads(env, r.e)
		}
		w.group, w.rest = group, rest
		refs = append(refs[:0], rest...)
	}
	clear(p.byCluster[c])
	p.byCluster[c] = p.byCluster[c][:0]
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
		return newEvaluation(pt, vs, ps, p.rules.Global, len(p.env.Inv.Clusters), p.tabs, p.tabs.alloc(p.clock))
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

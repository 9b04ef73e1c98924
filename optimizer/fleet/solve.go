package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"placelab/optimizer/lpbound"
)

// Defaults for Options.
const (
	// DefaultTimeLimit bounds every stage together (the relaxation,
	// column generation, the integer master and the neighbourhood search):
	// the plan's target is a minute for a 10,000-pod snapshot against a
	// 1,101-type catalog, of which reading the snapshot and storing the
	// plan took 6–7 s (bench plan, 2026-12-03: 47.6 s in all).
	DefaultTimeLimit = 40 * time.Second
	// DefaultIntegerTimeLimit bounds CBC's price-and-branch.
	DefaultIntegerTimeLimit = 15 * time.Second
	// DefaultGap is the relative gap (cost − LB)/LB at which CBC stops.
	DefaultGap = 0.005
	// PricingNodeLimit bounds one pricing problem's branch-and-bound nodes
	// (lpbound.Options.NodeLimit), as cluster.ClusterPricingNodeLimit does
	// for pods of many shapes over several dimensions; the bound stays
	// valid whatever the limit.
	PricingNodeLimit = 100_000
)

// Options tune Solve. Start from DefaultOptions.
type Options struct {
	TimeLimit        time.Duration
	IntegerTimeLimit time.Duration
	// Gap: CBC stops once its packing is within Gap of the bound.
	Gap       float64
	NodeLimit int
	// Progress, when not nil, is told each stage as it starts.
	Progress func(stage string)
	// noLNS: a neighbourhood's own Solve (lns.go) does not search again;
	// incumbent, when not nil, is its nodes as they are, a fleet of the
	// problem's types that column generation starts from.
	noLNS     bool
	incumbent *Fleet
}

// DefaultOptions are the validated defaults every caller starts from.
func DefaultOptions() Options {
	return Options{TimeLimit: DefaultTimeLimit, IntegerTimeLimit: DefaultIntegerTimeLimit, Gap: DefaultGap, NodeLimit: PricingNodeLimit}
}

// Validate refuses values out of range.
func (o Options) Validate() error {
	if o.TimeLimit <= 0 {
		return fmt.Errorf("fleet: time limit %v, want > 0", o.TimeLimit)
	}
	if o.IntegerTimeLimit < 0 {
		return fmt.Errorf("fleet: integer time limit %v, want ≥ 0", o.IntegerTimeLimit)
	}
	if !(o.Gap > 0 && o.Gap < 1) {
		return fmt.Errorf("fleet: gap %g, want 0 < gap < 1", o.Gap)
	}
	if o.NodeLimit <= 0 {
		return fmt.Errorf("fleet: node limit %d, want > 0", o.NodeLimit)
	}
	return nil
}

// Node is one node of a fleet: its type and the pods of each group on it.
type Node struct {
	Type   int   `json:"type"`
	Groups []int `json:"groups"`
	Counts []int `json:"counts"`
}

// Fleet is a set of nodes holding every placeable pod.
type Fleet struct {
	Nodes []Node  `json:"-"`
	Cost  float64 `json:"cost_per_hour"`
}

// TypeCounts is the fleet as {type name: nodes}.
func (f *Fleet) TypeCounts(p *Problem) map[string]int {
	out := map[string]int{}
	for _, n := range f.Nodes {
		out[p.Types[n.Type].Name]++
	}
	return out
}

func (f *Fleet) cost(p *Problem) float64 {
	c := 0.0
	for _, n := range f.Nodes {
		c += p.Types[n.Type].Price
	}
	return c
}

// Unplaceable is a group no type can hold, with the reason.
type Unplaceable struct {
	Group  int    `json:"-"`
	Name   string `json:"group"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Result of Solve.
type Result struct {
	// LowerBound ≤ the cost of every fleet holding the placeable groups:
	// max(LPBound, VolumeBound).
	LowerBound  float64 `json:"lb_cost_per_hour"`
	LPBound     float64 `json:"lp_bound"`
	VolumeBound float64 `json:"volume_bound"`
	// Plan is the cheapest fleet found; Source says where it came from
	// (lp-… from the bound's column generation, restricted-lp-… from the
	// packing's, flow-rounding, karpenter, best-single), with +lns when
	// the neighbourhood search (lns.go) then saved.
	Plan       Fleet   `json:"plan"`
	Source     string  `json:"source"`
	GapPct     float64 `json:"gap_pct"`
	Karpenter  Fleet   `json:"karpenter"`
	BestSingle Fleet   `json:"best_single"`
	// BestSingleType is the type of BestSingle ("" when no one type holds
	// every placeable group).
	BestSingleType string        `json:"best_single_type"`
	Unplaceable    []Unplaceable `json:"unplaceable"`
	Placed         int           `json:"placed"`
	TypesUsable    int           `json:"types_usable"`
	TypesDominated int           `json:"types_dominated"`
	Converged      bool          `json:"converged"`
	Stop           string        `json:"stop"`
	Iterations     int           `json:"iterations"`
	Columns        int           `json:"columns"`
	IntegerProven  bool          `json:"integer_proven"`
	// FlowConverged: the assignment relaxation was solved whole (not
	// stopped by its share of TimeLimit); FlowRounds its masters.
	FlowConverged bool `json:"flow_converged"`
	FlowRounds    int  `json:"flow_rounds"`
	// SubTypes: the types of the relaxation's fleet, on which a second
	// column generation looked for the packing (0: it did not run);
	// SubIterations its master LPs.
	SubTypes      int `json:"sub_types"`
	SubIterations int `json:"sub_iterations"`
	// LNSTried and LNSImproved count the neighbourhoods the search of
	// lns.go planned again and those that saved.
	LNSTried         int     `json:"lns_tried"`
	LNSImproved      int     `json:"lns_improved"`
	KarpenterSeconds float64 `json:"karpenter_seconds"`
	Seconds          float64 `json:"seconds"`
}

// prepared is a Problem reduced to what can be planned.
type prepared struct {
	p       *Problem
	free    [][]float64 // per type; nil when its overhead does not fit
	allowed [][]bool    // [group][type]: allowed and fits free
	place   []bool      // per group: some type holds it
	antiCap map[int]int // AntiKey → max per node
}

func prepare(p *Problem) *prepared {
	pr := &prepared{p: p, free: make([][]float64, len(p.Types)), allowed: make([][]bool, len(p.Groups)),
		place: make([]bool, len(p.Groups)), antiCap: map[int]int{}}
	for k := range p.Types {
		if f, ok := p.free(k); ok {
			pr.free[k] = f
		}
	}
	for i, g := range p.Groups {
		pr.allowed[i] = make([]bool, len(p.Types))
		for k := range p.Types {
			if pr.free[k] != nil && (g.Allowed == nil || g.Allowed[k]) && fits(g.Demand, pr.free[k]) {
				pr.allowed[i][k] = true
				pr.place[i] = pr.place[i] || g.Count > 0
			}
		}
		if g.AntiKey >= 0 {
			if c, ok := pr.antiCap[g.AntiKey]; !ok || g.MaxPerNode < c {
				pr.antiCap[g.AntiKey] = g.MaxPerNode
			}
		}
	}
	return pr
}

// reason says why group i fits no type.
func (pr *prepared) reason(i int) string {
	p, g := pr.p, &pr.p.Groups[i]
	anyAllowed := false
	for k := range p.Types {
		if g.Allowed == nil || g.Allowed[k] {
			anyAllowed = true
		}
	}
	if !anyAllowed {
		if g.Why != "" {
			return "no catalog type satisfies " + g.Why
		}
		return "no catalog type satisfies its node constraints"
	}
	// The dimension that keeps it off the largest allowed type.
	var parts []string
	for j, d := range p.Dims {
		best := 0.0
		for k := range p.Types {
			if (g.Allowed == nil || g.Allowed[k]) && pr.free[k] != nil {
				best = max(best, pr.free[k][j])
			}
		}
		if g.Demand[j] > best+fitSlack {
			parts = append(parts, fmt.Sprintf("%s %s (the most any allowed type offers after its DaemonSet overhead: %s)", d, fnum(g.Demand[j]), fnum(best)))
		}
	}
	if len(parts) == 0 {
		return "no allowed catalog type holds all of its request at once"
	}
	return "requests " + strings.Join(parts, ", ")
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// dominance returns, per type, the type that replaces it (itself when kept).
func (pr *prepared) dominance() []int {
	p := pr.p
	n := len(p.Types)
	by := make([]int, n)
	// Group eligibility as bitsets.
	words := (len(p.Groups) + 63) / 64
	bits := make([][]uint64, n)
	for k := range p.Types {
		bits[k] = make([]uint64, words)
		for i := range p.Groups {
			if pr.place[i] && pr.allowed[i][k] {
				bits[k][i/64] |= 1 << (i % 64)
			}
		}
	}
	usable := func(k int) bool {
		for _, w := range bits[k] {
			if w != 0 {
				return true
			}
		}
		return false
	}
	dominates := func(a, b int) bool { // a replaces b
		if p.Types[a].Limit != 0 || p.Types[a].Price > p.Types[b].Price {
			return false
		}
		for j, c := range pr.free[a] {
			if c < pr.free[b][j] {
				return false
			}
		}
		for w := range bits[b] {
			if bits[b][w]&^bits[a][w] != 0 {
				return false
			}
		}
		return true
	}
	for b := range p.Types {
		by[b] = b
		if pr.free[b] == nil || !usable(b) {
			by[b] = -1
			continue
		}
	}
	// Candidates in order of price: only a type no dearer can replace b.
	order := make([]int, 0, n)
	for k := range p.Types {
		if by[k] >= 0 {
			order = append(order, k)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(p.Types[x].Price, p.Types[y].Price) })
	for _, b := range order {
		for _, a := range order {
			if p.Types[a].Price > p.Types[b].Price {
				break
			}
			if a == b || by[a] != a || !dominates(a, b) {
				continue
			}
			// Equal in everything: the earlier type stays.
			if dominates(b, a) && b < a {
				continue
			}
			by[b] = a
			break
		}
	}
	// Chains: a type whose replacement was itself replaced.
	for b := range by {
		for by[b] >= 0 && by[by[b]] != by[b] {
			by[b] = by[by[b]]
		}
	}
	return by
}

// Solve plans the fleet of p (see the package comment).
func Solve(ctx context.Context, p *Problem, o Options) (*Result, error) {
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	stage := func(s string) {
		if o.Progress != nil {
			o.Progress(s)
		}
	}
	stage("preparing the candidate types")
	pr := prepare(p)
	res := &Result{Unplaceable: []Unplaceable{}}
	for i, g := range p.Groups {
		if g.Count == 0 {
			continue
		}
		if !pr.place[i] {
			res.Unplaceable = append(res.Unplaceable, Unplaceable{Group: i, Name: g.Name, Count: g.Count, Reason: pr.reason(i)})
			continue
		}
		res.Placed += g.Count
	}
	if res.Placed == 0 {
		res.Converged, res.Stop, res.Source = true, "nothing to place", "empty"
		res.Karpenter.Nodes, res.BestSingle.Nodes, res.Plan.Nodes = []Node{}, []Node{}, []Node{}
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	stage("pruning dominated types")
	by := pr.dominance()
	var kept []int
	for k, b := range by {
		if b == k {
			kept = append(kept, k)
		} else if b >= 0 {
			res.TypesDominated++
		}
	}
	res.TypesUsable = len(kept)
	// Baselines: on every type, as the heuristics see the catalog.
	stage("the Karpenter-style and best-single baselines")
	t0 := time.Now()
	res.Karpenter = pr.karpenter()
	res.KarpenterSeconds = time.Since(t0).Seconds()
	res.BestSingle, res.BestSingleType = pr.bestSingle(kept)
	// The assignment relaxation: its duals seed column generation, its
	// solution rounds to a fleet.
	stage(fmt.Sprintf("the assignment relaxation over %d usable types", len(kept)))
	// Every stage shares TimeLimit: the relaxation up to a third of what
	// column generation has, column generation the rest of it, then the
	// integer master.
	deadline := start.Add(o.TimeLimit)
	cgUntil := deadline.Add(-o.IntegerTimeLimit)
	flow := pr.flow(kept, time.Until(cgUntil)/3)
	rounded, okRound := pr.round(flow)
	res.FlowConverged, res.FlowRounds = flow.converged, flow.rounds
	// The configuration LP over the kept types gives the bound. When the
	// relaxation's fleet uses fewer types, the LP over those types alone,
	// without the anti-affinity sets' dimensions (fewer and smaller
	// pricing problems, so column generation gets far further in the same
	// time), gives the packing, and improve moves the pods that break a
	// set; the bound's own run then has a quarter of the time left and no
	// integer master.
	sub := pr.support(flow, kept, &rounded, o.incumbent)
	restricted := okRound && len(sub) < len(kept) && len(kept) > restrictAbove
	// The packing's own run starts from the rounding (and the incumbent
	// a neighbourhood's Solve is given); the bound's also from the
	// baselines.
	packIncs := []*Fleet{&rounded}
	if o.incumbent != nil {
		packIncs = append(packIncs, o.incumbent)
	}
	incs := append([]*Fleet{&res.Karpenter, &res.BestSingle}, packIncs...)
	rest := time.Until(cgUntil)
	boundLimit, boundInteger := time.Until(deadline), o.IntegerTimeLimit
	boundCols := rest
	if restricted {
		boundLimit, boundCols, boundInteger = rest/4, rest/4, -1
	}
	type cand struct {
		f   Fleet
		src string
	}
	var cands []cand
	// clocked: a column generation was stopped by the clock, so the plan
	// already depends on how far it got (lns then runs; see below).
	clocked := false
	// A neighbourhood's own Solve (lns.go) wants the packing only: with
	// the restricted LP it skips the bound's run.
	if !(restricted && o.noLNS) {
		stage("column generation for the bound")
		lr, scale, err := pr.configLP(ctx, kept, by, true, incs, flow, lpbound.Options{TimeLimit: boundLimit, ColumnTimeLimit: boundCols,
			IntegerTimeLimit: boundInteger, IntegerGap: o.Gap, NodeLimit: o.NodeLimit})
		if err != nil {
			return nil, err
		}
		bound, iters := lr.Bound, lr.Iterations
		// A bound run that got through continueIterations master LPs in its
		// quarter and was still going is tractable at this size: it goes on
		// for a second quarter from its columns and its packing, and the
		// packing stage keeps half.
		if restricted && lr.Stop == lpbound.StopTimeLimit && lr.Iterations >= continueIterations && ctx.Err() == nil {
			stage("column generation for the bound, continued")
			lr2, _, err := pr.configLP(ctx, kept, by, true, incs, flow, lpbound.Options{TimeLimit: rest / 4, ColumnTimeLimit: rest / 4,
				IntegerTimeLimit: -1, IntegerGap: o.Gap, NodeLimit: o.NodeLimit, Initial: lr.Patterns, Incumbent: lr.Packing})
			if err != nil {
				return nil, err
			}
			bound, iters = max(bound, lr2.Bound), iters+lr2.Iterations
			lr = lr2
		}
		res.LPBound, res.Converged, res.Stop = bound/scale, lr.Converged, lr.Stop.String()
		clocked = lr.Stop == lpbound.StopTimeLimit
		res.Iterations, res.Columns, res.IntegerProven = iters, lr.Columns, lr.IntegerProven
		if lr.Packing != nil {
			cands = append(cands, cand{pr.improve(pr.fromPatterns(lr.Packing, kept), kept, time.Now().Add(improveTime)), "lp-" + lr.UpperSource})
		}
	}
	if restricted {
		stage(fmt.Sprintf("column generation and the integer packing on the relaxation's %d types", len(sub)))
		left := time.Until(deadline)
		if !o.noLNS {
			left -= time.Duration(lnsShare * float64(o.TimeLimit))
		}
		lrs, _, err := pr.configLP(ctx, sub, nil, false, packIncs, flow, lpbound.Options{TimeLimit: max(time.Millisecond, left),
			ColumnTimeLimit: max(time.Millisecond, left*3/4), IntegerTimeLimit: o.IntegerTimeLimit, IntegerGap: o.Gap, NodeLimit: o.NodeLimit,
			IncumbentOnly: true})
		if err != nil {
			return nil, err
		}
		res.SubTypes, res.SubIterations = len(sub), lrs.Iterations
		clocked = clocked || lrs.Stop == lpbound.StopTimeLimit
		if lrs.Packing != nil {
			cands = append(cands, cand{pr.improve(pr.fromPatterns(lrs.Packing, sub), kept, time.Now().Add(improveTime)), "restricted-lp-" + lrs.UpperSource})
		}
	}
	stage("the volume bound and the plan's check")
	res.VolumeBound = pr.volumeBound(kept)
	res.LowerBound = max(res.LPBound, res.VolumeBound)
	// The plan: the LP's packing, or a baseline when it is cheaper.
	cands = append(cands, cand{res.Karpenter, "karpenter"}, cand{res.BestSingle, "best-single"})
	if okRound {
		cands = append(cands, cand{pr.improve(rounded, kept, time.Now().Add(improveTime)), "flow-rounding"})
	}
	best := -1
	for i, c := range cands {
		if len(c.f.Nodes) == 0 {
			continue
		}
		if best < 0 || c.f.Cost < cands[best].f.Cost-1e-9 {
			best = i
		}
	}
	if best < 0 {
		return nil, errors.New("fleet: no fleet found")
	}
	res.Plan, res.Source = cands[best].f, cands[best].src
	// The search stops its neighbourhoods' Solves on time too: it runs
	// only when the plan depends on the clock already, so that a run
	// whose column generation ends on its own (converged, stalled,
	// proven) gives the same plan every time.
	if !o.noLNS && clocked && time.Until(deadline) > lnsSubTime/3 {
		stage("planning the most wasteful nodes again, a neighbourhood at a time")
		f, tried, improved := pr.lns(ctx, res.Plan, kept, flow.duals(p), deadline)
		res.LNSTried, res.LNSImproved = tried, improved
		if improved > 0 {
			if f = pr.improve(f, kept, time.Now().Add(improveTime)); len(f.Nodes) > 0 && f.Cost < res.Plan.Cost-1e-9 {
				res.Plan, res.Source = f, res.Source+"+lns"
			}
		}
	}
	if err := pr.Check(&res.Plan); err != nil {
		return nil, fmt.Errorf("fleet: plan from %s: %w", res.Source, err)
	}
	if res.LowerBound > 0 {
		res.GapPct = 100 * (res.Plan.Cost - res.LowerBound) / res.LowerBound
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// configLP runs column generation on the configuration LP over types
// (with a dimension per anti-affinity set when anti; without, the LP is a
// relaxation and its packing may break them),
// with the cheapest of incs (those on these types only, by maps a node's
// type to the type standing for it) as the incumbent and the
// relaxation's duals as seeds; o's objective, incumbent and duals are
// set here. It returns the result and the price scale of its costs.
func (pr *prepared) configLP(ctx context.Context, types, by []int, anti bool, incs []*Fleet, flow *flowLP, o lpbound.Options) (*lpbound.Result, float64, error) {
	p := pr.p
	lp, itemOf, binOf, scale := pr.lpProblem(types, anti)
	in := map[int]bool{}
	for _, k := range types {
		in[k] = true
	}
	if by == nil {
		by = make([]int, len(p.Types))
		for k := range by {
			by[k] = k
		}
	}
	for _, f := range incs {
		ok := len(f.Nodes) > 0
		for _, n := range f.Nodes {
			ok = ok && in[by[n.Type]]
		}
		if ok && (o.Incumbent == nil || f.Cost < fleetCost(p, o.Incumbent, binOf)) {
			o.Incumbent = pr.patterns(f, by, itemOf)
		}
	}
	// IncumbentOnly asks for a start from the incumbent: without one
	// there is nothing to start from.
	o.IncumbentOnly = o.IncumbentOnly && o.Incumbent != nil
	for _, pi := range flow.pi {
		d := make([]float64, len(lp.Items))
		for n, it := range lp.Items {
			g, _ := strconv.Atoi(it.Name[1:])
			d[n] = pi[g] * scale
		}
		o.Duals = append(o.Duals, d)
	}
	o.Objective = lpbound.MinCost
	if o.IntegerTimeLimit == 0 {
		o.IntegerTimeLimit = -1
	}
	lr, err := lpbound.Solve(ctx, lp, o)
	if lr == nil {
		return nil, 0, fmt.Errorf("fleet: configuration LP: %w", err)
	}
	if err != nil && !errors.Is(err, lpbound.ErrTimeLimit) && ctx.Err() == nil {
		return nil, 0, fmt.Errorf("fleet: configuration LP: %w", err)
	}
	return lr, scale, nil
}

// support is the kept types the relaxation's solution uses, with those
// of the fleets (its rounded fleet, an incumbent), in kept order.
func (pr *prepared) support(flow *flowLP, kept []int, fleets ...*Fleet) []int {
	use := map[int]bool{}
	for b, x := range flow.x {
		if x > 1e-9 {
			use[kept[b]] = true
		}
	}
	for _, f := range fleets {
		if f == nil {
			continue
		}
		for _, n := range f.Nodes {
			use[n.Type] = true
		}
	}
	var out []int
	for _, k := range kept {
		if use[k] {
			out = append(out, k)
		}
	}
	return out
}

func fleetCost(p *Problem, pats []lpbound.Pattern, binOf map[string]int) float64 {
	c := 0.0
	for _, pt := range pats {
		c += pt.X * p.Types[binOf[pt.Bin]].Price
	}
	return c
}

// lpProblem is the configuration LP over the kept types: one item type per
// placeable group, one bin type per kept type, and one more dimension per
// anti-affinity key (capacity: its max per node; each pod of the key takes
// 1).
//
// Costs are the prices in whole millionths, rounded down (see below);
// scale is that factor.
func (pr *prepared) lpProblem(kept []int, anti bool) (*lpbound.Problem, map[int]string, map[string]int, float64) {
	p := pr.p
	var keys []int
	for k := range pr.antiCap {
		if anti {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keyDim := map[int]int{}
	for j, k := range keys {
		keyDim[k] = len(p.Dims) + j
	}
	dims := len(p.Dims) + len(keys)
	lp := &lpbound.Problem{}
	binOf := map[string]int{}
	scale := priceScale
	for _, k := range kept {
		c := make([]float64, dims)
		copy(c, pr.free[k])
		for j, key := range keys {
			c[len(p.Dims)+j] = float64(pr.antiCap[key])
		}
		// Whole millionths, rounded down: the LP's costs never exceed the
		// prices, so its bound stays a bound on the real cost, and the
		// optimum is an integer, which lets lpbound round its bound up and
		// run the integer master. A price that is not a whole number of
		// millionths loses less than a millionth per node.
		cost := math.Max(1, math.Floor(p.Types[k].Price*scale+1e-9))
		lp.Bins = append(lp.Bins, lpbound.BinType{Name: p.Types[k].Name, Capacity: c, Cost: cost, Limit: p.Types[k].Limit})
		binOf[p.Types[k].Name] = k
	}
	itemOf := map[int]string{}
	for i, g := range p.Groups {
		if !pr.place[i] {
			continue
		}
		s := make([]float64, dims)
		copy(s, g.Demand)
		if j, ok := keyDim[g.AntiKey]; ok {
			s[j] = 1
		}
		sizes := make([][]float64, len(kept))
		for b, k := range kept {
			if pr.allowed[i][k] {
				sizes[b] = s
			}
		}
		name := "g" + strconv.Itoa(i)
		itemOf[i] = name
		lp.Items = append(lp.Items, lpbound.ItemType{Name: name, Count: g.Count, Sizes: sizes})
	}
	return lp, itemOf, binOf, scale
}

// restrictAbove: with more usable types than this, the packing comes
// from the LP over the relaxation's types (see Solve); with fewer, the
// whole LP's column generation has few pricing problems and gets far
// enough on its own, as it did before the split.
const restrictAbove = 50

// continueIterations: the master LPs the bound's column generation must
// solve in its first quarter of the time to get a second (see Solve). On
// make demo's cluster (387 usable types, 78 groups) it solves tens in its
// quarter and its packing, which keeps the anti-affinity sets, beats the
// packing stage's ($15.74 with one quarter, $14.85 with two, against a
// bound of $14.637); on bench plan's snapshot (287 types, 973 groups) it
// solves none, and the packing stage needs the time.
const continueIterations = 10

// improveTime bounds the local search on each candidate fleet (improve).
const improveTime = 2 * time.Second

// priceScale: prices in millionths (see lpProblem).
const priceScale = 1e6

// patterns turns a fleet into an incumbent of the LP: each node a pattern
// on its type's replacement.
func (pr *prepared) patterns(f *Fleet, by []int, itemOf map[int]string) []lpbound.Pattern {
	idx := map[string]int{}
	var out []lpbound.Pattern
	for _, n := range f.Nodes {
		pt := lpbound.Pattern{Bin: pr.p.Types[by[n.Type]].Name}
		type gc struct{ g, c int }
		var gcs []gc
		for j, g := range n.Groups {
			gcs = append(gcs, gc{g, n.Counts[j]})
		}
		slices.SortFunc(gcs, func(a, b gc) int { return a.g - b.g })
		var key strings.Builder
		key.WriteString(pt.Bin)
		for _, x := range gcs {
			pt.Items = append(pt.Items, itemOf[x.g])
			pt.Counts = append(pt.Counts, x.c)
			fmt.Fprintf(&key, " %d:%d", x.g, x.c)
		}
		if i, ok := idx[key.String()]; ok {
			out[i].X++
			continue
		}
		pt.X = 1
		idx[key.String()] = len(out)
		out = append(out, pt)
	}
	return out
}

// fromPatterns expands the LP's integer packing into nodes.
func (pr *prepared) fromPatterns(pk []lpbound.Pattern, kept []int) Fleet {
	p := pr.p
	typeOf := map[string]int{}
	for _, k := range kept {
		typeOf[p.Types[k].Name] = k
	}
	var f Fleet
	for _, pt := range pk {
		n := int(math.Round(pt.X))
		for range n {
			node := Node{Type: typeOf[pt.Bin]}
			for j, name := range pt.Items {
				g, _ := strconv.Atoi(name[1:])
				node.Groups = append(node.Groups, g)
				node.Counts = append(node.Counts, pt.Counts[j])
			}
			f.Nodes = append(f.Nodes, node)
		}
	}
	f.Cost = f.cost(p)
	return f
}

// Check verifies that f places every placeable pod exactly once, each on
// a type it is allowed on, within every node's allocatable less its
// overhead, the anti-affinity bounds and the types' limits.
func (pr *prepared) Check(f *Fleet) error {
	p := pr.p
	placed := make([]int, len(p.Groups))
	perType := make([]int, len(p.Types))
	for n, node := range f.Nodes {
		perType[node.Type]++
		if pr.free[node.Type] == nil {
			return fmt.Errorf("node %d (%s): its DaemonSet overhead does not fit", n, p.Types[node.Type].Name)
		}
		used := make([]float64, len(p.Dims))
		anti := map[int]int{}
		for j, g := range node.Groups {
			c := node.Counts[j]
			if c <= 0 {
				continue
			}
			if !pr.allowed[g][node.Type] {
				return fmt.Errorf("node %d (%s): group %s is not allowed there", n, p.Types[node.Type].Name, p.Groups[g].Name)
			}
			for d, x := range p.Groups[g].Demand {
				used[d] += float64(c) * x
			}
			if k := p.Groups[g].AntiKey; k >= 0 {
				anti[k] += c
				if anti[k] > pr.antiCap[k] {
					return fmt.Errorf("node %d (%s): %d pods of anti-affinity set %d, at most %d", n, p.Types[node.Type].Name, anti[k], k, pr.antiCap[k])
				}
			}
			placed[g] += c
		}
		if !fits(used, pr.free[node.Type]) {
			return fmt.Errorf("node %d (%s): pods need %v, allocatable less overhead %v", n, p.Types[node.Type].Name, used, pr.free[node.Type])
		}
	}
	for i, g := range p.Groups {
		want := 0
		if pr.place[i] {
			want = g.Count
		}
		if placed[i] != want {
			return fmt.Errorf("group %s: %d pods placed, want %d", g.Name, placed[i], want)
		}
	}
	for k, t := range p.Types {
		if t.Limit > 0 && perType[k] > t.Limit {
			return fmt.Errorf("type %s: %d nodes, limit %d", t.Name, perType[k], t.Limit)
		}
	}
	if c := f.cost(p); math.Abs(c-f.Cost) > 1e-6*max(1, c) {
		return fmt.Errorf("fleet cost %g, nodes cost %g", f.Cost, c)
	}
	return nil
}

// Check verifies a fleet against p (see prepared.Check).
func Check(p *Problem, f *Fleet) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return prepare(p).Check(f)
}

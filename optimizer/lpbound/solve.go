package lpbound

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// Objective selects what the bound is on.
type Objective int

const (
	// MinCost minimizes Σ_k Cost_k · machines_k (a zero Cost counts 1, so
	// by default this counts machines).
	MinCost Objective = iota
	// MinCount minimizes the number of machines, ignoring Cost.
	MinCount
)

// SmoothingAlpha is the weight of the stability center in Wentges dual
// smoothing: pricing happens at α·center + (1−α)·π (see the package
// comment).
const SmoothingAlpha = 0.8

// escalateNodes multiplies the node limit for one more pricing round when
// branch and bound could not prove that no column prices out.
const escalateNodes = 10

// Defaults for Options.
const (
	// DefaultTolerance: a column enters when its reduced cost is below
	// −Tolerance × (largest bin cost); 1e-6 stays above Clp's dual
	// feasibility tolerance (1e-7), so a column Clp already prices out is
	// never generated again. It affects when column generation stops, not
	// the validity of the bound.
	DefaultTolerance = 1e-6
	// DefaultMaxIterations caps the master LPs solved.
	DefaultMaxIterations = 20_000
)

// feasTol is the total uncovered demand (artificial columns) below which a
// master solution counts as covering everything: Clp's primal tolerance.
const feasTol = 1e-7

// Options tune Solve; the zero value is usable.
type Options struct {
	Objective Objective
	// Tolerance on reduced costs; 0 means DefaultTolerance.
	Tolerance float64
	// TimeLimit bounds the whole solve; 0 means none. When it runs out
	// Solve returns the best bound so far with ErrTimeLimit.
	TimeLimit time.Duration
	// MaxIterations bounds the master LPs solved; 0 means
	// DefaultMaxIterations.
	MaxIterations int
	// NodeLimit bounds the branch-and-bound nodes of one pricing problem;
	// 0 means DefaultNodeLimit.
	NodeLimit int
	// IntegerTimeLimit bounds the integer master (CBC over the generated
	// patterns, run when the best packing found costs more than the
	// rounded bound); 0 means DefaultIntegerTimeLimit. TimeLimit bounds
	// it too. Negative skips it.
	IntegerTimeLimit time.Duration
	// IntegerGap is the relative gap (UB − ⌈LB⌉)/⌈LB⌉ above which the
	// integer master runs, and at which CBC stops; 0 means
	// DefaultIntegerGap.
	IntegerGap float64
	// Initial columns, e.g. the Patterns of a previous Result, matched to
	// this problem's bin and item types by name.
	Initial []Pattern
	// ColumnTimeLimit bounds column generation alone, leaving the rest of
	// TimeLimit to the integer master; 0 means TimeLimit.
	ColumnTimeLimit time.Duration
	// Duals are more dual vectors (each one value ≥ 0 per Problem.Items
	// entry, in that order) at which the first pricing round prices, beside
	// the volume duals: e.g. the duals of a relaxation the caller solved.
	// Each gives a valid Lagrangian bound and may seed the stabilization
	// center.
	Duals [][]float64
	// Incumbent is a known packing — Patterns with X the whole number of
	// machines of each, placing every item exactly once within the
	// capacities and limits (e.g. what an online allocator did) — so that
	// Result.Upper is never worse than it. Its patterns join the master.
	// An incumbent that is not such a packing is an ErrInvalid error.
	Incumbent []Pattern
	// IncumbentOnly starts the master from the incumbent's (and
	// Initial's) columns alone, with no first-fit-decreasing column per
	// bin type and no greedy packing from the seeds' center, as happens
	// anyway with more than 50 bin types: when the incumbent is already a
	// good packing those cost more than they bring (on bench plan's
	// snapshot, 15 types and 973 item types, the greedy took 11.6 s of
	// 23 s and packed no better than the incumbent). It needs Incumbent.
	IncumbentOnly bool
}

// Stop says why column generation ended.
type Stop int

const (
	// StopConverged: no column has reduced cost below −Tolerance (proven
	// by exact pricing or by the pricing bounds).
	StopConverged Stop = iota
	// StopProven: the rounded bound reached the rounded master value, so
	// more columns cannot raise it.
	StopProven
	// StopStalled: a column priced out but was already in the master, the
	// node limit kept pricing from proving convergence, or Clp did not
	// return an optimal master.
	StopStalled
	// StopIterations: MaxIterations master LPs were solved.
	StopIterations
	// StopTimeLimit: Options.TimeLimit ran out.
	StopTimeLimit
	// StopCanceled: the context was done.
	StopCanceled
)

var stopNames = [...]string{"converged", "proven", "stalled", "iterations", "time limit", "canceled"}

func (s Stop) String() string {
	if s < 0 || int(s) >= len(stopNames) {
		return fmt.Sprintf("stop(%d)", int(s))
	}
	return stopNames[s]
}

// MarshalText writes the name, so JSON shows "converged" rather than 0.
func (s Stop) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Result of Solve.
type Result struct {
	// LP is the value of the last restricted master LP: an upper bound on
	// the LP optimum (once the master needs no artificial column), equal
	// to it when Converged, up to Clp's tolerances. 0 if no master was
	// solved.
	LP float64 `json:"lp"`
	// LowerLP is the best Lagrangian (Farley) lower bound on the LP
	// optimum found, from the duals and exact (or over-estimated) pricing;
	// valid whatever the tolerances and however column generation ended.
	LowerLP float64 `json:"lower_lp"`
	// Bound is a valid lower bound on the optimum of the integer problem:
	// ⌈LowerLP − RoundingSlack·max(1,|LowerLP|)⌉ when Rounded, else
	// LowerLP.
	Bound float64 `json:"bound"`
	// Rounded: every cost is an integer (always under MinCount), so the
	// optimum is an integer and Bound was rounded up.
	Rounded bool `json:"rounded"`
	// Upper is the cost of the best packing found (an upper bound on the
	// optimum); 0 if none was found.
	Upper float64 `json:"upper,omitempty"`
	// Packing is that packing: Patterns with X the whole number of
	// machines of each; every item is placed exactly once, within the
	// capacities and the limits. Nil if none was found.
	Packing []Pattern `json:"-"`
	// UpperSource says where Packing came from: SourceIncumbent,
	// SourceHeuristic or SourceInteger.
	UpperSource string `json:"upper_source,omitempty"`
	// IntegerProven: CBC proved the integer master optimal over the
	// generated patterns (a statement about those patterns only).
	IntegerProven bool    `json:"integer_proven,omitempty"`
	Iterations    int     `json:"iterations"` // master LPs solved
	Columns       int     `json:"columns"`    // patterns in the final master
	Seconds       float64 `json:"seconds"`
	Converged     bool    `json:"converged"`
	Stop          Stop    `json:"stop"`
	// Patterns are the final master's columns, with their values in the
	// last master solution; feed them to Options.Initial of the next solve.
	Patterns []Pattern `json:"-"`
}

// Solve computes the configuration-LP lower bound of p by column
// generation (see the package comment). On ErrTimeLimit and on a done
// context it returns the best valid bound found along with the error; any
// other error comes with a nil Result.
func Solve(ctx context.Context, p *Problem, opts Options) (*Result, error) {
	start := time.Now()
	m, err := newModel(p, opts.Objective)
	if err != nil {
		return nil, err
	}
	tol := opts.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	if !(tol > 0) || math.IsInf(tol, 0) {
		return nil, fmt.Errorf("%w: tolerance %g", ErrInvalid, opts.Tolerance)
	}
	maxIter := opts.MaxIterations
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	nodeLimit := opts.NodeLimit
	if nodeLimit <= 0 {
		nodeLimit = DefaultNodeLimit
	}
	gap := opts.IntegerGap
	if gap == 0 {
		gap = DefaultIntegerGap
	}
	if !(gap > 0) || math.IsInf(gap, 0) {
		return nil, fmt.Errorf("%w: integer gap %g", ErrInvalid, opts.IntegerGap)
	}
	var deadline time.Time
	if opts.TimeLimit > 0 {
		deadline = start.Add(opts.TimeLimit)
	}
	initial, err := m.reuse(opts.Initial)
	if err != nil {
		return nil, err
	}
	var inc *packing
	if opts.IncumbentOnly && opts.Incumbent == nil {
		return nil, fmt.Errorf("%w: IncumbentOnly without an Incumbent", ErrInvalid)
	}
	if opts.Incumbent != nil {
		pk, err := m.incumbent(opts.Incumbent)
		if err != nil {
			return nil, err
		}
		inc = &pk
	}

	var seeds [][]float64
	for n, d := range opts.Duals {
		if len(d) != len(p.Items) {
			return nil, fmt.Errorf("%w: Options.Duals[%d]: %d values for %d item types", ErrInvalid, n, len(d), len(p.Items))
		}
		pi := make([]float64, len(m.items))
		for i, it := range p.Items {
			if mi, ok := m.itemOf[typeName(it.Name, "#", i)]; ok {
				if !finite(d[i]) || d[i] < 0 {
					return nil, fmt.Errorf("%w: Options.Duals[%d][%d] = %g, want a finite value >= 0", ErrInvalid, n, i, d[i])
				}
				pi[mi] = d[i]
			}
		}
		seeds = append(seeds, pi)
	}
	cgDeadline := deadline
	if opts.ColumnTimeLimit > 0 {
		if d := start.Add(opts.ColumnTimeLimit); cgDeadline.IsZero() || d.Before(cgDeadline) {
			cgDeadline = d
		}
	}
	s := &cg{m: m, tol: tol, nodeLimit: nodeLimit, deadline: cgDeadline, have: map[string]bool{}, seeds: seeds, incumbentOnly: opts.IncumbentOnly}
	s.abort = func() bool { return ctx.Err() != nil || !cgDeadline.IsZero() && time.Now().After(cgDeadline) }
	if inc != nil {
		s.best, s.source = inc, SourceIncumbent
		initial = append(initial, inc.cols...)
	}
	res := s.run(ctx, initial, maxIter)
	// What follows (the integer master and its greedy completion) has the
	// rest of TimeLimit.
	s.abort = func() bool { return ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline) }
	// Price-and-branch: the integer master over the generated patterns
	// when the best packing is above the rounded bound and time is left.
	if s.infeasible == nil && s.ms != nil && m.integral && res.Stop != StopCanceled && opts.IntegerTimeLimit >= 0 &&
		(s.best == nil || s.best.cost-res.Bound > gap*max(math.Abs(res.Bound), 1)) {
		limit := opts.IntegerTimeLimit
		if limit == 0 {
			limit = DefaultIntegerTimeLimit
		}
		if !deadline.IsZero() {
			limit = min(limit, time.Until(deadline))
		}
		if limit > 0 {
			res.IntegerProven = s.integerMaster(ctx, limit, gap, s.center)
		}
	}
	if s.best != nil {
		if err := s.best.check(m); err != nil {
			return nil, fmt.Errorf("lpbound: internal error: %v", err)
		}
		res.Upper, res.Packing, res.UpperSource = s.best.cost, s.best.patterns(m), s.source
	}
	res.Seconds = time.Since(start).Seconds()
	switch {
	case s.infeasible != nil:
		return nil, s.infeasible
	case res.Stop == StopCanceled:
		return res, fmt.Errorf("lpbound: %w", ctx.Err())
	case res.Stop == StopTimeLimit:
		return res, fmt.Errorf("%w after %d iterations (%s)", ErrTimeLimit, res.Iterations, opts.TimeLimit)
	}
	return res, nil
}

// manyBins: with more bin types than this and an incumbent, column
// generation starts from the incumbent alone (see cg.run).
const manyBins = maxExtraColumns

// cg is one column generation run.
type cg struct {
	m         *model
	tol       float64
	nodeLimit int
	deadline  time.Time
	abort     func() bool // the deadline passed or the context is done
	ms        *master
	have      map[string]bool // keys of the columns in the master
	counts    []int           // demand per model item
	dp        []*dpPricer
	bb        []*bbPricer
	// grid are the exact DPs on decimal grids (newGridPricer), built the
	// first time branch and bound leaves a bin type's pricing unproven;
	// gridDone marks the types tried.
	grid     []*dpPricer
	gridDone []bool
	// line are the line DPs per bin type (newLinePricer), built the
	// first time pricing.lines asks; linesDone marks the types tried.
	line       [][]*dpPricer
	linesDone  []bool
	infeasible error
	best       *packing    // the best packing found
	source     string      // where best came from
	center     []float64   // the stabilization center when run returned
	last       *solution   // the last optimal phase-2 master solution, if any
	seeds      [][]float64 // Options.Duals over the model's items
	// incumbentOnly: Options.IncumbentOnly.
	incumbentOnly bool
}

// offer keeps pk if it is the best packing so far.
func (s *cg) offer(pk packing) {
	if s.best == nil || pk.cost < s.best.cost {
		s.best, s.source = &pk, SourceHeuristic
	}
}

// upper is the cost of the best packing, +Inf if none.
func (s *cg) upper() float64 {
	if s.best == nil {
		return math.Inf(1)
	}
	return s.best.cost
}

func (s *cg) add(cs []column) int {
	var fresh []column
	for _, c := range cs {
		if k := c.key(); !s.have[k] {
			s.have[k] = true
			fresh = append(fresh, c)
		}
	}
	s.ms.add(fresh...)
	return len(fresh)
}

func (s *cg) run(ctx context.Context, initial []column, maxIter int) *Result {
	m := s.m
	res := &Result{Rounded: m.integral}
	U := make([]float64, len(m.bins))
	// The trivial bound (π = 0): every limited type with a negative cost
	// used to its limit.
	best, _, _ := lagrangian(0, m.bins, U)
	center := make([]float64, len(m.items)) // scaled duals of the best bound
	finish := func(stop Stop, sol *solution) *Result {
		if stop == StopStalled && ctx.Err() != nil {
			stop = StopCanceled // pricing was cut short
		} else if stop == StopStalled && !s.deadline.IsZero() && time.Now().After(s.deadline) {
			stop = StopTimeLimit
		}
		s.center = center
		if sol != nil && sol.optimal && s.ms != nil && !s.ms.phase1 && sol.uncover <= feasTol && sol.pi != nil {
			s.last = sol
		}
		res.Stop = stop
		res.Converged = stop == StopConverged
		res.LowerLP = best
		res.Bound = best
		if m.integral {
			res.Bound = roundUp(best)
		}
		if s.ms != nil {
			res.Columns = len(s.ms.cols)
			res.Patterns = make([]Pattern, len(s.ms.cols))
			for j, c := range s.ms.cols {
				x := 0.0
				if sol != nil && j < len(sol.x) {
					x = sol.x[j]
				}
				res.Patterns[j] = m.pattern(c, x)
			}
		}
		return res
	}
	if len(m.items) == 0 {
		res.LP = best
		return finish(StopConverged, nil)
	}

	s.ms = newMaster(m)
	for _, it := range m.items {
		s.counts = append(s.counts, it.count)
	}
	s.add(initial)
	// First-fit decreasing columns per bin type start the master, unless
	// an incumbent covers the demand and the bin types are many (their
	// packings then cost more time than column generation has) or the
	// caller said so (Options.IncumbentOnly).
	ffd := s.best == nil || len(m.bins) <= manyBins && !s.incumbentOnly
	for k, b := range m.bins {
		if len(b.fit) > 0 && ffd {
			s.add(m.firstFitDecreasing(k))
		}
		s.dp = append(s.dp, newDPPricer(m, k))
		s.bb = append(s.bb, newBBPricer(m, k))
	}
	s.grid, s.gridDone = make([]*dpPricer, len(m.bins)), make([]bool, len(m.bins))
	s.line, s.linesDone = make([][]*dpPricer, len(m.bins)), make([]bool, len(m.bins))
	// Phase 1 (minimize the uncovered demand) is needed only if some item
	// type fits no unlimited bin type.
	phase1 := false
	for _, it := range m.items {
		if !it.free {
			phase1 = true
		}
	}
	s.ms.setPhase1(phase1)

	pr := &pricing{s: s, a: make([]int, len(m.items)), pats: make([]column, len(m.bins)), V: make([]float64, len(m.bins)), U: U}
	haveCenter := false
	sep := make([]float64, len(m.items))
	var sol solution
	// Seed the bound and the stabilization center with volume duals.
	// Volume duals make many patterns tie, which branch and bound cannot
	// tell apart: a few nodes give a good seed (and a valid bound).
	seeds := append(m.volumeDuals(), s.seeds...)
	// The seeds' bounds are on the real costs: screening applies.
	pr.screen, pr.prove = true, true
	for _, pi := range seeds {
		pr.best = best
		lb, theta, infeasible := pr.run(pi, min(s.nodeLimit, extraNodeLimit))
		if !infeasible && lb > best {
			best = lb
			for i := range center {
				center[i] = theta * pi[i]
			}
			haveCenter = true
		}
	}
	pr.prove = false
	// The greedy packing from the seeds' center, unless an incumbent is
	// there and the bin types are many (as above).
	if haveCenter && ffd {
		pk, ok := s.greedy(center, slices.Clone(s.counts), make([]int, len(m.bins)))
		s.add(pk.cols)
		if ok {
			s.offer(pk)
		}
		// A packing's patterns are in the master and cover the demand, so
		// the master is feasible without artificials: no phase 1.
		if s.best != nil && phase1 {
			phase1 = false
			s.ms.setPhase1(false)
		}
		if s.best != nil {
			if m.integral && roundUp(best) >= s.upper() {
				sol = s.ms.solve(s.deadline)
				res.Iterations++
				res.LP = sol.z
				return finish(StopProven, &sol)
			}
		}
	}
	for {
		switch {
		case ctx.Err() != nil:
			return finish(StopCanceled, &sol)
		case !s.deadline.IsZero() && time.Now().After(s.deadline):
			return finish(StopTimeLimit, &sol)
		case res.Iterations >= maxIter:
			return finish(StopIterations, &sol)
		}
		sol = s.ms.solve(s.deadline)
		res.Iterations++
		res.LP = sol.z
		if !sol.optimal {
			if !s.deadline.IsZero() && time.Now().After(s.deadline) {
				return finish(StopTimeLimit, &sol)
			}
			return finish(StopStalled, &sol)
		}
		covered := sol.uncover <= feasTol
		if phase1 {
			// Items an unlimited type holds cannot make the problem
			// infeasible; their phase-1 duals are 0 up to tolerance.
			for i, it := range m.items {
				if it.free {
					sol.pi[i] = 0
				}
			}
		}
		s.purge(&sol)
		if !phase1 && covered && m.integral && haveCenter {
			if pk, ok := s.round(&sol, center); ok {
				s.offer(pk)
			}
			if roundUp(best) >= s.upper() {
				return finish(StopProven, &sol)
			}
		}
		if !phase1 && covered && m.integral && roundUp(best) >= math.Ceil(sol.z-s.tol*max(m.costScale, math.Abs(sol.z))) {
			return finish(StopProven, &sol)
		}
		if !phase1 && covered && sol.z-best <= s.tol*max(m.costScale, math.Abs(sol.z)) {
			return finish(StopConverged, &sol)
		}
		// Wentges smoothing: price at α·center + (1−α)·π, with α
		// shrinking to 0 after each mispricing (no column that prices
		// out at π), so the last try prices at π itself.
		alpha := 0.0
		if haveCenter && !phase1 {
			alpha = SmoothingAlpha
		}
		// Pricing effort grows only when a cheaper round finds nothing:
		// branch and bound first with extraNodeLimit nodes, then
		// NodeLimit, then escalateNodes × NodeLimit (the DP is exact
		// at every level).
		added, level := false, 0
		limits := [...]int{min(s.nodeLimit, extraNodeLimit), s.nodeLimit, s.nodeLimit * escalateNodes}
		for miss := 1; ; miss++ {
			pi := sol.pi
			if alpha > 0 {
				for i := range sep {
					sep[i] = alpha*center[i] + (1-alpha)*sol.pi[i]
				}
				pi = sep
			}
			pr.screen, pr.prove, pr.best = !phase1, !phase1, best
			lb, theta, infeasible := pr.run(pi, limits[level])
			pr.prove = false
			if infeasible {
				s.infeasible = fmt.Errorf("%w: the bin type limits cannot hold the demand (dual certificate: Σ π·d exceeds Σ limit × max pattern value)", ErrInfeasible)
				return finish(StopConverged, &sol)
			}
			if lb > best && !phase1 {
				best = lb
				for i := range center {
					center[i] = theta * pi[i]
				}
				haveCenter = true
			}
			var enter []column
			pending := false // a column might still price out
			tightened := false
			for k, b := range m.bins {
				c, scale := b.cost, m.costScale
				if phase1 {
					c, scale = 0, 1
				}
				if c+sol.mu[k]-pr.pats[k].value(sol.pi) < -s.tol*scale {
					enter = append(enter, pr.pats[k])
				} else if alpha == 0 && c+sol.mu[k]-pr.U[k] < -s.tol*scale {
					// At the last level, the grid DP settles it where
					// it applies.
					if level+1 == len(limits) && pr.exact(pi, k) {
						if c+sol.mu[k]-pr.pats[k].value(sol.pi) < -s.tol*scale {
							enter = append(enter, pr.pats[k])
						}
						continue
					}
					// Else the line DPs may show that nothing prices out.
					if level+1 == len(limits) {
						pr.lines(pi, k)
						tightened = true
						if c+sol.mu[k]-pr.U[k] >= -s.tol*scale {
							continue
						}
					}
					pending = true
				}
			}
			if tightened && !phase1 {
				// The bound at the tightened upper bounds.
				P := 0.0
				for i, it := range m.items {
					P += pi[i] * float64(it.count)
				}
				if lb, theta, _ := lagrangian(P, m.bins, pr.U); lb > best {
					best = lb
					for i := range center {
						center[i] = theta * pi[i]
					}
					haveCenter = true
				}
			}
			if len(enter) > 0 {
				enter = append(enter, s.disjoint(pr, enter, &sol, phase1)...)
			}
			if len(enter) > 0 && s.add(enter) > 0 {
				added = true
				break
			}
			if alpha > 0 {
				alpha = max(0, 1-float64(miss+1)*(1-SmoothingAlpha))
				if alpha < 1e-3 {
					alpha = 0
				}
				continue
			}
			if pending && level+1 < len(limits) {
				level++
				continue
			}
			if len(enter) > 0 || pending {
				return finish(StopStalled, &sol)
			}
			break
		}
		if added {
			continue
		}
		if phase1 {
			if covered {
				phase1 = false
				s.ms.setPhase1(false)
				continue
			}
			s.infeasible = fmt.Errorf("%w: the bin type limits cannot hold the demand (%g items stay uncovered in the LP)", ErrInfeasible, sol.uncover)
			return finish(StopConverged, &sol)
		}
		return finish(StopConverged, &sol)
	}
}

package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
)

// Sentinel errors of this package. Malformed, infeasible and unbounded
// problems wrap lpbound's sentinels (lpbound.ErrInvalid, ErrInfeasible,
// ErrUnbounded), exactly as lpbound.Solve reports them.
var (
	// ErrNoSolution: a limit of the cbc.Options stopped CBC before it had
	// any packing (and the greedy start found none either).
	ErrNoSolution = errors.New("exact: no packing found within the limits")
	// ErrVerify: the packing CBC returned breaks a capacity, a limit or a
	// demand (Verify); a bug or a numerical failure, never returned as a
	// result.
	ErrVerify = errors.New("exact: packing fails verification")
)

// Result of Solve.
type Result struct {
	// Opt is the cost of Machines under the objective: the optimum when
	// Proven, an upper bound on it otherwise.
	Opt float64 `json:"opt"`
	// Proven: CBC proved Opt optimal.
	Proven bool `json:"proven"`
	// Bound is CBC's best bound: Bound ≤ optimum ≤ Opt (Bound = Opt when
	// Proven). Not rounded up, even when every cost is an integer.
	Bound float64 `json:"bound"`
	// Machines is the packing, verified: the open machines by bin type
	// (in the order of Problem.Bins), each with the copies of every item
	// type on it. A negative-cost type's machines are all open, maybe
	// empty.
	Machines []Machine `json:"machines"`
	// Candidates is n_k per bin type (see the package comment).
	Candidates []int `json:"candidates"`
	// Status is CBC's (cbc.Optimal when Proven, else cbc.Feasible).
	Status  cbc.Status `json:"status"`
	Nodes   int        `json:"nodes"`
	Seconds float64    `json:"seconds"`
}

// Machine is one machine of a packing.
type Machine struct {
	// Bin is the bin type's name ("#k" if unnamed, as in lpbound).
	Bin string `json:"bin"`
	// Items maps item type names ("#i" if unnamed) to copies, each > 0.
	Items map[string]int `json:"items"`
}

// Solve returns the optimal packing of p under obj (lpbound.MinCost or
// lpbound.MinCount), solving the assignment formulation (package comment)
// with CBC under opts; opts.Start must be nil (Solve makes its own start
// from a greedy packing). When a limit of opts stops CBC with a packing,
// the Result has Proven false; without one, Solve returns ErrNoSolution.
// Every returned packing has passed Verify.
func Solve(ctx context.Context, p *lpbound.Problem, obj lpbound.Objective, opts cbc.Options) (*Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Start != nil {
		return nil, fmt.Errorf("%w: cbc.Options.Start is set; exact builds its own start", lpbound.ErrInvalid)
	}
	in, err := newInst(p, obj)
	if err != nil {
		return nil, err
	}
	f := in.formulate()
	res := &Result{Candidates: f.n, Status: cbc.Optimal, Proven: true}
	if f.prob.NumCols() == 0 { // no demand and no negative-cost type
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	opts.Start = f.start
	r, err := cbc.Solve(ctx, f.prob, opts)
	if err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	res.Status, res.Nodes = r.Status, r.Nodes
	switch r.Status {
	case cbc.Optimal, cbc.Feasible:
	case cbc.Infeasible:
		return nil, fmt.Errorf("%w: no packing of the items fits the machine limits (proven by CBC)", lpbound.ErrInfeasible)
	case cbc.NoSolution:
		return nil, fmt.Errorf("%w (CBC: %v after %d nodes)", ErrNoSolution, r.Status, r.Nodes)
	default:
		return nil, fmt.Errorf("exact: unexpected CBC status %v", r.Status)
	}
	res.Proven = r.Status == cbc.Optimal
	res.Machines = f.machines(in, r.X)
	cost, err := Verify(p, obj, res.Machines)
	if err != nil {
		return nil, err
	}
	if math.Abs(cost-r.Objective) > 1e-6*math.Max(1, math.Abs(cost)) {
		return nil, fmt.Errorf("%w: the machines cost %g, CBC's objective is %g", ErrVerify, cost, r.Objective)
	}
	res.Opt = cost
	res.Bound = math.Min(r.BestBound, cost)
	if res.Proven {
		res.Bound = cost
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// formulation is the assignment MIP of an inst.
type formulation struct {
	prob  *cbc.Problem
	start []float64 // MIP start, nil if the greedy packing failed
	n     []int     // candidate machines per bin type
	// y[k][m] is the column of machine m of type k; x[k][m] maps item
	// type → column.
	y [][]int
	x [][]map[int]int
}

// candidates returns n_k per bin type and the greedy packing (nil if it
// failed) within them.
func (in *inst) candidates() ([]int, []*packed) {
	n := make([]int, len(in.bins))
	for k, b := range in.bins {
		if b.cost < 0 {
			n[k] = b.limit
			continue
		}
		n[k] = in.firstFit(k)
		if b.limit > 0 {
			n[k] = min(n[k], b.limit)
		}
	}
	pk := in.greedy(n)
	if pk == nil {
		return n, nil
	}
	// B: what the positive-cost types may cost in an optimal packing.
	budget := 0.0
	for _, mc := range pk {
		budget += in.bins[mc.bin].cost
	}
	for _, b := range in.bins {
		if b.cost < 0 {
			budget -= b.cost * float64(b.limit)
		}
	}
	for k, b := range in.bins {
		if b.cost > 0 {
			n[k] = min(n[k], int(math.Floor(budget/b.cost+1e-9)))
		}
	}
	return n, pk
}

func (in *inst) formulate() *formulation {
	n, pk := in.candidates()
	f := &formulation{n: n, y: make([][]int, len(in.bins)), x: make([][]map[int]int, len(in.bins))}
	p := &cbc.Problem{}
	col := func(obj, up float64, nz []cbc.Nonzero) int {
		p.Obj = append(p.Obj, obj)
		p.ColLower = append(p.ColLower, 0)
		p.ColUpper = append(p.ColUpper, up)
		p.Integer = append(p.Integer, true)
		p.Cols = append(p.Cols, nz)
		return len(p.Obj) - 1
	}
	row := func(lo, up float64) int {
		p.RowLower = append(p.RowLower, lo)
		p.RowUpper = append(p.RowUpper, up)
		return len(p.RowLower) - 1
	}
	// Demand rows first: row i is item type i.
	for _, it := range in.items {
		row(float64(it.count), float64(it.count))
	}
	inf := math.Inf(1)
	cliques := make([][][]int, len(in.bins))
	for k := range in.bins {
		cliques[k] = in.cliques(k)
	}
	for k, b := range in.bins {
		f.y[k] = make([]int, n[k])
		f.x[k] = make([]map[int]int, n[k])
		for m := range n[k] {
			y := col(b.cost, 1, nil)
			f.y[k][m] = y
			f.x[k][m] = map[int]int{}
			// Capacity rows of this machine, in the dimensions some
			// fitting item uses.
			capRow := make([]int, in.dims)
			for j := range in.dims {
				capRow[j] = -1
				for _, it := range in.items {
					if s := it.size[k]; s != nil && s[j] > 0 {
						capRow[j] = row(-inf, 0)
						p.Cols[y] = append(p.Cols[y], cbc.Nonzero{Row: capRow[j], Value: -(b.cap[j] + lpbound.FitSlack)})
						break
					}
				}
			}
			for i, it := range in.items {
				s := it.size[k]
				if s == nil {
					continue
				}
				u := maxCopies(s, b.cap, it.count)
				nz := []cbc.Nonzero{{Row: i, Value: 1}}
				for j, r := range capRow {
					if r >= 0 && s[j] > 0 {
						nz = append(nz, cbc.Nonzero{Row: r, Value: s[j]})
					}
				}
				link := row(-inf, 0) // x − u·y ≤ 0
				nz = append(nz, cbc.Nonzero{Row: link, Value: 1})
				p.Cols[y] = append(p.Cols[y], cbc.Nonzero{Row: link, Value: -float64(u)})
				f.x[k][m][i] = col(0, float64(u), nz)
			}
			for _, q := range cliques[k] { // Σ_{i∈Q} x_ikm − y_km ≤ 0
				r := row(-inf, 0)
				for _, i := range q {
					c := f.x[k][m][i]
					p.Cols[c] = append(p.Cols[c], cbc.Nonzero{Row: r, Value: 1})
				}
				p.Cols[y] = append(p.Cols[y], cbc.Nonzero{Row: r, Value: -1})
			}
			if m > 0 { // y_k,m−1 − y_k,m ≥ 0
				r := row(0, inf)
				prev := f.y[k][m-1]
				p.Cols[prev] = append(p.Cols[prev], cbc.Nonzero{Row: r, Value: 1})
				p.Cols[y] = append(p.Cols[y], cbc.Nonzero{Row: r, Value: -1})
			}
		}
	}
	f.prob = p
	if pk != nil {
		f.start = make([]float64, len(p.Obj))
		next := make([]int, len(in.bins))
		for _, mc := range pk {
			m := next[mc.bin]
			if m >= n[mc.bin] { // cannot happen: the budget counts these machines
				f.start = nil
				break
			}
			next[mc.bin]++
			f.start[f.y[mc.bin][m]] = 1
			for i, c := range mc.cnt {
				f.start[f.x[mc.bin][m][i]] = float64(c)
			}
		}
	}
	return f
}

// machines reads the open machines from a solution.
func (f *formulation) machines(in *inst, x []float64) []Machine {
	var out []Machine
	for k := range f.y {
		for m, y := range f.y[k] {
			if x[y] < 0.5 {
				continue
			}
			mc := Machine{Bin: in.bins[k].name, Items: map[string]int{}}
			for i, c := range f.x[k][m] {
				if v := int(math.Round(x[c])); v > 0 {
					mc.Items[in.items[i].name] = v
				}
			}
			out = append(out, mc)
		}
	}
	return out
}

package cbc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

var inf = math.Inf(1)

// dense builds a Problem from a row-major matrix (zeros skipped).
func dense(obj, lo, up []float64, integer []bool, a [][]float64, rlo, rup []float64) *Problem {
	p := &Problem{Obj: obj, ColLower: lo, ColUpper: up, Integer: integer, RowLower: rlo, RowUpper: rup, Cols: make([][]Nonzero, len(obj))}
	for r, row := range a {
		for j, v := range row {
			if v != 0 {
				p.Cols[j] = append(p.Cols[j], Nonzero{r, v})
			}
		}
	}
	return p
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func bools(n int, v bool) []bool {
	s := make([]bool, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// feasible reports whether x satisfies p's bounds, rows and integrality
// (to tol), and returns the first violation.
func feasible(p *Problem, x []float64, tol float64) (bool, string) {
	if len(x) != p.NumCols() {
		return false, "length"
	}
	act := make([]float64, p.NumRows())
	for j, v := range x {
		if v < p.ColLower[j]-tol || v > p.ColUpper[j]+tol {
			return false, "column " + strconv.Itoa(j) + " out of bounds"
		}
		if p.Integer[j] && v != math.Round(v) {
			return false, "column " + strconv.Itoa(j) + " fractional"
		}
		for _, e := range p.Cols[j] {
			act[e.Row] += e.Value * v
		}
	}
	for r, a := range act {
		if a < p.RowLower[r]-tol || a > p.RowUpper[r]+tol {
			return false, "row " + strconv.Itoa(r) + " violated"
		}
	}
	return true, ""
}

// knapsack3 is a 3-row integer knapsack: max 5a+4b+3c with
// 2a+3b+c ≤ 5, 4a+b+2c ≤ 11, 3a+4b+2c ≤ 8; optimum 13 at (2, 0, 1).
func knapsack3() *Problem {
	return dense([]float64{-5, -4, -3}, fill(3, 0), fill(3, inf), bools(3, true),
		[][]float64{{2, 3, 1}, {4, 1, 2}, {3, 4, 2}}, fill(3, -inf), []float64{5, 11, 8})
}

// assignment3 assigns 3 workers to 3 jobs, cost[i][j]; optimum 5
// (0→1, 1→0, 2→2). Columns x_ij at 3i+j; rows: each worker once, each job
// once.
func assignment3() *Problem {
	cost := [][]float64{{4, 1, 3}, {2, 0, 5}, {3, 2, 2}}
	a := make([][]float64, 6)
	obj := make([]float64, 9)
	for r := range a {
		a[r] = make([]float64, 9)
	}
	for i := range 3 {
		for j := range 3 {
			obj[3*i+j] = cost[i][j]
			a[i][3*i+j] = 1
			a[3+j][3*i+j] = 1
		}
	}
	return dense(obj, fill(9, 0), fill(9, 1), bools(9, true), a, fill(6, 1), fill(6, 1))
}

// marketSplit is a market split problem (Cornuéjols and Dawande): m
// equality rows over n binaries, a_ij uniform in [0, 99] and d = A x* for a
// random x*, so a solution exists (x*, returned) but branch and bound
// struggles to find one. withSlack adds a free surplus and deficit column
// per row at cost 1: then every x is feasible and x* is optimal (0).
func marketSplit(m, n int, seed uint64, withSlack bool) (*Problem, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	nc := n
	if withSlack {
		nc += 2 * m
	}
	p := &Problem{Obj: make([]float64, nc), ColLower: make([]float64, nc), ColUpper: make([]float64, nc),
		Integer: make([]bool, nc), RowLower: make([]float64, m), RowUpper: make([]float64, m), Cols: make([][]Nonzero, nc)}
	xs := make([]float64, nc)
	for j := range n {
		p.ColUpper[j] = 1
		p.Integer[j] = true
		xs[j] = float64(r.IntN(2))
	}
	for i := range m {
		s := 0.0
		for j := range n {
			a := float64(r.IntN(100))
			p.Cols[j] = append(p.Cols[j], Nonzero{i, a})
			s += a * xs[j]
		}
		p.RowLower[i], p.RowUpper[i] = s, s
	}
	if withSlack {
		for i := range m {
			for s, c := range []float64{1, -1} {
				j := n + 2*i + s
				p.Cols[j] = []Nonzero{{i, c}}
				p.ColUpper[j] = inf
				p.Obj[j] = 1
			}
		}
	}
	return p, xs
}

// multiKnapsack is a 0-1 multidimensional knapsack (maximize, as a
// minimization of −value): m rows, n items, weights and values in
// [1, 1000], capacities half the row sums. CBC's root gap on it is near 1%.
func multiKnapsack(m, n int, seed uint64) *Problem {
	r := rand.New(rand.NewPCG(seed, 2))
	p := &Problem{Obj: make([]float64, n), ColLower: make([]float64, n), ColUpper: fill(n, 1),
		Integer: bools(n, true), RowLower: fill(m, -inf), RowUpper: make([]float64, m), Cols: make([][]Nonzero, n)}
	for j := range n {
		p.Obj[j] = -float64(1 + r.IntN(1000))
		for i := range m {
			a := float64(1 + r.IntN(1000))
			p.RowUpper[i] += a / 2
			p.Cols[j] = append(p.Cols[j], Nonzero{i, a})
		}
	}
	for i := range p.RowUpper {
		p.RowUpper[i] = math.Floor(p.RowUpper[i])
	}
	return p
}

// TestKnownOptima: small MIPs (and an LP) with optima known by hand.
func TestKnownOptima(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *Problem
		obj  float64
		x    []float64
	}{
		{"knapsack3", knapsack3(), -13, []float64{2, 0, 1}},
		// 0-1 knapsack: values 60, 100, 120, weights 10, 20, 30, capacity
		// 50: take the last two (220); the LP takes 2/3 of the first too.
		{"knapsack01", dense([]float64{-60, -100, -120}, fill(3, 0), fill(3, 1), bools(3, true),
			[][]float64{{10, 20, 30}}, []float64{-inf}, []float64{50}), -220, []float64{0, 1, 1}},
		{"assignment3", assignment3(), 5, []float64{0, 1, 0, 1, 0, 0, 0, 0, 1}},
		// Mixed: y integer in [-3, 3], z continuous, z ≥ y − 0.5 and
		// z ≥ 0.5 − y: minimize z + 0.1 y → y = 0 or 1 give z = 0.5;
		// y = 0 is cheaper (0.5).
		{"mixed", dense([]float64{0.1, 1}, []float64{-3, -inf}, []float64{3, inf}, []bool{true, false},
			[][]float64{{-1, 1}, {1, 1}}, []float64{-0.5, 0.5}, []float64{inf, inf}), 0.5, []float64{0, 0.5}},
		// An LP (no integer column): max x + y, x + 2y ≤ 1.5 → x = 1.5.
		{"lp", dense([]float64{-1, -1}, fill(2, 0), fill(2, inf), bools(2, false),
			[][]float64{{1, 2}}, []float64{-inf}, []float64{1.5}), -1.5, []float64{1.5, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(context.Background(), c.p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != Optimal {
				t.Fatalf("status %v, want optimal", r.Status)
			}
			if math.Abs(r.Objective-c.obj) > 1e-9 || math.Abs(r.BestBound-c.obj) > 1e-6 {
				t.Errorf("objective %g, bound %g, want %g", r.Objective, r.BestBound, c.obj)
			}
			for j := range c.x {
				if math.Abs(r.X[j]-c.x[j]) > 1e-9 {
					t.Fatalf("x = %v, want %v", r.X, c.x)
				}
			}
		})
	}
}

// TestStatusTable: what CBC 2.10 itself reports in each situation (the
// table in doc.go) and the Status Solve makes of it.
func TestStatusTable(t *testing.T) {
	ms, _ := marketSplit(4, 40, 1, false) // hard, no solution found quickly
	mss, _ := marketSplit(4, 40, 1, true) // hard to prove, solutions easy
	unb := dense([]float64{-1, 0}, fill(2, 0), fill(2, inf), []bool{true, false},
		[][]float64{{1, 1}}, []float64{0}, []float64{inf})
	lpUnb := dense([]float64{-1, 0}, fill(2, 0), fill(2, inf), bools(2, false),
		[][]float64{{1, 1}}, []float64{0}, []float64{inf})
	lpInf := dense([]float64{1, 1}, fill(2, 0), fill(2, 1), bools(2, false),
		[][]float64{{1, 1}}, []float64{3}, []float64{3})
	infeasible := dense([]float64{1, 1}, fill(2, 0), fill(2, 1), bools(2, true),
		[][]float64{{2, 2}}, []float64{1}, []float64{1})
	const noSol, sol = false, true
	for _, c := range []struct {
		name         string
		p            *Problem
		o            Options
		status, sec  int
		optimal, has bool
		want         Status
	}{
		{"optimal", knapsack3(), Options{}, 0, 0, true, sol, Optimal},
		{"infeasible", infeasible, Options{}, 0, 1, false, noSol, Infeasible},
		{"time limit, no solution", ms, Options{TimeLimit: 100 * time.Millisecond}, 1, 4, false, noSol, NoSolution},
		{"time limit, solution", mss, Options{TimeLimit: 100 * time.Millisecond}, 1, 4, false, sol, Feasible},
		{"node limit, no solution", ms, Options{MaxNodes: 50}, 1, 3, false, noSol, NoSolution},
		{"node limit, solution", mss, Options{MaxNodes: 50}, 1, 3, false, sol, Feasible},
		{"ratio gap", multiKnapsack(5, 60, 1), Options{RelGap: 0.02}, 0, 2, true, sol, Feasible},
		{"unbounded", unb, Options{}, 0, 7, false, noSol, Unbounded},
		{"lp unbounded", lpUnb, Options{}, 0, 7, false, noSol, Unbounded},
		{"lp infeasible", lpInf, Options{}, 0, 1, false, noSol, Infeasible},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(context.Background(), c.p, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if r.raw.status != c.status || r.raw.secondary != c.sec || (r.raw.provenOptimal == 1) != c.optimal || r.raw.solution != c.has {
				t.Errorf("CBC said %+v, want status %d, secondary %d, proven optimal %v, solution %v", r.raw, c.status, c.sec, c.optimal, c.has)
			}
			if r.Status != c.want {
				t.Errorf("status %v, want %v", r.Status, c.want)
			}
			if r.Status.HasSolution() != (r.X != nil) {
				t.Errorf("status %v with X = %v", r.Status, r.X)
			}
			if r.X != nil {
				if ok, why := feasible(c.p, r.X, 1e-6); !ok {
					t.Errorf("X infeasible: %s", why)
				}
				if r.BestBound > r.Objective+1e-9 {
					t.Errorf("bound %g above objective %g", r.BestBound, r.Objective)
				}
			} else if !math.IsInf(r.Objective, 1) {
				t.Errorf("objective %g without a solution, want +Inf", r.Objective)
			}
			if c.o.MaxNodes > 0 && r.Nodes > c.o.MaxNodes {
				t.Errorf("%d nodes, limit %d", r.Nodes, c.o.MaxNodes)
			}
		})
	}
}

// TestContext: a done context stops Solve before it builds a model; one
// cancelled during a solve stops CBC through the event handler (status 5,
// secondary 5 "stopped on user event") and Solve returns its error. The
// market split problem takes CBC about two minutes; the 20 s time limit
// makes a broken stop fail the test instead of hanging it.
func TestContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, knapsack3(), Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: err = %v, want context.Canceled", err)
	}

	ms, _ := marketSplit(4, 40, 1, false)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	r, err := solve(ctx, ms, Options{TimeLimit: 20 * time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled mid-solve: err = %v (result %+v), want context.Canceled", err, r)
	}
	if r.raw.status != 5 || r.raw.secondary != 5 {
		t.Errorf("CBC said %+v, want status 5, secondary 5", r.raw)
	}
}

// TestMIPStart: on the market split problem with slacks, 50 nodes leave
// CBC with a positive slack on its own; given x* as a start it returns
// slack 0, proven optimal (the LP bound is 0) without branching. An
// infeasible start is ignored, not an error.
func TestMIPStart(t *testing.T) {
	p, xs := marketSplit(4, 40, 1, true)
	plain, err := Solve(context.Background(), p, Options{MaxNodes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Objective < 1 {
		t.Fatalf("without a start: objective %g; the test needs a problem CBC does not solve in 50 nodes", plain.Objective)
	}
	r, err := Solve(context.Background(), p, Options{MaxNodes: 50, Start: xs})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Optimal || r.Objective != 0 {
		t.Errorf("with x* as start: %v, objective %g, want optimal 0", r.Status, r.Objective)
	}

	// Infeasible start for knapsack3: (3, 3, 3) breaks every row.
	r, err = Solve(context.Background(), knapsack3(), Options{Start: []float64{3, 3, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Optimal || r.Objective != -13 {
		t.Errorf("infeasible start: %v, objective %g, want optimal -13", r.Status, r.Objective)
	}
}

// TestValidation: every malformed problem or option is refused with an
// error naming the culprit, before CBC sees it.
func TestValidation(t *testing.T) {
	nan := math.NaN()
	good := func() *Problem { return knapsack3() }
	for _, c := range []struct {
		name string
		edit func(p *Problem, o *Options)
		want string
	}{
		{"no columns", func(p *Problem, o *Options) { *p = Problem{} }, "no columns"},
		{"short ColUpper", func(p *Problem, o *Options) { p.ColUpper = p.ColUpper[:2] }, "len(ColUpper) = 2, want len(Obj) = 3"},
		{"short Integer", func(p *Problem, o *Options) { p.Integer = nil }, "len(Integer) = 0"},
		{"short Cols", func(p *Problem, o *Options) { p.Cols = p.Cols[:1] }, "len(Cols) = 1"},
		{"short RowUpper", func(p *Problem, o *Options) { p.RowUpper = p.RowUpper[:2] }, "len(RowUpper) = 2, want len(RowLower) = 3"},
		{"NaN objective", func(p *Problem, o *Options) { p.Obj[1] = nan }, "column 1: objective = NaN"},
		{"infinite objective", func(p *Problem, o *Options) { p.Obj[0] = inf }, "column 0: objective = +Inf"},
		{"NaN coefficient", func(p *Problem, o *Options) { p.Cols[2][1].Value = nan }, "column 2: coefficient in row 1 = NaN"},
		{"huge coefficient", func(p *Problem, o *Options) { p.Cols[2][1].Value = 1e25 }, "column 2: coefficient in row 1 = 1e+25"},
		{"row out of range", func(p *Problem, o *Options) { p.Cols[0][0].Row = 3 }, "column 0: nonzero in row 3"},
		{"negative row", func(p *Problem, o *Options) { p.Cols[0][0].Row = -1 }, "column 0: nonzero in row -1"},
		{"duplicate row", func(p *Problem, o *Options) { p.Cols[1][1].Row = 0 }, "column 1: row 0 appears twice"},
		{"column lower > upper", func(p *Problem, o *Options) { p.ColLower[0], p.ColUpper[0] = 2, 1 }, "column 0: lower bound 2 > upper bound 1"},
		{"NaN column bound", func(p *Problem, o *Options) { p.ColUpper[2] = nan }, "column 2: upper bound NaN"},
		{"lower +Inf", func(p *Problem, o *Options) { p.ColLower[0] = inf }, "column 0: lower bound +Inf"},
		{"huge finite bound", func(p *Problem, o *Options) { p.ColUpper[0] = 1e28 }, "column 0: upper bound 1e+28"},
		{"fractional integer bound", func(p *Problem, o *Options) { p.ColUpper[0] = 2.5 }, "column 0: integer column with bounds [0, 2.5]"},
		{"row lower > upper", func(p *Problem, o *Options) { p.RowLower[1] = 12 }, "row 1: lower bound 12 > upper bound 11"},
		{"NaN row bound", func(p *Problem, o *Options) { p.RowUpper[2] = nan }, "row 2: upper bound NaN"},
		{"row upper -Inf", func(p *Problem, o *Options) { p.RowUpper[0] = -inf }, "row 0: upper bound -Inf"},
		{"negative time limit", func(p *Problem, o *Options) { o.TimeLimit = -time.Second }, "TimeLimit -1s < 0"},
		{"NaN gap", func(p *Problem, o *Options) { o.RelGap = nan }, "RelGap NaN"},
		{"negative gap", func(p *Problem, o *Options) { o.RelGap = -0.1 }, "RelGap -0.1"},
		{"negative nodes", func(p *Problem, o *Options) { o.MaxNodes = -1 }, "MaxNodes -1 < 0"},
		{"short start", func(p *Problem, o *Options) { o.Start = []float64{1} }, "len(Start) = 1, want 3 columns"},
		{"NaN start", func(p *Problem, o *Options) { o.Start = []float64{0, nan, 0} }, "Start[1] = NaN"},
		{"start out of bounds", func(p *Problem, o *Options) { o.Start = []float64{-1, 0, 0} }, "Start[0] = -1 outside"},
		{"fractional start", func(p *Problem, o *Options) { o.Start = []float64{0, 0.5, 0} }, "Start[1] = 0.5 on an integer column"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, o := good(), Options{}
			c.edit(p, &o)
			_, err := Solve(context.Background(), p, o)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrInvalid containing %q", err, c.want)
			}
		})
	}
	if _, err := Solve(context.Background(), nil, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil problem: err = %v", err)
	}
}

// fingerprint is a Result without Seconds, as bits.
func fingerprint(r *Result) []uint64 {
	f := []uint64{uint64(r.Status), math.Float64bits(r.Objective), math.Float64bits(r.BestBound), uint64(r.Nodes)}
	for _, v := range r.X {
		f = append(f, math.Float64bits(v))
	}
	return f
}

// TestDeterministic: the same problem solved again — also from several
// goroutines at once, which Solve serializes — gives the same Result bit
// for bit (Seconds aside), on a problem that needs branching.
func TestDeterministic(t *testing.T) {
	probs := []*Problem{multiKnapsack(5, 60, 1), multiKnapsack(3, 40, 7)}
	want := make([][]uint64, len(probs))
	for i, p := range probs {
		r, err := Solve(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Optimal || r.Nodes == 0 {
			t.Fatalf("problem %d: %v after %d nodes; want optimal after branching", i, r.Status, r.Nodes)
		}
		want[i] = fingerprint(r)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 4 {
		wg.Go(func() {
			for i := range probs {
				i := (i + g) % len(probs)
				r, err := Solve(context.Background(), probs[i], Options{})
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := fingerprint(r); !reflect.DeepEqual(got, want[i]) {
					errs <- "problem " + strconv.Itoa(i) + ": result differs from the first solve"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestBruteForce: random small integer programs (3–5 columns with bounds
// in [-2, 3], 1–4 ranged or one-sided rows with coefficients in [-5, 5]),
// against enumeration of every integer point. About a fifth are
// infeasible.
func TestBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	counts := map[Status]int{}
	for trial := range 300 {
		n, m := 3+r.IntN(3), 1+r.IntN(4)
		p := &Problem{Obj: make([]float64, n), ColLower: make([]float64, n), ColUpper: make([]float64, n),
			Integer: bools(n, true), RowLower: make([]float64, m), RowUpper: make([]float64, m), Cols: make([][]Nonzero, n)}
		for j := range n {
			p.Obj[j] = float64(r.IntN(11) - 5)
			p.ColLower[j] = float64(-r.IntN(3))
			p.ColUpper[j] = p.ColLower[j] + float64(r.IntN(4))
		}
		for i := range m {
			for j := range n {
				if v := float64(r.IntN(11) - 5); v != 0 {
					p.Cols[j] = append(p.Cols[j], Nonzero{i, v})
				}
			}
			lo := float64(r.IntN(11) - 5)
			p.RowLower[i], p.RowUpper[i] = lo, lo+float64(r.IntN(4))
			switch r.IntN(4) {
			case 0:
				p.RowLower[i] = -inf
			case 1:
				p.RowUpper[i] = inf
			}
		}
		best, found := enumerate(p)
		res, err := Solve(context.Background(), p, Options{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		counts[res.Status]++
		switch {
		case !found && res.Status != Infeasible:
			t.Fatalf("trial %d: %v (objective %g), enumeration finds no solution", trial, res.Status, res.Objective)
		case found && (res.Status != Optimal || res.Objective != best):
			t.Fatalf("trial %d: %v objective %g, enumeration finds %g", trial, res.Status, res.Objective, best)
		case found:
			if ok, why := feasible(p, res.X, 1e-9); !ok {
				t.Fatalf("trial %d: X infeasible: %s", trial, why)
			}
		}
	}
	if counts[Optimal] < 100 || counts[Infeasible] < 20 {
		t.Errorf("outcomes %v: want both optimal and infeasible cases", counts)
	}
}

// enumerate is the brute-force optimum of an all-integer p with finite
// bounds.
func enumerate(p *Problem) (best float64, found bool) {
	n := p.NumCols()
	x := make([]float64, n)
	copy(x, p.ColLower)
	best = inf
	for {
		if ok, _ := feasible(p, x, 0); ok {
			v := 0.0
			for j := range n {
				v += p.Obj[j] * x[j]
			}
			if v < best {
				best, found = v, true
			}
		}
		j := 0
		for ; j < n; j++ {
			if x[j] < p.ColUpper[j] {
				x[j]++
				break
			}
			x[j] = p.ColLower[j]
		}
		if j == n {
			return best, found
		}
	}
}

// TestLPAgainstGonum: random LPs min c·x, A x = b, x ≥ 0 (b = A x0 for a
// random x0 ≥ 1, c ≥ 0, so they are feasible and bounded; at least two
// more columns than rows) solved by CBC (no integer column) and by gonum's
// simplex. (With square A and a degenerate x0, gonum v0.17 calls some of
// these infeasible.)
func TestLPAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for trial := range 50 {
		m := 2 + r.IntN(3)
		n := m + 2 + r.IntN(4)
		a := mat.NewDense(m, n, nil)
		c := make([]float64, n)
		b := make([]float64, m)
		rows := make([][]float64, m)
		x0 := make([]float64, n)
		for j := range n {
			c[j] = float64(r.IntN(10))
			x0[j] = float64(1 + r.IntN(3))
		}
		for i := range m {
			rows[i] = make([]float64, n)
			for j := range n {
				v := float64(1 + r.IntN(5)) // no zero: gonum refuses a zero column
				if r.IntN(2) == 0 {
					v = -v
				}
				rows[i][j] = v
				a.Set(i, j, v)
				b[i] += v * x0[j]
			}
		}
		want, _, err := lp.Simplex(c, a, b, 0, nil)
		if err != nil {
			t.Fatalf("trial %d: gonum: %v", trial, err)
		}
		p := dense(c, fill(n, 0), fill(n, inf), bools(n, false), rows, b, b)
		res, err := Solve(context.Background(), p, Options{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if res.Status != Optimal || math.Abs(res.Objective-want) > 1e-6*(1+math.Abs(want)) {
			t.Fatalf("trial %d: %v objective %g, gonum %g", trial, res.Status, res.Objective, want)
		}
		if ok, why := feasible(p, res.X, 1e-7); !ok {
			t.Fatalf("trial %d: X infeasible: %s", trial, why)
		}
	}
}

// TestNoLeak: Solve frees its CBC model. 300 solves of a 3-column
// problem grow the resident set by far less than the ~190 KB each model
// would leak (measured by removing Cbc_deleteModel: 56 MB over 300 solves;
// with it, about 1 KB per solve).
func TestNoLeak(t *testing.T) {
	p := knapsack3()
	solveN := func(k int) {
		for range k {
			if _, err := Solve(context.Background(), p, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	solveN(50) // warm up the allocators
	before := rss(t)
	solveN(300)
	if grew := rss(t) - before; grew > 15<<20 {
		t.Errorf("resident set grew by %d MB over 300 solves", grew>>20)
	}
}

// rss is the resident set size of the process, from /proc/self/statm.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

func TestStatusText(t *testing.T) {
	for s := Optimal; s <= Unbounded; s++ {
		b, err := s.MarshalText()
		if err != nil || string(b) != s.String() {
			t.Fatalf("%d: %q, %v", int(s), b, err)
		}
		var back Status
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Fatalf("%q: %v, %v", b, back, err)
		}
	}
	if _, err := Status(0).MarshalText(); err == nil {
		t.Error("Status(0) marshalled")
	}
	var s Status
	if err := s.UnmarshalText([]byte("bogus")); err == nil {
		t.Error("bogus status accepted")
	}
	if Status(9).String() != "Status(9)" {
		t.Error(Status(9).String())
	}
}

// TestSatisfies: the check Solve applies to a MIP start before it
// believes CBC's "infeasible".
func TestSatisfies(t *testing.T) {
	p := knapsack3()
	for _, c := range []struct {
		x    []float64
		want bool
	}{
		{[]float64{2, 0, 1}, true},
		{[]float64{0, 0, 0}, true},
		{[]float64{2, 0, 2}, false},        // row 0: 6 > 5
		{[]float64{-1, 0, 0}, false},       // below the lower bound
		{[]float64{0.5, 0, 0}, false},      // fractional
		{[]float64{2, 0, 1 + 1e-7}, true},  // within the tolerance
		{[]float64{1, 1, 0.0000001}, true}, // 2+3+1e-7 ≤ 5 + tol
		{[]float64{1, 1, 1e-5}, false},     // fractional beyond the tolerance
	} {
		if got := p.satisfies(c.x, startTol); got != c.want {
			t.Errorf("satisfies(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

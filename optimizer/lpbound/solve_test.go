package lpbound

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// sized is an item type with the same size vector on every bin type.
func sized(name string, count int, size ...float64) ItemType {
	return ItemType{Name: name, Count: count, Sizes: [][]float64{size}}
}

// TestSolveHandSolved: small problems whose LP optimum was solved by hand
// (the working is in each comment).
func TestSolveHandSolved(t *testing.T) {
	cases := []struct {
		name    string
		p       Problem
		opts    Options
		lp      float64 // LP optimum
		bound   float64
		rounded bool
		optimum float64 // of the integer problem, ≥ bound
	}{
		{
			// Two 4s fit a 10, three do not: LP 3/2, OPT 2.
			name: "three items, two per bin",
			p:    Problem{Bins: []BinType{{Capacity: []float64{10}}}, Items: []ItemType{sized("a", 3, 4)}},
			lp:   1.5, bound: 2, rounded: true, optimum: 2,
		},
		{
			// {6,4} fills a bin exactly: LP = OPT = 3.
			name: "perfect pairs",
			p: Problem{Bins: []BinType{{Capacity: []float64{10}}}, Items: []ItemType{
				sized("six", 3, 6), sized("four", 3, 4)}},
			lp: 3, bound: 3, rounded: true, optimum: 3,
		},
		{
			// Patterns {a,b} (7,7), {a,c} (10,5), {b,c} (5,10); every
			// pattern holds two items and there are 5: LP ≥ 5/2, reached
			// by x = (1.5, .5, .5). OPT 3.
			name: "two dimensions",
			p: Problem{Bins: []BinType{{Capacity: []float64{10, 10}}}, Items: []ItemType{
				sized("a", 2, 6, 1), sized("b", 2, 1, 6), sized("c", 1, 4, 4)}},
			lp: 2.5, bound: 3, rounded: true, optimum: 3,
		},
		{
			// 0.1 + 0.2 + 0.7 is 1.0000000000000002 in floating point:
			// FitSlack lets the three share a machine, as
			// optimizer.Fits does. LP = OPT = 1.
			name: "fractions that sum to one",
			p: Problem{Bins: []BinType{{Capacity: []float64{1}}}, Items: []ItemType{
				sized("x", 1, 0.1), sized("y", 1, 0.2), sized("z", 1, 0.7)}},
			lp: 1, bound: 1, rounded: true, optimum: 1,
		},
		{
			// A costs 3 and holds two items, B costs 1, holds one and
			// is limited to 2. LP: two items on B (cost 2), three on
			// A at 1.5 each (4.5) = 6.5; duals π = 1.5, μ_B = 0.5:
			// 5·1.5 − 2·0.5 = 6.5. OPT 7 (2 A with two items each + 1 B;
			// this comment said 8 until the integer master found 7).
			name: "costs and a limit",
			p: Problem{Bins: []BinType{
				{Name: "A", Capacity: []float64{10}, Cost: 3},
				{Name: "B", Capacity: []float64{4}, Cost: 1, Limit: 2},
			}, Items: []ItemType{sized("four", 5, 4)}},
			lp: 6.5, bound: 7, rounded: true, optimum: 7,
		},
		{
			// The same problem counting machines: A holds two, so
			// LP 5/2 without B; B (one per machine) cannot do better.
			name: "costs ignored under MinCount",
			p: Problem{Bins: []BinType{
				{Name: "A", Capacity: []float64{10}, Cost: 3},
				{Name: "B", Capacity: []float64{4}, Cost: 1, Limit: 2},
			}, Items: []ItemType{sized("four", 5, 4)}},
			opts: Options{Objective: MinCount},
			lp:   2.5, bound: 3, rounded: true, optimum: 3,
		},
		{
			// Per-SKU sizes as in the Azure packing trace: x takes 0.5
			// of A or 0.25 of B; y takes 0.6 of A and does not fit B.
			// y alone on an A (0.4 left, x does not fit): 2 A; four x
			// fill one B. LP = OPT = 3.
			name: "per-bin-type sizes",
			p: Problem{Bins: []BinType{
				{Name: "A", Capacity: []float64{1}},
				{Name: "B", Capacity: []float64{1}},
			}, Items: []ItemType{
				{Name: "x", Count: 4, Sizes: [][]float64{{0.5}, {0.25}}},
				{Name: "y", Count: 2, Sizes: [][]float64{{0.6}, nil}},
			}},
			lp: 3, bound: 3, rounded: true, optimum: 3,
		},
		{
			// Non-integer costs: no rounding. A (cost 1.5) holds two
			// items, B (cost 1) one: per item 0.75 on A. LP = 3·0.75.
			name: "fractional costs are not rounded",
			p: Problem{Bins: []BinType{
				{Name: "A", Capacity: []float64{2}, Cost: 1.5},
				{Name: "B", Capacity: []float64{1}, Cost: 1},
			}, Items: []ItemType{sized("one", 3, 1)}},
			lp: 2.25, bound: 2.25, rounded: false, optimum: 2.5,
		},
		{
			// A limited type with a negative cost (a rebate) is used to
			// its limit even empty: LP = −1·2 + 1 (one item, cost 1).
			name: "negative cost with a limit",
			p: Problem{Bins: []BinType{
				{Name: "rebate", Capacity: []float64{1}, Cost: -1, Limit: 2},
				{Name: "std", Capacity: []float64{10}, Cost: 1},
			}, Items: []ItemType{sized("big", 1, 5)}},
			lp: -1, bound: -1, rounded: true, optimum: -1,
		},
		{
			name: "no demand",
			p:    Problem{Bins: []BinType{{Capacity: []float64{1}}}, Items: []ItemType{sized("none", 0, 0.5)}},
			lp:   0, bound: 0, rounded: true, optimum: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(context.Background(), &c.p, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Rounded != c.rounded || r.Bound != c.bound || r.Bound > c.optimum {
				t.Fatalf("bound %g (rounded %v), want %g (%v), optimum %g", r.Bound, r.Rounded, c.bound, c.rounded, c.optimum)
			}
			if r.LowerLP > c.lp+1e-9 {
				t.Fatalf("LowerLP %g above the LP optimum %g", r.LowerLP, c.lp)
			}
			if r.Stop == StopConverged && math.Abs(r.LP-c.lp) > 1e-6 {
				t.Fatalf("converged with LP %g, want %g", r.LP, c.lp)
			}
			if r.Upper != 0 && r.Upper < c.optimum-1e-9 {
				t.Fatalf("heuristic packing costs %g, below the optimum %g", r.Upper, c.optimum)
			}
		})
	}
}

func TestSolveErrors(t *testing.T) {
	bin := []BinType{{Capacity: []float64{10}}}
	cases := []struct {
		name string
		p    *Problem
		opts Options
		err  error
		msg  string
	}{
		{"nil problem", nil, Options{}, ErrInvalid, "no bin types"},
		{"negative size", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, -1)}}, Options{}, ErrInvalid, `item type "a": size[0] = -1`},
		{"negative count", &Problem{Bins: bin, Items: []ItemType{sized("a", -2, 1)}}, Options{}, ErrInvalid, `item type "a": count -2`},
		{"NaN size", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, math.NaN())}}, Options{}, ErrInvalid, "size[0]"},
		{"negative capacity", &Problem{Bins: []BinType{{Capacity: []float64{-1}}}}, Options{}, ErrInvalid, "capacity[0]"},
		{"wrong dimensions", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, 1, 1)}}, Options{}, ErrInvalid, "2 sizes"},
		{"wrong number of size vectors", &Problem{Bins: append(bin, BinType{Name: "b", Capacity: []float64{5}}), Items: []ItemType{{Name: "a", Count: 1, Sizes: [][]float64{{1}, {1}, {1}}}}}, Options{}, ErrInvalid, "3 size vectors"},
		{"duplicate item name", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, 1), sized("a", 1, 2)}}, Options{}, ErrInvalid, "duplicate"},
		{"negative limit", &Problem{Bins: []BinType{{Capacity: []float64{1}, Limit: -1}}}, Options{}, ErrInvalid, "limit"},
		{"negative tolerance", &Problem{Bins: bin}, Options{Tolerance: -1}, ErrInvalid, "tolerance"},
		{"unknown objective", &Problem{Bins: bin}, Options{Objective: 7}, ErrInvalid, "objective"},
		{"IncumbentOnly without an incumbent", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, 1)}}, Options{IncumbentOnly: true}, ErrInvalid, "IncumbentOnly"},
		{"malformed initial pattern", &Problem{Bins: bin, Items: []ItemType{sized("a", 1, 1)}}, Options{Initial: []Pattern{{Bin: "#0", Items: []string{"a"}}}}, ErrInvalid, "1 items and 0 counts"},
		{"item fits nowhere", &Problem{Bins: bin, Items: []ItemType{sized("huge", 1, 11)}}, Options{}, ErrInfeasible, `"huge" fits no bin type`},
		{"item fits only where it is absent", &Problem{Bins: bin, Items: []ItemType{{Name: "a", Count: 1, Sizes: [][]float64{nil}}}}, Options{}, ErrInfeasible, "fits no bin type"},
		{"negative cost without a limit", &Problem{Bins: []BinType{{Capacity: []float64{1}, Cost: -1}}}, Options{}, ErrUnbounded, "no limit"},
		{
			// One item per machine, one machine, three items.
			"limit too small for one item type",
			&Problem{Bins: []BinType{{Capacity: []float64{10}, Limit: 1}}, Items: []ItemType{sized("six", 3, 6)}},
			Options{}, ErrInfeasible, "room for 1",
		},
		{
			// Each type alone fits in two machines, both together need
			// three ({6}, {6}, {5,5}): only the LP (phase 1 and its
			// dual certificate) sees it.
			"limit too small for the mix",
			&Problem{Bins: []BinType{{Capacity: []float64{10}, Limit: 2}}, Items: []ItemType{sized("six", 2, 6), sized("five", 2, 5)}},
			Options{}, ErrInfeasible, "limits cannot hold the demand",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(context.Background(), c.p, c.opts)
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.err, c.msg)
			}
			if r != nil {
				t.Fatalf("result %+v with error %v", r, err)
			}
		})
	}
}

// A limited type that is needed but suffices: phase 1 finds a cover, phase
// 2 the optimum.
func TestSolveLimitsFeasible(t *testing.T) {
	// "big" (7) fits only the limited type L (cap 10, 3 machines); "small"
	// (3) fits both. LP: 3 L machines with {7,3}, then 3 more smalls on
	// U (cap 9, holds 3): 3 + 1 = 4. OPT 4.
	p := &Problem{
		Bins: []BinType{
			{Name: "L", Capacity: []float64{10}, Limit: 3},
			{Name: "U", Capacity: []float64{9}},
		},
		Items: []ItemType{
			{Name: "big", Count: 3, Sizes: [][]float64{{7}, nil}},
			{Name: "small", Count: 6, Sizes: [][]float64{{3}, {3}}},
		},
	}
	r, err := Solve(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Bound != 4 || r.LowerLP > 4+1e-9 {
		t.Fatalf("bound %g (LowerLP %g), want 4", r.Bound, r.LowerLP)
	}
	used := 0.0
	for _, pt := range r.Patterns {
		if pt.Bin == "L" {
			used += pt.X
		}
	}
	if used > 3+1e-6 {
		t.Fatalf("the master uses %g machines of L, limit 3", used)
	}
}

func TestSolveCanceledAndTimeLimit(t *testing.T) {
	p := NewBinPacking([]float64{150}, [][]float64{{40}, {50}, {61}, {33}}, []int{30, 20, 25, 17})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Solve(ctx, p, Options{})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "lpbound: ") || r == nil || r.Stop != StopCanceled {
		t.Fatalf("canceled: %v, %+v", err, r)
	}
	if r.Bound > 32 { // a valid bound even now (OPT ≤ 32: 92 items, ≥ 3 per machine)
		t.Fatalf("bound %g", r.Bound)
	}
	r, err = Solve(context.Background(), p, Options{TimeLimit: time.Nanosecond})
	if !errors.Is(err, ErrTimeLimit) || r == nil || r.Stop != StopTimeLimit || r.Bound > 32 {
		t.Fatalf("time limit: %v, %+v", err, r)
	}
}

// TestSolveReuse feeds the patterns of one solve into the next, as the
// hourly snapshots of a replay do: a snapshot with one type gone, one new
// and other counts.
func TestSolveReuse(t *testing.T) {
	first := &Problem{Bins: []BinType{{Name: "m", Capacity: []float64{100, 100}}}, Items: []ItemType{
		sized("D2", 40, 20, 8), sized("D4", 30, 40, 16), sized("E2", 25, 20, 32), sized("F8", 10, 80, 32),
	}}
	r1, err := Solve(context.Background(), first, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Solve(context.Background(), first, Options{Initial: r1.Patterns})
	if err != nil {
		t.Fatal(err)
	}
	if again.Bound != r1.Bound || again.Iterations > r1.Iterations {
		t.Fatalf("re-solve with its own columns: bound %g after %d iterations, first %g after %d", again.Bound, again.Iterations, r1.Bound, r1.Iterations)
	}
	next := &Problem{Bins: first.Bins, Items: []ItemType{
		sized("D2", 35, 20, 8), sized("D4", 31, 40, 16), sized("E4", 12, 40, 64), sized("F8", 2, 80, 32),
	}}
	r2, err := Solve(context.Background(), next, Options{Initial: r1.Patterns})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Solve(context.Background(), next, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Bound != fresh.Bound {
		t.Fatalf("bound with reused columns %g, without %g", r2.Bound, fresh.Bound)
	}
	for _, pt := range r2.Patterns {
		for j, it := range pt.Items {
			if it == "E2" {
				t.Fatalf("pattern %v keeps a type that is gone", pt)
			}
			if it == "F8" && pt.Counts[j] > 2 {
				t.Fatalf("pattern %v holds more F8 than there are", pt)
			}
		}
	}
}

// TestIncumbentOnly: started from an incumbent's columns alone, column
// generation reaches the same bound as from first-fit-decreasing columns
// and the greedy packing (both converged or proven), and its packing is
// never worse than the incumbent (an item per bin). The flag is honoured:
// here the greedy start proves the bound after one master, the start from
// the incumbent alone takes more.
func TestIncumbentOnly(t *testing.T) {
	p := &Problem{Bins: []BinType{{Name: "m", Capacity: []float64{100, 100}, Cost: 3}, {Name: "s", Capacity: []float64{50, 60}, Cost: 2}},
		Items: []ItemType{sized("D2", 40, 20, 8), sized("D4", 30, 40, 16), sized("E2", 25, 20, 32), sized("F8", 10, 80, 32)}}
	var inc []Pattern
	for _, it := range p.Items {
		inc = append(inc, Pattern{Bin: "m", Items: []string{it.Name}, Counts: []int{1}, X: float64(it.Count)})
	}
	full, err := Solve(context.Background(), p, Options{Objective: MinCost, Incumbent: inc})
	if err != nil {
		t.Fatal(err)
	}
	only, err := Solve(context.Background(), p, Options{Objective: MinCost, Incumbent: inc, IncumbentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	done := func(r *Result) bool { return r.Stop == StopConverged || r.Stop == StopProven }
	if !done(full) || !done(only) || full.Bound != only.Bound {
		t.Fatalf("bound %g (%v) with the greedy start, %g (%v) from the incumbent alone", full.Bound, full.Stop, only.Bound, only.Stop)
	}
	if only.Iterations <= full.Iterations {
		t.Fatalf("from the incumbent alone %d masters, with the greedy start %d: IncumbentOnly ignored?", only.Iterations, full.Iterations)
	}
	if only.Upper > 3*105 || only.Upper < only.Bound {
		t.Fatalf("packing %g: worse than the incumbent (315) or below the bound %g", only.Upper, only.Bound)
	}
}

// TestLPValueWithLimits: when every bin type is limited (a real zone) and
// the first packing already meets the rounded bound, Solve stops at once;
// the LP value it reports must still be the phase-2 master's, not the
// phase-1 value 0 (an Azure V1 trace printed lp_machines 0 this way).
func TestLPValueWithLimits(t *testing.T) {
	p := &Problem{Bins: []BinType{
		{Name: "A", Capacity: []float64{10, 40}, Limit: 5},
		{Name: "B", Capacity: []float64{20, 40}, Limit: 2},
	}, Items: []ItemType{
		{Name: "half", Count: 4, Sizes: [][]float64{{5, 4}}},
		{Name: "quarter", Count: 4, Sizes: [][]float64{{2.5, 2}}},
	}}
	for _, obj := range []Objective{MinCount, MinCost} {
		r, err := Solve(context.Background(), p, Options{Objective: obj})
		if err != nil {
			t.Fatal(err)
		}
		if !(r.LP > r.Bound-1 && r.LP >= r.LowerLP-1e-6) || r.Upper < r.Bound {
			t.Errorf("objective %d: LP %g, LowerLP %g, bound %g, upper %g (%s)", obj, r.LP, r.LowerLP, r.Bound, r.Upper, r.Stop)
		}
	}
}

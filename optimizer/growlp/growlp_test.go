package growlp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lanl/clp"
)

// cold solves the same LP from scratch through lanl/clp (the binding the
// rest of placelab uses), as an independent reference.
func cold(t *testing.T, rl, ru []float64, cols []Column) (float64, clp.SimplexStatus) {
	t.Helper()
	mat := clp.NewPackedMatrix()
	var cb []clp.Bounds
	var obj []float64
	for _, c := range cols {
		var nz []clp.Nonzero
		for i, r := range c.Rows {
			nz = append(nz, clp.Nonzero{Index: r, Value: c.Values[i]})
		}
		mat.AppendColumn(nz)
		cb = append(cb, clp.Bounds{Lower: c.Lower, Upper: c.Upper})
		obj = append(obj, c.Obj)
	}
	rb := make([]clp.Bounds, len(rl))
	for i := range rl {
		rb[i] = clp.Bounds{Lower: rl[i], Upper: ru[i]}
	}
	mat.SetDimensions(len(rl), len(cols))
	sp := clp.NewSimplex()
	sp.LoadProblem(mat, cb, obj, rb, nil)
	st := sp.Dual(clp.NoValuesPass, clp.NoStartFinishOptions)
	return sp.ObjectiveValue(), st
}

// TestGrowMatchesCold grows covering LPs (min c·x, A x ≥ b, capacity rows
// added later) by columns and rows, re-solving warm after each step, and
// compares every optimum with a cold solve of the same LP by lanl/clp; it
// also checks the returned primal is feasible and reaches the objective,
// and that the duals price every column at a reduced cost ≥ −tol.
func TestGrowMatchesCold(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		m := 5 + rng.IntN(30)
		rl, ru := make([]float64, m), make([]float64, m)
		for i := range m {
			rl[i], ru[i] = float64(1+rng.IntN(20)), math.Inf(1)
		}
		lp, err := New(rl, ru)
		if err != nil {
			t.Fatal(err)
		}
		var all []Column
		newCol := func() Column {
			c := Column{Lower: 0, Upper: math.Inf(1), Obj: 1 + 9*rng.Float64()}
			if rng.IntN(4) == 0 {
				c.Upper = float64(1 + rng.IntN(5))
			}
			for i := range lp.Rows() {
				if rng.IntN(3) == 0 {
					c.Rows = append(c.Rows, i)
					c.Values = append(c.Values, float64(1+rng.IntN(4)))
				}
			}
			return c
		}
		// Every cover row gets one unlimited column, so the LP stays feasible.
		for i := range m {
			all = append(all, Column{Upper: math.Inf(1), Obj: 50, Rows: []int{i}, Values: []float64{1}})
		}
		if err := lp.AddColumns(all); err != nil {
			t.Fatal(err)
		}
		for step := range 12 {
			var st Status
			if step%3 == 2 {
				// A row: the sum of a few columns at most a bound above
				// the current value (it may cut the optimum off).
				var r Row
				for j := range lp.Cols() {
					if rng.IntN(3) == 0 {
						r.Cols = append(r.Cols, j)
						r.Values = append(r.Values, 1)
					}
				}
				r.Lower, r.Upper = math.Inf(-1), float64(5+rng.IntN(40))
				if err := lp.AddRows([]Row{r}); err != nil {
					t.Fatal(err)
				}
				rl, ru = append(rl, r.Lower), append(ru, r.Upper)
				for k, j := range r.Cols {
					all[j].Rows = append(all[j].Rows, lp.Rows()-1)
					all[j].Values = append(all[j].Values, r.Values[k])
				}
				st = lp.Dual()
			} else {
				var add []Column
				for range 1 + rng.IntN(8) {
					add = append(add, newCol())
				}
				if err := lp.AddColumns(add); err != nil {
					t.Fatal(err)
				}
				all = append(all, add...)
				st = lp.Primal()
			}
			want, wst := cold(t, rl, ru, all)
			if (st == Optimal) != (wst == clp.Optimal) {
				t.Fatalf("seed %d step %d: warm status %v, cold %v", seed, step, st, wst)
			}
			if st != Optimal {
				continue
			}
			if got := lp.Objective(); math.Abs(got-want) > 1e-7*max(1, math.Abs(want)) {
				t.Fatalf("seed %d step %d: warm objective %.10g, cold %.10g", seed, step, got, want)
			}
			x, y := lp.ColumnSolution(), lp.RowDuals()
			if len(x) != len(all) || len(y) != len(rl) {
				t.Fatalf("seed %d step %d: %d columns and %d duals, want %d and %d", seed, step, len(x), len(y), len(all), len(rl))
			}
			z := 0.0
			act := make([]float64, len(rl))
			for j, c := range all {
				z += c.Obj * x[j]
				if x[j] < c.Lower-1e-7 || x[j] > c.Upper+1e-7 {
					t.Fatalf("seed %d step %d: column %d = %g outside [%g, %g]", seed, step, j, x[j], c.Lower, c.Upper)
				}
				rc := c.Obj
				for k, r := range c.Rows {
					act[r] += c.Values[k] * x[j]
					rc -= c.Values[k] * y[r]
				}
				// At the lower bound a column prices at ≥ 0, at a finite
				// upper bound ≤ 0.
				if x[j] < c.Upper-1e-7 && rc < -1e-6 {
					t.Fatalf("seed %d step %d: column %d below its upper bound has reduced cost %g", seed, step, j, rc)
				}
			}
			for i := range rl {
				if act[i] < rl[i]-1e-6 || act[i] > ru[i]+1e-6 {
					t.Fatalf("seed %d step %d: row %d = %g outside [%g, %g]", seed, step, i, act[i], rl[i], ru[i])
				}
			}
			if math.Abs(z-lp.Objective()) > 1e-6*max(1, math.Abs(z)) {
				t.Fatalf("seed %d step %d: c·x = %g, objective %g", seed, step, z, lp.Objective())
			}
		}
		lp.Close()
	}
}

// TestWarmIsWarm: after a column joins an optimal LP, the re-solve takes
// far fewer iterations than the first solve did.
func TestWarmIsWarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := 200
	rl, ru := make([]float64, m), make([]float64, m)
	for i := range m {
		rl[i], ru[i] = float64(1+rng.IntN(20)), math.Inf(1)
	}
	lp, _ := New(rl, ru)
	defer lp.Close()
	var cs []Column
	for range 2000 {
		c := Column{Upper: math.Inf(1), Obj: 1 + rng.Float64()}
		for i := range m {
			if rng.IntN(20) == 0 {
				c.Rows, c.Values = append(c.Rows, i), append(c.Values, float64(1+rng.IntN(3)))
			}
		}
		cs = append(cs, c)
	}
	for i := range m {
		cs = append(cs, Column{Upper: math.Inf(1), Obj: 100, Rows: []int{i}, Values: []float64{1}})
	}
	if err := lp.AddColumns(cs); err != nil {
		t.Fatal(err)
	}
	if st := lp.Dual(); st != Optimal {
		t.Fatal(st)
	}
	first := lp.Iterations()
	// A column that prices out: cheap and covering many rows.
	c := Column{Upper: math.Inf(1), Obj: 0.5}
	for i := range 10 {
		c.Rows, c.Values = append(c.Rows, i), append(c.Values, 1)
	}
	lp.AddColumns([]Column{c})
	if st := lp.Primal(); st != Optimal {
		t.Fatal(st)
	}
	if again := lp.Iterations(); again*5 > first {
		t.Fatalf("warm re-solve took %d iterations, the first solve %d", again, first)
	}
}

func TestStatuses(t *testing.T) {
	// x ≥ 2 and x ≤ 1: infeasible.
	lp, _ := New([]float64{2, math.Inf(-1)}, []float64{math.Inf(1), 1})
	lp.AddColumns([]Column{{Upper: math.Inf(1), Obj: 1, Rows: []int{0, 1}, Values: []float64{1, 1}}})
	if st := lp.Dual(); st != PrimalInfeasible {
		t.Fatalf("infeasible LP: %v", st)
	}
	lp.Close()
	lp.Close() // twice is fine
	// min −x, x ≥ 0 free above: unbounded.
	lp, _ = New([]float64{0}, []float64{math.Inf(1)})
	lp.AddColumns([]Column{{Upper: math.Inf(1), Obj: -1, Rows: []int{0}, Values: []float64{1}}})
	if st := lp.Primal(); st != DualInfeasible {
		t.Fatalf("unbounded LP: %v", st)
	}
	lp.Close()
	// No columns: optimal at 0 when 0 is feasible.
	lp, _ = New([]float64{math.Inf(-1)}, []float64{3})
	if st := lp.Dual(); st != Optimal || lp.Objective() != 0 || len(lp.ColumnSolution()) != 0 {
		t.Fatalf("empty LP: %v %g", st, lp.Objective())
	}
	lp.Close()
}

func TestInvalid(t *testing.T) {
	if _, err := New([]float64{1}, []float64{0}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("row 1 ≤ r ≤ 0: %v", err)
	}
	if _, err := New([]float64{math.NaN()}, []float64{0}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NaN row bound: %v", err)
	}
	lp, _ := New([]float64{0, 0}, []float64{1, 1})
	defer lp.Close()
	for _, c := range []Column{
		{Upper: 1, Obj: math.Inf(1)},
		{Lower: 2, Upper: 1},
		{Upper: 1, Rows: []int{2}, Values: []float64{1}},
		{Upper: 1, Rows: []int{0, 0}, Values: []float64{1, 1}},
		{Upper: 1, Rows: []int{0}, Values: []float64{math.NaN()}},
		{Upper: 1, Rows: []int{0}},
	} {
		if err := lp.AddColumns([]Column{c}); !errors.Is(err, ErrInvalid) {
			t.Errorf("column %+v: %v", c, err)
		}
	}
	if lp.Cols() != 0 {
		t.Fatalf("refused columns were added: %d", lp.Cols())
	}
	if err := lp.AddRows([]Row{{Upper: 1, Cols: []int{0}, Values: []float64{1}}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("row over a missing column: %v", err)
	}
}

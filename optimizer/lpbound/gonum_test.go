package lpbound

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// gonumMaster solves the restricted master ms with gonum's dense simplex,
// in standard form with a surplus per cover row and a slack per limit row:
//
//	min c·x  s.t.  A x − s = d,  Σ_p x_kp + t_k = L_k,  x, s, t ≥ 0.
func gonumMaster(t *testing.T, ms *master) float64 {
	t.Helper()
	n, rows := len(ms.obj), len(ms.rb)
	a := mat.NewDense(rows, n+rows, nil)
	b := make([]float64, rows)
	c := make([]float64, n+rows)
	copy(c, ms.obj)
	for j := range n {
		if j < ms.nArt {
			a.Set(j, j, 1)
			continue
		}
		col := ms.cols[j-ms.nArt]
		for x, i := range col.items {
			a.Set(int(i), j, float64(col.cnt[x]))
		}
		if r := ms.limitRow[col.bin]; r >= 0 {
			a.Set(r, j, 1)
		}
	}
	for r, bd := range ms.rb {
		if math.IsInf(bd.Lower, -1) {
			a.Set(r, n+r, 1) // limit: slack
			b[r] = bd.Upper
		} else {
			a.Set(r, n+r, -1) // cover: surplus
			b[r] = bd.Lower
		}
	}
	v, _, err := lp.Simplex(c, a, b, 0, nil)
	if err != nil {
		t.Fatalf("gonum: %v", err)
	}
	return v
}

// TestMasterAgainstGonum solves restricted masters with a handful of
// columns both with Clp and with gonum's simplex.
func TestMasterAgainstGonum(t *testing.T) {
	type build struct {
		name string
		p    *Problem
	}
	builds := []build{
		{"pairs", &Problem{Bins: []BinType{{Capacity: []float64{10}}}, Items: []ItemType{sized("six", 3, 6), sized("four", 3, 4), sized("three", 2, 3)}}},
		{"costs and a limit", &Problem{Bins: []BinType{
			{Name: "A", Capacity: []float64{10}, Cost: 3},
			{Name: "B", Capacity: []float64{4}, Cost: 1, Limit: 2},
		}, Items: []ItemType{sized("four", 5, 4), sized("two", 3, 2)}}},
		{"two dimensions", &Problem{Bins: []BinType{{Capacity: []float64{10, 10}}}, Items: []ItemType{
			sized("a", 2, 6, 1), sized("b", 2, 1, 6), sized("c", 1, 4, 4)}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 6 {
		p := &Problem{Bins: []BinType{
			{Name: "big", Capacity: []float64{20, 20}, Cost: 2},
			{Name: "small", Capacity: []float64{12, 8}, Cost: 1, Limit: 1 + r.IntN(4)},
		}}
		for i := range 4 + r.IntN(3) {
			p.Items = append(p.Items, sized(fmt.Sprint("t", i), 1+r.IntN(5), float64(1+r.IntN(7)), float64(1+r.IntN(7))))
		}
		builds = append(builds, build{fmt.Sprint("random ", n), p})
	}
	for _, bd := range builds {
		t.Run(bd.name, func(t *testing.T) {
			m, err := newModel(bd.p, MinCost)
			if err != nil {
				t.Fatal(err)
			}
			ms := newMaster(m)
			for k := range m.bins {
				ms.add(m.firstFitDecreasing(k)...)
			}
			// A few more columns: every item type alone, as many as fit.
			for k, b := range m.bins {
				for _, i := range b.fit {
					a := make([]int, len(m.items))
					a[i] = maxCopies(m.items[i].size[k], b.cap, m.items[i].count)
					ms.add(fromCounts(k, a))
				}
			}
			sol := ms.solve(time.Time{})
			if !sol.optimal {
				t.Fatalf("Clp status %d", sol.status)
			}
			want := gonumMaster(t, ms)
			if math.Abs(sol.z-want) > 1e-6*max(1, math.Abs(want)) {
				t.Fatalf("Clp %.9g, gonum %.9g (%d rows, %d columns)", sol.z, want, ms.rows, len(ms.obj))
			}
		})
	}
}

// allPatterns enumerates every non-empty pattern of every bin type.
func allPatterns(m *model) []column {
	var out []column
	for k, b := range m.bins {
		a := make([]int, len(m.items))
		var rec func(x int, free []float64)
		rec = func(x int, free []float64) {
			if x == len(b.fit) {
				if c := fromCounts(k, a); len(c.items) > 0 {
					out = append(out, c)
				}
				return
			}
			i := b.fit[x]
			s := m.items[i].size[k]
			room := append([]float64(nil), free...)
			for q := 0; ; q++ {
				a[i] = q
				rec(x+1, room)
				if q == m.items[i].count {
					break
				}
				for j := range room {
					room[j] -= s[j]
				}
				if !fitsIn(make([]float64, len(room)), room) {
					break
				}
			}
			a[i] = 0
		}
		rec(0, append([]float64(nil), b.cap...))
	}
	return out
}

// solveAgainstFullLP solves p and checks the result against the LP
// optimum LP* over every pattern (allPatterns, solved by gonum): the
// bound below LP* and equal to ⌈LP*⌉, and a converged LP equal to LP*.
func solveAgainstFullLP(t *testing.T, p *Problem) (*Result, float64) {
	t.Helper()
	m, err := newModel(p, MinCost)
	if err != nil {
		t.Fatal(err)
	}
	ms := newMaster(m)
	ms.add(allPatterns(m)...)
	full := gonumMaster(t, ms)
	res, err := Solve(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LowerLP > full+1e-9 || res.Bound > math.Ceil(full-1e-9) {
		t.Fatalf("LowerLP %g, bound %g above LP* %g", res.LowerLP, res.Bound, full)
	}
	if want := math.Ceil(full - 1e-9); res.Bound != want {
		t.Fatalf("bound %g, want ⌈LP*⌉ = %g (LP* %g, stop %v)", res.Bound, want, full, res.Stop)
	}
	if res.Converged && math.Abs(res.LP-full) > 1e-6*max(1, full) {
		t.Fatalf("converged at %g, LP* %g", res.LP, full)
	}
	return res, full
}

// TestSolveAgainstFullLP solves small random problems whose every pattern
// can be listed, so that gonum gives the LP optimum LP* outright; Solve's
// bound must lie below it and reach ⌈LP*⌉.
func TestSolveAgainstFullLP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 12 {
		dims := 1 + n%2
		p := &Problem{Bins: []BinType{{Name: "std", Capacity: []float64{20, 20}[:dims], Cost: 2}}}
		if n%3 == 2 {
			p.Bins = append(p.Bins, BinType{Name: "small", Capacity: []float64{12, 9}[:dims], Cost: 1, Limit: 1 + r.IntN(3)})
		}
		for i := range 3 + r.IntN(3) {
			s := []float64{float64(2 + r.IntN(9)), float64(2 + r.IntN(9))}[:dims]
			p.Items = append(p.Items, sized(fmt.Sprint("t", i), 1+r.IntN(4), s...))
		}
		t.Run(fmt.Sprintf("problem=%d", n), func(t *testing.T) {
			solveAgainstFullLP(t, p)
		})
	}
}

// TestSolveManyBinTypesAgainstFullLP: with more bin types than manyBins
// (one extra-column round per iteration, disjoint, and screening by
// screenBound), converged column generation must still reach the optimum
// over every pattern of every type (gonum over the listed patterns) and
// the bound ⌈LP*⌉.
func TestSolveManyBinTypesAgainstFullLP(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 55))
	for n := range 6 {
		p := &Problem{}
		for k := range manyBins + 10 + 5*n {
			c, m := 4+r.IntN(17), 4+r.IntN(17)
			// Prices near a common rate per unit, so many types are
			// close to the best.
			cost := max(1, int(math.Round(float64(c+m)*(0.4+0.2*r.Float64()))))
			p.Bins = append(p.Bins, BinType{Name: fmt.Sprint("b", k), Capacity: []float64{float64(c), float64(m)}, Cost: float64(cost)})
		}
		for i := range 6 + r.IntN(2) {
			p.Items = append(p.Items, sized(fmt.Sprint("t", i), 5+r.IntN(20), float64(2+r.IntN(7)), float64(2+r.IntN(7))))
		}
		t.Run(fmt.Sprintf("problem=%d", n), func(t *testing.T) {
			res, full := solveAgainstFullLP(t, p)
			if !res.Converged && res.Stop != StopProven {
				t.Fatalf("stopped %v after %d iterations", res.Stop, res.Iterations)
			}
			t.Logf("%d types: LP* %.4f, stop %v after %d iterations, %d columns", len(p.Bins), full, res.Stop, res.Iterations, res.Columns)
		})
	}
}

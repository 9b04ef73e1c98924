package cbc

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// binPacking is the assignment model of a one-dimensional bin packing
// problem, as package exact builds it: n items of sizes 30–100 (seeded),
// capacity 100, one binary y_m per machine of a first-fit-decreasing
// packing and a binary x_im per item and machine; each item once,
// Σ_i s_i x_im ≤ 100 y_m, x_im ≤ y_m, y_m ≥ y_m+1. It returns the
// first-fit packing as a start.
func binPacking(n int, seed uint64) (*Problem, []float64) {
	r := rand.New(rand.NewPCG(seed, 9))
	sizes := make([]float64, n)
	for i := range sizes {
		sizes[i] = float64(30 + r.IntN(71))
	}
	slices.SortFunc(sizes, func(a, b float64) int { return int(b - a) })
	var load []float64
	bin := make([]int, n)
	for i, s := range sizes {
		bin[i] = -1
		for m, l := range load {
			if l+s <= 100 {
				bin[i], load[m] = m, l+s
				break
			}
		}
		if bin[i] < 0 {
			bin[i] = len(load)
			load = append(load, s)
		}
	}
	machines := len(load)
	p := &Problem{}
	start := []float64{}
	addRow := func(lo, up float64) int {
		p.RowLower = append(p.RowLower, lo)
		p.RowUpper = append(p.RowUpper, up)
		return len(p.RowLower) - 1
	}
	addCol := func(obj float64, x float64) int {
		p.Obj = append(p.Obj, obj)
		p.ColLower = append(p.ColLower, 0)
		p.ColUpper = append(p.ColUpper, 1)
		p.Integer = append(p.Integer, true)
		p.Cols = append(p.Cols, nil)
		start = append(start, x)
		return len(p.Obj) - 1
	}
	for range n {
		addRow(1, 1) // item i: row i
	}
	prev := -1
	for m := range machines {
		y := addCol(1, 1)
		capRow := addRow(-inf, 0)
		p.Cols[y] = append(p.Cols[y], Nonzero{capRow, -100})
		for i, s := range sizes {
			x := 0.0
			if bin[i] == m {
				x = 1
			}
			c := addCol(0, x)
			link := addRow(-inf, 0)
			p.Cols[c] = append(p.Cols[c], Nonzero{i, 1}, Nonzero{capRow, s}, Nonzero{link, 1})
			p.Cols[y] = append(p.Cols[y], Nonzero{link, -1})
		}
		if prev >= 0 {
			sym := addRow(0, inf)
			p.Cols[prev] = append(p.Cols[prev], Nonzero{sym, 1})
			p.Cols[y] = append(p.Cols[y], Nonzero{sym, -1})
		}
		prev = y
	}
	return p, start
}

// TestTimeLimitSweep: a time limit that ends the solve at any moment —
// in the root LP, the heuristics, the cuts or the tree — leaves a correct
// result: the start or something better, never "infeasible", never a
// crash. With CBC's integer preprocessing on, this test crashed the
// process at the 25 ms limit (SIGSEGV in CglPreProcess::postProcess,
// three runs out of three); on a BPPLIB instance (scholl_1 N1C1W4_K in
// package exact's model) limits of 84–88 ms also lost the start and
// reported the problem infeasible.
func TestTimeLimitSweep(t *testing.T) {
	p, start := binPacking(50, 4)
	startObj := 0.0
	for j, v := range start {
		startObj += p.Obj[j] * v
	}
	for ms := 10; ms <= 200; ms += 15 {
		r, err := Solve(context.Background(), p, Options{TimeLimit: time.Duration(ms) * time.Millisecond, Start: start})
		if err != nil {
			t.Fatalf("%d ms: %v", ms, err)
		}
		if !r.Status.HasSolution() || r.Objective > startObj {
			t.Fatalf("%d ms: %v, objective %g; the start costs %g", ms, r.Status, r.Objective, startObj)
		}
		if ok, why := feasible(p, r.X, 1e-6); !ok {
			t.Fatalf("%d ms: X infeasible: %s", ms, why)
		}
	}
}

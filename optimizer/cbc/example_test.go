package cbc_test

import (
	"context"
	"fmt"
	"math"

	"placelab/optimizer/cbc"
)

// A 0-1 knapsack: values 60, 100, 120, weights 10, 20, 30, capacity 50.
// CBC minimizes, so the values enter negated.
func ExampleSolve() {
	p := &cbc.Problem{
		Obj:      []float64{-60, -100, -120},
		ColLower: []float64{0, 0, 0},
		ColUpper: []float64{1, 1, 1},
		Integer:  []bool{true, true, true},
		RowLower: []float64{math.Inf(-1)},
		RowUpper: []float64{50},
		Cols:     [][]cbc.Nonzero{{{Row: 0, Value: 10}}, {{Row: 0, Value: 20}}, {{Row: 0, Value: 30}}},
	}
	r, err := cbc.Solve(context.Background(), p, cbc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, -r.Objective, r.X)
	// Output: optimal 220 [0 1 1]
}

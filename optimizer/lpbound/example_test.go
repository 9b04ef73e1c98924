package lpbound_test

import (
	"context"
	"fmt"

	"placelab/optimizer/lpbound"
)

// Three VM types on machines with 16 cores and 64 GB. Each E8 takes a
// machine's memory and the F16 its cores, so they need 3 + 1 machines;
// four D4 fit a machine, so ten need 2.5 more: the LP value is 6.5 and
// at least 7 machines are needed.
func ExampleSolve() {
	p := &lpbound.Problem{
		Bins: []lpbound.BinType{{Name: "gen5", Capacity: []float64{16, 64}}},
		Items: []lpbound.ItemType{
			{Name: "D4", Count: 10, Sizes: [][]float64{{4, 16}}},
			{Name: "E8", Count: 3, Sizes: [][]float64{{8, 64}}},
			{Name: "F16", Count: 1, Sizes: [][]float64{{16, 32}}},
		},
	}
	r, err := lpbound.Solve(context.Background(), p, lpbound.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("at least %g machines; a packing with %g found\n", r.Bound, r.Upper)
	// Output: at least 7 machines; a packing with 7 found
}

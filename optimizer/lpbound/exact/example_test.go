package exact_test

import (
	"context"
	"fmt"

	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
	"placelab/optimizer/lpbound/exact"
)

// Two SKUs: "gpu" machines (at most 2) hold the GPU VMs; CPU VMs fit
// both. The optimum packs 2 GPU VMs and 4 CPU VMs on the two gpu
// machines and the fifth CPU VM on a cpu machine.
func ExampleSolve() {
	p := &lpbound.Problem{
		Bins: []lpbound.BinType{
			{Name: "cpu", Capacity: []float64{32, 128, 0}},
			{Name: "gpu", Capacity: []float64{48, 192, 4}, Limit: 2},
		},
		Items: []lpbound.ItemType{
			{Name: "train", Count: 2, Sizes: [][]float64{nil, {16, 64, 4}}},
			{Name: "web", Count: 5, Sizes: [][]float64{{16, 32, 0}}},
		},
	}
	r, err := exact.Solve(context.Background(), p, lpbound.MinCount, cbc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Opt, r.Proven)
	for _, m := range r.Machines {
		fmt.Println(m.Bin, m.Items)
	}
	// Output:
	// 3 true
	// cpu map[web:1]
	// gpu map[train:1 web:2]
	// gpu map[train:1 web:2]
}

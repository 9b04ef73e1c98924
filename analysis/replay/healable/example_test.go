package healable_test

import (
	"fmt"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

// A cluster of three 16-core machines, one per rack: two host an 8-core VM
// each, one is empty. Every failure heals while the healing buffer allows
// using the cluster; a buffer of two empty machines leaves only the empty
// machine's failure healable.
func Example() {
	sku := optimizer.SKU{Name: "s16", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 128}}
	d8 := optimizer.VMType{Name: "D8", Demand: []optimizer.Vec{{optimizer.Cores: 8, optimizer.Memory: 64}}, Supported: []bool{true}}
	var specs []optimizer.MachineSpec
	for i := 0; i < 3; i++ {
		specs = append(specs, optimizer.MachineSpec{Name: fmt.Sprint("m", i), Cluster: "c", Rack: fmt.Sprint("r", i), Healthy: true})
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{sku}, specs, []optimizer.VMType{d8})
	if err != nil {
		panic(err)
	}
	st := optimizer.NewState(inv)
	for m := int32(0); m < 2; m++ {
		st.Place(optimizer.Placement{VM: int64(m), Machine: m, Demand: d8.Demand[0], Production: true})
	}
	s := healable.New(inv)
	for _, h := range []int32{0, 2} {
		mp, rp := s.Sample(st, optimizer.Buffers{Healing: h})
		fmt.Printf("healing buffer %d: %.1f%% of machine failures, %.1f%% of rack failures healable\n", h, mp, rp)
	}
	// Output:
	// healing buffer 0: 100.0% of machine failures, 100.0% of rack failures healable
	// healing buffer 2: 33.3% of machine failures, 33.3% of rack failures healable
}

package outage_test

import (
	"fmt"

	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

func ExampleParseModel() {
	m, on, err := outage.ParseModel("machine-afr=2,heal=zone")
	fmt.Println(on, err, m.MachineAFR, m.RackAFR == outage.DefaultRackAFR, m.Heal, m.Repair)
	_, on, _ = outage.ParseModel("none")
	fmt.Println(on)
	_, _, err = outage.ParseModel("machine-afr=-1")
	fmt.Println(err)
	// Output:
	// true <nil> 2 true zone lognormal
	// false
	// outage: bad failure model: machine-afr = -1: want failures per machine-year in [0, 365]
}

func ExampleMaintenance_Windows() {
	var ms []optimizer.MachineSpec
	for i := 0; i < 4; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: fmt.Sprint("m", i), Cluster: "c", Rack: "r", UpdateDomain: int16(i % 2), Healthy: true})
	}
	inv, _ := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 8}}}, ms, nil)
	mt, _, _ := outage.ParseMaintenance("every=1d,ud-minutes=30")
	out, err := mt.Windows(inv, 0, 1.5*86400)
	for _, o := range out {
		fmt.Printf("%s %s at %g s for %g s\n", inv.Machines[o.Machine].Name, o.Kind, o.Start, o.Duration)
	}
	fmt.Println(err)
	// Output:
	// m0 maintenance at 86400 s for 1800 s
	// m2 maintenance at 86400 s for 1800 s
	// m1 maintenance at 88200 s for 1800 s
	// m3 maintenance at 88200 s for 1800 s
	// <nil>
}

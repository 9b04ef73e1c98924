package optimizer

import (
	"math"
	"testing"
)

// TestPlanMigrations, worked by hand on three 10-core machines: a holds one
// 2-core VM, b and c two 3-core VMs each. Density before = 14/30. Emptying
// a (its VM to b or c, 4 free each) gives 14/20 = 0.7 in one move; emptying
// b or c takes two moves for less gain per move. With a budget of 1, the
// plan is exactly the move off a.
func TestPlanMigrations(t *testing.T) {
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 10}}}
	types := []VMType{
		{Name: "c2", Demand: []Vec{{Cores: 2}}, Supported: []bool{true}},
		{Name: "c3", Demand: []Vec{{Cores: 3}}, Supported: []bool{true}},
	}
	ms := []MachineSpec{{Name: "a", Cluster: "c", Rack: "r", Healthy: true}, {Name: "b", Cluster: "c", Rack: "r", Healthy: true}, {Name: "c", Cluster: "c", Rack: "r", Healthy: true}}
	inv, _ := NewInventory(skus, ms, types)
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Type: 0, Demand: Vec{Cores: 2}})
	s.Place(Placement{VM: 2, Machine: 1, Type: 1, Demand: Vec{Cores: 3}})
	s.Place(Placement{VM: 3, Machine: 1, Type: 1, Demand: Vec{Cores: 3}})
	s.Place(Placement{VM: 4, Machine: 2, Type: 1, Demand: Vec{Cores: 3}})
	s.Place(Placement{VM: 5, Machine: 2, Type: 1, Demand: Vec{Cores: 3}})
	cfg := DefaultConfig()
	cfg.Weights = Vec{Cores: 1}
	plan, err := PlanMigrations(s, cfg, DefaultRules(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Moves) != 1 || plan.Moves[0].VM != 1 || plan.Moves[0].From != 0 {
		t.Fatalf("moves %+v", plan.Moves)
	}
	if math.Abs(plan.DensityBefore-14.0/30) > 1e-12 || math.Abs(plan.DensityAfter-0.7) > 1e-12 {
		t.Fatalf("density %v -> %v", plan.DensityBefore, plan.DensityAfter)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	// Next, emptying b or c is impossible (the other has room for one 3-core
	// VM, not two): the plan stops.
	if plan, err = PlanMigrations(s, cfg, DefaultRules(), 0); err != nil {
		t.Fatal(err)
	}
	if len(plan.Moves) != 0 || plan.MachinesFreed != 0 {
		t.Fatalf("second plan %+v", plan)
	}
}

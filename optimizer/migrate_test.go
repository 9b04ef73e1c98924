package optimizer

import (
	"fmt"
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

// TestPlanMigrationsPins, by hand on four 10-core machines: a holds a
// DaemonSet pod (1 core, PinNode) and a 2-core VM; b a static pod (1 core,
// PinStatic) and a 2-core VM; c and d an 8-core VM each, which fit nowhere
// else. The plan empties a (its VM to b, c or d; the DaemonSet pod dropped
// with it) and stops: b's static pod keeps b in use, so moving b's VM
// frees nothing. No pinned VM is ever moved.
func TestPlanMigrationsPins(t *testing.T) {
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 10}}}
	types := []VMType{
		{Name: "c1", Demand: []Vec{{Cores: 1}}, Supported: []bool{true}},
		{Name: "c2", Demand: []Vec{{Cores: 2}}, Supported: []bool{true}},
		{Name: "c8", Demand: []Vec{{Cores: 8}}, Supported: []bool{true}},
	}
	var ms []MachineSpec
	for _, n := range []string{"a", "b", "c", "d"} {
		ms = append(ms, MachineSpec{Name: n, Cluster: "z", Rack: "r" + n, Healthy: true})
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Type: 0, Tenant: 9, Demand: Vec{Cores: 1}, Pin: PinNode})
	s.Place(Placement{VM: 2, Machine: 0, Type: 1, Tenant: 1, Demand: Vec{Cores: 2}})
	s.Place(Placement{VM: 3, Machine: 1, Type: 0, Tenant: 8, Demand: Vec{Cores: 1}, Pin: PinStatic})
	s.Place(Placement{VM: 4, Machine: 1, Type: 1, Tenant: 2, Demand: Vec{Cores: 2}})
	s.Place(Placement{VM: 5, Machine: 2, Type: 2, Tenant: 3, Demand: Vec{Cores: 8}})
	s.Place(Placement{VM: 6, Machine: 3, Type: 2, Tenant: 4, Demand: Vec{Cores: 8}})
	cfg := DefaultConfig()
	cfg.Weights = Vec{Cores: 1}
	plan, err := PlanMigrations(s, cfg, DefaultRules(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range plan.Moves {
		if mv.VM == 1 || mv.VM == 3 {
			t.Errorf("pinned VM %d moved", mv.VM)
		}
	}
	if len(plan.Removed) != 1 || plan.Removed[0] != 0 || len(plan.Dropped) != 1 || plan.Dropped[0] != 1 {
		t.Fatalf("removed %v dropped %v, want machine a with its DaemonSet pod", plan.Removed, plan.Dropped)
	}
	if _, ok := s.Lookup(3); !ok || s.Count[1] == 0 {
		t.Errorf("b, holding a static pod, was emptied")
	}
	if _, ok := s.Lookup(1); ok {
		t.Errorf("the DaemonSet pod of the emptied machine is still placed")
	}
	// 22 cores on a, b, c, d (40) before; after, a is gone: 21/30.
	if math.Abs(plan.DensityBefore-22.0/40) > 1e-12 || math.Abs(plan.DensityAfter-0.7) > 1e-12 {
		t.Errorf("density %v -> %v, want 0.55 -> 0.7", plan.DensityBefore, plan.DensityAfter)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// TestPlanMigrationsMovesAVMOnce: on seven 10-core, 10-GiB machines laid
// out as a random search found them, the plan used to move VM 3 off b
// onto f, then empty f and move VM 3 again, onto d: Moves listed it twice
// and counted two moves for one VM. Now each VM is listed at most once,
// from the machine it was on to the machine the plan leaves it on, and
// the moves are exactly the VMs whose machine changed.
func TestPlanMigrationsMovesAVMOnce(t *testing.T) {
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 10, Memory: 10}}}
	layout := [][][2]float64{ // per machine, its VMs' (cores, memory)
		{{6, 5}, {4, 5}}, {{2, 3}}, {{1, 1}, {5, 5}}, {{5, 1}, {2, 4}}, {{6, 6}}, {{4, 5}, {3, 1}}, {{6, 1}},
	}
	var ms []MachineSpec
	var types []VMType
	for m, vms := range layout {
		ms = append(ms, MachineSpec{Name: string(rune('a' + m)), Cluster: "c", Rack: "r", Healthy: true})
		for _, d := range vms {
			types = append(types, VMType{Name: fmt.Sprint(d), Demand: []Vec{{Cores: d[0], Memory: d[1]}}, Supported: []bool{true}})
		}
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	before := map[VMID]int32{}
	vm := VMID(1)
	for m, vms := range layout {
		for range vms {
			s.Place(Placement{VM: vm, Machine: int32(m), Type: int32(vm - 1), Demand: types[vm-1].Demand[0]})
			before[vm] = int32(m)
			vm++
		}
	}
	plan, err := PlanMigrations(s, DefaultConfig(), DefaultRules(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if plan.MachinesFreed == 0 {
		t.Fatalf("the plan frees nothing: %+v", plan)
	}
	listed := map[VMID]bool{}
	for _, mv := range plan.Moves {
		p, _ := s.Lookup(mv.VM)
		if listed[mv.VM] || mv.From != before[mv.VM] || mv.To != p.Machine {
			t.Fatalf("move %+v (VM on %d before, %d after; listed before: %v); moves %+v", mv, before[mv.VM], p.Machine, listed[mv.VM], plan.Moves)
		}
		listed[mv.VM] = true
	}
	for v, m := range before {
		if p, _ := s.Lookup(v); p.Machine != m && !listed[v] {
			t.Fatalf("VM %d went from %d to %d with no move listed", v, m, p.Machine)
		}
	}
}

package optimizer

import "testing"

// TestEvictionBalancing is the slides' packing-vs-eviction-cost trade-off on
// three 24-core machines and a new 16-core high-priority VM:
//
//	m0: 8 high + 16 low cores, free 0:  room 16 (exact fit), evicts 16 cores
//	m1: 4 high + 8 low cores, free 12:  room 20 (4 left),   evicts 8 cores
//	m2: 20 high cores, free 4:          cannot take it
//
// Keeping only the best-packing candidate (X small) picks m0; keeping all
// (X = 100%) picks the least eviction cost, m1.
func TestEvictionBalancing(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want int32
	}{{0.01, 0}, {1, 1}} {
		s := evictionZone(t)
		cfg := DefaultConfig()
		cfg.TopPct = tc.x
		cfg.Weights = Vec{Cores: 1}
		p, err := NewProtean(s, cfg, DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		d := p.Allocate(&Request{ID: 9, Tenant: 9, VMs: []VMRequest{{ID: 10, Type: 0}}})
		if !d.OK || d.Placements[0].Machine != tc.want || len(d.Evicted) != 1 {
			t.Fatalf("X=%v: %+v, want machine %d with one eviction", tc.x, d, tc.want)
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSafetyPlacement: best fit and safety disagree. On 8-core nodes, a has
// 4 free cores and b has 6; a new 2-core low-priority VM fits a more
// tightly, but there it destroys a's Large (4-core) slot: F_L would be 1
// (danger λ_L/2) against 2 on b (danger λ_L/3); Small slots are 8 either way.
// Without the safety score the VM goes to a, with it to b.
func TestSafetyPlacement(t *testing.T) {
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 8}}}
	types := []VMType{
		{Name: "large", Demand: []Vec{{Cores: 4}}, Supported: []bool{true}},
		{Name: "small", Demand: []Vec{{Cores: 1}}, Supported: []bool{true}},
		{Name: "low2", Demand: []Vec{{Cores: 2}}, Supported: []bool{true}},
	}
	ms := []MachineSpec{{Name: "a", Cluster: "c", Rack: "r1", Healthy: true}, {Name: "b", Cluster: "c", Rack: "r2", Healthy: true}}
	for _, tc := range []struct {
		safety bool
		want   int32
	}{{false, 0}, {true, 1}} {
		inv, _ := NewInventory(skus, ms, types)
		s := NewState(inv)
		s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 4}})
		s.Place(Placement{VM: 2, Machine: 1, Tenant: 2, Demand: Vec{Cores: 2}})
		cfg := DefaultConfig()
		cfg.Weights = Vec{Cores: 1}
		cfg.Buckets = 0
		cfg.Safety, cfg.TopPct = tc.safety, 1
		cfg.ArrivalRates = []float64{1.0 / 3, 1, 0}
		p, _ := NewProtean(s, cfg, DefaultRules())
		d := p.Allocate(&Request{ID: 7, Tenant: 7, Priority: 1, VMs: []VMRequest{{ID: 7, Type: 2}}})
		if !d.OK {
			t.Fatal(d)
		}
		if got := d.Placements[0].Machine; got != tc.want {
			t.Fatalf("safety=%v: machine %d, want %d", tc.safety, got, tc.want)
		}
	}
}

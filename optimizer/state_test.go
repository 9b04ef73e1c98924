package optimizer

import (
	"math/rand/v2"
	"testing"
)

// TestTenantLocations: where each tenant's VMs are (TenantVMs,
// TenantInRack) follows placements and departures for tenant ids held by
// index (0, 5, and one grown into), beyond that range (1<<22, 1<<30) and
// negative (−3), including a tenant emptied and placed again; each step is
// checked against a count kept here, and CheckInvariants recounts them
// from the placements.
func TestTenantLocations(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 4, perRack: 5, skus: []SKU{skuLarge}})
	s := NewState(inv)
	tenants := []int32{0, 5, -3, 1 << 22, 1 << 30, 4000}
	type tr struct{ t, r int32 }
	want := map[tr]int32{}
	vms := map[int32]int32{}
	where := map[VMID]tr{}
	rng := rand.New(rand.NewPCG(4, 4))
	next := VMID(1)
	check := func(step int) {
		t.Helper()
		for _, tn := range tenants {
			if got := s.TenantVMs(tn); got != vms[tn] {
				t.Fatalf("step %d: tenant %d has %d VMs, want %d", step, tn, got, vms[tn])
			}
			for r := range inv.Racks {
				if got := s.TenantInRack(tn, int32(r)); got != want[tr{tn, int32(r)}] {
					t.Fatalf("step %d: tenant %d has %d VMs in rack %d, want %d", step, tn, got, r, want[tr{tn, int32(r)}])
				}
			}
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	for step := 0; step < 600; step++ {
		if len(where) > 0 && (rng.IntN(2) == 0 || len(where) > 40) {
			for vm, at := range where { // any one
				s.Remove(vm)
				delete(where, vm)
				want[at]--
				vms[at.t]--
				break
			}
		} else {
			tn := tenants[rng.IntN(len(tenants))]
			m := int32(rng.IntN(len(inv.Machines)))
			d, _ := inv.Demand(0, m)
			if !Fits(d, s.Free(m)) {
				continue
			}
			s.Place(Placement{VM: next, Machine: m, Type: 0, Tenant: tn, Demand: d})
			at := tr{tn, inv.Machines[m].Rack}
			where[next] = at
			want[at]++
			vms[tn]++
			next++
		}
		check(step)
	}
	for vm := range where {
		s.Remove(vm)
	}
	clear(want)
	clear(vms)
	check(-1)
}

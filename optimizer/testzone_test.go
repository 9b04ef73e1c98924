package optimizer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// zoneSpec describes a small test zone.
type zoneSpec struct {
	clusters, racks, perRack int
	skus                     []SKU // cluster i gets SKU i % len(skus)
}

var (
	skuSmall = SKU{Name: "g4", Generation: 4, Capacity: Vec{Cores: 24, Memory: 256, SSD: 1000}}
	skuLarge = SKU{Name: "g5", Generation: 5, Capacity: Vec{Cores: 40, Memory: 512, SSD: 2000}}
)

// testTypes: 1, 2, 4, 8, 16 cores (3.5 GB/core, D-like) and one G-like
// 16-core 224 GB type that only the large SKU runs.
func testTypes(skus []SKU) []VMType {
	var out []VMType
	for _, c := range []float64{1, 2, 4, 8, 16} {
		t := VMType{Name: fmt.Sprintf("D%g", c)}
		for range skus {
			t.Demand = append(t.Demand, Vec{Cores: c, Memory: 3.5 * c, SSD: 50 * c})
			t.Supported = append(t.Supported, true)
		}
		out = append(out, t)
	}
	g := VMType{Name: "G4"}
	for _, s := range skus {
		g.Demand = append(g.Demand, Vec{Cores: 16, Memory: 224, SSD: 800})
		g.Supported = append(g.Supported, s.Capacity[Memory] >= 512)
	}
	return append(out, g)
}

func buildZone(t testing.TB, z zoneSpec) *Inventory {
	t.Helper()
	return buildZoneTypes(t, z, testTypes(z.skus))
}

// buildZoneTypes is buildZone with the VM type catalog types.
func buildZoneTypes(t testing.TB, z zoneSpec, types []VMType) *Inventory {
	t.Helper()
	var ms []MachineSpec
	for c := 0; c < z.clusters; c++ {
		for r := 0; r < z.racks; r++ {
			for k := 0; k < z.perRack; k++ {
				ms = append(ms, MachineSpec{Name: fmt.Sprintf("c%d-r%d-m%d", c, r, k), Cluster: fmt.Sprintf("c%d", c),
					Rack: fmt.Sprintf("r%d", r), SKU: int32(c % len(z.skus)), Healthy: true})
			}
		}
	}
	inv, err := NewInventory(z.skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// randomRequests makes n requests with mostly single VMs, type locality,
// some low priority, some isolation and anti-colocation bounds.
func randomRequests(inv *Inventory, n int, seed uint64) []*Request {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*Request
	var vm VMID
	typ := int32(0)
	for i := 0; i < n; i++ {
		if rng.Float64() < 0.3 {
			typ = int32(rng.IntN(len(inv.Types)))
		}
		size := 1
		if rng.Float64() < 0.1 {
			size = 2 + rng.IntN(6)
		}
		r := &Request{ID: int64(i), Tenant: int32(rng.IntN(n/3 + 1)), Time: float64(i)}
		if rng.Float64() < 0.2 {
			r.Priority = 1
		}
		if rng.Float64() < 0.03 {
			r.Isolation = true
		}
		if size > 1 && rng.Float64() < 0.5 {
			r.MaxPerRack = int32(1 + rng.IntN(2))
		}
		if rng.Float64() < 0.1 {
			r.MaxPerMachine = 1
		}
		for k := 0; k < size; k++ {
			r.VMs = append(r.VMs, VMRequest{ID: vm, Type: typ})
			vm++
		}
		out = append(out, r)
	}
	return out
}

func nan() float64 { return math.NaN() }

package replay

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"placelab/optimizer"
)

// strandBenchZone is n machines of one 48-core, 384 GB SKU with types VM
// types, filled at random to 70–100% of their cores with those types: the
// zone of a stranded sample benchmark. Random types (1–32 cores, 2–16 GB
// per core) are mostly dominated by a small one, so a sample tries one or
// two; an antichain (type i: i+1 cores, 8·(types−i) GB) leaves every type
// to try — the worst case.
func strandBenchZone(tb testing.TB, n, types int, antichain bool, seed uint64) *optimizer.State {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	sku := optimizer.SKU{Name: "g48", Capacity: optimizer.Vec{optimizer.Cores: 48, optimizer.Memory: 384}}
	var ts []optimizer.VMType
	for i := 0; i < types; i++ {
		c := float64(int(1) << rng.IntN(6))
		d := optimizer.Vec{optimizer.Cores: c, optimizer.Memory: c * float64(2+rng.IntN(15))}
		if antichain {
			d = optimizer.Vec{optimizer.Cores: float64(i + 1), optimizer.Memory: float64(8 * (types - i))}
		}
		ts = append(ts, optimizer.VMType{Name: fmt.Sprint("t", i), Demand: []optimizer.Vec{d}, Supported: []bool{true}})
	}
	var ms []optimizer.MachineSpec
	for i := 0; i < n; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: fmt.Sprint("m", i), Cluster: fmt.Sprint("c", i/1000), Rack: fmt.Sprint("r", i/20), Healthy: true})
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{sku}, ms, ts)
	if err != nil {
		tb.Fatal(err)
	}
	st := optimizer.NewState(inv)
	var id optimizer.VMID
	for m := range inv.Machines {
		target := (0.7 + 0.3*rng.Float64()) * 48
		for miss := 0; st.Used[m][optimizer.Cores] < target && miss < 20; {
			ty := int32(rng.IntN(types))
			d, _ := inv.Demand(ty, int32(m))
			if !optimizer.Fits(d, st.Free(int32(m))) {
				miss++
				continue
			}
			st.Place(optimizer.Placement{VM: id, Machine: int32(m), Type: ty, Tenant: int32(id), Demand: d})
			id++
		}
	}
	return st
}

// BenchmarkStrandedSample times one stranded sample, every machine
// computed (a sample after all of them changed), over zones of
// machines × VM types (random or an antichain); it first checks the zone
// strands something. A memo of answers by (SKU, free vector) within a
// sample was tried and removed: it won nowhere (100k machines: 5.3–5.7 ms
// per sample against 4.6–5.1 ms without it; before the cores-prefix
// check it won only on the antichain).
func BenchmarkStrandedSample(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, mix := range []struct {
			types     int
			antichain bool
		}{{10, false}, {50, false}, {50, true}} {
			st := strandBenchZone(b, n, mix.types, mix.antichain, 1)
			s := newStranded(st.Inv)
			if c, m := s.sample(st); c == 0 && m == 0 {
				b.Fatalf("machines=%d types=%d: nothing stranded", n, mix.types)
			}
			b.Run(fmt.Sprintf("machines=%d/types=%d/antichain=%v", n, mix.types, mix.antichain), func(b *testing.B) {
				for b.Loop() {
					s.state = nil // every machine again: a full pass
					s.sample(st)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "machines/s")
			})
		}
	}
}

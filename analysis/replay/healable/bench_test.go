package healable_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

// Benchmark zone: clusters of benchRacks racks of benchPerRack machines of
// one 48-core, 384 GB SKU, each cluster 70–90% allocated in cores with
// 1–32-core VMs (4 or 8 GB per core) placed at random, and 1–4 machines
// per cluster left empty; healing buffer benchHealing.
const (
	benchRacks, benchPerRack = 10, 10
	benchHealing             = 2
)

var benchSizes = []struct {
	cores  float64
	weight int
}{{1, 25}, {2, 25}, {4, 20}, {8, 15}, {16, 10}, {32, 5}}

func benchZone(tb testing.TB, machines int, seed uint64) *optimizer.State {
	tb.Helper()
	sku := optimizer.SKU{Name: "g48", Capacity: optimizer.Vec{optimizer.Cores: 48, optimizer.Memory: 384}}
	var types []optimizer.VMType
	for _, sz := range benchSizes {
		for _, gb := range []float64{4, 8} {
			types = append(types, optimizer.VMType{Name: fmt.Sprintf("%gc%gg", sz.cores, gb),
				Demand: []optimizer.Vec{{optimizer.Cores: sz.cores, optimizer.Memory: gb * sz.cores}}, Supported: []bool{true}})
		}
	}
	clusters := machines / (benchRacks * benchPerRack)
	var specs []optimizer.MachineSpec
	for c := 0; c < clusters; c++ {
		for r := 0; r < benchRacks; r++ {
			for k := 0; k < benchPerRack; k++ {
				specs = append(specs, optimizer.MachineSpec{Name: fmt.Sprintf("c%d-r%d-m%d", c, r, k),
					Cluster: fmt.Sprintf("c%d", c), Rack: fmt.Sprintf("r%d", r), Healthy: true})
			}
		}
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{sku}, specs, types)
	if err != nil {
		tb.Fatal(err)
	}
	st := optimizer.NewState(inv)
	rng := rand.New(rand.NewPCG(seed, 11))
	totalWeight := 0
	for _, sz := range benchSizes {
		totalWeight += sz.weight
	}
	var id optimizer.VMID
	for c := range inv.Clusters {
		ms := inv.Clusters[c].Machines
		reserved := map[int32]bool{}
		for len(reserved) < 1+rng.IntN(4) {
			reserved[ms[rng.IntN(len(ms))]] = true
		}
		target := (0.70 + 0.20*rng.Float64()) * inv.Clusters[c].Cores
		for misses := 0; st.ClusterUsedCores[c] < target && misses < 200; {
			w, ty := rng.IntN(totalWeight), int32(0)
			for i, sz := range benchSizes {
				if w -= sz.weight; w < 0 {
					ty = int32(2*i + rng.IntN(2))
					break
				}
			}
			placed := false
			for try := 0; try < 20 && !placed; try++ {
				m := ms[rng.IntN(len(ms))]
				d, _ := inv.Demand(ty, m)
				if !reserved[m] && optimizer.Fits(d, st.Free(m)) {
					st.Place(optimizer.Placement{VM: id, Machine: m, Type: ty, Tenant: int32(id), Demand: d, Production: true})
					id++
					placed = true
				}
			}
			if !placed {
				misses++
			}
		}
	}
	return st
}

func BenchmarkSample(b *testing.B) {
	for _, n := range []int{500, 2500, 10000} {
		b.Run(fmt.Sprintf("machines=%d", n), func(b *testing.B) {
			st := benchZone(b, n, 1)
			buf := optimizer.Buffers{Healing: benchHealing}
			s := healable.New(st.Inv)
			mp, rp := s.Sample(st, buf)
			if !(mp > 0 && mp < 100) || !(rp > 0 && rp < 100) {
				b.Fatalf("setup did no real work: %v%% of machine and %v%% of rack failures healable, want some and not all", mp, rp)
			}
			if n <= 2500 { // the reference takes seconds beyond
				if rmp, rrp := refSample(st, buf); rmp != mp || rrp != rp {
					b.Fatalf("Sample = (%v, %v), reference = (%v, %v)", mp, rp, rmp, rrp)
				}
			}
			var used float64
			for c := range st.Inv.Clusters {
				used += st.ClusterUsedCores[c]
			}
			// changed=all: every machine changed since the last sample (the
			// sampler reads the whole state again, as after a busy hour of
			// a replay); changed=none: nothing did.
			for _, all := range []bool{true, false} {
				b.Run(map[bool]string{true: "changed=all", false: "changed=none"}[all], func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if all {
							b.StopTimer()
							for m := range st.Inv.Machines {
								st.Journal.Touch(int32(m), st.Inv.Machines[m].Cluster)
							}
							b.StartTimer()
						}
						s.Sample(st, buf)
					}
					b.ReportMetric(mp, "machine_pct")
					b.ReportMetric(rp, "rack_pct")
					b.ReportMetric(100*used/st.Inv.TotalCores(), "util_pct")
					b.ReportMetric(float64(st.Len()), "vms")
				})
			}
		})
	}
}

// BenchmarkSampleReference is the baseline: the test's plain reference
// implementation on the same zone.
func BenchmarkSampleReference(b *testing.B) {
	st := benchZone(b, 500, 1)
	buf := optimizer.Buffers{Healing: benchHealing}
	b.Run("machines=500", func(b *testing.B) {
		for b.Loop() {
			refSample(st, buf)
		}
	})
}

package optimizer

import (
	"fmt"
	"testing"
)

// BenchmarkAllocate times the per-request path of every engine on a zone in
// steady state: request i is placed and the VMs of request i-life leave, so
// occupancy stays near 80% of the zone's cores and some requests fail. The
// cached engine does all its cache upkeep inside Allocate (no background
// Refresh), so ns/op is the full cost of a decision. Grid: machines ×
// engine × explain.
func BenchmarkAllocate(b *testing.B) {
	for _, machines := range []int{400, 3200} {
		clusters := machines / 200
		z := zoneSpec{clusters: clusters, racks: 10, perRack: 20, skus: []SKU{skuSmall, skuLarge}}
		// ~10 cores per request, 32 cores per machine on average: 80% full.
		life := machines * 32 * 8 / 10 / 10
		reqs := randomRequests(buildZone(b, z), 4*life, 1)
		for _, engine := range []string{"protean", "protean-nocache", "bestfit"} {
			for _, explain := range []bool{false, true} {
				if engine == "protean-nocache" && machines > 400 {
					continue // cache off is O(k clusters) per VM: measured on the small zone only
				}
				name := fmt.Sprintf("machines=%d/engine=%s/explain=%v", machines, engine, explain)
				b.Run(name, func(b *testing.B) {
					inv := buildZone(b, z)
					cfg := DefaultConfig()
					cfg.Explain = explain
					var a Allocator
					var err error
					switch engine {
					case "protean":
						a, err = NewProtean(NewState(inv), cfg, DefaultRules())
					case "protean-nocache":
						cfg.Cache = false
						a, err = NewProtean(NewState(inv), cfg, DefaultRules())
					default:
						a, err = newBaselineBench(BestFitP, NewState(inv), cfg)
					}
					if err != nil {
						b.Fatal(err)
					}
					placed := make([][]VMID, len(reqs))
					step := func(i int) bool {
						j := i % len(reqs)
						if i >= life {
							for _, vm := range placed[(i-life)%len(reqs)] {
								a.Release(vm)
							}
							placed[(i-life)%len(reqs)] = nil
						}
						d := a.Allocate(reqs[j])
						for _, p := range d.Placements {
							placed[j] = append(placed[j], p.VM)
						}
						return d.OK
					}
					ok := 0
					for i := 0; i < life; i++ {
						if step(i) {
							ok++
						}
					}
					if ok < life/2 || a.State().Len() == 0 {
						b.Fatalf("warm-up placed %d of %d requests: the zone is not doing real work", ok, life)
					}
					vms := 0
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						step(life + i)
						vms += len(reqs[(life+i)%len(reqs)].VMs)
					}
					b.StopTimer()
					b.ReportMetric(float64(vms)/b.Elapsed().Seconds(), "VMs/s")
				})
			}
		}
	}
}

func newBaselineBench(p Policy, s *State, cfg Config) (*Baseline, error) {
	return NewBaseline(p, s, cfg, DefaultRules())
}

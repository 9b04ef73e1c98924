package optimizer

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func expGangs(n int, seed uint64, f int32, minV, maxV int, types []int32) []*Request {
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []*Request
	var vm VMID
	for i := 0; i < n; i++ {
		r := &Request{ID: int64(i), Tenant: int32(i), FaultDomains: f}
		k := minV + rng.IntN(maxV-minV+1)
		for j := 0; j < k; j++ {
			r.VMs = append(r.VMs, VMRequest{ID: vm, Type: types[rng.IntN(len(types))], SetIndex: int32(j)})
			vm++
		}
		out = append(out, r)
	}
	return out
}

func TestZZOrderExperiment(t *testing.T) {
	for _, z := range []zoneSpec{
		{clusters: 1, racks: 3, perRack: 4, skus: []SKU{skuSmall}},
		{clusters: 1, racks: 4, perRack: 3, skus: []SKU{skuSmall}},
		{clusters: 1, racks: 5, perRack: 2, skus: []SKU{skuSmall}},
		{clusters: 2, racks: 3, perRack: 3, skus: []SKU{skuSmall}},
	} {
		for _, w := range []struct{ minV, maxV, life int; types []int32 }{
			{3, 9, 4, []int32{0, 1, 2, 3, 4}},
			{3, 6, 6, []int32{0, 2, 4}},
			{4, 12, 3, []int32{0, 1, 3, 4}},
			{3, 9, 8, []int32{0, 1, 2, 3}},
		} {
			for _, eng := range []string{"protean", "bestfit", "firstfit"} {
				res := [3]int{}
				for i, so := range []bool{false, false, true} {
					orderVariant = i
					reqs := expGangs(600, 5, 3, w.minV, w.maxV, w.types)
					cfg := DefaultConfig()
					cfg.SizeOrder = so
					a := newEngine(t, eng, NewState(buildZone(t, z)), cfg, DefaultRules())
					replay(t, a, reqs, w.life, func(r *Request, d Decision) {
						if !d.OK {
							res[i]++
						}
					})
				}
				fmt.Printf("zone %d/%d w %v %s: count %d demand %d size %d\n", z.clusters, z.racks, w, eng, res[0], res[1], res[2])
			}
		}
	}
}

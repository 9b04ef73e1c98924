package analysis

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"

	"placelab/optimizer"
)

// BenchmarkAllocator is the grid of Protean §6.2's scaling study: machines ×
// cache on/off, full rule set, one agent, the synthetic trace's type
// locality. Each iteration replays the warm-up population and then times
// arriving requests, each followed by the release of what it placed (so the
// zone stays at its load); ns/op covers both. Sizes beyond 10k run with
// PLACELAB_LONG=1. `placelab bench allocator` times Allocate alone.
func BenchmarkAllocator(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("PLACELAB_LONG") != "" {
		sizes = append(sizes, 30000, 100000)
	}
	ctx := context.Background()
	for _, n := range sizes {
		tr, err := BenchZone(ctx, n, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, cache := range []bool{true, false} {
			b.Run(fmt.Sprintf("machines=%d/cache=%v", n, cache), func(b *testing.B) {
				cfg := optimizer.DefaultConfig()
				cfg.Cache = cache
				cfg.Weights = ScarcityWeights(tr)
				alloc, err := NewAllocator("protean", tr, cfg)
				if err != nil {
					b.Fatal(err)
				}
				reqs := Requests(tr, 0, math.Inf(1))
				warm := 0
				for warm < len(reqs) && reqs[warm].Time <= 0 {
					if d := alloc.Allocate(&reqs[warm]); !d.OK && warm < 10 {
						b.Fatalf("warm-up request %d rejected: %s", warm, d.Reason)
					}
					warm++
				}
				if alloc.State().Len() == 0 {
					b.Fatal("no VMs placed before timing")
				}
				arr := reqs[warm:]
				b.ResetTimer()
				vms := 0
				for i := 0; i < b.N; i++ {
					r := &arr[i%len(arr)]
					d := alloc.Allocate(r)
					vms += len(r.VMs)
					for _, p := range d.Placements { // keep the zone at its load
						alloc.Release(p.VM)
					}
				}
				b.ReportMetric(float64(vms)/b.Elapsed().Seconds(), "placements/s")
			})
		}
	}
}

package drain

import (
	"fmt"
	"sync"
	"testing"
)

// benchClusters are the seeded 1,500-node, 10,000-pod snapshots of
// BenchmarkPlan1500x10000: loose (requests ×1, nodes filled to 60%: most
// nodes can go) and tight (requests ×2.5, nodes filled to 90%).
var benchClusters = sync.OnceValue(func() map[string]*Problem {
	return map[string]*Problem{
		"loose": syntheticScaled(1, 1500, 10000, 1, 0.6),
		"tight": syntheticScaled(1, 1500, 10000, 2.5, 0.9),
	}
})

// BenchmarkPlan1500x10000 times Plan at its default effort, beside the
// Greedy baseline in the same run, with MaxMoves unlimited and 200. It
// first checks that the snapshot is valid and that Greedy finds work.
func BenchmarkPlan1500x10000(b *testing.B) {
	for _, cluster := range []string{"loose", "tight"} {
		p := benchClusters()[cluster]
		assign := make([]int, len(p.Pods))
		for i := range p.Pods {
			assign[i] = p.Pods[i].Node
		}
		if err := Check(p, assign, nil); err != nil {
			b.Fatal(err)
		}
		if g := Greedy(p, Options{}); len(g.Removed) == 0 || len(p.Pods) != 10000 {
			b.Fatalf("%s: %d pods, greedy removes %d: the benchmark does no work", cluster, len(p.Pods), len(g.Removed))
		}
		for _, maxMoves := range []int{0, 200} {
			for _, algo := range []string{"plan", "greedy"} {
				name := fmt.Sprintf("cluster=%s/maxmoves=%d/algo=%s", cluster, maxMoves, algo)
				b.Run(name, func(b *testing.B) {
					opts := Options{MaxMoves: maxMoves}
					var pl *Result
					for b.Loop() {
						if algo == "plan" {
							pl = must(Plan(p, opts))
						} else {
							pl = Greedy(p, opts)
						}
					}
					b.ReportMetric(float64(len(pl.Removed)), "removed")
					b.ReportMetric(float64(len(pl.Moves)), "moves")
				})
			}
		}
	}
}

package k8sgen

import (
	"fmt"
	"testing"
)

var benchSizes = []Options{
	{Nodes: 60, Pods: 400, Seed: 1},
	{Nodes: 500, Pods: 3500, Seed: 1},
	{Nodes: 1500, Pods: 10000, Seed: 1},
}

// bound counts the pods the simulation placed.
func bound(g *generated) int {
	n := 0
	for _, p := range g.pods {
		if p.node >= 0 {
			n++
		}
	}
	return n
}

// BenchmarkSimulate builds and schedules a cluster (no printing), with the
// static-filter cache on and off: the cache must win to stay.
func BenchmarkSimulate(b *testing.B) {
	for _, o := range benchSizes {
		for _, cache := range []bool{true, false} {
			name := fmt.Sprintf("nodes=%d/pods=%d/cache=%v", o.Nodes, o.Pods, map[bool]string{true: "on", false: "off"}[cache])
			b.Run(name, func(b *testing.B) {
				g, err := generate(o, cache)
				if err != nil || bound(g) < o.Pods*9/10 {
					b.Fatalf("setup placed %d of %d pods (err %v)", bound(g), o.Pods, err)
				}
				placed := bound(g)
				for b.Loop() {
					if _, err := generate(o, cache); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(placed)*float64(b.N)/b.Elapsed().Seconds(), "placements/s")
			})
		}
	}
}

// BenchmarkGenerate is the whole of Generate: simulate and print.
func BenchmarkGenerate(b *testing.B) {
	for _, o := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", o.Nodes, o.Pods), func(b *testing.B) {
			_, pods, err := Generate(o)
			if err != nil || len(pods) < 100*o.Pods {
				b.Fatalf("setup printed %d bytes (err %v)", len(pods), err)
			}
			size := 0
			for b.Loop() {
				n, p, err := Generate(o)
				if err != nil {
					b.Fatal(err)
				}
				size = len(n) + len(p)
			}
			b.ReportMetric(float64(size)/1e6, "MB")
		})
	}
}

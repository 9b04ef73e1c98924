package violation

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

var benchData = sync.OnceValues(func() (*Repository, []Curve) {
	repo, err := NewRepository(Synthetic(11, 4000))
	if err != nil {
		panic(err)
	}
	return repo, Synthetic(12, 4000)
})

// benchCluster is a cluster of the given size at DefaultDensity after
// warmHours of the simulator with WorstFit-max: tenants of every age, some
// still growing.
func benchCluster(tb testing.TB, nodes int, warmHours float64) (*Repository, []Curve, *Cluster, map[string]Vec) {
	repo, pool := benchData()
	cfg := DefaultSimConfig()
	cfg.Nodes = nodes
	initial := map[string]Vec{}
	for _, c := range pool {
		initial[c.Class] = repo.InitialDemand(c.Class, cfg.InitialQuantile)
	}
	r := &run{cfg: &cfg, tenants: pool, initial: initial, pol: NewWorstFit(WMax), seed: 3, steps: int(warmHours * 6)}
	if _, err := r.simulate(context.Background(), func(int64) {}); err != nil {
		tb.Fatal(err)
	}
	return repo, pool, &r.c, initial
}

// BenchmarkPlace times one placement of a new tenant into a warmed-up
// cluster, PrV-WorstFit against WorstFit-max in the same run.
func BenchmarkPlace(b *testing.B) {
	for _, nodes := range []int{40, 1000} {
		repo, pool, c, initial := benchCluster(b, nodes, 100)
		tenants := 0
		for i := range c.Nodes {
			tenants += len(c.Nodes[i].Tenants)
		}
		for _, name := range []string{NamePrVWorstFit, NameWorstFitMax} {
			b.Run(fmt.Sprintf("policy=%s/nodes=%d", name, nodes), func(b *testing.B) {
				pol, err := NewPolicy(name, repo, PolicyParams{})
				if err != nil {
					b.Fatal(err)
				}
				req := func(i int) Request {
					cv := &pool[i%len(pool)]
					t := Tenant{ID: 1 << 40, Class: cv.Class, Usage: initial[cv.Class], Max: cv.Max}
					return Request{ID: int64(i), Seed: RequestSeed(9, int64(i)), Tenant: t}
				}
				if tenants < 10*nodes {
					b.Fatalf("%d tenants on %d nodes: the cluster is not loaded", tenants, nodes)
				}
				if x, ok := pol.(Explainer); ok {
					d := x.Explain(c, req(0))
					risky := 0
					for _, e := range d.Estimates {
						if e.With > 0 {
							risky++
						}
					}
					if risky == 0 || d.Node < 0 {
						b.Fatalf("no node with a positive estimate (%d estimates, node %d): nothing to measure", len(d.Estimates), d.Node)
					}
				}
				b.ReportMetric(float64(tenants)/float64(nodes), "tenants/node")
				b.ResetTimer()
				for i := range b.N {
					if _, ok := pol.Place(c, req(i)); !ok {
						b.Fatal("not placed")
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "placements/s")
			})
		}
	}
}

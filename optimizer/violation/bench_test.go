package violation

import (
	"context"
	"fmt"
	"strings"
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

// benchCluster is a cluster of the given size and density after warmHours
// of the simulator with WorstFit-max: tenants of every age, some still
// growing.
func benchCluster(tb testing.TB, nodes int, density, warmHours float64) (*Repository, []Curve, *Cluster, map[string]Vec) {
	repo, pool := benchData()
	cfg := DefaultSimConfig()
	cfg.Nodes, cfg.Density = nodes, density
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

// benchDensities are the default and a denser setting, where more
// placements find no node below θ and need every node's full estimate.
var benchDensities = []float64{DefaultDensity, 1.3}

// BenchmarkPlace times one placement of a new tenant into a warmed-up
// cluster, PrV-WorstFit against WorstFit-max in the same run, and at 40
// nodes against PrV-WorstFit through Explain (mode=full: every node's full
// estimate, as the listing computes them, instead of lazy screening).
func BenchmarkPlace(b *testing.B) {
	for _, nodes := range []int{40, 1000} {
		for _, density := range benchDensities {
			benchPlace(b, nodes, density)
		}
	}
}

func benchPlace(b *testing.B, nodes int, density float64) {
	repo, pool, c, initial := benchCluster(b, nodes, density, 100)
	tenants := 0
	for i := range c.Nodes {
		tenants += len(c.Nodes[i].Tenants)
	}
	names := []string{NamePrVWorstFit, NameWorstFitMax}
	if nodes <= 40 {
		names = append(names, NamePrVWorstFit+"/mode=full")
	}
	for _, name := range names {
		b.Run(fmt.Sprintf("policy=%s/nodes=%d/density=%g", name, nodes, density), func(b *testing.B) {
			base, full := strings.CutSuffix(name, "/mode=full")
			pol, err := NewPolicy(base, repo, PolicyParams{})
			if err != nil {
				b.Fatal(err)
			}
			if full {
				pol = viaExplain{pol.(Explainer)}
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
			b.ResetTimer()
			for i := range b.N {
				if _, ok := pol.Place(c, req(i)); !ok {
					b.Fatal("not placed")
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "placements/s")
			b.ReportMetric(float64(tenants)/float64(nodes), "tenants/node")
		})
	}
}

// BenchmarkEstimate is the cache pair of STYLE habit 3: Algorithm 1 over
// every node of a warmed-up 40-node cluster, as one PrV placement screens
// them, with the per-tenant cache of eligible sets on and off. The tenants
// age one step between rounds, as between placements in the simulator,
// for 50 rounds and then start over.
func BenchmarkEstimate(b *testing.B) {
	repo, pool, c, initial := benchCluster(b, 40, DefaultDensity, 100)
	limit := c.Limit()
	ages := make([][]int, len(c.Nodes))
	for k := range c.Nodes {
		for _, t := range c.Nodes[k].Tenants {
			ages[k] = append(ages[k], t.Age)
		}
	}
	for _, cache := range []bool{true, false} {
		b.Run(fmt.Sprintf("cache=%v", cache), func(b *testing.B) {
			e := NewEstimator(repo, MCConfig{NoCache: !cache})
			cv := &pool[0]
			cand := Tenant{ID: 1 << 40, Class: cv.Class, Usage: initial[cv.Class], Max: cv.Max}
			e.Estimate(c.Nodes[0].Tenants, &cand, limit, 1)
			if e.Stats.Draws == 0 {
				b.Fatal("the first node needed no draws: nothing to measure")
			}
			b.ResetTimer()
			for i := range b.N {
				if round := i / len(c.Nodes); i%len(c.Nodes) == 0 {
					for k := range c.Nodes {
						for j := range c.Nodes[k].Tenants {
							c.Nodes[k].Tenants[j].Age = ages[k][j] + round%50
						}
					}
				}
				n := &c.Nodes[i%len(c.Nodes)]
				e.Estimate(n.Tenants, &cand, limit, RequestSeed(1, int64(i/len(c.Nodes))))
			}
		})
	}
}

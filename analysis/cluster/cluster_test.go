package cluster

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"placelab/analysis/internal/testkit"
	"placelab/datasets/k8sgen"
	"placelab/optimizer/cbc"
	"placelab/optimizer/drain"
	"placelab/optimizer/lpbound"
	"placelab/optimizer/lpbound/exact"
)

// exactRelaxed is the optimum of the snapshot's pods on its nodes as they
// are — every node its own bin with its free capacity, a pod allowed where
// its node affinity and tolerations allow it — with anti-affinity and spread
// relaxed, on CBC's assignment formulation: LB ≤ it ≤ the true optimum ≤ UB.
func exactRelaxed(t *testing.T, s *Snapshot) float64 {
	t.Helper()
	p := &s.Problem
	var prob lpbound.Problem
	for n := range p.Nodes {
		free := make([]float64, len(p.DimNames))
		for j, x := range p.Nodes[n].Free {
			free[j] = math.Max(0, x)
		}
		prob.Bins = append(prob.Bins, lpbound.BinType{Name: p.Nodes[n].Name, Capacity: free, Limit: 1})
	}
	for i := range p.Pods {
		pod := &p.Pods[i]
		it := lpbound.ItemType{Name: fmt.Sprint("pod", i), Count: 1, Sizes: make([][]float64, len(p.Nodes))}
		for n := range p.Nodes {
			if (pod.AffinityOK == nil || pod.AffinityOK[n]) && (pod.TolerationOK == nil || pod.TolerationOK[n]) {
				it.Sizes[n] = pod.Demand
			}
		}
		prob.Items = append(prob.Items, it)
	}
	r, err := exact.Solve(context.Background(), &prob, lpbound.MinCount, cbc.Options{TimeLimit: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Proven {
		t.Skipf("CBC did not prove the optimum in time (%v ≤ opt ≤ %v)", r.Bound, r.Opt)
	}
	return r.Opt
}

// TestClusterBoundAgainstExact: on small generated clusters (the control
// plane, GPU, memory and general pools, DaemonSets as overhead, selectors,
// taints, anti-affinity, spread), the interval holds the exact optimum of
// the relaxed assignment problem — LB ≤ OPT_relaxed ≤ OPT ≤ UB — the UB
// packing passes the independent check, and the drain plan frees at least
// as many nodes as the node-by-node greedy.
func TestClusterBoundAgainstExact(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			nodes, pods, err := k8sgen.Generate(k8sgen.Options{Nodes: 10, Pods: 60, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			db, run := testkit.LoadCluster(t, nodes, pods)
			ctx := context.Background()
			s, err := LoadSnapshot(ctx, db, run, math.NaN())
			if err != nil {
				t.Fatal(err)
			}
			rep, assign, err := s.Bound(ctx, 30*time.Second, nil)
			if err != nil {
				t.Fatal(err)
			}
			opt := exactRelaxed(t, s)
			if !(rep.LBNodes <= opt+1e-9 && opt <= float64(rep.UBNodes)) {
				t.Fatalf("LB %v ≤ OPT_relaxed %v ≤ UB %d does not hold", rep.LBNodes, opt, rep.UBNodes)
			}
			if err := drain.Check(&s.Problem, assign, nil); err != nil {
				t.Fatalf("UB packing: %v", err)
			}
			pl, err := drain.Plan(&s.Problem, drain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g := drain.Greedy(&s.Problem, drain.Options{}); len(pl.Removed) < len(g.Removed) {
				t.Fatalf("plan removes %d nodes, greedy %d", len(pl.Removed), len(g.Removed))
			}
			t.Logf("in use %d, LB %v, OPT_relaxed %v, UB %d", rep.NodesInUse, rep.LBNodes, opt, rep.UBNodes)
		})
	}
}

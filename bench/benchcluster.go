package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/whatif"
	"time"

	"placelab/datasets"
	"placelab/datasets/k8sgen"
	"placelab/optimizer/drain"
	store "placelab/sql"
)

// ClusterBenchOptions size placelab bench cluster.
type ClusterBenchOptions struct {
	Nodes, Pods int
	Seed        uint64
	Reps        int
}

// DefaultClusterBenchOptions are the size: a 1,500-node,
// 10,000-pod snapshot, three repetitions.
func DefaultClusterBenchOptions() ClusterBenchOptions {
	return ClusterBenchOptions{Nodes: 1500, Pods: 10000, Seed: 1, Reps: 3}
}

// ClusterBench is what a Kubernetes user waits for on a snapshot, end to
// end, medians over the repetitions: the load (parsing kubectl's JSON with
// the Kubernetes types and writing it in one transaction), the bound (the
// interval with its UB packing stored) and the drain plan (with the LP
// bound beside it and its placement stored) — TotalSeconds (target ≤ 10 s)
// — beside the Karpenter-style node-by-node greedy on the same snapshot
// (the baseline: GreedySeconds, GreedyRemoved).
type ClusterBench struct {
	Nodes         int     `json:"nodes"`
	Pods          int     `json:"pods"`
	Reps          int     `json:"reps"`
	JSONBytes     int     `json:"json_bytes"`
	LoadSeconds   float64 `json:"load_seconds"`
	BoundSeconds  float64 `json:"bound_seconds"`
	DrainSeconds  float64 `json:"drain_seconds"`
	TotalSeconds  float64 `json:"total_seconds"`
	GreedySeconds float64 `json:"greedy_seconds_baseline"`
	NodesInUse    int     `json:"nodes_in_use"`
	LBNodes       float64 `json:"lb_nodes"`
	UBNodes       int     `json:"ub_nodes"`
	PlanRemoved   int     `json:"plan_nodes_removed"`
	GreedyRemoved int     `json:"greedy_nodes_removed_baseline"`
	PlanMoves     int     `json:"plan_moves"`
}

// RunClusterBench generates the snapshot once, as kubectl prints it, and
// times load, bound and drain plan on a fresh in-memory database per
// repetition.
func RunClusterBench(ctx context.Context, o ClusterBenchOptions) (*ClusterBench, error) {
	if o.Reps < 1 {
		return nil, fmt.Errorf("%w: reps = %d, want ≥ 1", analysis.ErrBadSpec, o.Reps)
	}
	nodes, pods, err := k8sgen.Generate(k8sgen.Options{Nodes: o.Nodes, Pods: o.Pods, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "placelab-bench-cluster-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := k8sgen.WriteDir(dir, nodes, pods); err != nil {
		return nil, err
	}
	b := &ClusterBench{Nodes: o.Nodes, Reps: o.Reps, JSONBytes: len(nodes) + len(pods)}
	var load, bound, dr, total, greedy []float64
	for range o.Reps {
		db, err := store.Open(ctx, ":memory:")
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		counts, err := datasets.Ingest(ctx, db, "k8s", []string{filepath.Join(dir, "nodes.json"), filepath.Join(dir, "pods.json")},
			datasets.Options{Dataset: "bench"})
		if err != nil {
			db.Close()
			return nil, err
		}
		t1 := time.Now()
		br, err := cluster.Bound(ctx, db, counts.ObservedRun, cluster.DefaultBoundOptions())
		if err != nil {
			db.Close()
			return nil, err
		}
		t2 := time.Now()
		dp, err := whatif.Drain(ctx, db, counts.ObservedRun, whatif.DefaultDrainOptions())
		if err != nil {
			db.Close()
			return nil, err
		}
		t3 := time.Now()
		s, err := cluster.LoadSnapshot(ctx, db, counts.ObservedRun, whatif.DefaultDrainOptions().At)
		if err != nil {
			db.Close()
			return nil, err
		}
		t4 := time.Now()
		drain.Greedy(&s.Problem, drain.Options{}) // timed; counted by the plan below
		greedy = append(greedy, time.Since(t4).Seconds())
		db.Close()
		load = append(load, t1.Sub(t0).Seconds())
		bound = append(bound, t2.Sub(t1).Seconds())
		dr = append(dr, t3.Sub(t2).Seconds())
		total = append(total, t3.Sub(t0).Seconds())
		b.Pods, b.NodesInUse, b.LBNodes, b.UBNodes = int(counts.RowsLoaded), br.NodesInUse, br.LBNodes, br.UBNodes
		// Nodes in use removed, the greedy's counted as the plan's are
		// (empty nodes, which every plan removes, apart).
		b.PlanRemoved, b.PlanMoves, b.GreedyRemoved = dp.NodesRemoved, len(dp.Moves), dp.GreedyRemoved
	}
	b.LoadSeconds, b.BoundSeconds, b.DrainSeconds, b.TotalSeconds, b.GreedySeconds = median(load), median(bound), median(dr), median(total), median(greedy)
	return b, nil
}

package paragon_test

import (
	"context"
	"fmt"

	"placelab/optimizer/paragon"
)

// Six applications profiled offline on four server configurations
// (normalized performance), then a new one profiled on two of them and
// classified by folding in.
func Example() {
	offline := [][]float64{
		{1.00, 0.90, 0.60, 0.50}, // frequency-bound
		{1.00, 0.92, 0.62, 0.52},
		{0.50, 0.60, 1.00, 0.90}, // memory-bound
		{0.52, 0.61, 1.00, 0.92},
		{0.75, 0.75, 0.80, 0.70}, // in between
		{0.80, 0.78, 0.75, 0.68},
	}
	m, err := paragon.Train(paragon.SparseFromDense(offline, 4, nil), paragon.Options{Rank: 2})
	if err != nil {
		panic(err)
	}
	row, confidence := m.FoldIn(map[int]float64{0: 0.51, 2: 1.0})
	fmt.Printf("rank %d\n", m.Rank())
	fmt.Printf("predicted %.2f\n", row)
	fmt.Printf("confidence %.2f\n", confidence)
	// Output:
	// rank 2
	// predicted [0.51 0.60 1.00 0.91]
	// confidence 1.00
}

// §3.2's normalization example: qualities seen in [−1.2, 0.8], a candidate
// with Q = −1.0.
func ExampleNormalizeQuality() {
	fmt.Printf("%.1f\n", paragon.NormalizeQuality(-1.0, -1.2, 0.8))
	// Output: 0.1
}

// A new application that causes much memory-bandwidth interference (SoI
// 0) and tolerates little: the server already running a memory hog is
// filtered out at D1 (its resident would suffer), the empty server of the
// better configuration wins.
func ExampleSelectGreedy() {
	c := paragon.NewCluster([]paragon.ServerSpec{{Config: 0, Cores: 4}, {Config: 1, Cores: 4}, {Config: 0, Cores: 4}}, 2)
	c.Add(0, paragon.Resident{ID: 1, Cores: 1, Tolerated: []float64{0.3, 0.9}, Caused: []float64{0.6, 0.1}})
	req := &paragon.Request{ID: 2, Cores: 1, Class: paragon.Class{
		Perf:      []float64{1.0, 0.7}, // configuration 0 is its best
		Tolerated: []float64{0.4, 0.8},
		Caused:    []float64{0.5, 0.1},
	}}
	d := paragon.SelectGreedy(c, req, paragon.GreedyOptions{})
	fmt.Println("server", d.Server, "survivors", d.Survivors, "rejected at D1", d.RejectedD1)
	// Output: server 2 survivors 2 rejected at D1 [1 0]
}

// The four schedulers of §4 and the oracle on a small version of the
// low-load scenario (one seed).
func ExampleSimulateAll() {
	cfg, err := paragon.Scenario(paragon.ScenarioLow)
	if err != nil {
		panic(err)
	}
	cfg = cfg.Scaled(0.05) // 50 servers, 125 applications
	results, err := paragon.SimulateAll(context.Background(), cfg, paragon.Policies)
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Printf("%-7s qos_share %.2f mean_normalized_perf %.2f\n", r.Policy, r.QoSShare, r.MeanNormalizedPerf)
	}
	// Output:
	// paragon qos_share 0.82 mean_normalized_perf 0.97
	// oracle  qos_share 0.89 mean_normalized_perf 0.98
	// nh      qos_share 0.13 mean_normalized_perf 0.75
	// ni      qos_share 0.64 mean_normalized_perf 0.91
	// random  qos_share 0.15 mean_normalized_perf 0.70
}

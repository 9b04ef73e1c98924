package exact

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
)

// snapshotDims names the dimensions of snapshot, in order: the first
// dims are used.
var snapshotDims = []string{"cores", "memory GB", "SSD GB", "HDD GB", "NIC Gb/s"}

// snapshot is a synthetic zone snapshot shaped like the real ones: three
// SKUs (one limited to 2 machines, one without HDD), n VMs drawn with
// skewed frequencies from 12 VM types (cores 1–32, 2/4/8 GB per core,
// some with SSD or HDD, 1–10 Gb/s), so a few types with multiplicities;
// VMs with HDD fit only the SKUs that have HDD. dims ∈ [1, 5]. shrink
// divides every capacity (VM types that no longer fit an unlimited SKU are
// dropped, so every snapshot has a packing): 1 is a zone (about ten VMs
// per machine), 4 packs a few VMs per machine, the hard regime of bin
// packing.
func snapshot(seed uint64, n, dims int, shrink float64) *lpbound.Problem {
	r := rand.New(rand.NewPCG(seed, 5))
	skus := []lpbound.BinType{
		{Name: "gen1", Capacity: []float64{40, 320, 1600, 8000, 20}},
		{Name: "gen2", Capacity: []float64{64, 512, 3200, 0, 40}, Cost: 1.5},
		{Name: "big", Capacity: []float64{96, 1536, 6400, 16000, 50}, Cost: 2.5, Limit: 2},
	}
	p := &lpbound.Problem{}
	for _, s := range skus {
		s.Capacity = s.Capacity[:dims]
		for j := range s.Capacity {
			s.Capacity[j] /= shrink
		}
		p.Bins = append(p.Bins, s)
	}
	const types = 12
	weights := make([]float64, types)
	total := 0.0
	for i := range weights {
		weights[i] = 1 / float64(i+1) // Zipf-like frequencies
		total += weights[i]
	}
	for i := range types {
		cores := float64([]int{1, 2, 4, 8, 16, 32}[r.IntN(6)])
		size := []float64{cores, cores * float64([]int{2, 4, 8}[r.IntN(3)]), 0, 0, float64([]int{1, 2, 5, 10}[r.IntN(4)])}
		switch r.IntN(3) {
		case 0:
			size[2] = cores * 32
		case 1:
			size[3] = cores * 128
		}
		it := lpbound.ItemType{Name: fmt.Sprintf("vm%d", i), Sizes: [][]float64{size[:dims]}}
		fits := false
		for _, b := range p.Bins {
			fits = fits || b.Limit == 0 && fitsIn(size[:dims], b.Capacity)
		}
		if !fits {
			weights[i], it.Sizes = 0, nil
			continue
		}
		p.Items = append(p.Items, it)
	}
	weights = slices.DeleteFunc(weights, func(w float64) bool { return w == 0 })
	total = 0
	for _, w := range weights {
		total += w
	}
	for range n {
		x := r.Float64() * total
		i := 0
		for ; i < len(weights)-1 && x > weights[i]; i++ {
			x -= weights[i]
		}
		p.Items[i].Count++
	}
	return p
}

// BenchmarkSolve: exact on synthetic snapshots (snapshot) of 30 and 60
// VMs in 2, 3 and 5 dimensions, at zone density (shrink=1) and a few VMs
// per machine (shrink=4); MinCount, 20 s limit per solve; one op solves
// 5 seeds. Reports the fraction proven optimal and the median and largest
// seconds per solve. On this 2-core machine (shared), go test -run '^$'
// -bench BenchmarkSolve -benchtime=1x -count=3, median of the three runs:
//
//	                   zone (shrink=1)               few per machine (shrink=4)
//	items dims   proven  median s  max s        proven  median s  max s
//	   30    2    5/5     0.004    0.006         5/5     0.020    0.088
//	   30    3    5/5     0.005    0.006         5/5     0.098    0.31
//	   30    5    5/5     0.005    0.033         3/5     0.085   20 (limit)
//	   60    2    5/5     0.018    0.17          5/5     0.027    0.80
//	   60    3    5/5     0.016    0.082         5/5     0.098    0.63
//	   60    5    5/5     0.21     0.60          2/5    20 (limit) 20 (limit)
func BenchmarkSolve(b *testing.B) {
	for _, shrink := range []float64{1, 4} {
		for _, n := range []int{30, 60} {
			for _, dims := range []int{2, 3, 5} {
				b.Run(fmt.Sprintf("shrink=%g/items=%d/dims=%d", shrink, n, dims), func(b *testing.B) {
					var probs []*lpbound.Problem
					for seed := range uint64(5) {
						probs = append(probs, snapshot(seed, n, dims, shrink))
					}
					proven, solves := 0, 0
					var secs []float64
					for b.Loop() {
						for _, p := range probs {
							r, err := Solve(context.Background(), p, lpbound.MinCount, cbc.Options{TimeLimit: 20 * time.Second})
							if err != nil {
								b.Fatal(err)
							}
							solves++
							if r.Proven {
								proven++
							}
							secs = append(secs, r.Seconds)
						}
					}
					b.ReportMetric(float64(proven)/float64(solves), "proven")
					b.ReportMetric(median(secs), "s/solve(median)")
					b.ReportMetric(slices.Max(secs), "s/solve(max)")
				})
			}
		}
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

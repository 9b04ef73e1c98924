package exact

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"placelab/datasets"
	"placelab/internal/shareddata"
	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
)

// bpplibInstances are instances of the shared binpacking directory (keys
// of optima.csv) that exact proves optimal in well under a second each on
// this machine: vector instances of Panigrahy et al. with 20 items in 3, 5
// and 10 dimensions, and one-dimensional Scholl instances with 50 items.
//
// Most instances of that size are not so easy for the assignment
// formulation. With a 2 s limit: 162 of the 213 vbp instances with 20
// items are proven (135 in under 0.3 s); of scholl_1's 180 N1 instances
// (50 items, about 40 distinct sizes) see the package README of tests
// (TestBPPLIB's comment below).
var bpplibInstances = []string{
	"vbp_panigrahy/class1/class1_20_3_0.vbp",
	"vbp_panigrahy/class1/class1_20_3_2.vbp",
	"vbp_panigrahy/class1/class1_20_3_3.vbp",
	"vbp_panigrahy/class1/class1_20_3_4.vbp",
	"vbp_panigrahy/class1/class1_20_3_7.vbp",
	"vbp_panigrahy/class2/class2_20_10_0.vbp",
	"vbp_panigrahy/class2/class2_20_10_1.vbp",
	"vbp_panigrahy/class3/class3_20_5_0.vbp",
	"vbp_panigrahy/class3/class3_20_5_1.vbp",
	"vbp_panigrahy/class6/class6_20_10_0.vbp",
	"vbp_panigrahy/class6/class6_20_10_1.vbp",
	"scholl_1/N1C1W1_A.txt",
	"scholl_1/N1C1W1_G.txt",
}

// TestBPPLIB: exact reproduces the proven optimum of optima.csv on each
// instance, proven, and lpbound's LP bound does not exceed it.
func TestBPPLIB(t *testing.T) {
	dir := shareddata.Path(t, "binpacking")
	opt, err := datasets.ReadOptima(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range bpplibInstances {
		t.Run(key, func(t *testing.T) {
			want, ok := opt[key]
			if !ok {
				t.Fatalf("%s is not in optima.csv", key)
			}
			in, err := datasets.ReadInstance(filepath.Join(dir, filepath.FromSlash(key)))
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int, len(in.Counts))
			for i, c := range in.Counts {
				counts[i] = int(c)
			}
			p := lpbound.NewBinPacking(in.Capacity, in.Sizes, counts)
			r, err := Solve(context.Background(), p, lpbound.MinCount, cbc.Options{TimeLimit: time.Minute}) // a limit turns a regression into a failure, not a hang
			if err != nil {
				t.Fatal(err)
			}
			if !r.Proven || r.Opt != float64(want) {
				t.Fatalf("exact %g (proven %v, bound %g, %d nodes), optimum %d", r.Opt, r.Proven, r.Bound, r.Nodes, want)
			}
			if len(r.Machines) != want {
				t.Errorf("%d machines for optimum %d", len(r.Machines), want)
			}
			lb, err := lpbound.Solve(context.Background(), p, lpbound.Options{Objective: lpbound.MinCount})
			if err != nil {
				t.Fatal(err)
			}
			if lb.Bound > r.Opt {
				t.Errorf("LP bound %g > optimum %g", lb.Bound, r.Opt)
			}
		})
	}
}

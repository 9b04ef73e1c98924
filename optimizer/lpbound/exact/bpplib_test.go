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
// of optima.csv) that exact proves optimal in under 0.3 s each on this
// machine: one-dimensional Scholl instances with 50 items (two of each
// capacity and weight class where two qualify) and vector instances of
// Panigrahy et al. with 20 items in 3, 5 and 10 dimensions (one of each
// class and dimension).
//
// Most instances of that size are harder for the assignment formulation.
// With a 2 s limit per instance (MinCount, this machine, shared):
//
//	scholl_1 N1* (50 items)      180 instances: 68 proven (60 in < 0.3 s),
//	                             164 packings at the optimum
//	vbp_panigrahy *_20_* (20)    210 instances: 161 proven (138 in < 0.3 s),
//	                             205 packings at the optimum
//
// and no instance was proven at a value other than its optimum.
var bpplibInstances = []string{
	"scholl_1/N1C1W1_A.txt",
	"scholl_1/N1C1W1_G.txt",
	"scholl_1/N1C1W2_Q.txt",
	"scholl_1/N1C1W4_H.txt",
	"scholl_1/N1C1W4_I.txt",
	"scholl_1/N1C2W1_A.txt",
	"scholl_1/N1C2W1_D.txt",
	"scholl_1/N1C2W2_A.txt",
	"scholl_1/N1C2W2_D.txt",
	"scholl_1/N1C2W4_J.txt",
	"scholl_1/N1C2W4_Q.txt",
	"scholl_1/N1C3W1_B.txt",
	"scholl_1/N1C3W1_D.txt",
	"scholl_1/N1C3W2_A.txt",
	"scholl_1/N1C3W2_C.txt",
	"scholl_1/N1C3W4_C.txt",
	"scholl_1/N1C3W4_H.txt",
	"vbp_panigrahy/class1/class1_20_10_8.vbp",
	"vbp_panigrahy/class1/class1_20_3_0.vbp",
	"vbp_panigrahy/class1/class1_20_5_1.vbp",
	"vbp_panigrahy/class2/class2_20_10_0.vbp",
	"vbp_panigrahy/class2/class2_20_3_0.vbp",
	"vbp_panigrahy/class2/class2_20_5_0.vbp",
	"vbp_panigrahy/class3/class3_20_10_0.vbp",
	"vbp_panigrahy/class3/class3_20_3_0.vbp",
	"vbp_panigrahy/class3/class3_20_5_0.vbp",
	"vbp_panigrahy/class6/class6_20_10_0.vbp",
	"vbp_panigrahy/class6/class6_20_3_0.vbp",
	"vbp_panigrahy/class6/class6_20_5_0.vbp",
	"vbp_panigrahy/class7/class7_20_10_0.vbp",
	"vbp_panigrahy/class7/class7_20_3_0.vbp",
	"vbp_panigrahy/class7/class7_20_5_3.vbp",
	"vbp_panigrahy/class8/class8_20_10_0.vbp",
	"vbp_panigrahy/class8/class8_20_3_0.vbp",
	"vbp_panigrahy/class8/class8_20_5_0.vbp",
	"vbp_panigrahy/class9/class9_20_10_4.vbp",
	"vbp_panigrahy/class9/class9_20_3_2.vbp",
	"vbp_panigrahy/class9/class9_20_5_1.vbp",
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

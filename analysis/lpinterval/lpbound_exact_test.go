package lpinterval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"placelab/analysis/internal/testkit"
	"placelab/optimizer/cbc"
	"placelab/optimizer/lpbound"
	"placelab/optimizer/lpbound/exact"
)

// TestLPIntervalContainsOPT checks the interval against an independent exact
// solver on snapshots drawn from real traces: at seeded random instants,
// up to 60 of the VMs alive in Huawei-East-1 (on a synthetic 200-machine
// inventory: 4 SKUs) and in Alibaba openb (its own 27 node shapes, GPUs
// included) — heterogeneous, multi-dimension, mixed sizes — are packed
// optimally by CBC on the assignment formulation (package exact, no column
// generation), once on the zone's machine counts and once with every SKU
// limited to 3 machines, so that the limits bind. For both objectives,
// LB ≤ OPT ≤ UB must hold on every snapshot; how often ⌈LP⌉ and UB equal
// OPT is logged (PLACELAB_LONG=1: five times the snapshots).
func TestLPIntervalContainsOPT(t *testing.T) {
	ctx := context.Background()
	// A snapshot CBC cannot prove in this time is still checked against
	// CBC's bound and packing, just not counted as an OPT.
	const exactLimit = 5 * time.Second
	for _, tc := range []struct {
		name, format string
		files        []string
		inventory    string
		snapshots    int
	}{
		{"huawei", "huawei", []string{"huawei-east-1/Huawei-East-1-lt.csv"}, "synthetic:200", 8},
		{"alibaba", "alibaba-openb", []string{"alibaba-gpu-v2023/openb_node_list_all_node.csv", "alibaba-gpu-v2023/openb_pod_list_default.csv"}, "", 5},
	} {
		if os.Getenv("PLACELAB_LONG") != "" {
			tc.snapshots *= 5
		}
		t.Run(tc.name, func(t *testing.T) {
			_, tr := testkit.IngestShared(t, tc.name, tc.format, tc.inventory, tc.files...)
			z := NewZone(tr.Inv)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range tr.VMs {
				lo = math.Min(lo, v.Start)
				if !math.IsInf(v.End, 1) {
					hi = math.Max(hi, v.End)
				}
			}
			rng := rand.New(rand.NewPCG(14, 60))
			var checked, lbOpt, ubOpt, unproven int
			for n := 0; n < tc.snapshots; n++ {
				at := lo + rng.Float64()*(hi-lo)
				var alive []int32
				for _, v := range tr.VMs {
					if v.Start <= at && at < v.End {
						alive = append(alive, v.Type)
					}
				}
				if len(alive) == 0 {
					n--
					continue
				}
				rng.Shuffle(len(alive), func(i, j int) { alive[i], alive[j] = alive[j], alive[i] })
				counts := make([]int, len(tr.Inv.Types))
				for _, typ := range alive[:min(60, len(alive))] {
					counts[typ]++
				}
				for _, limit := range []int{0, 3} {
					bins := make([]lpbound.BinType, len(z.Bins))
					copy(bins, z.Bins)
					if limit > 0 {
						for k := range bins {
							bins[k].Limit = min(bins[k].Limit, limit)
						}
					}
					p := &lpbound.Problem{Bins: bins, Items: Items(tr.Inv, counts, z.SKUs, z.Dims)}
					for _, obj := range []lpbound.Objective{lpbound.MinCount, lpbound.MinCost} {
						r, err := lpbound.Solve(ctx, p, lpbound.Options{Objective: obj, TimeLimit: 20 * time.Second})
						if errors.Is(err, lpbound.ErrInfeasible) {
							continue // the 3-machine limits cannot hold these VMs
						}
						if err != nil {
							t.Fatalf("t=%.0f limit %d obj %d: %v", at, limit, obj, err)
						}
						e, err := exact.Solve(ctx, p, obj, cbc.Options{TimeLimit: exactLimit})
						if err != nil {
							t.Fatalf("t=%.0f limit %d obj %d: exact: %v", at, limit, obj, err)
						}
						if !e.Proven {
							unproven++
							// Still: LB ≤ CBC's packing, and CBC's bound ≤ UB.
							if r.Bound > e.Opt+1e-9 || e.Bound > r.Upper+1e-6 {
								t.Errorf("t=%.0f limit %d obj %d: LB %g, UB %g against unproven exact [%g, %g]", at, limit, obj, r.Bound, r.Upper, e.Bound, e.Opt)
							}
							continue
						}
						checked++
						if !(r.Bound <= e.Opt+1e-9 && e.Opt <= r.Upper+1e-9) {
							t.Errorf("t=%.0f limit %d obj %d (%d VMs): LB %g ≤ OPT %g ≤ UB %g fails", at, limit, obj, min(60, len(alive)), r.Bound, e.Opt, r.Upper)
						}
						if r.Bound == e.Opt {
							lbOpt++
						}
						if r.Upper == e.Opt {
							ubOpt++
						}
					}
				}
			}
			if checked == 0 {
				t.Fatal("no snapshot solved to proven optimality")
			}
			t.Logf("%s: %d snapshot problems with a proven OPT (%d unproven): ⌈LP⌉ = OPT on %d, UB = OPT on %d", tc.name, checked, unproven, lbOpt, ubOpt)
		})
	}
}

package lpbound

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// gridModel is one node type the way a Kubernetes node looks to the fleet
// planner: cores (pods ask for multiples of 50 millicores), GB (pods ask
// for whole MiB, 2^20 bytes, written in GB as 10^−9 multiples) and a pod
// count, which binds only when podCap is small. With sets, two
// anti-affinity sets of capacity 1 follow: one that item 0 alone uses (its
// copies capped at 1, so the set cannot bind) and one that items 1 and 2
// share (which binds).
func gridModel(t *testing.T, r *rand.Rand, n, maxCount int, podCap float64, sets bool) *model {
	t.Helper()
	const mib = 1 << 20
	capacity := []float64{1.85, float64(4032*mib) / 1e9, podCap}
	if sets {
		capacity = append(capacity, 1, 1)
	}
	p := &Problem{Bins: []BinType{{Capacity: capacity}}}
	for x := range n {
		s := []float64{float64(1+r.IntN(12)) * 0.05, float64((64+r.IntN(1024))*mib) / 1e9, 1}
		if sets {
			s = append(s, 0, 0)
			switch x {
			case 0:
				s[3] = 1
			case 1, 2:
				s[4] = 1
			}
		}
		p.Items = append(p.Items, ItemType{Count: 1 + r.IntN(maxCount), Sizes: [][]float64{s}})
	}
	m, err := newModel(p, MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gridDuals are seeded duals for m's items (some ≤ 0) and their counts.
func gridDuals(r *rand.Rand, m *model) (pi []float64, cnt []int) {
	pi, cnt = make([]float64, len(m.items)), make([]int, len(m.items))
	for i, it := range m.items {
		pi[i] = r.Float64() - 0.1
		cnt[i] = it.count
	}
	return pi, cnt
}

// TestGridPricerExact checks the grid DP against enumeration on seeded
// knapsacks with decimal sizes, with the pod-count dimension binding (3
// pods a node) and not (110), with and without anti-affinity sets (the one
// a single item type uses is left out of the table, the shared one kept),
// and that it refuses sizes on no grid.
func TestGridPricerExact(t *testing.T) {
	for _, sets := range []bool{false, true} {
		for _, podCap := range []float64{3, 110} {
			r := rand.New(rand.NewPCG(uint64(podCap), 11))
			for trial := range 60 {
				m := gridModel(t, r, 3+r.IntN(4), 5, podCap, sets)
				g := newGridPricer(m, 0)
				if g == nil {
					t.Fatalf("pods %g sets %v trial %d: no grid DP for decimal sizes", podCap, sets, trial)
				}
				// With 3 pods a node, cores and memory cannot bind (3 × 0.6
				// cores, 3 × 1,088 MiB) and the pod count is in the table
				// when more than 3 pods could come; with 110 it cannot bind
				// and is left out.
				// (more than 3 pods can come when the items' copies, each
				// capped by the pod count and the sets, exceed 3).
				pods := slices.Contains(g.dims, 2)
				most := 0
				for x, it := range m.items {
					c := min(it.count, 3)
					if sets && x < 3 {
						c = 1
					}
					most += c
				}
				if pods != (podCap == 3 && most > 3) {
					t.Fatalf("pods %g sets %v trial %d: the DP's dimensions are %v", podCap, sets, trial, g.dims)
				}
				if sets && slices.Contains(g.dims, 3) {
					t.Fatalf("pods %g trial %d: the DP keeps the set one item type uses: %v", podCap, trial, g.dims)
				}
				pi, cnt := gridDuals(r, m)
				want := bruteKnapsack(m, 0, pi)
				a := make([]int, len(m.items))
				v := g.price(pi, cnt, a)
				got := 0.0
				for i, q := range a {
					got += float64(q) * pi[i]
				}
				if math.Abs(v-want) > 1e-9 || math.Abs(got-want) > 1e-9 || !m.fits(fromCounts(0, a)) {
					t.Fatalf("pods %g sets %v trial %d: value %g, pattern %v worth %g (fits %v), want %g", podCap, sets, trial, v, a, got, m.fits(fromCounts(0, a)), want)
				}
			}
		}
	}
	p := &Problem{Bins: []BinType{{Capacity: []float64{1}}}, Items: []ItemType{{Count: 2, Sizes: [][]float64{{1.0 / 3}}}}}
	m, err := newModel(p, MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if newGridPricer(m, 0) != nil {
		t.Fatal("a grid DP for sizes of 1/3")
	}
}

// TestGridProvesSmallItems: pods far smaller than their node (twenty and
// more to a node) leave branch and bound's pricing unproven, and column
// generation stalled with its Lagrangian bound well below the master; the
// grid DP proves the pricing, so column generation converges and the bound
// is the LP optimum. (The cost is not an integer, so a packing that meets
// the rounded bound does not stop column generation first.)
func TestGridProvesSmallItems(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const mib = 1 << 20
	p := &Problem{Bins: []BinType{{Name: "node", Capacity: []float64{1.85, float64(4032*mib) / 1e9, 110}, Cost: 0.7}}}
	for range 60 {
		s := []float64{float64(1+r.IntN(6)) * 0.05, float64((64+r.IntN(400))*mib) / 1e9, 1}
		p.Items = append(p.Items, ItemType{Count: 5 + r.IntN(40), Sizes: [][]float64{s}})
	}
	res, err := Solve(context.Background(), p, Options{NodeLimit: 2000, IntegerTimeLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.LowerLP < res.LP*(1-1e-6) {
		t.Fatalf("stop %s, converged %v: Lagrangian bound %.4f, master LP %.4f", res.Stop, res.Converged, res.LowerLP, res.LP)
	}
	t.Logf("LP %.4f, bound %.4f, %d iterations, packing %.0f", res.LP, res.LowerLP, res.Iterations, res.Upper)
}

// TestLinePricerBounds checks the line DPs against enumeration: each
// dimension's DP alone (the others relaxed) must price no lower than the
// optimum, and the one on a dimension that no other binds must equal it.
func TestLinePricerBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 13))
	for _, sets := range []bool{false, true} {
		for trial := range 60 {
			m := gridModel(t, r, 3+r.IntN(4), 5, 3, sets)
			pi, cnt := gridDuals(r, m)
			want := bruteKnapsack(m, 0, pi)
			a := make([]int, len(m.items))
			for j := range m.dims {
				g := newLinePricer(m, 0, j)
				if g == nil {
					continue
				}
				if v := g.price(pi, cnt, a); v < want-1e-9 {
					t.Fatalf("sets %v trial %d: the line DP of dimension %d prices %g, below the optimum %g", sets, trial, j, v, want)
				}
			}
			// With 3 pods a node and no sets, the pod count is all that
			// binds (3 × 0.6 cores, 3 × 1,088 MiB fit), so its line is exact.
			if !sets {
				if v := newLinePricer(m, 0, 2).price(pi, cnt, a); math.Abs(v-want) > 1e-9 {
					t.Fatalf("trial %d: the pod count's line prices %g, want the optimum %g", trial, v, want)
				}
			}
		}
	}
}

// TestLinesProveLargeNodes: pods on a large node (64 cores, 512 GiB, some
// thirty pods of 0.05-core and 128-MiB steps to a node, memory binding)
// leave branch and bound's pricing unproven and the grid DP over both
// dimensions too large, so column generation stalled; the memory line's DP
// bounds the pricing value closely enough that it converges, with the bound
// equal to the LP optimum.
func TestLinesProveLargeNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 21))
	const mib = 1 << 20
	p := &Problem{Bins: []BinType{{Name: "node", Capacity: []float64{63.85, float64(512*1024*mib-64*mib) / 1e9, 108}, Cost: 3.2256}}}
	for range 40 {
		s := []float64{float64(5+r.IntN(60)) * 0.05, float64((16+r.IntN(120))*128*mib) / 1e9, 1}
		p.Items = append(p.Items, ItemType{Count: 1 + r.IntN(8), Sizes: [][]float64{s}})
	}
	res, err := Solve(context.Background(), p, Options{IntegerTimeLimit: -1, TimeLimit: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.LowerLP < res.LP*(1-1e-6) {
		t.Fatalf("stop %s, converged %v: Lagrangian bound %.4f, master LP %.4f", res.Stop, res.Converged, res.LowerLP, res.LP)
	}
	t.Logf("LP %.4f, bound %.4f, %d iterations in %v", res.LP, res.LowerLP, res.Iterations, res.Seconds)
}

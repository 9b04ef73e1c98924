package lpbound

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteKnapsack enumerates every pattern of bin type k.
func bruteKnapsack(m *model, k int, pi []float64) float64 {
	b := m.bins[k]
	best := 0.0
	var rec func(x int, free []float64, v float64)
	rec = func(x int, free []float64, v float64) {
		best = max(best, v)
		if x == len(b.fit) {
			return
		}
		i := b.fit[x]
		s := m.items[i].size[k]
		next := append([]float64(nil), free...)
		for c := 0; c <= m.items[i].count; c++ {
			if c > 0 {
				for j := range next {
					next[j] -= s[j]
				}
				if !fitsIn(make([]float64, len(next)), next) {
					break
				}
			}
			rec(x+1, next, v+float64(c)*max(pi[i], 0))
		}
	}
	rec(0, append([]float64(nil), b.cap...), 0)
	return best
}

// randomModel has one bin type of capacity cap (dims dimensions) and n
// item types; integer sizes if integral, divided by unit.
func randomModel(t *testing.T, r *rand.Rand, dims, n int, integral bool, unit float64) *model {
	t.Helper()
	capacity := make([]float64, dims)
	for j := range capacity {
		capacity[j] = 20 + float64(r.IntN(30))
	}
	p := &Problem{Bins: []BinType{{Capacity: capacity}}}
	for range n {
		s := make([]float64, dims)
		for j := range s {
			s[j] = 1 + r.Float64()*capacity[j]*0.6
			if integral {
				s[j] = math.Floor(s[j])
			}
		}
		p.Items = append(p.Items, ItemType{Count: 1 + r.IntN(3), Sizes: [][]float64{s}})
	}
	for j := range capacity {
		capacity[j] /= unit
		for _, it := range p.Items {
			it.Sizes[0][j] /= unit
		}
	}
	m, err := newModel(p, MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPricingExact checks the DP and branch and bound against enumeration
// on seeded random knapsacks, and that a stopped branch and bound still
// bounds the optimum from above.
func TestPricingExact(t *testing.T) {
	for _, c := range []struct {
		dims     int
		integral bool
		unit     float64 // sizes in these units; 16: multiples of 1/16
		dp       bool    // the DP must apply
	}{{1, true, 1, true}, {1, false, 1, false}, {2, true, 1, true}, {2, true, 16, true}, {1, true, 1 << 20, true}, {3, false, 1, false}, {5, true, 1, false}} {
		t.Run(fmt.Sprintf("dims=%d/integral=%v/unit=%g", c.dims, c.integral, c.unit), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.dims), 7))
			for trial := range 40 {
				m := randomModel(t, r, c.dims, 3+r.IntN(6), c.integral, c.unit)
				pi := make([]float64, len(m.items))
				cnt := make([]int, len(m.items))
				for i, it := range m.items {
					pi[i] = r.Float64() - 0.2 // some duals ≤ 0
					cnt[i] = it.count
				}
				want := bruteKnapsack(m, 0, pi)
				a := make([]int, len(m.items))
				check := func(engine string, v float64) {
					t.Helper()
					got := 0.0
					for i, q := range a {
						got += float64(q) * pi[i]
					}
					if math.Abs(v-want) > 1e-9 || math.Abs(got-want) > 1e-9 || !m.fits(fromCounts(0, a)) {
						t.Fatalf("trial %d %s: value %g, pattern %v worth %g (fits %v), want %g", trial, engine, v, a, got, m.fits(fromCounts(0, a)), want)
					}
				}
				if dp := newDPPricer(m, 0); dp != nil {
					check("dp", dp.price(pi, cnt, a))
				} else if c.dp {
					t.Fatal("no DP")
				}
				bb := newBBPricer(m, 0)
				v, u := bb.price(pi, cnt, a, 1<<30, nil)
				if u != v {
					t.Fatalf("trial %d: finished search has upper %g != value %g", trial, u, v)
				}
				check("bb", v)
				v, u = bb.price(pi, cnt, a, 2, nil)
				if v > want+1e-9 || u < want-1e-9 {
					t.Fatalf("trial %d: stopped search: value %g, upper %g, optimum %g", trial, v, u, want)
				}
			}
		})
	}
}

// TestPricingSetDims checks branch and bound against enumeration where most
// dimensions cannot bind, as anti-affinity sets make them: two resource
// dimensions, then capacity-1 or -2 set dimensions that one item type uses
// (its copies already capped), two or three use (binding), or none does, and
// one that the items fill exactly. The search leaves out the dimensions that
// cannot bind; its patterns must still fit every one, its value equal the
// optimum, and screenBound bound it, with every dual positive (the bound
// then reads only the dimensions every item uses) and with some not.
func TestPricingSetDims(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	dropped := 0
	for trial := range 120 {
		n := 3 + r.IntN(5)
		sets := 2 + r.IntN(8)
		dims := 2 + sets + 1
		capacity := make([]float64, dims)
		capacity[0], capacity[1] = 10+float64(r.IntN(20)), 10+float64(r.IntN(20))
		p := &Problem{}
		sizes := make([][]float64, n)
		counts := make([]int, n)
		for i := range sizes {
			sizes[i] = make([]float64, dims)
			sizes[i][0] = 1 + math.Floor(r.Float64()*capacity[0]*0.4)
			sizes[i][1] = 1 + math.Floor(r.Float64()*capacity[1]*0.4)
			counts[i] = 1 + r.IntN(3)
		}
		for s := range sets {
			j := 2 + s
			capacity[j] = float64(1 + r.IntN(2))
			switch users := r.IntN(4); users {
			case 0: // no item uses it
			default:
				for _, i := range r.Perm(n)[:min(users, n)] {
					sizes[i][j] = 1
				}
			}
		}
		// The last dimension: the items' most copies fill it exactly.
		last := dims - 1
		for i := range sizes {
			sizes[i][last] = 0.5
		}
		for i := range sizes {
			u := counts[i]
			for j := range dims - 1 {
				if sizes[i][j] > 0 {
					u = min(u, int(math.Floor((capacity[j]+FitSlack)/sizes[i][j])))
				}
			}
			capacity[last] += 0.5 * float64(u)
		}
		p.Bins = []BinType{{Capacity: capacity}}
		for i := range sizes {
			p.Items = append(p.Items, ItemType{Count: counts[i], Sizes: [][]float64{sizes[i]}})
		}
		m, err := newModel(p, MinCost)
		if err != nil {
			t.Fatal(err)
		}
		pr := &pricing{s: &cg{m: m, counts: counts}}
		for _, positive := range []bool{true, false} {
			pi := make([]float64, len(m.items))
			for i := range pi {
				pi[i] = 0.1 + r.Float64()
				if !positive && r.IntN(3) == 0 {
					pi[i] = -r.Float64()
				}
			}
			want := bruteKnapsack(m, 0, pi)
			a := make([]int, len(m.items))
			bb := newBBPricer(m, 0)
			v, u := bb.price(pi, counts, a, 1<<30, nil)
			got := 0.0
			for i, q := range a {
				got += float64(q) * pi[i]
			}
			if math.Abs(v-want) > 1e-9 || u != v || math.Abs(got-want) > 1e-9 || !m.fits(fromCounts(0, a)) {
				t.Fatalf("trial %d: value %g (upper %g), pattern %v worth %g (fits %v), want %g", trial, v, u, a, got, m.fits(fromCounts(0, a)), want)
			}
			if len(bb.act) < dims {
				dropped++
			}
			if sb := pr.screenBound(pi, 0); sb < want-1e-9 {
				t.Fatalf("trial %d: screenBound %g below the optimum %g", trial, sb, want)
			}
		}
	}
	if dropped == 0 {
		t.Fatal("no trial left a dimension out of the search")
	}
}

package fleet

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestLNSRepacks: the fleet improve leaves on improveProblem (three bigs,
// 12) needs a repacking no single move makes; the search reaches the
// optimum, one big and three smalls (8.5: the only-big pod needs a big, 4,
// and the other 6 cpu cost at least 0.75 each, so no fleet is cheaper).
func TestLNSRepacks(t *testing.T) {
	p := improveProblem()
	pr := prepare(p)
	in := Fleet{Nodes: []Node{node(0, 0, 3), node(0, 0, 3), node(0, 0, 1), node(0, 1, 1, 2, 1), node(0, 2, 1)}}
	in.Cost = in.cost(p)
	start := pr.improve(in, []int{0, 1}, time.Now().Add(time.Minute))
	if start.Cost < 12-1e-9 {
		t.Fatalf("improve already reaches %g; the test needs a start it cannot improve", start.Cost)
	}
	out, tried, improved := pr.lns(t.Context(), start, []int{0, 1}, nil, time.Now().Add(time.Minute))
	if err := pr.Check(&out); err != nil {
		t.Fatal(err)
	}
	if out.Cost > 8.5+1e-9 || improved == 0 {
		t.Fatalf("cost %g after %d neighbourhoods (%d saved), want 8.5", out.Cost, tried, improved)
	}
}

// TestLNSKeepsConstraints: on random problems (limited types, overheads,
// anti-affinity sets, allowed types) from one pod per node on its dearest
// type, the searched fleet passes Check, never costs more than its start,
// and the same input gives the same fleet.
func TestLNSKeepsConstraints(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 54))
	saved := 0
	for inst := range 60 {
		p := &Problem{Dims: []string{"cpu", "memory"}}
		nt := 1 + rng.IntN(4)
		for k := range nt {
			c := float64(1 + rng.IntN(8))
			m := float64(1 + rng.IntN(16))
			ty := Type{Name: string(rune('A' + k)), Cap: []float64{c, m}, Price: 0.1 + c*0.3 + m*0.05 + rng.Float64()*0.2}
			if rng.IntN(3) == 0 {
				ty.Limit = 1 + rng.IntN(4)
			}
			p.Types = append(p.Types, ty)
		}
		if rng.IntN(2) == 0 {
			p.Overhead = make([][]float64, nt)
			for k := range nt {
				p.Overhead[k] = []float64{0.25, 0.5}
			}
		}
		for g := range 1 + rng.IntN(5) {
			gr := Group{Name: string(rune('a' + g)), Demand: []float64{0.5 * float64(1+rng.IntN(6)), 0.5 * float64(1+rng.IntN(8))},
				Count: 1 + rng.IntN(6), AntiKey: -1}
			if rng.IntN(3) == 0 {
				gr.AntiKey, gr.MaxPerNode = rng.IntN(2), 1+rng.IntN(2)
			}
			if rng.IntN(3) == 0 {
				gr.Allowed = make([]bool, nt)
				for k := range gr.Allowed {
					gr.Allowed[k] = rng.IntN(2) == 0
				}
			}
			p.Groups = append(p.Groups, gr)
		}
		for g := range p.Groups {
			for h := range p.Groups {
				if p.Groups[g].AntiKey >= 0 && p.Groups[g].AntiKey == p.Groups[h].AntiKey {
					p.Groups[h].MaxPerNode = p.Groups[g].MaxPerNode
				}
			}
		}
		pr := prepare(p)
		// One pod per node on its dearest allowed type with room left
		// under its limit; an instance the start cannot place is skipped.
		var in Fleet
		used := make([]int, nt)
		ok := true
		for g, gr := range p.Groups {
			if !pr.place[g] {
				continue
			}
			for range gr.Count {
				k := -1
				for j := range p.Types {
					if pr.allowed[g][j] && (p.Types[j].Limit == 0 || used[j] < p.Types[j].Limit) && (k < 0 || p.Types[j].Price > p.Types[k].Price) {
						k = j
					}
				}
				if k < 0 {
					ok = false
					break
				}
				used[k]++
				in.Nodes = append(in.Nodes, node(k, g, 1))
			}
		}
		if !ok || len(in.Nodes) == 0 {
			continue
		}
		in.Cost = in.cost(p)
		if err := pr.Check(&in); err != nil {
			t.Fatalf("instance %d: the start: %v", inst, err)
		}
		kept := make([]int, nt)
		for k := range kept {
			kept[k] = k
		}
		out, _, improved := pr.lns(t.Context(), in, kept, nil, time.Now().Add(time.Minute))
		if err := pr.Check(&out); err != nil {
			t.Fatalf("instance %d: %v\nproblem %+v\nfrom %+v\nto %+v", inst, err, p, in.Nodes, out.Nodes)
		}
		if out.Cost > in.Cost+1e-9 {
			t.Fatalf("instance %d: cost %g, was %g", inst, out.Cost, in.Cost)
		}
		if improved > 0 {
			saved++
		}
		again, _, _ := pr.lns(t.Context(), in, kept, nil, time.Now().Add(time.Minute))
		if again.Cost != out.Cost || !slices.EqualFunc(again.Nodes, out.Nodes, func(a, b Node) bool {
			return a.Type == b.Type && slices.Equal(a.Groups, b.Groups) && slices.Equal(a.Counts, b.Counts)
		}) {
			t.Fatalf("instance %d: two runs differ", inst)
		}
	}
	if saved == 0 {
		t.Fatal("the search saved on no instance: the test proves nothing")
	}
}

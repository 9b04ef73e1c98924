package fleet

import (
	"math/rand/v2"
	"runtime"
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
		p := randomProblem(rng, true)
		nt := len(p.Types)
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

// TestLNSSharesLimits: two neighbourhoods solved at once (two nodes that
// share no group, neither able to run the other's pod) both want the one
// node a limited type has left; only one gets it, so the fleet keeps the
// limit (Check) and costs 1 + 3 (the two pods do not fit one node).
func TestLNSSharesLimits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := &Problem{Dims: []string{"cpu", "memory"},
		Types: []Type{
			{Name: "cheap", Cap: []float64{4, 4}, Price: 1, Limit: 1},
			{Name: "dear-a", Cap: []float64{4, 4}, Price: 3},
			{Name: "dear-b", Cap: []float64{4, 4}, Price: 3},
		},
		Groups: []Group{
			{Name: "a", Demand: []float64{3, 3}, Count: 1, AntiKey: -1, Allowed: []bool{true, true, false}},
			{Name: "b", Demand: []float64{3, 3}, Count: 1, AntiKey: -1, Allowed: []bool{true, false, true}},
		}}
	pr := prepare(p)
	in := Fleet{Nodes: []Node{node(1, 0, 1), node(2, 1, 1)}}
	in.Cost = in.cost(p)
	out, tried, _ := pr.lns(t.Context(), in, []int{0, 1, 2}, nil, time.Now().Add(time.Minute))
	if err := pr.Check(&out); err != nil {
		t.Fatalf("%v (fleet %+v)", err, out.Nodes)
	}
	if out.Cost != 4 {
		t.Fatalf("cost %g after %d neighbourhoods, want 4", out.Cost, tried)
	}
}

// TestLNSSkipsFailedNeighbourhoods: five pods of 0.6 cpu on five 1-cpu
// nodes is the optimum (one pod per node), and every node's neighbourhood
// is the same five nodes. The search plans it once: the other seeds grow
// the same neighbourhood, which saved nothing (it planned it five times,
// once per seed, before neighbourhoods were remembered by their nodes).
func TestLNSSkipsFailedNeighbourhoods(t *testing.T) {
	p := &Problem{Dims: []string{"cpu"},
		Types:  []Type{{Name: "one", Cap: []float64{1}, Price: 1}},
		Groups: []Group{{Name: "a", Demand: []float64{0.6}, Count: 5, AntiKey: -1}}}
	pr := prepare(p)
	in := Fleet{}
	for range 5 {
		in.Nodes = append(in.Nodes, node(0, 0, 1))
	}
	in.Cost = in.cost(p)
	out, tried, improved := pr.lns(t.Context(), in, []int{0}, nil, time.Now().Add(time.Minute))
	if err := pr.Check(&out); err != nil {
		t.Fatal(err)
	}
	if tried != 1 || improved != 0 || out.Cost != 5 {
		t.Fatalf("%d neighbourhoods tried, %d saved, cost %g; want 1 tried, none saved, cost 5", tried, improved, out.Cost)
	}
}

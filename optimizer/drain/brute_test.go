package drain

import (
	"math/rand/v2"
	"testing"
)

// TestBruteForce compares Plan, Greedy and Repack with every assignment of
// small random problems (racks, fault domains and DomainOK masks
// included): Plan's result passes Check, removes at least as many nodes as
// Greedy and at most as many as the true maximum under the same rules,
// with MaxMoves unlimited, 1 and 2 (and at the least Effort); Repack
// passes Check and uses at least the true minimum of nodes. It also counts
// the problems where the fault-domain rule lowers the optimum ("fault
// domain binds"), to show the rule is exercised.
func TestBruteForce(t *testing.T) {
	cases := 1500
	if testing.Short() {
		cases = 300
	}
	r := rand.New(rand.NewPCG(42, 1))
	stats := map[string]int{}
	for c := 0; c < cases; {
		p, ok := randomProblem(r)
		if !ok {
			continue
		}
		c++
		byMoves, minUsed := bruteForce(p)
		if hasFaultDomains(p) {
			stats["with fault domains"]++
			q := *p
			q.Pods = append([]Pod(nil), p.Pods...)
			for i := range q.Pods {
				q.Pods[i].FaultDomain = 0
			}
			free, _ := bruteForce(&q)
			if bestWithin(free, -1) < bestWithin(byMoves, -1) {
				t.Fatalf("case %d: dropping the fault-domain rule lowers the optimum", c)
			}
			if bestWithin(free, -1) > bestWithin(byMoves, -1) {
				stats["fault domain binds"]++
			}
		}
		for _, maxMoves := range []int{0, 1, 2} {
			opts := Options{MaxMoves: maxMoves}
			budget := -1
			if maxMoves > 0 {
				budget = maxMoves
			}
			best := bestWithin(byMoves, budget)
			pl, err := Plan(p, opts)
			if err != nil {
				t.Fatalf("case %d: Plan: %v", c, err)
			}
			apply(t, p, opts, pl)
			g := Greedy(p, opts)
			apply(t, p, opts, g)
			// The least effort still gives a valid plan, no worse than Greedy.
			low := must(Plan(p, Options{MaxMoves: maxMoves, Effort: 1, Restarts: -1}))
			apply(t, p, opts, low)
			if len(low.Removed) < len(g.Removed) {
				t.Fatalf("case %d MaxMoves %d: Plan at Effort 1 removes %d < Greedy %d", c, maxMoves, len(low.Removed), len(g.Removed))
			}
			got := len(pl.Removed)
			if got < len(g.Removed) || pl.Greedy != len(g.Removed) {
				t.Fatalf("case %d MaxMoves %d: Plan removes %d, Greedy %d (Plan.Greedy %d)", c, maxMoves, got, len(g.Removed), pl.Greedy)
			}
			if got > best {
				t.Fatalf("case %d MaxMoves %d: Plan removes %d > brute-force maximum %d", c, maxMoves, got, best)
			}
			stats["runs"]++
			if got == best {
				stats["plan optimal"]++
			}
			if len(g.Removed) == best {
				stats["greedy optimal"]++
			}
			if got > len(g.Removed) {
				stats["plan beats greedy"]++
			}
		}
		assign, err := Repack(p)
		switch {
		case err != nil && minUsed >= 0:
			stats["repack failed, feasible"]++
		case err == nil && minUsed < 0:
			t.Fatalf("case %d: Repack found a packing the brute force did not", c)
		case err == nil:
			used := map[int]bool{}
			for i, n := range assign {
				used[n] = true
				if !p.Nodes[n].Schedulable {
					t.Fatalf("case %d: Repack put pod %d on unschedulable node %d", c, i, n)
				}
			}
			if err := Check(p, assign, nil); err != nil {
				t.Fatalf("case %d: Repack fails Check: %v", c, err)
			}
			if len(used) < minUsed {
				t.Fatalf("case %d: Repack uses %d nodes < brute-force minimum %d", c, len(used), minUsed)
			}
			stats["repack runs"]++
			if len(used) == minUsed {
				stats["repack optimal"]++
			}
		}
	}
	t.Logf("%v", stats)
}

func hasFaultDomains(p *Problem) bool {
	for i := range p.Pods {
		if p.Pods[i].FaultDomain > 0 {
			return true
		}
	}
	return false
}

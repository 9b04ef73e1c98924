package drain

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// faultDomainPair is the reproduction: A (rack 1, kept, roomy), B (rack 1)
// holding x of group 5 in fault domain 1, C (rack 2) holding y of group 5
// in fault domain 2. The cheapest drain without the rule moves both onto
// A and removes B and C, which puts both fault domains on rack 1.
func faultDomainPair() *Problem {
	p := cluster([][2]float64{{16, 64}, {4, 8}, {4, 8}}, []int{0, 0, 0})
	p.Nodes[0].Removable = false
	p.Nodes[0].Rack, p.Nodes[1].Rack, p.Nodes[2].Rack = 1, 1, 2
	x := p.add("x", 1, 1, 1)
	x.Group, x.FaultDomain = 5, 1
	y := p.add("y", 2, 1, 1)
	y.Group, y.FaultDomain = 5, 2
	return p
}

// TestFaultDomainKeepsRacksApart: Plan, Greedy and Repack never put the
// two fault domains of a set on one rack, although that would drain one
// more node; without the fault domains the same snapshot drains both.
func TestFaultDomainKeepsRacksApart(t *testing.T) {
	p := faultDomainPair()
	rack := func(assign []int, i int) int { return p.Nodes[assign[i]].Rack }

	free := faultDomainPair()
	for i := range free.Pods {
		free.Pods[i].FaultDomain = 0
	}
	if pl := must(Plan(free, Options{})); len(pl.Removed) != 2 {
		t.Fatalf("without fault domains Plan should drain B and C onto A: %+v", pl)
	}

	for _, opts := range []Options{{}, {MaxMoves: 1}, {Effort: 1, Restarts: -1}} {
		for name, pl := range map[string]*Result{"plan": must(Plan(p, opts)), "greedy": Greedy(p, opts)} {
			assign := apply(t, p, opts, pl)
			if rack(assign, 0) == rack(assign, 1) {
				t.Fatalf("%s %+v: x and y share rack %d: %+v", name, opts, rack(assign, 0), pl)
			}
			if len(pl.Removed) != 1 {
				t.Fatalf("%s %+v: want one node drained (x onto A), got %+v", name, opts, pl)
			}
		}
	}
	assign, err := Repack(p)
	if err != nil {
		t.Fatal(err)
	}
	if rack(assign, 0) == rack(assign, 1) {
		t.Fatalf("Repack puts x and y on rack %d: %v", rack(assign, 0), assign)
	}

	// Explain: C cannot go, both other nodes are on x's rack; B can.
	w := Explain(p, 2)
	if w.Drainable || w.Pod != 1 || !mapsEqual(reasons(w), map[string]int{ReasonFaultDomain: 2}) {
		t.Fatalf("Explain(C): %+v", w)
	}
	if want := "fault domain (rack 1 holds fault domain 1 of group 5)"; !strings.Contains(w.Text, want) {
		t.Fatalf("Explain(C) text %q lacks %q", w.Text, want)
	}
	if w := Explain(p, 1); !w.Drainable || !slices.Equal(w.Moves, []Move{{Pod: 0, From: 1, To: 0}}) {
		t.Fatalf("Explain(B): %+v", w)
	}
	// With the inventory's rack names, the reason and Check's error name
	// the rack as the planner knows it.
	p.RackNames = []string{"r0", "row1-rack07", "row2-rack01"}
	if want := "fault domain (rack row1-rack07 holds fault domain 1 of group 5)"; !strings.Contains(Explain(p, 2).Text, want) {
		t.Fatalf("Explain(C) text %q lacks %q", Explain(p, 2).Text, want)
	}
	if err := Check(p, []int{0, 0}, nil); err == nil || !strings.Contains(err.Error(), "fault domain: rack row1-rack07 holds fault domain") {
		t.Fatalf("Check with both on A: %v", err)
	}
}

// TestCheckFaultDomain: Check's rule 6 names the pod, node, rack, both
// fault domains and the other pod; pods without a fault domain, of another
// group, or of the same fault domain may share a rack.
func TestCheckFaultDomain(t *testing.T) {
	p := faultDomainPair()
	z := p.add("z", 0, 1, 1) // group 5, no fault domain
	z.Group = 5
	o := p.add("o", 2, 1, 1) // another group's fault domain 1 on rack 2
	o.Group, o.FaultDomain = 6, 1
	w := p.add("w", 1, 1, 1) // group 5, fault domain 1 again, on rack 1
	w.Group, w.FaultDomain = 5, 1
	tests := []struct {
		name   string
		assign []int
		want   string
	}{
		{"snapshot", []int{1, 2, 0, 2, 1}, ""},
		{"same fault domain on one rack", []int{0, 2, 0, 2, 1}, ""},
		{"both on A", []int{0, 0, 0, 2, 1}, `pod 0 "x" on node 0 "A": fault domain: rack 1 holds fault domain 2 (pod 1 "y") and 1 of group 5`},
		{"y on B", []int{1, 1, 0, 2, 1}, `pod 0 "x" on node 1 "B": fault domain: rack 1 holds fault domain 2 (pod 1 "y") and 1`},
		{"x on C", []int{2, 2, 0, 2, 1}, `pod 0 "x" on node 2 "C": fault domain: rack 2 holds fault domain 2 (pod 1 "y") and 1`},
		{"w on C", []int{1, 2, 0, 2, 2}, `pod 1 "y" on node 2 "C": fault domain: rack 2 holds fault domain 1 (pod 4 "w") and 2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(p, tc.assign, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (!errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDomainOK: a pod never moves to a node its DomainOK excludes, Check
// and Explain name the update domain, and DomainOK does not take a zone
// out of the spread rule's eligible zones (only AffinityOK does).
func TestDomainOK(t *testing.T) {
	t.Run("never onto an excluded node", func(t *testing.T) {
		// A holds p; B (kept, first target) is outside p's DomainOK, C inside.
		p := cluster([][2]float64{{4, 8}, {16, 64}, {16, 64}}, []int{0, 0, 0})
		p.Nodes[1].Removable, p.Nodes[2].Removable = false, false
		pod := p.add("p", 0, 1, 1)
		pod.DomainOK, pod.DomainDesc = only(3, 0, 2), "update domain 1 of 3"
		for name, pl := range map[string]*Result{"plan": must(Plan(p, Options{})), "greedy": Greedy(p, Options{})} {
			if assign := apply(t, p, Options{}, pl); assign[0] != 2 {
				t.Fatalf("%s: p on node %d, want C: %+v", name, assign[0], pl)
			}
		}
		if assign, err := Repack(p); err != nil || assign[0] == 1 {
			t.Fatalf("Repack: %v %v", assign, err)
		}
		if err := Check(p, []int{1}, nil); !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), `pod 0 "p" on node 1 "B": update domain (update domain 1 of 3)`) {
			t.Fatalf("Check: %v", err)
		}
		p.Nodes[2].Schedulable = false
		w := Explain(p, 0)
		if w.Drainable || !mapsEqual(reasons(w), map[string]int{ReasonUpdateDomain: 1, ReasonUnschedulable: 1}) ||
			!strings.Contains(w.Text, "update domain (update domain 1 of 3)") {
			t.Fatalf("Explain: %+v", w)
		}
	})
	t.Run("spread eligibility ignores DomainOK", func(t *testing.T) {
		// Zone a: A1, A2 (kept, empty); zone b: B1, B2 (kept, empty). Max
		// skew 1, s0 on A1, s1 on B1; both exclude B2 by DomainOK. Zone b
		// stays eligible through B2, so s1 may not leave it: B1 stays.
		// Were DomainOK counted, zone b would have no eligible node once
		// B1 goes, and s1 could join zone a.
		p := cluster([][2]float64{{4, 8}, {4, 8}, {4, 8}, {4, 8}}, []int{0, 0, 1, 1})
		p.Nodes[1].Removable, p.Nodes[3].Removable = false, false
		for _, j := range []int{0, 2} {
			pod := p.add("s", j, 1, 1)
			pod.Group, pod.MaxSkew = 1, 1
			pod.DomainOK, pod.DomainDesc = only(4, 0, 1, 2), "update domain 0 of 2"
		}
		for name, pl := range map[string]*Result{"plan": must(Plan(p, Options{})), "greedy": Greedy(p, Options{})} {
			apply(t, p, Options{}, pl)
			if !slices.Equal(pl.Removed, []int{0}) {
				t.Fatalf("%s: want only A1 drained (s0 to A2), got %+v", name, pl)
			}
		}
		err := Check(p, []int{1, 1}, []bool{true, false, true, false})
		if !errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), "topology spread") {
			t.Fatalf("Check with both in zone a and B2 eligible: %v", err)
		}
		w := Explain(p, 2)
		if w.Drainable || !mapsEqual(reasons(w), map[string]int{ReasonSpread: 2, ReasonUpdateDomain: 1}) {
			t.Fatalf("Explain(B1): %+v", w)
		}
	})
}

// TestValidateDomains: Validate's errors for the new fields.
func TestValidateDomains(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"negative fault domain", func(p *Problem) { p.Pods[0].FaultDomain = -1 }, `pod 0 "x": FaultDomain -1: want ≥ 0`},
		{"fault domain without group", func(p *Problem) { p.Pods[1].Group = -1 }, `pod 1 "y": FaultDomain 2 without a Group`},
		{"DomainOK length", func(p *Problem) { p.Pods[1].DomainOK = []bool{true} }, `pod 1 "y": DomainOK has 1 entries, want 3`},
		{"valid", func(p *Problem) { p.Pods[1].DomainOK = []bool{true, false, true}; p.Nodes[2].Rack = -7 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := faultDomainPair()
			tc.edit(p)
			err := Validate(p)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (!errors.Is(err, ErrProblem) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// faultDomainOKBrute is faultDomainOK from its definition: no other placed
// pod of i's group with another non-zero fault domain on t's rack.
func faultDomainOKBrute(p *Problem, assign []int, i, t int) bool {
	pi := &p.Pods[i]
	if pi.FaultDomain == 0 {
		return true
	}
	for q, u := range assign {
		pq := &p.Pods[q]
		if q != i && u >= 0 && pq.Group == pi.Group && pq.FaultDomain != 0 && pq.FaultDomain != pi.FaultDomain && p.Nodes[u].Rack == p.Nodes[t].Rack {
			return false
		}
	}
	return true
}

// TestFaultDomainCounts: the state's per-(group, rack, fault domain) counts
// follow any sequence of moves, unplacements and rollbacks (faultDomainOK
// agrees with its definition for every pod and node after every step), and
// from a valid snapshot moves that canPlace accepts keep Check's rule 6.
func TestFaultDomainCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	for c := 0; c < 300; {
		p, ok := randomProblem(r)
		if !ok || !hasFaultDomains(p) {
			continue
		}
		c++
		m := compile(p)
		for _, unplaced := range []bool{false, true} {
			s := m.newState(identity(m.n), unplaced, -1, &effort{})
			for step := range 60 {
				i, to := r.IntN(len(p.Pods)), r.IntN(m.n)
				switch {
				case r.IntN(6) == 0 && len(s.log) > 0:
					s.rollback(r.IntN(len(s.log) + 1))
				case unplaced && r.IntN(4) == 0 && s.assign[i] >= 0:
					s.move(i, -1)
				case step%2 == 0 && to != s.assign[i]: // any move, valid or not
					s.move(i, to)
				case s.canPlace(i, to):
					s.move(i, to)
				}
				for i := range p.Pods {
					for u := range p.Nodes {
						if got, want := s.faultDomainOK(i, u), faultDomainOKBrute(p, s.assign, i, u); got != want {
							t.Fatalf("case %d step %d: faultDomainOK(%d, %d) = %v, want %v (assign %v)", c, step, i, u, got, want, s.assign)
						}
					}
				}
			}
		}
		s := m.newState(identity(m.n), false, -1, &effort{})
		for range 60 {
			if i, to := r.IntN(len(p.Pods)), r.IntN(m.n); s.canPlace(i, to) {
				s.move(i, to)
				if err := checkFaultDomains(p, s.assign); err != nil {
					t.Fatalf("case %d: accepted move breaks rule 6: %v", c, err)
				}
			}
		}
	}
}

// TestFaultDomainMemory: find's memory gives the same answers as no
// memory on availability-set clusters (so a class whose group has fault
// domains, whose verdicts depend on the other nodes of a rack, must not
// use it): Greedy, candidate orders and the packing from scratch end in
// the same assignment with the memory on and off.
func TestFaultDomainMemory(t *testing.T) {
	for seed := range uint64(6) {
		p := syntheticFD(seed, 96, 500, 0.5+0.1*float64(seed%4))
		on, off := compile(p), compile(p)
		for k := range off.cacheable {
			off.cacheable[k] = false
		}
		same := func(what string, a, b *state) {
			t.Helper()
			if !slices.Equal(a.assign, b.assign) {
				t.Fatalf("seed %d %s: the search memory changes the result", seed, what)
			}
		}
		g1, _ := on.greedy(-1)
		g2, _ := off.greedy(-1)
		same("greedy", g1, g2)
		st := g1.m.newState(identity(on.n), false, -1, &effort{}).stats()
		for r := range 3 {
			ord := on.randomOrder(st, 1, r, r%2 == 1)
			for _, last := range []bool{false, true} {
				same("runOrder", on.runOrder(ord, -1, nil, last, &effort{}), off.runOrder(ord, -1, nil, last, &effort{}))
			}
		}
		r1, err1 := on.repack(on.openOrder(false), &effort{})
		r2, err2 := off.repack(off.openOrder(false), &effort{})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("seed %d repack: %v vs %v", seed, err1, err2)
		}
		if err1 == nil {
			same("repack", r1, r2)
		}
	}
}

// TestFaultDomainSynthetic: on availability-set clusters (fault domains,
// DomainOK masks, anti-affinity and spread mixed) Plan, Greedy and Repack
// pass Check, Plan removes at least Greedy's nodes, Explain's moves for a
// drainable node pass Check, and on the full clusters some nodes are
// refused for a fault domain, with the rack in the detail.
func TestFaultDomainSynthetic(t *testing.T) {
	fd, seeds := 0, uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		p := syntheticFD(seed, 120, 900, []float64{0.55, 0.9}[seed%2])
		assign := make([]int, len(p.Pods))
		for i := range p.Pods {
			assign[i] = p.Pods[i].Node
		}
		if err := Check(p, assign, nil); err != nil {
			t.Fatalf("seed %d: snapshot: %v", seed, err)
		}
		for _, opts := range []Options{{}, {MaxMoves: 40}} {
			pl := must(Plan(p, opts))
			apply(t, p, opts, pl)
			g := Greedy(p, opts)
			apply(t, p, opts, g)
			if len(pl.Removed) < len(g.Removed) {
				t.Fatalf("seed %d %+v: Plan %d, Greedy %d", seed, opts, len(pl.Removed), len(g.Removed))
			}
			t.Logf("seed %d %+v: %d pods, Plan removes %d (%d moves), Greedy %d", seed, opts, len(p.Pods), len(pl.Removed), len(pl.Moves), len(g.Removed))
		}
		if a, err := Repack(p); err == nil {
			if err := Check(p, a, nil); err != nil {
				t.Fatalf("seed %d: Repack: %v", seed, err)
			}
		}
		for n := range p.Nodes {
			w := Explain(p, n)
			for _, r := range w.Reasons {
				if r.Code == ReasonFaultDomain {
					fd++
					if !strings.Contains(r.Detail, "holds fault domain") {
						t.Fatalf("seed %d node %d: detail %q", seed, n, r.Detail)
					}
				}
			}
			if w.Drainable && len(w.Moves) > 0 {
				a := slices.Clone(assign)
				for _, mv := range w.Moves {
					a[mv.Pod] = mv.To
				}
				removed := make([]bool, len(p.Nodes))
				removed[n] = true
				if err := Check(p, a, removed); err != nil {
					t.Fatalf("seed %d: Explain(%d)'s moves fail Check: %v", seed, n, err)
				}
			}
		}
	}
	if fd == 0 {
		t.Fatalf("no node refused for a fault domain in Explain: the test does not exercise the rule")
	}
}

package drain

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// cluster builds a two-dimension (cores, memory), two-zone problem; nodes
// are Removable and Schedulable unless changed, pods have no group.
func cluster(free [][2]float64, zones []int) *Problem {
	p := &Problem{DimNames: []string{"cores", "memory"}, Zones: []string{"a", "b"}}
	for j, f := range free {
		p.Nodes = append(p.Nodes, Node{Name: string(rune('A' + j)), Free: []float64{f[0], f[1]}, Zone: zones[j],
			Cost: f[0], Removable: true, Schedulable: true})
	}
	return p
}

func (p *Problem) add(name string, node int, cores, mem float64) *Pod {
	p.Pods = append(p.Pods, Pod{Name: name, Node: node, Demand: []float64{cores, mem}, Group: -1})
	return &p.Pods[len(p.Pods)-1]
}

func only(n int, on ...int) []bool {
	a := make([]bool, n)
	for _, j := range on {
		a[j] = true
	}
	return a
}

func reasons(w *Why) map[string]int {
	r := map[string]int{}
	for _, x := range w.Reasons {
		r[x.Code] = x.Count
	}
	return r
}

func TestExplainConstraints(t *testing.T) {
	tests := []struct {
		name      string
		build     func() *Problem
		node      int
		drainable bool
		pod       int
		reasons   map[string]int
		detail    string // in Text
		nearest   int
		short     []float64
	}{{
		name: "affinity only to the drained node",
		build: func() *Problem {
			p := cluster([][2]float64{{4, 8}, {16, 64}}, []int{0, 0})
			pod := p.add("db", 0, 2, 4)
			pod.AffinityOK, pod.AffinityDesc = only(2, 0), "nodeSelector disk=local"
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonAffinity: 1}, detail: "nodeSelector disk=local", nearest: -1,
	}, {
		name: "tainted node and a full one",
		build: func() *Problem {
			p := cluster([][2]float64{{4, 8}, {16, 64}, {2, 64}}, []int{0, 0, 1})
			pod := p.add("web", 0, 3, 4)
			pod.TolerationOK, pod.TolerationDesc = only(3, 0, 2), "no toleration of gpu=true:NoSchedule"
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonTaint: 1, ReasonShortPrefix + "cores": 1},
		detail: "gpu=true:NoSchedule", nearest: 2, short: []float64{1, 0},
	}, {
		name: "anti-affinity with the other replica",
		build: func() *Problem {
			p := cluster([][2]float64{{4, 8}, {16, 64}}, []int{0, 0})
			for j := range 2 {
				pod := p.add("replica", j, 1, 1)
				pod.Group, pod.MaxPerNode = 7, 1
			}
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonAntiAffinity: 1}, detail: "at most 1 pods of group 7", nearest: -1,
	}, {
		name: "spread would unbalance the zones",
		build: func() *Problem {
			// Zone a: A (drained) and B (too small); zone b: C with room.
			p := cluster([][2]float64{{4, 8}, {1, 8}, {16, 64}}, []int{0, 0, 1})
			for _, j := range []int{0, 2} {
				pod := p.add("spread", j, 2, 2)
				pod.Group, pod.MaxSkew = 3, 1
			}
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonSpread: 1, ReasonShortPrefix + "cores": 1},
		detail: "max skew 1", nearest: 1, short: []float64{1, 0},
	}, {
		name: "short of memory, nearest node",
		build: func() *Problem {
			p := cluster([][2]float64{{8, 32}, {8, 6}, {8, 4}}, []int{0, 1, 0})
			p.add("cache", 0, 1, 10)
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonShortPrefix + "memory": 2}, detail: "short of 4 memory", nearest: 1, short: []float64{0, 4},
	}, {
		name: "unschedulable target",
		build: func() *Problem {
			p := cluster([][2]float64{{4, 8}, {16, 64}}, []int{0, 0})
			p.Nodes[1].Schedulable = false
			p.add("web", 0, 1, 1)
			return p
		},
		node: 0, pod: 0, reasons: map[string]int{ReasonUnschedulable: 1}, nearest: -1,
	}, {
		name: "the node's pods compete for one slot",
		build: func() *Problem {
			p := cluster([][2]float64{{8, 8}, {3, 8}}, []int{0, 0})
			p.add("big", 0, 2, 2)
			p.add("small", 0, 2, 1)
			return p
		},
		node: 0, pod: 1, reasons: map[string]int{ReasonShortPrefix + "cores": 1}, detail: "once the node's 1 larger pods", nearest: 1, short: []float64{1, 0},
	}, {
		name: "drainable",
		build: func() *Problem {
			p := cluster([][2]float64{{8, 8}, {8, 8}}, []int{0, 1})
			p.add("web", 0, 2, 2)
			return p
		},
		node: 0, drainable: true, pod: -1, nearest: -1, detail: "can be drained alone: web to B",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.build()
			w := Explain(p, tc.node)
			if w.Drainable != tc.drainable || w.Pod != tc.pod {
				t.Fatalf("Drainable %v Pod %d, want %v %d: %s", w.Drainable, w.Pod, tc.drainable, tc.pod, w.Text)
			}
			if got := reasons(w); !tc.drainable && !mapsEqual(got, tc.reasons) {
				t.Errorf("reasons %v, want %v", got, tc.reasons)
			}
			sum := 0
			for _, r := range w.Reasons {
				sum += r.Count
			}
			if !tc.drainable && sum != len(p.Nodes)-1 {
				t.Errorf("reasons count %d nodes, want %d", sum, len(p.Nodes)-1)
			}
			if w.Nearest != tc.nearest || (tc.short != nil && !slices.Equal(w.Short, tc.short)) {
				t.Errorf("nearest %d short %v, want %d %v", w.Nearest, w.Short, tc.nearest, tc.short)
			}
			if !strings.Contains(w.Text, tc.detail) {
				t.Errorf("text %q lacks %q", w.Text, tc.detail)
			}
			if tc.drainable {
				if len(w.Moves) == 0 {
					t.Errorf("drainable without moves")
				}
				return
			}
			// Plan agrees: the node stays.
			pl, err := Plan(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			apply(t, p, Options{}, pl)
			if slices.Contains(pl.Removed, tc.node) {
				t.Errorf("Plan removes node %d that Explain says cannot be drained alone (plan %+v)", tc.node, pl)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestAntiAffinityBlocksSecondReplica: a replica may not join a node
// holding another; it takes the third node instead.
func TestAntiAffinityBlocksSecondReplica(t *testing.T) {
	p := cluster([][2]float64{{4, 8}, {16, 64}, {4, 8}}, []int{0, 0, 0})
	for j := range 2 {
		pod := p.add("replica", j, 1, 1)
		pod.Group, pod.MaxPerNode = 1, 1
	}
	p.add("filler", 2, 1, 1)
	p.Nodes[1].Removable = false
	pl, err := Plan(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assign := apply(t, p, Options{}, pl)
	if assign[0] == 1 {
		t.Fatalf("replica 0 moved next to replica 1: %+v", pl)
	}
	if len(pl.Removed) != 1 {
		t.Fatalf("want one node removed (A's replica onto C, or C's filler onto B), got %+v", pl)
	}
}

// TestSpreadBlocksMove: with zones a = {A, B}, b = {C}, max skew 1 and one
// replica in each zone, A's replica may go to B but not to C.
// (Were B Removable, the plan would remove the empty B first, and then
// zone a would hold no eligible node: see the second half.)
func TestSpreadBlocksMove(t *testing.T) {
	p := cluster([][2]float64{{4, 8}, {4, 8}, {16, 64}}, []int{0, 0, 1})
	for _, j := range []int{0, 2} {
		pod := p.add("spread", j, 2, 2)
		pod.Group, pod.MaxSkew = 1, 1
	}
	p.Nodes[1].Removable = false // B stays, so zone a keeps an eligible node
	p.Nodes[2].Removable = false
	pl, err := Plan(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assign := apply(t, p, Options{}, pl)
	if p.Nodes[assign[0]].Zone != 0 || !slices.Contains(pl.Removed, 0) {
		t.Fatalf("replica left zone a: %+v", pl)
	}
	// A cordoned B still counts (Kubernetes ignores taints, the cordon's
	// included, when it counts domains): the replica stays in zone a.
	p.Nodes[1].Schedulable = false
	pl, err = Plan(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p, Options{}, pl)
	if slices.Contains(pl.Removed, 0) {
		t.Fatalf("A drained to C while cordoned B keeps zone a eligible: %+v", pl)
	}
	// With B removable (and empty) it goes first; then zone a has no node
	// left once A goes: the replica may move to zone b (Kubernetes counts
	// only zones with a node).
	p.Nodes[1].Schedulable, p.Nodes[1].Removable = true, true
	pl, err = Plan(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p, Options{}, pl)
	if !slices.Contains(pl.Removed, 0) {
		t.Fatalf("A should drain to C once zone a has no eligible node: %+v", pl)
	}
}

// TestMaxMoves: six single-pod nodes and a big one; each removal costs a
// move.
func TestMaxMoves(t *testing.T) {
	p := cluster([][2]float64{{64, 64}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}, {4, 4}}, []int{0, 0, 0, 0, 0, 0, 0, 0})
	p.Nodes[0].Removable = false
	for j := 1; j <= 6; j++ {
		p.add("pod", j, 1, 1)
	}
	for _, tc := range []struct{ maxMoves, removed int }{{0, 7}, {3, 4}, {1, 2}, {-1, 1}} {
		opts := Options{MaxMoves: tc.maxMoves}
		for name, pl := range map[string]*Result{"plan": must(Plan(p, opts)), "greedy": Greedy(p, opts)} {
			apply(t, p, opts, pl)
			if len(pl.Removed) != tc.removed {
				t.Errorf("%s MaxMoves %d: removed %d, want %d", name, tc.maxMoves, len(pl.Removed), tc.removed)
			}
		}
	}
}

func must(pl *Result, err error) *Result {
	if err != nil {
		panic(err)
	}
	return pl
}

func TestDeterminism(t *testing.T) {
	p := synthetic(5, 200, 1300)
	for _, opts := range []Options{{}, {MaxMoves: 50}, {Seed: 9, Restarts: 3}} {
		a, b := must(Plan(p, opts)), must(Plan(p, opts))
		if !slices.Equal(a.Removed, b.Removed) || !slices.Equal(a.Moves, b.Moves) || a.Kept != b.Kept || a.Greedy != b.Greedy {
			t.Fatalf("%+v: two runs differ", opts)
		}
		apply(t, p, opts, a)
		if len(a.Removed) < a.Greedy {
			t.Fatalf("%+v: Plan removes %d < Greedy %d", opts, len(a.Removed), a.Greedy)
		}
	}
	r1, err1 := Repack(p)
	r2, err2 := Repack(p)
	if err1 != nil || err2 != nil || !slices.Equal(r1, r2) {
		t.Fatalf("Repack: %v %v or two runs differ", err1, err2)
	}
	if err := Check(p, r1, nil); err != nil {
		t.Fatal(err)
	}
}

// TestSynthetic: on a production-like snapshot Plan's result passes Check
// and beats the greedy baseline.
func TestSynthetic(t *testing.T) {
	p := synthetic(3, 400, 2700)
	pl := must(Plan(p, Options{}))
	apply(t, p, Options{}, pl)
	if len(pl.Removed) <= pl.Greedy {
		t.Errorf("Plan removes %d, Greedy %d: expected Plan to beat Greedy here", len(pl.Removed), pl.Greedy)
	}
	t.Logf("nodes %d pods %d: Plan removes %d with %d moves, Greedy %d", len(p.Nodes), len(p.Pods), len(pl.Removed), len(pl.Moves), pl.Greedy)
}

func TestEdgeCases(t *testing.T) {
	t.Run("no pods", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}, {4, 4}, {4, 4}}, []int{0, 1, 0})
		p.Nodes[1].Removable = false
		pl := must(Plan(p, Options{}))
		apply(t, p, Options{}, pl)
		if !slices.Equal(pl.Removed, []int{0, 2}) || pl.Kept != 1 || len(pl.Moves) != 0 {
			t.Fatalf("%+v", pl)
		}
		if a, err := Repack(p); err != nil || len(a) != 0 {
			t.Fatalf("Repack: %v %v", a, err)
		}
		if w := Explain(p, 0); !w.Drainable {
			t.Fatalf("empty node not drainable: %s", w.Text)
		}
	})
	t.Run("no nodes", func(t *testing.T) {
		p := &Problem{DimNames: []string{"cores"}}
		pl := must(Plan(p, Options{}))
		if len(pl.Removed) != 0 || pl.Kept != 0 || Greedy(p, Options{}).Kept != 0 {
			t.Fatalf("%+v", pl)
		}
		if a, err := Repack(p); err != nil || len(a) != 0 {
			t.Fatalf("Repack: %v %v", a, err)
		}
		if err := Check(p, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("one node", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}}, []int{0})
		p.add("web", 0, 1, 1)
		pl := must(Plan(p, Options{}))
		apply(t, p, Options{}, pl)
		if len(pl.Removed) != 0 || pl.Kept != 1 {
			t.Fatalf("%+v", pl)
		}
		w := Explain(p, 0)
		if w.Drainable || w.Pod != 0 || len(w.Reasons) != 0 || !strings.Contains(w.Text, "no other node") {
			t.Fatalf("%+v", w)
		}
	})
	t.Run("not removable", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}, {8, 8}}, []int{0, 0})
		p.Nodes[0].Removable = false
		p.add("web", 0, 1, 1)
		pl := must(Plan(p, Options{}))
		apply(t, p, Options{}, pl)
		if !slices.Equal(pl.Removed, []int{1}) || pl.Kept != 1 {
			t.Fatalf("want only the empty B removed, A kept: %+v", pl)
		}
		if w := Explain(p, 0); w.Drainable || w.Pod != -1 || !strings.Contains(w.Text, "not removable") {
			t.Fatalf("%+v", w)
		}
	})
	t.Run("unschedulable nodes take no pods but can be drained", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}, {64, 64}, {4, 4}}, []int{0, 0, 0})
		p.Nodes[1].Schedulable = false
		p.add("a", 0, 1, 1)
		p.add("b", 1, 1, 1) // on the cordoned node
		p.add("c", 2, 1, 1)
		pl := must(Plan(p, Options{}))
		assign := apply(t, p, Options{}, pl)
		for i, n := range assign {
			if n == 1 && p.Pods[i].Node != 1 {
				t.Fatalf("pod %d moved onto the unschedulable node", i)
			}
		}
		if len(pl.Removed) != 2 || !slices.Contains(pl.Removed, 1) {
			t.Fatalf("want the cordoned node and one other drained: %+v", pl)
		}
	})
	t.Run("repack: pod fits nowhere", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}, {4, 4}}, []int{0, 0})
		p.add("huge", 0, 1, 1).Demand = []float64{8, 1}
		if _, err := Repack(p); !errors.Is(err, ErrNoFit) || !strings.Contains(err.Error(), "huge") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("invalid problem", func(t *testing.T) {
		p := cluster([][2]float64{{4, 4}}, []int{0})
		p.add("web", 0, 1, 1).Demand = []float64{1}
		if _, err := Plan(p, Options{}); !errors.Is(err, ErrProblem) {
			t.Fatalf("err %v", err)
		}
		if err := Check(p, []int{0}, nil); !errors.Is(err, ErrProblem) {
			t.Fatalf("err %v", err)
		}
	})
}

func TestCheck(t *testing.T) {
	p := cluster([][2]float64{{8, 8}, {4, 4}, {1, 1}}, []int{0, 0, 1})
	a := p.add("a", 0, 2, 2)
	a.AffinityOK, a.AffinityDesc = only(3, 0, 1), "pool=x"
	b := p.add("b", 0, 2, 2)
	b.TolerationOK, b.TolerationDesc = only(3, 0, 2), "no toleration"
	for _, name := range []string{"c", "d"} {
		pod := p.add(name, 2, 1, 1)
		pod.Group, pod.MaxPerNode, pod.MaxSkew = 1, 1, 1
	}
	p.Pods[3].Node = 1
	tests := []struct {
		name    string
		assign  []int
		removed []bool
		want    string
	}{
		{"valid", []int{0, 0, 2, 1}, nil, ""},
		{"removed", []int{0, 0, 2, 1}, []bool{true, false, false}, "removed"},
		{"affinity", []int{2, 0, 2, 1}, nil, "affinity (pool=x)"},
		{"taint", []int{0, 1, 2, 1}, nil, "taint"},
		{"capacity", []int{0, 2, 2, 1}, nil, `pod 1 "b" on node 2 "C": capacity: cores 2 > free 1`},
		{"anti-affinity", []int{0, 0, 1, 1}, nil, `pod 2 "c" on node 1 "B": anti-affinity`},
		{"spread", []int{0, 0, 1, 0}, nil, "topology spread: skew 2"},
		{"spread, zone b removed", []int{0, 0, 1, 0}, []bool{false, false, true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(p, tc.assign, tc.removed)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (!errors.Is(err, ErrViolation) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

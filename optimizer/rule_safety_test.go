package optimizer

import (
	"math"
	"testing"
)

// The slides' online-nature example: nodes holding 1 and 3 VMs, each VM
// leaving by T with probability ½; the new VM on node 1 gives 6/16, on node
// 2 gives 9/16, so node 2 is better.
func TestFitProbabilitySlidesExample(t *testing.T) {
	onNode1 := FitProbability([]int{2, 3}, 0.5)
	onNode2 := FitProbability([]int{1, 4}, 0.5)
	if onNode1 != 6.0/16 || onNode2 != 9.0/16 || !(onNode2 > onNode1) {
		t.Fatalf("node 1: %v (want 6/16), node 2: %v (want 9/16)", onNode1, onNode2)
	}
}

func TestSlots(t *testing.T) {
	for _, tc := range []struct {
		free, d Vec
		want    int
	}{
		{Vec{Cores: 8, Memory: 64}, Vec{Cores: 2, Memory: 8}, 4},
		{Vec{Cores: 8, Memory: 10}, Vec{Cores: 2, Memory: 8}, 1},
		{Vec{Cores: 1}, Vec{Cores: 2}, 0},
		{Vec{Cores: 8}, Vec{}, 0},
	} {
		if got := Slots(tc.free, tc.d); got != tc.want {
			t.Errorf("Slots(%v, %v) = %d, want %d", tc.free, tc.d, got, tc.want)
		}
	}
}

// safetyCase: nodes of 8 cores; high-priority types Large (4 cores, one
// every 3 time units) and Small (1 core, one every time unit), as in the
// slides' examples; the new low-priority VM has 2 cores.
func safetyScores(free, low []Vec) []float64 {
	large, small := Vec{Cores: 4}, Vec{Cores: 1}
	rates := []float64{1.0 / 3, 1}
	demand := make([][]Vec, 2)
	for range free {
		demand[0] = append(demand[0], large)
		demand[1] = append(demand[1], small)
	}
	slots := make([]int, 2)
	for u := range free {
		slots[0] += Slots(free[u], large)
		slots[1] += Slots(free[u], small)
	}
	out := make([]float64, len(free))
	for v := range free {
		out[v] = SafetyScore(v, Vec{Cores: 2}, free, low, demand, rates, slots)
	}
	return out
}

// Example 1: the score captures true safety. Node 0 has 4 free cores (a
// Large slot that the new VM would destroy), node 1 has 2 free cores (the
// new VM fills them, and no Large could ever evict it there: even with the
// new VM gone only 2 cores would be free). Worked by hand: the nodes offer
// 1 Large and 6 Small slots. On node 0: F_L = 1 − 1 + 0 = 0, F_S = 6 − 4 + 2
// = 4, danger = (1/3)/1 + 1/5, safety = 15/8. On node 1: Large never
// threatens, F_S = 6 − 2 + 0 = 4, danger = 1/5, safety = 5.
func TestSafetyScoreExample1(t *testing.T) {
	s := safetyScores([]Vec{{Cores: 4}, {Cores: 2}}, []Vec{{}, {}})
	want0 := 15.0 / 8
	want1 := 5.0
	if math.Abs(s[0]-want0) > 1e-12 || math.Abs(s[1]-want1) > 1e-12 {
		t.Fatalf("scores %v, want [%v %v]", s, want0, want1)
	}
	if !(s[1] > s[0]) {
		t.Fatal("the node whose Large slot survives must be safer")
	}
}

// Example 2: adding two empty nodes adds slots, so every node gets safer;
// the empty nodes are the least safe place for the new VM (it would break a
// Large slot there) and the ordering among the old nodes is kept.
func TestSafetyScoreExample2(t *testing.T) {
	before := safetyScores([]Vec{{Cores: 4}, {Cores: 2}}, []Vec{{}, {}})
	after := safetyScores([]Vec{{Cores: 4}, {Cores: 2}, {Cores: 8}, {Cores: 8}}, []Vec{{}, {}, {}, {}})
	for v := range before {
		if !(after[v] > before[v]) {
			t.Fatalf("node %d: %v with empty nodes, %v without", v, after[v], before[v])
		}
	}
	if !(after[1] > after[0]) {
		t.Fatal("ordering of the old nodes changed")
	}
}

// Example 3: one empty node holds a low-priority VM: its free slots shrink,
// so placing the new VM anywhere is less safe than with that node empty.
func TestSafetyScoreExample3(t *testing.T) {
	empty := safetyScores([]Vec{{Cores: 4}, {Cores: 2}, {Cores: 8}, {Cores: 8}}, []Vec{{}, {}, {}, {}})
	withLow := safetyScores([]Vec{{Cores: 4}, {Cores: 2}, {Cores: 8}, {Cores: 6}}, []Vec{{}, {}, {}, {Cores: 2}})
	for v := 0; v < 3; v++ {
		if !(withLow[v] < empty[v]) {
			t.Fatalf("node %d: %v with a low-priority VM on node 3, %v without", v, withLow[v], empty[v])
		}
	}
}

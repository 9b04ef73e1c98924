package violation

import (
	"math"
	"testing"
)

// TestUntrackedResource: a node of zero disk capacity does not track disk —
// before the fix its limit was 0.95 × 0 = 0, so an empty node was "in
// violation" at load 0 and nothing could be placed (every Bitbrains run
// counted a violation per node and step).
func TestUntrackedResource(t *testing.T) {
	c := &Cluster{Capacity: Vec{CPU: 10, Memory: 40}, Threshold: Vec{0.95, 0.95, 0.95}, Nodes: make([]Node, 1)}
	l := c.Limit()
	if l[CPU] != 9.5 || l[Memory] != 38 || !math.IsInf(l[Disk], 1) {
		t.Fatalf("limit %v", l)
	}
	if !Fits(c.Nodes[0].Load, Vec{CPU: 2, Memory: 4}, l) || c.Nodes[0].Load.AnyAtLeast(l) {
		t.Error("an empty node with no disk cannot take a tenant without disk")
	}
}

package paragon

import (
	"math"
	"testing"
)

func TestServerState(t *testing.T) {
	c := NewCluster([]ServerSpec{{Config: 0, Cores: 8}}, 2)
	s := &c.Servers[0]
	if s.Tolerated[0] != emptyTolerance || s.Headroom[1] != emptyTolerance || s.Caused[0] != 0 {
		t.Fatalf("empty server: %+v", s)
	}
	c.Add(0, Resident{ID: 1, Cores: 2, Tolerated: []float64{0.5, 0.8}, Caused: []float64{0.3, 0.1}})
	c.Add(0, Resident{ID: 2, Cores: 4, Tolerated: []float64{0.9, 0.6}, Caused: []float64{0.1, 0.2}})
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// Caused sums, Tolerated is the minimum (§3.2), Headroom subtracts the
	// other residents' pressure: min(0.5−0.1, 0.9−0.3) and min(0.8−0.2, 0.6−0.1).
	want := []struct {
		name      string
		got, want float64
	}{
		{"caused 0", s.Caused[0], 0.4}, {"caused 1", s.Caused[1], 0.3},
		{"tolerated 0", s.Tolerated[0], 0.5}, {"tolerated 1", s.Tolerated[1], 0.6},
		{"headroom 0", s.Headroom[0], 0.4}, {"headroom 1", s.Headroom[1], 0.5},
		{"used cores", float64(s.UsedCores), 6},
	}
	for _, w := range want {
		if !near(w.got, w.want) {
			t.Errorf("%s = %v, want %v", w.name, w.got, w.want)
		}
	}
	if srv, ok := c.Remove(1); !ok || srv != 0 {
		t.Fatalf("Remove(1) = %d, %v", srv, ok)
	}
	if !near(s.Headroom[0], 0.9) || !near(s.Tolerated[1], 0.6) || s.UsedCores != 4 {
		t.Errorf("after removal: headroom %v tolerated %v cores %d", s.Headroom, s.Tolerated, s.UsedCores)
	}
	if _, ok := c.Remove(1); ok {
		t.Error("removed twice")
	}
}

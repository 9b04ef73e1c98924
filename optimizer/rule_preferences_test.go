package optimizer

import "testing"

func TestPreferNonEmptyMachines(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 1, Demand: Vec{Cores: 1}})
	cfg := DefaultConfig()
	p := PreferNonEmptyMachines{}.NewPreference(&Env{Inv: inv, State: s, Cfg: &cfg}, Traits{})
	for _, tc := range []struct {
		m    int32
		want int64
	}{{0, 1}, {1, 0}} {
		if got := p.Score(tc.m); got != tc.want {
			t.Errorf("machine %d: %d, want %d", tc.m, got, tc.want)
		}
	}
}

func TestPreferEmptierClusters(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Demand: Vec{Cores: 10}})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	// Cluster 0: 48 - 10 = 38 free cores; cluster 1: 48.
	s0, s1 := PreferEmptierClusters{}.ScoreCluster(env, Traits{}, 0), PreferEmptierClusters{}.ScoreCluster(env, Traits{}, 1)
	if s0 != -38000 || s1 != -48000 || !(s1 < s0) {
		t.Fatalf("scores %d %d", s0, s1)
	}
}

func TestRackBalance(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 2, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Demand: Vec{Cores: 24}}) // rack 0: 24 of 48 = 0.5
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	for _, tc := range []struct {
		buckets int
		r       int32
		want    int64
	}{{10, 0, 5}, {10, 1, 0}, {3, 0, 2}, {0, 0, 500000000}} {
		cfg.RackBuckets = tc.buckets
		if got := (RackBalance{}).ScoreRack(env, Traits{}, tc.r); got != tc.want {
			t.Errorf("buckets %d rack %d: %d, want %d", tc.buckets, tc.r, got, tc.want)
		}
	}
}

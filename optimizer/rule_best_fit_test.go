package optimizer

import "testing"

func TestBestFitScore(t *testing.T) {
	c := Vec{Cores: 40, Memory: 400}
	w := Vec{Cores: 1, Memory: 1}
	cases := []struct {
		name    string
		free, d Vec
		w       Vec
		want    float64
	}{
		// Worked by hand: residual (40-4)/40 = 0.9 cores, (400-40)/400 = 0.9 memory → 0.9.
		{"empty machine", Vec{Cores: 40, Memory: 400}, Vec{Cores: 4, Memory: 40}, w, 0.9},
		{"exact fit", Vec{Cores: 4, Memory: 40}, Vec{Cores: 4, Memory: 40}, w, 0},
		// (10-4)/40 = 0.15, (400-40)/400 = 0.9 → mean 0.525.
		{"unbalanced", Vec{Cores: 10, Memory: 400}, Vec{Cores: 4, Memory: 40}, w, 0.525},
		// Scarcity: memory weighted 3x → (0.15 + 3·0.9)/4 = 0.7125.
		{"scarce memory", Vec{Cores: 10, Memory: 400}, Vec{Cores: 4, Memory: 40}, Vec{Cores: 1, Memory: 3}, 0.7125},
		{"no weights", Vec{Cores: 10}, Vec{Cores: 4}, Vec{}, 0},
	}
	for _, tc := range cases {
		if got := BestFitScore(tc.free, tc.d, c, tc.w); got < tc.want-1e-12 || got > tc.want+1e-12 {
			t.Errorf("%s: S = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestQuantize(t *testing.T) {
	cases := []struct {
		s    float64
		n    int
		want int64
	}{
		{0, 3, 0}, {0.01, 3, 1}, {1.0 / 3, 3, 1}, {0.34, 3, 2}, {0.9, 3, 3}, {1, 3, 3},
		{0.5, 1, 1}, {0, 1, 0}, {0.7125, 5, 4}, {0.25, 0, 250000000}, {1.5, 2, 2}, {-1, 2, 0},
	}
	for _, tc := range cases {
		if got := Quantize(tc.s, tc.n); got != tc.want {
			t.Errorf("Quantize(%v, %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestBestFitRule(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 3, skus: []SKU{skuLarge}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 1, Demand: Vec{Cores: 32, Memory: 112, SSD: 1600}})
	s.Place(Placement{VM: 2, Machine: 2, Demand: Vec{Cores: 8, Memory: 28, SSD: 400}})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	d8 := int32(3)
	// Residual after an 8-core, 28 GB VM on 40-core 512 GB machines:
	// m0: (32/40 + 484/512)/2 = 0.8727; m1: (0 + 372/512)/2 = 0.3633; m2: (24/40 + 456/512)/2 = 0.7453.
	for _, tc := range []struct {
		buckets int
		want    [3]int64
	}{
		{1, [3]int64{1, 1, 1}},
		{3, [3]int64{3, 2, 3}},
		{10, [3]int64{9, 4, 8}},
	} {
		cfg.Buckets = tc.buckets
		pref := BestFit{}.NewPreference(env, Traits{TraitType: d8})
		for m := int32(0); m < 3; m++ {
			if got := pref.Score(m); got != tc.want[m] {
				t.Errorf("buckets %d machine %d: bucket %d, want %d", tc.buckets, m, got, tc.want[m])
			}
		}
	}
}

package optimizer

import "testing"

// TestCPUOversubscriptionByHand runs Resource Central's Algorithm 1 inside
// Protean on machines of 24 cores (MAX_OVERSUB 125% = 30 cores, MAX_UTIL
// 100% = 24 predicted cores), with the cache on and off; the invariants
// (capacity up to MAX_OVERSUB on oversubscribable machines, no mixing of
// production and non-production VMs, tags) hold after every step.
func TestCPUOversubscriptionByHand(t *testing.T) {
	const (
		d4, d8, d16 = 2, 3, 4 // testTypes: 4, 8 and 16 cores
	)
	type step struct {
		typ     int32
		prod    bool
		bucket  int8
		release VMID // > 0: release this VM instead of placing
		want    int32
	}
	two := []step{
		{typ: d8, prod: true, want: 0},  // empty A becomes production
		{typ: d8, bucket: 1, want: 1},   // not on production A: B, util 2
		{typ: d16, bucket: 2, want: 1},  // B: 24 cores (not oversubscribed), util 10
		{typ: d4, bucket: 4, want: 1},   // B: 28 ≤ 30 cores, util 14 ≤ 24
		{typ: d4, want: -1},             // B: 32 > 30; A is production
		{typ: d16, prod: true, want: 0}, // A: 8 + 16 = 24 ≤ 24
		{release: 4},                    // B back to 24 cores, util 10
		{typ: d4, want: 1},              // no prediction: util 14 ≤ 24
	}
	one := func(soft, naive bool, lastWant int32) []step {
		return []step{
			{typ: d16, want: 0},                  // util 16 (no prediction)
			{typ: d8, want: 0},                   // 24 cores, util 24 ≤ 24
			{typ: d4, bucket: 1, want: lastWant}, // 28 ≤ 30 cores, but util 25 > 24
		}
	}
	cases := []struct {
		name     string
		machines int
		o        OversubConfig
		steps    []step
	}{
		{"hard, two machines", 2, OversubConfig{MaxOversub: 1.25, MaxUtil: 1}, two},
		{"soft, two machines", 2, OversubConfig{MaxOversub: 1.25, MaxUtil: 1, Soft: true}, two},
		{"hard: utilization binds", 1, OversubConfig{MaxOversub: 1.25, MaxUtil: 1}, one(false, false, -1)},
		{"soft: disregarded when nothing passes", 1, OversubConfig{MaxOversub: 1.25, MaxUtil: 1, Soft: true}, one(true, false, 0)},
		{"naive: no utilization check", 1, OversubConfig{MaxOversub: 1.25, MaxUtil: 1, Naive: true}, one(false, true, 0)},
	}
	for _, tc := range cases {
		for _, cache := range []bool{true, false} {
			// Memory and SSD never bind: only cores are oversubscribed.
			roomy := SKU{Name: "c24", Generation: 4, Capacity: Vec{Cores: 24, Memory: 4096, SSD: 100000}}
			inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: tc.machines, skus: []SKU{roomy}})
			st := NewState(inv)
			cfg := DefaultConfig()
			cfg.Cache, cfg.Evict, cfg.Buffers = cache, false, Buffers{}
			o := tc.o
			cfg.Oversub = &o
			p, err := NewProtean(st, cfg, OversubRules(o))
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				id := VMID(i + 1)
				if s.release > 0 {
					if !p.Release(s.release) {
						t.Fatalf("%s: release %d", tc.name, s.release)
					}
					continue
				}
				d := p.Allocate(&Request{ID: int64(id), Tenant: int32(id), VMs: []VMRequest{{ID: id, Type: s.typ}}, Production: s.prod, UtilBucket: s.bucket})
				got := int32(-1)
				if d.OK {
					got = d.Placements[0].Machine
				}
				if got != s.want {
					t.Errorf("%s (cache %v): step %d: machine %d, want %d (%s)", tc.name, cache, i+1, got, s.want, d.Reason)
				}
				if err := st.CheckInvariants(); err != nil {
					t.Fatalf("%s: step %d: %v", tc.name, i+1, err)
				}
			}
		}
	}
}

func TestPredictedCores(t *testing.T) {
	for _, c := range []struct {
		bucket int8
		want   float64
	}{{0, 8}, {1, 2}, {2, 4}, {3, 6}, {4, 8}, {9, 8}} {
		if got := PredictedCores(c.bucket, 8); got != c.want {
			t.Errorf("bucket %d: %v, want %v", c.bucket, got, c.want)
		}
	}
}

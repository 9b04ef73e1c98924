package optimizer

import (
	"errors"
	"slices"
	"testing"
)

// TestBaselinesEvictAsProteanDoes: with Config.Evict (the default), a
// baseline evicts low-priority VMs for a high-priority VM no machine takes,
// through the same evictFor as Protean — so on TestEvictionBalancing's zone
// every engine makes Protean's choice for both shares X, and a failed
// request restores what it evicted. With Evict off no engine evicts.
func TestBaselinesEvictAsProteanDoes(t *testing.T) {
	for _, eng := range engines {
		for _, tc := range []struct {
			x     float64
			evict bool
			want  int32
		}{{0.01, true, 0}, {1, true, 1}, {1, false, -1}} {
			s := evictionZone(t)
			cfg := DefaultConfig()
			cfg.TopPct, cfg.Weights, cfg.Evict = tc.x, Vec{Cores: 1}, tc.evict
			a := newEngine(t, eng, s, cfg, DefaultRules())
			d := a.Allocate(&Request{ID: 9, Tenant: 9, VMs: []VMRequest{{ID: 10, Type: 0}}})
			got := int32(-1)
			if d.OK {
				got = d.Placements[0].Machine
			}
			if got != tc.want || d.OK && len(d.Evicted) != 1 {
				t.Fatalf("%s, X=%v evict=%v: %+v, want machine %d", eng, tc.x, tc.evict, d, tc.want)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			// A gang whose second VM cannot go anywhere rolls back the
			// eviction the first made.
			before := s.Len()
			d = a.Allocate(&Request{ID: 10, Tenant: 10, VMs: []VMRequest{{ID: 11, Type: 0}, {ID: 12, Type: 0}, {ID: 13, Type: 0}}})
			if d.OK || s.Len() != before {
				t.Fatalf("%s: gang %+v left %d VMs, want %d", eng, d, s.Len(), before)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBaselinesUnderOversubscription: a baseline given OversubRules and
// Config.Oversub oversubscribes cores as Protean does (up to MAX_OVERSUB,
// production and non-production VMs never mixed), with the invariants
// checked after every request.
func TestBaselinesUnderOversubscription(t *testing.T) {
	roomy := SKU{Name: "c24", Capacity: Vec{Cores: 24, Memory: 4096, SSD: 100000}}
	z := zoneSpec{clusters: 2, racks: 2, perRack: 4, skus: []SKU{roomy}}
	reqs := randomRequests(buildZone(t, z), 1500, 41)
	for i, r := range reqs {
		r.Production = i%4 == 0
		r.UtilBucket = int8(i % 5)
	}
	o := OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil}
	for _, eng := range engines {
		cfg := DefaultConfig()
		cfg.Oversub = &o
		a := newEngine(t, eng, NewState(buildZone(t, z)), cfg, OversubRules(o))
		over := 0
		replay(t, a, reqs, 120, func(r *Request, d Decision) {
			s := a.State()
			for _, p := range d.Placements {
				if s.Used[p.Machine][Cores] > s.Inv.Capacity(p.Machine)[Cores]+1e-9 {
					over++
				}
			}
		})
		if over == 0 {
			t.Fatalf("%s never oversubscribed a machine: CPUOversubscription did not apply", eng)
		}
	}
}

// TestValidateFor: a baseline refuses, in one line, the engine settings it
// cannot honour; Protean takes them all.
func TestValidateFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mut   func(*Config)
		field string
	}{
		{"k", func(c *Config) { c.K = 16 }, "K"},
		{"buckets", func(c *Config) { c.Buckets = 0 }, "Buckets"},
		{"rack buckets", func(c *Config) { c.RackBuckets = 3 }, "RackBuckets"},
		{"cache off", func(c *Config) { c.Cache = false }, "Cache"},
		{"safety", func(c *Config) { c.Safety = true }, "Safety"},
		{"arrival rates", func(c *Config) { c.ArrivalRates = []float64{1} }, "ArrivalRates"},
		{"top k", func(c *Config) { c.TopK = 9 }, "TopK"},
		{"honoured", func(c *Config) {
			c.Evict, c.TopPct, c.Buffers, c.Weights, c.Seed, c.Explain = false, 0.5, Buffers{NewDeployment: 2}, Vec{Cores: 1}, 7, false
			c.Oversub = &OversubConfig{MaxOversub: 1.25, MaxUtil: 1}
		}, ""},
	} {
		cfg := DefaultConfig()
		tc.mut(&cfg)
		if err := cfg.ValidateFor("protean"); err != nil {
			t.Errorf("%s: protean refused: %v", tc.name, err)
		}
		for _, pol := range []Policy{FirstFit, BestFitP, WorstFit, Random} {
			err := cfg.ValidateFor(string(pol))
			_, nerr := NewBaseline(pol, NewState(buildZone(t, smallZone)), cfg, DefaultRules())
			switch {
			case tc.field == "" && (err != nil || nerr != nil):
				t.Errorf("%s: %s refused a setting it honours: %v", tc.name, pol, err)
			case tc.field != "" && (err == nil || nerr == nil || !errors.Is(err, ErrBadRequest)):
				t.Errorf("%s: %s accepted %s", tc.name, pol, tc.field)
			}
		}
		if ignored, _ := IgnoredFields(string(BestFitP)); tc.field != "" && !slices.Contains(ignored, tc.field) {
			t.Errorf("IgnoredFields(bestfit) = %v lacks %s", ignored, tc.field)
		}
	}
	if f, err := IgnoredFields("protean"); err != nil || len(f) != 0 {
		t.Errorf("IgnoredFields(protean) = %v, %v", f, err)
	}
	if _, err := IgnoredFields("nope"); err == nil {
		t.Error("unknown policy accepted")
	}
	bad := DefaultConfig()
	bad.TopPct = nan()
	if err := bad.ValidateFor("protean"); err == nil {
		t.Error("NaN top share accepted")
	}
}

// TestEvictionFollowsTheRuleSet: under CPUOversubscription a non-production
// high-priority VM needs only as many victims as the rule requires (cores
// up to MAX_OVERSUB × physical), not as many as a physical-cores fit would:
// on a 24-core machine holding 16 high + 8 + 6 low cores (30 = 1.25 × 24),
// a 4-core VM evicts the 8-core VM alone (22 + 4 ≤ 30), where a physical
// fit would also have taken the 6-core one.
func TestEvictionFollowsTheRuleSet(t *testing.T) {
	roomy := SKU{Name: "c24", Capacity: Vec{Cores: 24, Memory: 4096, SSD: 100000}}
	o := OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil, Naive: true}
	for _, eng := range engines {
		inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 1, skus: []SKU{roomy}})
		cfg := DefaultConfig()
		cfg.Oversub = &o
		a := newEngine(t, eng, NewState(inv), cfg, OversubRules(o))
		s := a.State()
		s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 16}, PredUtil: 16})
		s.Place(Placement{VM: 2, Machine: 0, Tenant: 2, Priority: 1, Demand: Vec{Cores: 8}, PredUtil: 8})
		s.Place(Placement{VM: 3, Machine: 0, Tenant: 3, Priority: 1, Demand: Vec{Cores: 6}, PredUtil: 6})
		d := a.Allocate(&Request{ID: 9, Tenant: 9, VMs: []VMRequest{{ID: 10, Type: 2}}}) // testTypes[2]: 4 cores
		if !d.OK || len(d.Evicted) != 1 || d.Evicted[0].VM != 2 {
			t.Fatalf("%s: %+v, want VM 2 alone evicted", eng, d)
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
}

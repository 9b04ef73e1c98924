package optimizer

import (
	"reflect"
	"slices"
	"testing"
)

// TestScoresNamedByRule: every top machine's scores carry the rule names in
// the explanation's RuleOrder (the preference rules, then the global
// rule), as do the counts left after each preference rule.
func TestScoresNamedByRule(t *testing.T) {
	inv := buildZone(t, smallZone)
	for _, rules := range []Rules{DefaultRules(), OversubRules(OversubConfig{MaxOversub: 1.25, MaxUtil: 1, Soft: true})} {
		p, err := NewProtean(NewState(inv), DefaultConfig(), rules)
		if err != nil {
			t.Fatal(err)
		}
		want := rules.PreferenceOrder()
		d := p.Allocate(&Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: 0}}})
		ex := d.Explain[0]
		if !d.OK || !slices.Equal(ex.RuleOrder, want) || len(ex.Top) == 0 || ex.Pick != PickBest {
			t.Fatalf("%+v", ex)
		}
		for _, sc := range ex.Top {
			var names []string
			for _, s := range sc.Scores {
				names = append(names, s.Rule)
			}
			if !slices.Equal(names, want) {
				t.Fatalf("scores named %v, want %v", names, want)
			}
		}
		var after []string
		for _, a := range ex.AfterPrefs {
			after = append(after, a.Rule)
		}
		if !slices.Equal(after, want) {
			t.Fatalf("left-after named %v, want %v", after, want)
		}
	}
}

// TestExplanationSaysHowPicked: a VM placed by eviction, by the safety
// score or by conflict avoidance is explained as such, never as the best by
// the preference rules; a failure on resources names the short dimension.
func TestExplanationSaysHowPicked(t *testing.T) {
	t.Run("eviction", func(t *testing.T) {
		for _, eng := range engines {
			s := evictionZone(t)
			cfg := DefaultConfig()
			cfg.Weights = Vec{Cores: 1}
			a := newEngine(t, eng, s, cfg, DefaultRules())
			d := a.Allocate(&Request{ID: 9, Tenant: 9, VMs: []VMRequest{{ID: 10, Type: 0}}})
			ex := d.Explain[0]
			if !d.OK || ex.Pick != PickEviction || ex.Evicted != 1 || ex.Chosen != d.Placements[0].Machine ||
				ex.FailedRule != RuleAreNodeResourcesValid || !slices.Equal(ex.Short, []DimCount{{Cores, 3}}) {
				t.Fatalf("%s: %+v", eng, ex)
			}
		}
	})
	t.Run("safety", func(t *testing.T) {
		skus := []SKU{{Name: "s", Capacity: Vec{Cores: 8}}}
		types := []VMType{{Name: "c2", Demand: []Vec{{Cores: 2}}, Supported: []bool{true}}}
		inv, _ := NewInventory(skus, []MachineSpec{{Name: "a", Cluster: "c", Rack: "r", Healthy: true}}, types)
		cfg := DefaultConfig()
		cfg.Safety, cfg.ArrivalRates = true, []float64{1}
		p, err := NewProtean(NewState(inv), cfg, DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		d := p.Allocate(&Request{ID: 1, Tenant: 1, Priority: 1, VMs: []VMRequest{{ID: 1, Type: 0}}})
		if ex := d.Explain[0]; !d.OK || ex.Pick != PickSafety || len(ex.Top) != 0 {
			t.Fatalf("%+v", ex)
		}
	})
	t.Run("avoidance", func(t *testing.T) {
		p := newProteanT(t, buildZone(t, smallZone), nil)
		p.setAvoidance(1, 10)
		d := p.Allocate(&Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: 0}}})
		if ex := d.Explain[0]; !d.OK || !d.Avoided || ex.Pick != PickAvoidance || len(ex.Top) != 0 {
			t.Fatalf("%+v", ex)
		}
	})
	t.Run("short dimension", func(t *testing.T) {
		// G4 (16 cores, 224 GB) runs on the large SKU only; on a 96-core
		// 512 GB machine two fit and a third is short of memory alone.
		big := SKU{Name: "big", Capacity: Vec{Cores: 96, Memory: 512, SSD: 4000}}
		inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 2, skus: []SKU{skuSmall, big}})
		g := int32(len(inv.Types) - 1)
		for _, eng := range engines {
			cfg := DefaultConfig()
			cfg.Evict = false
			inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 2, skus: []SKU{skuSmall, big}})
			a := newEngine(t, eng, NewState(inv), cfg, DefaultRules())
			for i := 0; i < 8; i++ {
				if d := a.Allocate(&Request{ID: int64(i), Tenant: int32(i), VMs: []VMRequest{{ID: VMID(i), Type: g}}}); !d.OK {
					t.Fatalf("%s: G4 %d: %+v", eng, i, d)
				}
				if err := a.State().CheckInvariants(); err != nil {
					t.Fatal(err)
				}
			}
			d := a.Allocate(&Request{ID: 99, Tenant: 99, VMs: []VMRequest{{ID: 99, Type: g}}})
			ex := d.Explain[0]
			if d.OK || d.Reason != RuleAreNodeResourcesValid || ex.FailedRule != RuleAreNodeResourcesValid ||
				!slices.Equal(ex.Short, []DimCount{{Memory, 4}}) || ex.Chosen != -1 {
				t.Fatalf("%s: %s, %+v", eng, d.Reason, ex)
			}
			if err := a.State().CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestRuleStatsWithoutExplanations: rule aggressiveness is complete with
// explanations off — the same decisions give the same statistics for every
// rule, the preference rules included.
func TestRuleStatsWithoutExplanations(t *testing.T) {
	reqs := randomRequests(buildZone(t, smallZone), 2000, 31)
	stats := func(explain bool) []RuleStats {
		p := newProteanT(t, buildZone(t, smallZone), func(c *Config) { c.Explain = explain })
		replay(t, p, reqs, 150, nil)
		return p.RuleStats()
	}
	on, off := stats(true), stats(false)
	if !reflect.DeepEqual(on, off) {
		t.Fatalf("rule stats differ:\nexplain on  %+v\nexplain off %+v", on, off)
	}
	for _, s := range off {
		if s.Requests == 0 {
			t.Fatalf("rule %s never counted: %+v", s.Rule, off)
		}
	}
	byRule := map[string]RuleStats{}
	for _, s := range off {
		byRule[s.Rule] = s
	}
	if byRule[RuleBestFit].Removed == 0 || byRule[RuleTenantAntiColocation].Removed == 0 {
		t.Fatalf("the workload never exercised BestFit or anti-colocation: %+v", off)
	}
	sum := SumRuleStats(off, off)
	if sum[0].Requests != 2*off[0].Requests || len(sum) != len(off) {
		t.Fatalf("SumRuleStats: %+v", sum)
	}
}

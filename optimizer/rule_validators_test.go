package optimizer

import "testing"

// One table per validator rule: the machine or cluster, the request, the
// expected verdict.

func TestAreNodeResourcesValid(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 1, perRack: 2, skus: []SKU{skuSmall, skuLarge}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Demand: Vec{Cores: 20, Memory: 70, SSD: 100}})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	g := int32(len(inv.Types) - 1)
	cases := []struct {
		name string
		typ  int32
		m    int32
		want bool
	}{
		{"fits empty small", 3, 1, true},        // 8 cores on 24
		{"cores short", 3, 0, false},            // 8 cores, 4 free
		{"fits in the rest", 2, 0, true},        // 4 cores, 4 free
		{"type not on SKU", g, 1, false},        // G4 needs the large SKU
		{"G on large", g, 2, true},              //
		{"memory binds", 4, 0, false},           // 16 cores
		{"16 cores on empty small", 4, 1, true}, // 16 ≤ 24, 56 GB ≤ 256
	}
	for _, tc := range cases {
		v := AreNodeResourcesValid{}.NewValidator(env, Traits{TraitType: tc.typ})
		if got := v.IsValid(tc.m); got != tc.want {
			t.Errorf("%s: IsValid = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRequireIsolation(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 3, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 1}})
	s.Place(Placement{VM: 2, Machine: 1, Tenant: 2, Demand: Vec{Cores: 1}, Exclusive: true})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	cases := []struct {
		name      string
		isolation int32
		m         int32
		want      bool
	}{
		{"isolated VM needs an empty machine", 1, 0, false},
		{"isolated VM on empty", 1, 2, true},
		{"shared VM avoids an isolated tenant", 0, 1, false},
		{"shared VM on shared", 0, 0, true},
	}
	for _, tc := range cases {
		v := RequireIsolation{}.NewValidator(env, Traits{TraitIsolation: tc.isolation})
		if got := v.IsValid(tc.m); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsMachineHealthy(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.SetHealthy(1, false)
	cfg := DefaultConfig()
	v := IsMachineHealthy{}.NewValidator(&Env{Inv: inv, State: s, Cfg: &cfg}, Traits{})
	for _, tc := range []struct {
		m    int32
		want bool
	}{{0, true}, {1, false}} {
		if got := v.IsValid(tc.m); got != tc.want {
			t.Errorf("machine %d: %v, want %v", tc.m, got, tc.want)
		}
	}
	if s.ClusterEmpty[0] != 1 {
		t.Errorf("unhealthy machine counted as empty buffer: %d", s.ClusterEmpty[0])
	}
	if err := s.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestTenantAntiColocation(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 2, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 7, Demand: Vec{Cores: 1}})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	cases := []struct {
		name string
		req  Request
		m    int32
		want bool
	}{
		{"no bounds", Request{Tenant: 7}, 0, true},
		{"rack bound reached", Request{Tenant: 7, MaxPerRack: 1}, 1, false},
		{"other rack", Request{Tenant: 7, MaxPerRack: 1}, 2, true},
		{"machine bound reached", Request{Tenant: 7, MaxPerMachine: 1}, 0, false},
		{"other tenant unaffected", Request{Tenant: 8, MaxPerRack: 1, MaxPerMachine: 1}, 0, true},
	}
	for _, tc := range cases {
		if got := (TenantAntiColocation{}).ValidFor(env, &tc.req, VMRequest{}, tc.m); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClusterValidators(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 1, perRack: 4, skus: []SKU{skuSmall, skuLarge}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 4, Demand: Vec{Cores: 1}}) // cluster 1: 3 empty
	cfg := DefaultConfig()
	cfg.Buffers = Buffers{NewDeployment: 4, ScaleOut: 3, Healing: 1}
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	g := int32(len(inv.Types) - 1)
	cases := []struct {
		name string
		rule ClusterValidator
		kind RequestKind
		typ  int32
		c    int32
		want bool
	}{
		{"type supported on large", IsTypeSupported{}, KindNew, g, 1, true},
		{"type unsupported on small", IsTypeSupported{}, KindNew, g, 0, false},
		{"new deployment, 4 empty ≥ 4", IsClusterBelowLimit{}, KindNew, 0, 0, true},
		{"new deployment, 3 empty < 4", IsClusterBelowLimit{}, KindNew, 0, 1, false},
		{"scale-out, 3 empty ≥ 3", IsClusterBelowLimit{}, KindScaleOut, 0, 1, true},
		{"healing, 3 empty ≥ 1", IsClusterBelowLimit{}, KindHeal, 0, 1, true},
		{"healthy", IsClusterHealthy{}, KindNew, 0, 0, true},
	}
	for _, tc := range cases {
		if got := tc.rule.ValidCluster(env, &Request{}, tc.kind, Traits{TraitType: tc.typ}, tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, m := range inv.Clusters[0].Machines {
		s.SetHealthy(m, false)
	}
	if (IsClusterHealthy{}).ValidCluster(env, &Request{}, KindNew, Traits{}, 0) {
		t.Error("all-unhealthy cluster valid")
	}
}

package optimizer

import (
	"reflect"
	"testing"
)

// TestCheckRejections: the Check names the first rule that refuses, in rule
// order, and for a resource rule the dimension that is short.
func TestCheckRejections(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 2, skus: []SKU{skuSmall, skuLarge}})
	// Cluster 0 (small, 24 cores 256 GB): m0 holds 20 cores; m1 an isolated
	// tenant 2; m2 unhealthy; m3 tenant 7 (MaxPerMachine tests). Cluster 1
	// (large): m4 holds 470 GB of memory.
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 20, Memory: 70}})
	s.Place(Placement{VM: 2, Machine: 1, Tenant: 2, Demand: Vec{Cores: 1}, Exclusive: true})
	s.SetHealthy(2, false)
	s.Place(Placement{VM: 3, Machine: 3, Tenant: 7, Demand: Vec{Cores: 1}})
	s.Place(Placement{VM: 4, Machine: 4, Tenant: 4, Demand: Vec{Cores: 1, Memory: 470}})
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	rules := DefaultRules()
	g := int32(len(inv.Types) - 1) // G4: large SKU only
	cases := []struct {
		name string
		req  Request
		typ  int32
		m    int32
		want Rejection
	}{
		{"fits", Request{Tenant: 9}, 2, 3, accepted},
		{"cores short", Request{Tenant: 9}, 3, 0, Rejection{RuleAreNodeResourcesValid, Cores}},
		{"memory short", Request{Tenant: 9}, g, 4, Rejection{RuleAreNodeResourcesValid, Memory}},
		{"type not in cluster", Request{Tenant: 9}, g, 3, Rejection{RuleIsTypeSupported, NoDim}},
		{"unhealthy", Request{Tenant: 9}, 0, 2, Rejection{RuleIsMachineHealthy, NoDim}},
		{"isolated tenant's machine", Request{Tenant: 9}, 0, 1, Rejection{RuleRequireIsolation, NoDim}},
		{"isolation needs an empty machine", Request{Tenant: 9, Isolation: true}, 0, 3, Rejection{RuleRequireIsolation, NoDim}},
		{"tenant bound", Request{Tenant: 7, MaxPerMachine: 1}, 0, 3, Rejection{RuleTenantAntiColocation, NoDim}},
		{"unknown type", Request{Tenant: 9}, 99, 3, Rejection{ReasonBadType, NoDim}},
	}
	for _, tc := range cases {
		v := VMRequest{ID: 100, Type: tc.typ}
		if got := rules.Check(env, &tc.req, KindAuto, v, tc.m); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The buffer rule: a new deployment needs 4 empty machines per cluster.
	cfg.Buffers = Buffers{NewDeployment: 4}
	if got := rules.Check(env, &Request{Tenant: 9}, KindAuto, VMRequest{ID: 1, Type: 0}, 5); got.Rule != RuleIsClusterBelowLimit {
		t.Errorf("buffer: %v", got)
	}
	if got := (Rejection{RuleAreNodeResourcesValid, Memory}).String(); got != "AreNodeResourcesValid (memory short)" {
		t.Errorf("String: %q", got)
	}
}

// TestAsIfFreeLeavesNoTrace: the eviction fallback's hypothetical state
// shows the validators a machine with its low-priority capacity free, and
// restores the state exactly — every field and the journal — so cached
// evaluations never see it. Compared with a twin state built by the same
// placements.
func TestAsIfFreeLeavesNoTrace(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	build := func() *State {
		// Demands whose float sums do not survive u − d + d.
		s := NewState(inv)
		s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Priority: 1, Demand: Vec{Cores: 0.1, Memory: 7.7}, PredUtil: 0.1})
		s.Place(Placement{VM: 2, Machine: 0, Tenant: 2, Priority: 1, Demand: Vec{Cores: 0.2, Memory: 0.1}, PredUtil: 0.2})
		s.Place(Placement{VM: 3, Machine: 0, Tenant: 1, Demand: Vec{Cores: 23.35}, PredUtil: 0.35})
		return s
	}
	s, twin := build(), build()
	cfg := DefaultConfig()
	env := &Env{Inv: inv, State: s, Cfg: &cfg}
	rules := DefaultRules()
	req := &Request{Tenant: 9, VMs: []VMRequest{{ID: 9, Type: 0}}} // 1 core: does not fit in 0.35
	chk := NewCheck(env, &rules, req, KindNew, req.VMs[0])
	if got := chk.OnMachine(0); got != (Rejection{RuleAreNodeResourcesValid, Cores}) {
		t.Fatalf("as it is: %v", got)
	}
	seen := false
	ok := s.asIfFree(0, s.LowUsed[0], s.LowPredUtil[0], func() bool {
		seen = true
		if s.Free(0)[Cores] < 0.64 || s.PredUtil[0] > 0.36 || s.Count[0] != 3 {
			t.Errorf("hypothetical state: free %v, predicted %v, %d VMs", s.Free(0), s.PredUtil[0], s.Count[0])
		}
		return chk.OnMachine(0).OK()
	})
	if !seen || ok {
		t.Fatalf("asIfFree: asked %v, fits %v (0.65 free cores, want refusal)", seen, ok)
	}
	big := s.Used[0]
	if !s.asIfFree(0, big, 0, func() bool { return chk.OnMachine(0).OK() }) {
		t.Fatal("with the whole machine free the VM is still refused")
	}
	if !reflect.DeepEqual(s, twin) {
		t.Fatalf("asIfFree left a trace:\n%+v\n%+v", s, twin)
	}
}

// TestCommitConflictsNamedByRule: a commit the authoritative state cannot
// take is refused by the rule that refuses it, typed, with the short
// dimension for resources; under the oversubscription rule set a commit
// beyond the physical cores that the rule allows goes through.
func TestCommitConflictsNamedByRule(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 2, perRack: 2, skus: []SKU{skuSmall}})
	d16 := int32(4)
	prior := func(cs *CommitStore) {
		// m0: 16 cores of tenant 1; m1: isolated tenant 2; m3 unhealthy.
		for _, c := range []struct {
			req Request
			m   int32
		}{{Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: d16}}}, 0}, {Request{ID: 2, Tenant: 2, Isolation: true, VMs: []VMRequest{{ID: 2, Type: 0}}}, 1}} {
			if res := cs.Commit(0, &c.req, []Placement{placementFor(inv, &c.req, c.req.VMs[0], c.m)}, nil); !res.OK {
				t.Fatalf("setup commit: %+v", res)
			}
		}
		cs.WithState(func(s *State) { s.SetHealthy(3, false) })
	}
	cases := []struct {
		name    string
		req     Request
		m       int32
		evicted []Placement
		want    Rejection
	}{
		{"capacity", Request{ID: 10, Tenant: 5, VMs: []VMRequest{{ID: 10, Type: d16}}}, 0, nil, Rejection{RuleAreNodeResourcesValid, Cores}},
		{"isolation", Request{ID: 11, Tenant: 5, VMs: []VMRequest{{ID: 11, Type: 0}}}, 1, nil, Rejection{RuleRequireIsolation, NoDim}},
		{"anti-colocation", Request{ID: 12, Tenant: 1, MaxPerRack: 1, VMs: []VMRequest{{ID: 12, Type: 0}}}, 0, nil, Rejection{RuleTenantAntiColocation, NoDim}},
		{"unhealthy", Request{ID: 13, Tenant: 5, VMs: []VMRequest{{ID: 13, Type: 0}}}, 3, nil, Rejection{RuleIsMachineHealthy, NoDim}},
		{"eviction target gone", Request{ID: 14, Tenant: 5, VMs: []VMRequest{{ID: 14, Type: 0}}}, 2,
			[]Placement{{VM: 99, Machine: 2, Priority: 1}}, Rejection{ConflictEvictionGone, NoDim}},
		{"accepted", Request{ID: 15, Tenant: 5, VMs: []VMRequest{{ID: 15, Type: 0}}}, 2, nil, accepted},
	}
	for _, tc := range cases {
		cs, err := NewCommitStore(inv, DefaultConfig(), DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		prior(cs)
		res := cs.Commit(1, &tc.req, []Placement{placementFor(inv, &tc.req, tc.req.VMs[0], tc.m)}, tc.evicted)
		if res.OK != tc.want.OK() || res.Rejection != tc.want || !res.OK && res.Machine != tc.m {
			t.Errorf("%s: %+v, want %v on machine %d", tc.name, res, tc.want, tc.m)
		}
		if err := cs.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	// Oversubscription: 16 + 8 + 4 = 28 cores on a 24-core machine is
	// within MAX_OVERSUB 1.25 for non-production VMs.
	o := OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil, Naive: true}
	cfg := DefaultConfig()
	cfg.Oversub = &o
	roomy := SKU{Name: "c24", Capacity: Vec{Cores: 24, Memory: 4096, SSD: 100000}}
	inv = buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 1, skus: []SKU{roomy}})
	cs, err := NewCommitStore(inv, cfg, OversubRules(o))
	if err != nil {
		t.Fatal(err)
	}
	for i, ty := range []int32{d16, 3, 2, 2} {
		req := &Request{ID: int64(i), Tenant: int32(i), VMs: []VMRequest{{ID: VMID(i), Type: ty}}}
		res := cs.Commit(0, req, []Placement{placementFor(inv, req, req.VMs[0], 0)}, nil)
		if wantOK := i < 3; res.OK != wantOK {
			t.Fatalf("oversubscribed commit %d: %+v, want OK=%v", i, res, wantOK)
		}
		if i == 3 && res.Rejection != (Rejection{RuleCPUOversubscription, Cores}) {
			t.Fatalf("beyond MAX_OVERSUB: %v", res.Rejection)
		}
		if err := cs.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
}

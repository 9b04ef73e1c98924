package optimizer

import (
	"fmt"
	"strings"
	"testing"
)

// withForbidden is DefaultRules plus IsNotForbidden: the one registry line
// that adds a validator.
func withForbidden(forbidden map[int32]bool) Rules {
	r := DefaultRules()
	r.Validators = append(r.Validators, IsNotForbidden{forbidden})
	return r
}

// newEngine returns the named engine ("protean" or a baseline policy) over
// a fresh state of inv.
func newEngine(t testing.TB, name string, s *State, cfg Config, rules Rules) Allocator {
	t.Helper()
	var a Allocator
	var err error
	if name == "protean" {
		a, err = NewProtean(s, cfg, rules)
	} else {
		a, err = NewBaseline(Policy(name), s, cfg, rules)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var engines = []string{"protean", string(FirstFit), string(BestFitP), string(WorstFit), string(Random)}

// TestNewValidatorBindsEveryPath adds a validator defined in a test file to
// the rule set and shows that each of the five paths that put a VM on a
// machine — Protean, the baselines, the commit store, the eviction fallback
// and what-if migration — refuses the machines it forbids. Each case first
// runs without the rule and checks that the forbidden machines are then
// used, so the case can fail.
func TestNewValidatorBindsEveryPath(t *testing.T) {
	t.Run("allocate", func(t *testing.T) {
		for _, eng := range engines {
			t.Run(eng, func(t *testing.T) {
				inv := buildZone(t, smallZone)
				forbidden := map[int32]bool{}
				for m := range inv.Machines {
					if m%3 == 0 {
						forbidden[int32(m)] = true
					}
				}
				reqs := randomRequests(inv, 1500, 23)
				count := func(rules Rules) (onForbidden, placed int) {
					a := newEngine(t, eng, NewState(buildZone(t, smallZone)), DefaultConfig(), rules)
					replay(t, a, reqs, 100, func(r *Request, d Decision) {
						for _, p := range d.Placements {
							placed++
							if forbidden[p.Machine] {
								onForbidden++
							}
						}
					})
					return onForbidden, placed
				}
				if n, _ := count(DefaultRules()); n == 0 {
					t.Fatal("without the rule no VM went to the forbidden machines: the case proves nothing")
				}
				n, placed := count(withForbidden(forbidden))
				if n != 0 || placed == 0 {
					t.Fatalf("with the rule: %d of %d placements on forbidden machines", n, placed)
				}
			})
		}
	})

	t.Run("commit", func(t *testing.T) {
		inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
		req := &Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: 0}}}
		pl := placementFor(inv, req, req.VMs[0], 0)
		for _, tc := range []struct {
			rules Rules
			ok    bool
		}{{DefaultRules(), true}, {withForbidden(map[int32]bool{0: true}), false}} {
			cs, err := NewCommitStore(inv, DefaultConfig(), tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			res := cs.Commit(0, req, []Placement{pl}, nil)
			if res.OK != tc.ok {
				t.Fatalf("commit on machine 0: %+v, want OK=%v", res, tc.ok)
			}
			if !tc.ok && (res.Rejection.Rule != ruleIsNotForbidden || res.Machine != 0) {
				t.Fatalf("conflict %+v, want machine 0 refused by %s", res, ruleIsNotForbidden)
			}
			if err := cs.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("eviction", func(t *testing.T) {
		// TestEvictionBalancing's zone: with X small the 16-core VM evicts on
		// m0 (the best packing); with m0 forbidden it must evict on m1.
		for _, eng := range engines {
			for _, tc := range []struct {
				rules Rules
				want  int32
			}{{DefaultRules(), 0}, {withForbidden(map[int32]bool{0: true}), 1}} {
				s := evictionZone(t)
				cfg := DefaultConfig()
				cfg.TopPct, cfg.Weights = 0.01, Vec{Cores: 1}
				a := newEngine(t, eng, s, cfg, tc.rules)
				d := a.Allocate(&Request{ID: 9, Tenant: 9, VMs: []VMRequest{{ID: 10, Type: 0}}})
				if !d.OK || d.Placements[0].Machine != tc.want || len(d.Evicted) != 1 {
					t.Fatalf("%s, %d validators: %+v, want machine %d with one eviction", eng, len(tc.rules.Validators), d, tc.want)
				}
				if err := s.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})

	t.Run("migration", func(t *testing.T) {
		// Three 10-core machines: a holds 2 cores, b 7, c 6. Emptying a
		// sends its VM to the tighter fit b — or to c when b is forbidden.
		for _, tc := range []struct {
			rules Rules
			want  int32
		}{{DefaultRules(), 1}, {withForbidden(map[int32]bool{1: true}), 2}} {
			s := migrationZone(t, 2, 7, 6)
			cfg := DefaultConfig()
			cfg.Weights = Vec{Cores: 1}
			plan, err := PlanMigrations(s, cfg, tc.rules, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Moves) != 1 || plan.Moves[0].From != 0 || plan.Moves[0].To != tc.want {
				t.Fatalf("%d validators: moves %+v, want 0 → %d", len(tc.rules.Validators), plan.Moves, tc.want)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// evictionZone is TestEvictionBalancing's three 24-core machines:
//
//	m0: 8 high + 16 low cores, free 0
//	m1: 4 high + 8 low cores, free 12
//	m2: 20 high cores, free 4
func evictionZone(t testing.TB) *State {
	t.Helper()
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 24}}}
	types := []VMType{{Name: "c16", Demand: []Vec{{Cores: 16}}, Supported: []bool{true}}}
	var ms []MachineSpec
	for i := 0; i < 3; i++ {
		ms = append(ms, MachineSpec{Name: string(rune('a' + i)), Cluster: "c", Rack: "r", Healthy: true})
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 8}})
	s.Place(Placement{VM: 2, Machine: 0, Tenant: 2, Priority: 1, Demand: Vec{Cores: 16}})
	s.Place(Placement{VM: 3, Machine: 1, Tenant: 3, Demand: Vec{Cores: 4}})
	s.Place(Placement{VM: 4, Machine: 1, Tenant: 4, Priority: 1, Demand: Vec{Cores: 8}})
	s.Place(Placement{VM: 5, Machine: 2, Tenant: 5, Demand: Vec{Cores: 20}})
	return s
}

// migrationZone is one cluster of 10-core machines, machine i holding one
// VM of used[i] cores (VM i+1, tenant i+1).
func migrationZone(t testing.TB, used ...float64) *State {
	t.Helper()
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 10}}}
	var types []VMType
	var ms []MachineSpec
	for i, u := range used {
		types = append(types, VMType{Name: fmt.Sprintf("c%g", u), Demand: []Vec{{Cores: u}}, Supported: []bool{true}})
		ms = append(ms, MachineSpec{Name: fmt.Sprint(i), Cluster: "c", Rack: "r", Healthy: true})
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	for i, u := range used {
		s.Place(Placement{VM: VMID(i + 1), Machine: int32(i), Type: int32(i), Tenant: int32(i + 1), Demand: Vec{Cores: u}})
	}
	return s
}

// TestSpreadBindsEveryPath: AvailabilitySetSpread, registered once in
// DefaultRules, binds every path that puts a VM on a machine. Each case
// runs a control the rule decides differently, so it can fail.
func TestSpreadBindsEveryPath(t *testing.T) {
	t.Run("allocate", func(t *testing.T) {
		// Every engine keeps each tenant's fault and update domains apart
		// (CheckInvariants verifies it after every request); without the
		// rule the same workload breaks the invariant.
		reqs := setRequests(400, 15, 6, 3, 4, 9)
		for _, eng := range engines {
			t.Run(eng, func(t *testing.T) {
				a := newEngine(t, eng, NewState(domainZone(t, 2, 4, 6, 6)), DefaultConfig(), DefaultRules())
				placed := 0
				replay(t, a, reqs, 80, func(_ *Request, d Decision) { placed += len(d.Placements) })
				if placed == 0 {
					t.Fatal("nothing placed")
				}
				b := newEngine(t, eng, NewState(domainZone(t, 2, 4, 6, 6)), DefaultConfig(), withoutSpread())
				broke := false
				for _, r := range reqs {
					b.Allocate(r)
					if err := b.State().CheckInvariants(); err != nil && strings.Contains(err.Error(), "not spread") {
						broke = true
						break
					}
				}
				if !broke {
					t.Fatal("without the rule the spread held: the case proves nothing")
				}
			})
		}
	})

	t.Run("commit", func(t *testing.T) {
		// Tenant 7's VM of fault domain 0 sits on machine 0 (rack 0); its
		// fault-domain-1 VM may commit to rack 1 but not to rack 0, and a
		// placement whose recorded domain is not the request's is refused.
		inv := domainZone(t, 1, 2, 2, 1)
		set := &Request{ID: 1, Tenant: 7, FaultDomains: 2, VMs: []VMRequest{{ID: 1, SetIndex: 0}, {ID: 2, SetIndex: 1}}}
		for _, tc := range []struct {
			name string
			m    int32
			mut  func(*Placement)
			want Rejection
		}{
			{"other fault domain's rack", 1, nil, Rejection{RuleAvailabilitySetSpread, NoDim}},
			{"free rack", 2, nil, accepted},
			{"recorded domain not the request's", 2, func(p *Placement) { p.FaultDomain = DomainOf(0) }, Rejection{RuleAvailabilitySetSpread, NoDim}},
		} {
			cs, err := NewCommitStore(inv, DefaultConfig(), DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			first := &Request{ID: 1, Tenant: 7, FaultDomains: 2, VMs: set.VMs[:1]}
			if res := cs.Commit(0, first, []Placement{placementFor(inv, first, set.VMs[0], 0)}, nil); !res.OK {
				t.Fatalf("setup: %+v", res)
			}
			second := &Request{ID: 2, Tenant: 7, FaultDomains: 2, VMs: set.VMs[1:]}
			pl := placementFor(inv, second, set.VMs[1], tc.m)
			if tc.mut != nil {
				tc.mut(&pl)
			}
			res := cs.Commit(1, second, []Placement{pl}, nil)
			if res.Rejection != tc.want || res.OK != tc.want.OK() {
				t.Errorf("%s: %+v, want %v", tc.name, res, tc.want)
			}
			if err := cs.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("eviction", func(t *testing.T) {
		// spreadEvictionZone: with X small the 16-core VM evicts on m0 (the
		// best packing) — unless it is tenant 1's fault domain 1 and m0's
		// rack holds the tenant's fault domain 0: then on m1.
		for _, eng := range engines {
			for _, tc := range []struct {
				f    int32
				want int32
			}{{0, 0}, {2, 1}} {
				s := spreadEvictionZone(t)
				cfg := DefaultConfig()
				cfg.TopPct, cfg.Weights = 0.01, Vec{Cores: 1}
				a := newEngine(t, eng, s, cfg, DefaultRules())
				d := a.Allocate(&Request{ID: 9, Tenant: 1, FaultDomains: tc.f, VMs: []VMRequest{{ID: 10, Type: 0, SetIndex: 1}}})
				if !d.OK || d.Placements[0].Machine != tc.want || len(d.Evicted) != 1 {
					t.Fatalf("%s, F=%d: %+v, want machine %d with one eviction", eng, tc.f, d, tc.want)
				}
				if err := s.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})

	t.Run("migration", func(t *testing.T) {
		// migrationZone's machines in racks of their own: emptying a sends
		// its VM to the tighter fit b — or to c when a's and b's VMs are
		// one tenant's fault domains 0 and 1.
		for _, tc := range []struct {
			domains bool
			want    int32
		}{{false, 1}, {true, 2}} {
			s := spreadMigrationZone(t, tc.domains)
			cfg := DefaultConfig()
			cfg.Weights = Vec{Cores: 1}
			plan, err := PlanMigrations(s, cfg, DefaultRules(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Moves) != 1 || plan.Moves[0].From != 0 || plan.Moves[0].To != tc.want {
				t.Fatalf("domains=%v: moves %+v, want 0 → %d", tc.domains, plan.Moves, tc.want)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// spreadEvictionZone is evictionZone with m0 in rack A and m1, m2 in rack
// B, and m0's high-priority VM tenant 1's VM of fault domain 0.
func spreadEvictionZone(t testing.TB) *State {
	t.Helper()
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 24}}}
	types := []VMType{{Name: "c16", Demand: []Vec{{Cores: 16}}, Supported: []bool{true}}}
	var ms []MachineSpec
	for i, r := range []string{"A", "B", "B"} {
		ms = append(ms, MachineSpec{Name: string(rune('a' + i)), Cluster: "c", Rack: r, Healthy: true})
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 1, Demand: Vec{Cores: 8}, FaultDomain: DomainOf(0)})
	s.Place(Placement{VM: 2, Machine: 0, Tenant: 2, Priority: 1, Demand: Vec{Cores: 16}})
	s.Place(Placement{VM: 3, Machine: 1, Tenant: 3, Demand: Vec{Cores: 4}})
	s.Place(Placement{VM: 4, Machine: 1, Tenant: 4, Priority: 1, Demand: Vec{Cores: 8}})
	s.Place(Placement{VM: 5, Machine: 2, Tenant: 5, Demand: Vec{Cores: 20}})
	return s
}

// spreadMigrationZone is migrationZone(2, 7, 6) with each machine in a rack
// of its own; with domains, the VMs of a and b are tenant 1's fault
// domains 0 and 1.
func spreadMigrationZone(t testing.TB, domains bool) *State {
	t.Helper()
	skus := []SKU{{Name: "s", Capacity: Vec{Cores: 10}}}
	var types []VMType
	var ms []MachineSpec
	used := []float64{2, 7, 6}
	for i, u := range used {
		types = append(types, VMType{Name: fmt.Sprintf("c%g", u), Demand: []Vec{{Cores: u}}, Supported: []bool{true}})
		ms = append(ms, MachineSpec{Name: fmt.Sprint(i), Cluster: "c", Rack: fmt.Sprint(i), Healthy: true})
	}
	inv, err := NewInventory(skus, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(inv)
	for i, u := range used {
		p := Placement{VM: VMID(i + 1), Machine: int32(i), Type: int32(i), Tenant: int32(i + 1), Demand: Vec{Cores: u}}
		if domains && i < 2 {
			p.Tenant, p.FaultDomain, p.SetF, p.SetIndex = 1, DomainOf(int32(i)), 2, int32(i)
		}
		s.Place(p)
	}
	return s
}

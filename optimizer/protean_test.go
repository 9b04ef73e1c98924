package optimizer

import (
	"fmt"
	"reflect"
	"testing"
)

func newProteanT(t testing.TB, inv *Inventory, mut func(*Config)) *Protean {
	t.Helper()
	cfg := DefaultConfig()
	if mut != nil {
		mut(&cfg)
	}
	p, err := NewProtean(NewState(inv), cfg, DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// replay runs requests through a, releasing each request's VMs `life`
// requests later, checking invariants after every request, and returns the
// machine of every placed VM (or -1) in request order.
func replay(t testing.TB, a Allocator, reqs []*Request, life int, check func(*Request, Decision)) []int32 {
	t.Helper()
	var out []int32
	placed := map[int][]VMID{}
	for i, r := range reqs {
		if vs, ok := placed[i-life]; ok {
			for _, vm := range vs {
				if !a.Release(vm) {
					t.Fatalf("release %d: not placed", vm)
				}
			}
			delete(placed, i-life)
		}
		d := a.Allocate(r)
		if err := a.State().CheckInvariants(); err != nil {
			t.Fatalf("after request %d (%s): %v", r.ID, a.Name(), err)
		}
		if check != nil {
			check(r, d)
		}
		if d.OK {
			if len(d.Placements) != len(r.VMs) {
				t.Fatalf("request %d: %d placements for %d VMs", r.ID, len(d.Placements), len(r.VMs))
			}
			for _, p := range d.Placements {
				placed[i] = append(placed[i], p.VM)
				out = append(out, p.Machine)
				if r.MaxPerRack > 0 && a.State().TenantInRack(r.Tenant, a.State().Inv.Machines[p.Machine].Rack) > r.MaxPerRack {
					t.Fatalf("request %d: fault-domain bound %d broken", r.ID, r.MaxPerRack)
				}
				if r.MaxPerMachine > 0 && a.State().TenantOnMachine(r.Tenant, p.Machine) > r.MaxPerMachine {
					t.Fatalf("request %d: machine bound broken", r.ID)
				}
			}
			for _, e := range d.Evicted {
				for k, vs := range placed {
					for j, vm := range vs {
						if vm == e.VM {
							placed[k] = append(vs[:j:j], vs[j+1:]...)
						}
					}
				}
			}
		} else {
			out = append(out, -1)
			if d.Reason == "" {
				t.Fatalf("request %d failed without a reason", r.ID)
			}
			for _, v := range r.VMs {
				if _, ok := a.State().Lookup(v.ID); ok {
					t.Fatalf("request %d failed but VM %d stayed placed", r.ID, v.ID)
				}
			}
		}
	}
	return out
}

var smallZone = zoneSpec{clusters: 4, racks: 3, perRack: 5, skus: []SKU{skuSmall, skuLarge}}

// bruteFeasible reports whether any machine can take VM v of req under
// the default rule set's hard constraints, written out here independently
// of the engine's rules and Check: the cluster keeps its buffer, the
// machine is healthy, its SKU runs the type, isolation holds, the demand
// fits in every dimension, and the tenant's bounds hold.
func bruteFeasible(s *State, req *Request, v VMRequest, buf Buffers, kind RequestKind) bool {
	inv := s.Inv
	for m := range inv.Machines {
		mc := inv.Machines[m]
		var empty int32
		for _, x := range inv.Clusters[mc.Cluster].Machines {
			if s.Count[x] == 0 && inv.Machines[x].Healthy {
				empty++
			}
		}
		need := buf.NewDeployment
		if kind == KindScaleOut {
			need = buf.ScaleOut
		}
		d, sup := inv.Demand(v.Type, int32(m))
		free := inv.SKUs[mc.SKU].Capacity.Sub(s.Used[m])
		switch {
		case empty < need, !mc.Healthy, !sup:
		case req.Isolation && s.Count[m] > 0, !req.Isolation && s.Exclusive[m] >= 0:
		case !Fits(d, free):
		case req.MaxPerRack > 0 && s.TenantInRack(req.Tenant, mc.Rack) >= req.MaxPerRack:
		case req.MaxPerMachine > 0 && s.TenantOnMachine(req.Tenant, int32(m)) >= req.MaxPerMachine:
		default:
			return true
		}
	}
	return false
}

// TestNeverFailsWhenFeasible checks §3.4's property against brute force:
// a single-VM request is rejected only if no machine in the zone could take
// it, whatever k, buckets and caching are.
func TestNeverFailsWhenFeasible(t *testing.T) {
	for _, tc := range []struct {
		k, buckets int
		cache      bool
	}{{1, 3, true}, {2, 0, true}, {8, 1, false}, {1, 5, false}} {
		t.Run(fmt.Sprintf("k=%d/buckets=%d/cache=%v", tc.k, tc.buckets, tc.cache), func(t *testing.T) {
			inv := buildZone(t, smallZone)
			p := newProteanT(t, inv, func(c *Config) { c.K, c.Buckets, c.Cache, c.Evict = tc.k, tc.buckets, tc.cache, false })
			reqs := randomRequests(inv, 3000, 11)
			rejected := 0
			replay(t, p, reqs, 150, func(r *Request, d Decision) {
				if d.OK || len(r.VMs) != 1 {
					return
				}
				rejected++
				kind := KindNew
				if p.State().TenantVMs(r.Tenant) > 0 {
					kind = KindScaleOut
				}
				if bruteFeasible(p.State(), r, r.VMs[0], p.cfg.Buffers, kind) {
					t.Fatalf("request %d rejected (%s) but a feasible machine exists", r.ID, d.Reason)
				}
			})
			if rejected == 0 {
				t.Fatal("the workload never filled the zone: the property was not exercised")
			}
		})
	}
}

// TestCacheIsTransparent: the cache hierarchy changes speed, never
// decisions — cache on and off give identical placements.
func TestCacheIsTransparent(t *testing.T) {
	inv := buildZone(t, smallZone)
	reqs := randomRequests(inv, 4000, 3)
	on := replay(t, newProteanT(t, inv, nil), reqs, 200, nil)
	inv2 := buildZone(t, smallZone)
	off := replay(t, newProteanT(t, inv2, func(c *Config) { c.Cache = false }), reqs, 200, nil)
	if !reflect.DeepEqual(on, off) {
		for i := range on {
			if on[i] != off[i] {
				t.Fatalf("placement %d differs: cache on %d, off %d", i, on[i], off[i])
			}
		}
	}
}

// TestSmallPoolsStayCorrect forces evictions and journal overflow: tiny
// pools and a short age still give the uncached engine's placements.
func TestSmallPoolsStayCorrect(t *testing.T) {
	inv := buildZone(t, smallZone)
	reqs := randomRequests(inv, 3000, 5)
	on := replay(t, newProteanT(t, inv, func(c *Config) { c.RulePool, c.EvalPool, c.MaxAge = 2, 1, 5 }), reqs, 100, nil)
	off := replay(t, newProteanT(t, buildZone(t, smallZone), func(c *Config) { c.Cache = false }), reqs, 100, nil)
	if !reflect.DeepEqual(on, off) {
		t.Fatal("placements differ with tiny pools")
	}
}

func TestSameSeedSamePlacements(t *testing.T) {
	inv := buildZone(t, smallZone)
	reqs := randomRequests(inv, 1500, 9)
	a := replay(t, newProteanT(t, inv, func(c *Config) { c.Seed = 42 }), reqs, 80, nil)
	b := replay(t, newProteanT(t, buildZone(t, smallZone), func(c *Config) { c.Seed = 42 }), reqs, 80, nil)
	c := replay(t, newProteanT(t, buildZone(t, smallZone), func(c *Config) { c.Seed = 43 }), reqs, 80, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different placements")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("a different seed changed nothing: tie-breaks are not random")
	}
}

func TestBaselinesKeepInvariants(t *testing.T) {
	for _, pol := range []Policy{FirstFit, BestFitP, WorstFit, Random} {
		t.Run(string(pol), func(t *testing.T) {
			inv := buildZone(t, smallZone)
			cfg := DefaultConfig()
			cfg.Evict = false
			b, err := NewBaseline(pol, NewState(inv), cfg, DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			replay(t, b, randomRequests(inv, 2000, 13), 120, func(r *Request, d Decision) {
				if !d.OK && len(r.VMs) == 1 && bruteFeasible(b.State(), r, r.VMs[0], Buffers{}, KindNew) {
					t.Fatalf("%s rejected a feasible request", pol)
				}
			})
		})
	}
	if _, err := NewBaseline("nope", nil, DefaultConfig(), DefaultRules()); err == nil {
		t.Fatal("unknown policy accepted")
	}
}

// TestGangRollback: a request whose last VM cannot be placed leaves nothing.
func TestGangRollback(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 2, perRack: 2, skus: []SKU{skuSmall}})
	p := newProteanT(t, inv, nil)
	// 4 machines, max 1 VM per rack: a 3-VM request cannot fit.
	req := &Request{ID: 1, Tenant: 5, MaxPerRack: 1, VMs: []VMRequest{{ID: 1, Type: 0}, {ID: 2, Type: 0}, {ID: 3, Type: 0}}}
	d := p.Allocate(req)
	if d.OK || d.Reason != "TenantAntiColocation" || p.State().Len() != 0 {
		t.Fatalf("decision %+v, %d VMs placed", d, p.State().Len())
	}
	req.MaxPerRack = 2
	if d := p.Allocate(req); !d.OK {
		t.Fatalf("with 2 per rack: %+v", d)
	}
	if err := p.State().CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// TestExplanation: the record names candidates, rule removals and, for a
// failure, the rule that emptied the set.
func TestExplanation(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 2, skus: []SKU{skuSmall, skuLarge}})
	p := newProteanT(t, inv, nil)
	g := int32(len(inv.Types) - 1) // G4 runs only on the large SKU (cluster 1)
	d := p.Allocate(&Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: g}}})
	if !d.OK || len(d.Explain) != 1 {
		t.Fatalf("%+v", d)
	}
	ex := d.Explain[0]
	if ex.Clusters != 2 || ex.ClusterRejected[0] != (RuleCount{"IsTypeSupported", 1}) || ex.Machines != 4 {
		t.Fatalf("cluster level: %+v", ex)
	}
	if inv.Machines[ex.Chosen].Cluster != 1 || len(ex.Top) == 0 {
		t.Fatalf("chosen %d top %v", ex.Chosen, ex.Top)
	}
	// Fill every large machine's memory, then ask again: resources empty the set.
	for i := 0; i < 7; i++ {
		p.Allocate(&Request{ID: int64(10 + i), Tenant: int32(10 + i), VMs: []VMRequest{{ID: VMID(10 + i), Type: g}}})
	}
	d = p.Allocate(&Request{ID: 99, Tenant: 99, VMs: []VMRequest{{ID: 99, Type: g}}})
	if d.OK || d.Reason != "AreNodeResourcesValid" || d.Explain[0].FailedRule != "AreNodeResourcesValid" {
		t.Fatalf("failure: %+v", d)
	}
	stats := p.RuleStats()
	if len(stats) == 0 || stats[0].Requests == 0 {
		t.Fatalf("rule stats %+v", stats)
	}
}

// TestEviction: a high-priority VM evicts low-priority ones when nothing
// else fits, and a failed request restores what it evicted.
func TestEviction(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 1, skus: []SKU{skuSmall}})
	p := newProteanT(t, inv, nil)
	d16 := int32(4) // 16 cores of 24
	if d := p.Allocate(&Request{ID: 1, Tenant: 1, Priority: 1, VMs: []VMRequest{{ID: 1, Type: d16}}}); !d.OK {
		t.Fatal(d)
	}
	d := p.Allocate(&Request{ID: 2, Tenant: 2, VMs: []VMRequest{{ID: 2, Type: d16}}})
	if !d.OK || len(d.Evicted) != 1 || d.Evicted[0].VM != 1 {
		t.Fatalf("eviction: %+v", d)
	}
	// Low priority never evicts.
	if d := p.Allocate(&Request{ID: 3, Tenant: 3, Priority: 1, VMs: []VMRequest{{ID: 3, Type: d16}}}); d.OK {
		t.Fatal("low priority placed over capacity")
	}
	if err := p.State().CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// TestPlaceTwicePanics: placing a VM that is already placed is a caller
// bug that State.Place refuses, however the VM is placed the second time.
func TestPlaceTwicePanics(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	s := NewState(inv)
	d := inv.Types[0].Demand[0]
	s.Place(Placement{VM: 7, Machine: 0, Demand: d})
	defer func() {
		if recover() == nil {
			t.Fatal("a second placement of VM 7 did not panic")
		}
	}()
	s.Place(Placement{VM: 7, Machine: 1, Demand: d})
}

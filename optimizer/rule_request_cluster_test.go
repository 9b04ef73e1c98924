package optimizer

import "testing"

// TestRequestedClusterPinsHealing: a request with Clusters stays in them on
// every engine. Cluster 0's two machines each host a VM (no empty machine)
// and cluster 1 is empty. A heal request needing one empty machine
// (Buffers.Healing = 1) pinned to cluster 0 is rejected with reason
// IsRequestedCluster although cluster 1 could take it; unpinned it goes to
// cluster 1. When cluster 0 is out of cores instead, the rule that empties
// the pinned cluster is the resource rule.
func TestRequestedClusterPinsHealing(t *testing.T) {
	cases := []struct {
		name     string
		full     bool // cluster 0 out of cores (else: one small VM per machine)
		healing  int32
		clusters []int32
		want     int32 // cluster of the placement, or -1
		reason   string
	}{
		{"pinned to a cluster at its healing buffer", false, 1, []int32{0}, -1, RuleIsRequestedCluster},
		{"unpinned heals elsewhere", false, 1, nil, 1, ""},
		{"pinned to the empty cluster", false, 1, []int32{1}, 1, ""},
		{"pinned to a cluster with room", false, 0, []int32{0}, 0, ""},
		{"pinned to a cluster out of cores", true, 0, []int32{0}, -1, RuleAreNodeResourcesValid},
		{"pinned to no valid cluster", false, 0, []int32{7}, -1, RuleIsRequestedCluster},
	}
	for _, eng := range engines {
		for _, tc := range cases {
			inv := buildZone(t, zoneSpec{clusters: 2, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
			s := NewState(inv)
			for i, m := range inv.Clusters[0].Machines {
				d := Vec{Cores: 1}
				if tc.full {
					d = skuSmall.Capacity
				}
				s.Place(Placement{VM: VMID(100 + i), Machine: m, Tenant: int32(1 + i), Demand: d})
			}
			cfg := DefaultConfig()
			cfg.Buffers.Healing = tc.healing
			a := newEngine(t, eng, s, cfg, DefaultRules())
			req := &Request{ID: 1, Tenant: 1, Kind: KindHeal, Clusters: tc.clusters, VMs: []VMRequest{{ID: 1, Type: 1}}}
			if k := ResolveKind(s, req); k != KindHeal {
				t.Fatalf("ResolveKind = %d, want KindHeal", k)
			}
			d := a.Allocate(req)
			got := int32(-1)
			if d.OK {
				got = inv.Machines[d.Placements[0].Machine].Cluster
			}
			if got != tc.want || d.Reason != tc.reason {
				t.Errorf("%s, %s: cluster %d reason %q, want %d %q", eng, tc.name, got, d.Reason, tc.want, tc.reason)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestResolveKind: KindAuto is a new deployment for a tenant without VMs
// and a scale-out for one with VMs; an explicit kind stays.
func TestResolveKind(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 1, skus: []SKU{skuSmall}})
	s := NewState(inv)
	s.Place(Placement{VM: 1, Machine: 0, Tenant: 5, Demand: Vec{Cores: 1}})
	for _, tc := range []struct {
		tenant int32
		kind   RequestKind
		want   RequestKind
	}{
		{6, KindAuto, KindNew}, {5, KindAuto, KindScaleOut}, {5, KindHeal, KindHeal}, {6, KindScaleOut, KindScaleOut},
	} {
		if got := ResolveKind(s, &Request{Tenant: tc.tenant, Kind: tc.kind}); got != tc.want {
			t.Errorf("tenant %d kind %d: %d, want %d", tc.tenant, tc.kind, got, tc.want)
		}
	}
}

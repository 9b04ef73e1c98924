package optimizer

import (
	"testing"
)

// k8sZone is smallZone with two node sets: every third machine
// ("affinity"), and every machine but the first cluster's ("tolerated").
func k8sZone(t *testing.T) *Inventory {
	t.Helper()
	inv := buildZone(t, smallZone)
	var third, notFirst []int32
	for m := range inv.Machines {
		if m%3 == 0 {
			third = append(third, int32(m))
		}
		if inv.Machines[m].Cluster != 0 {
			notFirst = append(notFirst, int32(m))
		}
	}
	for _, s := range []struct {
		name, kind string
		ms         []int32
	}{{"every third machine", "affinity", third}, {"not cluster 0", "tolerated", notFirst}} {
		ns, err := inv.NewNodeSet(s.name, s.kind, s.ms)
		if err != nil {
			t.Fatal(err)
		}
		inv.NodeSets = append(inv.NodeSets, ns)
	}
	return inv
}

// TestNodeSetsBindEveryEngine: with a VM's affinity set (NodeSets[0]) and
// toleration set (NodeSets[1]) every engine places it only on machines of
// both (CheckInvariants checks it after every request too); without them
// the same requests use machines outside, so the case can fail.
func TestNodeSetsBindEveryEngine(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng, func(t *testing.T) {
			inv := k8sZone(t)
			count := func(aff, tol int32) (outside, placed int) {
				reqs := randomRequests(inv, 1200, 31)
				for _, r := range reqs {
					for i := range r.VMs {
						r.VMs[i].Affinity, r.VMs[i].Tolerated = aff, tol
					}
				}
				a := newEngine(t, eng, NewState(inv), DefaultConfig(), DefaultRules())
				replay(t, a, reqs, 100, func(r *Request, d Decision) {
					for _, p := range d.Placements {
						placed++
						if p.Machine%3 != 0 || inv.Machines[p.Machine].Cluster == 0 {
							outside++
						}
					}
				})
				return outside, placed
			}
			if n, _ := count(0, 0); n == 0 {
				t.Fatal("without node sets no VM went outside them: the case proves nothing")
			}
			if n, placed := count(1, 2); n != 0 || placed == 0 {
				t.Fatalf("with node sets: %d of %d placements outside", n, placed)
			}
		})
	}
}

// TestHasAllowedNodeSelectsTheCluster: with one cluster passed to machine
// selection (k = 1), a VM pinned to the first machine of each cluster in
// turn lands there, and HasAllowedNode is what kept the other clusters out
// of selection: the explanation counts them removed by it.
func TestHasAllowedNodeSelectsTheCluster(t *testing.T) {
	inv := buildZone(t, smallZone)
	for c := range inv.Clusters {
		ns, err := inv.NewNodeSet("pinned", "affinity", []int32{inv.Clusters[c].Machines[0]})
		if err != nil {
			t.Fatal(err)
		}
		inv.NodeSets = append(inv.NodeSets, ns)
	}
	cfg := DefaultConfig()
	cfg.K = 1
	for c := range inv.Clusters {
		want := inv.Clusters[c].Machines[0]
		req := &Request{ID: 1, Tenant: 1, VMs: []VMRequest{{ID: 1, Type: 0, Affinity: int32(c + 1)}}}
		d := newEngine(t, "protean", NewState(inv), cfg, DefaultRules()).Allocate(req)
		if !d.OK || d.Placements[0].Machine != want {
			t.Fatalf("VM pinned in cluster %d: %+v", c, d)
		}
		removed := 0
		for _, rc := range d.Explain[0].ClusterRejected {
			if rc.Rule == RuleHasAllowedNode {
				removed = rc.Count
			}
		}
		if removed != len(inv.Clusters)-1 || len(d.Explain[0].Selected) != 1 || d.Explain[0].Selected[0] != int32(c) {
			t.Fatalf("cluster %d: HasAllowedNode removed %d clusters, selected %v", c, removed, d.Explain[0].Selected)
		}
	}
}

// TestPodTopologySpread: one tenant's VMs with MaxSkew 1 end up spread so
// that, after every placement, its VMs per cluster differ by at most one;
// without the bound Protean packs them (prefer non-empty, best fit) and the
// skew grows, so the case can fail.
func TestPodTopologySpread(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng, func(t *testing.T) {
			inv := buildZone(t, smallZone)
			maxSkew := func(skew int32) int32 {
				a := newEngine(t, eng, NewState(inv), DefaultConfig(), DefaultRules())
				worst := int32(0)
				for i := range 60 {
					r := &Request{ID: int64(i), Tenant: 7, MaxSkew: skew, VMs: []VMRequest{{ID: VMID(i), Type: 0}}}
					if d := a.Allocate(r); !d.OK {
						t.Fatalf("VM %d rejected", i)
					}
					n := make([]int32, len(inv.Clusters))
					for m := range inv.Machines {
						n[inv.Machines[m].Cluster] += a.State().TenantOnMachine(7, int32(m))
					}
					lo, hi := n[0], n[0]
					for _, x := range n {
						lo, hi = min(lo, x), max(hi, x)
					}
					worst = max(worst, hi-lo)
				}
				return worst
			}
			if eng == "protean" || eng == string(FirstFit) || eng == string(BestFitP) {
				if s := maxSkew(0); s <= 1 {
					t.Fatalf("without a bound the skew stayed %d: the case proves nothing", s)
				}
			}
			if s := maxSkew(1); s > 1 {
				t.Fatalf("with MaxSkew 1: skew %d", s)
			}
		})
	}
}

// TestMigrationKeepsNodeSets: what-if migration rebuilds each moved VM's
// request from its placement, node sets included, so every move keeps the
// VM inside them (CheckInvariants checks every placement's sets); the same
// VMs without sets are moved outside them, so the case can fail.
func TestMigrationKeepsNodeSets(t *testing.T) {
	for _, sets := range []bool{false, true} {
		inv := k8sZone(t)
		s := NewState(inv)
		a := newEngine(t, string(WorstFit), s, DefaultConfig(), DefaultRules())
		for i := range 120 {
			v := VMRequest{ID: VMID(i), Type: 0}
			if sets {
				v.Affinity, v.Tolerated = 1, 2
			}
			if d := a.Allocate(&Request{ID: int64(i), Tenant: int32(i), VMs: []VMRequest{v}}); !d.OK {
				t.Fatalf("VM %d rejected", i)
			}
		}
		plan, err := PlanMigrations(s, DefaultConfig(), DefaultRules(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		outside := 0
		for _, mv := range plan.Moves {
			if mv.To%3 != 0 || inv.Machines[mv.To].Cluster == 0 {
				outside++
			}
		}
		switch {
		case len(plan.Moves) == 0:
			t.Fatalf("sets %v: no move planned: the case proves nothing", sets)
		case sets && outside > 0:
			t.Fatalf("%d of %d moves left the VMs' node sets", outside, len(plan.Moves))
		case !sets && outside == 0:
			t.Fatal("without node sets no move left them: the case proves nothing")
		}
	}
}

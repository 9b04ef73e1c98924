package optimizer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// viaValidator and viaPreference hide a built-in cluster rule behind
// another type, so that cluster selection asks it through the interface
// (ValidCluster, ScoreCluster) instead of evaluating it inline.
type viaValidator struct{ ClusterValidator }

type viaPreference struct{ ClusterPreference }

// TestSelectClustersInline: cluster selection evaluates the built-in
// cluster rules inline and skips the validators that accept every cluster
// for a request; the same rules asked through the interface must make the
// same decisions, explanations and rule statistics. The requests mix sizes,
// types (one the small SKU does not run), priorities and kinds (each
// cluster buffer binds at times), name clusters (sometimes none at all),
// carry node affinity and toleration sets, and whole clusters fail and
// return, so that every validator refuses some clusters.
func TestSelectClustersInline(t *testing.T) {
	zone := zoneSpec{clusters: 6, racks: 3, perRack: 5, skus: []SKU{skuSmall, skuLarge}}
	newZone := func() *Inventory {
		inv := buildZone(t, zone)
		var third, notFirst []int32
		for m := range inv.Machines {
			if m%3 == 0 {
				third = append(third, int32(m))
			}
			if inv.Machines[m].Cluster != 0 {
				notFirst = append(notFirst, int32(m))
			}
		}
		for i, ms := range [][]int32{third, notFirst} {
			ns, err := inv.NewNodeSet(fmt.Sprint("set", i), []string{"affinity", "tolerated"}[i], ms)
			if err != nil {
				t.Fatal(err)
			}
			inv.NodeSets = append(inv.NodeSets, ns)
		}
		return inv
	}
	inv0 := newZone()
	reqs := randomRequests(inv0, 4000, 77)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, r := range reqs {
		r.Kind = RequestKind(rng.IntN(4)) // auto, new, scale-out, heal
		switch x := rng.Float64(); {
		case x < 0.1:
			for c := range inv0.Clusters {
				if rng.IntN(2) == 0 {
					r.Clusters = append(r.Clusters, int32(c))
				}
			}
		case x < 0.12:
			r.Clusters = []int32{} // names clusters, none of them
		}
		for i := range r.VMs {
			if rng.Float64() < 0.05 {
				r.VMs[i].Affinity = 1
			}
			if rng.Float64() < 0.05 {
				r.VMs[i].Tolerated = 2
			}
		}
	}
	wrapped := DefaultRules()
	for i, cv := range wrapped.ClusterValidators {
		wrapped.ClusterValidators[i] = viaValidator{cv}
	}
	for i, cp := range wrapped.ClusterPreferences {
		wrapped.ClusterPreferences[i] = viaPreference{cp}
	}
	// Every buffer binds at times; with none for new deployments and
	// healing, the clusters of those requests are chosen from the cached
	// verdict of the type and health validators (clusterVerdict).
	for _, buffers := range []Buffers{{NewDeployment: 4, ScaleOut: 2, Healing: 1}, {ScaleOut: 2}} {
		t.Run(fmt.Sprintf("buffers %d,%d,%d", buffers.NewDeployment, buffers.ScaleOut, buffers.Healing), func(t *testing.T) {
			selectInlineVsInterface(t, newZone, reqs, wrapped, buffers)
		})
	}
}

// selectInlineVsInterface runs reqs through the default rules and through
// wrapped under buffers and compares decisions, explanations and
// statistics.
func selectInlineVsInterface(t *testing.T, newZone func() *Inventory, reqs []*Request, wrapped Rules, buffers Buffers) {
	var logs [2][]string
	var stats [2][]RuleStats
	var refused [2][]int
	var static [2]int
	for arm, rules := range []Rules{DefaultRules(), wrapped} {
		cfg := DefaultConfig()
		cfg.Buffers = buffers
		inv := newZone()
		p, err := NewProtean(NewState(inv), cfg, rules)
		if err != nil {
			t.Fatal(err)
		}
		refused[arm] = make([]int, len(rules.ClusterValidators))
		placed := map[int][]VMID{}
		const life = 300
		for i, r := range reqs {
			for _, vm := range placed[i-life] {
				p.Release(vm)
			}
			delete(placed, i-life)
			if i%500 == 250 { // a cluster fails, and returns 200 requests later
				c := (i / 500) % len(inv.Clusters)
				for _, m := range inv.Clusters[c].Machines {
					p.State().SetHealthy(m, false)
				}
			}
			if i%500 == 450 {
				c := (i / 500) % len(inv.Clusters)
				for _, m := range inv.Clusters[c].Machines {
					p.State().SetHealthy(m, true)
				}
			}
			d := p.Allocate(r)
			line := fmt.Sprintf("%d ok=%v reason=%s explain=%+v", r.ID, d.OK, d.Reason, d.Explain)
			for _, pl := range d.Placements {
				placed[i] = append(placed[i], pl.VM)
				line += fmt.Sprintf(" %d@%d", pl.VM, pl.Machine)
			}
			for _, e := range d.Evicted {
				line += fmt.Sprintf(" evict %d@%d", e.VM, e.Machine)
			}
			for _, ex := range d.Explain {
				for k, rc := range ex.ClusterRejected {
					refused[arm][k] += rc.Count
				}
			}
			logs[arm] = append(logs[arm], line)
		}
		stats[arm] = p.RuleStats()
		static[arm] = p.staticSelections
	}
	for i := range logs[0] {
		if logs[0][i] != logs[1][i] {
			t.Fatalf("request %d: inline %q, through the interface %q", i, logs[0][i], logs[1][i])
		}
	}
	if !reflect.DeepEqual(stats[0], stats[1]) {
		t.Fatalf("rule statistics differ: inline %+v, through the interface %+v", stats[0], stats[1])
	}
	for k, n := range refused[0] {
		if n == 0 && (DefaultRules().ClusterValidators[k].Name() != RuleIsClusterBelowLimit || buffers.ScaleOut == 0) {
			t.Errorf("cluster validator %s refused no cluster: the workload does not test it", DefaultRules().ClusterValidators[k].Name())
		}
	}
	if static[1] != 0 || (buffers.NewDeployment == 0) != (static[0] > 100) {
		t.Fatalf("%d selections from the cached verdict inline, %d through the interface", static[0], static[1])
	}
}

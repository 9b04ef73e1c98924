package optimizer

import "testing"

// TestUpdateOutcomes: the outcomes split every cell update (their total is
// CellUpdates' two accounts together), a mixed workload has each common
// outcome, and departures alone never make a machine invalid: the cell
// updates of the first decision after a batch of releases (a single VM of
// the lowest priority, which reads its cells before it places anything and
// evicts nothing) include no became_invalid.
func TestUpdateOutcomes(t *testing.T) {
	zone := zoneSpec{clusters: 4, racks: 3, perRack: 6, skus: []SKU{skuSmall, skuLarge}}
	reqs := randomRequests(buildZone(t, zone), 1500, 5)
	p := newProteanT(t, buildZone(t, zone), nil)
	var held []VMID
	for _, r := range reqs[:1200] {
		d := p.Allocate(r)
		for _, pl := range d.Placements {
			held = append(held, pl.VM)
		}
		if len(held) > 400 {
			for _, vm := range held[:40] {
				p.Release(vm)
			}
			held = held[40:]
		}
	}
	bg, dec := p.CellUpdates()
	o := p.CellUpdateOutcomes()
	if o.Total() != bg+dec {
		t.Fatalf("outcomes %+v total %d, cell updates %d + %d", o, o.Total(), bg, dec)
	}
	if o.StillRejected == 0 || o.Unchanged == 0 || o.BecameInvalid == 0 || o.BecameValid == 0 {
		t.Fatalf("outcomes %+v: the workload lacks a common outcome", o)
	}
	probes := 0
	for _, r := range reqs[1200:] {
		if len(r.VMs) != 1 || r.Priority != 0 || len(held) < 100 {
			continue
		}
		for _, vm := range held[:60] {
			p.Release(vm) // false: evicted earlier
		}
		held = held[60:]
		before := p.CellUpdateOutcomes()
		d := p.Allocate(r)
		if got := p.CellUpdateOutcomes().Sub(before); got.BecameInvalid != 0 {
			t.Fatalf("request %d after releases only: %+v", r.ID, got)
		} else if got.Total() > 0 {
			probes++
		}
		for _, pl := range d.Placements {
			held = append(held, pl.VM)
		}
	}
	if probes == 0 {
		t.Fatal("no probe decision caught up with a release")
	}
}

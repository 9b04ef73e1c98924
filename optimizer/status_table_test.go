package optimizer

import "testing"

// TestStatusTables checks the shared status tables' slots: widening keeps
// every slot's statuses, a released slot is not handed out again at the
// clock it was released at (a request may still read the dropped
// evaluation's cells), and is handed out from the next clock on.
func TestStatusTables(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 3, skus: []SKU{skuSmall}})
	tabs := newStatusTables(inv)
	// A status is one byte: the marks differ between neighbouring slots,
	// clusters and machines.
	mark := func(slot, c, local int) int8 {
		return int8((slot + 41*c + 7*local) % 127)
	}
	var slots []int
	for i := 0; i < 40; i++ { // several widenings
		s := tabs.alloc(1)
		slots = append(slots, s)
		for c := range inv.Clusters {
			cl := &cell{tab: tabs.table(int32(c)), slot: s}
			for local := range inv.Clusters[c].Machines {
				*cl.st(int32(local)) = mark(s, c, local)
			}
		}
	}
	for i, s := range slots {
		if s != i {
			t.Fatalf("slot %d handed out as %d", i, s)
		}
		for c := range inv.Clusters {
			cl := &cell{tab: tabs.table(int32(c)), slot: s}
			for local := range inv.Clusters[c].Machines {
				if got := *cl.st(int32(local)); got != mark(s, c, local) {
					t.Fatalf("slot %d cluster %d machine %d: status %d after widening, want %d", s, c, local, got, mark(s, c, local))
				}
			}
		}
	}
	tabs.release(7, 5)
	if s := tabs.alloc(5); s == 7 {
		t.Fatalf("slot 7 reused at the clock it was released at")
	}
	if s := tabs.alloc(6); s != 7 {
		t.Fatalf("alloc at the next clock = %d, want the released slot 7", s)
	}
}

// TestStatusTablesEngine replays a workload with more evaluation classes
// than the tables' first width through the cached engine (so the tables
// widen while cells are live) and the uncached one: same decisions.
func TestStatusTablesEngine(t *testing.T) {
	zone := zoneSpec{clusters: 3, racks: 3, perRack: 5, skus: []SKU{skuSmall, skuLarge}}
	reqs := randomRequests(buildZone(t, zone), 1500, 7)
	on := newProteanT(t, buildZone(t, zone), nil)
	logOn, _ := sameDecisionsLog(t, on, reqs, true)
	if on.tabs.stride <= 8 || on.evalPool.len() <= 8 {
		t.Fatalf("%d evaluations, tables %d wide: the workload does not widen the tables", on.evalPool.len(), on.tabs.stride)
	}
	off := newProteanT(t, buildZone(t, zone), func(c *Config) { c.Cache = false })
	logOff, _ := sameDecisionsLog(t, off, reqs, false)
	for i := range logOn {
		if logOn[i] != logOff[i] {
			t.Fatalf("decision %d: cache on %q, off %q", i, logOn[i], logOff[i])
		}
	}
}

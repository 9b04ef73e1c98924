package optimizer

import (
	"runtime"
	"slices"
	"testing"
)

// TestParallelRefresh: a refresh that two goroutines share (the agent and
// its helper, each taking whole clusters) leaves every cell as a fresh
// build of it at the same state would be (statuses, racks, counts, rack
// heads and the best rack), and the decisions stay the uncached engine's.
// The agent waits for the helper to take each job, so the helper refreshes
// cells in every parallel refresh; under -race this is where the two would
// collide. The zone mixes SKUs and the requests mix sizes, priorities and
// gangs, with evictions. The cell updates counted (CellUpdates) equal a
// sequential twin's, so the helper's are collected.
func TestParallelRefresh(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	zone := zoneSpec{clusters: 6, racks: 3, perRack: 6, skus: []SKU{skuSmall, skuLarge}}
	reqs := randomRequests(buildZone(t, zone), 2500, 23)
	off := newProteanT(t, buildZone(t, zone), func(c *Config) { c.Cache = false })
	want := replay(t, off, reqs, 120, nil)
	p := newProteanT(t, buildZone(t, zone), nil)
	p.waitHelper = true
	refreshes := 0
	got := replay(t, p, reqs, 120, func(r *Request, _ Decision) {
		if r.ID%11 != 0 {
			return
		}
		before := p.parallelRefreshes
		p.Refresh(0)
		if p.parallelRefreshes == before {
			return
		}
		refreshes++
		p.evalPool.each(func(e *evaluation) {
			if e.refreshed != p.refreshCall-1 {
				return // past RefreshAge: not refreshed
			}
			for c, cl := range e.cells {
				if cl != nil {
					sameCell(t, &p.env, e, int32(c), cl)
				}
			}
		})
	})
	seq := newProteanT(t, buildZone(t, zone), nil)
	seq.procs = 1 // every refresh on the agent alone
	replay(t, seq, reqs, 120, func(r *Request, _ Decision) {
		if r.ID%11 == 0 {
			seq.Refresh(0)
		}
	})
	pb, pd := p.CellUpdates()
	sb, sd := seq.CellUpdates()
	if pb != sb || pd != sd || pb == 0 || pd == 0 {
		t.Fatalf("cell updates in background and at decision: %d, %d with the helper, %d, %d alone", pb, pd, sb, sd)
	}
	if seq.parallelRefreshes != 0 {
		t.Fatalf("the sequential twin refreshed in parallel %d times", seq.parallelRefreshes)
	}
	if refreshes < 20 || p.helperCells == 0 {
		t.Fatalf("%d parallel refreshes, the helper refreshed %d cells: the workload does not exercise the parallel path", refreshes, p.helperCells)
	}
	if !slices.Equal(got, want) {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("placement %d: machine %d after parallel refreshes, %d uncached", i, got[i], want[i])
			}
		}
		t.Fatalf("%d placements after parallel refreshes, %d uncached", len(got), len(want))
	}
}

// sameCell fails t unless cell cl of evaluation e (cluster c) is up to date
// with the journal and equals a cell built afresh from the current state.
func sameCell(t *testing.T, env *Env, e *evaluation, c int32, cl *cell) {
	t.Helper()
	if p := env.State.Journal.Pending(c, cl.cursor); p != 0 {
		t.Fatalf("cluster %d: %d journal entries pending after a refresh", c, p)
	}
	alone := *e
	alone.tabs = nil // build into a table of its own, not over the cell's statuses
	fresh := alone.build(env, c)
	for _, m := range env.Inv.Clusters[c].Machines {
		local := env.Inv.Machines[m].Local
		if got, want := *cl.st(local), *fresh.st(local); got != want {
			t.Fatalf("cluster %d machine %d: status %+v, fresh %+v", c, m, got, want)
		}
	}
	if cl.valid != fresh.valid || !slices.Equal(cl.rejected, fresh.rejected) {
		t.Fatalf("cluster %d: %d valid, rejected %v; fresh %d, %v", c, cl.valid, cl.rejected, fresh.valid, fresh.rejected)
	}
	for rl := range cl.racks {
		if !slices.Equal(cl.racks[rl], fresh.racks[rl]) {
			t.Fatalf("cluster %d rack %d: %v, fresh %v", c, rl, cl.racks[rl], fresh.racks[rl])
		}
		if cl.heads[rl] != fresh.heads[rl] {
			t.Fatalf("cluster %d rack %d: head %+v, fresh %+v", c, rl, cl.heads[rl], fresh.heads[rl])
		}
	}
	if cl.best() != fresh.best() {
		t.Fatalf("cluster %d: best rack %d, fresh %d", c, cl.best(), fresh.best())
	}
	for n := range cl.prefix {
		for _, en := range fresh.racks {
			for _, x := range en {
				k := truncated(x.k, n+1)
				if a, b := cl.prefix[n].get(k), fresh.prefix[n].get(k); a != b {
					t.Fatalf("cluster %d: %d valid machines share the first %d scores %v, fresh %d", c, a, n+1, k, b)
				}
			}
		}
	}
}

// TestRefreshCatchesUpAfterIdle: a refresh looks only at the clusters whose
// journal moved since the previous refresh for the evaluations that
// previous refresh brought up to date; an evaluation it skipped (idle past
// RefreshAge) and used again since has cells behind in clusters that did
// not move since, and the next refresh must bring all of them up to date.
// Here it is used again as a request would use it (fetched from the pool,
// one cluster's cell caught up), and the refresh after must bring its
// other cells up to date though their clusters did not move.
func TestRefreshCatchesUpAfterIdle(t *testing.T) {
	zone := zoneSpec{clusters: 3, racks: 2, perRack: 4, skus: []SKU{skuSmall, skuLarge}}
	p := newProteanT(t, buildZone(t, zone), nil)
	const idleType, busyType = 5, 0 // G4 (large SKU only), D1
	id := VMID(0)
	next := func(typ int32) *Request {
		id++
		return &Request{ID: int64(id), Tenant: int32(id), VMs: []VMRequest{{ID: id, Type: typ}}}
	}
	p.Allocate(next(idleType))
	idle := p.evaluation(Traits{TraitType: idleType})
	for c := range idle.cells {
		idle.cell(&p.env, int32(c))
	}
	for i := 0; i < RefreshAge+8; i++ {
		r := next(busyType)
		p.Allocate(r)
		if i >= 20 { // each busy VM leaves 20 requests later, across the clusters
			p.Release(r.VMs[0].ID - 20)
		}
		if i%3 == 0 {
			p.Refresh(0)
		}
	}
	p.Refresh(0) // skips idle: it stays behind
	if idle.refreshed == p.refreshCall-1 {
		t.Fatal("the idle evaluation was refreshed")
	}
	idle = p.evaluation(Traits{TraitType: idleType}) // used again, ...
	idle.cell(&p.env, 0)                             // ... in cluster 0 only
	behind := 0
	for c, cl := range idle.cells {
		if p.env.State.Journal.Pending(int32(c), cl.cursor) > 0 {
			behind++
		}
	}
	if behind == 0 {
		t.Fatal("no cell of the idle evaluation is behind: the test cannot tell")
	}
	p.Refresh(0)
	for c, cl := range idle.cells {
		sameCell(t, &p.env, idle, int32(c), cl)
	}
}

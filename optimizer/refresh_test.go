package optimizer

import (
	"slices"
	"testing"
)

// TestRefreshMarks: a background refresh marks the cells of the
// evaluations it refreshes with the journal's head, and a cell read after
// it (as a decision reads it) equals a fresh build of it at the same state
// (statuses, racks, counts, rack heads and the best rack), its changes up
// to the mark applied on the background's account. The decisions stay the
// uncached engine's. The zone mixes SKUs and the requests mix sizes,
// priorities and gangs, with evictions. Both accounts are used, and the
// background's time is measured (IdleUpkeep); an engine never refreshed
// has no background account at all.
func TestRefreshMarks(t *testing.T) {
	zone := zoneSpec{clusters: 6, racks: 3, perRack: 6, skus: []SKU{skuSmall, skuLarge}}
	reqs := randomRequests(buildZone(t, zone), 2500, 23)
	off := newProteanT(t, buildZone(t, zone), func(c *Config) { c.Cache = false })
	want := replay(t, off, reqs, 120, nil)
	p := newProteanT(t, buildZone(t, zone), nil)
	refreshes := 0
	got := replay(t, p, reqs, 120, func(r *Request, _ Decision) {
		if r.ID%11 != 0 {
			return
		}
		p.Refresh(0)
		refreshes++
		j := p.env.State.Journal
		p.evalPool.each(func(e *evaluation) {
			if e.refreshed != p.refreshCall-1 {
				return // past RefreshAge: not refreshed
			}
			for c, cl := range e.cells {
				if cl == nil {
					continue
				}
				if h := j.Head(int32(c)); cl.mark != h && cl.cursor != h {
					t.Fatalf("request %d, cluster %d: a refreshed cell marked at %d, read at %d, the journal at %d", r.ID, c, cl.mark.pos, cl.cursor.pos, h.pos)
				}
				// Read every fifth as a decision would: the rest stay
				// behind, for decisions to catch up.
				if (int(r.ID)/11+c)%5 == 0 {
					read, _ := e.cell(&p.env, int32(c))
					sameCell(t, &p.env, e, int32(c), read)
				}
			}
		})
	})
	if !slices.Equal(got, want) {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("placement %d: machine %d after refreshes, %d uncached", i, got[i], want[i])
			}
		}
		t.Fatalf("%d placements after refreshes, %d uncached", len(got), len(want))
	}
	bg, dec := p.CellUpdates()
	if refreshes < 20 || bg == 0 || dec == 0 || p.IdleUpkeep() <= 0 {
		t.Fatalf("%d refreshes, cell updates %d background (%d ns), %d at decision: the workload does not use both accounts", refreshes, bg, p.IdleUpkeep(), dec)
	}
	never := newProteanT(t, buildZone(t, zone), nil)
	replay(t, never, reqs, 120, nil)
	if bg, dec := never.CellUpdates(); bg != 0 || never.IdleUpkeep() != 0 || dec == 0 {
		t.Fatalf("never refreshed: cell updates %d background (%d ns), %d at decision", bg, never.IdleUpkeep(), dec)
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
		for rl := range fresh.racks {
			for i := range fresh.size(rl) {
				k := truncated(fresh.key(rl, i), n+1)
				if a, b := cl.prefix[n].get(k), fresh.prefix[n].get(k); a != b {
					t.Fatalf("cluster %d: %d valid machines share the first %d scores %v, fresh %d", c, a, n+1, k, b)
				}
			}
		}
	}
}

// TestRefreshCatchesUpAfterIdle: a refresh looks only at the clusters whose
// journal moved since the previous refresh for the evaluations that
// previous refresh marked; an evaluation it skipped (idle past RefreshAge)
// and used again since has cells behind and unmarked in clusters that did
// not move since, and the next refresh must mark all of them. Here it is
// used again as a request would use it (fetched from the pool, one
// cluster's cell read), and the refresh after must mark its other cells
// though their clusters did not move; read then, each equals a fresh build.
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
	unmarked := 0
	for c, cl := range idle.cells {
		if h := p.env.State.Journal.Head(int32(c)); cl.mark != h && cl.cursor != h {
			unmarked++
		}
	}
	if unmarked == 0 {
		t.Fatal("every cell of the idle evaluation is read or marked at the head: the test cannot tell")
	}
	p.Refresh(0)
	j := p.env.State.Journal
	for c, cl := range idle.cells {
		if h := j.Head(int32(c)); cl.mark != h && cl.cursor != h {
			t.Fatalf("cluster %d: the evaluation used again is marked at %d, read at %d, the journal at %d", c, cl.mark.pos, cl.cursor.pos, h.pos)
		}
		read, _ := idle.cell(&p.env, int32(c))
		sameCell(t, &p.env, idle, int32(c), read)
	}
}

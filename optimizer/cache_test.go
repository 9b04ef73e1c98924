package optimizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Test rules for Protean Table 4: R1 depends on traits X and Y, R2 on X.
// X is the VM type trait, Y the priority trait.
type r1 struct{}

func (r1) Name() string    { return "R1" }
func (r1) Traits() []Trait { return []Trait{TraitType, TraitPriority} }
func (r1) NewPreference(env *Env, _ Traits) MachinePreference {
	return nonEmpty{env.State}
}

type r2 struct{}

func (r2) Name() string    { return "R2" }
func (r2) Traits() []Trait { return []Trait{TraitType} }
func (r2) NewValidator(env *Env, t Traits) MachineValidator {
	return AreNodeResourcesValid{}.NewValidator(env, t)
}

// TestTable4CacheTimeline replays the example cache timeline of Protean
// Table 4: three requests with trait vectors (x1,y1), (x1,y2), (x1,y1).
func TestTable4CacheTimeline(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 4, skus: []SKU{skuLarge}})
	rules := Rules{
		ClusterValidators: []ClusterValidator{IsTypeSupported{}},
		Validators:        []MachineValidatorRule{r2{}},
		Preferences:       []MachinePreferenceRule{r1{}},
	}
	p, err := NewProtean(NewState(inv), DefaultConfig(), rules)
	if err != nil {
		t.Fatal(err)
	}
	const x1, y1, y2 = 0, 0, 1
	type want struct{ evalHit, evalMiss, r1Hit, r1Miss, r2Hit, r2Miss int64 }
	steps := []struct {
		name string
		y    uint8
		want want // cumulative
	}{
		// T1 req(x1,y1): nothing cached; create Eval(x1,y1), R1(x1,y1), R2(x1).
		{"T1", y1, want{0, 1, 0, 1, 0, 1}},
		// T2 req(x1,y2): R2(x1) hits; create Eval(x1,y2), R1(x1,y2).
		{"T2", y2, want{0, 2, 0, 2, 1, 1}},
		// T3 req(x1,y1): Eval(x1,y1) hits; its rule objects are reached through it.
		{"T3", y1, want{1, 2, 0, 2, 1, 1}},
	}
	for i, s := range steps {
		d := p.Allocate(&Request{ID: int64(i), Tenant: int32(i), Priority: s.y, VMs: []VMRequest{{ID: VMID(i), Type: x1}}})
		if !d.OK {
			t.Fatalf("%s: %+v", s.name, d)
		}
		cs := p.CacheStats()
		got := want{cs["RuleEvaluation"].Hits, cs["RuleEvaluation"].Misses, cs["R1"].Hits, cs["R1"].Misses, cs["R2"].Hits, cs["R2"].Misses}
		if got != s.want {
			t.Fatalf("%s: got %+v, want %+v", s.name, got, s.want)
		}
	}
	if n := p.rulePool.len(); n != 3 {
		t.Fatalf("rule objects cached: %d, want 3 (R1(x1,y1), R1(x1,y2), R2(x1))", n)
	}
	if n := p.evalPool.len(); n != 2 {
		t.Fatalf("evaluations cached: %d, want 2", n)
	}
}

func TestPoolLRUAndAge(t *testing.T) {
	p := newPool[int, int](2, 10)
	mk := func(v int) func() int { return func() int { return v } }
	p.get(1, 0, mk(1))
	p.get(2, 1, mk(2))
	if _, hit := p.get(1, 2, mk(1)); !hit {
		t.Fatal("1 should hit")
	}
	p.get(3, 3, mk(3)) // evicts 2, the least recently used
	if _, hit := p.get(2, 4, mk(2)); hit {
		t.Fatal("2 should have been evicted")
	}
	if _, hit := p.get(1, 30, mk(1)); hit {
		t.Fatal("1 should have aged out")
	}
	if p.Stats.Hits != 1 || p.Stats.Misses != 5 {
		t.Fatalf("stats %+v", p.Stats)
	}
}

func TestJournalFallsBehind(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 2, skus: []SKU{skuSmall}})
	j := NewJournal(inv)
	cur := j.Head(0)
	j.Touch(0, 0)
	j.Touch(1, 0)
	j.Touch(0, 0)
	var seen []int32
	if !j.Changed(0, &cur, func(m int32) { seen = append(seen, m) }) {
		t.Fatal("fell behind too early")
	}
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 0 {
		t.Fatalf("changed = %v, want [1 0] (each machine once, latest revision)", seen)
	}
	for i := 0; i < 3*minLogLimit; i++ {
		j.Touch(1, 0)
	}
	if j.Changed(0, &cur, func(int32) {}) {
		t.Fatal("a cursor behind the compacted log must rebuild")
	}
}

// TestRefreshKeepsDecisions calls the background cache refresh
// (Protean.Refresh, §5.2.4) between requests, partial and full, and checks
// that the cached engine's decisions stay those of the uncached engine —
// and that the refresh did bring cells up to date (it had work to do).
func TestRefreshKeepsDecisions(t *testing.T) {
	reqs := randomRequests(buildZone(t, smallZone), 3000, 19)
	fresh := newProteanT(t, buildZone(t, smallZone), func(c *Config) { c.Cache = false })
	want := replay(t, fresh, reqs, 150, nil)
	for _, maxEvals := range []int{0, 1, 3} {
		p := newProteanT(t, buildZone(t, smallZone), nil)
		n := 0
		got := replay(t, p, reqs, 150, func(r *Request, d Decision) {
			if r.ID%7 == 0 {
				n += p.Refresh(maxEvals)
				if err := p.State().CheckInvariants(); err != nil {
					t.Fatal(err)
				}
			}
		})
		if n == 0 || p.BackgroundUpdates() != int64(n) {
			t.Fatalf("maxEvals %d: Refresh updated %d cells (counter %d): nothing was refreshed", maxEvals, n, p.BackgroundUpdates())
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("maxEvals %d: placement %d is machine %d after refreshes, %d uncached", maxEvals, i, got[i], want[i])
			}
		}
	}
}

// TestRefreshSkipsIdleEvaluations: background refresh leaves alone an
// evaluation no request used within RefreshAge requests (its cells stay
// behind the journal), and that evaluation catches up when it is used
// again: the decision is the uncached engine's.
func TestRefreshSkipsIdleEvaluations(t *testing.T) {
	zone := zoneSpec{clusters: 2, racks: 2, perRack: 4, skus: []SKU{skuSmall, skuLarge}}
	on := newProteanT(t, buildZone(t, zone), nil)
	off := newProteanT(t, buildZone(t, zone), func(c *Config) { c.Cache = false })
	const idleType, busyType = 5, 0 // G4 (large SKU only), D1
	id := VMID(0)
	next := func(typ int32) *Request {
		id++
		return &Request{ID: int64(id), Tenant: int32(id), VMs: []VMRequest{{ID: id, Type: typ}}}
	}
	both := func(r *Request) {
		t.Helper()
		a, b := on.Allocate(r), off.Allocate(r)
		if a.OK != b.OK || len(a.Placements) != len(b.Placements) || a.OK && a.Placements[0].Machine != b.Placements[0].Machine {
			t.Fatalf("request %d: cache on %+v, off %+v", r.ID, a.Placements, b.Placements)
		}
		if err := on.State().CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	both(next(idleType))
	idle := on.evaluation(Traits{TraitType: idleType})
	for i := 0; i < RefreshAge+8; i++ {
		r := next(busyType)
		both(r)
		if i >= 20 { // keep the zone from filling: each busy VM leaves 20 requests later
			on.Release(r.VMs[0].ID - 20)
			off.Release(r.VMs[0].ID - 20)
		}
		if i%3 == 0 {
			on.Refresh(0)
		}
	}
	behind := 0
	for c, cl := range idle.cells {
		if h := on.env.State.Journal.Head(int32(c)); cl != nil && cl.cursor != h && cl.mark != h {
			behind++
		}
	}
	if behind == 0 {
		t.Fatal("the idle evaluation was refreshed: idle evaluations must cost nothing per placement")
	}
	for i := 0; i < 4; i++ {
		both(next(idleType))
	}
}

// TestJournalMemoryBounded: however long the trace, a cluster's log holds
// at most its limit of entries (and its backing array stays near it), so
// the journal's memory follows the inventory, not the number of changes.
func TestJournalMemoryBounded(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 3, skus: []SKU{skuSmall}})
	j := NewJournal(inv)
	for i := 0; i < 50*minLogLimit; i++ {
		m := int32(i % len(inv.Machines))
		j.Touch(m, inv.Machines[m].Cluster)
	}
	for c := range j.logs {
		l := &j.logs[c]
		if len(l.entries) > l.limit || cap(l.entries) > 2*l.limit+1 {
			t.Fatalf("cluster %d: %d entries (cap %d) after %d changes, limit %d", c, len(l.entries), cap(l.entries), 50*minLogLimit, l.limit)
		}
	}
}

// TestCellUpdatesByHand counts the cache's upkeep (CellUpdates) on one
// cluster and two VM types of different shapes, each with its own
// evaluation: a cell built after a change holds it; a cell behind the
// journal is updated once per changed machine (however often it changed)
// by the decision that reads it, on the background refresh's account for
// the machines whose latest change precedes the refresh's mark, on its own
// for the rest. Refresh itself updates nothing.
func TestCellUpdatesByHand(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 4, skus: []SKU{skuLarge}})
	p, err := NewProtean(NewState(inv), DefaultConfig(), DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	const d1, d2 = 0, 1 // 1 and 2 cores: two shapes, two evaluations
	place := func(vm VMID, ty int32) int32 {
		t.Helper()
		// One tenant, at most one VM per machine: each VM alive is on a
		// machine of its own.
		d := p.Allocate(&Request{ID: vm, Tenant: 1, MaxPerMachine: 1, VMs: []VMRequest{{ID: vm, Type: ty}}})
		if !d.OK {
			t.Fatalf("VM %d: %+v", vm, d)
		}
		if err := p.State().CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		return d.Placements[0].Machine
	}
	check := func(step string, bg, dec int64) {
		t.Helper()
		if b, d := p.CellUpdates(); b != bg || d != dec {
			t.Fatalf("%s: cell updates background %d, at decision %d; want %d, %d", step, b, d, bg, dec)
		}
	}
	distinct := func(ms ...int32) int64 {
		set := map[int32]bool{}
		for _, m := range ms {
			set[m] = true
		}
		return int64(len(set))
	}
	a := place(0, d1) // builds D1's cell, then changes a
	b := place(1, d2) // builds D2's cell after a's change, then changes b
	check("two new evaluations", 0, 0)
	if a == b {
		t.Fatalf("VMs 0 and 1 share machine %d", a)
	}
	// D1's cell is behind by a and b, D2's by b; the refresh marks both.
	p.Refresh(0)
	check("refresh", 0, 0)
	p.Refresh(0)
	check("refresh with nothing changed", 0, 0)

	// A departure (a changes again, after the mark) and a placement of
	// D1: its decision reads D1's cell, b on the background's account
	// unless it is a, and a on its own.
	if !p.Release(0) {
		t.Fatal("release VM 0")
	}
	bg := int64(1) // b
	c := place(2, d1)
	check("D1 after a departure", bg, 1)
	// D2's decision reads D2's cell: b on the background's account (it
	// did not change since: VM 1 is still there, so c is not b), a and c
	// on its own.
	bg++
	place(3, d2)
	check("D2 after two changes", bg, 1+distinct(a, c))

	// With the cache off nothing is kept, so nothing is updated.
	off := DefaultConfig()
	off.Cache = false
	q, err := NewProtean(NewState(inv), off, DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		q.Allocate(&Request{ID: int64(i), Tenant: int32(i), VMs: []VMRequest{{ID: VMID(i), Type: int32(i % 2)}}})
		q.Refresh(0)
	}
	if b, d := q.CellUpdates(); b != 0 || d != 0 {
		t.Fatalf("cache off: cell updates %d, %d", b, d)
	}
}

// TestJournalLatestOnce: for readers at random positions of a log that
// is dropped from the front as it grows, Changed and ChangedUntil call
// back exactly the machines whose latest change lies in the part read, in
// the order of those latest changes — checked against the full history
// (brute force), with machines changing again and again across two
// clusters.
func TestJournalLatestOnce(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 2, racks: 2, perRack: 5, skus: []SKU{skuSmall}})
	j := NewJournal(inv)
	rng := rand.New(rand.NewPCG(3, 1))
	var hist [2][]int32 // per cluster, every change in order (position = absolute log position)
	type reader struct {
		c   int32
		cur Cursor
	}
	var readers []reader
	superseded, read := 0, 0
	for step := 0; step < 20*minLogLimit; step++ {
		m := int32(rng.IntN(len(inv.Machines)))
		c := inv.Machines[m].Cluster
		j.Touch(m, c)
		hist[c] = append(hist[c], m)
		if rng.IntN(50) == 0 {
			c := int32(rng.IntN(2))
			readers = append(readers, reader{c, j.Head(c)})
		}
		if len(readers) == 0 || rng.IntN(20) != 0 {
			continue
		}
		i := rng.IntN(len(readers))
		r := &readers[i]
		h := hist[r.c]
		end := j.Head(r.c)
		until := rng.IntN(2) == 0
		if until {
			end = Cursor{r.cur.pos + rng.IntN(len(h)-r.cur.pos+1)}
		}
		// Brute force: the entries in [cur, end) that are their machine's
		// last change in the whole history so far.
		var want []int32
		last := map[int32]int{} // each machine's last change in the history
		for p, m := range h {
			last[m] = p
		}
		for p := r.cur.pos; p < end.pos; p++ {
			if last[h[p]] == p {
				want = append(want, h[p])
			} else {
				superseded++
			}
		}
		var got []int32
		fn := func(m int32) { got = append(got, m) }
		before := r.cur
		var ok bool
		if until {
			ok = j.ChangedUntil(r.c, &r.cur, end, fn)
		} else {
			ok = j.Changed(r.c, &r.cur, fn)
		}
		if !ok {
			if before.pos >= j.logs[r.c].base {
				t.Fatalf("step %d: a reader at %d reported behind a log starting at %d", step, before.pos, j.logs[r.c].base)
			}
			readers = append(readers[:i], readers[i+1:]...)
			continue
		}
		read++
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: cluster %d from %d to %d: got %v, want %v", step, r.c, before.pos, end.pos, got, want)
		}
		if r.cur != end {
			t.Fatalf("step %d: cursor at %d after reading to %d", step, r.cur.pos, end.pos)
		}
	}
	if read < 100 || superseded < 100 {
		t.Fatalf("only %d reads skipping %d superseded entries: the test does not exercise the log", read, superseded)
	}
}

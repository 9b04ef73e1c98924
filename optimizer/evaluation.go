package optimizer

import (
	"math"
	"sort"
	"time"
)

// maxPrefs bounds the machine preference rules (plus nothing else) a key holds.
const maxPrefs = 4

// key is a machine's preference scores in rule order, compared
// lexicographically: strict priority, each rule breaking only the ties the
// rules before it left (§3.3's exponentially spaced weights).
//
// Scores are int32: quantized buckets are small, and unquantized scores
// (Quantize with N = 0) are at most 1e9. Narrow keys keep the per-machine
// state of an evaluation small, which is what bounds update speed.
type key [maxPrefs]int32

// clampScore narrows a rule's score into a key slot.
func clampScore(v int64) int32 {
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

func (a *key) less(b *key) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// prefixEq compares the first n scores.
func (a *key) prefixEq(b *key, n int) bool {
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// entry is a valid machine's key and id, as build sorts them.
type entry struct {
	k key
	m int32
}

// A rack's entries are kept flattened, sorted by key then machine: entry i
// is r[i*s:(i+1)*s], its s-1 scores (one per preference rule of the
// evaluation) then its machine id. The stride s is the evaluation's
// (cell.s), not maxPrefs+1: with the default rules' two preferences an
// entry is 12 bytes, not the 20 of a full-width key. On the 2M-VM zone
// that took peak RSS from 1.24-1.28 GB to 1.15-1.19 GB and placements per
// second from 46.4k to 50.5k (medians of 6 runs each, A B B A order), with
// the same placements.

// entM is the machine of entry i.
func entM(r []int32, s, i int) int32 { return r[i*s+s-1] }

// entKey is the key of entry i (scores past the stride are zero).
func entKey(r []int32, s, i int) (k key) {
	copy(k[:], r[i*s:i*s+s-1])
	return k
}

// setEnt sets entry i to (k, m).
func setEnt(r []int32, s, i int, k *key, m int32) {
	e := r[i*s : i*s+s]
	copy(e, k[:s-1])
	e[s-1] = m
}

// entCmp compares entry i with (k, m): by scores, then machine.
func entCmp(r []int32, s, i int, k *key, m int32) int {
	e := r[i*s : i*s+s]
	for j := 0; j < s-1; j++ {
		if e[j] != k[j] {
			if e[j] < k[j] {
				return -1
			}
			return 1
		}
	}
	switch em := e[s-1]; {
	case em < m:
		return -1
	case em > m:
		return 1
	}
	return 0
}

func entryLess(a, b *entry) bool {
	for i := range a.k {
		if a.k[i] != b.k[i] {
			return a.k[i] < b.k[i]
		}
	}
	return a.m < b.m
}

type mstatus struct {
	valid  bool
	failed int8 // index of the first validator that rejected the machine
	k      key
}

// statusTable holds one cluster's machine statuses for the evaluations
// that share it, machine-major: rows[local*stride+slot] is machine local's
// status in the evaluation of that slot, one byte: the index of the first
// validator that rejected it, or -1 when it is valid (its key is in its
// rack's entries, the one place it is kept). With the key beside it a
// status took 20 bytes; at one byte the 2M-VM zone's peak RSS fell by 7%
// at the same speed and with the same decisions. An evaluation without a
// slot (cache off) has a table of its own, stride 1.
type statusTable struct {
	rows   []int8
	stride int
}

// statusTables are a cached engine's status tables, one per cluster, and
// the slots of its cached evaluations. A slot released (its evaluation
// dropped from the pool) is held until the clock moves on, so a request
// still holding the dropped evaluation's cells reads them intact.
type statusTables struct {
	clusters []statusTable
	machines []int // per cluster
	stride   int
	next     int
	free     []int
	held     []heldSlot
}

type heldSlot struct {
	slot  int
	clock uint64
}

func newStatusTables(inv *Inventory) *statusTables {
	t := &statusTables{clusters: make([]statusTable, len(inv.Clusters)), machines: make([]int, len(inv.Clusters)), stride: 8}
	for c := range inv.Clusters {
		t.machines[c] = len(inv.Clusters[c].Machines)
		t.clusters[c].stride = t.stride
	}
	return t
}

// alloc returns a free slot at clock now, widening the tables when every
// slot is taken.
func (t *statusTables) alloc(now uint64) int {
	for len(t.held) > 0 && t.held[0].clock < now {
		t.free = append(t.free, t.held[0].slot)
		t.held = t.held[1:]
	}
	if n := len(t.free); n > 0 {
		s := t.free[n-1]
		t.free = t.free[:n-1]
		return s
	}
	if t.next == t.stride {
		// A quarter wider (in steps of 8): a row holds little more than
		// the evaluations alive, and widening copies the tables a few
		// times only.
		t.grow(t.stride + max(8, (t.stride/4+7)/8*8))
	}
	t.next++
	return t.next - 1
}

// release returns a slot, reusable from the next clock on.
func (t *statusTables) release(slot int, now uint64) {
	t.held = append(t.held, heldSlot{slot, now})
}

func (t *statusTables) grow(stride int) {
	for c := range t.clusters {
		tab := &t.clusters[c]
		if tab.rows != nil {
			rows := make([]int8, t.machines[c]*stride)
			for m := 0; m < t.machines[c]; m++ {
				copy(rows[m*stride:m*stride+t.stride], tab.rows[m*t.stride:(m+1)*t.stride])
			}
			tab.rows = rows
		}
		tab.stride = stride
	}
	t.stride = stride
}

// table is cluster c's table, allocated on first use.
func (t *statusTables) table(c int32) *statusTable {
	tab := &t.clusters[c]
	if tab.rows == nil {
		tab.rows = make([]int8, t.machines[c]*t.stride)
	}
	return tab
}

// cell is a RuleEvaluation's state for one cluster: per rack (the cells of
// the global rule, §5.2.5) the valid machines sorted by key, kept up to date
// from the journal in M·log N for M changed machines.
type cell struct {
	cluster int32
	cursor  Cursor
	// mark is where the background refresh brought the cell (Refresh):
	// the changes between cursor and mark are applied on its account.
	mark     Cursor
	tab      *statusTable // machine statuses by Machine.Local (st)
	slot     int
	s        int       // the stride of a rack's flattened entries: preference rules + 1
	racks    [][]int32 // by Machine.RackLocal: its valid machines' entries, sorted (entM)
	runs     []int32   // per rack: length of the run of entries tied with its head; -1 = stale
	valid    int32
	rejected []int32 // machines whose first failing validator is i
	// prefix[n-1] counts valid machines by their first n scores, so an
	// explanation can say how many candidates each preference rule left
	// without scanning the racks.
	prefix []prefixCounts
	// heads holds each rack's best machine key and global (rack) score;
	// heap orders the racks by them, so the best rack of the cell is found
	// in O(1) and kept in O(log racks) per change.
	heads []rackHead
	heap  []int32
	hpos  []int32
	// dirty lists the racks whose head may have changed during a catch-up
	// (marked in isDirty): their heads are recomputed once, after the
	// journal's changes are applied, however many of their machines
	// changed.
	dirty   []int32
	isDirty []uint8 // 0 clean, dirtyScore, dirtyEntries
}

// A rack is dirty for its global score only (its entries did not change,
// so its head key stands) or for its entries (the head key is re-read).
const (
	dirtyScore uint8 = 1 + iota
	dirtyEntries
)

type rackHead struct {
	ok bool // the rack has a valid machine
	k  key
	g  int64
}

// headLess orders racks: valid before empty, then by key, global score and
// rack index (a total order, so cached and fresh cells agree).
func (cl *cell) headLess(a, b int32) bool {
	ha, hb := &cl.heads[a], &cl.heads[b]
	if ha.ok != hb.ok {
		return ha.ok
	}
	if c := cmpKey(&ha.k, ha.g, &hb.k, hb.g); c != 0 {
		return c < 0
	}
	return a < b
}

func (cl *cell) swap(i, j int) {
	cl.heap[i], cl.heap[j] = cl.heap[j], cl.heap[i]
	cl.hpos[cl.heap[i]] = int32(i)
	cl.hpos[cl.heap[j]] = int32(j)
}

func (cl *cell) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !cl.headLess(cl.heap[i], cl.heap[p]) {
			return
		}
		cl.swap(i, p)
		i = p
	}
}

func (cl *cell) down(i int) {
	n := len(cl.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && cl.headLess(cl.heap[r], cl.heap[l]) {
			m = r
		}
		if !cl.headLess(cl.heap[m], cl.heap[i]) {
			return
		}
		cl.swap(i, m)
		i = m
	}
}

// st is the status of the cluster's machine local: the index of the first
// validator that rejected it, or -1 when it is valid (statusTable).
func (cl *cell) st(local int32) *int8 {
	t := cl.tab
	return &t.rows[int(local)*t.stride+cl.slot]
}

// setHead recomputes rack rl's head and global score and restores the heap.
// With entries false the rack's entries did not change since its head was
// last set: its key stands and only its global score is recomputed (the
// rack's entries are not read).
func (cl *cell) setHead(env *Env, e *evaluation, rl int, entries bool) {
	h := rackHead{}
	if !entries {
		h = cl.heads[rl]
		if h.ok && e.global != nil {
			h.g = e.global.ScoreRack(env, e.traits, env.Inv.Clusters[cl.cluster].Racks[rl])
		}
	} else if r := cl.racks[rl]; len(r) > 0 {
		h.ok, h.k = true, entKey(r, cl.s, 0)
		if e.global != nil {
			h.g = e.global.ScoreRack(env, e.traits, env.Inv.Clusters[cl.cluster].Racks[rl])
		}
	}
	if cl.heads[rl] == h {
		return
	}
	cl.heads[rl] = h
	i := int(cl.hpos[rl])
	cl.up(i)
	cl.down(int(cl.hpos[rl]))
}

// markHead records that rack rl's global score (how dirtyScore), or its
// entries and so its head (dirtyEntries), may have changed.
func (cl *cell) markHead(rl int, how uint8) {
	switch d := cl.isDirty[rl]; {
	case d == 0:
		cl.isDirty[rl] = how
		cl.dirty = append(cl.dirty, int32(rl))
	case how > d:
		cl.isDirty[rl] = how
	}
}

// flushHeads recomputes the heads of the racks marked since the last flush.
func (cl *cell) flushHeads(env *Env, e *evaluation) {
	for _, rl := range cl.dirty {
		cl.setHead(env, e, int(rl), cl.isDirty[rl] == dirtyEntries)
		cl.isDirty[rl] = 0
	}
	cl.dirty = cl.dirty[:0]
}

// best returns the cell's best rack, or -1.
func (cl *cell) best() int32 {
	if len(cl.heap) == 0 || !cl.heads[cl.heap[0]].ok {
		return -1
	}
	return cl.heap[0]
}

// walk visits racks in heap order from the root, descending only into
// subtrees for which descend(rack) is true.
func (cl *cell) walk(i int, descend func(rl int32) bool) {
	if i >= len(cl.heap) {
		return
	}
	rl := cl.heap[i]
	if !cl.heads[rl].ok || !descend(rl) {
		return
	}
	cl.walk(2*i+1, descend)
	cl.walk(2*i+2, descend)
}

// headRun is the number of machines of rack rl tied with its head.
func (cl *cell) headRun(rl int, npref int) int {
	if cl.runs[rl] < 0 {
		cl.runs[rl] = int32(cl.runFrom(rl, 0, npref))
	}
	return int(cl.runs[rl])
}

// runFrom is the number of machines of rack rl, from entry start on, whose
// first npref scores equal entry start's.
func (cl *cell) runFrom(rl, start, npref int) int {
	r, s := cl.racks[rl], cl.s
	k := entKey(r, s, start)
	return countPrefix(r[start*s:], s, &k, npref)
}

// size is the number of valid machines in rack rl.
func (cl *cell) size(rl int) int { return len(cl.racks[rl]) / cl.s }

// machine is the machine of rack rl's entry i.
func (cl *cell) machine(rl, i int) int32 { return entM(cl.racks[rl], cl.s, i) }

// key is the key of rack rl's entry i.
func (cl *cell) key(rl, i int) key { return entKey(cl.racks[rl], cl.s, i) }

// truncated keeps the first n scores of k.
func truncated(k key, n int) key {
	for i := n; i < maxPrefs; i++ {
		k[i] = 0
	}
	return k
}

func (cl *cell) count(k *key, d int32) {
	for n := range cl.prefix {
		cl.bump(n, k, d)
	}
}

// bump adds d to the count of k's first n+1 scores.
func (cl *cell) bump(n int, k *key, d int32) {
	cl.prefix[n].add(truncated(*k, n+1), d)
}

// prefixListMax bounds the distinct truncated keys a prefixCounts scans
// linearly before it spills into a map: quantized scores (§3.3) leave a
// handful, and a scan of a few 16-byte keys is several times faster than
// hashing one.
const prefixListMax = 32

// prefixCounts counts valid machines by truncated key: a short list, or a
// map once it holds more than prefixListMax distinct keys (unquantized
// scores). A key whose count drops to zero is removed.
type prefixCounts struct {
	list []prefixCount
	m    map[key]int32
}

type prefixCount struct {
	k key
	n int32
}

// get is the count of k.
func (pc *prefixCounts) get(k key) int32 {
	if pc.m != nil {
		return pc.m[k]
	}
	for i := range pc.list {
		if pc.list[i].k == k {
			return pc.list[i].n
		}
	}
	return 0
}

// add adds d to the count of k.
func (pc *prefixCounts) add(k key, d int32) {
	if pc.m != nil {
		if c := pc.m[k] + d; c == 0 {
			delete(pc.m, k)
		} else {
			pc.m[k] = c
		}
		return
	}
	for i := range pc.list {
		if pc.list[i].k == k {
			if pc.list[i].n += d; pc.list[i].n == 0 {
				last := len(pc.list) - 1
				pc.list[i] = pc.list[last]
				pc.list = pc.list[:last]
			}
			return
		}
	}
	if d == 0 {
		return
	}
	if len(pc.list) < prefixListMax {
		pc.list = append(pc.list, prefixCount{k, d})
		return
	}
	pc.m = make(map[key]int32, 2*len(pc.list))
	for _, e := range pc.list {
		pc.m[e.k] = e.n
	}
	pc.m[k] = d
	pc.list = nil
}

// evaluation is a RuleEvaluation object (§5.2.2): the evaluation result
// (sorted valid machines) for one trait vector, with the rule objects it
// was built from.
type evaluation struct {
	global     GlobalRule
	traits     Traits
	validators []MachineValidator
	prefs      []MachinePreference
	cells      []*cell // by cluster; nil until a request needs that cluster
	// Rebuilds counts cells built from scratch (new, or fallen behind the
	// journal).
	Rebuilds int64
	// fresh is the agent clock when the evaluation was last used or
	// refreshed: background refresh serves the stalest first. used is the
	// clock when a request last used it: background refresh skips an
	// evaluation unused for longer than RefreshAge requests (it catches up
	// from the journal, or rebuilds, when next used).
	fresh, used uint64
	// refreshed is the agent's refresh call that last refreshed it.
	refreshed uint64
	// caughtUp and idleUp count the machines cell re-evaluated from the
	// journal on a decision's and on the background refresh's account
	// (Protean.CellUpdates), idleNs the nanoseconds the latter took
	// (Protean.IdleUpkeep).
	caughtUp, idleUp, idleNs int64
	// tabs and slot place its cells' machine statuses in the engine's
	// shared tables (nil: each cell has a table of its own).
	tabs *statusTables
	slot int
	// outcomes, when not nil, counts update's outcomes
	// (Protean.CellUpdateOutcomes).
	outcomes *UpdateOutcomes
}

// newEvaluation returns an evaluation whose cells keep their statuses in
// slot of tabs (tabs nil: in tables of their own).
func newEvaluation(t Traits, validators []MachineValidator, prefs []MachinePreference, global GlobalRule, clusters int, tabs *statusTables, slot int) *evaluation {
	return &evaluation{traits: t, validators: validators, prefs: prefs, global: global, cells: make([]*cell, clusters), tabs: tabs, slot: slot}
}

// eval computes a machine's status.
func (e *evaluation) eval(m int32) mstatus {
	for i, v := range e.validators {
		if !v.IsValid(m) {
			return mstatus{failed: int8(i)}
		}
	}
	st := mstatus{valid: true, failed: -1}
	for i, p := range e.prefs {
		st.k[i] = clampScore(p.Score(m))
	}
	return st
}

// cell returns cluster c's cell brought up to date with the journal, and
// whether it was already materialized (a hit at this level). The changes
// up to the cell's refresh mark are applied first, on the background
// refresh's account (idleUp, idleNs), then the rest on the reader's
// (caughtUp); a machine whose latest change is past the mark is applied
// once, in the second part. A cell that fell behind the journal's log is
// rebuilt, on the reader's account.
func (e *evaluation) cell(env *Env, c int32) (*cell, bool) {
	cl := e.cells[c]
	j := env.State.Journal
	if cl == nil {
		cl = e.build(env, c)
		e.cells[c] = cl
		return cl, false
	}
	account := &e.caughtUp
	apply := func(m int32) {
		*account++
		if e.update(env, cl, m) {
			cl.markHead(int(env.Inv.Machines[m].RackLocal), dirtyScore)
		}
	}
	ok := true
	if cl.mark.pos > cl.cursor.pos {
		// The background refresh's share, timed apart.
		t0 := time.Now()
		account = &e.idleUp
		ok = j.ChangedUntil(c, &cl.cursor, cl.mark, apply)
		e.idleNs += int64(time.Since(t0))
		account = &e.caughtUp
	}
	// Fell behind the log: rebuilt below, on the reader's account.
	ok = ok && j.Changed(c, &cl.cursor, apply)
	cl.flushHeads(env, e)
	if !ok {
		cl = e.build(env, c)
		e.cells[c] = cl
		return cl, false
	}
	return cl, true
}

// build evaluates every machine of cluster c and sorts each rack.
func (e *evaluation) build(env *Env, c int32) *cell {
	e.Rebuilds++
	inv := env.Inv
	ci := &inv.Clusters[c]
	s := len(e.prefs) + 1
	cl := &cell{cluster: c, cursor: env.State.Journal.Head(c), s: s,
		racks: make([][]int32, len(ci.Racks)), runs: make([]int32, len(ci.Racks)), rejected: make([]int32, len(e.validators)),
		prefix: make([]prefixCounts, len(e.prefs))}
	if e.tabs != nil {
		cl.tab, cl.slot = e.tabs.table(c), e.slot
	} else {
		cl.tab = &statusTable{rows: make([]int8, len(ci.Machines)), stride: 1}
	}
	sorted := make([][]entry, len(ci.Racks))
	for _, m := range ci.Machines {
		st := e.eval(m)
		mc := &inv.Machines[m]
		*cl.st(mc.Local) = st.failed
		if st.valid {
			sorted[mc.RackLocal] = append(sorted[mc.RackLocal], entry{st.k, m})
			cl.valid++
			cl.count(&st.k, 1)
		} else {
			cl.rejected[st.failed]++
		}
	}
	cl.isDirty = make([]uint8, len(ci.Racks))
	cl.heads = make([]rackHead, len(ci.Racks))
	cl.heap = make([]int32, len(ci.Racks))
	cl.hpos = make([]int32, len(ci.Racks))
	for i, r := range sorted {
		sort.Slice(r, func(i, j int) bool { return entryLess(&r[i], &r[j]) })
		if len(r) > 0 {
			flat := make([]int32, len(r)*s)
			for j := range r {
				setEnt(flat, s, j, &r[j].k, r[j].m)
			}
			cl.racks[i] = flat
		}
		cl.runs[i] = -1
		cl.heap[i], cl.hpos[i] = int32(i), int32(i)
		if len(r) > 0 {
			cl.heads[i] = rackHead{ok: true, k: r[0].k}
			if e.global != nil {
				cl.heads[i].g = e.global.ScoreRack(env, e.traits, ci.Racks[i])
			}
		}
	}
	for i := len(cl.heap)/2 - 1; i >= 0; i-- {
		cl.down(i)
	}
	return cl
}

// update re-evaluates machine m: remove its old entry, insert the new one
// (a shift within its rack, never a re-sort), and mark its rack's head for
// the flush that ends the catch-up (flushHeads). When m's entries did not
// change it marks nothing and returns true: only the rack's global score
// may have changed, which the caller marks (dirtyScore) or finds
// unchanged. A valid machine's old key is read from its entry, found by
// its machine id in its rack.
func (e *evaluation) update(env *Env, cl *cell, m int32) (scoreOnly bool) {
	mc := &env.Inv.Machines[m]
	rl := int(mc.RackLocal)
	ost := cl.st(mc.Local)
	oldFailed := *ost
	st := e.eval(m)
	out := e.outcomes
	if oldFailed >= 0 && !st.valid {
		if oldFailed != st.failed {
			cl.rejected[oldFailed]--
			cl.rejected[st.failed]++
			*ost = st.failed
			if out != nil {
				out.RejectedOther++
			}
		} else if out != nil {
			out.StillRejected++
		}
		return true
	}
	rack, s := cl.racks[rl], cl.s
	old := mstatus{failed: oldFailed}
	i := -1
	if oldFailed < 0 {
		old.valid = true
		if i = findEntry(rack, s, m); i >= 0 {
			old.k = entKey(rack, s, i)
		}
		if st.valid && old.k == st.k {
			if out != nil {
				out.Unchanged++
			}
			return true
		}
	}
	if out != nil {
		switch {
		case old.valid && st.valid:
			out.Moved++
		case old.valid:
			out.BecameInvalid++
		default:
			out.BecameValid++
		}
	}
	switch {
	case old.valid && st.valid:
		// The entry moves within its rack, toward its new place (the
		// neighbours it passes are the only entries that move).
		if i >= 0 {
			moveEntry(rack, s, i, &st.k, m)
		}
	case old.valid:
		if i >= 0 {
			copy(rack[i*s:], rack[(i+1)*s:])
			rack = rack[:len(rack)-s]
		}
		cl.valid--
		cl.rejected[st.failed]++
	default: // becomes valid (both invalid returned above)
		cl.rejected[old.failed]--
		i := searchEntry(rack, s, &st.k, m)
		rack = append(rack, blankEntry[:s]...)
		copy(rack[(i+1)*s:], rack[i*s:])
		setEnt(rack, s, i, &st.k, m)
		cl.valid++
	}
	// Prefix counts change only from the first score that differs.
	for n := range cl.prefix {
		if old.valid && st.valid && old.k.prefixEq(&st.k, n+1) {
			continue
		}
		if old.valid {
			cl.bump(n, &old.k, -1)
		}
		if st.valid {
			cl.bump(n, &st.k, 1)
		}
	}
	cl.racks[rl] = rack
	cl.runs[rl] = -1
	*ost = st.failed
	cl.markHead(rl, dirtyEntries)
	return false
}

// blankEntry is appended to make room for an entry.
var blankEntry [maxPrefs + 1]int32

// findEntry is the position of machine m's entry in a rack of stride s, or
// -1: a scan of the rack's entries in order, which reads the few cache
// lines of a rack once, in the order the processor prefetches them.
func findEntry(rack []int32, s int, m int32) int {
	for i, j := 0, s-1; j < len(rack); i, j = i+1, j+s {
		if rack[j] == m {
			return i
		}
	}
	return -1
}

// moveEntry gives the entry at position i of a sorted rack of stride s the
// new value (k, m), m its machine, and restores the order, shifting only
// the entries between its old and its new position. The new position is
// searched outward from i (a step of 1, 2, 4, … then a binary search within
// the last step), so a small change of score reads only the entries near i.
func moveEntry(rack []int32, s, i int, k *key, m int32) {
	n := len(rack) / s
	switch {
	case i > 0 && entCmp(rack, s, i-1, k, m) > 0:
		// Moves left: find the first j < i with rack[j] > x.
		hi, step := i-1, 1 // rack[hi] > x
		lo := hi - step
		for lo >= 0 && entCmp(rack, s, lo, k, m) > 0 {
			hi, step = lo, step*2
			lo = hi - step
		}
		lo = max(lo+1, 0) // rack[lo-1] < x or lo == 0
		j := lo + searchEntry(rack[lo*s:hi*s], s, k, m)
		copy(rack[(j+1)*s:(i+1)*s], rack[j*s:i*s])
		setEnt(rack, s, j, k, m)
	case i+1 < n && entCmp(rack, s, i+1, k, m) < 0:
		// Moves right: find the last j > i with rack[j] < x.
		lo, step := i+1, 1 // rack[lo] < x
		hi := lo + step
		for hi < n && entCmp(rack, s, hi, k, m) < 0 {
			lo, step = hi, step*2
			hi = lo + step
		}
		hi = min(hi, n)                                     // rack[hi] > x or hi == n
		j := lo + searchEntry(rack[(lo+1)*s:hi*s], s, k, m) // rack[lo+1 .. j] < x
		copy(rack[i*s:j*s], rack[(i+1)*s:(j+1)*s])
		setEnt(rack, s, j, k, m)
	default:
		setEnt(rack, s, i, k, m)
	}
}

// searchEntry is the position of (k, m) in a sorted rack of stride s
// (binary search).
func searchEntry(rack []int32, s int, k *key, m int32) int {
	lo, hi := 0, len(rack)/s
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if entCmp(rack, s, mid, k, m) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// countPrefix counts the entries of a sorted rack of stride s whose first
// n scores equal k's (they form one contiguous run).
func countPrefix(rack []int32, s int, k *key, n int) int {
	size := len(rack) / s
	lo := sort.Search(size, func(i int) bool { return !prefixCmpLess(rack[i*s:], k, n, false) })
	hi := sort.Search(size, func(i int) bool { return prefixCmpLess(rack[i*s:], k, n, true) })
	return hi - lo
}

// prefixCmpLess compares the first n scores of entry e with k's: e < k, or
// with flip k < e.
func prefixCmpLess(e []int32, k *key, n int, flip bool) bool {
	for i := 0; i < n; i++ {
		if e[i] != k[i] {
			return (e[i] < k[i]) != flip
		}
	}
	return false
}

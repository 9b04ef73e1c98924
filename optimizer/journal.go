package optimizer

// Journal tracks which machines changed, with a global revision number
// that grows with every change (§5.2.4). It keeps only each machine's
// latest revision plus, per cluster, the log of (revision, machine) changes
// so that a cached object covering one cluster reads only that cluster's
// changes since the revision it last saw: the cost of an update is the
// number of machines modified, not the inventory size.
type Journal struct {
	rev        uint64
	machineRev []uint64
	logs       []clusterLog
}

type clusterLog struct {
	base    int // entries dropped from the front so far
	entries []logEntry
	limit   int
}

type logEntry struct {
	rev     uint64
	machine int32
}

// minLogLimit bounds a cluster log's length before the oldest half is
// dropped; readers that fell behind rebuild (a cache miss).
const minLogLimit = 1024

// NewJournal returns an empty journal for inv.
func NewJournal(inv *Inventory) *Journal {
	j := &Journal{machineRev: make([]uint64, len(inv.Machines)), logs: make([]clusterLog, len(inv.Clusters))}
	for c := range j.logs {
		l := 4 * len(inv.Clusters[c].Machines)
		if l < minLogLimit {
			l = minLogLimit
		}
		j.logs[c].limit = l
	}
	return j
}

// Rev is the current revision.
func (j *Journal) Rev() uint64 { return j.rev }

// Touch records that machine m of cluster c changed.
func (j *Journal) Touch(m, c int32) {
	j.rev++
	j.machineRev[m] = j.rev
	l := &j.logs[c]
	l.entries = append(l.entries, logEntry{j.rev, m})
	if len(l.entries) > l.limit {
		drop := len(l.entries) / 2
		l.entries = append(l.entries[:0], l.entries[drop:]...)
		l.base += drop
	}
}

// Cursor is a reader's position in one cluster's log.
type Cursor struct{ pos int }

// Changed calls fn once for every machine of cluster c that changed since
// the cursor, in revision order, and advances the cursor. It returns false
// (without calling fn) when the entries the cursor needs were dropped: the
// reader must rebuild.
func (j *Journal) Changed(c int32, cur *Cursor, fn func(m int32)) bool {
	return j.ChangedUntil(c, cur, j.Head(c), fn)
}

// ChangedUntil is Changed for the log entries before end only (a cursor
// at or ahead of end reads nothing): a machine whose latest change is at
// or after end is left for the next Changed, which applies it once.
func (j *Journal) ChangedUntil(c int32, cur *Cursor, end Cursor, fn func(m int32)) bool {
	l := &j.logs[c]
	if cur.pos < l.base {
		return false
	}
	if end.pos <= cur.pos {
		return true
	}
	for _, e := range l.entries[cur.pos-l.base : end.pos-l.base] {
		if j.machineRev[e.machine] == e.rev { // latest change of that machine: process once
			fn(e.machine)
		}
	}
	cur.pos = end.pos
	return true
}

// Pending is how many log entries of cluster c the cursor has not read
// (-1 if it fell behind the log).
func (j *Journal) Pending(c int32, cur Cursor) int {
	l := &j.logs[c]
	if cur.pos < l.base {
		return -1
	}
	return l.base + len(l.entries) - cur.pos
}

// Head returns a cursor at the end of cluster c's log.
func (j *Journal) Head(c int32) Cursor {
	l := &j.logs[c]
	return Cursor{pos: l.base + len(l.entries)}
}

// MachineRev is the revision of machine m's latest change (0: never
// changed): a reader that remembers it knows whether m changed since.
func (j *Journal) MachineRev(m int32) uint64 { return j.machineRev[m] }

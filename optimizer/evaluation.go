package optimizer

import "sort"

// maxPrefs bounds the machine preference rules (plus nothing else) a key holds.
const maxPrefs = 4

// key is a machine's preference scores in rule order, compared
// lexicographically: strict priority, each rule breaking only the ties the
// rules before it left (§3.3's exponentially spaced weights).
type key [maxPrefs]int64

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

type entry struct {
	k key
	m int32
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

// cell is a RuleEvaluation's state for one cluster: per rack (the cells of
// the global rule, §5.2.5) the valid machines sorted by key, kept up to date
// from the journal in M·log N for M changed machines.
type cell struct {
	cluster  int32
	cursor   Cursor
	status   []mstatus // by Machine.Local
	racks    [][]entry // by Machine.RackLocal
	valid    int32
	rejected []int32 // machines whose first failing validator is i
}

// evaluation is a RuleEvaluation object (§5.2.2): the evaluation result
// (sorted valid machines) for one trait vector, with the rule objects it
// was built from.
type evaluation struct {
	traits     Traits
	validators []MachineValidator
	prefs      []MachinePreference
	cells      []*cell // by cluster; nil until a request needs that cluster
	// Updates counts machines re-evaluated; Rebuilds counts cells built from
	// scratch (new, or fallen behind the journal).
	Updates, Rebuilds int64
}

func newEvaluation(t Traits, validators []MachineValidator, prefs []MachinePreference, clusters int) *evaluation {
	return &evaluation{traits: t, validators: validators, prefs: prefs, cells: make([]*cell, clusters)}
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
		st.k[i] = p.Score(m)
	}
	return st
}

// cell returns cluster c's cell brought up to date with the journal, and
// whether it was already materialized (a hit at this level).
func (e *evaluation) cell(env *Env, c int32) (*cell, bool) {
	cl := e.cells[c]
	j := env.State.Journal
	if cl == nil {
		cl = e.build(env, c)
		e.cells[c] = cl
		return cl, false
	}
	ok := j.Changed(c, &cl.cursor, func(m int32) { e.update(env, cl, m) })
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
	cl := &cell{cluster: c, cursor: env.State.Journal.Head(c), status: make([]mstatus, len(ci.Machines)),
		racks: make([][]entry, len(ci.Racks)), rejected: make([]int32, len(e.validators))}
	for _, m := range ci.Machines {
		st := e.eval(m)
		mc := &inv.Machines[m]
		cl.status[mc.Local] = st
		if st.valid {
			cl.racks[mc.RackLocal] = append(cl.racks[mc.RackLocal], entry{st.k, m})
			cl.valid++
		} else {
			cl.rejected[st.failed]++
		}
	}
	for _, r := range cl.racks {
		sort.Slice(r, func(i, j int) bool { return entryLess(&r[i], &r[j]) })
	}
	return cl
}

// update re-evaluates machine m: remove its old entry, insert the new one.
func (e *evaluation) update(env *Env, cl *cell, m int32) {
	e.Updates++
	mc := &env.Inv.Machines[m]
	old := cl.status[mc.Local]
	st := e.eval(m)
	if old.valid && st.valid && old.k == st.k {
		return
	}
	rack := cl.racks[mc.RackLocal]
	if old.valid {
		x := entry{old.k, m}
		i := sort.Search(len(rack), func(i int) bool { return !entryLess(&rack[i], &x) })
		if i < len(rack) && rack[i].m == m {
			rack = append(rack[:i], rack[i+1:]...)
		}
		cl.valid--
	} else {
		cl.rejected[old.failed]--
	}
	if st.valid {
		x := entry{st.k, m}
		i := sort.Search(len(rack), func(i int) bool { return !entryLess(&rack[i], &x) })
		rack = append(rack, entry{})
		copy(rack[i+1:], rack[i:])
		rack[i] = x
		cl.valid++
	} else {
		cl.rejected[st.failed]++
	}
	cl.racks[mc.RackLocal] = rack
	cl.status[mc.Local] = st
}

// refresh brings every materialized cell up to date (background update).
func (e *evaluation) refresh(env *Env) int {
	n := 0
	for c, cl := range e.cells {
		if cl != nil && env.State.Journal.Pending(int32(c), cl.cursor) != 0 {
			e.cell(env, int32(c))
			n++
		}
	}
	return n
}

// countPrefix counts the entries of a sorted rack whose first n scores
// equal k's (they form one contiguous run).
func countPrefix(rack []entry, k *key, n int) int {
	lo := sort.Search(len(rack), func(i int) bool { return !prefixLess(&rack[i].k, k, n) })
	hi := sort.Search(len(rack), func(i int) bool { return prefixLess(k, &rack[i].k, n) })
	return hi - lo
}

// prefixLess compares the first n scores.
func prefixLess(a, b *key, n int) bool {
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

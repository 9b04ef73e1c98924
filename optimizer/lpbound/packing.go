package lpbound

import (
	"fmt"
	"slices"
)

// packing is a set of machines: n[j] machines hold pattern cols[j]. Every
// packing this package returns places each item exactly once (no pattern
// holds more copies than are left to place) and respects the limits.
type packing struct {
	cols []column
	n    []int
	cost float64
	at   map[string]int // column key → index
}

// add opens t machines with pattern c.
func (pk *packing) add(m *model, c column, t int) {
	if t <= 0 || len(c.items) == 0 {
		return
	}
	if pk.at == nil {
		pk.at = map[string]int{}
	}
	k := c.key()
	if j, ok := pk.at[k]; ok {
		pk.n[j] += t
	} else {
		pk.at[k] = len(pk.cols)
		pk.cols = append(pk.cols, c)
		pk.n = append(pk.n, t)
	}
	pk.cost += float64(t) * m.bins[c.bin].cost
}

// take opens up to t machines with pattern c, as many as the items left
// (rem) and the limits (used) allow, and takes their items from rem.
func (pk *packing) take(m *model, c column, t int, rem, used []int) {
	for j, i := range c.items {
		t = min(t, rem[i]/int(c.cnt[j]))
	}
	if b := m.bins[c.bin]; b.limit > 0 {
		t = min(t, b.limit-used[c.bin])
	}
	if t <= 0 {
		return
	}
	for j, i := range c.items {
		rem[i] -= t * int(c.cnt[j])
	}
	used[c.bin] += t
	pk.add(m, c, t)
}

// trimmed opens up to n machines with pattern c, each holding only the
// items still left (rem), as the limits (used) allow; a is scratch of
// len(m.items). Machines that would be empty are not opened.
func (pk *packing) trimmed(m *model, c column, n int, rem, used []int, a []int) {
	for n > 0 {
		clear(a)
		full := true
		for x, i := range c.items {
			a[i] = min(int(c.cnt[x]), rem[i])
			full = full && a[i] == int(c.cnt[x])
		}
		t := 1
		if full { // as many untrimmed machines as the demand allows
			t = n
			for x, i := range c.items {
				t = min(t, rem[i]/int(c.cnt[x]))
			}
		}
		tc := fromCounts(c.bin, a)
		if len(tc.items) == 0 {
			return
		}
		if b := m.bins[c.bin]; b.limit > 0 && used[c.bin] >= b.limit {
			return
		}
		pk.take(m, tc, t, rem, used)
		n -= t
	}
}

func (pk *packing) merge(m *model, o packing) {
	for j, c := range o.cols {
		pk.add(m, c, o.n[j])
	}
}

// machines is the number of machines.
func (pk *packing) machines() int {
	n := 0
	for _, t := range pk.n {
		n += t
	}
	return n
}

// check verifies that pk places every item exactly once within the
// capacities and limits of m: the guard before a packing leaves the package.
func (pk *packing) check(m *model) error {
	placed := make([]int, len(m.items))
	used := make([]int, len(m.bins))
	cost := 0.0
	for j, c := range pk.cols {
		if !m.fits(c) {
			return fmt.Errorf("pattern %s does not fit bin type %q", c.key(), m.bins[c.bin].name)
		}
		for x, i := range c.items {
			placed[i] += pk.n[j] * int(c.cnt[x])
		}
		used[c.bin] += pk.n[j]
		cost += float64(pk.n[j]) * m.bins[c.bin].cost
	}
	for i, it := range m.items {
		if placed[i] != it.count {
			return fmt.Errorf("packing places %d of the %d items of type %q", placed[i], it.count, it.name)
		}
	}
	for k, b := range m.bins {
		if b.limit > 0 && used[k] > b.limit {
			return fmt.Errorf("packing uses %d machines of bin type %q, limit %d", used[k], b.name, b.limit)
		}
	}
	if d := cost - pk.cost; d > 1e-6*max(1, cost) || d < -1e-6*max(1, cost) {
		return fmt.Errorf("packing costs %g, recorded %g", cost, pk.cost)
	}
	return nil
}

// patterns lists the packing as Patterns with X the (integer) number of
// machines, in a stable order (by bin type, then pattern key).
func (pk *packing) patterns(m *model) []Pattern {
	idx := make([]int, len(pk.cols))
	for j := range idx {
		idx[j] = j
	}
	slices.SortFunc(idx, func(a, b int) int {
		ca, cb := pk.cols[a], pk.cols[b]
		if ca.bin != cb.bin {
			return ca.bin - cb.bin
		}
		return slices.Compare(keyInts(ca), keyInts(cb))
	})
	out := make([]Pattern, 0, len(idx))
	for _, j := range idx {
		out = append(out, m.pattern(pk.cols[j], float64(pk.n[j])))
	}
	return out
}

func keyInts(c column) []int32 {
	out := make([]int32, 0, 2*len(c.items))
	for j, i := range c.items {
		out = append(out, i, c.cnt[j])
	}
	return out
}

// incumbent maps a known packing (Options.Incumbent: Patterns with X the
// number of machines) onto m. It must place every item exactly once, fit
// every machine and respect the limits: it is the user's claim of a
// feasible packing (e.g. what an online allocator did), and an invalid one
// is an error, not something to repair silently.
func (m *model) incumbent(ps []Pattern) (packing, error) {
	var pk packing
	a := make([]int, len(m.items))
	for n, p := range ps {
		if len(p.Items) != len(p.Counts) {
			return pk, fmt.Errorf("%w: Options.Incumbent[%d]: %d items and %d counts", ErrInvalid, n, len(p.Items), len(p.Counts))
		}
		t := int(p.X)
		if float64(t) != p.X || t < 0 {
			return pk, fmt.Errorf("%w: Options.Incumbent[%d]: %g machines, want a whole number >= 0", ErrInvalid, n, p.X)
		}
		k, ok := m.binOf[p.Bin]
		if !ok {
			return pk, fmt.Errorf("%w: Options.Incumbent[%d]: unknown bin type %q", ErrInvalid, n, p.Bin)
		}
		clear(a)
		for j, name := range p.Items {
			i, ok := m.itemOf[name]
			if !ok || p.Counts[j] < 0 {
				return pk, fmt.Errorf("%w: Options.Incumbent[%d]: item %q (count %d) is not a type of this problem", ErrInvalid, n, name, p.Counts[j])
			}
			a[i] += p.Counts[j]
		}
		c := fromCounts(k, a)
		if len(c.items) > 0 && !m.fits(c) {
			return pk, fmt.Errorf("%w: Options.Incumbent[%d]: the pattern does not fit bin type %q", ErrInvalid, n, p.Bin)
		}
		pk.add(m, c, t)
	}
	if err := pk.check(m); err != nil {
		return pk, fmt.Errorf("%w: Options.Incumbent: %v", ErrInvalid, err)
	}
	return pk, nil
}

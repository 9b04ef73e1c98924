package lpbound

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Pattern is one machine configuration: how many items of each type one
// machine of type Bin holds. Result.Patterns lists the columns of the final
// master LP; passed back through Options.Initial they seed the next solve
// (the hourly snapshots of a replay share most VM types), matched by name.
type Pattern struct {
	Bin    string   `json:"bin"`
	Items  []string `json:"items"`
	Counts []int    `json:"counts"`
	// X is the number of machines with this pattern in the last master
	// solution (output only; ignored in Options.Initial).
	X float64 `json:"x,omitempty"`
}

// column is a pattern in model indices, items ascending.
type column struct {
	bin   int
	items []int32
	cnt   []int32
}

func (c column) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(c.bin))
	for j, i := range c.items {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(int(i)))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(c.cnt[j])))
	}
	return b.String()
}

// value is Σ π_i a_i.
func (c column) value(pi []float64) float64 {
	v := 0.0
	for j, i := range c.items {
		v += pi[i] * float64(c.cnt[j])
	}
	return v
}

// fromCounts builds a column from dense counts.
func fromCounts(bin int, a []int) column {
	c := column{bin: bin}
	for i, n := range a {
		if n > 0 {
			c.items = append(c.items, int32(i))
			c.cnt = append(c.cnt, int32(n))
		}
	}
	return c
}

func (m *model) pattern(c column, x float64) Pattern {
	p := Pattern{Bin: m.bins[c.bin].name, Items: make([]string, len(c.items)), Counts: make([]int, len(c.items)), X: x}
	for j, i := range c.items {
		p.Items[j] = m.items[i].name
		p.Counts[j] = int(c.cnt[j])
	}
	return p
}

// reuse maps patterns from an earlier solve onto m: items of unknown types
// (no longer present) are dropped and counts are clipped to the demand, both
// of which keep a machine feasible; a pattern that no longer fits (the
// item's sizes changed) or names an unknown bin type is skipped. Only a
// malformed pattern is an error.
func (m *model) reuse(ps []Pattern) ([]column, error) {
	var out []column
	a := make([]int, len(m.items))
	for n, p := range ps {
		if len(p.Items) != len(p.Counts) {
			return nil, fmt.Errorf("%w: Options.Initial[%d]: %d items and %d counts", ErrInvalid, n, len(p.Items), len(p.Counts))
		}
		k, ok := m.binOf[p.Bin]
		if !ok {
			continue
		}
		clear(a)
		for j, name := range p.Items {
			if p.Counts[j] < 0 {
				return nil, fmt.Errorf("%w: Options.Initial[%d]: item %q: count %d < 0", ErrInvalid, n, name, p.Counts[j])
			}
			if i, ok := m.itemOf[name]; ok {
				a[i] = min(a[i]+p.Counts[j], m.items[i].count)
			}
		}
		if c := fromCounts(k, a); len(c.items) > 0 && m.fits(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// fits reports whether the column fits one machine of its bin type.
func (m *model) fits(c column) bool {
	b := m.bins[c.bin]
	used := make([]float64, m.dims)
	for j, i := range c.items {
		s := m.items[i].size[c.bin]
		if s == nil {
			return false
		}
		for d := range used {
			used[d] += float64(c.cnt[j]) * s[d]
		}
	}
	return fitsIn(used, b.cap)
}

// firstFitDecreasing packs every item type that fits bin type k into
// machines of type k, item types in decreasing order of Σ_j size_j/cap_j,
// each into the first machine with room (many copies at a time), and returns
// the distinct patterns. It gives the first master a feasible, good basis.
func (m *model) firstFitDecreasing(k int) []column {
	b := m.bins[k]
	order := slices.Clone(b.fit)
	weight := func(i int) float64 {
		w := 0.0
		for j, s := range m.items[i].size[k] {
			if b.cap[j] > 0 {
				w += s / b.cap[j]
			}
		}
		return w
	}
	sort.SliceStable(order, func(x, y int) bool { return weight(order[x]) > weight(order[y]) })
	type machine struct {
		free []float64
		a    map[int]int
	}
	var open []*machine
	for _, i := range order {
		s := m.items[i].size[k]
		left := m.items[i].count
		for _, mc := range open {
			if q := maxCopies(s, mc.free, left); q > 0 {
				mc.a[i] += q
				for j := range mc.free {
					mc.free[j] -= float64(q) * s[j]
				}
				if left -= q; left == 0 {
					break
				}
			}
		}
		for left > 0 {
			mc := &machine{free: slices.Clone(b.cap), a: map[int]int{}}
			q := maxCopies(s, mc.free, left)
			if q == 0 { // cannot happen: i fits an empty machine
				break
			}
			mc.a[i] = q
			for j := range mc.free {
				mc.free[j] -= float64(q) * s[j]
			}
			left -= q
			open = append(open, mc)
		}
	}
	seen := map[string]bool{}
	var out []column
	dense := make([]int, len(m.items))
	for _, mc := range open {
		clear(dense)
		for i, q := range mc.a {
			dense[i] = q
		}
		c := fromCounts(k, dense)
		if key := c.key(); !seen[key] {
			seen[key] = true
			out = append(out, c)
		}
	}
	return out
}

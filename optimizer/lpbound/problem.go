package lpbound

import (
	"fmt"
	"math"
	"strconv"
)

// FitSlack is the absolute amount by which a pattern may exceed a capacity
// and still fit: the same ε as optimizer.Fits, so every machine the online
// allocator fills is a pattern of the LP and the bound stays below what the
// allocator achieves. It can only enlarge the pattern set, which weakens (never
// invalidates) the bound.
const FitSlack = 1e-9

// Problem is a (heterogeneous, vector) bin packing problem: cover the demand
// of every item type with machines of the bin types.
type Problem struct {
	Bins  []BinType
	Items []ItemType
}

// BinType is a machine type (SKU).
type BinType struct {
	// Name identifies the type in Patterns; "" means "#k", k its index.
	Name string
	// Capacity has one entry per resource dimension; every bin type has
	// the same number of dimensions.
	Capacity []float64
	// Cost of one machine under the MinCost objective; 0 means 1, so the
	// default objective counts machines. A negative cost needs a Limit.
	Cost float64
	// Limit is the number of machines of this type available; 0 means
	// unlimited.
	Limit int
}

// ItemType is a group of identical items (VMs of one type).
type ItemType struct {
	// Name identifies the type in Patterns; "" means "#i", i its index.
	Name string
	// Count is the number of items to place (the demand); 0 drops the type.
	Count int
	// Sizes[k] is the item's size vector on Bins[k] (the Azure packing
	// trace gives a VM's demand as a fraction of each machine type); nil
	// means the item does not fit that bin type. A single vector stands
	// for the same sizes on every bin type.
	Sizes [][]float64
}

// NewBinPacking returns the classical problem: one bin type with the given
// capacity (cost 1, unlimited) and one item type per size vector, sizes[i]
// with counts[i] copies, named "#i".
func NewBinPacking(capacity []float64, sizes [][]float64, counts []int) *Problem {
	if len(sizes) != len(counts) {
		panic("lpbound: NewBinPacking: len(sizes) != len(counts)")
	}
	p := &Problem{Bins: []BinType{{Capacity: capacity}}, Items: make([]ItemType, len(sizes))}
	for i := range sizes {
		p.Items[i] = ItemType{Count: counts[i], Sizes: [][]float64{sizes[i]}}
	}
	return p
}

// model is a validated Problem in solver form: item types with Count 0
// dropped, costs resolved, fits precomputed.
type model struct {
	dims   int
	bins   []mbin
	items  []mitem
	binOf  map[string]int // name → bin index
	itemOf map[string]int // name → model item index
	// integral: every cost is an integer, so the optimum is an integer
	// and the bound may be rounded up.
	integral bool
	// costScale is max |cost| (1 if all are 0): the unit of Tolerance.
	costScale float64
	limited   bool // some bin type has a Limit
}

type mbin struct {
	name  string
	cap   []float64
	cost  float64
	limit int   // 0: unlimited
	fit   []int // model items that fit one empty machine of this type
	// every lists the dimensions every item of fit uses (a positive
	// size): the only ones a one-dimensional bound can come from when
	// every item has a positive dual (screenBound).
	every []int
}

type mitem struct {
	name  string
	count int
	size  [][]float64 // per bin; nil if it does not fit
	// copies[k] is how many copies fit one empty machine of bin type k
	// (maxCopies without the count), kept because pricing asks it of
	// every item in every round, and an item may have hundreds of
	// dimensions (one per anti-affinity set).
	copies []int32
	// nz[k] lists the dimensions where size[k] is positive.
	nz [][]int32
	// free: fits some unlimited bin type, so limits never make it
	// infeasible.
	free bool
}

func typeName(name, prefix string, i int) string {
	if name != "" {
		return name
	}
	return prefix + strconv.Itoa(i)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fitsIn reports whether size fits capacity in every dimension (up to
// FitSlack).
func fitsIn(size, capacity []float64) bool {
	for j, s := range size {
		if s > capacity[j]+FitSlack {
			return false
		}
	}
	return true
}

// newModel validates p.
func newModel(p *Problem, obj Objective) (*model, error) {
	if p == nil || len(p.Bins) == 0 {
		return nil, fmt.Errorf("%w: no bin types", ErrInvalid)
	}
	if obj != MinCost && obj != MinCount {
		return nil, fmt.Errorf("%w: unknown objective %d", ErrInvalid, obj)
	}
	m := &model{
		dims:     len(p.Bins[0].Capacity),
		binOf:    map[string]int{},
		itemOf:   map[string]int{},
		integral: true,
	}
	if m.dims == 0 {
		return nil, fmt.Errorf("%w: bin type %q: no capacities", ErrInvalid, typeName(p.Bins[0].Name, "#", 0))
	}
	for k, b := range p.Bins {
		name := typeName(b.Name, "#", k)
		if _, dup := m.binOf[name]; dup {
			return nil, fmt.Errorf("%w: bin type %q: duplicate name", ErrInvalid, name)
		}
		m.binOf[name] = k
		if len(b.Capacity) != m.dims {
			return nil, fmt.Errorf("%w: bin type %q: %d capacities, want %d", ErrInvalid, name, len(b.Capacity), m.dims)
		}
		for j, c := range b.Capacity {
			if !finite(c) || c < 0 {
				return nil, fmt.Errorf("%w: bin type %q: capacity[%d] = %g, want a finite value >= 0", ErrInvalid, name, j, c)
			}
		}
		if b.Limit < 0 {
			return nil, fmt.Errorf("%w: bin type %q: limit %d < 0", ErrInvalid, name, b.Limit)
		}
		cost := b.Cost
		if obj == MinCount || cost == 0 {
			cost = 1
		}
		if !finite(cost) {
			return nil, fmt.Errorf("%w: bin type %q: cost %g", ErrInvalid, name, cost)
		}
		if cost < 0 && b.Limit == 0 {
			return nil, fmt.Errorf("%w: bin type %q has cost %g < 0 and no limit", ErrUnbounded, name, cost)
		}
		if cost != math.Trunc(cost) {
			m.integral = false
		}
		m.costScale = math.Max(m.costScale, math.Abs(cost))
		m.limited = m.limited || b.Limit > 0
		m.bins = append(m.bins, mbin{name: name, cap: b.Capacity, cost: cost, limit: b.Limit})
	}
	for i, it := range p.Items {
		name := typeName(it.Name, "#", i)
		if _, dup := m.itemOf[name]; dup {
			return nil, fmt.Errorf("%w: item type %q: duplicate name", ErrInvalid, name)
		}
		if it.Count < 0 {
			return nil, fmt.Errorf("%w: item type %q: count %d < 0", ErrInvalid, name, it.Count)
		}
		if len(it.Sizes) != 1 && len(it.Sizes) != len(p.Bins) {
			return nil, fmt.Errorf("%w: item type %q: %d size vectors for %d bin types (want 1 or %d)", ErrInvalid, name, len(it.Sizes), len(p.Bins), len(p.Bins))
		}
		mi := mitem{name: name, count: it.Count, size: make([][]float64, len(p.Bins))}
		fitsAny := false
		for k := range p.Bins {
			s := it.Sizes[0]
			if len(it.Sizes) > 1 {
				s = it.Sizes[k]
			}
			if s == nil {
				continue
			}
			if len(s) != m.dims {
				return nil, fmt.Errorf("%w: item type %q: %d sizes on bin type %q, want %d", ErrInvalid, name, len(s), m.bins[k].name, m.dims)
			}
			for j, v := range s {
				if !finite(v) || v < 0 {
					return nil, fmt.Errorf("%w: item type %q: size[%d] = %g on bin type %q, want a finite value >= 0", ErrInvalid, name, j, v, m.bins[k].name)
				}
			}
			if fitsIn(s, m.bins[k].cap) {
				mi.size[k] = s
				fitsAny = true
				mi.free = mi.free || m.bins[k].limit == 0
			}
		}
		if it.Count == 0 {
			continue
		}
		if !fitsAny {
			return nil, fmt.Errorf("%w: item type %q fits no bin type", ErrInfeasible, name)
		}
		m.itemOf[name] = len(m.items)
		m.items = append(m.items, mi)
	}
	if m.costScale == 0 {
		m.costScale = 1
	}
	for i, it := range m.items {
		m.items[i].copies = make([]int32, len(m.bins))
		m.items[i].nz = make([][]int32, len(m.bins))
		for k := range m.bins {
			s := it.size[k]
			if s == nil {
				continue
			}
			m.bins[k].fit = append(m.bins[k].fit, i)
			m.items[i].copies[k] = int32(maxCopies(s, m.bins[k].cap, math.MaxInt32))
			if k > 0 && it.size[k-1] != nil && &it.size[k-1][0] == &s[0] {
				m.items[i].nz[k] = m.items[i].nz[k-1] // the same sizes
				continue
			}
			var nz []int32
			for j, v := range s {
				if v > 0 {
					nz = append(nz, int32(j))
				}
			}
			m.items[i].nz[k] = nz
		}
	}
	for k := range m.bins {
		b := &m.bins[k]
		uses := make([]int, m.dims)
		for _, i := range b.fit {
			for _, j := range m.items[i].nz[k] {
				uses[j]++
			}
		}
		for j, u := range uses {
			if u == len(b.fit) {
				b.every = append(b.every, j)
			}
		}
	}
	// A quick certificate before any LP: an item type that only limited
	// bin types hold needs more machines than they have even alone.
	for _, it := range m.items {
		if it.free {
			continue
		}
		room := 0
		for k, b := range m.bins {
			if it.size[k] != nil {
				room += b.limit * maxCopies(it.size[k], b.cap, it.count)
			}
		}
		if room < it.count {
			return nil, fmt.Errorf("%w: item type %q: %d items but the limited bin types that hold it have room for %d", ErrInfeasible, it.name, it.count, room)
		}
	}
	return m, nil
}

// copiesIn is how many copies of item i fit one empty machine of bin type
// k, at most limit: maxCopies(size, capacity, limit), precomputed.
func (m *model) copiesIn(i, k, limit int) int {
	return min(int(m.items[i].copies[k]), max(limit, 0))
}

// maxCopies is how many copies of size fit in capacity, at most limit.
func maxCopies(size, capacity []float64, limit int) int {
	n := limit
	for j, s := range size {
		if s <= 0 {
			continue
		}
		q := math.Floor((capacity[j] + FitSlack) / s)
		if q < float64(n) {
			n = int(q)
		}
	}
	if n < 0 {
		return 0
	}
	return n
}

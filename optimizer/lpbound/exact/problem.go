package exact

import (
	"fmt"
	"math"
	"strconv"

	"placelab/optimizer/lpbound"
)

// MaxItems is the largest total demand (Σ Count) Solve accepts: the model
// has a column per item type, candidate machine and bin type, and past a
// few hundred items CBC cannot close the assignment formulation's gap
// anyway (see the package comment).
const MaxItems = 1000

// inst is a validated Problem in solver form: item types with Count 0
// dropped, costs resolved, fits precomputed. Validation follows lpbound's
// (same errors, same sentinels) so the two packages accept the same
// problems.
type inst struct {
	dims  int
	bins  []ibin
	items []iitem
}

type ibin struct {
	name  string
	cap   []float64
	cost  float64
	limit int // 0: unlimited
}

type iitem struct {
	name  string
	count int
	size  [][]float64 // per bin; nil if it does not fit
}

func typeName(name string, i int) string {
	if name != "" {
		return name
	}
	return "#" + strconv.Itoa(i)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fitsIn: size fits capacity in every dimension, up to lpbound.FitSlack.
func fitsIn(size, capacity []float64) bool {
	for j, s := range size {
		if s > capacity[j]+lpbound.FitSlack {
			return false
		}
	}
	return true
}

// maxCopies is how many copies of size fit in free, at most limit (the fit
// rule of fitsIn applied to the sum).
func maxCopies(size, free []float64, limit int) int {
	n := limit
	for j, s := range size {
		if s <= 0 {
			continue
		}
		if q := math.Floor((free[j] + lpbound.FitSlack) / s); q < float64(n) {
			n = int(q)
		}
	}
	return max(n, 0)
}

// newInst validates p under obj.
func newInst(p *lpbound.Problem, obj lpbound.Objective) (*inst, error) {
	if p == nil || len(p.Bins) == 0 {
		return nil, fmt.Errorf("%w: no bin types", lpbound.ErrInvalid)
	}
	if obj != lpbound.MinCost && obj != lpbound.MinCount {
		return nil, fmt.Errorf("%w: unknown objective %d", lpbound.ErrInvalid, obj)
	}
	in := &inst{dims: len(p.Bins[0].Capacity)}
	if in.dims == 0 {
		return nil, fmt.Errorf("%w: bin type %q: no capacities", lpbound.ErrInvalid, typeName(p.Bins[0].Name, 0))
	}
	seen := map[string]bool{}
	for k, b := range p.Bins {
		name := typeName(b.Name, k)
		if seen[name] {
			return nil, fmt.Errorf("%w: bin type %q: duplicate name", lpbound.ErrInvalid, name)
		}
		seen[name] = true
		if len(b.Capacity) != in.dims {
			return nil, fmt.Errorf("%w: bin type %q: %d capacities, want %d", lpbound.ErrInvalid, name, len(b.Capacity), in.dims)
		}
		for j, c := range b.Capacity {
			if !finite(c) || c < 0 {
				return nil, fmt.Errorf("%w: bin type %q: capacity[%d] = %g, want a finite value >= 0", lpbound.ErrInvalid, name, j, c)
			}
		}
		if b.Limit < 0 {
			return nil, fmt.Errorf("%w: bin type %q: limit %d < 0", lpbound.ErrInvalid, name, b.Limit)
		}
		cost := b.Cost
		if obj == lpbound.MinCount || cost == 0 {
			cost = 1
		}
		if !finite(cost) {
			return nil, fmt.Errorf("%w: bin type %q: cost %g", lpbound.ErrInvalid, name, cost)
		}
		if cost < 0 && b.Limit == 0 {
			return nil, fmt.Errorf("%w: bin type %q has cost %g < 0 and no limit", lpbound.ErrUnbounded, name, cost)
		}
		in.bins = append(in.bins, ibin{name: name, cap: b.Capacity, cost: cost, limit: b.Limit})
	}
	clear(seen)
	total := 0
	for i, it := range p.Items {
		name := typeName(it.Name, i)
		if seen[name] {
			return nil, fmt.Errorf("%w: item type %q: duplicate name", lpbound.ErrInvalid, name)
		}
		seen[name] = true
		if it.Count < 0 {
			return nil, fmt.Errorf("%w: item type %q: count %d < 0", lpbound.ErrInvalid, name, it.Count)
		}
		if len(it.Sizes) != 1 && len(it.Sizes) != len(p.Bins) {
			return nil, fmt.Errorf("%w: item type %q: %d size vectors for %d bin types (want 1 or %d)", lpbound.ErrInvalid, name, len(it.Sizes), len(p.Bins), len(p.Bins))
		}
		ii := iitem{name: name, count: it.Count, size: make([][]float64, len(p.Bins))}
		fitsAny := false
		for k := range p.Bins {
			s := it.Sizes[0]
			if len(it.Sizes) > 1 {
				s = it.Sizes[k]
			}
			if s == nil {
				continue
			}
			if len(s) != in.dims {
				return nil, fmt.Errorf("%w: item type %q: %d sizes on bin type %q, want %d", lpbound.ErrInvalid, name, len(s), in.bins[k].name, in.dims)
			}
			for j, v := range s {
				if !finite(v) || v < 0 {
					return nil, fmt.Errorf("%w: item type %q: size[%d] = %g on bin type %q, want a finite value >= 0", lpbound.ErrInvalid, name, j, v, in.bins[k].name)
				}
			}
			if fitsIn(s, in.bins[k].cap) {
				ii.size[k] = s
				fitsAny = true
			}
		}
		if it.Count == 0 {
			continue
		}
		if !fitsAny {
			return nil, fmt.Errorf("%w: item type %q fits no bin type", lpbound.ErrInfeasible, name)
		}
		total += it.Count
		in.items = append(in.items, ii)
	}
	if total > MaxItems {
		return nil, fmt.Errorf("%w: %d items; the exact solver takes at most %d", lpbound.ErrInvalid, total, MaxItems)
	}
	return in, nil
}

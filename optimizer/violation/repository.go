package violation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Repository is the set 𝒟 of demand curves of past tenants (§5.1), kept both
// in full and compressed (§5.3), indexed by tenant class and lifetime so that
// the eligible set 𝒟(db) of Algorithm 1 is a prefix plus a filter.
//
// A Repository is immutable after NewRepository and safe for concurrent use.
type Repository struct {
	curves []Curve
	models []Model
	recs   []rec
	raw    []Vec // max of each full curve, for the §5.1 max-demand condition
	step   time.Duration

	classOf    map[string]int
	classNames []string
	byClass    []order // per class, curves by lifetime descending
	all        order   // every curve by lifetime descending
	initial    [][NumResources][]float64
}

// rec is the hot, evaluation-ready form of one Model: every resource as
// (i, slope, g, m) so that demand(δ) = δ ≥ g ? m : i + slope·δ (for CPU
// i = m = U90 and g = 0). Single precision keeps it to 68 bytes, a cache
// line; sums are in double precision.
type rec struct {
	l    int32
	gmax int32 // max_r g[r]: from δ = gmax on the curve is flat
	g    [NumResources]int32
	i, s vec32
	m    vec32
	peak vec32 // demand at δ = L−1 (rounded up): the model's maximum
}

type vec32 [NumResources]float32

func (v vec32) vec() Vec { return Vec{float64(v[0]), float64(v[1]), float64(v[2])} }

func (c *rec) at(r int, delta int32) float64 {
	if delta >= c.g[r] {
		return float64(c.m[r])
	}
	return float64(c.i[r]) + float64(c.s[r])*float64(delta)
}

// order lists curve indices by lifetime descending (ties by index) with
// their lifetimes and running maxima of the model peaks, so that the curves
// with L > age are a prefix found by binary search and the largest peak of
// any prefix is one lookup.
type order struct {
	idx     []int32
	life    []int32
	prefMax []Vec
}

// outliving returns how many curves of the order have L > age.
func (o *order) outliving(age int) int {
	return sort.Search(len(o.life), func(i int) bool { return int(o.life[i]) <= age })
}

// NewRepository compresses the curves and indexes them. The slice is kept,
// not copied; do not modify it afterwards. Errors wrap ErrEmpty, ErrCurve
// (naming the curve's index and ID) or ErrStep.
func NewRepository(curves []Curve) (*Repository, error) {
	if len(curves) == 0 {
		return nil, fmt.Errorf("%w: repository", ErrEmpty)
	}
	if len(curves) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d curves is more than a repository indexes", ErrCurve, len(curves))
	}
	p := &Repository{
		curves:  curves,
		models:  make([]Model, len(curves)),
		recs:    make([]rec, len(curves)),
		raw:     make([]Vec, len(curves)),
		step:    curves[0].Step,
		classOf: map[string]int{},
	}
	var members [][]int32
	for i := range curves {
		c := &curves[i]
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("curve %d: %w", i, err)
		}
		if c.Step != p.step {
			return nil, fmt.Errorf("%w: curve %d (%q) has step %v, curve 0 has %v", ErrStep, i, c.ID, c.Step, p.step)
		}
		p.models[i] = Compress(*c)
		p.recs[i] = newRec(p.models[i])
		p.raw[i] = c.Peak()
		k, ok := p.classOf[c.Class]
		if !ok {
			k = len(p.classNames)
			p.classOf[c.Class] = k
			p.classNames = append(p.classNames, c.Class)
			members = append(members, nil)
			p.initial = append(p.initial, [NumResources][]float64{})
		}
		members[k] = append(members[k], int32(i))
		for r := range NumResources {
			p.initial[k][r] = append(p.initial[k][r], c.At(Resource(r), 0))
		}
	}
	all := make([]int32, len(curves))
	for i := range all {
		all[i] = int32(i)
	}
	p.all = p.newOrder(all)
	p.byClass = make([]order, len(members))
	for k, m := range members {
		p.byClass[k] = p.newOrder(m)
		for r := range NumResources {
			slices.Sort(p.initial[k][r])
		}
	}
	return p, nil
}

func newRec(m Model) rec {
	c := rec{l: int32(m.Lifetime)}
	c.i[CPU], c.m[CPU] = float32(m.CPU90), float32(m.CPU90)
	for _, x := range []struct {
		r Resource
		g Growth
	}{{Memory, m.Memory}, {Disk, m.Disk}} {
		c.i[x.r], c.m[x.r], c.g[x.r] = float32(x.g.I), float32(x.g.M), int32(x.g.G)
		if x.g.G > 0 {
			c.s[x.r] = float32((x.g.M - x.g.I) / float64(x.g.G))
		}
	}
	for r := range NumResources {
		// The peak bounds sums of at(), so it must not round below it.
		p := c.at(r, c.l-1)
		c.peak[r] = float32(p)
		if float64(c.peak[r]) < p {
			c.peak[r] = math.Nextafter32(c.peak[r], float32(math.Inf(1)))
		}
		c.gmax = max(c.gmax, c.g[r])
	}
	return c
}

func (p *Repository) newOrder(idx []int32) order {
	slices.SortStableFunc(idx, func(a, b int32) int {
		return cmp.Or(cmp.Compare(p.recs[b].l, p.recs[a].l), cmp.Compare(a, b))
	})
	o := order{idx: idx, life: make([]int32, len(idx)), prefMax: make([]Vec, len(idx))}
	var run Vec
	for j, i := range idx {
		o.life[j] = p.recs[i].l
		run = run.Max(p.recs[i].peak.vec())
		o.prefMax[j] = run
	}
	return o
}

// Len is |𝒟|.
func (p *Repository) Len() int { return len(p.curves) }

// Step is the sampling interval shared by the curves.
func (p *Repository) Step() time.Duration { return p.step }

// Classes lists the tenant classes in order of first appearance.
func (p *Repository) Classes() []string { return slices.Clone(p.classNames) }

// Curve returns curve i as given to NewRepository.
func (p *Repository) Curve(i int) *Curve { return &p.curves[i] }

// Model returns the compressed form of curve i.
func (p *Repository) Model(i int) Model { return p.models[i] }

// Eligible returns 𝒟(db) of §5.1 for a tenant of the class that has been
// placed age steps ago and whose demand so far peaked at observedMax: the
// curves of that class with lifetime L > age (the trace still covers the
// tenant's current step) and, for every resource r, a maximum demand ≥
// observedMax_r. The indices are ordered by lifetime descending. An unknown
// class or no match yields nil; Algorithm 1 then relaxes the conditions
// (see ProbViolation).
func (p *Repository) Eligible(class string, age int, observedMax Vec) []int {
	k, ok := p.classOf[class]
	if !ok {
		return nil
	}
	var out []int
	o := &p.byClass[k]
	for _, i := range o.idx[:o.outliving(age)] {
		if p.raw[i].AllAtLeast(observedMax) {
			out = append(out, int(i))
		}
	}
	return out
}

// InitialDemand is \overline{usage}_{db,0} of §6: the q-quantile (nearest
// rank, 0 < q ≤ 1) over the class's curves of their first sample, per
// resource. §8.2 tries the 50th to 99th percentiles. An unknown class uses
// the whole repository.
func (p *Repository) InitialDemand(class string, q float64) Vec {
	var v Vec
	k, ok := p.classOf[class]
	for r := range NumResources {
		var s []float64
		if ok {
			s = p.initial[k][r]
		} else {
			for k := range p.initial {
				s = append(s, p.initial[k][r]...)
			}
			slices.Sort(s)
		}
		j := int(math.Ceil(q*float64(len(s)))) - 1
		v[r] = s[min(max(j, 0), len(s)-1)]
	}
	return v
}

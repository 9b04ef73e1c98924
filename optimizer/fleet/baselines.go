package fleet

import (
	"cmp"
	"math"
	"slices"

	"github.com/lanl/clp"

	"placelab/optimizer/lpbound"
)

// Problem.Dims[0] is CPU and Problem.Dims[1] memory: the order Karpenter
// sorts pods by.

// pods lists the placeable pods, one group index per pod, sorted by CPU
// then memory, descending (ties by group, so a group's pods are together).
func (pr *prepared) pods() []int {
	p := pr.p
	var gs []int
	for i := range p.Groups {
		if pr.place[i] {
			gs = append(gs, i)
		}
	}
	dim := func(g, j int) float64 {
		if j < len(p.Dims) {
			return p.Groups[g].Demand[j]
		}
		return 0
	}
	slices.SortStableFunc(gs, func(a, b int) int {
		if c := cmp.Compare(dim(b, 0), dim(a, 0)); c != 0 {
			return c
		}
		return cmp.Compare(dim(b, 1), dim(a, 1))
	})
	var out []int
	for _, g := range gs {
		for range p.Groups[g].Count {
			out = append(out, g)
		}
	}
	return out
}

// claim is an open node of a heuristic: what it holds and the types that
// can still be it.
type claim struct {
	types  []int
	env    []float64 // per dimension, the most any remaining type offers
	used   []float64
	counts map[int]int // group → pods
	anti   map[int]int
	order  []int // groups in arrival order
}

func (pr *prepared) newClaim(types []int) *claim {
	c := &claim{types: types, used: make([]float64, len(pr.p.Dims)), counts: map[int]int{}, anti: map[int]int{}}
	c.envelope(pr)
	return c
}

func (c *claim) envelope(pr *prepared) {
	c.env = make([]float64, len(pr.p.Dims))
	for _, k := range c.types {
		for j, x := range pr.free[k] {
			c.env[j] = max(c.env[j], x)
		}
	}
}

// canTake: the claim's anti-affinity allows one more pod of g and some
// remaining type allowed for g holds it on top of what the claim holds.
func (pr *prepared) canTake(c *claim, g int) bool {
	gr := &pr.p.Groups[g]
	if gr.AntiKey >= 0 && c.anti[gr.AntiKey] >= pr.antiCap[gr.AntiKey] {
		return false
	}
	for j, x := range gr.Demand {
		if c.used[j]+x > c.env[j]+fitSlack {
			return false
		}
	}
	for _, k := range c.types {
		if pr.allowed[g][k] && pr.fitsOn(c.used, gr.Demand, k) {
			return true
		}
	}
	return false
}

func (pr *prepared) fitsOn(used, d []float64, k int) bool {
	for j, x := range d {
		if used[j]+x > pr.free[k][j]+fitSlack {
			return false
		}
	}
	return true
}

func (pr *prepared) take(c *claim, g int) {
	gr := &pr.p.Groups[g]
	keep := c.types[:0]
	for _, k := range c.types {
		if pr.allowed[g][k] && pr.fitsOn(c.used, gr.Demand, k) {
			keep = append(keep, k)
		}
	}
	c.types = keep
	for j, x := range gr.Demand {
		c.used[j] += x
	}
	if c.counts[g] == 0 {
		c.order = append(c.order, g)
	}
	c.counts[g]++
	if gr.AntiKey >= 0 {
		c.anti[gr.AntiKey]++
	}
	c.envelope(pr)
}

func (c *claim) node(k int) Node {
	n := Node{Type: k}
	for _, g := range c.order {
		n.Groups = append(n.Groups, g)
		n.Counts = append(n.Counts, c.counts[g])
	}
	return n
}

// karpenter is the Karpenter-style fleet (see the package comment): pods
// by CPU then memory descending, each joining the first open claim some
// remaining type still fits, else a new claim with every type that fits
// it; each claim launches its cheapest remaining type. A claim that
// refused a pod refuses every later pod of the same group (what it holds
// only grows and its types only shrink), so a group's pods resume the scan
// where the previous one joined.
func (pr *prepared) karpenter() Fleet {
	p := pr.p
	var claims []*claim
	prev, from := -1, 0
	for _, g := range pr.pods() {
		if g != prev {
			prev, from = g, 0
		}
		joined := false
		for ci := from; ci < len(claims); ci++ {
			if pr.canTake(claims[ci], g) {
				pr.take(claims[ci], g)
				from, joined = ci, true
				break
			}
		}
		if joined {
			continue
		}
		var types []int
		for k := range p.Types {
			if pr.allowed[g][k] {
				types = append(types, k)
			}
		}
		c := pr.newClaim(types)
		pr.take(c, g)
		claims = append(claims, c)
		from = len(claims) - 1
	}
	f := Fleet{Nodes: []Node{}}
	for _, c := range claims {
		best := c.types[0]
		for _, k := range c.types[1:] {
			if p.Types[k].Price < p.Types[best].Price {
				best = k
			}
		}
		f.Nodes = append(f.Nodes, c.node(best))
	}
	// Karpenter knows no limits: a fleet over a type's limit is no fleet.
	per := map[int]int{}
	for _, n := range f.Nodes {
		per[n.Type]++
		if l := p.Types[n.Type].Limit; l > 0 && per[n.Type] > l {
			return Fleet{Nodes: []Node{}}
		}
	}
	f.Cost = f.cost(p)
	return f
}

// bestSingle is the cheapest fleet of one type: first-fit decreasing on
// each type that allows every placeable group, in order of the type's
// volume bound, until that bound reaches the best fleet found.
func (pr *prepared) bestSingle(kept []int) (Fleet, string) {
	p := pr.p
	total := make([]float64, len(p.Dims))
	antiTotal := map[int]int{}
	for i, g := range p.Groups {
		if !pr.place[i] {
			continue
		}
		for j, x := range g.Demand {
			total[j] += float64(g.Count) * x
		}
		if g.AntiKey >= 0 {
			antiTotal[g.AntiKey] += g.Count
		}
	}
	type cand struct {
		k  int
		lb float64
	}
	var cands []cand
	for _, k := range kept {
		all := true
		for i := range p.Groups {
			if pr.place[i] && !pr.allowed[i][k] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		n := 1.0
		for j, x := range total {
			if x > 0 && pr.free[k][j] > 0 {
				n = max(n, math.Ceil(x/pr.free[k][j]-1e-9))
			}
		}
		for key, c := range antiTotal {
			n = max(n, math.Ceil(float64(c)/float64(pr.antiCap[key])))
		}
		if l := p.Types[k].Limit; l > 0 && n > float64(l) {
			continue
		}
		cands = append(cands, cand{k, n * p.Types[k].Price})
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.lb, b.lb) })
	best := Fleet{Nodes: []Node{}}
	bestType := ""
	order := pr.pods()
	for _, c := range cands {
		if len(best.Nodes) > 0 && c.lb >= best.Cost {
			break
		}
		f, ok := pr.firstFit(order, c.k, best)
		if ok && (len(best.Nodes) == 0 || f.Cost < best.Cost) {
			best, bestType = f, p.Types[c.k].Name
		}
	}
	return best, bestType
}

// firstFit packs the pods in order on nodes of type k, each on the first
// node it fits; it gives up (false) once it costs more than bound, or
// exceeds the type's limit.
func (pr *prepared) firstFit(order []int, k int, bound Fleet) (Fleet, bool) {
	p := pr.p
	var nodes []*claim
	price := p.Types[k].Price
	prev, from := -1, 0
	for _, g := range order {
		if g != prev {
			prev, from = g, 0
		}
		placed := false
		for ni := from; ni < len(nodes); ni++ {
			if pr.canTake(nodes[ni], g) {
				pr.take(nodes[ni], g)
				from, placed = ni, true
				break
			}
		}
		if placed {
			continue
		}
		if len(bound.Nodes) > 0 && float64(len(nodes)+1)*price >= bound.Cost {
			return Fleet{}, false
		}
		if l := p.Types[k].Limit; l > 0 && len(nodes) >= l {
			return Fleet{}, false
		}
		c := pr.newClaim([]int{k})
		pr.take(c, g)
		nodes = append(nodes, c)
		from = len(nodes) - 1
	}
	f := Fleet{Nodes: make([]Node, 0, len(nodes))}
	for _, c := range nodes {
		f.Nodes = append(f.Nodes, c.node(k))
	}
	f.Cost = f.cost(p)
	return f, true
}

// volumeBound is the volume bound over the kept types, min Σ c_k x_k s.t.
// Σ_k free_kd x_k ≥ Σ_i count_i demand_id (x_k ≤ L_k), solved by Clp and
// turned into a Lagrangian bound from its duals (valid for any duals ≥ 0).
func (pr *prepared) volumeBound(kept []int) float64 {
	p := pr.p
	d := len(p.Dims)
	total := make([]float64, d)
	for i, g := range p.Groups {
		if pr.place[i] {
			for j, x := range g.Demand {
				total[j] += float64(g.Count) * x
			}
		}
	}
	mat := clp.NewPackedMatrix()
	var cb []clp.Bounds
	var obj []float64
	for _, k := range kept {
		var nz []clp.Nonzero
		for j, x := range pr.free[k] {
			if x > 0 {
				nz = append(nz, clp.Nonzero{Index: j, Value: x})
			}
		}
		mat.AppendColumn(nz)
		up := math.Inf(1)
		if l := p.Types[k].Limit; l > 0 {
			up = float64(l)
		}
		cb = append(cb, clp.Bounds{Lower: 0, Upper: up})
		obj = append(obj, p.Types[k].Price)
	}
	var rb []clp.Bounds
	for _, x := range total {
		rb = append(rb, clp.Bounds{Lower: x, Upper: math.Inf(1)})
	}
	mat.SetDimensions(d, len(kept))
	sp := clp.NewSimplex()
	sp.LoadProblem(mat, cb, obj, rb, nil)
	if sp.Primal(clp.NoValuesPass, clp.NoStartFinishOptions) != clp.Optimal {
		return 0
	}
	dual := sp.DualRowSolution()
	bins := make([]lpbound.BinType, len(kept))
	for b, k := range kept {
		bins[b] = lpbound.BinType{Cost: p.Types[k].Price, Limit: p.Types[k].Limit}
	}
	best := 0.0
	for _, sign := range []float64{1, -1} {
		y := make([]float64, d)
		P := 0.0
		for j := range y {
			y[j] = max(0, sign*dual[j])
			P += y[j] * total[j]
		}
		U := make([]float64, len(kept))
		for b, k := range kept {
			for j, x := range pr.free[k] {
				U[b] += y[j] * x
			}
		}
		if lb, inf := lpbound.LagrangianBound(P, bins, U); !inf && lb > best {
			best = lb
		}
	}
	return best
}

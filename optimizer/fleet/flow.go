package fleet

import (
	"cmp"
	"math"
	"slices"

	"github.com/lanl/clp"
)

// flowLP is the assignment relaxation of the fleet over the kept types:
//
//	min Σ_k c_k x_k
//	s.t. Σ_k y_gk ≥ n_g                        every group g  (duals π_g)
//	     Σ_g s_gd y_gk ≤ free_kd x_k            every type k, dimension d
//	     Σ_{g of key a} y_gk ≤ cap_a x_k        every type k, anti-affinity key a
//	     0 ≤ x_k ≤ L_k,  y_gk ≥ 0, y_gk = 0 where g is not allowed on k.
//
// Every fleet is a solution (x its node counts, y its pods per type), so
// its value bounds the cost from below; it is weaker than the
// configuration LP (a node may be split) but solved by Clp in one go. Its
// duals π seed column generation (lpbound.Options.Duals), whose first
// pricing round turns them into a valid bound whatever Clp's tolerances;
// its primal solution is rounded into a fleet (round).
type flowLP struct {
	kept []int
	pi   [][]float64 // two sign conventions of the demand rows' duals, per Problem group
	x    []float64   // per kept type
	y    map[[2]int]float64
	ok   bool
}

func (pr *prepared) flow(kept []int) *flowLP {
	p := pr.p
	d := len(p.Dims)
	var keys []int
	for k := range pr.antiCap {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keyRow := map[int]int{}
	var groups []int
	for i := range p.Groups {
		if pr.place[i] {
			groups = append(groups, i)
		}
	}
	// Rows: groups, then per kept type its d capacity rows and its key rows.
	rowsPer := d + len(keys)
	nRows := len(groups) + len(kept)*rowsPer
	for j, k := range keys {
		keyRow[k] = d + j
	}
	mat := clp.NewPackedMatrix()
	// Reserve room: lanl/clp grows the matrix by copying on every append.
	pairs := 0
	for _, g := range groups {
		for _, k := range kept {
			if pr.allowed[g][k] {
				pairs++
			}
		}
	}
	mat.Reserve(len(kept)+pairs, len(kept)*rowsPer+pairs*(2+d), false)
	var cb []clp.Bounds
	var obj []float64
	for b, k := range kept {
		base := len(groups) + b*rowsPer
		var nz []clp.Nonzero
		for j, x := range pr.free[k] {
			nz = append(nz, clp.Nonzero{Index: base + j, Value: -x})
		}
		for j, key := range keys {
			nz = append(nz, clp.Nonzero{Index: base + d + j, Value: -float64(pr.antiCap[key])})
		}
		mat.AppendColumn(nz)
		up := math.Inf(1)
		if l := p.Types[k].Limit; l > 0 {
			up = float64(l)
		}
		cb = append(cb, clp.Bounds{Lower: 0, Upper: up})
		obj = append(obj, p.Types[k].Price)
	}
	type yv struct{ g, b int }
	var ys []yv
	for r, g := range groups {
		gr := &p.Groups[g]
		for b, k := range kept {
			if !pr.allowed[g][k] {
				continue
			}
			base := len(groups) + b*rowsPer
			nz := []clp.Nonzero{{Index: r, Value: 1}}
			for j, x := range gr.Demand {
				if x > 0 {
					nz = append(nz, clp.Nonzero{Index: base + j, Value: x})
				}
			}
			if gr.AntiKey >= 0 {
				nz = append(nz, clp.Nonzero{Index: base + keyRow[gr.AntiKey], Value: 1})
			}
			mat.AppendColumn(nz)
			cb = append(cb, clp.Bounds{Lower: 0, Upper: math.Inf(1)})
			obj = append(obj, 0)
			ys = append(ys, yv{g, b})
		}
	}
	rb := make([]clp.Bounds, nRows)
	for r, g := range groups {
		rb[r] = clp.Bounds{Lower: float64(p.Groups[g].Count), Upper: math.Inf(1)}
	}
	for r := len(groups); r < nRows; r++ {
		rb[r] = clp.Bounds{Lower: math.Inf(-1), Upper: 0}
	}
	mat.SetDimensions(nRows, len(cb))
	sp := clp.NewSimplex()
	sp.LoadProblem(mat, cb, obj, rb, nil)
	f := &flowLP{kept: kept, y: map[[2]int]float64{}}
	if sp.Primal(clp.NoValuesPass, clp.NoStartFinishOptions) != clp.Optimal {
		return f
	}
	f.ok = true
	dual := sp.DualRowSolution()
	for _, sign := range []float64{1, -1} {
		pi := make([]float64, len(p.Groups))
		for r, g := range groups {
			pi[g] = max(0, sign*dual[r])
		}
		f.pi = append(f.pi, pi)
	}
	col := sp.PrimalColumnSolution()
	f.x = col[:len(kept)]
	for n, v := range ys {
		if y := col[len(kept)+n]; y > 1e-9 {
			f.y[[2]int{v.g, v.b}] = y
		}
	}
	return f
}

// round turns the flow LP's solution into a fleet: each group's pods
// split over the types as y says (floors, then the largest fractions),
// and each type's pods packed first-fit decreasing on nodes of that type.
func (pr *prepared) round(f *flowLP) (Fleet, bool) {
	p := pr.p
	if !f.ok {
		return Fleet{}, false
	}
	perType := make([][]int, len(f.kept)) // pods (group per pod) by kept type
	type frac struct {
		b int
		r float64
	}
	for g := range p.Groups {
		if !pr.place[g] {
			continue
		}
		left := p.Groups[g].Count
		var fr []frac
		for b := range f.kept {
			y, ok := f.y[[2]int{g, b}]
			if !ok {
				continue
			}
			n := min(left, int(math.Floor(y+1e-9)))
			for range n {
				perType[b] = append(perType[b], g)
			}
			left -= n
			fr = append(fr, frac{b, y - math.Floor(y+1e-9)})
		}
		slices.SortStableFunc(fr, func(a, b frac) int { return cmp.Compare(b.r, a.r) })
		for i := 0; left > 0; i++ {
			if len(fr) == 0 {
				return Fleet{}, false
			}
			perType[fr[i%len(fr)].b] = append(perType[fr[i%len(fr)].b], g)
			left--
		}
	}
	out := Fleet{Nodes: []Node{}}
	for b, pods := range perType {
		if len(pods) == 0 {
			continue
		}
		k := f.kept[b]
		slices.SortStableFunc(pods, func(x, y int) int {
			return cmp.Compare(pr.size(y, k), pr.size(x, k))
		})
		ff, ok := pr.firstFit(pods, k, Fleet{})
		if !ok {
			return Fleet{}, false
		}
		out.Nodes = append(out.Nodes, ff.Nodes...)
	}
	out.Cost = out.cost(p)
	for k, t := range p.Types {
		if t.Limit > 0 {
			n := 0
			for _, nd := range out.Nodes {
				if nd.Type == k {
					n++
				}
			}
			if n > t.Limit {
				return Fleet{}, false
			}
		}
	}
	return out, true
}

// size is group g's largest share of type k's free allocatable.
func (pr *prepared) size(g, k int) float64 {
	s := 0.0
	for j, x := range pr.p.Groups[g].Demand {
		if c := pr.free[k][j]; c > 0 {
			s = max(s, x/c)
		}
	}
	return s
}

package fleet

import (
	"cmp"
	"math"
	"slices"
	"time"

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
// configuration LP (a node may be split) but far smaller. Clp solves it
// by generation of its y columns and key rows within a time limit (see
// flow); the last master's duals π seed column generation
// (lpbound.Options.Duals), whose first pricing round turns any duals into
// a valid bound, so a master that stopped short still gives one; its
// primal solution is rounded into a fleet (round) and improved (improve).
//
// On bench plan's snapshot (973 groups, 287 usable types, 364 keys) the
// whole LP, every pair and row loaded at once, took 195 s to 572 s in
// Clp's primal simplex and 38 s in its dual; generated, its masters take
// a few seconds each and the bound its duals give is within 0.2% of the
// whole LP's optimum.
type flowLP struct {
	kept []int
	pi   [][]float64 // two sign conventions of the demand rows' duals, per Problem group
	x    []float64   // per kept type
	y    map[[2]int]float64
	// ok: pi, x and y are from the last master solved (x and y with no
	// artificial column); converged: that master was the whole LP.
	ok, converged bool
	rounds        int
}

func (pr *prepared) flow(kept []int, limit time.Duration) *flowLP {
	p := pr.p
	d := len(p.Dims)
	deadline := time.Now().Add(limit)
	var groups []int
	for i := range p.Groups {
		if pr.place[i] {
			groups = append(groups, i)
		}
	}
	f := &flowLP{kept: kept, y: map[[2]int]float64{}}
	if len(groups) == 0 || len(kept) == 0 {
		return f
	}
	// The LP is solved with its columns and its anti-affinity rows
	// generated: all of it at once (every group × type pair, a row per
	// type and key) took minutes. The y columns start with each group's
	// cheapest types by the share of a node it takes; a pair joins when
	// its reduced cost under the last duals is negative. A type's key row
	// joins when the last solution breaks it. Each master is a relaxation
	// of the next; the last, with no column to add and no row broken, is
	// the whole LP. An artificial column per group (at a price above any
	// fleet) keeps every master feasible.
	type pair struct{ r, b int } // group row, kept type
	inS := map[pair]bool{}
	var S []pair
	unit := func(r, b int) float64 { return p.Types[kept[b]].Price * pr.size(groups[r], kept[b]) }
	for r, g := range groups {
		var bs []int
		for b, k := range kept {
			if pr.allowed[g][k] {
				bs = append(bs, b)
			}
		}
		slices.SortStableFunc(bs, func(x, y int) int { return cmp.Compare(unit(r, x), unit(r, y)) })
		for _, b := range bs[:min(len(bs), flowSeedTypes)] {
			inS[pair{r, b}] = true
			S = append(S, pair{r, b})
		}
	}
	type keyRow struct{ b, key int }
	var R []keyRow
	inR := map[keyRow]bool{}
	big := 0.0
	for _, k := range kept {
		big = max(big, p.Types[k].Price)
	}
	big = 10*big + 1
	for round := 0; ; round++ {
		// Rows: groups, d capacity rows per kept type, then the key rows.
		nRows := len(groups) + len(kept)*d + len(R)
		rowOf := map[keyRow]int{}
		for i, kr := range R {
			rowOf[kr] = len(groups) + len(kept)*d + i
		}
		keysOf := make([][]int, len(kept)) // per type: its rows' keys
		for _, kr := range R {
			keysOf[kr.b] = append(keysOf[kr.b], kr.key)
		}
		mat := clp.NewPackedMatrix()
		mat.Reserve(len(kept)+len(S)+len(groups), len(kept)*(d+4)+len(S)*(d+2)+len(groups), false)
		var cb []clp.Bounds
		var obj []float64
		for b, k := range kept {
			var nz []clp.Nonzero
			for j, x := range pr.free[k] {
				nz = append(nz, clp.Nonzero{Index: len(groups) + b*d + j, Value: -x})
			}
			for _, key := range keysOf[b] {
				nz = append(nz, clp.Nonzero{Index: rowOf[keyRow{b, key}], Value: -float64(pr.antiCap[key])})
			}
			mat.AppendColumn(nz)
			up := math.Inf(1)
			if l := p.Types[k].Limit; l > 0 {
				up = float64(l)
			}
			cb = append(cb, clp.Bounds{Lower: 0, Upper: up})
			obj = append(obj, p.Types[k].Price)
		}
		for _, pa := range S {
			gr := &p.Groups[groups[pa.r]]
			nz := []clp.Nonzero{{Index: pa.r, Value: 1}}
			for j, x := range gr.Demand {
				if x > 0 {
					nz = append(nz, clp.Nonzero{Index: len(groups) + pa.b*d + j, Value: x})
				}
			}
			if row, ok := rowOf[keyRow{pa.b, gr.AntiKey}]; ok && gr.AntiKey >= 0 {
				nz = append(nz, clp.Nonzero{Index: row, Value: 1})
			}
			mat.AppendColumn(nz)
			cb = append(cb, clp.Bounds{Lower: 0, Upper: math.Inf(1)})
			obj = append(obj, 0)
		}
		for r := range groups {
			mat.AppendColumn([]clp.Nonzero{{Index: r, Value: 1}})
			cb = append(cb, clp.Bounds{Lower: 0, Upper: math.Inf(1)})
			obj = append(obj, big)
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
		if left := time.Until(deadline); left > 0 {
			sp.SetMaxSeconds(left.Seconds())
		} else {
			return f
		}
		if sp.Dual(clp.NoValuesPass, clp.NoStartFinishOptions) != clp.Optimal {
			return f
		}
		dual := sp.DualRowSolution()
		col := sp.PrimalColumnSolution()
		// The last solution: its duals seed column generation (any duals
		// give a valid bound there), its primal rounds to a fleet when no
		// artificial column is in it (a broken key row does not matter to
		// the rounding, which keeps anti-affinity itself).
		art := false
		for r := range groups {
			if col[len(kept)+len(S)+r] > 1e-9 {
				art = true
			}
		}
		f.pi = f.pi[:0]
		for _, sign := range []float64{1, -1} {
			pi := make([]float64, len(p.Groups))
			for r, g := range groups {
				pi[g] = max(0, sign*dual[r])
			}
			f.pi = append(f.pi, pi)
		}
		f.ok, f.rounds = !art, round+1
		f.x = slices.Clone(col[:len(kept)])
		clear(f.y)
		for n, pa := range S {
			if y := col[len(kept)+n]; y > 1e-9 {
				f.y[[2]int{groups[pa.r], pa.b}] = y
			}
		}
		// Rows the solution breaks: Σ_{g of key a} y_gk > cap_a x_k.
		perKey := map[keyRow]float64{}
		for n, pa := range S {
			if y := col[len(kept)+n]; y > 1e-9 {
				if a := p.Groups[groups[pa.r]].AntiKey; a >= 0 {
					perKey[keyRow{pa.b, a}] += y
				}
			}
		}
		var addR []keyRow
		for kr, y := range perKey {
			if !inR[kr] && y > float64(pr.antiCap[kr.key])*col[kr.b]+1e-6 {
				addR = append(addR, kr)
			}
		}
		slices.SortFunc(addR, func(a, b keyRow) int { return cmp.Or(cmp.Compare(a.b, b.b), cmp.Compare(a.key, b.key)) })
		// Columns priced out: d_j = c_j − Σ_i a_ij·dual_i.
		var addS []pair
		type cand struct {
			b  int
			rc float64
		}
		var cs []cand
		for r, g := range groups {
			gr := &p.Groups[g]
			cs = cs[:0]
			for b, k := range kept {
				if !pr.allowed[g][k] || inS[pair{r, b}] {
					continue
				}
				rc := -dual[r]
				for j, x := range gr.Demand {
					rc -= x * dual[len(groups)+b*d+j]
				}
				if row, ok := rowOf[keyRow{b, gr.AntiKey}]; ok && gr.AntiKey >= 0 {
					rc -= dual[row]
				}
				if rc < -1e-9 {
					cs = append(cs, cand{b, rc})
				}
			}
			slices.SortStableFunc(cs, func(x, y cand) int { return cmp.Compare(x.rc, y.rc) })
			for _, c := range cs[:min(len(cs), flowAddTypes)] {
				addS = append(addS, pair{r, c.b})
			}
		}
		if len(addR) == 0 && len(addS) == 0 {
			f.converged = !art
			return f
		}
		if round == flowMaxRounds {
			return f
		}
		for _, kr := range addR {
			inR[kr] = true
			R = append(R, kr)
		}
		for _, pa := range addS {
			inS[pa] = true
			S = append(S, pa)
		}
	}
}

// flowSeedTypes is how many types per group the flow LP starts with;
// flowMaxRounds bounds its rounds of generation.
const (
	flowSeedTypes = 20
	flowAddTypes  = 10
	flowMaxRounds = 200
)

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

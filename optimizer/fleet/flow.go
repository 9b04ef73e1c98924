package fleet

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"placelab/optimizer/growlp"
)

// flowLP is the assignment relaxation of the fleet over the kept types:
//
//	min Σ_k c_k x_k
//	s.t. Σ_k y_gk = n_g                        every group g  (duals π_g)
//	     Σ_g s_gd y_gk ≤ free_kd x_k            every type k, dimension d
//	     Σ_{g of key a} y_gk ≤ cap_a x_k        every type k, anti-affinity key a
//	     0 ≤ x_k ≤ L_k,  y_gk ≥ 0, y_gk = 0 where g is not allowed on k.
//
// Every fleet is a solution (x its node counts, y its pods per type), so
// its value bounds the cost from below (the demand rows are equations, not
// covers: a y at no cost would otherwise carry pods that do not exist,
// and the rounding splits y); it is weaker than the
// configuration LP (a node may be split) but far smaller. Clp solves it
// by generation of its y columns and key rows within a time limit (see
// flow); the last master's duals π seed column generation
// (lpbound.Options.Duals), whose first pricing round turns any duals into
// a valid bound, so a master that stopped short still gives one; its
// primal solution is rounded into a fleet (round) and improved (improve).
//
// On bench plan's snapshot (973 groups, 287 usable types, 364 keys) the
// whole LP, every pair and row loaded at once, took 195 s to 572 s in
// Clp's primal simplex and 38 s in its dual; generated and re-solved from
// scratch each round it took 18 rounds and 131 s (the later masters 5–13 s
// each); re-solved from the last basis (growlp), 13 rounds and 7 s, to the
// same optimum.
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
	inR := map[keyRow]bool{}
	big := 0.0
	for _, k := range kept {
		big = max(big, p.Types[k].Price)
	}
	big = 10*big + 1
	// The LP, held by Clp across rounds: rows for the groups, d capacity
	// rows per kept type, then the key rows as they join; columns x_k,
	// an artificial per group, then the y pairs as they join. Each round
	// re-solves from the last basis (growlp): the primal simplex after
	// columns joined, the dual after rows did.
	rl := make([]float64, len(groups)+len(kept)*d)
	ru := make([]float64, len(rl))
	for r, g := range groups {
		rl[r], ru[r] = float64(p.Groups[g].Count), float64(p.Groups[g].Count)
	}
	for r := len(groups); r < len(rl); r++ {
		rl[r], ru[r] = math.Inf(-1), 0
	}
	lp, err := growlp.New(rl, ru)
	if err != nil {
		return f
	}
	defer lp.Close()
	var cols []growlp.Column
	for b, k := range kept {
		c := growlp.Column{Upper: math.Inf(1), Obj: p.Types[k].Price}
		if l := p.Types[k].Limit; l > 0 {
			c.Upper = float64(l)
		}
		for j, x := range pr.free[k] {
			c.Rows, c.Values = append(c.Rows, len(groups)+b*d+j), append(c.Values, -x)
		}
		cols = append(cols, c)
	}
	for r := range groups {
		cols = append(cols, growlp.Column{Upper: math.Inf(1), Obj: big, Rows: []int{r}, Values: []float64{1}})
	}
	firstY := len(cols) // the column of S[n] is firstY+n
	rowOf := map[keyRow]int{}
	yColumn := func(pa pair) growlp.Column {
		gr := &p.Groups[groups[pa.r]]
		c := growlp.Column{Upper: math.Inf(1), Rows: []int{pa.r}, Values: []float64{1}}
		for j, x := range gr.Demand {
			if x > 0 {
				c.Rows, c.Values = append(c.Rows, len(groups)+pa.b*d+j), append(c.Values, x)
			}
		}
		if row, ok := rowOf[keyRow{pa.b, gr.AntiKey}]; ok && gr.AntiKey >= 0 {
			c.Rows, c.Values = append(c.Rows, row), append(c.Values, 1)
		}
		return c
	}
	for _, pa := range S {
		cols = append(cols, yColumn(pa))
	}
	if lp.AddColumns(cols) != nil {
		return f
	}
	rowsAdded := true // the first solve is the dual's, as a cold solve was
	for round := 0; ; round++ {
		left := time.Until(deadline)
		if left <= 0 {
			return f
		}
		lp.SetMaxSeconds(left.Seconds())
		var st growlp.Status
		if rowsAdded {
			st = lp.Dual()
		} else {
			st = lp.Primal()
		}
		if st != growlp.Optimal {
			return f
		}
		dual := lp.RowDuals()
		col := lp.ColumnSolution()
		// The last solution: its duals seed column generation (any duals
		// give a valid bound there), its primal rounds to a fleet when no
		// artificial column is in it (a broken key row does not matter to
		// the rounding, which keeps anti-affinity itself).
		art := false
		for r := range groups {
			if col[len(kept)+r] > 1e-9 {
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
			if y := col[firstY+n]; y > 1e-9 {
				f.y[[2]int{groups[pa.r], pa.b}] = y
			}
		}
		// Rows the solution breaks: Σ_{g of key a} y_gk > cap_a x_k.
		perKey := map[keyRow]float64{}
		for n, pa := range S {
			if y := col[firstY+n]; y > 1e-9 {
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
		// Key rows first, over the columns there: x_b at −cap, each y of
		// the key on b at 1; then the new columns, in those rows too.
		var rows []growlp.Row
		for _, kr := range addR {
			row := growlp.Row{Lower: math.Inf(-1), Upper: 0, Cols: []int{kr.b}, Values: []float64{-float64(pr.antiCap[kr.key])}}
			for n, pa := range S {
				if pa.b == kr.b && p.Groups[groups[pa.r]].AntiKey == kr.key {
					row.Cols, row.Values = append(row.Cols, firstY+n), append(row.Values, 1)
				}
			}
			rowOf[kr] = lp.Rows() + len(rows)
			inR[kr] = true
			rows = append(rows, row)
		}
		if lp.AddRows(rows) != nil {
			return f
		}
		cols = cols[:0]
		for _, pa := range addS {
			inS[pa] = true
			S = append(S, pa)
			cols = append(cols, yColumn(pa))
		}
		if lp.AddColumns(cols) != nil {
			return f
		}
		rowsAdded = len(rows) > 0
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
		// Node by node, the fullest fit: fewer nodes than first fit
		// where pods of many shapes must complement each other.
		if bc, ok := pr.binCentric(pods, k); ok && len(bc.Nodes) < len(ff.Nodes) {
			ff = bc
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

// binCentric packs pods (a group per pod) on nodes of type k one node at
// a time: each node takes, while any fits, the pod that leaves its free
// allocatable least (the squared norm of the room left, each dimension as
// a share of the node), the "norm-based greedy" of Panigrahy et al.,
// "Heuristics for Vector Bin Packing" (2011). Groups are tried in index
// order, so ties go to the lower group. On bench plan's snapshot it packs
// the relaxation's pods on 2–8% fewer nodes per type than first fit.
func (pr *prepared) binCentric(pods []int, k int) (Fleet, bool) {
	p := pr.p
	free := pr.free[k]
	left := map[int]int{}
	for _, g := range pods {
		left[g]++
	}
	gs := slices.Sorted(maps.Keys(left))
	total := len(pods)
	out := Fleet{Nodes: []Node{}}
	room := make([]float64, len(free))
	for total > 0 {
		if l := p.Types[k].Limit; l > 0 && len(out.Nodes) >= l {
			return Fleet{}, false
		}
		copy(room, free)
		anti := map[int]int{}
		node := Node{Type: k}
		at := map[int]int{}
		for {
			best, bs := -1, math.Inf(-1)
			for _, g := range gs {
				gr := &p.Groups[g]
				if left[g] == 0 || gr.AntiKey >= 0 && anti[gr.AntiKey] >= pr.antiCap[gr.AntiKey] || !fits(gr.Demand, room) {
					continue
				}
				s := 0.0
				for j, x := range gr.Demand {
					if free[j] > 0 {
						v := (room[j] - x) / free[j]
						s -= v * v
					}
				}
				if s > bs {
					best, bs = g, s
				}
			}
			if best < 0 {
				break
			}
			gr := &p.Groups[best]
			for j, x := range gr.Demand {
				room[j] -= x
			}
			if gr.AntiKey >= 0 {
				anti[gr.AntiKey]++
			}
			left[best]--
			total--
			if i, ok := at[best]; ok {
				node.Counts[i]++
			} else {
				at[best] = len(node.Groups)
				node.Groups = append(node.Groups, best)
				node.Counts = append(node.Counts, 1)
			}
		}
		if len(node.Groups) == 0 {
			return Fleet{}, false // a pod that fits no empty node
		}
		out.Nodes = append(out.Nodes, node)
	}
	out.Cost = out.cost(p)
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

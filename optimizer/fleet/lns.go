package fleet

import (
	"context"
	"maps"
	"slices"
	"time"
)

// Large neighbourhood search (lns): a fleet's worst nodes are taken out
// with the nodes that share their groups, and their pods are planned
// again by Solve on their own, a problem small enough for column
// generation to converge (a few dozen groups: within about 1% of its own
// bound in a second or two, where the whole snapshot's hundreds of groups
// against hundreds of types do not converge in a minute). The new nodes
// replace the old ones when they cost less.
//
// A node's waste is its price less what its pods are worth at the
// assignment relaxation's duals π (Σ_g π_g·count): over the fleet it adds
// up to the fleet's cost less the relaxation's value, so it says where the
// gap to the bound is. On bench plan's snapshot half of it sat on 18 of
// 1,219 nodes, large memory types whose CPU was full and memory half used.
// Seeds are drawn by waste; a neighbourhood grows by the most wasteful
// node sharing a group with it, up to lnsNodes nodes and lnsGroups groups.
const (
	lnsNodes  = 15
	lnsGroups = 150
	// lnsSubTime bounds one neighbourhood's Solve; lnsSubInteger its
	// integer master.
	lnsSubTime    = 2 * time.Second
	lnsSubInteger = 500 * time.Millisecond
	// lnsRounds bounds the neighbourhoods tried. Seeds go by waste, most
	// first, each at most once until a node sharing a group with it
	// changes: a search that ends before its deadline is the same from run
	// to run.
	lnsRounds = 400
	// lnsMinWaste: a node wasting less than this share of its price
	// seeds no neighbourhood.
	lnsMinWaste = 0.01
	// lnsShare of Options.TimeLimit is kept for the search when the
	// packing comes from the restricted LP (Solve).
	lnsShare = 0.5
)

// lns is the search above over kept types, with pi the relaxation's duals
// per group (nil: waste is the price), until the deadline or its counts.
// It returns f unchanged when nothing cheaper is found, and the number of
// neighbourhoods tried and improved.
func (pr *prepared) lns(ctx context.Context, f Fleet, kept []int, pi []float64, deadline time.Time) (Fleet, int, int) {
	p := pr.p
	if len(f.Nodes) == 0 {
		return f, 0, 0
	}
	nodes := slices.Clone(f.Nodes)
	waste := func(n Node) float64 {
		x := p.Types[n.Type].Price
		if pi != nil {
			for j, g := range n.Groups {
				x -= pi[g] * float64(n.Counts[j])
			}
		}
		return x
	}
	w := make([]float64, len(nodes))
	for i, n := range nodes {
		w[i] = waste(n)
	}
	// done: the node seeded a neighbourhood that saved nothing, and no
	// node sharing a group with it has changed since.
	done := make([]bool, len(nodes))
	tried, improved := 0, 0
	for tried < lnsRounds && ctx.Err() == nil {
		left := time.Until(deadline)
		if left < lnsSubTime/3 {
			break
		}
		seed := -1
		for i := range nodes {
			if !done[i] && w[i] > lnsMinWaste*p.Types[nodes[i].Type].Price && (seed < 0 || w[i] > w[seed]) {
				seed = i
			}
		}
		if seed < 0 {
			break
		}
		tried++
		byGroup := map[int][]int{}
		for i, n := range nodes {
			for _, g := range n.Groups {
				byGroup[g] = append(byGroup[g], i)
			}
		}
		in := map[int]bool{seed: true}
		groups := map[int]bool{}
		for _, g := range nodes[seed].Groups {
			groups[g] = true
		}
		// Nodes whose pods may all run on the seed's type can trade pods
		// with it even when they share no group.
		var mates []int
		for y, n := range nodes {
			ok := y != seed
			for _, g := range n.Groups {
				ok = ok && pr.allowed[g][nodes[seed].Type]
			}
			if ok {
				mates = append(mates, y)
			}
		}
		for len(in) < lnsNodes {
			next := -1
			better := func(y int) bool { return !in[y] && (next < 0 || w[y] > w[next] || w[y] == w[next] && y < next) }
			for _, g := range slices.Sorted(maps.Keys(groups)) {
				for _, y := range byGroup[g] {
					if better(y) {
						next = y
					}
				}
			}
			for _, y := range mates {
				if better(y) {
					next = y
				}
			}
			if next < 0 {
				break
			}
			fresh := 0
			for _, g := range nodes[next].Groups {
				if !groups[g] {
					fresh++
				}
			}
			if len(groups)+fresh > lnsGroups {
				break
			}
			in[next] = true
			for _, g := range nodes[next].Groups {
				groups[g] = true
			}
		}
		out, ok := pr.replan(ctx, nodes, in, kept, min(lnsSubTime, left))
		if !ok {
			done[seed] = true
			continue
		}
		improved++
		var keep []Node
		var kw []float64
		var kd []bool
		for i, n := range nodes {
			if !in[i] {
				keep, kw = append(keep, n), append(kw, w[i])
				// A node sharing a group with the new nodes may seed a
				// different neighbourhood now.
				shared := false
				for _, g := range n.Groups {
					shared = shared || groups[g]
				}
				kd = append(kd, done[i] && !shared)
			}
		}
		for _, n := range out {
			keep, kw, kd = append(keep, n), append(kw, waste(n)), append(kd, false)
		}
		nodes, w, done = keep, kw, kd
	}
	if improved == 0 {
		return f, tried, 0
	}
	g := Fleet{Nodes: nodes}
	g.Cost = g.cost(p)
	return g, tried, improved
}

// replan solves the pods of nodes[i] for i in `in` on their own (Solve
// over the kept types, each limited type to what the other nodes leave of
// it) and returns the new nodes when they cost less than the old.
func (pr *prepared) replan(ctx context.Context, nodes []Node, in map[int]bool, kept []int, limit time.Duration) ([]Node, bool) {
	p := pr.p
	count := map[int]int{}
	used := make([]int, len(p.Types))
	cur := 0.0
	for i, n := range nodes {
		if !in[i] {
			used[n.Type]++
			continue
		}
		cur += p.Types[n.Type].Price
		for j, g := range n.Groups {
			count[g] += n.Counts[j]
		}
	}
	sp := &Problem{Dims: p.Dims}
	var types []int
	for _, k := range kept {
		t := p.Types[k]
		some := false
		for g := range count {
			some = some || pr.allowed[g][k]
		}
		if !some {
			continue
		}
		if t.Limit > 0 {
			if t.Limit <= used[k] {
				continue
			}
			t.Limit -= used[k]
		}
		types = append(types, k)
		sp.Types = append(sp.Types, t)
		if p.Overhead != nil {
			sp.Overhead = append(sp.Overhead, p.Overhead[k])
		}
	}
	groups := slices.Sorted(maps.Keys(count))
	for _, g := range groups {
		gr := p.Groups[g]
		gr.Count = count[g]
		gr.Allowed = make([]bool, len(types))
		for s, k := range types {
			gr.Allowed[s] = pr.allowed[g][k]
		}
		sp.Groups = append(sp.Groups, gr)
	}
	o := DefaultOptions()
	o.TimeLimit, o.IntegerTimeLimit = limit, min(lnsSubInteger, limit/4)
	o.noLNS = true
	sub := map[int]int{}
	for s, k := range types {
		sub[k] = s
	}
	inc := &Fleet{}
	at := map[int]int{}
	for s, g := range groups {
		at[g] = s
	}
	for i, n := range nodes {
		if !in[i] {
			continue
		}
		s, ok := sub[n.Type]
		if !ok {
			inc = nil
			break
		}
		m := Node{Type: s, Counts: slices.Clone(n.Counts)}
		for _, g := range n.Groups {
			m.Groups = append(m.Groups, at[g])
		}
		inc.Nodes = append(inc.Nodes, m)
	}
	if inc != nil {
		inc.Cost = inc.cost(sp)
		o.incumbent = inc
	}
	r, err := Solve(ctx, sp, o)
	if err != nil || len(r.Unplaceable) > 0 || r.Plan.Cost >= cur-1e-9 {
		return nil, false
	}
	out := make([]Node, len(r.Plan.Nodes))
	for i, n := range r.Plan.Nodes {
		gs := make([]int, len(n.Groups))
		for j, g := range n.Groups {
			gs[j] = groups[g]
		}
		out[i] = Node{Type: types[n.Type], Groups: gs, Counts: slices.Clone(n.Counts)}
	}
	return out, true
}

// duals are the relaxation's duals per group in the sign convention in
// which Σ_g π_g·Count_g is its value (the larger of the two), nil when no
// master was solved.
func (fl *flowLP) duals(p *Problem) []float64 {
	if fl == nil || !fl.ok {
		return nil
	}
	var best []float64
	bv := 0.0
	for _, pi := range fl.pi {
		v := 0.0
		for g, x := range pi {
			v += x * float64(p.Groups[g].Count)
		}
		if best == nil || v > bv {
			best, bv = pi, v
		}
	}
	return best
}

package fleet

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Large neighbourhood search (lns): a fleet's most wasteful node is taken
// out with the nodes that share its groups or whose pods may all run on
// its type, and their pods are planned again by Solve on their own against
// every kept type: a problem of at most lnsGroups groups, where the whole
// snapshot's hundreds of groups against hundreds of types do not let
// column generation converge in a minute. The new nodes replace the old
// ones when they cost less.
//
// A node's waste is its price less what its pods are worth at the
// assignment relaxation's duals π (Σ_g π_g·count): over the fleet it adds
// up to the fleet's cost less the relaxation's value, so it says where the
// gap to the bound is. On bench plan's snapshot (a fleet of $172.62 over a
// relaxation of $165.25) 3.8 of the 7.37 of waste sat on 18 of 1,219
// nodes, large memory types whose CPU was full and memory half used; one
// of them, planned again alone, became nodes costing 24% less.
// Seeds go by waste, most first; a neighbourhood grows by the most
// wasteful node that shares a group with it or can trade pods with the
// seed, up to lnsNodes nodes and lnsGroups groups. Measured on that
// snapshot (20 s from the same fleet, one neighbourhood at a time, one
// run each): neighbourhoods of at most 60 groups
// ended at gaps of 3.4–3.6%, of 100 at 2.7–3.3%, of 150 with 2-s Solves
// at 1.97–2.50%; 300 groups with 4-s Solves did worse (3.6%); keeping only
// the relaxation's 15 types in each Solve, worse again (3.9%).
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
	// lnsWorkers bounds the neighbourhoods (with no node in common)
	// solved at once, one per CPU up to it; CBC's solves are serialized
	// process-wide (package cbc), column generation's are not.
	lnsWorkers = 4
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
	// Nodes keep their index for the whole search: a replaced node is
	// marked gone (busy for good), a new one is appended.
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
	// gone: replaced; busy: gone or in a neighbourhood being planned.
	gone := make([]bool, len(nodes))
	busy := make([]bool, len(nodes))
	// done: the node seeded a neighbourhood that saved nothing, and no
	// node sharing a group with it has changed since.
	done := make([]bool, len(nodes))
	// failed: the neighbourhoods (nodesSig) planned again for nothing.
	failed := map[string]bool{}
	limited := false
	for _, k := range kept {
		limited = limited || p.Types[k].Limit > 0
	}
	var byGroup map[int][]int // the nodes not gone, by group; nil: stale
	workers := max(1, min(runtime.GOMAXPROCS(0), lnsWorkers))
	// Up to workers neighbourhoods with no node in common are planned at
	// once, a goroutine each. Their results are taken in the order they
	// were started, and a neighbourhood starts as soon as the one before
	// it in line is taken: what is started depends only on the results
	// taken before, as with one neighbourhood at a time, and the Solves
	// fall out of step (CBC's solves are serialized, so Solves started
	// together wait for each other's integer master).
	type job struct {
		nb    nbhd
		spare bool
		out   chan []Node
	}
	var line []*job
	spareOut := false // a job in line has the limited types' spare
	tried, improved := 0, 0
	for {
		for len(line) < workers && tried < lnsRounds && ctx.Err() == nil {
			left := time.Until(deadline)
			if left < lnsSubTime/3 {
				break
			}
			if byGroup == nil {
				byGroup = map[int][]int{}
				for i, n := range nodes {
					if !gone[i] {
						for _, g := range n.Groups {
							byGroup[g] = append(byGroup[g], i)
						}
					}
				}
			}
			seed := -1
			for i := range nodes {
				if !done[i] && !busy[i] && w[i] > lnsMinWaste*p.Types[nodes[i].Type].Price && (seed < 0 || w[i] > w[seed]) {
					seed = i
				}
			}
			if seed < 0 {
				break
			}
			nb := pr.grow(nodes, w, byGroup, busy, seed)
			// A neighbourhood of the same nodes as one that saved
			// nothing is not planned again: another seed, or a change
			// beside it, often grows the same one.
			if nb.sig = nodesSig(nodes, nb.in); failed[nb.sig] {
				done[seed] = true
				continue
			}
			// Only one neighbourhood at a time may take what the limited
			// types have left; the others only their own nodes' share.
			j := &job{nb: nb, spare: !spareOut, out: make(chan []Node, 1)}
			spareOut = true
			// The Solve reads a copy of the nodes not gone: the search
			// appends to its own while it runs.
			var snap []Node
			in := map[int]bool{}
			for i, n := range nodes {
				if !gone[i] {
					if nb.in[i] {
						in[len(snap)] = true
					}
					snap = append(snap, n)
				}
			}
			for i := range nb.in {
				busy[i] = true
			}
			go func() { j.out <- pr.replan(ctx, snap, in, kept, j.spare, min(lnsSubTime, left)) }()
			line = append(line, j)
			tried++
		}
		if len(line) == 0 {
			break
		}
		j := line[0]
		line = line[1:]
		out := <-j.out
		if j.spare {
			spareOut = false
		}
		if out == nil {
			for i := range j.nb.in {
				busy[i] = false
			}
			done[j.nb.seed] = true
			// Planned without the limited types' spare, it may save
			// with it.
			if j.spare || !limited {
				failed[j.nb.sig] = true
			}
			continue
		}
		improved++
		for i := range j.nb.in {
			gone[i] = true
		}
		// A node sharing a group with the new nodes may seed a different
		// neighbourhood now.
		for i, n := range nodes {
			if done[i] && !gone[i] {
				for _, g := range n.Groups {
					if j.nb.groups[g] {
						done[i] = false
						break
					}
				}
			}
		}
		for _, n := range out {
			nodes, w = append(nodes, n), append(w, waste(n))
			gone, busy, done = append(gone, false), append(busy, false), append(done, false)
		}
		byGroup = nil
	}
	if improved == 0 {
		return f, tried, 0
	}
	g := Fleet{}
	for i, n := range nodes {
		if !gone[i] {
			g.Nodes = append(g.Nodes, n)
		}
	}
	g.Cost = g.cost(p)
	return g, tried, improved
}

// nbhd is a neighbourhood: its seed, its nodes and their groups, and its
// nodes' signature (nodesSig).
type nbhd struct {
	seed   int
	in     map[int]bool
	groups map[int]bool
	sig    string
}

// nodesSig names the nodes[i], i in in, by what they are (type, groups and
// counts), in an order of their own: nodes are renumbered as the search
// replaces some, and two nodes alike are the same to a Solve.
func nodesSig(nodes []Node, in map[int]bool) string {
	parts := make([]string, 0, len(in))
	for i := range in {
		n := nodes[i]
		b := strconv.AppendInt(nil, int64(n.Type), 10)
		for j, g := range n.Groups {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(g), 10)
			b = append(b, 'x')
			b = strconv.AppendInt(b, int64(n.Counts[j]), 10)
		}
		parts = append(parts, string(b))
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}

// grow is the neighbourhood of seed among nodes not busy: the most
// wasteful node (w) that shares a group with it or whose pods may all run
// on the seed's type (it can trade pods with the seed even when they share
// no group) joins, while there are at most lnsNodes nodes and lnsGroups
// groups.
func (pr *prepared) grow(nodes []Node, w []float64, byGroup map[int][]int, busy []bool, seed int) nbhd {
	nb := nbhd{seed: seed, in: map[int]bool{seed: true}, groups: map[int]bool{}}
	for _, g := range nodes[seed].Groups {
		nb.groups[g] = true
	}
	var mates []int
	for y, n := range nodes {
		ok := y != seed && !busy[y]
		for _, g := range n.Groups {
			ok = ok && pr.allowed[g][nodes[seed].Type]
		}
		if ok {
			mates = append(mates, y)
		}
	}
	for len(nb.in) < lnsNodes {
		next := -1
		better := func(y int) bool {
			return !nb.in[y] && !busy[y] && (next < 0 || w[y] > w[next] || w[y] == w[next] && y < next)
		}
		for _, g := range slices.Sorted(maps.Keys(nb.groups)) {
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
			if !nb.groups[g] {
				fresh++
			}
		}
		if len(nb.groups)+fresh > lnsGroups {
			break
		}
		nb.in[next] = true
		for _, g := range nodes[next].Groups {
			nb.groups[g] = true
		}
	}
	return nb
}

// replan solves the pods of nodes[i] for i in `in` on their own (Solve
// over the kept types) and returns the new nodes when they cost less than
// the old (nil otherwise). Each limited type is limited to the nodes of it
// in `in`, and with spare also to what no node uses: of the
// neighbourhoods of one batch, solved at once, only one has spare.
func (pr *prepared) replan(ctx context.Context, nodes []Node, in map[int]bool, kept []int, spare bool, limit time.Duration) []Node {
	p := pr.p
	count := map[int]int{}
	used := make([]int, len(p.Types)) // by the nodes outside in
	free := make([]int, len(p.Types)) // by no node
	for k, t := range p.Types {
		free[k] = t.Limit
	}
	cur := 0.0
	for i, n := range nodes {
		free[n.Type]--
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
			t.Limit -= used[k]
			if !spare {
				t.Limit -= max(0, free[k])
			}
			if t.Limit <= 0 {
				continue
			}
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
		return nil
	}
	out := make([]Node, len(r.Plan.Nodes))
	for i, n := range r.Plan.Nodes {
		gs := make([]int, len(n.Groups))
		for j, g := range n.Groups {
			gs[j] = groups[g]
		}
		out[i] = Node{Type: types[n.Type], Groups: gs, Counts: slices.Clone(n.Counts)}
	}
	return out
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

package drain

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomProblem is a small random snapshot that passes Check: 3–6 nodes
// on 1–3 racks, 2–8 pods, 2 dimensions, 2 zones, random Allowed vectors
// (AffinityOK, TolerationOK, DomainOK), two groups with MaxPerNode,
// MaxSkew and, for about half the groups, fault domains 1–2 (some pods of
// such a group without one). ok is false when no valid placement was
// drawn.
func randomProblem(r *rand.Rand) (p *Problem, ok bool) {
	n, np := 3+r.IntN(4), 2+r.IntN(7)
	p = &Problem{DimNames: []string{"cores", "memory"}, Zones: []string{"a", "b"}}
	racks := 1 + r.IntN(3)
	for j := range n {
		free := []float64{float64(3 + r.IntN(5)), float64(6 + r.IntN(9))}
		p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("n%d", j), Free: free, Zone: r.IntN(2),
			Cost: free[0], Removable: r.Float64() < 0.85, Schedulable: r.Float64() < 0.85, Rack: 10 * r.IntN(racks)})
	}
	type group struct {
		perNode, skew int
		faultDomains  bool
	}
	groups := []group{{r.IntN(3), r.IntN(2), r.Float64() < 0.5}, {r.IntN(3), r.IntN(2), r.Float64() < 0.5}}
	randomAllowed := func() []bool {
		a := make([]bool, n)
		for j := range a {
			a[j] = r.Float64() < 0.7
		}
		return a
	}
	for i := range np {
		pod := Pod{Name: fmt.Sprintf("p%d", i), Demand: []float64{float64(1 + r.IntN(3)), float64(1 + r.IntN(6))}, Group: r.IntN(3) - 1}
		if pod.Group >= 0 {
			g := groups[pod.Group]
			pod.MaxPerNode, pod.MaxSkew = g.perNode, g.skew
			if r.Float64() < 0.1 {
				pod.MaxPerNode = r.IntN(3)
			}
			if r.Float64() < 0.1 {
				pod.MaxSkew = r.IntN(3)
			}
			if g.faultDomains && r.Float64() < 0.85 {
				pod.FaultDomain = 1 + r.IntN(2)
			}
		}
		if r.Float64() < 0.25 {
			pod.AffinityOK, pod.AffinityDesc = randomAllowed(), "nodeSelector random"
		}
		if r.Float64() < 0.15 {
			pod.TolerationOK, pod.TolerationDesc = randomAllowed(), "tolerates random"
		}
		if r.Float64() < 0.15 {
			pod.DomainOK, pod.DomainDesc = randomAllowed(), "update domain random"
		}
		p.Pods = append(p.Pods, pod)
	}
	assign := make([]int, np)
	for range 200 {
		for i := range p.Pods {
			assign[i] = r.IntN(n)
		}
		if Check(p, assign, nil) == nil {
			for i := range p.Pods {
				p.Pods[i].Node = assign[i]
			}
			return p, true
		}
	}
	return p, false
}

// bruteForce enumerates every assignment in which each pod stays or goes
// to a Schedulable node it is Allowed on, and returns per number of moved
// pods the most nodes removed (a Removable node that ends empty; -1: no
// valid assignment with that many moves), and the fewest nodes used by an
// assignment on Schedulable nodes only (-1: none).
func bruteForce(p *Problem) (removedByMoves []int, minUsed int) {
	n, np, d := len(p.Nodes), len(p.Pods), len(p.DimNames)
	removedByMoves = make([]int, np+1)
	for k := range removedByMoves {
		removedByMoves[k] = -1
	}
	minUsed = -1
	assign := make([]int, np)
	used := make([]float64, n*d)
	count := make([]int, n)
	removed := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == np {
			moves, nrem, usedNodes, schedulableOnly := 0, 0, 0, true
			for q, t := range assign {
				if t != p.Pods[q].Node {
					moves++
				}
				if !p.Nodes[t].Schedulable {
					schedulableOnly = false
				}
			}
			for t := range removed {
				removed[t] = count[t] == 0 && p.Nodes[t].Removable
				if removed[t] {
					nrem++
				}
				if count[t] > 0 {
					usedNodes++
				}
			}
			if nrem > removedByMoves[moves] && Check(p, assign, removed) == nil {
				removedByMoves[moves] = nrem
			}
			if schedulableOnly && (minUsed < 0 || usedNodes < minUsed) && Check(p, assign, nil) == nil {
				minUsed = usedNodes
			}
			return
		}
		pod := &p.Pods[i]
		for t := range n {
			if t != pod.Node && (!p.Nodes[t].Schedulable || !pod.Allowed(t)) {
				continue
			}
			ok := true
			for k := range d {
				if used[t*d+k]+pod.Demand[k] > p.Nodes[t].Free[k]+Eps {
					ok = false
				}
			}
			if !ok {
				continue
			}
			for k := range d {
				used[t*d+k] += pod.Demand[k]
			}
			count[t]++
			assign[i] = t
			rec(i + 1)
			count[t]--
			for k := range d {
				used[t*d+k] -= pod.Demand[k]
			}
		}
	}
	rec(0)
	return removedByMoves, minUsed
}

// bestWithin is the most nodes removed with at most budget moves (-1 none).
func bestWithin(byMoves []int, budget int) int {
	best := -1
	for k, r := range byMoves {
		if budget < 0 || k <= budget {
			best = max(best, r)
		}
	}
	return best
}

// apply returns the assignment after a plan and its removed mask, and
// fails the test on a malformed plan: a pod moved twice or from elsewhere
// than its node, a move onto an unschedulable or removed node, a removed
// node that is not Removable or listed twice, too many moves, a wrong
// Kept, an empty Removable node kept, or a result that fails Check.
func apply(t testing.TB, p *Problem, opts Options, pl *Result) []int {
	t.Helper()
	assign := make([]int, len(p.Pods))
	for i := range p.Pods {
		assign[i] = p.Pods[i].Node
	}
	removed := make([]bool, len(p.Nodes))
	for _, n := range pl.Removed {
		if removed[n] || !p.Nodes[n].Removable {
			t.Fatalf("removed node %d twice or not Removable: %v", n, pl.Removed)
		}
		removed[n] = true
	}
	seen := make([]bool, len(p.Pods))
	for _, mv := range pl.Moves {
		if seen[mv.Pod] || mv.From != p.Pods[mv.Pod].Node || mv.To == mv.From {
			t.Fatalf("bad move %+v", mv)
		}
		if !p.Nodes[mv.To].Schedulable || removed[mv.To] {
			t.Fatalf("move %+v onto an unschedulable or removed node", mv)
		}
		seen[mv.Pod] = true
		assign[mv.Pod] = mv.To
	}
	switch {
	case opts.MaxMoves > 0 && len(pl.Moves) > opts.MaxMoves:
		t.Fatalf("%d moves > MaxMoves %d", len(pl.Moves), opts.MaxMoves)
	case opts.MaxMoves < 0 && len(pl.Moves) > 0:
		t.Fatalf("%d moves with MaxMoves < 0", len(pl.Moves))
	case pl.Kept != len(p.Nodes)-len(pl.Removed):
		t.Fatalf("Kept %d, want %d", pl.Kept, len(p.Nodes)-len(pl.Removed))
	}
	count := make([]int, len(p.Nodes))
	for _, n := range assign {
		count[n]++
	}
	for n := range p.Nodes {
		if p.Nodes[n].Removable && count[n] == 0 && !removed[n] {
			t.Fatalf("empty Removable node %d kept", n)
		}
	}
	if err := Check(p, assign, removed); err != nil {
		t.Fatalf("plan fails Check: %v", err)
	}
	return assign
}

// synthetic is a seeded cluster like a production one: four node types
// (one a tainted GPU pool), three zones, deployments of 1–40 replicas with
// some anti-affinity and zone spread, placed by a spreading scheduler so
// nodes are half full: the kind of snapshot consolidation is for.
func synthetic(seed uint64, nodes, pods int) *Problem {
	return syntheticScaled(seed, nodes, pods, 1, 0.6)
}

// syntheticScaled multiplies every request by scale and fills nodes up to
// fill of their Free when placing.
func syntheticScaled(seed uint64, nodes, pods int, scale, fill float64) *Problem {
	r := rand.New(rand.NewPCG(seed, 7))
	p := &Problem{DimNames: []string{"cores", "memory", "ephemeral", "gpus", "pods"}, Zones: []string{"z1", "z2", "z3"}}
	types := [][]float64{{8, 32, 100, 0, 110}, {16, 64, 100, 0, 110}, {32, 128, 200, 0, 110}, {8, 60, 100, 4, 110}}
	gpuPool := make([]bool, nodes)
	for j := range nodes {
		ty := r.IntN(len(types))
		if j%25 == 0 {
			ty = 3
		} else if ty == 3 {
			ty = 1
		}
		free := append([]float64(nil), types[ty]...)
		free[0] -= 0.3 // pinned DaemonSets
		free[1] -= 0.8
		free[4] -= 4
		gpuPool[j] = ty == 3
		p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("node-%04d", j), Free: free, Zone: j % 3, Cost: types[ty][0],
			Removable: r.Float64() < 0.97, Schedulable: r.Float64() < 0.98})
	}
	onlyGPU := append([]bool(nil), gpuPool...)
	noGPU := make([]bool, nodes)
	for j := range noGPU {
		noGPU[j] = !gpuPool[j]
	}
	used := make([]float64, nodes*5)
	perNode := map[[2]int]int{}
	zoneCount := map[[2]int]int{}
	for g := 0; len(p.Pods) < pods && g < 10*pods; g++ {
		replicas := min(1+r.IntN(40), pods-len(p.Pods))
		demand := []float64{scale * []float64{0.1, 0.25, 0.5, 1, 2}[r.IntN(5)], scale * []float64{0.25, 0.5, 1, 2, 4, 8}[r.IntN(6)], float64(r.IntN(3)), 0, 1}
		tmpl := Pod{Group: g, TolerationOK: noGPU, TolerationDesc: "no toleration of gpu=true:NoSchedule"}
		if r.Float64() < 0.05 {
			demand[3] = 1
			tmpl.AffinityOK, tmpl.AffinityDesc = onlyGPU, "nodeSelector pool=gpu"
			tmpl.TolerationOK, tmpl.TolerationDesc = nil, "tolerates gpu=true:NoSchedule"
		}
		if r.Float64() < 0.2 {
			tmpl.MaxPerNode = 1
		}
		if replicas >= 3 && r.Float64() < 0.3 {
			tmpl.MaxSkew = 1
		}
		for k := range replicas {
			pod := tmpl
			pod.Name = fmt.Sprintf("dep%d-%d", g, k)
			pod.Demand = demand
			pod.Node = -1
			zone := k % 3
			for try := 0; try < 200 && pod.Node < 0; try++ {
				t := r.IntN(nodes/3)*3 + zone
				if try >= 100 {
					t = r.IntN(nodes)
				}
				if t >= nodes || !p.Nodes[t].Schedulable || !pod.Allowed(t) || (pod.MaxPerNode > 0 && perNode[[2]int{g, t}] >= pod.MaxPerNode) {
					continue
				}
				if pod.MaxSkew > 0 && p.Nodes[t].Zone != zone {
					continue
				}
				ok := true
				for d := range 5 {
					if used[t*5+d]+demand[d] > p.Nodes[t].Free[d]*fill {
						ok = false
					}
				}
				if ok {
					pod.Node = t
				}
			}
			if pod.Node < 0 {
				if pod.MaxSkew > 0 {
					break // the zones stay balanced within one pod
				}
				continue
			}
			for d := range 5 {
				used[pod.Node*5+d] += demand[d]
			}
			perNode[[2]int{g, pod.Node}]++
			zoneCount[[2]int{g, p.Nodes[pod.Node].Zone}]++
			p.Pods = append(p.Pods, pod)
		}
	}
	return p
}

// syntheticFD is a seeded cluster of availability sets, like a replay of
// VM traces: racks of 8 nodes, a zone per rack (3 zones), a machine
// update domain per node (its index mod 5); sets of 1–12 pods with 2–3
// fault domains (pod k in fault domain k mod F + 1) and 5 update domains
// (DomainOK: the nodes whose machine update domain is ≡ k + group mod 5),
// some sets with MaxPerNode 1 or MaxSkew 1, and pods without domains.
// Pods are placed at random where every rule holds, filling nodes up to
// fill of their Free.
func syntheticFD(seed uint64, nodes, pods int, fill float64) *Problem {
	r := rand.New(rand.NewPCG(seed, 11))
	p := &Problem{DimNames: []string{"cores", "memory"}, Zones: []string{"z1", "z2", "z3"}}
	const rackSize, uds = 8, 5
	for j := range nodes {
		free := [][]float64{{8, 32}, {16, 64}, {32, 128}}[r.IntN(3)]
		p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("m%04d", j), Free: append([]float64(nil), free...), Zone: (j / rackSize) % 3,
			Rack: j / rackSize, Cost: free[0], Removable: r.Float64() < 0.95, Schedulable: r.Float64() < 0.97})
	}
	domainOK := make([][]bool, uds) // by residue
	for u := range domainOK {
		domainOK[u] = make([]bool, nodes)
		for j := range nodes {
			domainOK[u][j] = j%uds == u
		}
	}
	used := make([]float64, nodes*2)
	type gr struct{ g, r int }
	rackFD := map[gr]int{}
	perNode := map[gr]int{}
	for g := 0; len(p.Pods) < pods && g < 10*pods; g++ {
		replicas := min(1+r.IntN(12), pods-len(p.Pods))
		demand := []float64{[]float64{0.5, 1, 2, 4}[r.IntN(4)], []float64{1, 2, 4, 8, 16}[r.IntN(5)]}
		faultDomains, sets, perNodeMax, skew := 2+r.IntN(2), r.Float64() < 0.7, 0, 0
		if r.Float64() < 0.2 {
			perNodeMax = 1
		}
		if replicas >= 3 && r.Float64() < 0.1 {
			skew = 1
		}
		for k := range replicas {
			pod := Pod{Name: fmt.Sprintf("set%d-%d", g, k), Demand: demand, Group: g, Node: -1, MaxPerNode: perNodeMax, MaxSkew: skew}
			if sets {
				pod.FaultDomain = k%faultDomains + 1
				u := (k + g) % uds
				pod.DomainOK, pod.DomainDesc = domainOK[u], fmt.Sprintf("update domain %d of %d", k%uds, uds)
			}
			for try := 0; try < 300 && pod.Node < 0; try++ {
				t := r.IntN(nodes)
				if !p.Nodes[t].Schedulable || !pod.Allowed(t) || (skew > 0 && p.Nodes[t].Zone != k%3) ||
					(perNodeMax > 0 && perNode[gr{g, t}] >= perNodeMax) {
					continue
				}
				if f, ok := rackFD[gr{g, p.Nodes[t].Rack}]; pod.FaultDomain > 0 && ok && f != pod.FaultDomain {
					continue
				}
				if used[2*t]+demand[0] > p.Nodes[t].Free[0]*fill || used[2*t+1]+demand[1] > p.Nodes[t].Free[1]*fill {
					continue
				}
				pod.Node = t
			}
			if pod.Node < 0 {
				if skew > 0 {
					break // the zones stay balanced within one pod
				}
				continue
			}
			t := pod.Node
			used[2*t] += demand[0]
			used[2*t+1] += demand[1]
			perNode[gr{g, t}]++
			if pod.FaultDomain > 0 {
				rackFD[gr{g, p.Nodes[t].Rack}] = pod.FaultDomain
			}
			p.Pods = append(p.Pods, pod)
		}
	}
	return p
}

package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/optimizer"
	"placelab/optimizer/drain"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// ErrNoSuchPod names a --like pod that the run's dataset lacks.
var ErrNoSuchPod = errors.New("analysis: no such pod")

// FitReport answers cluster-capacity's question on a snapshot: how many
// more pods like Like fit on the nodes as they are now, each copy obeying
// the pod's node affinity, tolerations, anti-affinity and topology spread
// (copies join its tenant) and every resource of its node.
type FitReport struct {
	Run     int64              `json:"run_id"`
	Dataset string             `json:"dataset"`
	T       float64            `json:"t_s"`
	Time    string             `json:"time,omitempty"` // T as RFC 3339 (Stamp)
	Like    string             `json:"like"`
	Demand  map[string]float64 `json:"demand"`
	// More is how many more copies fit; PerZone splits them by cluster
	// (zone); NodesWithRoom counts the nodes that take at least one.
	More          int            `json:"more"`
	PerZone       map[string]int `json:"per_zone"`
	NodesWithRoom int            `json:"nodes_with_room"`
	// Limit names what stops the next copy: the resource short on the
	// nodes the pod may use, or the constraint.
	Limit string `json:"limit"`
}

// PoolReport is the fewest nodes of a node pool the snapshot's pods need,
// every other node kept as it is: UB from a drain plan that may remove only
// the pool's nodes (a placement on that many exists, moves included), LB
// from the configuration LP in which the pool's nodes cost 1 and the others
// nearly nothing (no placement uses fewer of the pool's nodes).
type PoolReport struct {
	Run       int64   `json:"run_id"`
	Dataset   string  `json:"dataset"`
	T         float64 `json:"t_s"`
	Time      string  `json:"time,omitempty"` // T as RFC 3339 (Stamp)
	Pool      string  `json:"pool"`
	PoolNodes int     `json:"pool_nodes"`
	PoolInUse int     `json:"pool_nodes_in_use"`
	LBNodes   float64 `json:"lb_nodes"`
	UBNodes   int     `json:"ub_nodes"`
	Moves     int     `json:"moves"`
	Converged bool    `json:"converged"`
	Seconds   float64 `json:"seconds"`
}

// SnapshotFit counts how many more pods like the VM named like fit on run's
// nodes at at (NaN: the last placement).
func SnapshotFit(ctx context.Context, db *store.DB, run int64, like string, at float64) (*FitReport, error) {
	s, err := LoadSnapshot(ctx, db, run, at)
	if err != nil {
		return nil, err
	}
	tr := s.Tr
	inv := tr.Inv
	v0, ok := s.State.FindVM(like)
	if !ok {
		return nil, fmt.Errorf("%w %q in dataset %q (the vm table's name column: namespace/name for a Kubernetes pod, or its vm_id)", ErrNoSuchPod, like, s.Dataset)
	}
	v := *v0
	vc := tr.ConstraintsOf(&v)
	if err := sameDemandEverywhere(inv, v.Type); err != nil {
		return nil, err
	}
	// The pod's own requests (vm_type), whether or not a node can hold it:
	// a Pending pod that fits no node still asks for what it asks for.
	d, sized, err := s.State.TypeSize(ctx, db, v.Type)
	if err != nil {
		return nil, err
	}
	if !sized {
		for k := range inv.SKUs {
			if inv.Types[v.Type].Supported[k] {
				d, sized = inv.Types[v.Type].Demand[k], true
				break
			}
		}
	}
	if !sized {
		return nil, fmt.Errorf("analysis: capacity --like %q: dataset %q gives its type %s no size of its own and no machine runs it",
			like, s.Dataset, inv.Types[v.Type].Name)
	}
	dem := s.vec(d)
	p := &s.Problem
	rep := &FitReport{Run: run, Dataset: s.Dataset, T: s.T, Time: analysis.Stamp(s.Tr, s.T), Like: like, Demand: map[string]float64{}, PerZone: map[string]int{}}
	for j, name := range p.DimNames {
		rep.Demand[name] = dem[j]
	}
	// Each node's free room now (movable pods counted) and the tenant's
	// pods per node and per zone.
	free := make([][]float64, len(p.Nodes))
	for n := range p.Nodes {
		free[n] = append([]float64(nil), p.Nodes[n].Free...)
	}
	perNode := make([]int, len(p.Nodes))
	perZone := make([]int, len(p.Zones))
	for i := range p.Pods {
		pod := &p.Pods[i]
		for j, x := range pod.Demand {
			free[pod.Node][j] -= x
		}
		if pod.Group == int(v.Tenant) {
			perNode[pod.Node]++
			perZone[p.Nodes[pod.Node].Zone]++
		}
	}
	for i, vm := range s.PinnedVM {
		for k := range tr.VMs {
			if tr.VMs[k].ID == vm && tr.VMs[k].Tenant == v.Tenant {
				perNode[s.PinnedNode[i]]++
				perZone[p.Nodes[s.PinnedNode[i]].Zone]++
			}
		}
	}
	// Copies per node: floor of free / demand in every dimension, within
	// the anti-affinity bound.
	room := make([]int, len(p.Nodes))
	short := map[string]int{}
	zoneRoom := make([]int, len(p.Zones))
	eligibleZone := make([]bool, len(p.Zones))
	for n := range p.Nodes {
		m := int32(n)
		if !inv.InSet(vc.Affinity, m) {
			short["node affinity"]++
			continue
		}
		eligibleZone[p.Nodes[n].Zone] = true
		if !inv.InSet(vc.Tolerated, m) {
			short["untolerated taint"]++
			continue
		}
		if !p.Nodes[n].Schedulable {
			short["cordoned or not ready"]++
			continue
		}
		k := math.MaxInt
		dim := ""
		for j, x := range dem {
			if x <= 0 {
				continue
			}
			c := int(math.Floor((free[n][j] + 1e-9) / x))
			if c < k {
				k, dim = c, p.DimNames[j]
			}
		}
		if k == math.MaxInt {
			k = 1 << 20 // a pod that requests nothing: bounded by pod slots when counted
		}
		if k < 0 {
			k = 0
		}
		if vc.MaxPerMachine > 0 && int(vc.MaxPerMachine)-perNode[n] < k {
			k, dim = max(0, int(vc.MaxPerMachine)-perNode[n]), "anti-affinity"
		}
		if k == 0 {
			short["short of "+dim]++
			continue
		}
		room[n] = k
		rep.NodesWithRoom++
		zoneRoom[p.Nodes[n].Zone] += k
	}
	// Topology spread: add copies one at a time to the eligible zone with
	// the fewest of the tenant's pods that still has room, while the skew
	// allows (the most copies any order places).
	if vc.MaxSkew > 0 {
		added := make([]int, len(p.Zones))
		for {
			lo := math.MaxInt
			for z := range p.Zones {
				if eligibleZone[z] && perZone[z]+added[z] < lo {
					lo = perZone[z] + added[z]
				}
			}
			best := -1
			for z := range p.Zones {
				if eligibleZone[z] && added[z] < zoneRoom[z] && perZone[z]+added[z]+1-lo <= int(vc.MaxSkew) &&
					(best < 0 || perZone[z]+added[z] < perZone[best]+added[best]) {
					best = z
				}
			}
			if best < 0 {
				break
			}
			added[best]++
			rep.More++
		}
		for z, a := range added {
			if a > 0 {
				rep.PerZone[p.Zones[z]] = a
			}
		}
		rep.Limit = "topology spread or room"
	} else {
		for z, r := range zoneRoom {
			if r > 0 {
				rep.PerZone[p.Zones[z]] = r
			}
			rep.More += r
		}
	}
	best, bestN := "", 0
	for k, n := range short {
		if n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	if rep.Limit == "" {
		rep.Limit = fmt.Sprintf("%s on %d of %d nodes", best, bestN, len(p.Nodes))
	} else {
		rep.Limit = fmt.Sprintf("%s (then %s on %d of %d nodes)", rep.Limit, best, bestN, len(p.Nodes))
	}
	return rep, nil
}

// inPool reports whether machine m is in pool: its SKU is named pool (an
// instance type; or one of its allocatables, "pool (16 cpu, 61Gi)"), or
// its rack's last path element is (ingest k8s names racks zone/pool, pool
// the node-pool label, else the instance type).
func inPool(inv *optimizer.Inventory, m int32, pool string) bool {
	mc := &inv.Machines[m]
	if sku := inv.SKUs[mc.SKU].Name; sku == pool || strings.HasPrefix(sku, pool+" (") {
		return true
	}
	r := inv.Racks[mc.Rack].Name
	return r == pool || strings.HasSuffix(r, "/"+pool)
}

// PoolFewest bounds the fewest nodes of pool the snapshot's pods need,
// the other nodes kept.
func PoolFewest(ctx context.Context, db *store.DB, run int64, pool string, at float64, limit time.Duration) (*PoolReport, error) {
	t0 := time.Now()
	s, err := LoadSnapshot(ctx, db, run, at)
	if err != nil {
		return nil, err
	}
	inv := s.Tr.Inv
	p := s.Problem // a copy: Removable changes below
	p.Nodes = append([]drain.Node(nil), s.Problem.Nodes...)
	rep := &PoolReport{Run: run, Dataset: s.Dataset, T: s.T, Time: analysis.Stamp(s.Tr, s.T), Pool: pool}
	in := make([]bool, len(p.Nodes))
	for n := range p.Nodes {
		in[n] = inPool(inv, int32(n), pool)
		if in[n] {
			rep.PoolNodes++
		}
		p.Nodes[n].Removable = in[n]
	}
	if rep.PoolNodes == 0 {
		return nil, fmt.Errorf("analysis: pool %q: no node of dataset %q is in it (a pool is a SKU name or a node pool: the rack zone/POOL of ingest k8s)", pool, s.Dataset)
	}
	used := make([]bool, len(p.Nodes))
	for i := range p.Pods {
		used[p.Pods[i].Node] = true
	}
	for n := range used {
		if used[n] && in[n] {
			rep.PoolInUse++
		}
	}
	pl, err := drain.Plan(&p, drain.Options{})
	if err != nil {
		return nil, err
	}
	after := ApplyPlan(&p, pl)
	if err := drain.Check(&p, after, nil); err != nil {
		return nil, fmt.Errorf("analysis: pool: the plan breaks a constraint (a bug): %w", err)
	}
	usedAfter := make([]bool, len(p.Nodes))
	for _, n := range after {
		usedAfter[n] = true
	}
	for n := range usedAfter {
		if usedAfter[n] && in[n] {
			rep.UBNodes++
		}
	}
	rep.Moves = len(pl.Moves)
	// LB: pool bins cost 1, the others eps; Bound − eps·others ≤ pool nodes.
	prob, nodeTypes, _ := s.lpProblem()
	const eps = 1e-4
	others := 0
	var split []lpbound.BinType
	for k, b := range prob.Bins {
		var inB, outB int
		for _, n := range nodeTypes[k] {
			if in[n] {
				inB++
			} else {
				outB++
			}
		}
		if inB > 0 {
			c := b
			c.Name, c.Limit, c.Cost = b.Name+"p", inB, 1
			split = append(split, c)
		}
		if outB > 0 {
			c := b
			c.Name, c.Limit, c.Cost = b.Name+"o", outB, eps
			split = append(split, c)
			others += outB
		}
	}
	items := make([]lpbound.ItemType, len(prob.Items))
	for i, it := range prob.Items {
		items[i] = lpbound.ItemType{Name: it.Name, Count: it.Count}
		for k := range prob.Bins {
			in, out := false, false
			for _, n := range nodeTypes[k] {
				in, out = in || inPool(inv, int32(n), pool), out || !inPool(inv, int32(n), pool)
			}
			if in {
				items[i].Sizes = append(items[i].Sizes, it.Sizes[k])
			}
			if out {
				items[i].Sizes = append(items[i].Sizes, it.Sizes[k])
			}
		}
	}
	res, err := lpbound.Solve(ctx, &lpbound.Problem{Bins: split, Items: items}, lpbound.Options{Objective: lpbound.MinCost, TimeLimit: limit})
	if err != nil && res == nil {
		return nil, err
	}
	rep.LBNodes = math.Max(0, math.Ceil(res.Bound-eps*float64(others)-1e-6))
	rep.Converged = res.Converged
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

package drain

import (
	"fmt"
	"math"
)

// Check verifies an assignment (pod → node) independently of the planner
// and returns the first violation, wrapping ErrViolation and naming pod,
// node and rule, checked in this order:
//
//  1. shape: len(assign) = len(Pods), nodes in range, len(removed) =
//     len(Nodes) unless removed is nil;
//  2. per pod in index order: not on a removed node; Allowed there
//     ("affinity", then "taint", then "update domain" for DomainOK);
//  3. capacity, per node and dimension: Σ Demand of its pods ≤ Free + Eps
//     (the pod named is the first, in index order, that overflows);
//  4. MaxPerNode: for every pod with Group ≥ 0 and MaxPerNode > 0, the pods
//     of its Group on its node, itself included, number ≤ MaxPerNode;
//  5. MaxSkew: for every pod with Group ≥ 0 and MaxSkew > 0, with cnt(z)
//     the pods of its Group on the nodes of zone z and E the zones holding
//     a node that is not removed and that the pod's AffinityOK allows
//     (taints, DomainOK and cordons ignored), cnt(zone of its node) −
//     min_{z ∈ E} cnt(z) ≤ MaxSkew (no rule when E is empty);
//  6. fault domains: for every two pods of one Group with different
//     non-zero FaultDomain, their nodes' Racks differ (the pod named is
//     the first, in index order, that shares a rack with such a pod, and
//     the other pod the first of them).
//
// Check does not ask for Schedulable nodes: a pod may stay on a cordoned
// node. The snapshot itself is an assignment (Pod.Node for every pod).
func Check(p *Problem, assign []int, removed []bool) error {
	if err := Validate(p); err != nil {
		return err
	}
	n, nz := len(p.Nodes), max(1, len(p.Zones))
	if len(assign) != len(p.Pods) {
		return fmt.Errorf("%w: assignment has %d entries for %d pods", ErrViolation, len(assign), len(p.Pods))
	}
	if removed != nil && len(removed) != n {
		return fmt.Errorf("%w: removed has %d entries for %d nodes", ErrViolation, len(removed), n)
	}
	isRemoved := func(t int) bool { return removed != nil && removed[t] }
	for i, t := range assign {
		pod := &p.Pods[i]
		if t < 0 || t >= n {
			return fmt.Errorf("%w: pod %d %q: node %d out of range", ErrViolation, i, pod.Name, t)
		}
		name := p.Nodes[t].Name
		switch {
		case isRemoved(t):
			return fmt.Errorf("%w: pod %d %q on node %d %q: the node is removed", ErrViolation, i, pod.Name, t, name)
		case pod.AffinityOK != nil && !pod.AffinityOK[t]:
			return fmt.Errorf("%w: pod %d %q on node %d %q: affinity (%s)", ErrViolation, i, pod.Name, t, name, pod.AffinityDesc)
		case pod.TolerationOK != nil && !pod.TolerationOK[t]:
			return fmt.Errorf("%w: pod %d %q on node %d %q: taint not tolerated (%s)", ErrViolation, i, pod.Name, t, name, pod.TolerationDesc)
		case pod.DomainOK != nil && !pod.DomainOK[t]:
			return fmt.Errorf("%w: pod %d %q on node %d %q: update domain (%s)", ErrViolation, i, pod.Name, t, name, pod.DomainDesc)
		}
	}
	d := len(p.DimNames)
	used := make([]float64, n*d)
	for i, t := range assign {
		for k, x := range p.Pods[i].Demand {
			used[t*d+k] += x
		}
	}
	for i, t := range assign { // name the first pod, in index order, past the limit
		free := p.Nodes[t].Free
		for k := range d {
			if used[t*d+k] <= free[k]+Eps {
				continue
			}
			sum := 0.0
			for q := 0; q <= i; q++ {
				if assign[q] == t {
					sum += p.Pods[q].Demand[k]
				}
			}
			if sum > free[k]+Eps {
				return fmt.Errorf("%w: pod %d %q on node %d %q: capacity: %s %g > free %g", ErrViolation,
					i, p.Pods[i].Name, t, p.Nodes[t].Name, p.DimNames[k], sum, free[k])
			}
		}
	}
	type groupNode struct{ g, t int }
	perNode := map[groupNode]int{}
	perZone := map[int][]int{}
	for i, t := range assign {
		if g := p.Pods[i].Group; g >= 0 {
			perNode[groupNode{g, t}]++
			if perZone[g] == nil {
				perZone[g] = make([]int, nz)
			}
			perZone[g][p.Nodes[t].Zone]++
		}
	}
	for i, t := range assign {
		pod := &p.Pods[i]
		if pod.Group >= 0 && pod.MaxPerNode > 0 {
			if c := perNode[groupNode{pod.Group, t}]; c > pod.MaxPerNode {
				return fmt.Errorf("%w: pod %d %q on node %d %q: anti-affinity: %d pods of %s > MaxPerNode %d",
					ErrViolation, i, pod.Name, t, p.Nodes[t].Name, c, p.groupName(pod.Group), pod.MaxPerNode)
			}
		}
	}
	for i, t := range assign {
		pod := &p.Pods[i]
		if pod.Group < 0 || pod.MaxSkew == 0 {
			continue
		}
		cnt := perZone[pod.Group]
		low := math.MaxInt
		for j := range p.Nodes {
			if !isRemoved(j) && (pod.AffinityOK == nil || pod.AffinityOK[j]) {
				low = min(low, cnt[p.Nodes[j].Zone])
			}
		}
		if low == math.MaxInt {
			continue
		}
		if skew := cnt[p.Nodes[t].Zone] - low; skew > pod.MaxSkew {
			return fmt.Errorf("%w: pod %d %q on node %d %q: topology spread: skew %d > MaxSkew %d (zone %d holds %d, eligible minimum %d)",
				ErrViolation, i, pod.Name, t, p.Nodes[t].Name, skew, pod.MaxSkew, p.Nodes[t].Zone, cnt[p.Nodes[t].Zone], low)
		}
	}
	return checkFaultDomains(p, assign)
}

// checkFaultDomains is Check's rule 6.
func checkFaultDomains(p *Problem, assign []int) error {
	type groupRack struct{ g, r int }
	first := map[groupRack]map[int]int{} // per group and rack: fault domain → its first pod there
	for i, t := range assign {
		pod := &p.Pods[i]
		if pod.FaultDomain == 0 {
			continue
		}
		key := groupRack{pod.Group, p.Nodes[t].Rack}
		if first[key] == nil {
			first[key] = map[int]int{}
		}
		if _, ok := first[key][pod.FaultDomain]; !ok {
			first[key][pod.FaultDomain] = i
		}
	}
	for i, t := range assign {
		pod := &p.Pods[i]
		if pod.FaultDomain == 0 {
			continue
		}
		rack := p.Nodes[t].Rack
		other := -1
		for f, q := range first[groupRack{pod.Group, rack}] {
			if f != pod.FaultDomain && (other < 0 || q < other) {
				other = q
			}
		}
		if other >= 0 {
			o := &p.Pods[other]
			return fmt.Errorf("%w: pod %d %q on node %d %q: fault domain: %s holds fault domain %d (pod %d %q) and %d of %s",
				ErrViolation, i, pod.Name, t, p.Nodes[t].Name, p.rackName(rack), o.FaultDomain, other, o.Name, pod.FaultDomain, p.groupName(pod.Group))
		}
	}
	return nil
}

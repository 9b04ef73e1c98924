package optimizer

import "math"

// Multi-priority allocation (Azure allocator slides, "Multi-Priority
// Allocation"): low-priority VMs fill free capacity and buffers and are
// evicted when a high-priority VM needs the room. Three scores rank a
// candidate node: packing quality (BestFitScore), eviction cost (the
// low-priority cores a high-priority VM evicts there) and the safety score
// of a low-priority VM placed there.

// Slots is how many VMs of demand d fit in free: min over the dimensions d
// uses of ⌊freeᵢ/dᵢ⌋.
func Slots(free, d Vec) int {
	n := math.MaxInt
	for i := range d {
		if d[i] <= 0 {
			continue
		}
		k := int(math.Floor((free[i] + capacityEps) / d[i]))
		if k < n {
			n = k
		}
	}
	if n == math.MaxInt || n < 0 {
		return 0
	}
	return n
}

// SafetyScore is the slides' safety score of placing a low-priority VM of
// demand dx on node v:
//
//	safety-distance(v, t) = (F_t(v) + 1) / λ_t,
//	danger-probability(v) = Σ_t 1 / safety-distance(v, t),
//	safety-score(v)       = 1 / danger-probability(v),
//
// where λ_t is the arrival rate of high-priority VMs of type t and F_t(v)
// the number of type-t VMs the candidate nodes can still take without any
// eviction once the new VM is on v: the (F_t+1)-th type-t arrival has to
// evict. A type that could not fit on v even after evicting every
// low-priority VM there never threatens the new VM (distance ∞). The slides
// call their algorithm for safety-distance "clever" and do not give it; this
// is the simplest model with their three properties (see the tests).
//
// free[u], low[u] and demand[t][u] describe the candidate nodes; slots[t]
// must be Σ_u Slots(free[u], demand[t][u]) (computed once per decision, so
// each candidate costs O(types)). Returns +Inf when nothing threatens v.
func SafetyScore(v int, dx Vec, free, low []Vec, demand [][]Vec, rates []float64, slots []int) float64 {
	danger := 0.0
	after := free[v].Sub(dx)
	room := after.Add(low[v]).Add(dx)
	for t, lambda := range rates {
		if lambda <= 0 || demand[t] == nil {
			continue
		}
		dt := demand[t][v]
		if dt == (Vec{}) || !Fits(dt, room) {
			continue
		}
		f := slots[t] - Slots(free[v], dt) + Slots(after, dt)
		danger += lambda / float64(f+1)
	}
	if danger == 0 {
		return math.Inf(1)
	}
	return 1 / danger
}

// FitProbability is the slides' "online nature" example: if every VM leaves
// before time T independently with probability q, a VM that needs an empty
// node can be deployed at T with probability (the slides sum over nodes)
//
//	Σ_nodes q^{VMs on the node}.
//
// Placing a new VM on the node with more VMs keeps that sum higher: with
// nodes of 1 and 3 VMs and q = ½, the new VM on node 1 gives ¼ + ⅛ = 6/16,
// on node 2 gives ½ + 1/16 = 9/16.
func FitProbability(vmsPerNode []int, q float64) float64 {
	p := 0.0
	for _, n := range vmsPerNode {
		p += math.Pow(q, float64(n))
	}
	return p
}

package k8sgen

// leastAllocated scores a node for a pod as kube-scheduler's
// NodeResourcesFit LeastAllocated strategy does, CPU and memory weighted 1
// each, with the scoring requests (nonZeroRequests) of the bound pods plus
// the pod's:
//
//	score = Σ_r w_r · (alloc_r − requested_r) · 100 / alloc_r  ÷  Σ_r w_r
//
// each term 0 when requested_r > alloc_r, integer division as upstream. The
// emptiest node scores highest, so the default scheduler spreads pods out.
func leastAllocated(n *simNode, p *simPod) int64 {
	const weights = 2
	var sum int64
	for i, r := range [2]res{resCPU, resMemory} {
		alloc := n.alloc[r]
		req := n.nonZero[i] + p.nonZero[i]
		if alloc == 0 || req > alloc {
			continue
		}
		sum += (alloc - req) * 100 / alloc
	}
	return sum / weights
}

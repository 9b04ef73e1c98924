package k8sgen

// insufficient returns one reason per resource the node lacks for the pod
// (NodeResourcesFit): a resource the pod asks for fits when
//
//	used_r + request_r ≤ allocatable_r
//
// and every pod takes one of the node's pod slots. nil when it fits.
func insufficient(n *simNode, p *simPod) []string {
	var why []string
	for r := range numRes {
		if p.req[r] == 0 || n.used[r]+p.req[r] <= n.alloc[r] {
			continue
		}
		if r == resPods {
			why = append(why, reasonTooManyPods)
		} else {
			why = append(why, reasonInsufficient+string(resNames[r]))
		}
	}
	return why
}

// devicesFit reports whether a node's GPU devices (free thousandths each)
// can take whole devices (entirely free ones) or one share of a device. The
// aggregate counts (ResourceGPU, ResourceGPUMilli) are checked by
// insufficient; this is the per-device check a GPU-sharing scheduler adds.
func devicesFit(free []int64, whole, share int64) bool {
	switch {
	case whole > 0:
		n := int64(0)
		for _, f := range free {
			if f == 1000 {
				n++
			}
		}
		return n >= whole
	case share > 0:
		for _, f := range free {
			if f >= share {
				return true
			}
		}
		return false
	}
	return true
}

// takeDevices picks the devices for a pod: the lowest-numbered free devices
// for whole GPUs; for a share, the device with the least free room that
// still fits it (best fit, lowest number on ties), which keeps whole devices
// free for whole-GPU pods. It takes them unless dryRun.
func takeDevices(free []int64, whole, share int64, dryRun bool) []int {
	var out []int
	switch {
	case whole > 0:
		for i, f := range free {
			if int64(len(out)) == whole {
				break
			}
			if f == 1000 {
				out = append(out, i)
			}
		}
		if !dryRun {
			for _, i := range out {
				free[i] = 0
			}
		}
	case share > 0:
		best := -1
		for i, f := range free {
			if f >= share && (best < 0 || f < free[best]) {
				best = i
			}
		}
		if best >= 0 {
			out = []int{best}
			if !dryRun {
				free[best] -= share
			}
		}
	}
	return out
}

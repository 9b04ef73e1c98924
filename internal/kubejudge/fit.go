package kubejudge

import (
	"fmt"
	"math/big"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// FitUpperBound returns an upper bound on how many more copies of the pod
// ("namespace/name"; any phase, Pending included) fit on the cluster as it
// is now: the sum over nodes that are not cordoned (spec.unschedulable),
// match the pod's nodeSelector and required node affinity and carry no
// NoSchedule/NoExecute taint it does not tolerate, of
// min over the resources it requests of floor(free / request), where free
// is status.allocatable minus the PodRequests of the node's running pods
// (a requested resource the node does not list gives 0), and each copy
// also takes one of the node's allocatable pods. Inter-pod affinity, topology
// spread and host ports are ignored, which can only make the bound larger.
// Unknown pods are an error.
func (c *Cluster) FitUpperBound(pod string) (int, error) {
	ix := c.index()
	p := ix.pods[pod]
	if p == nil {
		return 0, fmt.Errorf("kubejudge: no pod %q", pod)
	}
	req := requests(p)
	req[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI) // one pod slot per copy
	used := ix.usage(ix.placed)
	total := 0
	for _, name := range ix.nodeOrder {
		n := ix.nodes[name]
		if n.Spec.Unschedulable {
			continue
		}
		if ok, _ := matchesNode(p, n); !ok {
			continue
		}
		if _, bad := untoleratedTaint(p, n); bad {
			continue
		}
		total += fitsOn(n.Status.Allocatable, used[name], req)
	}
	return total, nil
}

// fitsOn is min over req of floor((alloc - used) / req), at least 0.
func fitsOn(alloc, used, req corev1.ResourceList) int {
	best := -1
	for _, r := range sortedResources(req) {
		a, ok := alloc[r]
		if !ok {
			return 0
		}
		free := new(big.Rat).Sub(rat(a), rat(get(used, r)))
		if free.Sign() <= 0 {
			return 0
		}
		q := new(big.Rat).Quo(free, rat(req[r]))
		k := new(big.Int).Quo(q.Num(), q.Denom()) // floor: both positive
		if !k.IsInt64() || k.Int64() > int64(^uint(0)>>1) {
			continue // effectively unlimited by this resource
		}
		if v := int(k.Int64()); best < 0 || v < best {
			best = v
		}
	}
	return max(best, 0)
}

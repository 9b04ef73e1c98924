package optimizer

// RuleHasAllowedNode names HasAllowedNode.
const RuleHasAllowedNode = "HasAllowedNode"

// HasAllowedNode is the cluster validator of NodeAffinity and
// TaintToleration: cluster x is valid for a request iff, for every VM v of
// it, x holds a machine of v's affinity set and a machine of its toleration
// set (either ⊥ allows every cluster). Without it, cluster selection could
// hand machine selection k clusters none of which holds the one node a
// DaemonSet pod is pinned to.
type HasAllowedNode struct{}

var _ ClusterValidator = HasAllowedNode{}

func (HasAllowedNode) Name() string { return RuleHasAllowedNode }

func (HasAllowedNode) ValidCluster(env *Env, req *Request, _ RequestKind, _ Traits, c int32) bool {
	for _, v := range req.VMs {
		if !env.Inv.setAllowsCluster(v.Affinity, c) || !env.Inv.setAllowsCluster(v.Tolerated, c) {
			return false
		}
	}
	return true
}

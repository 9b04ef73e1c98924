package optimizer

// RuleHasAllowedNode names HasAllowedNode.
const RuleHasAllowedNode = "HasAllowedNode"

// HasAllowedNode is the cluster validator of NodeAffinity and
// TaintToleration: cluster x is valid for a request iff, for every VM v of
// it, x holds a machine of v's affinity set and a machine of its toleration
// set (either ⊥ allows every cluster). It prunes: machine selection then
// never builds or searches the evaluations of clusters in which the
// request's VMs can use no machine (a DaemonSet pod pinned to one node
// among thousands), and the explanation counts those clusters under it.
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

// AcceptsAllClusters: no VM of req has an affinity or toleration set (⊥
// allows every cluster).
func (HasAllowedNode) AcceptsAllClusters(req *Request) bool {
	for _, v := range req.VMs {
		if v.Affinity != 0 || v.Tolerated != 0 {
			return false
		}
	}
	return true
}

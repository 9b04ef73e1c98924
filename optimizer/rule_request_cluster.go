package optimizer

// RuleIsRequestedCluster names IsRequestedCluster.
const RuleIsRequestedCluster = "IsRequestedCluster"

// IsRequestedCluster is a cluster validator: with C the request's
// Clusters, cluster x is valid iff C = nil or x ∈ C. Healing uses it to
// re-create a failed machine's VMs in the same cluster first.
type IsRequestedCluster struct{}

var _ ClusterValidator = IsRequestedCluster{}

func (IsRequestedCluster) Name() string { return RuleIsRequestedCluster }

func (IsRequestedCluster) ValidCluster(_ *Env, req *Request, _ RequestKind, _ Traits, c int32) bool {
	return RequestedCluster(req.Clusters, c)
}

// AcceptsAllClusters: req names no clusters.
func (IsRequestedCluster) AcceptsAllClusters(req *Request) bool { return req.Clusters == nil }

// RequestedCluster is IsRequestedCluster's predicate: cluster c is among
// clusters, or clusters is nil (no restriction).
func RequestedCluster(clusters []int32, c int32) bool {
	if clusters == nil {
		return true
	}
	for _, x := range clusters {
		if x == c {
			return true
		}
	}
	return false
}

package optimizer

// RuleIsClusterHealthy names IsClusterHealthy.
const RuleIsClusterHealthy = "IsClusterHealthy"

// IsClusterHealthy is a cluster validator: cluster x has at least one
// healthy machine.
type IsClusterHealthy struct{}

var _ ClusterValidator = IsClusterHealthy{}

func (IsClusterHealthy) Name() string { return RuleIsClusterHealthy }

func (IsClusterHealthy) ValidCluster(env *Env, _ *Request, _ RequestKind, _ Traits, c int32) bool {
	return ClusterHealthy(env.State, c)
}

// ClusterHealthy is IsClusterHealthy's predicate.
func ClusterHealthy(s *State, c int32) bool { return s.ClusterHealthy[c] > 0 }

package optimizer

// IsClusterHealthy is a cluster validator: cluster x has at least one
// healthy machine.
type IsClusterHealthy struct{}

var _ ClusterValidator = IsClusterHealthy{}

func (IsClusterHealthy) Name() string { return "IsClusterHealthy" }

func (IsClusterHealthy) ValidCluster(env *Env, _ *Request, _ RequestKind, _ Traits, c int32) bool {
	return env.State.ClusterHealthy[c] > 0
}

package optimizer

// RuleIsClusterBelowLimit names IsClusterBelowLimit.
const RuleIsClusterBelowLimit = "IsClusterBelowLimit"

// Buffers are the slides' cluster buffers, expressed as empty healthy
// machines a cluster must keep: a new deployment may enter a cluster only
// while it has at least NewDeployment empty machines, an existing tenant
// may scale out while it has at least ScaleOut, and healing may use the
// cluster while it has at least Healing. Sensible settings keep
// NewDeployment ≥ ScaleOut ≥ Healing; zero disables a buffer.
type Buffers struct {
	NewDeployment, ScaleOut, Healing int32
}

// IsClusterBelowLimit is the cluster validator IsClusterBelowLimit(x, v)
// (§6.3): with E(x) the empty healthy machines of cluster x and B the
// buffer of v's request kind, x is valid iff E(x) ≥ B.
type IsClusterBelowLimit struct{}

var _ ClusterValidator = IsClusterBelowLimit{}

func (IsClusterBelowLimit) Name() string { return RuleIsClusterBelowLimit }

func (IsClusterBelowLimit) ValidCluster(env *Env, _ *Request, kind RequestKind, _ Traits, c int32) bool {
	return BelowLimit(env.State.ClusterEmpty[c], kind, env.Cfg.Buffers)
}

// BelowLimit is IsClusterBelowLimit's predicate: a cluster with empty
// empty healthy machines keeps buffer b for a request of kind kind.
func BelowLimit(empty int32, kind RequestKind, b Buffers) bool {
	return empty >= bufferOf(kind, b)
}

// bufferOf is the buffer of a request kind: ScaleOut's, Healing's, or
// NewDeployment's for any other kind.
func bufferOf(kind RequestKind, b Buffers) int32 {
	switch kind {
	case KindScaleOut:
		return b.ScaleOut
	case KindHeal:
		return b.Healing
	default:
		return b.NewDeployment
	}
}

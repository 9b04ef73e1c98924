package optimizer

// IsTypeSupported is the cluster validator IsTypeSupported(x, v) (§3.2):
// cluster x has a SKU on which v's VM type runs.
type IsTypeSupported struct{}

var _ ClusterValidator = IsTypeSupported{}

func (IsTypeSupported) Name() string { return "IsTypeSupported" }

func (IsTypeSupported) ValidCluster(env *Env, _ *Request, _ RequestKind, t Traits, c int32) bool {
	return env.Inv.TypeSupported(t[TraitType], c)
}

package optimizer

// RuleIsTypeSupported names IsTypeSupported.
const RuleIsTypeSupported = "IsTypeSupported"

// IsTypeSupported is the cluster validator IsTypeSupported(x, v) (§3.2):
// cluster x has a SKU on which v's VM type runs. Its predicate is
// Inventory.TypeSupported; on a machine, Inventory.Demand's second result
// says whether the machine's own SKU runs the type (AreNodeResourcesValid
// checks it).
type IsTypeSupported struct{}

var _ ClusterValidator = IsTypeSupported{}

func (IsTypeSupported) Name() string { return RuleIsTypeSupported }

func (IsTypeSupported) ValidCluster(env *Env, _ *Request, _ RequestKind, t Traits, c int32) bool {
	return env.Inv.TypeSupported(t[TraitType], c)
}

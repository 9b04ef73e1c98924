package optimizer

// RuleNodeAffinity names NodeAffinity.
const RuleNodeAffinity = "NodeAffinity"

// NodeAffinity keeps a VM on the machines its affinity set allows —
// Kubernetes' NodeAffinity and NodeName filters: a pod's nodeSelector and
// required node affinity, and the pin of a DaemonSet or static pod to its
// own node. With A(v) the VM's set (VMRequest.Affinity), machine x is valid
// for v iff A(v) = ⊥ or x ∈ A(v). It depends on the VM, not on a trait, so
// it escapes the cache and applies at pick time; a rack without a machine of
// the set is refused whole (RackValidator).
type NodeAffinity struct{}

var _ RackValidator = NodeAffinity{}

func (NodeAffinity) Name() string { return RuleNodeAffinity }

// Applies is true iff some VM of req has an affinity set.
func (NodeAffinity) Applies(req *Request) bool {
	for _, v := range req.VMs {
		if v.Affinity != 0 {
			return true
		}
	}
	return false
}

func (NodeAffinity) ValidFor(env *Env, _ *Request, v VMRequest, m int32) bool {
	return env.Inv.InSet(v.Affinity, m)
}

func (NodeAffinity) ValidRack(env *Env, _ *Request, v VMRequest, r int32) bool {
	return env.Inv.setAllowsRack(v.Affinity, r)
}

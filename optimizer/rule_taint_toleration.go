package optimizer

// RuleTaintToleration names TaintToleration.
const RuleTaintToleration = "TaintToleration"

// TaintToleration keeps a VM off the machines whose taints it does not
// tolerate — Kubernetes' TaintToleration filter over NoSchedule and
// NoExecute taints. With T(v) the set of machines none of whose such taints
// v leaves untolerated (VMRequest.Tolerated), machine x is valid for v iff
// T(v) = ⊥ or x ∈ T(v). It escapes the cache like NodeAffinity; a rack
// without a tolerated machine is refused whole.
type TaintToleration struct{}

var _ RackValidator = TaintToleration{}

func (TaintToleration) Name() string { return RuleTaintToleration }

// Applies is true iff some VM of req has a toleration set.
func (TaintToleration) Applies(req *Request) bool {
	for _, v := range req.VMs {
		if v.Tolerated != 0 {
			return true
		}
	}
	return false
}

func (TaintToleration) ValidFor(env *Env, _ *Request, v VMRequest, m int32) bool {
	return env.Inv.InSet(v.Tolerated, m)
}

func (TaintToleration) ValidRack(env *Env, _ *Request, v VMRequest, r int32) bool {
	return env.Inv.setAllowsRack(v.Tolerated, r)
}

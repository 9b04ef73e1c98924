package optimizer

// RulePodTopologySpread names PodTopologySpread.
const RulePodTopologySpread = "PodTopologySpread"

// PodTopologySpread bounds the skew of a tenant's VMs over clusters —
// Kubernetes' PodTopologySpread filter for a DoNotSchedule constraint on the
// zone key (a Kubernetes ingest makes one cluster per zone). With n_c(T) the
// tenant's VMs in cluster c, E(v) the clusters that hold a machine of v's
// affinity set (Kubernetes' default nodeAffinityPolicy Honor; taints are
// ignored, nodeTaintsPolicy Ignore) and S the request's MaxSkew, machine x
// is valid for v iff
//
//	S = 0  or  n_cluster(x)(T) + 1 − min_{c ∈ E(v)} n_c(T) ≤ S
//
// It depends on the tenant, so it escapes the cache and applies at pick
// time; the condition is the cluster's, so it refuses whole racks.
type PodTopologySpread struct{}

var _ RackValidator = PodTopologySpread{}

func (PodTopologySpread) Name() string { return RulePodTopologySpread }

// Applies is true iff the request bounds its skew.
func (PodTopologySpread) Applies(req *Request) bool { return req.MaxSkew > 0 }

func (PodTopologySpread) ValidFor(env *Env, req *Request, v VMRequest, m int32) bool {
	return SkewOK(env.State, req.Tenant, v.Affinity, req.MaxSkew, env.Inv.Machines[m].Cluster)
}

func (PodTopologySpread) ValidRack(env *Env, req *Request, v VMRequest, r int32) bool {
	return SkewOK(env.State, req.Tenant, v.Affinity, req.MaxSkew, env.Inv.Racks[r].Cluster)
}

// SkewOK is PodTopologySpread's predicate: one more VM of tenant t, whose
// affinity set is aff (0: every machine), in cluster c keeps the tenant's
// skew over the clusters aff allows within maxSkew (0: no bound).
func SkewOK(s *State, t int32, aff int32, maxSkew int32, c int32) bool {
	if maxSkew <= 0 {
		return true
	}
	inv := s.Inv
	n := make([]int32, len(inv.Clusters))
	s.eachTenantRack(t, func(r, k int32) { n[inv.Racks[r].Cluster] += k })
	lo := int32(-1)
	for x := range inv.Clusters {
		if inv.setAllowsCluster(aff, int32(x)) && (lo < 0 || n[x] < lo) {
			lo = n[x]
		}
	}
	if lo < 0 {
		lo = 0
	}
	return n[c]+1-lo <= maxSkew
}

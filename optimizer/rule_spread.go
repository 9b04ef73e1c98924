package optimizer

// RuleAvailabilitySetSpread names AvailabilitySetSpread.
const RuleAvailabilitySetSpread = "AvailabilitySetSpread"

// AvailabilitySetSpread keeps a tenant's availability set spread over its
// fault and update domains, so that a rack failure takes down at most one
// fault domain's share of the set and a zone-wide rollout of one machine
// update domain at most one update domain's share. With f(v) and u(v) VM
// v's fault and update domains (VMDomains; ⊥ when the request has none),
// rack(x) and ud(x) machine x's rack and machine update domain
// (Machine.UpdateDomain, numbered zone-wide), and W the placed VMs of v's
// tenant, machine x is valid for v iff
//
//	f(v) = ⊥  or  ∀ w ∈ W, f(w) ≠ ⊥, rack(w) = rack(x):  f(w) = f(v)
//	u(v) = ⊥  or  ∀ w ∈ W, u(w) ≠ ⊥, ud(w)   = ud(x):    u(w) = u(v)
//
// It depends on the tenant and on the VM, not on a trait, so it escapes
// the cache and is applied at pick time (a RequestValidator); its fault
// domain condition refuses whole racks (RackValidator). A request whose F
// or U is out of range (ValidateDomains) is refused everywhere.
type AvailabilitySetSpread struct{}

var _ RackValidator = AvailabilitySetSpread{}

func (AvailabilitySetSpread) Name() string { return RuleAvailabilitySetSpread }

// Applies is true iff the request is an availability set (F > 0 or U > 0).
func (AvailabilitySetSpread) Applies(req *Request) bool { return req.hasDomains() }

func (AvailabilitySetSpread) ValidFor(env *Env, req *Request, v VMRequest, m int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return false
	}
	fd, ud := VMDomains(req, v)
	return SpreadOK(env.State, req.Tenant, fd, ud, m)
}

func (AvailabilitySetSpread) ValidRack(env *Env, req *Request, v VMRequest, r int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return false
	}
	fd, _ := VMDomains(req, v)
	return spreadRackOK(env.State, req.Tenant, fd, r)
}

// SpreadOK is AvailabilitySetSpread's predicate: a VM of tenant t with
// fault domain fd and update domain ud (NoDomain: unconstrained) may go on
// machine m of s.
func SpreadOK(s *State, t int32, fd, ud Domain, m int32) bool {
	mc := &s.Inv.Machines[m]
	if !spreadRackOK(s, t, fd, mc.Rack) {
		return false
	}
	return ud == NoDomain || !s.otherUpdateDomainIn(t, mc.UpdateDomain, ud)
}

// spreadRackOK is the fault-domain condition: rack r holds no VM of tenant
// t with a fault domain other than fd (always true for NoDomain).
func spreadRackOK(s *State, t int32, fd Domain, r int32) bool {
	return fd == NoDomain || !s.otherFaultDomainIn(t, r, fd)
}

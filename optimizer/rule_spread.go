package optimizer

// RuleAvailabilitySetSpread names AvailabilitySetSpread.
const RuleAvailabilitySetSpread = "AvailabilitySetSpread"

// AvailabilitySetSpread keeps a tenant's availability set spread over its
// fault and update domains, so that a rack failure takes down at most one
// fault domain's share of the set and a zone-wide rollout of one machine
// update domain at most one update domain's share. With f(v) and u(v) VM
// v's fault and update domains (VMDomains; ⊥ when the request has none),
// rack(x) and ud(x) machine x's rack and machine update domain
// (Machine.UpdateDomain, numbered zone-wide), U the request's update
// domains and W the placed VMs of v's tenant, machine x is valid for v iff
//
//	f(v) = ⊥  or  ∀ w ∈ W, f(w) ≠ ⊥, rack(w) = rack(x):  f(w) = f(v)
//	u(v) = ⊥  or  ud(x) mod U = (u(v) + t mod U) mod U,  t = v's tenant
//
// Fault domains claim racks as the set grows (a rack holds one fault domain
// of a tenant). Update domains map onto machine update domains statically:
// the set's update domain k uses the machine update domains ≡ k + t
// (mod U), so VMs of different update domains never share a machine
// update domain and a rollout of one machine update domain touches one
// update domain of every set. The tenant's offset t spreads the sets'
// first VMs (most tenants have one VM, whose update domain is 0) over the
// zone instead of crowding them onto a fifth of the machines (on the
// Azure V1 dev split with U = 5, 17k VMs were refused without it). A dynamic claim, as for racks, traps a greedy allocator: an
// update domain whose VMs spread over several machine update domains
// leaves too few for the others (on a zone of 5 machine update domains and
// U = 5, most sets of 6 VMs were refused), while the zone has 20 machine
// update domains against a set's at most 20 (MaxUpdateDomains). A zone with
// fewer machine update domains than U has no machine for the set's higher
// update domains.
//
// It depends on the tenant and on the VM, not on a trait, so it escapes
// the cache and is applied at pick time (a RequestValidator); its fault
// domain condition refuses whole racks (RackValidator). A request whose F
// or U is out of range (ValidateDomains) is refused everywhere.
type AvailabilitySetSpread struct{}

var _ PreparedInRack = AvailabilitySetSpread{}

func (AvailabilitySetSpread) Name() string { return RuleAvailabilitySetSpread }

// Applies is true iff the request is an availability set (F > 0 or U > 0).
func (AvailabilitySetSpread) Applies(req *Request) bool { return req.hasDomains() }

func (AvailabilitySetSpread) ValidFor(env *Env, req *Request, v VMRequest, m int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return false
	}
	fd, ud := VMDomains(req, v)
	return SpreadOK(env.State, req.Tenant, fd, ud, req.UpdateDomains, m)
}

func (AvailabilitySetSpread) ValidRack(env *Env, req *Request, v VMRequest, r int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return false
	}
	fd, _ := VMDomains(req, v)
	return spreadRackOK(env.State, req.Tenant, fd, r)
}

// ValidInRack is the update-domain condition alone, for a machine whose
// rack passed ValidRack (the fault-domain condition is the rack's).
func (AvailabilitySetSpread) ValidInRack(env *Env, req *Request, v VMRequest, m int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return false
	}
	_, ud := VMDomains(req, v)
	return updateDomainOK(env.Inv, req.Tenant, ud, req.UpdateDomains, m)
}

// PrepareInRack is ValidInRack for VM v of req, its residue computed once.
func (AvailabilitySetSpread) PrepareInRack(env *Env, req *Request, v VMRequest) func(m int32) bool {
	u := req.UpdateDomains
	_, ud := VMDomains(req, v)
	switch {
	case !domainsInRange(req.FaultDomains, u):
		return func(int32) bool { return false }
	case ud == NoDomain:
		return func(int32) bool { return true }
	}
	want := (int32(ud.Index()) + (req.Tenant%u+u)%u) % u
	ms := env.Inv.Machines
	return func(m int32) bool { return int32(ms[m].UpdateDomain)%u == want }
}

// PrepareRack is ValidRack for VM v of req: the tenant's racks looked up
// once.
func (AvailabilitySetSpread) PrepareRack(env *Env, req *Request, v VMRequest) func(r int32) bool {
	if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
		return func(int32) bool { return false }
	}
	fd, _ := VMDomains(req, v)
	ts := env.State.spreadOf(req.Tenant)
	if fd == NoDomain || ts == nil {
		return func(int32) bool { return true }
	}
	k := fd.Index()
	return func(r int32) bool {
		a, ok := ts.rackFD[r]
		if !ok {
			return true
		}
		for i, n := range a {
			if n > 0 && i != k {
				return false
			}
		}
		return true
	}
}

// updateDomainOK is the update-domain condition: machine m's machine
// update domain is of the residue update domain ud of tenant t's set maps
// to (always true for NoDomain).
func updateDomainOK(inv *Inventory, t int32, ud Domain, u int32, m int32) bool {
	return ud == NoDomain || int32(inv.Machines[m].UpdateDomain)%u == (int32(ud.Index())+(t%u+u)%u)%u
}

// SpreadOK is AvailabilitySetSpread's predicate: a VM of tenant t with
// fault domain fd and update domain ud of u (NoDomain: unconstrained) may
// go on machine m of s.
func SpreadOK(s *State, t int32, fd, ud Domain, u int32, m int32) bool {
	if !updateDomainOK(s.Inv, t, ud, u, m) {
		return false
	}
	return spreadRackOK(s, t, fd, s.Inv.Machines[m].Rack)
}

// spreadRackOK is the fault-domain condition: rack r holds no VM of tenant
// t with a fault domain other than fd (always true for NoDomain).
func spreadRackOK(s *State, t int32, fd Domain, r int32) bool {
	return fd == NoDomain || !s.otherFaultDomainIn(t, r, fd)
}

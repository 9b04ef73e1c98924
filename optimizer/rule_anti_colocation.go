package optimizer

// RuleTenantAntiColocation names TenantAntiColocation.
const RuleTenantAntiColocation = "TenantAntiColocation"

// TenantAntiColocation bounds how many of a tenant's VMs share a fault
// domain (rack) or a machine: with n_r(T) the tenant's VMs in rack r and
// n_x(T) on machine x, x is valid iff n_rack(x)(T) < MaxPerRack and
// n_x(T) < MaxPerMachine (bounds of 0 are off). It depends on the tenant,
// not on a trait, so it escapes the cache and is applied at pick time; its
// rack bound refuses whole racks (RackValidator).
type TenantAntiColocation struct{}

var _ RackValidator = TenantAntiColocation{}

func (TenantAntiColocation) Name() string { return RuleTenantAntiColocation }

func (TenantAntiColocation) Applies(req *Request) bool {
	return req.MaxPerRack > 0 || req.MaxPerMachine > 0
}

func (TenantAntiColocation) ValidFor(env *Env, req *Request, _ VMRequest, m int32) bool {
	return AntiColocationOK(env.State, req, m)
}

func (TenantAntiColocation) ValidRack(env *Env, req *Request, _ VMRequest, r int32) bool {
	return rackOK(env.State, req, r)
}

// AntiColocationOK is TenantAntiColocation's predicate: machine m keeps
// req's tenant within its rack and machine bounds.
func AntiColocationOK(s *State, req *Request, m int32) bool {
	if !rackOK(s, req, s.Inv.Machines[m].Rack) {
		return false
	}
	return req.MaxPerMachine <= 0 || s.TenantOnMachine(req.Tenant, m) < req.MaxPerMachine
}

// rackOK is the rack bound: rack r holds fewer than MaxPerRack of the
// tenant's VMs (or there is no bound).
func rackOK(s *State, req *Request, r int32) bool {
	return req.MaxPerRack <= 0 || s.TenantInRack(req.Tenant, r) < req.MaxPerRack
}

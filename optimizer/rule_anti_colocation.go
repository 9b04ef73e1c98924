package optimizer

// TenantAntiColocation bounds how many of a tenant's VMs share a fault
// domain (rack) or a machine: with n_r(T) the tenant's VMs in rack r and
// n_x(T) on machine x, x is valid iff n_rack(x)(T) < MaxPerRack and
// n_x(T) < MaxPerMachine (bounds of 0 are off). It depends on the tenant,
// not on a trait, so it escapes the cache and is applied at pick time.
type TenantAntiColocation struct{}

var _ RequestValidator = TenantAntiColocation{}

func (TenantAntiColocation) Name() string { return "TenantAntiColocation" }

func (TenantAntiColocation) Applies(req *Request) bool {
	return req.MaxPerRack > 0 || req.MaxPerMachine > 0
}

func (TenantAntiColocation) ValidFor(env *Env, req *Request, m int32) bool {
	return antiColocationOK(env.State, req, m)
}

func antiColocationOK(s *State, req *Request, m int32) bool {
	if req.MaxPerRack > 0 && s.TenantInRack(req.Tenant, s.Inv.Machines[m].Rack) >= req.MaxPerRack {
		return false
	}
	if req.MaxPerMachine > 0 && s.TenantOnMachine(req.Tenant, m) >= req.MaxPerMachine {
		return false
	}
	return true
}

// rackBlocked reports whether the tenant's rack bound rules out all of rack r.
func rackBlocked(s *State, req *Request, r int32) bool {
	return req.MaxPerRack > 0 && s.TenantInRack(req.Tenant, r) >= req.MaxPerRack
}

package optimizer

import "fmt"

// Bounds of an availability set, from Azure's documentation of
// availability sets (Microsoft Learn, "Availability sets overview"): a set
// spans up to 3 fault domains and up to 20 update domains; the allocator
// slides also say "up to 20 UDs".
const (
	// MaxFaultDomains is the most fault domains (racks: shared power and
	// top-of-rack switch) an availability set may ask for.
	MaxFaultDomains = 3
	// MaxUpdateDomains is the most update domains (groups of machines
	// rebooted together by a platform update) an availability set may ask
	// for.
	MaxUpdateDomains = 20
)

// Domain is a VM's fault or update domain in its tenant's availability
// set, stored one-based so that the zero value means "no domain":
// Domain(0) is NoDomain and Domain(k+1) is domain k. Placement literals
// that set no domain therefore stay valid and cost the spread bookkeeping
// nothing.
type Domain int8

// NoDomain is the Domain of a VM outside any availability set (or of a set
// without that kind of domain).
const NoDomain Domain = 0

// DomainOf is domain k (0-based).
func DomainOf(k int32) Domain { return Domain(k + 1) }

// Index is the domain's 0-based number, -1 for NoDomain.
func (d Domain) Index() int { return int(d) - 1 }

// ValidateDomains refuses an availability set Azure would refuse: fault
// domains F outside 0..MaxFaultDomains or update domains U outside
// 0..MaxUpdateDomains (0 turns a kind of domain off). The engines refuse
// such a request with ReasonBadDomains.
func ValidateDomains(f, u int32) error {
	switch {
	case f < 0 || f > MaxFaultDomains:
		return fmt.Errorf("%w: %d fault domains, want 0..%d", ErrBadRequest, f, MaxFaultDomains)
	case u < 0 || u > MaxUpdateDomains:
		return fmt.Errorf("%w: %d update domains, want 0..%d", ErrBadRequest, u, MaxUpdateDomains)
	}
	return nil
}

// domainsInRange is ValidateDomains without the error value, for the
// per-VM path.
func domainsInRange(f, u int32) bool {
	return f >= 0 && f <= MaxFaultDomains && u >= 0 && u <= MaxUpdateDomains
}

// hasDomains reports whether req is an availability set (F > 0 or U > 0).
func (r *Request) hasDomains() bool { return r.FaultDomains > 0 || r.UpdateDomains > 0 }

// VMDomains is VM v's fault and update domain in req's availability set,
// round-robin as Azure assigns them: with i = v.SetIndex, fault domain
// i mod F and update domain i mod U (F = req.FaultDomains, U =
// req.UpdateDomains); NoDomain where F or U is 0 (or negative). A negative
// index counts from the end (i mod F taken in 0..F-1).
func VMDomains(req *Request, v VMRequest) (fd, ud Domain) {
	return roundRobin(v.SetIndex, req.FaultDomains), roundRobin(v.SetIndex, req.UpdateDomains)
}

// roundRobin is domain i mod n, NoDomain when n ≤ 0.
func roundRobin(i, n int32) Domain {
	if n <= 0 {
		return NoDomain
	}
	k := i % n
	if k < 0 {
		k += n
	}
	return DomainOf(k)
}

// tenantSpread is one tenant's availability-set bookkeeping in a State:
// how many of its VMs of each fault domain sit in each rack (the state
// AvailabilitySetSpread's fault-domain condition reads; its update-domain
// condition is static, and CheckInvariants recounts update domains from
// the placements). Only VMs with a fault domain are counted; an entry whose
// counts all reach 0 is deleted.
type tenantSpread struct {
	rackFD map[int32][MaxFaultDomains]int32
}

// addSpread counts p (d = +1) or uncounts it (d = −1) in its tenant's
// spread. p carries a domain. A domain out of range is a caller bug (the
// engines refuse such requests): it panics.
func (s *State) addSpread(p Placement, d int32) {
	fi, ui := p.FaultDomain.Index(), p.UpdateDomain.Index()
	if fi >= MaxFaultDomains || fi < -1 || ui >= MaxUpdateDomains || ui < -1 {
		panic(fmt.Sprintf("optimizer: VM %d: fault domain %d or update domain %d out of range", p.VM, p.FaultDomain, p.UpdateDomain))
	}
	if fi < 0 {
		return
	}
	ts := s.spread[p.Tenant]
	if ts == nil {
		// Entries of tenants that left are reused (their maps keep their
		// room): a trace of many short-lived tenants allocates little.
		if n := len(s.spreadFree); n > 0 {
			ts, s.spreadFree = s.spreadFree[n-1], s.spreadFree[:n-1]
		} else {
			ts = &tenantSpread{rackFD: map[int32][MaxFaultDomains]int32{}}
		}
		s.spread[p.Tenant] = ts
		s.spreadC = false
	}
	r := s.Inv.Machines[p.Machine].Rack
	a := ts.rackFD[r]
	if a[fi] += d; a == ([MaxFaultDomains]int32{}) {
		delete(ts.rackFD, r)
	} else {
		ts.rackFD[r] = a
	}
	if len(ts.rackFD) == 0 {
		delete(s.spread, p.Tenant)
		s.spreadFree = append(s.spreadFree, ts)
		s.spreadC = false
	}
}

// spreadOf is tenant t's entry in spread (nil: none), through the
// one-tenant cache.
func (s *State) spreadOf(t int32) *tenantSpread {
	if !s.spreadC || s.spreadT != t {
		s.spreadT, s.spreadP, s.spreadC = t, s.spread[t], true
	}
	return s.spreadP
}

// TenantFaultDomainsInRack is how many VMs of tenant t rack r hosts, per
// fault domain (index k: fault domain k; VMs without one are not counted).
func (s *State) TenantFaultDomainsInRack(t, r int32) [MaxFaultDomains]int32 {
	if ts := s.spread[t]; ts != nil {
		return ts.rackFD[r]
	}
	return [MaxFaultDomains]int32{}
}

// otherFaultDomainIn reports whether rack r holds a VM of tenant t whose
// fault domain is not fd.
func (s *State) otherFaultDomainIn(t, r int32, fd Domain) bool {
	ts := s.spreadOf(t)
	if ts == nil {
		return false
	}
	a, ok := ts.rackFD[r]
	if !ok {
		return false
	}
	k := fd.Index()
	for i, n := range a {
		if n > 0 && i != k {
			return true
		}
	}
	return false
}

// checkSpread recounts the spread bookkeeping from the placements and
// verifies the availability-set invariant: no rack holds VMs of two fault
// domains of one tenant, no machine update domain VMs of two update
// domains of one tenant.
func (s *State) checkSpread() error {
	type rk struct{ t, r int32 }
	type uk struct {
		t int32
		u int16
	}
	racks := map[rk][MaxFaultDomains]int32{}
	uds := map[uk][MaxUpdateDomains]int32{}
	for _, p := range s.vms {
		mc := &s.Inv.Machines[p.Machine]
		if k := p.FaultDomain.Index(); k >= 0 {
			if k >= MaxFaultDomains {
				return fmt.Errorf("VM %d: fault domain %d out of range", p.VM, k)
			}
			a := racks[rk{p.Tenant, mc.Rack}]
			a[k]++
			racks[rk{p.Tenant, mc.Rack}] = a
		}
		if k := p.UpdateDomain.Index(); k >= 0 {
			if k >= MaxUpdateDomains {
				return fmt.Errorf("VM %d: update domain %d out of range", p.VM, k)
			}
			a := uds[uk{p.Tenant, mc.UpdateDomain}]
			a[k]++
			uds[uk{p.Tenant, mc.UpdateDomain}] = a
		}
	}
	nr := 0
	for t, ts := range s.spread {
		for r, a := range ts.rackFD {
			nr++
			if want := racks[rk{t, r}]; a != want {
				return fmt.Errorf("tenant %d rack %d: VMs per fault domain %v, recount %v", t, r, a, want)
			}
		}
	}
	if nr != len(racks) {
		return fmt.Errorf("spread bookkeeping has %d rack entries, recount %d", nr, len(racks))
	}
	for k, a := range racks {
		if n := nonZero(a[:]); n > 1 {
			return fmt.Errorf("tenant %d: rack %d holds %d fault domains %v (availability set not spread)", k.t, k.r, n, a)
		}
	}
	for k, a := range uds {
		if n := nonZero(a[:]); n > 1 {
			return fmt.Errorf("tenant %d: machine update domain %d holds %d update domains %v (availability set not spread)", k.t, k.u, n, a)
		}
	}
	return nil
}

func nonZero(a []int32) int {
	n := 0
	for _, x := range a {
		if x != 0 {
			n++
		}
	}
	return n
}

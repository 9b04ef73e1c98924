package optimizer

import "slices"

// vmEngine is an engine's per-VM stage of Algorithm 1: find a machine for
// VM v of req on the engine's state (evicting low-priority VMs into
// d.Evicted if it must), filling ex when explanations are on. It returns
// the machine, or -1 and the rule that emptied the candidate set.
type vmEngine interface {
	placeVM(req *Request, kind RequestKind, v VMRequest, ex *Explanation, d *Decision) (int32, string)
	newExplanation(vm VMID) Explanation
}

// allocateGang is Algorithm 1, shared by Protean and the baselines: ORDER
// the VMs (largest first; for an availability set with fault domains, the
// most constrained fault domain first, unless cfg.SizeOrder — see
// orderByDomain), ask the engine for a machine for each in turn, placing
// each tentatively on s so the next VM sees it, and on the first VM that
// finds none roll the whole request back — placements removed, evicted VMs
// restored (gang allocation: all or nothing). The request kind (for the
// cluster buffers) is resolved once, before any VM is placed. A request
// with an availability set Azure would refuse (ValidateDomains) fails with
// ReasonBadDomains before any VM is placed.
func allocateGang(s *State, req *Request, cfg *Config, e vmEngine) Decision {
	d := Decision{Request: req.ID}
	if len(req.VMs) == 0 {
		d.Reason = ReasonEmptyRequest
		return d
	}
	explain := cfg.Explain
	byDomain := false
	if req.hasDomains() {
		if !domainsInRange(req.FaultDomains, req.UpdateDomains) {
			d.FailedVM, d.Reason = req.VMs[0].ID, ReasonBadDomains
			return d
		}
		byDomain = req.FaultDomains > 1 && len(req.VMs) > 1 && !cfg.SizeOrder
	}
	kind := resolveKind(s, req, req.Kind)
	vms := orderVMs(s.Inv, req.VMs)
	var open int64
	if byDomain {
		open = openRacks(s.Inv, req)
	}
	for i := range vms {
		if byDomain {
			orderByDomain(s, req, open, vms, i)
		}
		v := vms[i]
		if v.Type < 0 || int(v.Type) >= len(s.Inv.Types) {
			rollback(s, &d)
			d.FailedVM, d.Reason = v.ID, ReasonBadType
			return d
		}
		var ex *Explanation
		if explain {
			if d.Explain == nil {
				d.Explain = make([]Explanation, 0, len(req.VMs))
			}
			d.Explain = append(d.Explain, e.newExplanation(v.ID))
			ex = &d.Explain[len(d.Explain)-1]
		}
		m, reason := e.placeVM(req, kind, v, ex, &d)
		if m < 0 {
			rollback(s, &d)
			d.FailedVM, d.Reason = v.ID, reason
			return d
		}
		if ex != nil {
			ex.Chosen = m
		}
		pl := placementFor(s.Inv, req, v, m)
		s.Place(pl)
		d.Placements = append(d.Placements, pl)
	}
	d.OK = true
	return d
}

// evictFallback is the engines' common last resort for a VM no machine
// took: with Config.Evict, a high-priority VM evicts low-priority VMs
// (evictFor); the victims join d.Evicted and ex records the pick.
func evictFallback(env *Env, rules *Rules, req *Request, kind RequestKind, v VMRequest, ex *Explanation, d *Decision) int32 {
	if !env.Cfg.Evict || req.Priority != 0 {
		return -1
	}
	m, evicted := evictFor(env, rules, req, kind, v)
	if m < 0 {
		return -1
	}
	d.Evicted = append(d.Evicted, evicted...)
	if ex != nil {
		ex.Pick, ex.Evicted = PickEviction, len(evicted)
	}
	return m
}

// rollback undoes the tentative placements of a failed request; evicted
// VMs stay evicted only if the request succeeds, so they are restored.
func rollback(s *State, d *Decision) {
	for i := len(d.Placements) - 1; i >= 0; i-- {
		s.Remove(d.Placements[i].VM)
	}
	for _, e := range d.Evicted {
		s.Place(e)
	}
	d.Placements, d.Evicted = nil, nil
}

// Allocate runs Algorithm 1 (allocateGang) with Protean's machine
// selection: ORDER the VMs, assign each to a machine in turn on the
// agent's view, and commit all or roll back.
func (p *Protean) Allocate(req *Request) Decision {
	p.clock++
	p.pcg.Seed(p.cfg.Seed, uint64(req.ID))
	return allocateGang(p.env.State, req, &p.cfg, p)
}

// placeVM is Protean's per-VM stage: cluster and machine selection
// (assign), then the eviction fallback.
func (p *Protean) placeVM(req *Request, kind RequestKind, v VMRequest, ex *Explanation, d *Decision) (int32, string) {
	p.avoided = false
	m, reason := p.assign(req, kind, v, ex)
	if m < 0 {
		m = evictFallback(&p.env, &p.rules, req, kind, v, ex, d)
	}
	d.Avoided = d.Avoided || p.avoided
	return m, reason
}

// placementFor is VM v of req on machine m, with its availability-set
// domains (VMDomains) when req has any.
func placementFor(inv *Inventory, req *Request, v VMRequest, m int32) Placement {
	d, _ := inv.Demand(v.Type, m)
	p := Placement{VM: v.ID, Machine: m, Type: v.Type, Tenant: req.Tenant, Priority: req.Priority, Demand: d, Exclusive: req.Isolation,
		Production: req.Production, UtilBucket: req.UtilBucket, PredUtil: PredictedCores(req.UtilBucket, d[Cores]),
		LifetimeBucket: req.LifetimeBucket}
	if req.hasDomains() {
		p.FaultDomain, p.UpdateDomain = VMDomains(req, v)
	}
	return p
}

// orderVMs is ORDER of Algorithm 1: the largest VMs first (by their largest
// demand share on any SKU), so the VMs with the fewest candidate machines
// pick before the tenant's fault-domain budget is spent; ties keep request
// order.
func orderVMs(inv *Inventory, vms []VMRequest) []VMRequest {
	if len(vms) < 2 {
		return vms
	}
	out := slices.Clone(vms)
	slices.SortStableFunc(out, func(a, b VMRequest) int {
		sa, sb := vmSize(inv, a.Type), vmSize(inv, b.Type)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return out
}

// vmSize is ORDER's size of a VM of type t: its largest demand share on any
// SKU (0 for an unknown type).
func vmSize(inv *Inventory, t int32) float64 {
	if t < 0 || int(t) >= len(inv.Types) {
		return 0
	}
	best := 0.0
	for s, d := range inv.Types[t].Demand {
		c := inv.SKUs[s].Capacity
		for i := range d {
			if c[i] > 0 && d[i]/c[i] > best {
				best = d[i] / c[i]
			}
		}
	}
	return best
}

// orderByDomain is ORDER's fault-domain step for a request with F ≥ 2
// fault domains (Protean §4: ORDER exists "to minimize the risk that a
// request is rejected due to fault domain considerations"). Before VM i is
// placed it moves to position i the largest remaining VM of the most
// constrained fault domain. With n_f the VMs of fault domain f among
// vms[i:], R the racks open to the request (openRacks) and b_f those of
// them holding a VM of the tenant whose fault domain is not f — placed by
// earlier requests or tentatively by this one, so that f may not use them
// (AvailabilitySetSpread) —, a_f = R − b_f racks remain admissible to f,
// and the domain placed next maximizes the pressure
//
//	n_f / a_f   (compared as n_f·a_g ≷ n_g·a_f; a_f = 0 counts as ∞),
//
// ties going to the domain whose largest remaining VM comes first in the
// size order (orderVMs). A domain that has few racks left for many VMs
// claims its racks before the other domains' VMs take them; a domain with
// none left fails the request at once. vms[i:] keeps the size order within
// each domain. Cost O(len(vms) + F·R_T) per VM, R_T the racks holding the
// tenant's VMs; requests without fault domains never come here.
func orderByDomain(s *State, req *Request, open int64, vms []VMRequest, i int) {
	nf := int(req.FaultDomains)
	var left, blocked [MaxFaultDomains]int64
	var dem [MaxFaultDomains]float64
	first := [MaxFaultDomains]int{-1, -1, -1}
	for j := i; j < len(vms); j++ {
		fd, _ := VMDomains(req, vms[j])
		k := fd.Index()
		left[k]++
		dem[k] += vmSize(s.Inv, vms[j].Type)
		if first[k] < 0 {
			first[k] = j
		}
	}
	if ts := s.spread[req.Tenant]; ts != nil {
		for r, a := range ts.rackFD {
			if req.Clusters != nil && !RequestedCluster(req.Clusters, s.Inv.Racks[r].Cluster) {
				continue
			}
			for f := 0; f < nf; f++ {
				for g, n := range a {
					if n > 0 && g != f {
						blocked[f]++
						break
					}
				}
			}
		}
	}
	best := -1
	for f := 0; f < nf; f++ {
		if left[f] == 0 {
			continue
		}
		if best < 0 {
			best = f
			continue
		}
		var c int
		switch orderVariant {
		case 1:
			c = comparePressureF(dem[f], open-blocked[f], dem[best], open-blocked[best])
		default:
			c = comparePressure(left[f], open-blocked[f], left[best], open-blocked[best])
		}
		if c > 0 || c == 0 && first[f] < first[best] {
			best = f
		}
	}
	j := first[best]
	v := vms[j]
	copy(vms[i+1:j+1], vms[i:j])
	vms[i] = v
}

// comparePressure is the sign of n1/a1 − n2/a2 for n ≥ 0, with a ≤ 0
// counting as an infinite pressure (two infinite pressures tie).
func comparePressure(n1, a1, n2, a2 int64) int {
	switch {
	case a1 <= 0 && a2 <= 0:
		return 0
	case a1 <= 0:
		return 1
	case a2 <= 0:
		return -1
	}
	l, r := n1*a2, n2*a1
	switch {
	case l > r:
		return 1
	case l < r:
		return -1
	}
	return 0
}

// openRacks is how many racks req may use: those of its Clusters (the
// valid indices among them), or every rack of the zone.
func openRacks(inv *Inventory, req *Request) int64 {
	if req.Clusters == nil {
		return int64(len(inv.Racks))
	}
	var n int64
	for c := range inv.Clusters {
		if RequestedCluster(req.Clusters, int32(c)) {
			n += int64(len(inv.Clusters[c].Racks))
		}
	}
	return n
}

var orderVariant = 0

func comparePressureF(n1 float64, a1 int64, n2 float64, a2 int64) int {
	switch {
	case a1 <= 0 && a2 <= 0:
		return 0
	case a1 <= 0:
		return 1
	case a2 <= 0:
		return -1
	}
	l, r := n1*float64(a2), n2*float64(a1)
	switch {
	case l > r:
		return 1
	case l < r:
		return -1
	}
	return 0
}

package optimizer

import (
	"cmp"
	"slices"
)

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
// domainOrder), ask the engine for a machine for each in turn, placing
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
	var byFD *domainOrder
	if byDomain {
		byFD = newDomainOrder(s.Inv, req, vms)
	}
	for i := range vms {
		if byFD != nil {
			byFD.next(s, req, vms, i)
		}
		v := vms[i]
		if v.Type < 0 || int(v.Type) >= len(s.Inv.Types) {
			gangFailure(&d, vms, i, byFD)
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
			gangFailure(&d, vms, i, byFD)
			rollback(s, &d)
			d.FailedVM, d.Reason = v.ID, reason
			return d
		}
		ex.chosen(m)
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
	ex.evicted(len(evicted))
	return m
}

// gangFailure records, before the rollback, that VM i of vms (in the order
// tried) found no machine: the VMs before it held d.Placements. With the
// fault-domain order (byFD non-nil) only vms[:i+1] are in the order tried
// (next writes position i as it goes); the VMs never tried are those left
// in byFD's queues, listed in the size order.
func gangFailure(d *Decision, vms []VMRequest, i int, byFD *domainOrder) {
	g := &GangFailure{Order: make([]VMID, 0, len(vms)), Tried: i + 1, RolledBack: make([]int32, len(d.Placements))}
	for _, v := range vms[:i+1] {
		g.Order = append(g.Order, v.ID)
	}
	if byFD == nil {
		for _, v := range vms[i+1:] {
			g.Order = append(g.Order, v.ID)
		}
	} else {
		type left struct {
			pos int32
			id  VMID
		}
		var rest []left
		for k := range byFD.queue {
			for h := byFD.head[k]; h < len(byFD.queue[k]); h++ {
				rest = append(rest, left{byFD.pos[k][h], byFD.queue[k][h].ID})
			}
		}
		slices.SortFunc(rest, func(a, b left) int { return cmp.Compare(a.pos, b.pos) })
		for _, r := range rest {
			g.Order = append(g.Order, r.id)
		}
	}
	for k, p := range d.Placements {
		g.RolledBack[k] = p.Machine
	}
	d.Gang = g
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
		LifetimeBucket: req.LifetimeBucket, Affinity: v.Affinity, Tolerated: v.Tolerated,
		MaxPerRack: req.MaxPerRack, MaxPerMachine: req.MaxPerMachine, MaxSkew: req.MaxSkew, Life: v.Life, Start: req.Time}
	if req.hasDomains() {
		p.FaultDomain, p.UpdateDomain = VMDomains(req, v)
		p.SetF, p.SetU, p.SetIndex = int8(req.FaultDomains), int8(req.UpdateDomains), v.SetIndex
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

// domainOrder is ORDER's fault-domain step for a request with F ≥ 2 fault
// domains (Protean §4: ORDER exists "to minimize the risk that a request is
// rejected due to fault domain considerations"). Before VM i is placed,
// next moves to position i the largest remaining VM (first in the size
// order of orderVMs) of the most constrained fault domain, on the state as
// the request's earlier VMs left it. For a fault domain f let n_f be its
// VMs among vms[i:], D_f the sum of their sizes (vmSize), O_f the racks
// holding a VM of the tenant of domain f, b_f those holding one of another
// domain (AvailabilitySetSpread keeps f off them), and a_f = R − b_f the
// racks still admissible to f, R the racks open to the request
// (openRacks). With U the domains that have VMs left but no rack yet
// (n_f > 0, O_f = ∅) and E the open racks holding none of the tenant's
// fault-domain VMs:
//
//  1. claim: if U ≠ ∅ and |E| ≤ |U|, the next domain is the one of U
//     whose largest VM comes first. Any VM of a domain that already has a
//     rack could otherwise spread into a rack of E and leave a domain of U
//     with none (with R = F every domain gets exactly one rack).
//  2. pressure: otherwise the domain maximizing D_f / a_f (compared as
//     D_f·a_g ≷ D_g·a_f; a_f = 0 counts as ∞, so a domain with no rack
//     left fails the request at once), ties to the domain whose largest
//     VM comes first.
//
// Each domain's VMs wait in a queue in the size order; n_f and D_f are
// kept as VMs leave them. Cost O(F·R_T) per VM, R_T the racks holding the
// tenant's VMs; requests without fault domains never come here.
type domainOrder struct {
	open  int64                        // R
	queue [MaxFaultDomains][]VMRequest // each domain's VMs left, in size order
	pos   [MaxFaultDomains][]int32     // their positions in the size order
	suf   [MaxFaultDomains][]float64   // suf[f][h]: the sizes (vmSize) of queue[f][h:] summed
	head  [MaxFaultDomains]int         // the next of each queue
}

// newDomainOrder prepares ORDER's fault-domain step for vms, the VMs of
// req in size order.
func newDomainOrder(inv *Inventory, req *Request, vms []VMRequest) *domainOrder {
	o := &domainOrder{open: openRacks(inv, req)}
	var size [MaxFaultDomains][]float64
	for j, v := range vms {
		fd, _ := VMDomains(req, v)
		k := fd.Index()
		o.queue[k] = append(o.queue[k], v)
		o.pos[k] = append(o.pos[k], int32(j))
		size[k] = append(size[k], vmSize(inv, v.Type))
	}
	// Suffix sums, each summed from the smallest VM up as a fresh sum over
	// the remaining VMs would be: equal remainders give equal sums.
	for k := range o.queue {
		o.suf[k] = make([]float64, len(size[k])+1)
		for h := len(size[k]) - 1; h >= 0; h-- {
			o.suf[k][h] = o.suf[k][h+1] + size[k][h]
		}
	}
	return o
}

// next moves the VM to place at position i there (see domainOrder).
func (o *domainOrder) next(s *State, req *Request, vms []VMRequest, i int) {
	nf := int(req.FaultDomains)
	var owned, blocked, left [MaxFaultDomains]int64
	var demand [MaxFaultDomains]float64
	first := [MaxFaultDomains]int{-1, -1, -1}
	for k := 0; k < nf; k++ {
		if h := o.head[k]; h < len(o.queue[k]) {
			first[k], left[k], demand[k] = int(o.pos[k][h]), int64(len(o.queue[k])-h), o.suf[k][h]
		}
	}
	var used int64 // open racks holding the tenant's fault-domain VMs
	if ts := s.spread[req.Tenant]; ts != nil {
		for r, a := range ts.rackFD {
			if req.Clusters != nil && !RequestedCluster(req.Clusters, s.Inv.Racks[r].Cluster) {
				continue
			}
			used++
			for f := 0; f < nf; f++ {
				if a[f] > 0 {
					owned[f]++
				}
				for g, n := range a {
					if n > 0 && g != f {
						blocked[f]++
						break
					}
				}
			}
		}
	}
	var unclaimed int64
	for f := 0; f < nf; f++ {
		if left[f] > 0 && owned[f] == 0 {
			unclaimed++
		}
	}
	claim := unclaimed > 0 && o.open-used <= unclaimed
	best := -1
	for f := 0; f < nf; f++ {
		if left[f] == 0 || claim && owned[f] > 0 {
			continue
		}
		if best < 0 {
			best = f
			continue
		}
		c := 0
		if !claim {
			c = comparePressure(demand[f], o.open-blocked[f], demand[best], o.open-blocked[best])
		}
		if c > 0 || c == 0 && first[f] < first[best] {
			best = f
		}
	}
	vms[i] = o.queue[best][o.head[best]]
	o.head[best]++
}

// comparePressure is the sign of d1/a1 − d2/a2 for d ≥ 0, an a ≤ 0
// counting as an infinite pressure (two infinite pressures tie).
func comparePressure(d1 float64, a1 int64, d2 float64, a2 int64) int {
	switch {
	case a1 <= 0 && a2 <= 0:
		return 0
	case a1 <= 0:
		return 1
	case a2 <= 0:
		return -1
	}
	l, r := d1*float64(a2), d2*float64(a1)
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

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
// the VMs (largest first), ask the engine for a machine for each in turn,
// placing each tentatively on s so the next VM sees it, and on the first VM
// that finds none roll the whole request back — placements removed,
// evicted VMs restored (gang allocation: all or nothing). The request kind
// (for the cluster buffers) is resolved once, before any VM is placed.
func allocateGang(s *State, req *Request, explain bool, e vmEngine) Decision {
	d := Decision{Request: req.ID}
	if len(req.VMs) == 0 {
		d.Reason = ReasonEmptyRequest
		return d
	}
	kind := resolveKind(s, req, req.Kind)
	for _, v := range orderVMs(s.Inv, req.VMs) {
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
	return allocateGang(p.env.State, req, p.cfg.Explain, p)
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

// placementFor is VM v of req on machine m.
func placementFor(inv *Inventory, req *Request, v VMRequest, m int32) Placement {
	d, _ := inv.Demand(v.Type, m)
	return Placement{VM: v.ID, Machine: m, Type: v.Type, Tenant: req.Tenant, Priority: req.Priority, Demand: d, Exclusive: req.Isolation,
		Production: req.Production, UtilBucket: req.UtilBucket, PredUtil: PredictedCores(req.UtilBucket, d[Cores]),
		LifetimeBucket: req.LifetimeBucket}
}

// orderVMs is ORDER of Algorithm 1: the largest VMs first (by their largest
// demand share on any SKU), so the VMs with the fewest candidate machines
// pick before the tenant's fault-domain budget is spent; ties keep request
// order.
func orderVMs(inv *Inventory, vms []VMRequest) []VMRequest {
	if len(vms) < 2 {
		return vms
	}
	size := func(v VMRequest) float64 {
		if v.Type < 0 || int(v.Type) >= len(inv.Types) {
			return 0
		}
		best := 0.0
		for s, d := range inv.Types[v.Type].Demand {
			c := inv.SKUs[s].Capacity
			for i := range d {
				if c[i] > 0 && d[i]/c[i] > best {
					best = d[i] / c[i]
				}
			}
		}
		return best
	}
	out := slices.Clone(vms)
	slices.SortStableFunc(out, func(a, b VMRequest) int {
		sa, sb := size(a), size(b)
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

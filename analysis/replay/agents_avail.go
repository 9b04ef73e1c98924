package replay

import (
	"container/heap"
	"math"
	"slices"

	"placelab/optimizer"
)

// agentAvail replays outages in a multi-agent run (simulated time): the
// store's machines go down and come back (published to every agent's view
// as EventHealth), a hard failure's VMs leave the store and come back as
// heal requests that the agents decide and commit like any other, in the
// stages the single agent uses (the tenant's VMs together in their
// cluster, then — HealZone — in the zone, then one by one), and a VM no
// stage places is a healing failure. Counters, moves and outage rows are
// the single agent's (avail), so the figures mean the same.
type agentAvail struct {
	*avail
	// heals is the heal information of each heal request (by index into
	// the run's requests).
	heals map[int]*agentHealReq
}

type agentHealReq struct {
	failT float64
	group []healing
	stage int // 0 together in the cluster, 1 together in the zone, 2 alone in the cluster, 3 alone in the zone
}

func newAgentAvail(cfg *Availability, tr *Trace, store *optimizer.CommitStore, end map[int64]float64, reqs []optimizer.Request) *agentAvail {
	a := newAvail(cfg, tr, nil, func(vm int64) float64 { return end[vm] }, int64(len(reqs)))
	inv := tr.Inv
	a.down = make([]int32, len(inv.Machines))
	a.healthy = make([]bool, len(inv.Machines))
	for m := range inv.Machines {
		a.healthy[m] = inv.Machines[m].Healthy
	}
	for i, o := range cfg.Outages {
		rack := ""
		if o.Rack >= 0 {
			rack = inv.Racks[o.Rack].Name
		}
		a.rows = append(a.rows, OutageRow{Machine: tr.MachineIDs[o.Machine], T: o.Start, Duration: o.Duration,
			Kind: o.Kind.String(), Rack: rack, Source: o.Source})
		// the queue runReal reads (runSim queues the outages with its own events)
		a.q = append(a.q, outEvent{o.Start, true, i}, outEvent{o.Start + o.Duration, false, i})
	}
	heap.Init(&a.q)
	a.store = store
	return &agentAvail{avail: a, heals: map[int]*agentHealReq{}}
}

// outage applies the start or end of outage i to the store, as the
// single agent does (avail's down1, hit and up). Trace times are the
// outage's own (simulated time maps back to them only up to rounding).
func (a *agentAvail) outage(i int, start bool) {
	if start {
		a.down1(i)
		a.hit(i)
		return
	}
	a.up(i)
}

// flush turns the pending VMs into heal requests (one per tenant and
// priority, high priority first), handing each to enqueue.
func (a *agentAvail) flush(enqueue func(optimizer.Request, *agentHealReq)) {
	a.endInstant()
	if len(a.pending) == 0 {
		return
	}
	lost := a.pending
	a.pending = nil
	slices.SortStableFunc(lost, func(x, y healing) int {
		if x.p.Priority != y.p.Priority {
			return int(x.p.Priority) - int(y.p.Priority)
		}
		if x.p.Tenant != y.p.Tenant {
			return int(x.p.Tenant) - int(y.p.Tenant)
		}
		return int(x.p.VM - y.p.VM)
	})
	for i := 0; i < len(lost); {
		j := i
		for j < len(lost) && lost[j].p.Priority == lost[i].p.Priority && lost[j].p.Tenant == lost[i].p.Tenant {
			j++
		}
		group := lost[i:j:j]
		i = j
		a.st.healRequests++
		a.st.healVMs += len(group)
		a.st.requestedVMs += len(group)
		enqueue(a.healRequest(a.pendT, group), &agentHealReq{failT: a.pendT, group: group})
	}
}

// resolved records the outcome of heal request h, committed (ok, with its
// placements) or refused (reason: the rule that left it no machine) at
// trace time t, and hands the next stage's requests to enqueue.
func (a *agentAvail) resolved(h *agentHealReq, ok bool, placed []optimizer.Placement, reason string, t float64,
	enqueue func(optimizer.Request, *agentHealReq)) {
	if ok {
		from := map[int64]int32{}
		for _, g := range h.group {
			from[g.p.VM] = g.from
		}
		for _, p := range placed {
			a.st.placedVMs++
			e := a.endOf(p.VM)
			a.st.downtimeS += math.Max(0, math.Min(e, t+a.cfg.HealDelay)-h.failT)
			a.move(h.failT, p.VM, from[p.VM], a.tr.MachineIDs[p.Machine], t)
			if e <= t { // it ended while it waited: gone at once
				a.store.Release(p.VM)
			}
		}
		return
	}
	next := func(stage int, group []healing) {
		if stage == 1 && !a.cfg.HealZone {
			stage = 2
		}
		if stage == 3 && !a.cfg.HealZone {
			stage = 4
		}
		if stage == 4 {
			for _, g := range group {
				a.st.healFailed++
				a.lost = append(a.lost, lostVM{g.p.VM, h.failT, a.endOf(g.p.VM)})
				a.fail(h.failT, g.p.VM, g.from, reason)
			}
			return
		}
		if stage == 2 && len(group) > 1 {
			for k := range group {
				a.enqueueStage(group[k:k+1:k+1], h.failT, 2, enqueue)
			}
			return
		}
		a.enqueueStage(group, h.failT, stage, enqueue)
	}
	next(h.stage+1, h.group)
}

func (a *agentAvail) enqueueStage(group []healing, failT float64, stage int, enqueue func(optimizer.Request, *agentHealReq)) {
	req := a.healRequest(failT, group)
	if stage == 1 || stage == 3 {
		req.Clusters = nil
	}
	enqueue(req, &agentHealReq{failT: failT, group: group, stage: stage})
}

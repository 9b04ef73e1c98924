package replay

import (
	"container/heap"
	"math"
	"slices"

	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

// Availability is what a replay does beyond arrivals and departures
// (issue 27, after the allocator slides and Protean §2–3): machines go
// down, hard failures are healed, tenants spread over fault and update
// domains. The zero value (or a nil *Availability) is today's replay.
type Availability struct {
	// Outages to replay, each with its source ("model", "file" or
	// "maintenance"), in any order. A machine takes no placement while any
	// of its outages lasts; a hard outage's VMs are healed at its start.
	Outages []Outage
	// HealDelay is how long (seconds) a healed VM is down before it runs
	// again on its new machine (service healing).
	HealDelay float64
	// HealZone lets a heal that finds no room in the failed machine's
	// cluster use any cluster of the zone (the slides heal in the cluster
	// first; Protean §2 reallocates within the zone).
	HealZone bool
	// FaultDomains and UpdateDomains (F, U; 0 = off): each tenant's VMs form
	// an availability set; VM i of the set (in arrival order) gets fault
	// domain i mod F and update domain i mod U, and the rule set's
	// AvailabilitySetSpread keeps the domains apart.
	FaultDomains, UpdateDomains int32
}

// Outage is one machine's outage in a replay, with where it came from.
type Outage struct {
	outage.Outage
	Source string
}

// Outage sources.
const (
	SourceModel       = "model"
	SourceFile        = "file"
	SourceMaintenance = "maintenance"
)

// On reports whether the replay does anything beyond today's.
func (a *Availability) On() bool {
	return a != nil && (len(a.Outages) > 0 || a.FaultDomains > 0 || a.UpdateDomains > 0)
}

func (a *Availability) domains() bool {
	return a != nil && (a.FaultDomains > 0 || a.UpdateDomains > 0)
}

func (a *Availability) outages() []Outage {
	if a == nil {
		return nil
	}
	return a.Outages
}

// OutageRow is an outage as stored (table outage).
type OutageRow struct {
	Machine  int32 // database machine_id
	T        float64
	Duration float64
	Kind     string
	Rack     string // the failed rack's name for a rack failure, "" otherwise
	Source   string
}

// MoveRow is a VM leaving a failed machine at T (table vm_move): To is the
// database machine_id it was healed to at Placed (≥ T), -1 for a healing
// failure (Placed NaN).
type MoveRow struct {
	VM       int64
	Seq      int32
	T        float64
	From, To int32
	Placed   float64
	// FailedRule, for a healing failure (To < 0), is the rule that left
	// its last attempt no machine (the engine's rejection reason).
	FailedRule string
}

// outEvent is an outage starting or ending.
type outEvent struct {
	t     float64
	start bool
	i     int // index into Availability.Outages
}

type outQueue []outEvent

func (q outQueue) Len() int { return len(q) }
func (q outQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.start != b.start {
		return !a.start // ends before starts: a machine back at t takes placements at t
	}
	return a.i < b.i
}
func (q outQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *outQueue) Push(x any)   { *q = append(*q, x.(outEvent)) }
func (q *outQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// availStats are the availability figures of a run (Summary's fields of
// the same names).
type availStats struct {
	newVMs, newFailed         int
	scaleoutVMs, scaleoutFail int
	healRequests              int
	healVMs, healFailed       int
	requestedVMs, placedVMs   int
	downtimeS                 float64
	machineFailures           int
	rackFailures              int
	reboots, maintenance      int
	maxDownShare              float64
	overBound                 int
}

// avail is a run's availability tracker, the one of every path: it
// applies the outages to the run's state (one allocator's, or the
// multi-agent commit store's, published to every agent as EventHealth),
// turns a hard failure's VMs into heal requests, takes their outcomes, and
// keeps the figures, moves and outage rows. A heal request is handed to the
// run's driver (heals' submit): one engine decides it at once (atOnce),
// agents decide and commit it like any other request. Its stages are the
// same on every path: the tenant's VMs together in their failed machines'
// clusters, then — HealZone — in the zone, then one by one (in the cluster,
// then the zone), and a VM no stage places is a healing failure.
type avail struct {
	cfg   *Availability
	tr    *Trace
	alloc optimizer.Allocator
	state *optimizer.State
	// store is the multi-agent run's commit store (nil for one agent).
	store *optimizer.CommitStore
	// atOnce: heal requests are decided at the instant of the failure
	// (one engine). A tenant's VMs are then ordered by the machine they
	// failed on before their id, and a healed VM's downtime is the heal
	// delay (both as the one-agent replay always had them).
	atOnce bool
	// endOf is a VM's end in the trace (+Inf: alive past it), asked for
	// VMs alive at the time of asking.
	endOf   func(vm int64) float64
	q       outQueue
	down    []int32 // outages in progress per machine
	healthy []bool  // the inventory's own health, restored at the end
	nextReq int64   // request ids of heal requests
	seq     map[int64]int32
	racks   map[[2]float64]bool // rack failures (rack, start) counted
	lost    []lostVM            // healing failures, down until their end
	moves   []MoveRow
	rows    []OutageRow
	st      availStats
	// pending holds the VMs of the machines that failed hard at pendT,
	// waiting to be healed; maint counts, per tenant, its VMs the current
	// instant's maintenance windows took down.
	pending []healing
	pendT   float64
	maint   map[int32]int32
	// early marks the outages whose machine takeDown took out of service
	// ahead of their instant (real time), downAt that instant.
	early  map[int]bool
	downAt float64
}

// healReq is what the tracker knows of a heal request it handed out.
type healReq struct {
	id    int64 // the request's id (a zone stage keeps its cluster stage's)
	failT float64
	group []healing
	stage int // 0 together in the cluster, 1 together in the zone, 2 alone in the cluster, 3 alone in the zone
}

// heals is how a run hands a heal request to its driver; the driver tells
// the tracker its outcome (resolved).
type heals func(optimizer.Request, *healReq)

type lostVM struct {
	vm     int64
	t, end float64
}

// newAvail is the tracker of a run on alloc's state (one engine) or on
// store (agents); with neither, or no cfg, it only counts requests.
func newAvail(cfg *Availability, tr *Trace, alloc optimizer.Allocator, store *optimizer.CommitStore, endOf func(int64) float64, firstReq int64) *avail {
	a := &avail{cfg: cfg, tr: tr, alloc: alloc, store: store, atOnce: alloc != nil, endOf: endOf, nextReq: firstReq,
		seq: map[int64]int32{}, racks: map[[2]float64]bool{}, downAt: math.NaN()}
	if alloc != nil {
		a.state = alloc.State()
	}
	if cfg == nil || alloc == nil && store == nil {
		return a
	}
	inv := tr.Inv
	a.down = make([]int32, len(inv.Machines))
	a.healthy = make([]bool, len(inv.Machines))
	for m := range inv.Machines {
		a.healthy[m] = inv.Machines[m].Healthy
	}
	for i, o := range cfg.Outages {
		a.q = append(a.q, outEvent{o.Start, true, i}, outEvent{o.Start + o.Duration, false, i})
		rack := ""
		if o.Rack >= 0 {
			rack = inv.Racks[o.Rack].Name
		}
		a.rows = append(a.rows, OutageRow{Machine: tr.MachineIDs[o.Machine], T: o.Start, Duration: o.Duration,
			Kind: o.Kind.String(), Rack: rack, Source: o.Source})
	}
	heap.Init(&a.q)
	return a
}

// next is the time of the next outage event, +Inf when none is left.
func (a *avail) next() float64 {
	if len(a.q) == 0 {
		return math.Inf(1)
	}
	return a.q[0].t
}

// numberSets puts every request's VMs in their tenant's availability set
// when cfg has domains: VM i of a tenant in arrival order (request order,
// then the request's own order) gets SetIndex i, whatever became of the
// VMs before it, so every policy and every path numbers a trace alike.
func numberSets(cfg *Availability, reqs []optimizer.Request) {
	n := setNumbers{}
	for i := range reqs {
		n.number(cfg, &reqs[i])
	}
}

// domainsOf are the stored fault and update domains of VM v (-1: off).
func domainsOf(cfg *Availability, v optimizer.VMRequest) (fd, ud int16) {
	fd, ud = -1, -1
	if cfg == nil {
		return
	}
	if f := cfg.FaultDomains; f > 0 {
		fd = int16(v.SetIndex % f)
	}
	if u := cfg.UpdateDomains; u > 0 {
		ud = int16(v.SetIndex % u)
	}
	return
}

// count records a request's outcome by the buffer it used.
func (a *avail) count(kind optimizer.RequestKind, vms int, ok bool) {
	a.st.requestedVMs += vms
	if ok {
		a.st.placedVMs += vms
	}
	switch kind {
	case optimizer.KindScaleOut:
		a.st.scaleoutVMs += vms
		if !ok {
			a.st.scaleoutFail += vms
		}
	case optimizer.KindNew:
		a.st.newVMs += vms
		if !ok {
			a.st.newFailed += vms
		}
	}
}

// healing is one VM of a failed machine waiting to be healed.
type healing struct {
	p    optimizer.Placement
	from int32
}

// instant applies every outage event at time t: ends first (a machine
// back at t takes placements at t), then starts; then the VMs of the
// machines that failed hard at t are handed to submit as heal requests.
func (a *avail) instant(t float64, submit heals) {
	for len(a.q) > 0 && a.q[0].t == t {
		e := heap.Pop(&a.q).(outEvent)
		if !e.start {
			a.up(e.i)
			continue
		}
		if a.early[e.i] {
			delete(a.early, e.i)
		} else {
			a.down1(e.i)
		}
		a.hit(e.i)
	}
	a.flush(submit)
}

// takeDown takes the machines of the outages starting at t out of service
// ahead of the instant (instant then only hits their VMs): real-time
// agents commit while the loop moves, and none of their commits recorded
// at t may land on a machine that fails at t.
func (a *avail) takeDown(t float64) {
	if a.downAt == t {
		return
	}
	a.downAt = t
	for _, e := range a.q {
		if e.t == t && e.start && !a.early[e.i] {
			if a.early == nil {
				a.early = map[int]bool{}
			}
			a.early[e.i] = true
			a.down1(e.i)
		}
	}
}

// down1 takes outage i's machine out of service: no placement lands on it
// from now on.
func (a *avail) down1(i int) {
	m := a.cfg.Outages[i].Machine
	if a.down[m]++; a.down[m] == 1 && a.healthy[m] {
		a.setHealthy(m, false)
	}
}

// up ends outage i: its machine is back in service when no other outage
// holds it.
func (a *avail) up(i int) {
	m := a.cfg.Outages[i].Machine
	if a.down[m]--; a.down[m] == 0 && a.healthy[m] {
		a.setHealthy(m, true)
	}
}

// hit applies what outage i does to the VMs of its machine (down1 took the
// machine out already): a hard failure's leave the run's state and wait in
// pending to be healed; a reboot's or maintenance's stay, down for the
// outage (a maintenance window's are counted per tenant for the largest
// share of a tenant down at once, closed by endInstant).
func (a *avail) hit(i int) {
	o := &a.cfg.Outages[i]
	vms := a.vmsOn(o.Machine)
	switch o.Kind {
	case outage.Hard:
		if o.Rack >= 0 {
			if k := [2]float64{float64(o.Rack), o.Start}; !a.racks[k] {
				a.racks[k] = true
				a.st.rackFailures++
			}
		} else {
			a.st.machineFailures++
		}
		for _, p := range vms {
			a.release(p.VM)
			a.pending = append(a.pending, healing{p, o.Machine})
		}
		a.pendT = o.Start
	case outage.Reboot, outage.Planned:
		if o.Kind == outage.Reboot {
			a.st.reboots++
		} else {
			a.st.maintenance++
			if a.maint == nil {
				a.maint = map[int32]int32{}
			}
		}
		for _, p := range vms {
			a.st.downtimeS += math.Min(o.Duration, a.endOf(p.VM)-o.Start)
			if o.Kind == outage.Planned {
				a.maint[p.Tenant]++
			}
		}
	}
}

// endInstant closes the outages of one instant: the largest share of a
// tenant's VMs the instant's maintenance windows took down.
func (a *avail) endInstant() {
	for tenant, n := range a.maint {
		all := a.tenantVMs(tenant)
		if all <= 0 {
			continue
		}
		a.st.maxDownShare = math.Max(a.st.maxDownShare, float64(n)/float64(all))
		if u := a.cfg.UpdateDomains; u > 0 && n > (all+u-1)/u {
			a.st.overBound++ // more than ⌈n/U⌉ of the tenant down in one window
		}
	}
	clear(a.maint)
}

// vmsOn, release and tenantVMs read and change the run's state: the
// allocator's, or (agents) the commit store's.
func (a *avail) vmsOn(m int32) []optimizer.Placement {
	var out []optimizer.Placement
	read := func(st *optimizer.State) {
		for _, vm := range st.VMsOn(m) {
			p, _ := st.Lookup(vm)
			out = append(out, p)
		}
	}
	if a.store != nil {
		a.store.WithState(read)
	} else {
		read(a.state)
	}
	return out
}

func (a *avail) release(vm int64) {
	if a.store != nil {
		a.store.Release(vm)
		return
	}
	a.alloc.Release(vm)
}

func (a *avail) tenantVMs(t int32) int32 {
	if a.store == nil {
		return a.state.TenantVMs(t)
	}
	var n int32
	a.store.WithState(func(st *optimizer.State) { n = st.TenantVMs(t) })
	return n
}

// flush closes the instant and hands the VMs of the machines that failed
// hard at it to submit: one heal request per tenant and priority (KindHeal:
// the healing buffer applies), high priority first, tenants in order,
// pinned to the failed machines' clusters.
func (a *avail) flush(submit heals) {
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
		if a.atOnce && x.from != y.from {
			return int(x.from) - int(y.from)
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
		a.stage(submit, group, a.pendT, 0, -1)
	}
}

// healRequest is the heal request of group (one tenant and priority),
// pinned to the failed machines' clusters (ID unset).
func (a *avail) healRequest(t float64, group []healing) optimizer.Request {
	p0 := group[0].p
	req := optimizer.Request{Tenant: p0.Tenant, Time: t, Priority: p0.Priority, Isolation: p0.Exclusive,
		Production: p0.Production, UtilBucket: p0.UtilBucket, LifetimeBucket: p0.LifetimeBucket, Kind: optimizer.KindHeal,
		MaxPerRack: p0.MaxPerRack, MaxPerMachine: p0.MaxPerMachine, MaxSkew: p0.MaxSkew}
	if a.cfg.domains() {
		req.FaultDomains, req.UpdateDomains = a.cfg.FaultDomains, a.cfg.UpdateDomains
	}
	for _, h := range group {
		req.VMs = append(req.VMs, optimizer.VMRequest{ID: h.p.VM, Type: h.p.Type, SetIndex: h.p.SetIndex,
			Affinity: h.p.Affinity, Tolerated: h.p.Tolerated, Life: h.p.Life})
		c := a.tr.Inv.Machines[h.from].Cluster
		if !slices.Contains(req.Clusters, c) {
			req.Clusters = append(req.Clusters, c)
		}
	}
	return req
}

// stage hands group's heal request of the given stage to submit; a zone
// stage (1, 3) is its cluster stage's request (id) without the clusters.
func (a *avail) stage(submit heals, group []healing, failT float64, stage int, id int64) {
	req := a.healRequest(failT, group)
	if stage == 1 || stage == 3 {
		req.ID, req.Clusters = id, nil
	} else {
		req.ID = a.nextReq
		a.nextReq++
	}
	submit(req, &healReq{id: req.ID, failT: failT, group: group, stage: stage})
}

// resolved records the outcome of heal request h, committed (ok, with its
// placements) or refused (reason: the rule that left it no machine) at
// trace time t, and hands the next stage's requests to submit.
func (a *avail) resolved(h *healReq, ok bool, placed []optimizer.Placement, reason string, t float64, submit heals) {
	if ok {
		from := map[int64]int32{}
		for _, g := range h.group {
			from[g.p.VM] = g.from
		}
		for _, p := range placed {
			a.st.placedVMs++
			e := a.endOf(p.VM)
			if a.atOnce {
				a.st.downtimeS += math.Min(a.cfg.HealDelay, e-t)
			} else {
				a.st.downtimeS += math.Max(0, math.Min(e, t+a.cfg.HealDelay)-h.failT)
			}
			a.move(h.failT, p.VM, from[p.VM], a.tr.MachineIDs[p.Machine], t)
			if e <= t { // it ended while it waited: gone at once
				a.release(p.VM)
			}
		}
		return
	}
	stage := h.stage + 1
	if stage == 1 && !a.cfg.HealZone {
		stage = 2
	}
	if stage == 3 && !a.cfg.HealZone {
		stage = 4
	}
	switch {
	case stage == 4:
		for _, g := range h.group {
			a.st.healFailed++
			a.lost = append(a.lost, lostVM{g.p.VM, h.failT, a.endOf(g.p.VM)})
			a.fail(h.failT, g.p.VM, g.from, reason)
		}
	case stage == 2 && len(h.group) > 1:
		for k := range h.group {
			a.stage(submit, h.group[k:k+1:k+1], h.failT, 2, -1)
		}
	default:
		a.stage(submit, h.group, h.failT, stage, h.id)
	}
}

func (a *avail) move(t float64, vm int64, from int32, to int32, placed float64) {
	a.seq[vm]++
	a.moves = append(a.moves, MoveRow{VM: vm, Seq: a.seq[vm], T: t, From: a.tr.MachineIDs[from], To: to, Placed: placed})
}

// fail records a healing failure of vm at t and the rule that refused it.
func (a *avail) fail(t float64, vm int64, from int32, rule string) {
	a.move(t, vm, from, -1, math.NaN())
	a.moves[len(a.moves)-1].FailedRule = rule
}

// finish closes the run at trace time last: healing failures are down
// until their end (or last), and the inventory gets its own health back
// (the trace's inventory is shared with other runs).
func (a *avail) finish(last float64) {
	for _, l := range a.lost {
		a.st.downtimeS += math.Max(0, math.Min(l.end, last)-l.t)
	}
	for m, n := range a.down {
		if n > 0 && a.healthy[m] {
			a.setHealthy(int32(m), true)
		}
	}
}

// setHealthy changes a machine's health in the run's state: the
// allocator's, or (agents) the commit store's, which tells every agent.
func (a *avail) setHealthy(m int32, healthy bool) {
	if a.store != nil {
		a.store.SetHealthy(m, healthy)
		return
	}
	a.state.SetHealthy(m, healthy)
}

// summarize fills the availability fields of s and the run's figures.
func (a *avail) summarize(s *Summary) {
	st := &a.st
	rate := func(bad, all int) float64 {
		if all == 0 {
			return 0
		}
		return float64(bad) / float64(all)
	}
	s.NewDeploymentFailureRate = rate(st.newFailed, st.newVMs)
	s.ScaleoutFailureRate = rate(st.scaleoutFail, st.scaleoutVMs)
	s.HealRequests = st.healRequests
	s.HealVMs = st.healVMs
	s.HealFailedVMs = st.healFailed
	s.HealFailureRate = rate(st.healFailed, st.healVMs)
	s.CFR = 1
	if st.requestedVMs > 0 {
		s.CFR = float64(st.placedVMs) / float64(st.requestedVMs)
	}
	s.VMDowntimeHours = st.downtimeS / 3600
	s.MachineFailures = st.machineFailures
	s.RackFailures = st.rackFailures
	s.Reboots = st.reboots
	s.MaintenanceOutages = st.maintenance
	s.MaintenanceMaxDownShare = st.maxDownShare
	s.MaintenanceOverBound = st.overBound
}

// availabilityFigures are the run-level figures stored in run_metric at the
// run's last instant, under their summary names.
func availabilityFigures(s *Summary, t float64) []MetricRow {
	return []MetricRow{
		{t, "new_deployment_failure_rate", s.NewDeploymentFailureRate},
		{t, "scaleout_failure_rate", s.ScaleoutFailureRate},
		{t, "heal_requests", float64(s.HealRequests)},
		{t, "heal_vms", float64(s.HealVMs)},
		{t, "heal_failed_vms", float64(s.HealFailedVMs)},
		{t, "heal_failure_rate", s.HealFailureRate},
		{t, "cfr", s.CFR},
		{t, "vm_downtime_hours", s.VMDowntimeHours},
		{t, "machine_failures", float64(s.MachineFailures)},
		{t, "rack_failures", float64(s.RackFailures)},
		{t, "reboots", float64(s.Reboots)},
		{t, "maintenance_outages", float64(s.MaintenanceOutages)},
		{t, "maintenance_max_down_share", s.MaintenanceMaxDownShare},
		{t, "maintenance_over_bound", float64(s.MaintenanceOverBound)},
	}
}

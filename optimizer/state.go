package optimizer

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// VMID identifies a VM across a run.
type VMID = int64

// Placement is a VM on a machine.
type Placement struct {
	VM       VMID
	Machine  int32
	Type     int32
	Tenant   int32
	Priority uint8
	Demand   Vec
	// Production and PredUtil (predicted P95 cores in use) feed the CPU
	// oversubscription bookkeeping of Resource Central's Algorithm 1.
	Production bool
	UtilBucket int8 // the request's predicted P95 bucket (Request.UtilBucket)
	PredUtil   float64
	// Exclusive: the VM required isolation (no other tenant on its machine).
	Exclusive bool
	// LifetimeBucket is the request's predicted lifetime bucket
	// (Request.LifetimeBucket), counted in State.LifetimeVMs.
	LifetimeBucket int8
	// Pin says whether the VM belongs to its machine (PinNode, PinStatic):
	// the online engines keep it there through its affinity set alone; the
	// planners never move it (PlanMigrations, the drain).
	Pin Pin
	// FaultDomain and UpdateDomain are the VM's domains in its tenant's
	// availability set (VMDomains), one-based: the zero value NoDomain
	// means none, so a Placement literal that sets neither is outside any
	// set. The State counts the VMs that carry a domain per tenant, rack
	// and machine update domain (AvailabilitySetSpread's state).
	FaultDomain, UpdateDomain Domain
	// SetF, SetU and SetIndex are the availability set the VM was placed
	// in (Request.FaultDomains, UpdateDomains, VMRequest.SetIndex; 0 when
	// none): a VM rebuilt from its placement (migration, healing) is asked
	// about in the set it belongs to.
	SetF, SetU int8
	SetIndex   int32
	// Affinity and Tolerated are the VM's node sets (VMRequest), and
	// MaxPerRack, MaxPerMachine and MaxSkew its request's tenant bounds
	// (Request): a VM rebuilt from its placement (migration, healing) is
	// held to the constraints it was placed under.
	Affinity, Tolerated                int32
	MaxPerRack, MaxPerMachine, MaxSkew int32
	// Life is the VM's predicted lifetime distribution (VMRequest.Life) and
	// Start its placement time (the request's): the machine's predicted
	// empty time is repredicted from them (State.Repredict).
	Life  LifetimeDist
	Start float64
}

// Pin is how a VM belongs to its machine.
type Pin uint8

// The pins.
const (
	// PinNone: the VM may move.
	PinNone Pin = iota
	// PinNode: a Kubernetes DaemonSet pod, one per node: it never moves
	// and goes with its machine when the machine is emptied of the rest.
	PinNode
	// PinStatic: a static pod (the kubelet runs it from a manifest, as the
	// control plane's): it never moves and its machine is never emptied.
	PinStatic
)

type tenantCount struct {
	tenant int32
	n      int32
}

// State is the placement state of every machine: the allocation agent's
// view of the inventory. Every change is recorded in its Journal so that
// cached objects can bring themselves up to date from the machines that
// changed (§5.2.4).
type State struct {
	Inv *Inventory
	// Used is the resources allocated on each machine; LowUsed the part of
	// it held by low-priority (evictable) VMs.
	Used, LowUsed []Vec
	// Count is the number of VMs per machine.
	Count []int32
	// Exclusive is the tenant holding a machine exclusively (RequireIsolation), or -1.
	Exclusive []int32
	onMachine [][]VMID
	tenantsOn [][]tenantCount
	vms       map[VMID]Placement
	// ClusterEmpty counts empty healthy machines per cluster: the unit of
	// the slides' cluster buffers.
	ClusterEmpty     []int32
	ClusterHealthy   []int32 // healthy machines per cluster
	ClusterUsedCores []float64
	RackUsedCores    []float64
	// tenants holds where each tenant's VMs are: by tenant id for the ids
	// below maxDenseTenant (a trace numbers its tenants from 0, so a slice
	// index replaces a map lookup on every placement and departure; an
	// entry with no VM is empty), in tenantsX for the others (only tenants
	// with VMs placed). spans counts the VMs per rack of the tenants whose
	// VMs are in more than one rack (tenantLoc.rack == spanned): most
	// tenants' are in one, and need no map.
	tenants  []tenantLoc
	tenantsX map[int32]*tenantLoc
	spans    map[int32]map[int32]int32
	Journal  *Journal
	// Tag is each machine's oversubscription class (RC Algorithm 1,
	// PLACEVM): set by the first VM an empty machine receives, cleared when
	// it empties. PredUtil sums the predicted P95 cores of the VMs of
	// oversubscribable machines.
	Tag      []MachineTag
	PredUtil []float64
	// LowPredUtil is the part of PredUtil held by low-priority VMs.
	LowPredUtil []float64
	// LifetimeVMs counts each machine's VMs per predicted lifetime bucket
	// (index 0: no prediction; Placement.LifetimeBucket), the state of
	// PreferAlignedLifetime. Like PredUtil it changes only through Place
	// and Remove.
	LifetimeVMs [][NumLifetimeBuckets]int32
	// OversubLimit, when > 0, lets oversubscribable machines hold up to
	// OversubLimit × their cores (MAX_OVERSUB); CheckInvariants allows it.
	OversubLimit float64
	// spread is the availability-set bookkeeping per tenant (only tenants
	// with VMs that carry a domain have an entry): VMs per fault domain in
	// each rack, per update domain in each machine update domain.
	spread map[int32]*tenantSpread
	// spreadT and spreadP cache the last tenant looked up in spread
	// (machine selection asks about one tenant for every rack); spreadP is
	// nil when that tenant has no entry. addSpread keeps it right.
	spreadT    int32
	spreadP    *tenantSpread
	spreadC    bool
	spreadFree []*tenantSpread // entries of tenants that left, for reuse
	// LifeEnd and LifeClass are, when EnableLifeClasses turned them on,
	// each machine's predicted empty time (of its VMs with a lifetime
	// distribution, the latest repredicted end when all are known, else
	// the median time by which all have ended: refreshLife; NaN when none
	// has one) and its class (LifeClassOf of LifeEnd − LifeNow; 0: none),
	// as of LifeNow, the last Repredict, and updated by every placement
	// and removal. Nil when off.
	LifeEnd     []float64
	LifeClass   []int8
	LifeNow     float64
	lifeScratch []lifeVM // medianEmptyTime's
	healthEpoch uint64
	// feed, when set, receives every change of a machine's VMs or health
	// (Feed).
	feed *[]MachineChange
}

// MachineChange is one change of a machine's VMs or health, with the
// machine's values after it: what a reader that follows the state from
// another goroutine needs (State.Feed), without reading the state.
type MachineChange struct {
	Machine int32
	Kind    ChangeKind
	// VM, Type and Demand are the VM placed or removed (zero for a
	// health change).
	VM     VMID
	Type   int32
	Demand Vec
	// Used, Count, Tag and Healthy are the machine's after the change.
	Used    Vec
	Count   int32
	Tag     MachineTag
	Healthy bool
}

// ChangeKind is what a MachineChange did.
type ChangeKind int8

// The kinds of MachineChange.
const (
	VMPlaced ChangeKind = iota
	VMRemoved
	HealthChanged
)

// Feed asks the state to append every later change of a machine's VMs
// or health (Place, Remove, SetHealthy) to *log. The state has one feed:
// Feed sets log as it unless another log holds it, and reports whether
// log holds it. The reader drains the log (keeping the pointer), checks
// with Feeds that it still holds the feed, and lets go with Unfeed. A log
// that grows past the zone's machine count (at least 1024 changes)
// undrained loses the feed, so a reader gone without Unfeed costs bounded
// memory: its reader finds it lost and reads the state again. Used, Count
// and Tag change only through these, so a reader that copied them once
// and applies the changes has them exactly.
func (s *State) Feed(log *[]MachineChange) bool {
	if s.feed == nil {
		s.feed = log
	}
	return s.Feeds(log)
}

// Feeds reports whether log holds the state's feed (Feed).
func (s *State) Feeds(log *[]MachineChange) bool { return log != nil && s.feed == log }

// Unfeed ends log's feed, if it holds it.
func (s *State) Unfeed(log *[]MachineChange) {
	if s.Feeds(log) {
		s.feed = nil
	}
}

func (s *State) record(m int32, k ChangeKind, p *Placement) {
	c := MachineChange{Machine: m, Kind: k, Used: s.Used[m], Count: s.Count[m], Tag: s.Tag[m], Healthy: s.Inv.Machines[m].Healthy}
	if p != nil {
		c.VM, c.Type, c.Demand = p.VM, p.Type, p.Demand
	}
	if len(*s.feed) >= max(len(s.Inv.Machines), 1024) {
		*s.feed = (*s.feed)[:0]
		s.feed = nil // lost: its reader reads the state again
		return
	}
	*s.feed = append(*s.feed, c)
}

// MachineTag is a machine's oversubscription class.
type MachineTag int8

// The tags of RC Algorithm 1.
const (
	TagEmpty            MachineTag = iota // hosts nothing: takes either kind
	TagProduction                         // non-oversubscribable: production VMs only
	TagOversubscribable                   // non-production VMs only
)

// NewState returns an empty state over inv.
func NewState(inv *Inventory) *State {
	n := len(inv.Machines)
	s := &State{
		Inv: inv, Used: make([]Vec, n), LowUsed: make([]Vec, n), Count: make([]int32, n),
		Exclusive: make([]int32, n), onMachine: make([][]VMID, n), tenantsOn: make([][]tenantCount, n),
		vms: map[VMID]Placement{}, ClusterEmpty: make([]int32, len(inv.Clusters)), ClusterHealthy: make([]int32, len(inv.Clusters)),
		ClusterUsedCores: make([]float64, len(inv.Clusters)), RackUsedCores: make([]float64, len(inv.Racks)),
		tenantsX: map[int32]*tenantLoc{}, spans: map[int32]map[int32]int32{},
		Journal: NewJournal(inv), Tag: make([]MachineTag, n), PredUtil: make([]float64, n), LowPredUtil: make([]float64, n),
		LifetimeVMs: make([][NumLifetimeBuckets]int32, n), spread: map[int32]*tenantSpread{},
	}
	for m := range s.Exclusive {
		s.Exclusive[m] = -1
		if inv.Machines[m].Healthy {
			s.ClusterEmpty[inv.Machines[m].Cluster]++
			s.ClusterHealthy[inv.Machines[m].Cluster]++
		}
	}
	return s
}

// Free is what machine m has left.
func (s *State) Free(m int32) Vec { return s.Inv.Capacity(m).Sub(s.Used[m]) }

// Empty reports whether machine m hosts no VM.
func (s *State) Empty(m int32) bool { return s.Count[m] == 0 }

// Lookup returns where a VM is.
func (s *State) Lookup(vm VMID) (Placement, bool) {
	p, ok := s.vms[vm]
	return p, ok
}

// VMsOn lists the VMs on machine m (shared slice; do not modify).
func (s *State) VMsOn(m int32) []VMID { return s.onMachine[m] }

// Len is the number of placed VMs.
func (s *State) Len() int { return len(s.vms) }

// TenantOnMachine is how many VMs of tenant t machine m hosts.
func (s *State) TenantOnMachine(t int32, m int32) int32 {
	for _, tc := range s.tenantsOn[m] {
		if tc.tenant == t {
			return tc.n
		}
	}
	return 0
}

// TenantInRack is how many VMs of tenant t rack r hosts.
func (s *State) TenantInRack(t int32, r int32) int32 {
	switch tl := s.tenantOf(t); {
	case tl == nil:
		return 0
	case tl.rack == spanned:
		return s.spans[t][r]
	case tl.rack == r:
		return tl.vms
	}
	return 0
}

// eachTenantRack calls fn for every rack holding VMs of tenant t, with
// their number.
func (s *State) eachTenantRack(t int32, fn func(r, n int32)) {
	switch tl := s.tenantOf(t); {
	case tl == nil:
	case tl.rack == spanned:
		for r, n := range s.spans[t] {
			fn(r, n)
		}
	default:
		fn(tl.rack, tl.vms)
	}
}

// maxDenseTenant bounds the tenant ids State.tenants holds by index.
const maxDenseTenant = 1 << 22

// tenantOf is tenant t's locations, nil if it has no VM placed.
func (s *State) tenantOf(t int32) *tenantLoc {
	if uint32(t) < uint32(len(s.tenants)) {
		if tl := &s.tenants[t]; tl.vms > 0 {
			return tl
		}
		return nil
	}
	return s.tenantsX[t]
}

// addTenantLoc counts one VM of tenant t more (d = 1) or less (d = −1)
// in rack r.
func (s *State) addTenantLoc(t, r, d int32) {
	var tl *tenantLoc
	switch {
	case uint32(t) < uint32(len(s.tenants)):
		tl = &s.tenants[t]
	case t >= 0 && t < maxDenseTenant && d > 0:
		s.tenants = slices.Grow(s.tenants, int(t)+1-len(s.tenants))
		s.tenants = s.tenants[:cap(s.tenants)]
		tl = &s.tenants[t]
	default:
		if tl = s.tenantsX[t]; tl == nil {
			if d < 0 {
				return
			}
			tl = &tenantLoc{}
			s.tenantsX[t] = tl
		}
	}
	switch {
	case tl.vms == 0:
		if d > 0 {
			tl.vms, tl.rack = d, r
		}
		return
	case tl.rack == r:
		tl.vms += d
	case tl.rack != spanned:
		if d < 0 {
			return // not in r
		}
		s.spans[t] = map[int32]int32{tl.rack: tl.vms, r: d}
		tl.vms, tl.rack = tl.vms+d, spanned
	default:
		racks := s.spans[t]
		if n := racks[r] + d; n > 0 {
			racks[r] = n
		} else {
			delete(racks, r)
		}
		tl.vms += d
		if len(racks) == 1 { // back in one rack
			for r := range racks {
				tl.rack = r
			}
			delete(s.spans, t)
		}
	}
	if tl.vms <= 0 {
		*tl = tenantLoc{}
		if uint32(t) >= uint32(len(s.tenants)) {
			delete(s.tenantsX, t)
		}
	}
}

// tenantLoc is where a tenant's VMs are: how many are placed, and the
// rack that holds them all, or spanned when they are in several (then
// State.spans counts them per rack). One lookup of the tenant serves both
// on every placement and departure.
type tenantLoc struct {
	vms  int32
	rack int32 // the rack holding them all, or spanned: their racks are in State.spans
}

// spanned marks a tenant whose VMs are in more than one rack.
const spanned int32 = -1

// TenantVMs is how many VMs tenant t has placed.
func (s *State) TenantVMs(t int32) int32 {
	if tl := s.tenantOf(t); tl != nil {
		return tl.vms
	}
	return 0
}

// Place records p. It panics if the VM is already placed (a caller bug);
// capacity is the caller's to check (the commit store checks it).
func (s *State) Place(p Placement) {
	// One map operation where a lookup and an insert would be two: a
	// second placement of a VM does not grow the map.
	n := len(s.vms)
	s.vms[p.VM] = p
	if len(s.vms) == n {
		panic(fmt.Sprintf("optimizer: VM %d placed twice", p.VM))
	}
	m := p.Machine
	mc := s.Inv.Machines[m]
	if s.Count[m] == 0 {
		if mc.Healthy {
			s.ClusterEmpty[mc.Cluster]--
		}
		s.Tag[m] = TagOversubscribable
		if p.Production {
			s.Tag[m] = TagProduction
		}
	}
	if s.Tag[m] == TagOversubscribable {
		s.PredUtil[m] += p.PredUtil
		if p.Priority > 0 {
			s.LowPredUtil[m] += p.PredUtil
		}
	}
	s.LifetimeVMs[m][lifetimeIndex(p.LifetimeBucket)]++
	s.Used[m] = s.Used[m].Add(p.Demand)
	if p.Priority > 0 {
		s.LowUsed[m] = s.LowUsed[m].Add(p.Demand)
	}
	s.Count[m]++
	if p.Exclusive {
		s.Exclusive[m] = p.Tenant
	}
	s.onMachine[m] = append(s.onMachine[m], p.VM)
	s.addTenant(m, p.Tenant, 1)
	s.ClusterUsedCores[mc.Cluster] += p.Demand[Cores]
	s.RackUsedCores[mc.Rack] += p.Demand[Cores]
	s.addTenantLoc(p.Tenant, mc.Rack, 1)
	if p.FaultDomain != NoDomain || p.UpdateDomain != NoDomain {
		s.addSpread(p, 1)
	}
	if s.LifeEnd != nil && p.Life.Known && p.Life.Sigma > 0 {
		s.refreshLife(m) // the machine's empty time is a median over all its VMs
	} else if s.LifeEnd != nil && p.Life.Known {
		if e := lifeEnd(&p, s.LifeNow); math.IsNaN(s.LifeEnd[m]) || e > s.LifeEnd[m] {
			s.LifeEnd[m] = e
			s.LifeClass[m] = LifeClassOf(e - s.LifeNow)
		}
	}
	s.Journal.Touch(m, mc.Cluster)
	if s.feed != nil {
		s.record(m, VMPlaced, &p)
	}
}

// Remove takes a VM off its machine and returns where it was.
func (s *State) Remove(vm VMID) (Placement, bool) {
	p, ok := s.vms[vm]
	if !ok {
		return p, false
	}
	delete(s.vms, vm)
	m := p.Machine
	mc := s.Inv.Machines[m]
	s.Used[m] = s.Used[m].Sub(p.Demand)
	if p.Priority > 0 {
		s.LowUsed[m] = s.LowUsed[m].Sub(p.Demand)
	}
	if s.Tag[m] == TagOversubscribable {
		s.PredUtil[m] -= p.PredUtil
		if p.Priority > 0 {
			s.LowPredUtil[m] -= p.PredUtil
		}
	}
	s.LifetimeVMs[m][lifetimeIndex(p.LifetimeBucket)]--
	s.Count[m]--
	if s.Count[m] == 0 {
		s.Used[m], s.LowUsed[m] = Vec{}, Vec{} // drop float residue
		s.Tag[m], s.PredUtil[m], s.LowPredUtil[m] = TagEmpty, 0, 0
		if mc.Healthy {
			s.ClusterEmpty[mc.Cluster]++
		}
	}
	if p.Exclusive && s.Exclusive[m] == p.Tenant && s.TenantOnMachine(p.Tenant, m) == 1 {
		s.Exclusive[m] = -1
	}
	vs := s.onMachine[m]
	for i, v := range vs {
		if v == vm {
			vs[i] = vs[len(vs)-1]
			s.onMachine[m] = vs[:len(vs)-1]
			break
		}
	}
	s.addTenant(m, p.Tenant, -1)
	s.ClusterUsedCores[mc.Cluster] -= p.Demand[Cores]
	s.RackUsedCores[mc.Rack] -= p.Demand[Cores]
	s.addTenantLoc(p.Tenant, mc.Rack, -1)
	if p.FaultDomain != NoDomain || p.UpdateDomain != NoDomain {
		s.addSpread(p, -1)
	}
	if s.LifeEnd != nil && p.Life.Known {
		s.refreshLife(m)
	}
	s.Journal.Touch(m, mc.Cluster)
	if s.feed != nil {
		s.record(m, VMRemoved, &p)
	}
	return p, true
}

func (s *State) addTenant(m, t, d int32) {
	ts := s.tenantsOn[m]
	for i := range ts {
		if ts[i].tenant == t {
			ts[i].n += d
			if ts[i].n == 0 {
				ts[i] = ts[len(ts)-1]
				s.tenantsOn[m] = ts[:len(ts)-1]
			}
			return
		}
	}
	if d > 0 {
		s.tenantsOn[m] = append(ts, tenantCount{t, d})
	}
}

// asIfFree answers fn on a hypothetical state in which demand (and the
// predicted use pred) of machine m's low-priority VMs is counted as free:
// it leaves Used and LowUsed, and PredUtil when m is oversubscribable.
// Nothing else changes — VM counts, tenants, tags, cluster sums and the
// journal stay as they are, so cached evaluations never hear of it — and
// the three values are restored exactly afterwards. It is how the eviction
// fallback asks the rule set's validators about a machine "once its
// low-priority VMs are gone". fn must not change the state.
func (s *State) asIfFree(m int32, demand Vec, pred float64, fn func() bool) bool {
	used, low, pu := s.Used[m], s.LowUsed[m], s.PredUtil[m]
	s.Used[m], s.LowUsed[m] = used.Sub(demand), low.Sub(demand)
	if s.Tag[m] == TagOversubscribable {
		s.PredUtil[m] = pu - pred
	}
	ok := fn()
	s.Used[m], s.LowUsed[m], s.PredUtil[m] = used, low, pu
	return ok
}

// HealthEpoch counts the health changes (SetHealthy) so far: what depends
// on machines' health only is unchanged while it is.
func (s *State) HealthEpoch() uint64 { return s.healthEpoch }

// SetHealthy changes a machine's health (an inventory event).
func (s *State) SetHealthy(m int32, healthy bool) {
	mc := &s.Inv.Machines[m]
	if mc.Healthy == healthy {
		return
	}
	if s.Count[m] == 0 {
		if healthy {
			s.ClusterEmpty[mc.Cluster]++
		} else {
			s.ClusterEmpty[mc.Cluster]--
		}
	}
	if healthy {
		s.ClusterHealthy[mc.Cluster]++
	} else {
		s.ClusterHealthy[mc.Cluster]--
	}
	s.healthEpoch++
	mc.Healthy = healthy
	s.Journal.Touch(m, mc.Cluster)
	if s.feed != nil {
		s.record(m, HealthChanged, nil)
	}
}

// CheckInvariants verifies capacity in every dimension, isolation, the
// availability-set spread (no rack holds two fault domains of a tenant, no
// machine update domain two of its update domains) and the bookkeeping
// counters against a recount. Tests call it after every placement.
func (s *State) CheckInvariants() error {
	inv := s.Inv
	used := make([]Vec, len(inv.Machines))
	count := make([]int32, len(inv.Machines))
	tenants := make([]map[int32]bool, len(inv.Machines))
	lifetimes := make([][NumLifetimeBuckets]int32, len(inv.Machines))
	inRack := map[[2]int32]int32{} // (tenant, rack) → VMs
	for _, p := range s.vms {
		inRack[[2]int32{p.Tenant, inv.Machines[p.Machine].Rack}]++
		if !inv.InSet(p.Affinity, p.Machine) || !inv.InSet(p.Tolerated, p.Machine) {
			return fmt.Errorf("VM %d on machine %d outside its node sets (affinity %d, tolerated %d)", p.VM, p.Machine, p.Affinity, p.Tolerated)
		}
		used[p.Machine] = used[p.Machine].Add(p.Demand)
		count[p.Machine]++
		lifetimes[p.Machine][lifetimeIndex(p.LifetimeBucket)]++
		if tenants[p.Machine] == nil {
			tenants[p.Machine] = map[int32]bool{}
		}
		tenants[p.Machine][p.Tenant] = true
	}
	// The tenants' locations (TenantInRack, TenantVMs) against the recount.
	racks := 0
	for k, n := range inRack {
		if got := s.TenantInRack(k[0], k[1]); got != n {
			return fmt.Errorf("tenant %d: %d VMs in rack %d, recount %d", k[0], got, k[1], n)
		}
	}
	locs := maps.Clone(s.tenantsX)
	for t := range s.tenants {
		if tl := &s.tenants[t]; tl.vms != 0 || tl.rack != 0 {
			locs[int32(t)] = tl
		}
	}
	for t, tl := range locs {
		vms, held := int32(0), 0
		var bad error
		s.eachTenantRack(t, func(r, n int32) {
			if n <= 0 || inRack[[2]int32{t, r}] != n {
				bad = fmt.Errorf("tenant %d: %d VMs in rack %d, recount %d", t, n, r, inRack[[2]int32{t, r}])
			}
			vms += n
			held++
		})
		if bad != nil {
			return bad
		}
		if vms != tl.vms || vms == 0 {
			return fmt.Errorf("tenant %d: %d VMs placed, %d in its racks", t, tl.vms, vms)
		}
		if spans := s.spans[t]; (tl.rack == spanned) != (spans != nil) || spans != nil && len(spans) < 2 {
			return fmt.Errorf("tenant %d: rack %d with %d racks spanned", t, tl.rack, len(spans))
		}
		racks += held
	}
	if len(s.spans) > len(locs) {
		return fmt.Errorf("%d tenants spanned, %d with VMs", len(s.spans), len(locs))
	}
	if racks != len(inRack) {
		return fmt.Errorf("tenants hold %d (tenant, rack) counts, recount %d", racks, len(inRack))
	}
	for m := range inv.Machines {
		id := int32(m)
		if count[m] != s.Count[m] {
			return fmt.Errorf("machine %d: count %d, recount %d", m, s.Count[m], count[m])
		}
		if lifetimes[m] != s.LifetimeVMs[m] {
			return fmt.Errorf("machine %d: VMs per lifetime bucket %v, recount %v", m, s.LifetimeVMs[m], lifetimes[m])
		}
		limit := inv.Capacity(id)
		if s.OversubLimit > 0 && s.Tag[m] == TagOversubscribable {
			limit[Cores] *= s.OversubLimit
		}
		if !Within(used[m], limit) {
			return fmt.Errorf("machine %d over capacity: used %v > capacity %v (dim %s)", m, used[m], limit, FirstShort(used[m], limit))
		}
		if count[m] > 0 {
			prod, oversub := false, false
			for _, v := range s.onMachine[m] {
				if s.vms[v].Production {
					prod = true
				} else {
					oversub = true
				}
			}
			if s.OversubLimit > 0 && prod && oversub {
				return fmt.Errorf("machine %d hosts production and non-production VMs under oversubscription", m)
			}
			if want := map[bool]MachineTag{true: TagProduction, false: TagOversubscribable}[prod]; s.OversubLimit > 0 && s.Tag[m] != want {
				return fmt.Errorf("machine %d tagged %d, hosts production=%v", m, s.Tag[m], prod)
			}
		} else if s.Tag[m] != TagEmpty {
			return fmt.Errorf("empty machine %d tagged %d", m, s.Tag[m])
		}
		for d := range used[m] {
			if diff := used[m][d] - s.Used[m][d]; diff > 1e-6 || diff < -1e-6 {
				return fmt.Errorf("machine %d: used %s %v, recount %v", m, Dim(d), s.Used[m][d], used[m][d])
			}
		}
		if ex := s.Exclusive[m]; ex >= 0 {
			for t := range tenants[m] {
				if t != ex {
					return fmt.Errorf("machine %d isolated for tenant %d also hosts tenant %d", m, ex, t)
				}
			}
		}
	}
	for _, p := range s.vms {
		if p.Exclusive && len(tenants[p.Machine]) > 1 {
			return fmt.Errorf("VM %d requires isolation but machine %d hosts %d tenants", p.VM, p.Machine, len(tenants[p.Machine]))
		}
	}
	for c := range inv.Clusters {
		var empty int32
		for _, m := range inv.Clusters[c].Machines {
			if count[m] == 0 && inv.Machines[m].Healthy {
				empty++
			}
		}
		if empty != s.ClusterEmpty[c] {
			return fmt.Errorf("cluster %d: empty %d, recount %d", c, s.ClusterEmpty[c], empty)
		}
		var healthy int32
		for _, m := range inv.Clusters[c].Machines {
			if inv.Machines[m].Healthy {
				healthy++
			}
		}
		if healthy != s.ClusterHealthy[c] {
			return fmt.Errorf("cluster %d: healthy %d, recount %d", c, s.ClusterHealthy[c], healthy)
		}
	}
	return s.checkSpread()
}

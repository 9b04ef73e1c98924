package healable

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"placelab/optimizer"
)

// searchSlack widens the binary search for a VM's first candidate so that
// every machine optimizer.Fits would accept is scanned: it must exceed the
// optimizer's capacity tolerance (1e-9); Fits still decides each machine.
const searchSlack = 1e-6

// Machine marks during a heal.
const (
	markFailed  uint8 = 1 << iota // in the failure being healed
	markChanged                   // received VMs in this heal: its entry is in its group's overlay
)

// Sampler computes the healable-failure percentages of a zone. It keeps its
// indices and scratch buffers between samples; it is not safe for
// concurrent use (a sample Start computes runs on a goroutine of its own,
// reading only the sampler's copy of the state).
type Sampler struct {
	inv     *optimizer.Inventory
	groups  [][]group // per cluster, one group per SKU of the cluster
	groupOf []int32   // per machine: its group's index in its cluster
	free    []optimizer.Vec
	mark    []uint8
	// The view: the sampler's copy of the state it samples — per machine
	// its VM count, resources used, tag, health and VMs in healing order,
	// per cluster its empty healthy machines, and the oversubscription
	// limit. capture brings it to the state: from the state's feed (the
	// changes since the last capture, applied by compute), or by reading
	// every machine when the sampler does not hold the feed. Heals read
	// the view only, so a sample can be computed while the state moves on
	// (Start).
	fed          *optimizer.State // the state the view follows
	feed         []optimizer.MachineChange
	pending      []optimizer.MachineChange // captured, applied by the next compute
	count        []int32
	used         []optimizer.Vec
	tag          []optimizer.MachineTag
	healthy      []bool
	clusterEmpty []int32
	oversub      float64
	vmsOf        [][]vmRec // per machine: its VMs, in healing order
	// changed is, per machine, whether it changed since load last read
	// it: load reads again only those (a cluster's groups are rebuilt
	// when one of its machines did).
	changed []bool
	stale   []bool // per cluster: read every machine again
	// running: a sample Start began is being computed; done delivers it.
	running bool
	done    chan result
	// indexed is, per cluster, whether its groups' base is sorted and
	// their fits built for the groups load built last.
	indexed []bool
	loaded  []uint32 // per cluster: the sample (stamp) it was last read for
	stamp   uint32
	// need is, per machine, the cores its VMs need at least in its
	// cluster (each VM's least demand over the cluster's SKUs that run it,
	// +Inf if none does); room is, per cluster, the free cores of its
	// healthy machines (negative free counted as 0), held by machines.
	need     []float64
	room     []float64
	machines []int32
	// skuTypes lists, per SKU, the types it supports; typeAt is, per SKU
	// and type, the type's position in that list (-1 if unsupported).
	skuTypes [][]int32
	typeAt   [][]int32
	next     []int32 // per failed machine: its next VM to heal, an index into its vmsOf
	heap     []int32 // failed machines (indices into down) with VMs left, by their next VM
	down     []int32 // the failed machines of the current heal
	undo     []undoRec
	touched  []*group
	spare    scratch // the second goroutine's scratch (Sample)
}

// result is a sample computed on its own goroutine (Start).
type result struct {
	machinePct, rackPct float64
	took                time.Duration
}

// vmRec is a VM to heal.
type vmRec struct {
	share float64 // dominant share of its machine
	vm    optimizer.VMID
	typ   int32
}

// before orders VMs for healing: largest share first, ties by VM ID.
func before(a, b *vmRec) bool {
	return a.share > b.share || a.share == b.share && a.vm < b.vm
}

// entry is a machine hosting VMs, with its free cores.
type entry struct {
	free float64
	m    int32
}

func less(a, b entry) bool { return a.free < b.free || (a.free == b.free && a.m < b.m) }

// group indexes one SKU's healthy machines in a cluster. base is fixed for
// a Sample; a heal records the machines it changes in over, so that undoing
// a heal only empties over.
type group struct {
	sku  int32
	base []entry // hosting VMs when sampled; sorted by (free cores, index) once indexed
	// fits[k] holds the entries of base whose free capacity holds the
	// demand of the SKU's k-th type (Sampler.skuTypes), in base's order:
	// the only machines of base a VM of that type could take.
	fits    [][]entry
	over    []entry // changed by the current heal, sorted alike
	empties []int32 // empty when sampled, by index
	next    int     // empties[:next] were taken or failed in the current heal
	touched bool
	// floor and ceil are the least and the greatest free capacity of the
	// empties in every dimension.
	floor, ceil optimizer.Vec
}

type undoRec struct {
	m    int32
	free optimizer.Vec
}

// New returns a sampler for the zone inv.
func New(inv *optimizer.Inventory) *Sampler {
	n := len(inv.Machines)
	s := &Sampler{inv: inv, groups: make([][]group, len(inv.Clusters)), groupOf: make([]int32, n),
		free: make([]optimizer.Vec, n), mark: make([]uint8, n), vmsOf: make([][]vmRec, n), changed: make([]bool, n),
		count: make([]int32, n), used: make([]optimizer.Vec, n), tag: make([]optimizer.MachineTag, n), healthy: make([]bool, n),
		clusterEmpty: make([]int32, len(inv.Clusters)), done: make(chan result, 1),
		stale: make([]bool, len(inv.Clusters)), indexed: make([]bool, len(inv.Clusters)), loaded: make([]uint32, len(inv.Clusters)),
		need: make([]float64, n), room: make([]float64, len(inv.Clusters)), machines: make([]int32, len(inv.Clusters)),
		skuTypes: make([][]int32, len(inv.SKUs)), typeAt: make([][]int32, len(inv.SKUs))}
	for k := range inv.SKUs {
		s.typeAt[k] = make([]int32, len(inv.Types))
		for t := range inv.Types {
			s.typeAt[k][t] = -1
			if inv.Types[t].Supported[k] {
				s.typeAt[k][t] = int32(len(s.skuTypes[k]))
				s.skuTypes[k] = append(s.skuTypes[k], int32(t))
			}
		}
	}
	for c := range inv.Clusters {
		cl := &inv.Clusters[c]
		gs := make([]group, len(cl.SKUs))
		size := make([]int, len(cl.SKUs))
		for i, sku := range cl.SKUs {
			gs[i].sku = sku
		}
		for _, m := range cl.Machines {
			i := slices.Index(cl.SKUs, inv.Machines[m].SKU)
			s.groupOf[m] = int32(i)
			size[i]++
		}
		for i := range gs {
			gs[i].fits = make([][]entry, len(s.skuTypes[gs[i].sku]))
			gs[i].base = make([]entry, 0, size[i])
			gs[i].over = make([]entry, 0, size[i])
			gs[i].empties = make([]int32, 0, size[i])
		}
		s.groups[c] = gs
	}
	return s
}

// Sample returns the percentages of the zone's healthy machines and of its
// racks with a healthy machine whose failure, now, could be healed in its
// own cluster under the healing buffer b.Healing (see the package comment
// for the exact heal). st is not changed. It panics if st is not a state of
// the sampler's inventory.
func (s *Sampler) Sample(st *optimizer.State, b optimizer.Buffers) (machinePct, rackPct float64) {
	if s.running {
		panic("healable: Sample while a sample Start began is not done (Wait)")
	}
	s.capture(st)
	return s.compute(b, runtime.GOMAXPROCS(0) >= 2)
}

// Start takes the sample of st at this instant, as Sample would, and
// computes it on a goroutine of its own, which reads only the sampler's
// copy of the state: the caller may change st at once. Wait returns the
// figures. Start panics if the sample it began before was not waited for.
func (s *Sampler) Start(st *optimizer.State, b optimizer.Buffers) {
	if s.running {
		panic("healable: Start while a sample Start began is not done (Wait)")
	}
	s.capture(st)
	s.running = true
	go func() {
		t0 := time.Now()
		m, r := s.compute(b, false)
		s.done <- result{m, r, time.Since(t0)}
	}()
}

// Wait returns the figures of the sample Start began, and how long its
// goroutine took to compute them. It panics if no sample is under way.
func (s *Sampler) Wait() (machinePct, rackPct float64, took time.Duration) {
	if !s.running {
		panic("healable: Wait without Start")
	}
	r := <-s.done
	s.running = false
	return r.machinePct, r.rackPct, r.took
}

// capture brings the view to st: the changes st fed since the last
// capture are set aside for compute, or, when the sampler does not hold
// st's feed (the first capture of st, or the feed lost), every machine is
// read again and the feed taken if it is free.
func (s *Sampler) capture(st *optimizer.State) {
	if st.Inv != s.inv {
		panic("healable: state of another inventory")
	}
	if s.fed == st && st.Feeds(&s.feed) {
		s.pending, s.feed = s.feed, s.pending[:0]
	} else {
		if s.fed != nil && s.fed != st {
			s.fed.Unfeed(&s.feed)
		}
		s.fed = st
		s.readAll(st)
		s.feed, s.pending = s.feed[:0], s.pending[:0]
		st.Feed(&s.feed)
	}
	copy(s.clusterEmpty, st.ClusterEmpty)
	s.oversub = st.OversubLimit
}

// readAll reads every machine of st into the view.
func (s *Sampler) readAll(st *optimizer.State) {
	inv := s.inv
	for m := range inv.Machines {
		s.count[m], s.used[m], s.tag[m], s.healthy[m] = st.Count[m], st.Used[m], st.Tag[m], inv.Machines[m].Healthy
		capacity := inv.SKUs[inv.Machines[m].SKU].Capacity
		vms := s.vmsOf[m][:0]
		for _, id := range st.VMsOn(int32(m)) {
			p, ok := st.Lookup(id)
			if !ok {
				panic("healable: state lists a VM it cannot look up")
			}
			vms = insertVM(vms, vmRec{share: share(p.Demand, capacity), vm: id, typ: p.Type})
		}
		s.vmsOf[m] = vms
	}
	for c := range s.stale {
		s.stale[c] = true
	}
}

// insertVM inserts v into vms, kept in healing order (a machine hosts few
// VMs).
func insertVM(vms []vmRec, v vmRec) []vmRec {
	vms = append(vms, v)
	j := len(vms) - 1
	for ; j > 0 && before(&v, &vms[j-1]); j-- {
		vms[j] = vms[j-1]
	}
	vms[j] = v
	return vms
}

// apply brings the view up by the captured changes.
func (s *Sampler) apply() {
	inv := s.inv
	for i := range s.pending {
		ch := &s.pending[i]
		m := ch.Machine
		s.changed[m] = true
		s.count[m], s.used[m], s.tag[m], s.healthy[m] = ch.Count, ch.Used, ch.Tag, ch.Healthy
		switch ch.Kind {
		case optimizer.VMPlaced:
			capacity := inv.SKUs[inv.Machines[m].SKU].Capacity
			s.vmsOf[m] = insertVM(s.vmsOf[m], vmRec{share: share(ch.Demand, capacity), vm: ch.VM, typ: ch.Type})
		case optimizer.VMRemoved:
			vms := s.vmsOf[m]
			for k := range vms {
				if vms[k].vm == ch.VM {
					s.vmsOf[m] = append(vms[:k], vms[k+1:]...)
					break
				}
			}
		}
	}
	s.pending = s.pending[:0]
}

// compute applies the captured changes and takes the sample of the view,
// on two goroutines when parallel.
func (s *Sampler) compute(b optimizer.Buffers, parallel bool) (machinePct, rackPct float64) {
	inv := s.inv
	s.apply()
	s.stamp++
	// Clusters are independent (a heal stays in its cluster, and what a
	// cluster's heals read and write — its machines' rows, its groups —
	// is its own), so two goroutines share them, each with its own
	// scratch (a copy of the sampler whose scratch slices are its own).
	var t tally
	if len(inv.Clusters) < 2 || !parallel {
		for c := range inv.Clusters {
			s.sampleCluster(b, int32(c), &t)
		}
		return pct(t.healed, t.machines), pct(t.rackHealed, t.racks)
	}
	twin := *s
	twin.next, twin.heap, twin.down, twin.undo, twin.touched = s.spare.next, s.spare.heap, s.spare.down, s.spare.undo, s.spare.touched
	var next atomic.Int32
	take := func(x *Sampler, t *tally) {
		for {
			c := int(next.Add(1)) - 1
			if c >= len(inv.Clusters) {
				return
			}
			x.sampleCluster(b, int32(c), t)
		}
	}
	var t2 tally
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		take(&twin, &t2)
	}()
	take(s, &t)
	wg.Wait()
	s.spare = scratch{twin.next, twin.heap, twin.down, twin.undo, twin.touched}
	t.machines, t.healed, t.racks, t.rackHealed = t.machines+t2.machines, t.healed+t2.healed, t.racks+t2.racks, t.rackHealed+t2.rackHealed
	return pct(t.healed, t.machines), pct(t.rackHealed, t.racks)
}

// tally counts a sample's healthy machines and racks and those healed.
type tally struct{ machines, healed, racks, rackHealed int }

// scratch is the second sampling goroutine's scratch, kept between samples.
type scratch struct {
	next, heap, down []int32
	undo             []undoRec
	touched          []*group
}

// healsNow reports whether the failure of s.down heals in cluster c. A
// cluster's state is read (load) only when one of its failures needs its
// heal run: healsSurely decides most of them from counts alone.
func (s *Sampler) healsNow(b optimizer.Buffers, c int32) bool {
	if s.healsSurely(b, c) {
		return true
	}
	if s.loaded[c] != s.stamp {
		s.load(c)
		s.loaded[c] = s.stamp
	}
	return s.heals(b, c)
}

// sampleCluster tallies cluster c's healthy machines and racks, and those
// whose failure (s.down) heals under buffers b.
func (s *Sampler) sampleCluster(b optimizer.Buffers, c int32, t *tally) {
	inv := s.inv
	for _, m := range inv.Clusters[c].Machines {
		if !s.healthy[m] {
			continue
		}
		t.machines++
		if s.count[m] == 0 {
			t.healed++
			continue
		}
		s.down = append(s.down[:0], m)
		if s.healsNow(b, c) {
			t.healed++
		}
	}
	for _, r := range inv.Clusters[c].Racks {
		s.down = s.down[:0]
		vms := false
		for _, m := range inv.Racks[r].Machines {
			if s.healthy[m] {
				s.down = append(s.down, m)
				vms = vms || s.count[m] > 0
			}
		}
		if len(s.down) == 0 {
			continue
		}
		t.racks++
		if !vms || s.healsNow(b, c) {
			t.rackHealed++
		}
	}
}

func pct(k, n int) float64 {
	if n == 0 {
		return 100
	}
	return 100 * float64(k) / float64(n)
}

// share is a VM's dominant share of its machine: max over dimensions with
// capacity of demand over capacity.
func share(d, capacity optimizer.Vec) float64 {
	var x float64
	for i := range d {
		if capacity[i] > 0 {
			x = max(x, d[i]/capacity[i])
		}
	}
	return x
}

// load brings the free capacities, the needs and the groups of cluster c
// up to date with the view: every machine the first time (or after a
// full read), then only the machines that changed since they were read
// (a change of VMs, of oversubscription tag or of health), and the groups
// when one did.
func (s *Sampler) load(c int32) {
	inv := s.inv
	fresh := s.stale[c]
	s.stale[c] = false
	dirty := fresh
	for _, mi := range inv.Clusters[c].Machines {
		m := int(mi)
		if !fresh && !s.changed[m] {
			continue
		}
		s.changed[m] = false
		mc := &inv.Machines[m]
		dirty = true
		s.need[m] = 0
		if !s.healthy[m] {
			continue
		}
		capacity := inv.SKUs[mc.SKU].Capacity
		limit := capacity
		if s.oversub > 0 && s.tag[m] == optimizer.TagOversubscribable {
			limit[optimizer.Cores] *= s.oversub
		}
		s.free[m] = limit.Sub(s.used[m])
		for _, v := range s.vmsOf[m] {
			ty, least := &inv.Types[v.typ], math.Inf(1)
			for _, g := range s.groups[mc.Cluster] {
				if ty.Supported[g.sku] {
					least = min(least, ty.Demand[g.sku][optimizer.Cores])
				}
			}
			s.need[m] += least
		}
	}
	if !dirty {
		return
	}
	{
		gs := s.groups[c]
		for i := range gs {
			gs[i].base, gs[i].empties = gs[i].base[:0], gs[i].empties[:0]
		}
		s.room[c], s.machines[c] = 0, 0
		for _, m := range inv.Clusters[c].Machines {
			if !s.healthy[m] {
				continue
			}
			s.room[c] += max(s.free[m][optimizer.Cores], 0)
			s.machines[c]++
			g := &gs[s.groupOf[m]]
			if s.count[m] == 0 {
				g.empties = append(g.empties, m)
			} else {
				g.base = append(g.base, entry{s.free[m][optimizer.Cores], m})
			}
		}
		for i := range gs {
			g := &gs[i]
			slices.Sort(g.empties)
			g.floor, g.ceil = optimizer.Vec{}, optimizer.Vec{}
			for k, m := range g.empties {
				if k == 0 {
					g.floor, g.ceil = s.free[m], s.free[m]
				}
				for d, x := range s.free[m] {
					g.floor[d], g.ceil[d] = min(g.floor[d], x), max(g.ceil[d], x)
				}
			}
			g.over, g.next, g.touched = g.over[:0], 0, false
		}
		s.indexed[c] = false
	}
}

// index sorts the groups' base of cluster c and builds their fits: what
// only a heal run in full needs (heals builds it on first use after a
// load changed the groups).
func (s *Sampler) index(c int32) {
	inv := s.inv
	for i := range s.groups[c] {
		g := &s.groups[c][i]
		slices.SortFunc(g.base, func(a, b entry) int {
			if less(a, b) {
				return -1
			}
			if less(b, a) {
				return 1
			}
			return 0
		})
		types := s.skuTypes[g.sku]
		for k := range g.fits {
			g.fits[k] = g.fits[k][:0]
		}
		for _, e := range g.base {
			for k, t := range types {
				if optimizer.Fits(inv.Types[t].Demand[g.sku], s.free[e.m]) {
					g.fits[k] = append(g.fits[k], e)
				}
			}
		}
	}
	s.indexed[c] = true
}

// heals reports whether the VMs of the failed machines s.down of cluster
// c can all be healed, and leaves the indices as it found them. The VMs are
// merged in healing order from the failed machines' sorted lists.
func (s *Sampler) heals(b optimizer.Buffers, c int32) bool {
	// A cheap refusal first: each machine takes at most its free cores
	// plus Fits' tolerance, far below searchSlack.
	need, room := 0.0, s.room[c]
	for _, m := range s.down {
		need += s.need[m]
		room -= max(s.free[m][optimizer.Cores], 0)
	}
	if need > room+float64(s.machines[c])*searchSlack {
		return false
	}
	empty := s.clusterEmpty[c]
	for _, m := range s.down {
		if s.count[m] == 0 {
			empty--
		}
	}
	if s.healsBounded(b, c, empty) {
		return true
	}
	return s.simulate(b, c, empty)
}

// simulate runs the heal of the failed machines s.down of cluster c, which
// leave empty empty healthy machines outside them, VM by VM, and undoes it.
func (s *Sampler) simulate(b optimizer.Buffers, c int32, empty int32) bool {
	// The failed machines' VMs in healing order: a k-way merge of their
	// sorted lists through a binary heap of the machines' next VMs
	// (O(n log k) for n VMs on k machines).
	s.next = s.next[:0]
	s.heap = s.heap[:0]
	for i, m := range s.down {
		s.next = append(s.next, 0)
		if len(s.vmsOf[m]) > 0 {
			s.heap = append(s.heap, int32(i))
		}
	}
	if len(s.heap) == 0 {
		return true
	}
	if !optimizer.BelowLimit(empty, optimizer.KindHeal, b) {
		return false // the buffer is broken before the first VM
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.siftDown(i)
	}
	if !s.indexed[c] {
		s.index(c)
	}
	for _, m := range s.down {
		s.mark[m] = markFailed
	}
	ok := true
	for len(s.heap) > 0 {
		i := s.heap[0]
		v := &s.vmsOf[s.down[i]][s.next[i]]
		if !optimizer.BelowLimit(empty, optimizer.KindHeal, b) || !s.place(s.groups[c], v.typ, &empty) {
			ok = false
			break
		}
		if s.next[i]++; int(s.next[i]) == len(s.vmsOf[s.down[i]]) {
			last := len(s.heap) - 1
			s.heap[0] = s.heap[last]
			s.heap = s.heap[:last]
		}
		s.siftDown(0)
	}
	for _, m := range s.down {
		s.mark[m] = 0
	}
	for i := len(s.undo) - 1; i >= 0; i-- {
		u := &s.undo[i]
		s.free[u.m], s.mark[u.m] = u.free, 0
	}
	s.undo = s.undo[:0]
	for _, g := range s.touched {
		g.over, g.next, g.touched = g.over[:0], 0, false
	}
	s.touched = s.touched[:0]
	return ok
}

// healsSurely is an exact shortcut of heals for a cluster of one SKU
// without oversubscription, where every failed machine's VMs fit on any
// empty machine (they fit together on the failed one, of the same SKU):
//
//   - one failed machine heals if E ≥ B + 1 (E: the cluster's empty healthy
//     machines outside it, B the healing buffer): the heal takes an empty
//     machine only when no machine hosting VMs holds the VM, and then every
//     VM left fits there, so it takes at most one and E − 1 ≥ B holds
//     before every VM;
//   - n VMs of several failed machines heal if E ≥ max(B, 1) + n − 1: each
//     VM takes at most one empty machine, so before every VM the buffer
//     holds and an empty machine is left to take it.
//
// Otherwise it says nothing (false) and heals runs the heal itself.
func (s *Sampler) healsSurely(b optimizer.Buffers, c int32) bool {
	if len(s.groups[c]) != 1 || s.oversub > 0 {
		return false
	}
	empty := s.clusterEmpty[c]
	n, busy := int32(0), 0
	for _, m := range s.down {
		k := s.count[m] // s.down holds healthy machines only
		if k > 0 {
			busy++
		} else if s.count[m] == 0 {
			empty--
		}
		n += int32(k)
	}
	switch {
	case n == 0:
		return true
	case busy == 1 && len(s.down) == 1:
		return empty >= b.Healing+1
	}
	return empty >= max(b.Healing, 1)+n-1
}

// healsBounded is an exact shortcut of the heal of the failed machines
// s.down in a cluster c of one SKU, which leave empty empty healthy
// machines outside them: true only when the heal succeeds; false says
// nothing. It bounds the empty machines the heal can take, K, by the
// volume of the failure's VMs and succeeds when E − K ≥ B and E ≥ K
// (E = empty, B the healing buffer; also at least K empties left outside
// the failure): E − K ≥ B holds before every VM, and a VM that takes an
// empty machine finds one, after at most K − 1 were taken.
//
// The bound. Let φ be the empties' least free capacity (group.floor), P
// the dimensions with φᵢ > 0, and require every VM's demand d (its type's
// on the SKU) to fit φ (so any empty machine takes it) and to be 0
// outside P (so no dimension outside P can refuse it). Write a VM's size
// σ(d) = maxᵢ∈P dᵢ/φᵢ and a taken machine's load L = Σᵢ∈P uᵢ/φᵢ, u what
// the heal put on it. A VM takes an empty machine only when no machine
// hosting VMs holds it, the machines taken before included: each refuses
// it in some i ∈ P, where uᵢ > φᵢ − dᵢ, so L > 1 − σ(d) − δ (δ bounds
// the rounding of the heal's subtractions and Fits' tolerance relative to
// φ). So when a VM of σ ≤ 1/2 takes one, every machine taken before has
// L > 1/2 − δ; a machine taken by a VM of σ > 1/2 has L > 1/2 from that
// VM alone. Hence every taken machine but one (the last taken by a VM of
// σ ≤ 1/2) has L > 1/2 − δ, and as the loads add up to at most the
// failure's volume V = Σ_VMs Σᵢ∈P dᵢ/φᵢ, K ≤ ⌊V / (1/2 − δ)⌋ + 1.
func (s *Sampler) healsBounded(b optimizer.Buffers, c int32, empty int32) bool {
	gs := s.groups[c]
	if len(gs) != 1 || empty <= b.Healing { // K ≥ 1
		return false
	}
	g := &gs[0]
	left := int32(len(g.empties)) // the empties the heal may take
	for _, m := range s.down {
		if s.count[m] == 0 {
			left--
		}
	}
	floor := &g.floor
	var vol float64
	var sum optimizer.Vec
	n := 0
	for _, m := range s.down {
		for i := range s.vmsOf[m] {
			ty := &s.inv.Types[s.vmsOf[m][i].typ]
			if !ty.Supported[g.sku] {
				return false
			}
			d := &ty.Demand[g.sku]
			if !optimizer.Fits(*d, *floor) {
				return false
			}
			for k, x := range d {
				switch {
				case x < 0 || floor[k] <= 0 && x != 0:
					return false
				case floor[k] > 0:
					vol += x / floor[k]
					sum[k] += x
				}
			}
			n++
		}
	}
	// δ: Fits' tolerance plus the rounding of up to n subtractions of
	// magnitude at most ceil + sum, relative to φ.
	delta := 0.0
	for k, f := range floor {
		if f > 0 {
			delta = max(delta, (capacityEps+float64(n)*1e-15*(g.ceil[k]+sum[k]))/f)
		}
	}
	if delta > 0.25 {
		return false
	}
	bound := math.Floor(vol*(1+1e-9)/(0.5-delta)) + 1
	if bound > float64(min(empty, left)) {
		return false
	}
	k := int32(bound)
	return empty-k >= b.Healing && empty >= k && left >= k
}

// capacityEps is optimizer.Fits' tolerance.
const capacityEps = 1e-9

// headBefore orders the merge heap: failed machine i's next VM heals
// before j's.
func (s *Sampler) headBefore(i, j int32) bool {
	return before(&s.vmsOf[s.down[i]][s.next[i]], &s.vmsOf[s.down[j]][s.next[j]])
}

func (s *Sampler) siftDown(k int) {
	h := s.heap
	for {
		l := 2*k + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && s.headBefore(h[r], h[l]) {
			l = r
		}
		if !s.headBefore(h[l], h[k]) {
			return
		}
		h[k], h[l] = h[l], h[k]
		k = l
	}
}

func (s *Sampler) touch(g *group) {
	if !g.touched {
		g.touched = true
		s.touched = append(s.touched, g)
	}
}

// lowerBound is the first index of w whose free cores are at least f, or
// len(w). The halving loop is written to compile without branches on the
// data.
func lowerBound(w []entry, f float64) int {
	lo, n := 0, len(w)
	for n > 1 {
		half := n >> 1
		if w[lo+half-1].free < f {
			lo += half
		}
		n -= half
	}
	if n == 1 && w[lo].free < f {
		lo++
	}
	return lo
}

// candidate is the best machine found so far for a VM: the least free
// cores left, ties to the lowest index.
type candidate struct {
	g    *group
	over int // the machine's index in g.over, or -1
	left float64
	m    int32
}

// scan offers the machines of w, sorted by (free cores, index), to best
// for a VM of demand d: from the first with enough cores, from, up to the first
// that would leave more than the best. Machines marked skip are passed
// over.
func (s *Sampler) scan(best *candidate, g *group, w []entry, from int, inOver bool, d *optimizer.Vec, skip uint8) {
	dc := d[optimizer.Cores]
	for k := from; k < len(w); k++ {
		e := w[k]
		l := e.free - dc
		if best.m >= 0 && (l > best.left || l == best.left && e.m > best.m) {
			if l > best.left {
				return
			}
			continue // a tie that loses on index
		}
		if s.mark[e.m]&skip != 0 || !optimizer.Fits(*d, s.free[e.m]) {
			continue
		}
		*best = candidate{g, -1, l, e.m}
		if inOver {
			best.over = k
		}
	}
}

// place heals one VM of type typ in the cluster of groups gs, which has
// empty healthy machines outside the failed ones, recording every change
// for heals to undo. It reports whether some machine took the VM.
func (s *Sampler) place(gs []group, typ int32, empty *int32) bool {
	ty := &s.inv.Types[typ]
	best := candidate{over: -1, m: -1}
	for gi := range gs { // machines hosting VMs
		g := &gs[gi]
		if !ty.Supported[g.sku] {
			continue
		}
		// A machine of base the heal has not changed has the free
		// capacity it was sampled with, so it holds the VM iff it is in
		// the type's fits; one it changed is scanned in over.
		d := &ty.Demand[g.sku]
		s.scan(&best, g, g.fits[s.typeAt[g.sku][typ]], 0, false, d, markFailed|markChanged)
		if len(g.over) > 0 {
			s.scan(&best, g, g.over, lowerBound(g.over, d[optimizer.Cores]-searchSlack), true, d, 0)
		}
	}
	if best.m < 0 { // an empty machine: each group's first one not failed or taken
		for gi := range gs {
			g := &gs[gi]
			if !ty.Supported[g.sku] {
				continue
			}
			for g.next < len(g.empties) && s.mark[g.empties[g.next]]&markFailed != 0 {
				g.next++
				s.touch(g)
			}
			if g.next == len(g.empties) {
				continue
			}
			m := g.empties[g.next]
			d := &ty.Demand[g.sku]
			if !optimizer.Fits(*d, s.free[m]) {
				continue
			}
			l := s.free[m][optimizer.Cores] - d[optimizer.Cores]
			if best.m < 0 || l < best.left || (l == best.left && m < best.m) {
				best = candidate{g, -1, l, m}
			}
		}
		if best.m < 0 {
			return false
		}
		best.g.next++
		*empty--
	}
	g, m := best.g, best.m
	s.touch(g)
	if s.mark[m]&markChanged == 0 {
		s.undo = append(s.undo, undoRec{m, s.free[m]})
		s.mark[m] |= markChanged
	}
	s.free[m] = s.free[m].Sub(ty.Demand[g.sku])
	e := entry{s.free[m][optimizer.Cores], m}
	at := best.over
	if at < 0 {
		g.over = append(g.over, e)
		at = len(g.over) - 1
	}
	for ; at > 0 && less(e, g.over[at-1]); at-- { // its free cores only went down
		g.over[at] = g.over[at-1]
	}
	g.over[at] = e
	return true
}

package healable

import (
	"math"
	"slices"

	"placelab/optimizer"
)

// searchSlack widens the binary search for a VM's first candidate so that
// every machine optimizer.Fits would accept is scanned: it must exceed the
// optimizer's capacity tolerance (1e-9); Fits still decides each machine.
const searchSlack = 1e-6

// Sampler computes the healable-failure percentages of a zone. It keeps its
// indices and scratch buffers between samples; it is not safe for
// concurrent use.
type Sampler struct {
	inv     *optimizer.Inventory
	groups  [][]group // per cluster, one group per SKU of the cluster
	groupOf []int32   // per machine: its group's index in its cluster
	free    []optimizer.Vec
	failed  []bool
	vmStart []int32 // machine m's VMs are vms[vmStart[m]:vmStart[m+1]]
	vms     []vmRec
	next    []int32 // per failed machine: its next VM to heal, an index into vms
	down    []int32 // the failed machines of the current heal
	undo    []undoRec
	touched []*group
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

// lowerBound is the first index in [lo, hi) of w whose free cores are at
// least f, or hi. The halving loop is written to compile without branches
// on the data.
func lowerBound(w []entry, lo, hi int, f float64) int {
	n := hi - lo
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

// after is the first index in [0, hi) of w whose entry sorts after e, or hi.
func after(w []entry, hi int, e entry) int {
	lo, n := 0, hi
	for n > 1 {
		half := n >> 1
		if !less(e, w[lo+half-1]) {
			lo += half
		}
		n -= half
	}
	if n == 1 && !less(e, w[lo]) {
		lo++
	}
	return lo
}

func less(a, b entry) bool { return a.free < b.free || (a.free == b.free && a.m < b.m) }

// group is the index of one SKU's healthy machines in a cluster. work is
// base as changed by the current heal; work[:dirtyLo] is still base's.
type group struct {
	sku     int32
	base    []entry // hosting VMs, sorted by (free cores, index)
	work    []entry
	dirtyLo int
	empties []int32 // empty, by index
	next    int     // empties[:next] were taken or failed in the current heal
	touched bool
}

type undoRec struct {
	m    int32
	free optimizer.Vec
}

// New returns a sampler for the zone inv.
func New(inv *optimizer.Inventory) *Sampler {
	n := len(inv.Machines)
	s := &Sampler{inv: inv, groups: make([][]group, len(inv.Clusters)), groupOf: make([]int32, n),
		free: make([]optimizer.Vec, n), failed: make([]bool, n), vmStart: make([]int32, n+1)}
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
			gs[i].base = make([]entry, 0, size[i])
			gs[i].work = make([]entry, 0, size[i])
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
	if st.Inv != s.inv {
		panic("healable: state of another inventory")
	}
	inv := s.inv
	s.load(st)
	var machines, healed int
	for m := range inv.Machines {
		mc := &inv.Machines[m]
		if !mc.Healthy {
			continue
		}
		machines++
		if st.Count[m] == 0 {
			healed++
			continue
		}
		s.down = append(s.down[:0], int32(m))
		if s.heals(st, b, mc.Cluster) {
			healed++
		}
	}
	var racks, rackHealed int
	for r := range inv.Racks {
		rk := &inv.Racks[r]
		s.down = s.down[:0]
		vms := false
		for _, m := range rk.Machines {
			if inv.Machines[m].Healthy {
				s.down = append(s.down, m)
				vms = vms || st.Count[m] > 0
			}
		}
		if len(s.down) == 0 {
			continue
		}
		racks++
		if !vms || s.heals(st, b, rk.Cluster) {
			rackHealed++
		}
	}
	return pct(healed, machines), pct(rackHealed, racks)
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

// load rebuilds the free capacities, the VM lists and the groups from st.
func (s *Sampler) load(st *optimizer.State) {
	inv := s.inv
	s.vms = s.vms[:0]
	for m := range inv.Machines {
		s.vmStart[m] = int32(len(s.vms))
		mc := &inv.Machines[m]
		if !mc.Healthy {
			continue
		}
		capacity := inv.SKUs[mc.SKU].Capacity
		limit := capacity
		if st.OversubLimit > 0 && st.Tag[m] == optimizer.TagOversubscribable {
			limit[optimizer.Cores] *= st.OversubLimit
		}
		s.free[m] = limit.Sub(st.Used[m])
		start := len(s.vms)
		for _, id := range st.VMsOn(int32(m)) {
			p, ok := st.Lookup(id)
			if !ok {
				panic("healable: state lists a VM it cannot look up")
			}
			s.vms = append(s.vms, vmRec{share: share(p.Demand, capacity), vm: id, typ: p.Type})
		}
		seg := s.vms[start:]
		for i := 1; i < len(seg); i++ { // insertion sort: a machine hosts few VMs
			v, j := seg[i], i
			for ; j > 0 && before(&v, &seg[j-1]); j-- {
				seg[j] = seg[j-1]
			}
			seg[j] = v
		}
	}
	s.vmStart[len(inv.Machines)] = int32(len(s.vms))
	for c, gs := range s.groups {
		for i := range gs {
			gs[i].base, gs[i].empties = gs[i].base[:0], gs[i].empties[:0]
		}
		for _, m := range inv.Clusters[c].Machines {
			if !inv.Machines[m].Healthy {
				continue
			}
			g := &gs[s.groupOf[m]]
			if st.Count[m] == 0 {
				g.empties = append(g.empties, m)
			} else {
				g.base = append(g.base, entry{s.free[m][optimizer.Cores], m})
			}
		}
		for i := range gs {
			g := &gs[i]
			slices.SortFunc(g.base, func(a, b entry) int {
				if less(a, b) {
					return -1
				}
				if less(b, a) {
					return 1
				}
				return 0
			})
			slices.Sort(g.empties)
			g.work = append(g.work[:0], g.base...)
			g.dirtyLo, g.next, g.touched = len(g.base), 0, false
		}
	}
}

// heals reports whether the VMs of the failed machines s.down of cluster
// c can all be healed, and leaves the indices as it found them. The VMs are
// merged in healing order from the failed machines' sorted lists.
func (s *Sampler) heals(st *optimizer.State, b optimizer.Buffers, c int32) bool {
	empty := st.ClusterEmpty[c]
	s.next = s.next[:0]
	for _, m := range s.down {
		s.failed[m] = true
		if st.Count[m] == 0 {
			empty--
		}
		s.next = append(s.next, s.vmStart[m])
	}
	ok := true
	for {
		j := -1
		for i, m := range s.down {
			if s.next[i] < s.vmStart[m+1] && (j < 0 || before(&s.vms[s.next[i]], &s.vms[s.next[j]])) {
				j = i
			}
		}
		if j < 0 {
			break
		}
		v := &s.vms[s.next[j]]
		s.next[j]++
		if !optimizer.BelowLimit(empty, optimizer.KindHeal, b) || !s.place(s.groups[c], v.typ, &empty) {
			ok = false
			break
		}
	}
	for _, m := range s.down {
		s.failed[m] = false
	}
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.free[s.undo[i].m] = s.undo[i].free
	}
	s.undo = s.undo[:0]
	for _, g := range s.touched {
		g.work = append(g.work[:g.dirtyLo], g.base[g.dirtyLo:]...)
		g.dirtyLo, g.next, g.touched = len(g.base), 0, false
	}
	s.touched = s.touched[:0]
	return ok
}

func (s *Sampler) touch(g *group) {
	if !g.touched {
		g.touched = true
		s.touched = append(s.touched, g)
	}
}

// place heals one VM of type typ in the cluster of groups gs, which has
// empty healthy machines outside the failed ones, recording every change
// for heals to undo. It reports whether some machine took the VM.
func (s *Sampler) place(gs []group, typ int32, empty *int32) bool {
	ty := &s.inv.Types[typ]
	var best *group
	at, left, bm := -1, 0.0, int32(-1)
	// Machines hosting VMs: in each group, from the first with enough cores
	// up to the first that would leave more than the best.
	for gi := range gs {
		g := &gs[gi]
		if !ty.Supported[g.sku] {
			continue
		}
		d := &ty.Demand[g.sku]
		dc := d[optimizer.Cores]
		w := g.work
		for k := lowerBound(w, 0, len(w), dc-searchSlack); k < len(w); k++ {
			e := w[k]
			l := e.free - dc
			if bm >= 0 && (l > left || l == left && e.m > bm) {
				if l > left {
					break
				}
				continue // a tie that loses on index
			}
			if s.failed[e.m] || !optimizer.Fits(*d, s.free[e.m]) {
				continue
			}
			best, at, left, bm = g, k, l, e.m
			// The rest of e's run of equal free cores leaves as much, with
			// higher indices: skip it.
			if k+1 < len(w) && w[k+1].free == e.free {
				k = lowerBound(w, k+1, len(w), math.Nextafter(e.free, math.Inf(1))) - 1
			}
		}
	}
	if bm < 0 { // an empty machine: each group's first one not failed or taken
		for gi := range gs {
			g := &gs[gi]
			if !ty.Supported[g.sku] {
				continue
			}
			for g.next < len(g.empties) && s.failed[g.empties[g.next]] {
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
			if bm < 0 || l < left || (l == left && m < bm) {
				best, at, left, bm = g, -1, l, m
			}
		}
		if bm < 0 {
			return false
		}
		best.next++
		*empty--
	}
	s.touch(best)
	s.undo = append(s.undo, undoRec{bm, s.free[bm]})
	s.free[bm] = s.free[bm].Sub(ty.Demand[best.sku])
	e := entry{s.free[bm][optimizer.Cores], bm}
	if at < 0 {
		best.work = append(best.work, e)
		at = len(best.work) - 1
	}
	// Move e to its place among the machines before it: its free cores
	// only went down.
	w := best.work
	q := after(w, at, e)
	copy(w[q+1:at+1], w[q:at])
	w[q] = e
	best.dirtyLo = min(best.dirtyLo, q)
	return true
}

package healable

import (
	"cmp"
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
	pool    []vmRec // a rack's VMs
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

// byShare orders VMs largest share first, ties by VM ID.
func byShare(a, b vmRec) int {
	if a.share != b.share {
		if a.share > b.share {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.vm, b.vm)
}

// entry is a machine hosting VMs, with its free cores.
type entry struct {
	free float64
	m    int32
}

// lowerBound is the first index in [lo, hi) of w whose free cores are at
// least f, or hi.
func lowerBound(w []entry, lo, hi int, f float64) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if w[mid].free < f {
			lo = mid + 1
		} else {
			hi = mid
		}
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
		if s.heals(st, b, mc.Cluster, s.vms[s.vmStart[m]:s.vmStart[m+1]]) {
			healed++
		}
	}
	var racks, rackHealed int
	for r := range inv.Racks {
		rk := &inv.Racks[r]
		s.down, s.pool = s.down[:0], s.pool[:0]
		for _, m := range rk.Machines {
			if inv.Machines[m].Healthy {
				s.down = append(s.down, m)
				s.pool = append(s.pool, s.vms[s.vmStart[m]:s.vmStart[m+1]]...)
			}
		}
		if len(s.down) == 0 {
			continue
		}
		racks++
		if len(s.pool) == 0 {
			rackHealed++
			continue
		}
		slices.SortFunc(s.pool, byShare)
		if s.heals(st, b, rk.Cluster, s.pool) {
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
		slices.SortFunc(s.vms[start:], byShare)
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

// heals reports whether vms, the VMs of the failed machines s.down of
// cluster c in healing order, can all be healed, and leaves the indices as
// it found them.
func (s *Sampler) heals(st *optimizer.State, b optimizer.Buffers, c int32, vms []vmRec) bool {
	empty := st.ClusterEmpty[c]
	for _, m := range s.down {
		s.failed[m] = true
		if st.Count[m] == 0 {
			empty--
		}
	}
	ok := s.place(c, vms, empty, b)
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

// place heals vms one by one in cluster c, which has empty healthy machines
// outside the failed ones, recording every change for heals to undo.
func (s *Sampler) place(c int32, vms []vmRec, empty int32, b optimizer.Buffers) bool {
	gs := s.groups[c]
	for i := range vms {
		if !optimizer.BelowLimit(empty, optimizer.KindHeal, b) {
			return false
		}
		ty := &s.inv.Types[vms[i].typ]
		var best *group
		at, left, bm := -1, 0.0, int32(-1)
		// Machines hosting VMs: in each group, from the first with enough
		// cores, up to the first that would leave more than the best.
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
				// The rest of e's run of equal free cores leaves as much
				// with higher indices: skip it.
				k = lowerBound(w, k+1, len(w), math.Nextafter(e.free, math.Inf(1))) - 1
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
			empty--
		}
		s.touch(best)
		s.undo = append(s.undo, undoRec{bm, s.free[bm]})
		s.free[bm] = s.free[bm].Sub(ty.Demand[best.sku])
		e := entry{s.free[bm][optimizer.Cores], bm}
		if at < 0 {
			best.work = append(best.work, e)
			at = len(best.work) - 1
		}
		w := best.work
		q := at // e moves to the first position before at that sorts after it
		for lo := 0; lo < q; {
			mid := int(uint(lo+q) >> 1)
			if less(e, w[mid]) {
				q = mid
			} else {
				lo = mid + 1
			}
		}
		copy(w[q+1:at+1], w[q:at])
		w[q] = e
		at = q
		best.dirtyLo = min(best.dirtyLo, at)
	}
	return true
}

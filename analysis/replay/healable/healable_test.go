package healable_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

// Test SKUs: a 16-core machine with 128 GB, a 16-core machine with 256 GB
// and a 12-core machine with 96 GB.
var (
	sku16  = optimizer.SKU{Name: "s16", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 128}}
	sku16G = optimizer.SKU{Name: "s16g", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 256}}
	sku12  = optimizer.SKU{Name: "s12", Capacity: optimizer.Vec{optimizer.Cores: 12, optimizer.Memory: 96}}
	skus   = []optimizer.SKU{sku16, sku16G, sku12}
)

// Test types: D1…D16 (8 GB per core, every SKU); G8, 8 cores and 128 GB,
// which only s16g runs; X8, 8 cores on s16g but 12 on s16 (an older,
// slower SKU needs more cores for the same VM).
const (
	d1 int32 = iota
	d2
	d4
	d8
	d12
	d16
	g8
	x8
)

func testTypes() []optimizer.VMType {
	var out []optimizer.VMType
	for _, c := range []float64{1, 2, 4, 8, 12, 16} {
		t := optimizer.VMType{Name: fmt.Sprintf("D%g", c)}
		for range skus {
			t.Demand = append(t.Demand, optimizer.Vec{optimizer.Cores: c, optimizer.Memory: 8 * c})
			t.Supported = append(t.Supported, true)
		}
		out = append(out, t)
	}
	g := optimizer.VMType{Name: "G8", Supported: []bool{false, true, false}}
	for range skus {
		g.Demand = append(g.Demand, optimizer.Vec{optimizer.Cores: 8, optimizer.Memory: 128})
	}
	x := optimizer.VMType{Name: "X8", Supported: []bool{true, true, false},
		Demand: []optimizer.Vec{{optimizer.Cores: 12, optimizer.Memory: 64}, {optimizer.Cores: 8, optimizer.Memory: 64}, {}}}
	return append(out, g, x)
}

// machine is a test machine: its cluster, rack, SKU and the types of its VMs.
type machine struct {
	cluster, rack string
	sku           int32
	vms           []int32
}

// zone builds the machines and places their VMs.
func zone(t testing.TB, ms []machine) *optimizer.State {
	t.Helper()
	var specs []optimizer.MachineSpec
	for i, m := range ms {
		specs = append(specs, optimizer.MachineSpec{Name: fmt.Sprintf("m%d", i), Cluster: m.cluster, Rack: m.rack, SKU: m.sku, Healthy: true})
	}
	inv, err := optimizer.NewInventory(skus, specs, testTypes())
	if err != nil {
		t.Fatal(err)
	}
	st := optimizer.NewState(inv)
	var id optimizer.VMID
	for i, m := range ms {
		for _, ty := range m.vms {
			d, ok := inv.Demand(ty, int32(i))
			if !ok {
				t.Fatalf("machine %d: type %d unsupported", i, ty)
			}
			st.Place(optimizer.Placement{VM: id, Machine: int32(i), Type: ty, Tenant: int32(id), Demand: d, Production: true})
			id++
		}
	}
	if err := st.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	return st
}

func vms(types ...int32) []int32 { return types }

type sampleCase struct {
	name                string
	machines            []machine
	healing             int32
	wantMachine, wantRk float64
}

func runCases(t *testing.T, cases []sampleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := zone(t, tc.machines)
			b := optimizer.Buffers{Healing: tc.healing}
			gotM, gotR := healable.New(st.Inv).Sample(st, b)
			if gotM != tc.wantMachine || gotR != tc.wantRk {
				t.Errorf("Sample = (%v, %v), want (%v, %v)", gotM, gotR, tc.wantMachine, tc.wantRk)
			}
			refM, refR := refSample(st, b)
			if refM != tc.wantMachine || refR != tc.wantRk {
				t.Errorf("reference = (%v, %v), want (%v, %v): the case or the reference is wrong", refM, refR, tc.wantMachine, tc.wantRk)
			}
		})
	}
}

// bufferZone: three 16-core machines, one per rack; m0 and m1 each host an
// 8-core VM, m2 is empty. m0's VM fits on m1 and m1's on m0 without
// touching the empty machine, but a heal needs the buffer: one empty
// machine is enough for Healing ≤ 1 and not for Healing = 2.
var bufferZone = []machine{
	{"c", "r0", 0, vms(d8)},
	{"c", "r1", 0, vms(d8)},
	{"c", "r2", 0, nil},
}

func TestSampleHealingBuffer(t *testing.T) {
	runCases(t, []sampleCase{
		{"no buffer: every failure heals onto the other half-full machine", bufferZone, 0, 100, 100},
		{"buffer 1 = the one empty machine: still heals", bufferZone, 1, 100, 100},
		{"buffer 2 > the one empty machine: only the empty machine's failure heals", bufferZone, 2, 100.0 / 3, 100.0 / 3},
	})
}

// The slides' point: utilization alone does not tell whether a cluster can
// heal. Both clusters hold 24 of 36 cores (66%) on three 12-core machines.
var (
	// emptyCluster: two full machines (8 + 4 cores) and one empty: a failed
	// machine's VMs go to the empty one.
	emptyCluster = []machine{
		{"a", "r0", 2, vms(d8, d4)},
		{"a", "r1", 2, vms(d8, d4)},
		{"a", "r2", 2, nil},
	}
	// fragmentedCluster: three machines with one 8-core VM each: 12 free
	// cores as three 4-core fragments, none of which holds an 8-core VM.
	fragmentedCluster = []machine{
		{"b", "r0", 2, vms(d8)},
		{"b", "r1", 2, vms(d8)},
		{"b", "r2", 2, vms(d8)},
	}
)

func TestSampleEmptyMachinesNotUtilization(t *testing.T) {
	for _, ms := range [][]machine{emptyCluster, fragmentedCluster} {
		st := zone(t, ms)
		if got := st.ClusterUsedCores[0] / st.Inv.Clusters[0].Cores; got != 24.0/36 {
			t.Fatalf("utilization %v, want 24/36", got)
		}
	}
	runCases(t, []sampleCase{
		{"66% with one empty machine: every failure heals", emptyCluster, 0, 100, 100},
		{"66% with free cores fragmented: no failure heals", fragmentedCluster, 0, 0, 0},
		{"both clusters in one zone: half the failures heal", append(append([]machine{}, emptyCluster...), fragmentedCluster...), 0, 50, 50},
	})
}

func TestSampleTypeSupport(t *testing.T) {
	runCases(t, []sampleCase{
		{"G8 runs only on s16g: with only s16 machines to heal to, its machine is unhealable", []machine{
			{"c", "r0", 1, vms(g8)},
			{"c", "r1", 0, nil},
			{"c", "r2", 0, nil},
		}, 0, 100 * 2.0 / 3, 100 * 2.0 / 3},
		{"G8 heals onto an empty s16g machine of a mixed cluster", []machine{
			{"c", "r0", 1, vms(g8)},
			{"c", "r1", 0, nil},
			{"c", "r2", 1, nil},
		}, 0, 100, 100},
		{"X8 needs 12 cores on s16: 10 free cores there do not hold it", []machine{
			{"c", "r0", 1, vms(x8)},
			{"c", "r1", 0, vms(d4, d2)},
		}, 0, 50, 50},
		{"X8 needs 8 cores on s16g: 8 free cores there hold it", []machine{
			{"c", "r0", 0, vms(x8)},
			{"c", "r1", 1, vms(d8)},
			{"c", "r2", 0, vms(d8)},
		}, 0, 100, 100},
	})
}

// rackZone: three racks of two 16-core machines. r0's two 4-core VMs fit
// on m4 (8 free); r1's two 16-core VMs need two empty machines and the
// cluster has one; r2's 8-core VM fits on m0 and its empty machine fails
// with it.
var rackZone = []machine{
	{"c", "r0", 0, vms(d4)},
	{"c", "r0", 0, vms(d4)},
	{"c", "r1", 0, vms(d16)},
	{"c", "r1", 0, vms(d16)},
	{"c", "r2", 0, vms(d8)},
	{"c", "r2", 0, nil},
}

func TestSampleRacks(t *testing.T) {
	runCases(t, []sampleCase{
		{"rack whose VMs fit in the rest heals, rack whose do not does not; every single machine heals", rackZone, 0, 100, 200.0 / 3},
		{"a second cluster's empty machines do not heal the first's racks", append(append([]machine{}, rackZone...),
			machine{"d", "r0", 0, nil}, machine{"d", "r0", 0, nil}), 0, 100, 300.0 / 4},
		{"a rack without VMs heals; a rack of two full machines does not fit one empty machine", []machine{
			{"c", "r0", 0, nil},
			{"c", "r1", 0, vms(d16)},
			{"c", "r1", 0, vms(d16)},
		}, 0, 100, 50},
	})
}

func TestSampleUnhealthy(t *testing.T) {
	st := zone(t, []machine{
		{"c", "r0", 0, vms(d16)},
		{"c", "r1", 0, vms(d8)},
		{"c", "r1", 0, nil},
	})
	// The empty machine goes down: m0's 16-core VM has nowhere to go and
	// m1's 8-core VM neither (m0 is full); the unhealthy machine is counted
	// in neither figure, and rack r1 fails as m1 alone.
	st.SetHealthy(2, false)
	gotM, gotR := healable.New(st.Inv).Sample(st, optimizer.Buffers{})
	if gotM != 0 || gotR != 0 {
		t.Errorf("Sample = (%v, %v), want (0, 0)", gotM, gotR)
	}
	st.SetHealthy(2, true)
	gotM, gotR = healable.New(st.Inv).Sample(st, optimizer.Buffers{})
	if gotM != 100 || gotR != 50 {
		t.Errorf("after repair Sample = (%v, %v), want (100, 50)", gotM, gotR)
	}
}

func TestSampleDoesNotChangeState(t *testing.T) {
	st, _ := randomZone(rand.New(rand.NewPCG(1, 2)), true)
	used := append([]optimizer.Vec(nil), st.Used...)
	count := append([]int32(nil), st.Count...)
	empty := append([]int32(nil), st.ClusterEmpty...)
	tags := append([]optimizer.MachineTag(nil), st.Tag...)
	rev := st.Journal.Rev()
	s := healable.New(st.Inv)
	for _, h := range []int32{0, 1, 2} {
		s.Sample(st, optimizer.Buffers{Healing: h})
	}
	if err := st.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{{"Used", st.Used, used}, {"Count", st.Count, count}, {"ClusterEmpty", st.ClusterEmpty, empty},
		{"Tag", st.Tag, tags}, {"Journal.Rev", st.Journal.Rev(), rev}} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s changed: %v, was %v", c.name, c.got, c.want)
		}
	}
}

// TestSampleMatchesReference compares the sampler with refSample on small
// random zones: mixed sizes and SKUs, unsupported types, unhealthy
// machines, oversubscription and random buffers. The same sampler is reused
// across zones of one inventory to catch state left over between samples.
func TestSampleMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	var partial [2]int // zones where the figure is strictly between 0 and 100
	for i := 0; i < 200; i++ {
		st, b := randomZone(rng, i%3 == 0)
		s := healable.New(st.Inv)
		for k := 0; k < 2; k++ {
			gotM, gotR := s.Sample(st, b)
			refM, refR := refSample(st, b)
			if gotM != refM || gotR != refR {
				t.Fatalf("zone %d (sample %d, %d machines, buffers %+v, oversub %v): Sample = (%v, %v), reference = (%v, %v)",
					i, k, len(st.Inv.Machines), b, st.OversubLimit, gotM, gotR, refM, refR)
			}
			if k == 0 {
				if gotM > 0 && gotM < 100 {
					partial[0]++
				}
				if gotR > 0 && gotR < 100 {
					partial[1]++
				}
			}
			b.Healing = (b.Healing + 1) % 3
		}
	}
	if partial[0] < 40 || partial[1] < 20 {
		t.Errorf("only %d zones with some machine failures healable and some not, %d for racks: the zones test too little", partial[0], partial[1])
	}
}

// randomZone builds 1–3 clusters of 1–3 racks of 1–4 machines, each
// cluster of one or (sometimes) two SKUs, fills them with VMs of every
// type at random, and marks a few machines unhealthy.
func randomZone(rng *rand.Rand, oversub bool) (*optimizer.State, optimizer.Buffers) {
	var specs []optimizer.MachineSpec
	for c, nc := 0, 1+rng.IntN(3); c < nc; c++ {
		skuA, skuB := int32(rng.IntN(len(skus))), int32(rng.IntN(len(skus)))
		mixed := rng.IntN(3) == 0
		for r, nr := 0, 1+rng.IntN(3); r < nr; r++ {
			for k, nm := 0, 1+rng.IntN(4); k < nm; k++ {
				sku := skuA
				if mixed && rng.IntN(2) == 0 {
					sku = skuB
				}
				specs = append(specs, optimizer.MachineSpec{Name: fmt.Sprintf("c%d-r%d-m%d", c, r, k),
					Cluster: fmt.Sprintf("c%d", c), Rack: fmt.Sprintf("r%d", r), SKU: sku, Healthy: true})
			}
		}
	}
	inv, err := optimizer.NewInventory(skus, specs, testTypes())
	if err != nil {
		panic(err)
	}
	st := optimizer.NewState(inv)
	if oversub {
		st.OversubLimit = 1.25
	}
	n := len(inv.Machines)
	fill := rng.Float64()
	for id := optimizer.VMID(0); id < optimizer.VMID(4*n); id++ {
		if rng.Float64() > fill {
			continue
		}
		m := int32(rng.IntN(n))
		ty := int32(rng.IntN(len(inv.Types)))
		d, ok := inv.Demand(ty, m)
		prod := !oversub || rng.IntN(2) == 0
		if !ok || !fitsState(st, m, d, prod) {
			continue
		}
		st.Place(optimizer.Placement{VM: id, Machine: m, Type: ty, Tenant: int32(id), Demand: d, Production: prod})
	}
	for m := 0; m < n; m++ {
		if rng.IntN(10) == 0 {
			st.SetHealthy(int32(m), false)
		}
	}
	if err := st.CheckInvariants(); err != nil {
		panic(err)
	}
	return st, optimizer.Buffers{Healing: int32(rng.IntN(3))}
}

// fitsState reports whether a VM of demand d, production or not, may join
// machine m under the state's oversubscription rules.
func fitsState(st *optimizer.State, m int32, d optimizer.Vec, prod bool) bool {
	tag := st.Tag[m]
	if st.OversubLimit > 0 && tag != optimizer.TagEmpty && (tag == optimizer.TagProduction) != prod {
		return false
	}
	limit := st.Inv.Capacity(m)
	if st.OversubLimit > 0 && (tag == optimizer.TagOversubscribable || tag == optimizer.TagEmpty && !prod) {
		limit[optimizer.Cores] *= st.OversubLimit
	}
	return optimizer.Fits(d, limit.Sub(st.Used[m]))
}

// refSample is the package comment's definition written plainly: every
// failure healed on maps of free capacity, scanning every machine of the
// cluster for every VM.
func refSample(st *optimizer.State, b optimizer.Buffers) (float64, float64) {
	inv := st.Inv
	var n, k int
	for m := range inv.Machines {
		if inv.Machines[m].Healthy {
			n++
			if refHeal(st, b, []int32{int32(m)}) {
				k++
			}
		}
	}
	var nr, kr int
	for r := range inv.Racks {
		var down []int32
		for _, m := range inv.Racks[r].Machines {
			if inv.Machines[m].Healthy {
				down = append(down, m)
			}
		}
		if len(down) > 0 {
			nr++
			if refHeal(st, b, down) {
				kr++
			}
		}
	}
	pct := func(k, n int) float64 {
		if n == 0 {
			return 100
		}
		return 100 * float64(k) / float64(n)
	}
	return pct(k, n), pct(kr, nr)
}

func refHeal(st *optimizer.State, b optimizer.Buffers, down []int32) bool {
	inv := st.Inv
	c := inv.Machines[down[0]].Cluster
	failed := map[int32]bool{}
	type vm struct {
		p     optimizer.Placement
		share float64
	}
	var todo []vm
	for _, m := range down {
		failed[m] = true
		capacity := inv.Capacity(m)
		for _, id := range st.VMsOn(m) {
			p, _ := st.Lookup(id)
			share := 0.0
			for i := range p.Demand {
				if capacity[i] > 0 && p.Demand[i]/capacity[i] > share {
					share = p.Demand[i] / capacity[i]
				}
			}
			todo = append(todo, vm{p, share})
		}
	}
	sort.Slice(todo, func(i, j int) bool {
		if todo[i].share != todo[j].share {
			return todo[i].share > todo[j].share
		}
		return todo[i].p.VM < todo[j].p.VM
	})
	free := map[int32]optimizer.Vec{}
	hosting := map[int32]bool{}
	var empty int32
	for _, m := range inv.Clusters[c].Machines {
		if !inv.Machines[m].Healthy || failed[m] {
			continue
		}
		limit := inv.Capacity(m)
		if st.OversubLimit > 0 && st.Tag[m] == optimizer.TagOversubscribable {
			limit[optimizer.Cores] *= st.OversubLimit
		}
		free[m] = limit.Sub(st.Used[m])
		hosting[m] = st.Count[m] > 0
		if !hosting[m] {
			empty++
		}
	}
	for _, v := range todo {
		if empty < b.Healing {
			return false
		}
		best, bestLeft := int32(-1), 0.0
		for _, wantHosting := range []bool{true, false} {
			for _, m := range inv.Clusters[c].Machines {
				f, ok := free[m]
				if !ok || hosting[m] != wantHosting {
					continue
				}
				d, supported := inv.Demand(v.p.Type, m)
				if !supported || !optimizer.Fits(d, f) {
					continue
				}
				left := f[optimizer.Cores] - d[optimizer.Cores]
				if best < 0 || left < bestLeft || left == bestLeft && m < best {
					best, bestLeft = m, left
				}
			}
			if best >= 0 {
				break
			}
		}
		if best < 0 {
			return false
		}
		d, _ := inv.Demand(v.p.Type, best)
		free[best] = free[best].Sub(d)
		if !hosting[best] {
			hosting[best] = true
			empty--
		}
	}
	return true
}

// TestSampleFollowsChanges: one Sampler samples a state again and again
// while VMs come and go and machines fail and return (it reads again only
// the machines the state's journal says changed): every sample equals the
// reference computed from scratch. Breaking the incremental read (reading
// nothing again, or every machine's VMs but not its health) fails it.
func TestSampleFollowsChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	changed := 0
	for i := 0; i < 60; i++ {
		st, b := randomZone(rng, i%3 == 0)
		s := healable.New(st.Inv)
		inv := st.Inv
		n := len(inv.Machines)
		next := optimizer.VMID(1 << 20)
		for round := 0; round < 12; round++ {
			gotM, gotR := s.Sample(st, b)
			refM, refR := refSample(st, b)
			if gotM != refM || gotR != refR {
				t.Fatalf("zone %d round %d: Sample = (%v, %v), reference = (%v, %v)", i, round, gotM, gotR, refM, refR)
			}
			// change a few machines: a VM leaves, one arrives, one machine's health flips
			for k := 0; k < 1+rng.IntN(3); k++ {
				m := int32(rng.IntN(n))
				if vms := st.VMsOn(m); len(vms) > 0 && rng.IntN(2) == 0 {
					st.Remove(vms[rng.IntN(len(vms))])
				} else {
					ty := int32(rng.IntN(len(inv.Types)))
					d, ok := inv.Demand(ty, m)
					prod := st.OversubLimit == 0 || rng.IntN(2) == 0
					if ok && fitsState(st, m, d, prod) {
						st.Place(optimizer.Placement{VM: next, Machine: m, Type: ty, Tenant: int32(next), Demand: d, Production: prod})
						next++
					}
				}
				changed++
			}
			if rng.IntN(3) == 0 {
				m := int32(rng.IntN(n))
				st.SetHealthy(m, !inv.Machines[m].Healthy)
			}
		}
	}
	if changed < 500 {
		t.Fatalf("only %d changes", changed)
	}
}

// TestSampleMatchesReferenceLoose compares the sampler with refSample on
// zones packed as an allocator packs them (healable.LooseZone: many empty
// machines, VMs up to more than half a machine), where most failures are
// decided without running their heal, before and after the state changes.
func TestSampleMatchesReferenceLoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	var partial int
	for i := 0; i < 150; i++ {
		st, b := healable.LooseZone(rng)
		s := healable.New(st.Inv)
		for k := 0; k < 3; k++ {
			gotM, gotR := s.Sample(st, b)
			refM, refR := refSample(st, b)
			if gotM != refM || gotR != refR {
				t.Fatalf("zone %d sample %d (%d machines, buffers %+v, oversub %v): Sample = (%v, %v), reference = (%v, %v)",
					i, k, len(st.Inv.Machines), b, st.OversubLimit, gotM, gotR, refM, refR)
			}
			if gotR > 0 && gotR < 100 {
				partial++
			}
			b.Healing = max(b.Healing-1, 0)
			if vms := st.VMsOn(int32(rng.IntN(len(st.Inv.Machines)))); len(vms) > 0 {
				st.Remove(vms[0])
			}
		}
	}
	if partial < 50 {
		t.Errorf("only %d samples with some rack failures healable and some not", partial)
	}
}

package replay

import (
	"math"
	"slices"
	"time"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

// sampler takes the interval samples of a run — the same figures under the
// same names for one agent and for many, so that run_metric, run_summary,
// lpbound --run and whatif read every run alike:
//
//	packing_density          allocated cores / cores of non-empty machines (Protean §6.3)
//	utilization              allocated cores / all cores
//	allocated_cores, low_priority_utilization, empty_machines,
//	empty_machines_per_cluster, alive_vms
//	arrivals, accepted, rejected, evicted, acceptance   (VMs in the interval)
//	latency_p50_us, latency_p99_us                     (decision latency in the interval)
//	empty_healthy_machines     empty healthy machines (the unit of the slides' buffers)
//	empty_machines/CLUSTER     empty machines of each cluster (as empty_machines)
//	healable_machine_failures_pct, healable_rack_failures_pct
//	                           machines (racks) whose VMs could all be healed in
//	                           their cluster under the healing buffer (healable)
//	stranded_cores_pct, stranded_memory_pct
//	                           free cores (memory) of healthy machines that no VM
//	                           type fits because another dimension is exhausted,
//	                           as a share of the zone's (see stranded)
//
// A sample at trace time t describes the state after every departure and
// decision at or before t. The summary's packing_density_mean and
// utilization_mean are the means of these samples on every path, and so
// are stranded_cores_pct_mean and stranded_memory_pct_mean.
type sampler struct {
	inv        *optimizer.Inventory
	totalCores float64
	metrics    []MetricRow
	// series kept for the summary's means
	densities, utils, lowUtils []float64
	healM, healR               []float64
	strandC, strandM           []float64
	strand                     *stranded
	heal                       *healable.Sampler
	buffers                    optimizer.Buffers
	clusterNames               []string
	clusterEmpty               []int
	// healSeconds is the time the healable samples took (taken on the
	// replay's goroutine, computed on one of their own: healable.Start),
	// healWait the part the replay spent on them (taking each, and
	// waiting for one not done by the next sample or the end).
	healSeconds, healWait float64
	// healAt is the index in metrics of the pending healable sample's
	// first row (-1: none pending).
	healAt int
	// counters of the current interval
	arrivals, accepted, rejected, evicted int
	lat                                   []float64
}

func newSampler(inv *optimizer.Inventory, b optimizer.Buffers) *sampler {
	s := &sampler{inv: inv, totalCores: inv.TotalCores(), heal: healable.New(inv), buffers: b,
		clusterEmpty: make([]int, len(inv.Clusters)), strand: newStranded(inv), healAt: -1}
	for _, c := range inv.Clusters {
		s.clusterNames = append(s.clusterNames, "empty_machines/"+c.Name)
	}
	return s
}

// sample records the state st at trace time t and closes the interval.
// Its healable-failure figures are computed beside the replay, and filled
// in by the next sample or by finish.
func (s *sampler) sample(t float64, st *optimizer.State) {
	s.finish()
	inv := s.inv
	var used, nonEmpty float64
	emptyMachines := 0
	for c := range inv.Clusters {
		used += st.ClusterUsedCores[c]
	}
	var lowCores float64
	clear(s.clusterEmpty)
	for m := range inv.Machines {
		if st.Count[m] > 0 {
			nonEmpty += inv.Capacity(int32(m))[optimizer.Cores]
		} else {
			emptyMachines++
			s.clusterEmpty[inv.Machines[m].Cluster]++
		}
		lowCores += st.LowUsed[m][optimizer.Cores]
	}
	pd := 0.0
	if nonEmpty > 0 {
		pd = used / nonEmpty
		s.densities = append(s.densities, pd)
	}
	util := used / s.totalCores
	s.utils = append(s.utils, util)
	s.lowUtils = append(s.lowUtils, lowCores/s.totalCores)
	add := func(name string, v float64) { s.metrics = append(s.metrics, MetricRow{t, name, v}) }
	add("packing_density", pd)
	add("utilization", util)
	add("allocated_cores", used)
	add("low_priority_utilization", lowCores/s.totalCores)
	add("empty_machines", float64(emptyMachines))
	add("empty_machines_per_cluster", float64(emptyMachines)/float64(len(inv.Clusters)))
	add("alive_vms", float64(st.Len()))
	var healthyEmpty int32
	for c := range inv.Clusters {
		healthyEmpty += st.ClusterEmpty[c]
		add(s.clusterNames[c], float64(s.clusterEmpty[c]))
	}
	add("empty_healthy_machines", float64(healthyEmpty))
	t0 := time.Now()
	s.heal.Start(st, s.buffers)
	took := time.Since(t0).Seconds()
	s.healSeconds += took
	s.healWait += took
	s.healAt = len(s.metrics)
	add("healable_machine_failures_pct", math.NaN()) // finish fills them in
	add("healable_rack_failures_pct", math.NaN())
	sc, sm := s.strand.sample(st)
	s.strandC, s.strandM = append(s.strandC, sc), append(s.strandM, sm)
	add("stranded_cores_pct", sc)
	add("stranded_memory_pct", sm)
	add("arrivals", float64(s.arrivals))
	add("accepted", float64(s.accepted))
	add("rejected", float64(s.rejected))
	add("evicted", float64(s.evicted))
	if s.arrivals > 0 {
		add("acceptance", float64(s.accepted)/float64(s.arrivals))
	}
	if len(s.lat) > 0 {
		add("latency_p50_us", quantile(s.lat, 0.5))
		add("latency_p99_us", quantile(s.lat, 0.99))
	}
	s.arrivals, s.accepted, s.rejected, s.evicted = 0, 0, 0, 0
	s.lat = s.lat[:0]
}

// finish waits for the pending healable sample, if any, and fills in its
// figures: the metrics and the means are complete after it.
func (s *sampler) finish() {
	if s.healAt < 0 {
		return
	}
	t0 := time.Now()
	hm, hr, took := s.heal.Wait()
	s.healWait += time.Since(t0).Seconds()
	s.healSeconds += took.Seconds()
	s.metrics[s.healAt].Value, s.metrics[s.healAt+1].Value = hm, hr
	s.healM, s.healR = append(s.healM, hm), append(s.healR, hr)
	s.healAt = -1
}

// summarize fills the summary figures every path defines alike: the means
// of the samples, the eviction rate, decision latency percentiles and
// placements per wall-clock second.
//
// It sorts lat in place.
func (s *sampler) summarize(sum *Summary, lowPlaced int, lat []float64) {
	s.finish()
	sum.PackingDensityMean = mean(s.densities)
	sum.UtilizationMean = mean(s.utils)
	sum.LowPriorityUtilizationMean = mean(s.lowUtils)
	sum.HealableMachineFailuresPctMean = mean(s.healM)
	sum.HealableRackFailuresPctMean = mean(s.healR)
	sum.HealableSampleSeconds = s.healSeconds
	sum.HealableWaitSeconds = s.healWait
	sum.StrandedCoresPctMean = mean(s.strandC)
	sum.StrandedMemoryPctMean = mean(s.strandM)
	if lowPlaced > 0 {
		sum.EvictionRate = float64(sum.Evicted) / float64(lowPlaced)
	}
	slices.Sort(lat) // in place: a long trace's latencies are not copied
	sum.LatencyP50US = sortedQuantile(lat, 0.5)
	sum.LatencyP99US = sortedQuantile(lat, 0.99)
	if sum.Seconds > 0 {
		sum.PlacementsPerSec = float64(sum.Accepted) / sum.Seconds
	}
}

// stranded samples stranded cores and memory (the figures Google's LAVA,
// MLSys 2025, reports). For a healthy machine m with free vector
// f = capacity − used and T(m) the VM types of the trace (the inventory's
// types) that m's SKU supports and that fit m's empty capacity, a dimension
// d ∈ {cores, memory} is stranded when
//
//	stranded_d(m) = f_d   if f_d > ε
//	                      and ∀t ∈ T(m): ¬Fits(demand_t(m), f)      (nothing fits)
//	                      and ∃t ∈ T(m): demand_t,d(m) ≤ f_d + ε    (t fits by d alone)
//	              = 0     otherwise
//
// with Fits and its ε = 1e-9 those of optimizer.Fits. The third clause says
// why the free d is unusable: some type would fit by d alone, so another
// dimension (any of the vector's, GPUs and pods included) is exhausted. A
// machine where no type fits by d either is simply nearly full in d too,
// and its free d is not stranded. A type larger than m's capacity is left
// out of T(m): no state of m could host it, so it strands nothing. The
// free vector is the nominal one (capacity − used, as packing density
// counts it); placement rules (isolation, node sets, anti-colocation,
// oversubscription) are not consulted. Unhealthy machines strand nothing
// (their free resources are out of service, not stranded) but their
// capacity stays in the denominators:
//
//	stranded_cores_pct  = 100 · Σ_m stranded_cores(m)  / Σ_m capacity_cores(m)
//	stranded_memory_pct = 100 · Σ_m stranded_memory(m) / Σ_m capacity_memory(m)
//
// over every machine of the zone (0 for a zone without memory).
//
// Cost: per SKU, T's demands are precomputed once, only the minimal ones
// under the componentwise order kept (if a type fits, so does every type
// it dominates) and sorted by ascending size (Σ_i demand_i / capacity_i),
// so that a sample tries few types per machine and stops at the first that
// fits. A machine whose free cores and memory could not be stranded (f_d ≤
// ε, or no type fits by d) is decided without trying any, and so is one
// that no type fits by cores and memory together (strandSKU.noneFits). A
// machine costs about 30 ns (BenchmarkStrandedSample: 3 ms for 100k
// machines, 5 ms when 50 types are all minimal); answers are not memoized
// by free vector, which did not pay. A sample recomputes only the machines
// whose journal revision moved since the last sample of the same state,
// and sums every machine's figures in machine order, as a full pass would.
type stranded struct {
	skus                   []strandSKU
	totalCores, totalMemGB float64
	// Per machine its stranded cores and memory, as of the journal
	// revision rev of the state last sampled: a sample recomputes only
	// the machines that changed since (placements, removals, health) and
	// sums in machine order, as a full pass would.
	state      *optimizer.State
	rev        []uint64
	cores, mem []float64
}

// strandSKU is one SKU's T: the minimal demands of its types in ascending
// size, and the least cores and memory any of them asks for (+Inf when the
// SKU hosts no type). cores lists their cores ascending and memBelow[i] the
// least memory of the types with at most cores[i] cores: a type fits a
// free f only if one of the first k (cores[k−1] ≤ f_cores) asks for at most
// f_memory, which decides most machines that nothing fits without a scan.
type strandSKU struct {
	demands  []optimizer.Vec
	minCore  float64
	minMem   float64
	cores    []float64
	memBelow []float64
}

func newStranded(inv *optimizer.Inventory) *stranded {
	n := len(inv.Machines)
	s := &stranded{skus: make([]strandSKU, len(inv.SKUs)), rev: make([]uint64, n), cores: make([]float64, n), mem: make([]float64, n)}
	for k := range inv.SKUs {
		s.skus[k] = strandTypes(inv, int32(k))
	}
	for m := range inv.Machines {
		c := inv.Capacity(int32(m))
		s.totalCores += c[optimizer.Cores]
		s.totalMemGB += c[optimizer.Memory]
	}
	return s
}

// strandTypes precomputes T for SKU k.
func strandTypes(inv *optimizer.Inventory, k int32) strandSKU {
	capa := inv.SKUs[k].Capacity
	type cand struct {
		d    optimizer.Vec
		size float64
	}
	var all []cand
	for _, ty := range inv.Types {
		if !ty.Supported[k] || !optimizer.Fits(ty.Demand[k], capa) {
			continue
		}
		c := cand{d: ty.Demand[k]}
		for i, x := range c.d {
			if capa[i] > 0 {
				c.size += x / capa[i]
			}
		}
		all = append(all, c)
	}
	// Keep the minimal demands: a is dropped when another b ≤ a in every
	// dimension (the first of equal ones is kept).
	le := func(a, b optimizer.Vec) bool {
		for i := range a {
			if a[i] > b[i] {
				return false
			}
		}
		return true
	}
	var kept []cand
	for i, a := range all {
		dominated := false
		for j, b := range all {
			if j != i && le(b.d, a.d) && (b.d != a.d || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			kept = append(kept, a)
		}
	}
	slices.SortStableFunc(kept, func(a, b cand) int {
		switch {
		case a.size < b.size:
			return -1
		case a.size > b.size:
			return 1
		}
		return 0
	})
	t := strandSKU{minCore: math.Inf(1), minMem: math.Inf(1)}
	for _, c := range kept {
		t.demands = append(t.demands, c.d)
		t.minCore = math.Min(t.minCore, c.d[optimizer.Cores])
		t.minMem = math.Min(t.minMem, c.d[optimizer.Memory])
	}
	byCores := slices.Clone(t.demands)
	slices.SortStableFunc(byCores, func(a, b optimizer.Vec) int {
		switch {
		case a[optimizer.Cores] < b[optimizer.Cores]:
			return -1
		case a[optimizer.Cores] > b[optimizer.Cores]:
			return 1
		}
		return 0
	})
	least := math.Inf(1)
	for _, d := range byCores {
		least = math.Min(least, d[optimizer.Memory])
		t.cores = append(t.cores, d[optimizer.Cores])
		t.memBelow = append(t.memBelow, least)
	}
	return t
}

// noneFits is true when no type of t can fit f by cores and memory
// together; false when one might (the scan decides).
func (t *strandSKU) noneFits(f optimizer.Vec) bool {
	k, _ := slices.BinarySearch(t.cores, math.Nextafter(f[optimizer.Cores]+strandEps, math.Inf(1)))
	return k == 0 || t.memBelow[k-1] > f[optimizer.Memory]+strandEps
}

// strandEps is optimizer.Fits' tolerance: the rounding residue of summed
// fractional demands (the Azure packing trace) is neither free nor short.
const strandEps = 1e-9

// strandedOn returns the stranded cores and memory of a machine with free
// vector f whose SKU's types are t (the formula of stranded).
func strandedOn(f optimizer.Vec, t *strandSKU) (cores, memGB float64) {
	c := f[optimizer.Cores] > strandEps && t.minCore <= f[optimizer.Cores]+strandEps
	m := f[optimizer.Memory] > strandEps && t.minMem <= f[optimizer.Memory]+strandEps
	if !c && !m {
		return 0, 0
	}
	if !t.noneFits(f) {
		for _, d := range t.demands {
			if optimizer.Fits(d, f) {
				return 0, 0
			}
		}
	}
	if c {
		cores = f[optimizer.Cores]
	}
	if m {
		memGB = f[optimizer.Memory]
	}
	return cores, memGB
}

// sample returns stranded_cores_pct and stranded_memory_pct of st.
func (s *stranded) sample(st *optimizer.State) (coresPct, memPct float64) {
	if s.state != st {
		s.state = st
		for m := range s.rev {
			s.rev[m] = math.MaxUint64 // another state: every machine again
		}
	}
	j := st.Journal
	var cores, mem float64
	for m := range st.Inv.Machines {
		if r := j.MachineRev(int32(m)); r != s.rev[m] {
			s.rev[m] = r
			s.cores[m], s.mem[m] = 0, 0
			if mc := &st.Inv.Machines[m]; mc.Healthy {
				s.cores[m], s.mem[m] = strandedOn(st.Free(int32(m)), &s.skus[mc.SKU])
			}
		}
		cores += s.cores[m]
		mem += s.mem[m]
	}
	if s.totalCores > 0 {
		coresPct = 100 * cores / s.totalCores
	}
	if s.totalMemGB > 0 {
		memPct = 100 * mem / s.totalMemGB
	}
	return coresPct, memPct
}

package replay

import (
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
//
// A sample at trace time t describes the state after every departure and
// decision at or before t. The summary's packing_density_mean and
// utilization_mean are the means of these samples on every path.
type sampler struct {
	inv        *optimizer.Inventory
	totalCores float64
	metrics    []MetricRow
	// series kept for the summary's means
	densities, utils, lowUtils []float64
	healM, healR               []float64
	heal                       *healable.Sampler
	buffers                    optimizer.Buffers
	clusterNames               []string
	clusterEmpty               []int
	healSeconds                float64 // wall time of the healable samples
	// counters of the current interval
	arrivals, accepted, rejected, evicted int
	lat                                   []float64
}

func newSampler(inv *optimizer.Inventory, b optimizer.Buffers) *sampler {
	s := &sampler{inv: inv, totalCores: inv.TotalCores(), heal: healable.New(inv), buffers: b,
		clusterEmpty: make([]int, len(inv.Clusters))}
	for _, c := range inv.Clusters {
		s.clusterNames = append(s.clusterNames, "empty_machines/"+c.Name)
	}
	return s
}

// sample records the state st at trace time t and closes the interval.
func (s *sampler) sample(t float64, st *optimizer.State) {
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
	hm, hr := s.heal.Sample(st, s.buffers)
	s.healSeconds += time.Since(t0).Seconds()
	s.healM, s.healR = append(s.healM, hm), append(s.healR, hr)
	add("healable_machine_failures_pct", hm)
	add("healable_rack_failures_pct", hr)
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

// summarize fills the summary figures every path defines alike: the means
// of the samples, the eviction rate, decision latency percentiles and
// placements per wall-clock second.
func (s *sampler) summarize(sum *Summary, rows []PlacementRow, lowPriority map[int64]bool, lat []float64) {
	sum.PackingDensityMean = mean(s.densities)
	sum.UtilizationMean = mean(s.utils)
	sum.LowPriorityUtilizationMean = mean(s.lowUtils)
	sum.HealableMachineFailuresPctMean = mean(s.healM)
	sum.HealableRackFailuresPctMean = mean(s.healR)
	sum.HealableSampleSeconds = s.healSeconds
	lowPlaced := 0
	for i := range rows {
		if rows[i].Outcome != "rejected" && lowPriority[rows[i].VM] {
			lowPlaced++
		}
	}
	if lowPlaced > 0 {
		sum.EvictionRate = float64(sum.Evicted) / float64(lowPlaced)
	}
	sum.VMs = len(rows)
	sum.LatencyP50US = quantile(lat, 0.5)
	sum.LatencyP99US = quantile(lat, 0.99)
	if sum.Seconds > 0 {
		sum.PlacementsPerSec = float64(sum.Accepted) / sum.Seconds
	}
}

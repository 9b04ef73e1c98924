package paragon

import "math"

// UsableCapacity is the cluster's usable capacity for an arrival mix drawn
// uniformly from apps: the largest steady core demand of the mix that the
// servers can run with every application on a configuration within 5% of
// its best (NearBestFraction, Table 1's and QoS's margin). Cores on
// configurations that are near-best for few applications count only as
// far as those applications need them.
//
// Application a asks for cores_a and may use the set N(a) of
// configurations with Perf ≥ NearBestFraction; q(T) is the share of the
// mix's core demand Σ cores_a whose N(a) lies inside a set T of
// configurations, and cores(T) the cores of T's servers. By Hall's theorem
// for fractional assignments (a max-flow argument) a demand D fits iff
// D·q(T) ≤ cores(T) for every T, so
//
//	U = min over T with q(T) > 0 of cores(T) / q(T).
//
// All 2^configs sets are visited (a subset-sum transform): O(2^configs ×
// configs). It panics for configs > 30 (a programmer error: Scenario
// validation bounds it by maxConfigs).
func UsableCapacity(apps []App, specs []ServerSpec, configs int) float64 {
	if configs > 30 {
		panic("paragon: UsableCapacity: too many configurations")
	}
	n := 1 << configs
	q := make([]float64, n)
	total := 0.0
	for _, a := range apps {
		mask := 0
		for c, v := range a.Perf {
			if v >= NearBestFraction-tieTolerance {
				mask |= 1 << c
			}
		}
		q[mask] += float64(a.Cores)
		total += float64(a.Cores)
	}
	if total == 0 {
		return 0
	}
	// q[T] ← Σ over masks ⊆ T.
	for c := 0; c < configs; c++ {
		for t := 0; t < n; t++ {
			if t&(1<<c) != 0 {
				q[t] += q[t^(1<<c)]
			}
		}
	}
	coresOf := make([]float64, configs)
	for _, s := range specs {
		coresOf[s.Config] += float64(s.Cores)
	}
	best := math.Inf(1)
	cores := make([]float64, n)
	for t := 1; t < n; t++ {
		low := t & -t
		c := 0
		for 1<<c != low {
			c++
		}
		cores[t] = cores[t^low] + coresOf[c]
		if q[t] > 0 {
			best = math.Min(best, cores[t]/(q[t]/total))
		}
	}
	return best
}

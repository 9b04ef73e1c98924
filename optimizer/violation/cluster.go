package violation

import "math"

// Tenant is a database replica as placement sees it: what is known about it
// now, not its future (§3.2, §5.1).
type Tenant struct {
	// ID identifies the tenant within a run. It keys the tenant's random
	// stream in Algorithm 1 (so its sampled futures are common to every
	// node's estimate within one request) and the Estimator's cache.
	ID int64
	// Class is the tenant class; Algorithm 1 simulates the tenant with
	// curves of this class.
	Class string
	// Age is the number of steps since the tenant was placed, the index δ
	// of its current, not yet observed, sample; samples 0, …, Age−1 are
	// known. A new tenant has Age 0. Algorithm 1 draws only curves with
	// lifetime L > Age ("placed L units of time ago … lifetime at least L").
	Age int
	// ObservedMax is LBMax_r of §5.1, the largest demand seen so far per
	// resource (zero for a new tenant). Under ConditionMax Algorithm 1
	// draws only curves whose maximum reaches it; under ConditionPrefix
	// memory and disk are replayed anchored at it, and CPU draws only
	// curves whose CPU maximum reaches it.
	ObservedMax Vec
	// Usage is the tenant's current demand usage_{db,now}^r; for a tenant
	// being placed for the first time it is the estimate
	// \overline{usage}_{db,0}^r of §6 (Repository.InitialDemand).
	Usage Vec
	// Max is MaxUsage^r, the tenant's cap (its share of the density).
	Max Vec
	// RiseAge is, per resource, the Age at which ObservedMax_r last rose
	// by more than PlateauTolerance over its level at the rise before (1
	// after the first sample, 0 for a new tenant): samples RiseAge−1, …,
	// Age−1 all stay within PlateauTolerance of sample RiseAge−1, so a
	// tenant with Age − RiseAge_r large has been on a plateau that long.
	// Observe maintains it; the prefix conditioning of the Estimator
	// draws only curves whose model did not grow more over that window.
	RiseAge [NumResources]int
	// riseLevel is ObservedMax_r at the last rise.
	riseLevel Vec
}

// PlateauTolerance is the relative growth below which a demand counts as
// flat: 1 − GrowthReach, the 95% of its maximum that §3.1 (and the growth
// phase of the §5.3 model) treats as reached.
const PlateauTolerance = 1 - GrowthReach

// Observe records the tenant's next sample u (sample index Age): Usage
// becomes u, ObservedMax and the rise ages take it in, and Age grows by one.
// It is the one update path for what placement knows of a tenant's prefix.
func (t *Tenant) Observe(u Vec) {
	t.Usage = u
	t.ObservedMax = t.ObservedMax.Max(u)
	for r := range NumResources {
		if t.Age == 0 || u[r] > (1+PlateauTolerance)*t.riseLevel[r] {
			t.RiseAge[r] = t.Age + 1
			t.riseLevel[r] = t.ObservedMax[r]
		}
	}
	t.Age++
}

// Node is one machine N_i with the tenants placed on it.
type Node struct {
	Tenants []Tenant
	// Load is nodeload_i^r = Σ_{db on N_i} usage_{db,now}^r.
	Load Vec
	// Unavailable excludes the node as a destination (the node a tenant is
	// being failed over from).
	Unavailable bool
}

// Cluster is the state a Policy places into: H nodes of one hardware
// specification.
type Cluster struct {
	// Capacity is c_r.
	Capacity Vec
	// Threshold is f_r ∈ (0, 1]: a node violates when nodeload^r ≥ f_r·c_r.
	Threshold Vec
	Nodes     []Node
}

// Limit is f_r·c_r, the load at which a node is in violation.
//
// A resource of zero capacity is one the cluster does not track (Bitbrains
// has no local disk): its limit is +Inf, so an empty node is not "in
// violation" at load 0 ≥ 0.
func (c *Cluster) Limit() Vec {
	l := c.Threshold.Mul(c.Capacity)
	for r := range l {
		if c.Capacity[r] == 0 {
			l[r] = math.Inf(1)
		}
	}
	return l
}

// Fits reports whether a node with the given load can take demand d without
// being in violation at once: load_r + d_r < limit_r for every r. It is the
// configuration space of §6 ("all nodes that can accommodate the estimated
// initial demand of db").
func Fits(load, d, limit Vec) bool {
	for r := range load {
		if load[r]+d[r] >= limit[r] {
			return false
		}
	}
	return true
}

// feasible lists the nodes that can take the request's tenant.
func feasible(c *Cluster, t *Tenant, buf []int) []int {
	limit := c.Limit()
	buf = buf[:0]
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if !n.Unavailable && Fits(n.Load, t.Usage, limit) {
			buf = append(buf, i)
		}
	}
	return buf
}

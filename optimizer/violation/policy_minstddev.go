package violation

import "math"

// MinStdDev places db where the sum over resources of the standard
// deviation of node load (relative to capacity) across all H nodes is
// smallest afterwards — the imbalance term of Service Fabric's PLB (§7,
// §8.3). With x_i = nodeload_i^r / c_r, S1 = Σ_i x_i, S2 = Σ_i x_i² and
// d = usage_db^r / c_r, placing on node k gives
//
//	σ_r(k) = sqrt((S2 + 2·x_k·d + d²)/H − ((S1 + d)/H)²)
//
// and the policy picks arg min_k Σ_r σ_r(k) among feasible nodes (ties to
// the lower index).
type MinStdDev struct{ buf []int }

var _ Policy = (*MinStdDev)(nil)

// NewMinStdDev returns the policy.
func NewMinStdDev() *MinStdDev { return &MinStdDev{} }

// Name is "minstddev".
func (p *MinStdDev) Name() string { return NameMinStdDev }

// Place implements Policy.
func (p *MinStdDev) Place(c *Cluster, req Request) (int, bool) {
	p.buf = feasible(c, &req.Tenant, p.buf)
	var s1, s2, d Vec
	for i := range c.Nodes {
		for r := range NumResources {
			if c.Capacity[r] > 0 {
				x := c.Nodes[i].Load[r] / c.Capacity[r]
				s1[r] += x
				s2[r] += x * x
			}
		}
	}
	for r := range NumResources {
		if c.Capacity[r] > 0 {
			d[r] = req.Tenant.Usage[r] / c.Capacity[r]
		}
	}
	h := float64(len(c.Nodes))
	n := argBest(p.buf, func(k int) float64 {
		sum := 0.0
		for r := range NumResources {
			if c.Capacity[r] <= 0 {
				continue
			}
			x := c.Nodes[k].Load[r] / c.Capacity[r]
			mean := (s1[r] + d[r]) / h
			sum += math.Sqrt(max((s2[r]+2*x*d[r]+d[r]*d[r])/h-mean*mean, 0))
		}
		return sum
	})
	return n, n >= 0
}

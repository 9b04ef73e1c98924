package violation

// DotProduct is the alignment score of Tetris ([17] §3.2) and of vector bin
// packing ([28]): the inner product of db's demand with the node's free
// capacity, both relative to capacity,
//
//	score_i = Σ_r (usage_db^r / c_r) · ((c_r − nodeload_i^r) / c_r)
//
// and the policy picks arg max_i score_i among feasible nodes (ties to the
// lower index).
type DotProduct struct{ buf []int }

var _ Policy = (*DotProduct)(nil)

// NewDotProduct returns the policy.
func NewDotProduct() *DotProduct { return &DotProduct{} }

// Name is "dotproduct".
func (p *DotProduct) Name() string { return NameDotProduct }

// Place implements Policy.
func (p *DotProduct) Place(c *Cluster, req Request) (int, bool) {
	p.buf = feasible(c, &req.Tenant, p.buf)
	n := argBest(p.buf, func(k int) float64 {
		s := 0.0
		for r := range NumResources {
			if cr := c.Capacity[r]; cr > 0 {
				s += req.Tenant.Usage[r] / cr * (cr - c.Nodes[k].Load[r]) / cr
			}
		}
		return -s
	})
	return n, n >= 0
}

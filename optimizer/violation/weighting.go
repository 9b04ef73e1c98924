package violation

// Weighting turns a node's load vector into the scalar that BestFit and
// WorstFit compare (§6.1).
type Weighting int

const (
	// WSum is FFDSum (Equation 3):
	//
	//	W_Sum(nodeload) = Σ_j w_j · nodeload^{r_j},  w_j = (1/(|𝒟𝓑|·c_j)) Σ_{db} usage_{db,now}^{r_j}
	//
	// each resource weighted by the cluster's mean tenant demand relative to
	// capacity (w_j = 1/c_j while the cluster is empty).
	WSum Weighting = iota
	// WMax is Equation 4: W_Max(nodeload) = max_j nodeload^{r_j} / c_j.
	WMax
)

// String returns "sum" or "max".
func (w Weighting) String() string {
	if w == WMax {
		return "max"
	}
	return "sum"
}

// weigher is a Weighting bound to a cluster's weights for one placement.
type weigher struct {
	w   Weighting
	wts Vec
}

func (w Weighting) bind(c *Cluster) weigher {
	b := weigher{w: w}
	var total Vec
	tenants := 0
	for i := range c.Nodes {
		total = total.Add(c.Nodes[i].Load)
		tenants += len(c.Nodes[i].Tenants)
	}
	for r := range NumResources {
		if c.Capacity[r] <= 0 {
			continue
		}
		switch {
		case w == WMax:
			b.wts[r] = 1 / c.Capacity[r]
		case tenants == 0:
			b.wts[r] = 1 / c.Capacity[r]
		default:
			b.wts[r] = total[r] / (float64(tenants) * c.Capacity[r])
		}
	}
	return b
}

// of is W(load).
func (b weigher) of(load Vec) float64 {
	if b.w == WMax {
		m := 0.0
		for r := range NumResources {
			m = max(m, load[r]*b.wts[r])
		}
		return m
	}
	s := 0.0
	for r := range NumResources {
		s += b.wts[r] * load[r]
	}
	return s
}

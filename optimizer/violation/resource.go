package violation

// Resource names one dimension of demand and capacity (the paper's 𝓡).
type Resource int

// The resources of §3.1. A dataset without a resource (Bitbrains has no
// local disk) leaves its series nil and the resource counts as 0.
const (
	CPU    Resource = iota // cores (vCores for the synthetic curves)
	Memory                 // GB for the synthetic curves
	Disk                   // local disk, GB for the synthetic curves
	// NumResources is |𝓡|.
	NumResources = 3
)

var resourceNames = [NumResources]string{"cpu", "memory", "disk"}

// String returns "cpu", "memory" or "disk".
func (r Resource) String() string {
	if r < 0 || int(r) >= NumResources {
		return "resource(?)"
	}
	return resourceNames[r]
}

// Vec is one value per resource, indexed by Resource. It marshals to JSON as
// [cpu, memory, disk].
type Vec [NumResources]float64

// Add returns v+w.
func (v Vec) Add(w Vec) Vec {
	for r := range v {
		v[r] += w[r]
	}
	return v
}

// Sub returns v−w.
func (v Vec) Sub(w Vec) Vec {
	for r := range v {
		v[r] -= w[r]
	}
	return v
}

// Mul returns the element-wise product v∘w (f_r·c_r is Threshold.Mul(Capacity)).
func (v Vec) Mul(w Vec) Vec {
	for r := range v {
		v[r] *= w[r]
	}
	return v
}

// Max returns the element-wise maximum of v and w.
func (v Vec) Max(w Vec) Vec {
	for r := range v {
		v[r] = max(v[r], w[r])
	}
	return v
}

// AnyAtLeast reports whether v_r ≥ w_r for some r: the violation test of
// §3.2 (node load ≥ f_r·c_r) when w is the limit.
func (v Vec) AnyAtLeast(w Vec) bool {
	for r := range v {
		if v[r] >= w[r] {
			return true
		}
	}
	return false
}

// AllAtLeast reports whether v_r ≥ w_r for every r (the dominance test of
// the §5.1 max-demand condition).
func (v Vec) AllAtLeast(w Vec) bool {
	for r := range v {
		if v[r] < w[r] {
			return false
		}
	}
	return true
}

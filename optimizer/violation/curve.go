package violation

import (
	"fmt"
	"math"
	"time"
)

// Curve is one tenant's demand curve (§3.2): per resource r the series
// ⟨usage_{db,0}^r, …, usage_{db,L−1}^r⟩ sampled every Step over the tenant's
// lifetime L, with its tenant class and its maximum demand MaxUsage^r.
type Curve struct {
	// ID names the source (a database or VM id) so errors can say where.
	ID string
	// Class is the tenant class of §3: tenants that agree on size, storage,
	// billing model and replica count. Algorithm 1 draws only curves of the
	// same class.
	Class string
	// Step is the sampling interval; all curves of a Repository share it.
	Step time.Duration
	// Max is MaxUsage^r, the upper bound on the tenant's demand (its class's
	// cap). The tenant density OR^r of §3.2 is Σ Max_r / c_r.
	Max Vec
	// Demand holds usage_{db,δ}^r for δ = 0, …, L−1. A nil series is a
	// resource the dataset does not have; it reads as 0. The non-nil series
	// have one length, the lifetime L ≥ 1.
	Demand [NumResources][]float32
}

// Lifetime is L, the number of samples (0 for a curve without series).
func (c *Curve) Lifetime() int {
	for _, s := range c.Demand {
		if s != nil {
			return len(s)
		}
	}
	return 0
}

// At returns usage_{db,δ}^r, 0 for an absent resource.
func (c *Curve) At(r Resource, delta int) float64 {
	s := c.Demand[r]
	if s == nil {
		return 0
	}
	return float64(s[delta])
}

// Peak returns max_δ usage_{db,δ}^r per resource.
func (c *Curve) Peak() Vec {
	var p Vec
	for r, s := range c.Demand {
		for _, x := range s {
			p[r] = max(p[r], float64(x))
		}
	}
	return p
}

// Validate reports a malformed curve as an error wrapping ErrCurve that
// names the field and sample.
func (c *Curve) Validate() error {
	if c.Step <= 0 {
		return fmt.Errorf("%w: curve %q: step %v is not positive", ErrCurve, c.ID, c.Step)
	}
	l := c.Lifetime()
	if l == 0 {
		return fmt.Errorf("%w: curve %q: no samples", ErrCurve, c.ID)
	}
	for r, s := range c.Demand {
		if s == nil {
			continue
		}
		if len(s) != l {
			return fmt.Errorf("%w: curve %q: %s has %d samples, want %d", ErrCurve, c.ID, Resource(r), len(s), l)
		}
		for d, x := range s {
			if !(x >= 0) || math.IsInf(float64(x), 1) {
				return fmt.Errorf("%w: curve %q: %s[%d] = %v", ErrCurve, c.ID, Resource(r), d, x)
			}
		}
		if m := c.Max[r]; !(m >= 0) || math.IsInf(m, 1) {
			return fmt.Errorf("%w: curve %q: max %s = %v", ErrCurve, c.ID, Resource(r), m)
		}
	}
	return nil
}

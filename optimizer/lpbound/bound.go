package lpbound

import "math"

// RoundingSlack is subtracted (relative to max(1, |bound|)) before a bound
// is rounded up: floating-point error in Σ π_i d_i and in the pricing sums
// is below 1e-12 relative for up to 10⁵ terms, so 1e-9 covers it with room
// to spare. It can only lower the bound.
const RoundingSlack = 1e-9

// lagrangian is the Lagrangian lower bound on the optimum obtained by
// relaxing the cover constraints with multipliers θπ (π ≥ 0, θ ≥ 0):
//
//	f(θ) = θ·P + Σ_{k limited} L_k · min(0, c_k − θ·U_k),
//	0 ≤ θ ≤ θmax = min_{k unlimited, U_k > 0} c_k / U_k,
//
// where P = Σ_i π_i d_i and U_k ≥ max_p Σ_i π_i a_ip over the patterns of
// bin type k (an exact maximum or any over-estimate). For every solution x
// (integer or fractional), cost(x) ≥ θP + Σ_kp x_kp (c_k − θ π·a_p) ≥ f(θ),
// because the cover slack is ≥ 0, c_k − θU_k ≥ 0 for the unlimited types
// and 0 ≤ Σ_p x_kp ≤ L_k for the limited ones. With no limits and unit
// costs this is Farley's bound P / max_k U_k.
//
// f is concave and piecewise linear, so its maximum is at θmax or at a
// breakpoint c_k/U_k. If θmax = ∞ (no unlimited type can use π) and the
// slope P − Σ_k L_k U_k stays > 0, f is unbounded: no solution exists,
// and lagrangian reports infeasible. theta is the maximizer.
func lagrangian(P float64, bins []mbin, U []float64) (lb, theta float64, infeasible bool) {
	thetaMax := math.Inf(1)
	for k, b := range bins {
		if b.limit == 0 && U[k] > 0 {
			thetaMax = min(thetaMax, b.cost/U[k])
		}
	}
	f := func(theta float64) float64 {
		v := theta * P
		for k, b := range bins {
			if b.limit > 0 {
				v += float64(b.limit) * min(0, b.cost-theta*U[k])
			}
		}
		return v
	}
	if math.IsInf(thetaMax, 1) {
		slope, scale := P, math.Abs(P)
		for k, b := range bins {
			if b.limit > 0 {
				slope -= float64(b.limit) * U[k]
				scale += float64(b.limit) * U[k]
			}
		}
		if slope > RoundingSlack*max(1, scale) {
			return math.Inf(1), math.Inf(1), true
		}
	}
	lb = f(0)
	try := func(t float64) {
		if v := f(t); v > lb {
			lb, theta = v, t
		}
	}
	if !math.IsInf(thetaMax, 1) {
		try(thetaMax)
	}
	for k, b := range bins {
		if b.limit > 0 && U[k] > 0 {
			if t := b.cost / U[k]; t > 0 && t <= thetaMax {
				try(t)
			}
		}
	}
	return lb, theta, false
}

// roundUp turns a valid bound on an integer optimum into the smallest
// integer not below it, after giving up RoundingSlack.
func roundUp(lb float64) float64 {
	return math.Ceil(lb - RoundingSlack*max(1, math.Abs(lb)))
}

// LagrangianBound is the Lagrangian lower bound of the package comment for
// any multipliers π ≥ 0 a caller derives (e.g. from the duals of a volume
// LP): P = Σ_i π_i d_i and U[k] ≥ max_p Σ_i π_i a_ip over bin type k's
// patterns (an over-estimate is fine). Costs are taken as MinCost takes
// them (0 counts 1). infeasible: π certifies that the limits cannot hold
// the demand.
func LagrangianBound(P float64, bins []BinType, U []float64) (lb float64, infeasible bool) {
	mb := make([]mbin, len(bins))
	for k, b := range bins {
		c := b.Cost
		if c == 0 {
			c = 1
		}
		mb[k] = mbin{cost: c, limit: b.Limit}
	}
	lb, _, infeasible = lagrangian(P, mb, U)
	return lb, infeasible
}

package lpbound

import (
	"math"

	"github.com/lanl/clp"
)

// surrogateEps mixes a little of the capacity-normalized weights Σ_j s_j/cap_j
// into the LP-dual surrogate weights, so that no item with a size weighs
// nothing (an LP dual of 0 on every dimension it uses). Any non-negative
// multipliers give a valid surrogate relaxation, so this only affects how
// tight the bound is, never its validity.
const surrogateEps = 1e-6

// knapsackLP solves the LP relaxation of one pricing problem,
//
//	max Σ π_i a_i  s.t.  Σ_i a_i s_ij ≤ room_j,  0 ≤ a_i ≤ u_i,
//
// with Clp and returns the optimal duals λ_j ≥ 0 of the capacity rows. By LP
// duality the surrogate constraint Σ_j λ_j (Σ_i a_i s_ij) ≤ Σ_j λ_j room_j
// has the same LP value as all d constraints together, so the Dantzig bound
// of that one constraint is the LP bound of the knapsack: far tighter than
// the capacity-normalized surrogate Σ_j 1/cap_j when one dimension (cores)
// binds and the others only sometimes do.
type knapsackLP struct {
	sp    *clp.Simplex
	loads int
	cb    []clp.Bounds
	rb    []clp.Bounds
	obj   []float64
	nz    []clp.Nonzero
}

// duals returns λ (len(room)) for the items ord, or nil when Clp does not
// report an optimal solution (the caller then keeps the normalized weights).
func (k *knapsackLP) duals(ord []bbItem, room []float64) []float64 {
	d := len(room)
	if k.sp == nil || k.loads >= simplexReloads {
		k.sp = clp.NewSimplex()
		k.loads = 0
	}
	k.loads++
	mat := clp.NewPackedMatrix()
	mat.Reserve(len(ord), len(ord)*d, false)
	k.cb, k.obj = k.cb[:0], k.obj[:0]
	for _, it := range ord {
		nz := k.nz[:0]
		for j, s := range it.s {
			if s > 0 {
				nz = append(nz, clp.Nonzero{Index: j, Value: s})
			}
		}
		k.nz = nz
		mat.AppendColumn(nz)
		k.cb = append(k.cb, clp.Bounds{Lower: 0, Upper: float64(it.u)})
		k.obj = append(k.obj, -it.pi)
	}
	k.rb = k.rb[:0]
	for _, r := range room {
		k.rb = append(k.rb, clp.Bounds{Lower: math.Inf(-1), Upper: r})
	}
	mat.SetDimensions(d, len(ord))
	k.sp.LoadProblem(mat, k.cb, k.obj, k.rb, nil)
	if k.sp.Dual(clp.NoValuesPass, clp.NoStartFinishOptions) != clp.Optimal {
		return nil
	}
	dual := k.sp.DualRowSolution()
	lam := make([]float64, d)
	for j := range lam {
		lam[j] = max(0, -dual[j])
	}
	return lam
}

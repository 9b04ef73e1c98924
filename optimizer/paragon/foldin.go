package paragon

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// FoldIn classifies a new application from its few profiled entries (§2.2:
// two server configurations; §2.3: two microbenchmarks), keyed by column,
// without refactorizing: the column factors P stay fixed and only the new
// row factor q is solved for, as the regularized least-squares problem
//
//	q = argmin Σ_{i∈K} (a_i − q·p_i)² / s² + (q − μ)ᵀ C⁻¹ (q − μ)
//	  = (P_Kᵀ P_K / s² + C⁻¹)⁻¹ (P_Kᵀ a_K / s² + C⁻¹ μ)
//
// where K are the known columns, μ and C the mean and covariance of the
// training rows' factors (in the concept basis their second moment is
// Σ / rows, so C is set by the singular values), and s² the training MSE.
// The regularizer is the Gaussian prior the training rows imply; it takes
// the place of λ, and lets two entries pin down a rank-r row by leaning on
// the strongest concepts. The cost is O(|K| r² + r³ + cols·r).
//
// It returns the predicted row, p_i · q for every column, and a confidence
// in [0, 1]:
//
//	confidence = (1 − tr(S PᵀP) / tr(C PᵀP)) × min(1, s² / mse_K)
//
// The first factor is the share of the prior predictive variance, summed
// over all columns, that the profiled entries remove (S = (P_KᵀP_K/s² +
// C⁻¹)⁻¹ is the posterior covariance of q); it is 0 with no entries and
// tends to 1 when the entries resolve every strong concept. The second
// discounts entries the model cannot fit (mse_K, the mean squared residual
// on K, above the training noise s²). FoldIn panics if a column is out of
// range.
func (m *Model) FoldIn(known map[int]float64) (row []float64, confidence float64) {
	row = make([]float64, m.cols)
	confidence = m.foldIn(known, 1, row)
	return row, confidence
}

func (m *Model) checkCol(c int) {
	if c < 0 || c >= m.cols {
		panic(fmt.Sprintf("paragon: FoldIn: column %d out of range %d", c, m.cols))
	}
}

// foldIn writes the prediction for known × scale into row and returns the
// confidence.
func (m *Model) foldIn(known map[int]float64, scale float64, row []float64) float64 {
	r := m.rank
	keys := sortedKeys(known)
	a := mat.NewSymDense(r, nil)
	a.CopySym(m.cinv)
	b := make([]float64, r)
	copy(b, m.cinvMu)
	inv := 1 / m.noise
	for _, c := range keys {
		m.checkCol(c)
		pc := m.p[c*r : (c+1)*r]
		v := known[c] * scale
		for k := 0; k < r; k++ {
			b[k] += pc[k] * v * inv
			for l := k; l < r; l++ {
				a.SetSym(k, l, a.At(k, l)+pc[k]*pc[l]*inv)
			}
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		// Cannot happen for a positive definite prior; fall back to μ.
		copy(b, m.mu)
	} else {
		bv := mat.NewVecDense(r, b)
		if err := chol.SolveVecTo(bv, bv); err != nil {
			copy(b, m.mu)
		}
	}
	for i := range row {
		row[i] = dot(b, m.p[i*r:(i+1)*r])
	}
	if len(keys) == 0 || m.priorVar <= 0 {
		return 0
	}
	// Posterior predictive variance tr(S PᵀP) with S = A⁻¹.
	var s mat.SymDense
	if err := chol.InverseTo(&s); err != nil {
		return 0
	}
	post := 0.0
	for k := 0; k < r; k++ {
		for l := 0; l < r; l++ {
			post += s.At(k, l) * m.ptp.At(l, k)
		}
	}
	explained := 1 - post/m.priorVar
	if explained < 0 {
		explained = 0
	}
	mse := 0.0
	for _, c := range keys {
		d := known[c]*scale - row[c]
		mse += d * d
	}
	mse /= float64(len(keys))
	agree := 1.0
	if mse > m.noise {
		agree = m.noise / mse
	}
	return explained * agree
}

func maxOf(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		if v > mx {
			mx = v
		}
	}
	return mx
}

// normalizeMax divides x by its maximum when that is positive.
func normalizeMax(x []float64) {
	mx := maxOf(x)
	if mx > 0 {
		for i := range x {
			x[i] /= mx
		}
	}
}

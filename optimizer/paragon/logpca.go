package paragon

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

const (
	// DefaultLogRank is the number of principal components LogPCA keeps
	// beyond the application offset and the platform means. On the Lumos
	// matrix the platform effect alone explains most of the log variance
	// and three components hold most of the rest; a larger rank only adds
	// directions that two or three profiled entries cannot pin down, which
	// the prior then damps anyway.
	DefaultLogRank = 3
	// logPCAImputations bounds the passes that refill missing cells from
	// the rank-r reconstruction before the final fit.
	logPCAImputations = 30
	// logPCANoiseFloor keeps σ² positive, relative to the total residual
	// variance, when the discarded components hold (almost) nothing.
	logPCANoiseFloor = 1e-6
)

// LogPCA is a probabilistic PCA of an app × platform matrix in log space
// (Tipping & Bishop's maximum-likelihood fit): the log performance of
// application i on platform j is
//
//	y_ij = a_i + μ_j + W_j · z_i + ε_ij,   z_i ~ N(0, I_r),   ε_ij ~ N(0, σ²)
//
// where a_i is the application's scale (free: a new application's run time
// is unknown until it is measured), μ_j the platform's mean log
// performance, W (platforms × r) the principal directions scaled by
// √(λ_k − σ²), and σ² the mean variance of the discarded components. In
// log space the unknown scale of raw measurements is one additive term, so
// folding in needs no fixed-point rescaling (compare FoldInScaled), and the
// N(0, I) prior on z is the regularizer that keeps a fold-in from two
// entries well conditioned: a direction the profiled platforms do not
// resolve stays at the prior mean instead of taking whatever value least
// squares assigns it.
type LogPCA struct {
	cols, rank int
	mu         []float64
	w          *mat.Dense // cols × rank
	noise      float64
}

// FitLogPCA fits the model to rows of positive values (performance or
// normalized scores, higher is better), keyed by column in [0, cols).
// Missing cells are imputed from the rank-r reconstruction, refitted a
// fixed number of times. rank is clamped to what the data can hold
// (rows − 1 and cols − 1); it must be ≥ 0. Errors wrap ErrEmpty (fewer
// than two rows with two entries) or ErrBadValue (a value ≤ 0, NaN or
// infinite, naming row and column).
func FitLogPCA(rows []map[int]float64, cols, rank int) (*LogPCA, error) {
	if rank < 0 {
		return nil, fmt.Errorf("%w: log-PCA rank %d, want ≥ 0", ErrBadOptions, rank)
	}
	var use []map[int]float64
	for i, r := range rows {
		for c, v := range r {
			if c < 0 || c >= cols {
				panic(fmt.Sprintf("paragon: FitLogPCA: column %d out of range %d", c, cols))
			}
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: row %d column %d: %v (want a finite value > 0)", ErrBadValue, i, c, v)
			}
		}
		if len(r) >= 2 {
			use = append(use, r)
		}
	}
	n := len(use)
	if n < 2 || cols < 2 {
		return nil, fmt.Errorf("%w: log-PCA needs two rows with two entries, got %d rows of %d columns", ErrEmpty, n, cols)
	}
	rank = min(rank, n-1, cols-1)
	x := mat.NewDense(n, cols, nil)
	miss := make([][]bool, n)
	// Start: the column mean of the logs plus the row's mean offset.
	mu := make([]float64, cols)
	cnt := make([]float64, cols)
	for i, r := range use {
		miss[i] = make([]bool, cols)
		for c := range miss[i] {
			miss[i][c] = true
		}
		for _, c := range sortedKeys(r) {
			l := math.Log(r[c])
			x.Set(i, c, l)
			miss[i][c] = false
			mu[c] += l
			cnt[c]++
		}
	}
	grand, gn := 0.0, 0.0
	for c := range mu {
		if cnt[c] > 0 {
			grand += mu[c]
			gn += cnt[c]
			mu[c] /= cnt[c]
		}
	}
	grand /= gn
	for c := range mu {
		if cnt[c] == 0 {
			mu[c] = grand // a column nobody measured: the overall mean
		}
	}
	for i := range use {
		off, k := 0.0, 0.0
		for c := 0; c < cols; c++ {
			if !miss[i][c] {
				off += x.At(i, c) - mu[c]
				k++
			}
		}
		off /= k
		for c := 0; c < cols; c++ {
			if miss[i][c] {
				x.Set(i, c, mu[c]+off)
			}
		}
	}
	hasMissing := false
	for i := range miss {
		for _, m := range miss[i] {
			hasMissing = hasMissing || m
		}
	}
	passes := 1
	if hasMissing {
		passes = logPCAImputations
	}
	m := &LogPCA{cols: cols, rank: rank}
	res := mat.NewDense(n, cols, nil)
	var svd mat.SVD
	for pass := 0; pass < passes; pass++ {
		m.mu, _ = centre(x, res)
		if !svd.Factorize(res, mat.SVDThin) {
			return nil, fmt.Errorf("%w: log-PCA: SVD did not converge", ErrDiverged)
		}
		if pass == passes-1 {
			break
		}
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		s := svd.Values(nil)
		for i := 0; i < n; i++ {
			off := 0.0
			for c := 0; c < cols; c++ {
				off += x.At(i, c) - m.mu[c] - res.At(i, c)
			}
			off /= float64(cols)
			for c := 0; c < cols; c++ {
				if !miss[i][c] {
					continue
				}
				rec := 0.0
				for k := 0; k < rank; k++ {
					rec += u.At(i, k) * s[k] * v.At(c, k)
				}
				x.Set(i, c, m.mu[c]+off+rec)
			}
		}
	}
	// Eigenvalues of the residual covariance: s_k² / n. σ² is the mean of
	// the discarded ones over the residual space's dimension (cols − 1 after
	// row centring, at most n of them non-zero).
	s := svd.Values(nil)
	lambda := make([]float64, len(s))
	total := 0.0
	for k, v := range s {
		lambda[k] = v * v / float64(n)
		total += lambda[k]
	}
	dim := cols - 1
	rest := 0.0
	for k := rank; k < len(lambda); k++ {
		rest += lambda[k]
	}
	m.noise = rest / float64(max(1, dim-rank))
	m.noise = math.Max(m.noise, logPCANoiseFloor*math.Max(total, 1e-12))
	var v mat.Dense
	svd.VTo(&v)
	m.w = mat.NewDense(cols, max(rank, 1), nil)
	for k := 0; k < rank; k++ {
		sc := math.Sqrt(math.Max(lambda[k]-m.noise, 0))
		for c := 0; c < cols; c++ {
			m.w.Set(c, k, v.At(c, k)*sc)
		}
	}
	return m, nil
}

// centre writes x minus its column means and row offsets into res and
// returns the column means and the row offsets.
func centre(x, res *mat.Dense) (mu, off []float64) {
	n, cols := x.Dims()
	mu = make([]float64, cols)
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			mu[c] += x.At(i, c)
		}
	}
	for c := range mu {
		mu[c] /= float64(n)
	}
	off = make([]float64, n)
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			off[i] += x.At(i, c) - mu[c]
		}
		off[i] /= float64(cols)
		for c := 0; c < cols; c++ {
			res.Set(i, c, x.At(i, c)-mu[c]-off[i])
		}
	}
	return mu, off
}

// Rank is the number of components kept.
func (m *LogPCA) Rank() int { return m.rank }

// Noise is σ², the variance of a log measurement the components do not
// explain.
func (m *LogPCA) Noise() float64 { return m.noise }

// FoldIn predicts the log performance of a new application on every
// column from its measured performance (higher is better, any scale) on a
// few: the posterior mean of (a, z) given the measured entries, with a
// flat prior on the scale a and N(0, I) on z,
//
//	(a, z) = argmin Σ_{j∈K} (log v_j − μ_j − a − W_j·z)² / σ² + ‖z‖²
//
// With one entry z stays 0 and the prediction is the platform means
// shifted to that entry. With none it is the platform means (a = 0). The
// cost is O(|K| r² + r³ + cols·r). FoldIn panics on a column out of range
// and ignores values that are not finite and > 0.
func (m *LogPCA) FoldIn(known map[int]float64) []float64 {
	r := m.rank
	keys := sortedKeys(known)
	a := mat.NewSymDense(r+1, nil)
	b := make([]float64, r+1)
	inv := 1 / m.noise
	used := 0
	for _, c := range keys {
		if c < 0 || c >= m.cols {
			panic(fmt.Sprintf("paragon: LogPCA.FoldIn: column %d out of range %d", c, m.cols))
		}
		v := known[c]
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		used++
		y := math.Log(v) - m.mu[c]
		x := make([]float64, r+1)
		x[0] = 1
		for k := 0; k < r; k++ {
			x[k+1] = m.w.At(c, k)
		}
		for k := 0; k <= r; k++ {
			b[k] += x[k] * y * inv
			for l := k; l <= r; l++ {
				a.SetSym(k, l, a.At(k, l)+x[k]*x[l]*inv)
			}
		}
	}
	for k := 1; k <= r; k++ {
		a.SetSym(k, k, a.At(k, k)+1)
	}
	row := make([]float64, m.cols)
	copy(row, m.mu)
	if used == 0 {
		return row
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		return row
	}
	sol := mat.NewVecDense(r+1, b)
	if err := chol.SolveVecTo(sol, sol); err != nil {
		return row
	}
	for c := range row {
		v := m.mu[c] + sol.AtVec(0)
		for k := 0; k < r; k++ {
			v += m.w.At(c, k) * sol.AtVec(k+1)
		}
		row[c] = v
	}
	return row
}

// sortedInts returns the keys of a set in order.
func sortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

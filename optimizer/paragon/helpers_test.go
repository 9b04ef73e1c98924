package paragon

import (
	"math"
	"math/rand/v2"
)

// planted returns a rows × cols matrix Q Pᵀ / rank of the given rank, with
// factor entries uniform on [0.2, 1] (positive scores of order one, like
// normalized performance) or standard normal (centred concepts).
func planted(rows, cols, rank int, seed uint64, gauss bool) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	gen := func() float64 {
		if gauss {
			return rng.NormFloat64()
		}
		return 0.2 + 0.8*rng.Float64()
	}
	factor := func(n int) [][]float64 {
		f := make([][]float64, n)
		for i := range f {
			f[i] = make([]float64, rank)
			for k := range f[i] {
				f[i][k] = gen()
			}
		}
		return f
	}
	q, p := factor(rows), factor(cols)
	a := make([][]float64, rows)
	for i := range a {
		a[i] = make([]float64, cols)
		for j := range a[i] {
			a[i][j] = dot(q[i], p[j]) / float64(rank)
		}
	}
	return a
}

// mask returns a seeded rows × cols mask with each element kept with
// probability density.
func mask(rows, cols int, density float64, seed uint64) [][]bool {
	rng := rand.New(rand.NewPCG(seed, 2))
	m := make([][]bool, rows)
	for i := range m {
		m[i] = make([]bool, cols)
		for j := range m[i] {
			m[i][j] = rng.Float64() < density
		}
	}
	return m
}

// relError returns ‖pred − a‖_F / ‖a‖_F over the elements where keep is
// true.
func relError(a [][]float64, pred func(i, j int) float64, keep func(i, j int) bool) float64 {
	se, ss := 0.0, 0.0
	for i := range a {
		for j := range a[i] {
			if keep(i, j) {
				d := pred(i, j) - a[i][j]
				se += d * d
				ss += a[i][j] * a[i][j]
			}
		}
	}
	return math.Sqrt(se / ss)
}

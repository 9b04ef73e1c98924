package xgboost

import (
	"math"
	"math/rand/v2"
)

var nan32 = float32(math.NaN())

// noisyData returns rows × cols features and labels in 0 … k-1 drawn from
// a seeded generator: feature 0 carries the class (class + unit noise),
// feature 1 its parity (weakly), the rest are noise; about 2% of the
// values are missing (NaN).
func noisyData(rows, cols, k int, seed uint64) (x, y []float32) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	x = make([]float32, rows*cols)
	y = make([]float32, rows)
	for i := range rows {
		c := r.IntN(k)
		y[i] = float32(c)
		for j := range cols {
			x[i*cols+j] = float32(r.NormFloat64())
		}
		x[i*cols] += float32(c)
		if cols > 1 {
			x[i*cols+1] += 0.5 * float32(c%2)
		}
		for j := 1; j < cols; j++ {
			if r.Float64() < 0.02 {
				x[i*cols+j] = nan32
			}
		}
	}
	return x, y
}

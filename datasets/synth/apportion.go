package synth

import (
	"math/rand/v2"
	"sort"
)

// apportion gives each item a category so that the items' weighted shares
// of the categories track target (which sums to 1). Items are visited in
// order — heaviest first gives the closest match. With D_k = target_k·W −
// A_k the deficit of category k after adding the item's weight to W, an
// item of weight w picks at random, in proportion to D_k, among the
// categories with D_k ≥ w/2, or takes the largest D_k when there is none.
// Heavy items therefore land in big categories and a rare category is
// never handed to an item far heavier than its share.
func apportion(w, target []float64, rng *rand.Rand) []int {
	out := make([]int, len(w))
	assigned := make([]float64, len(target))
	def := make([]float64, len(target))
	var total float64
	for i, wi := range w {
		total += wi
		var sum float64
		best := 0
		for k, t := range target {
			def[k] = t*total - assigned[k]
			if def[k] > def[best] {
				best = k
			}
		}
		for k := range def {
			if def[k] >= wi/2 {
				sum += def[k]
			}
		}
		pick := best
		if sum > 0 {
			x := rng.Float64() * sum
			for k := range def {
				if def[k] >= wi/2 {
					x -= def[k]
					if x < 0 {
						pick = k
						break
					}
				}
			}
		}
		out[i] = pick
		assigned[pick] += wi
	}
	return out
}

// cumulative returns the running sums of w, for sampling with pick.
func cumulative(w []float64) []float64 {
	c := make([]float64, len(w))
	var s float64
	for i, x := range w {
		s += x
		c[i] = s
	}
	return c
}

// pick draws an index with probability proportional to its weight, given
// the cumulative weights.
func pick(rng *rand.Rand, cum []float64) int {
	x := rng.Float64() * cum[len(cum)-1]
	i := sort.SearchFloat64s(cum, x)
	if i >= len(cum) {
		i = len(cum) - 1
	}
	for i < len(cum)-1 && cum[i] <= x { // skip zero-weight entries at x
		i++
	}
	return i
}

// knots is a piecewise-linear CDF: (value, cumulative probability) pairs
// with both coordinates non-decreasing, from (lo, 0) to (hi, 1).
type knots [][2]float64

// quantile inverts the CDF at p in [0, 1].
func (k knots) quantile(p float64) float64 {
	for i := 1; i < len(k); i++ {
		if p <= k[i][1] {
			a, b := k[i-1], k[i]
			if b[1] == a[1] {
				return b[0]
			}
			return a[0] + (b[0]-a[0])*(p-a[1])/(b[1]-a[1])
		}
	}
	return k[len(k)-1][0]
}

// cdf evaluates the CDF at x.
func (k knots) cdf(x float64) float64 {
	if x <= k[0][0] {
		return k[0][1]
	}
	for i := 1; i < len(k); i++ {
		if x <= k[i][0] {
			a, b := k[i-1], k[i]
			if b[0] == a[0] {
				return b[1]
			}
			return a[1] + (b[1]-a[1])*(x-a[0])/(b[0]-a[0])
		}
	}
	return 1
}

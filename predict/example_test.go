package predict_test

import (
	"fmt"
	"math"

	"placelab/predict"
)

// A lifetime_dist prediction of μ = ln 1800 (a median of 30 min) with
// σ 1.5, read four ways: the chance a new VM outlives 24 h, its bucket
// probabilities (RC Table 3), and the median remaining lifetime when new
// and once it has already run for 6 h — longer, as a log-normal life that
// has lasted is likely a long one.
func ExampleRemainingQuantile() {
	mu, sigma := math.Log(1800), 1.5
	fmt.Printf("P(T > 24 h) = %.3f\n", predict.LifetimeSurvival(mu, sigma, 86400))
	p := predict.BucketProbs(mu, sigma)
	fmt.Printf("buckets: %.3f %.3f %.3f %.3f\n", p[0], p[1], p[2], p[3])
	fmt.Printf("median remaining when new: %.0f s\n", predict.RemainingQuantile(mu, sigma, 0, 0.5))
	fmt.Printf("median remaining after 6 h: %.1f h\n", predict.RemainingQuantile(mu, sigma, 6*3600, 0.5)/3600)
	// Output:
	// P(T > 24 h) = 0.005
	// buckets: 0.322 0.356 0.317 0.005
	// median remaining when new: 1800 s
	// median remaining after 6 h: 3.6 h
}

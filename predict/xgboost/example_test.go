package xgboost_test

import (
	"context"
	"fmt"
	"math"

	"placelab/predict/xgboost"
)

// Train a random forest on three buckets that the first feature separates,
// round-trip it through Save and Load, and classify three new rows.
func ExampleTrain() {
	var x, y []float32
	for c := range 3 {
		for i := range 8 {
			x = append(x, float32(10*c+i), float32(i%4)) // feature 0 decides
			y = append(y, float32(c))
		}
	}
	p := xgboost.DefaultForest(3)
	b, err := xgboost.Train(context.Background(), x, len(y), 2, y, nil, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	buf, err := b.Save()
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := xgboost.Load(buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loaded.Close()

	out := make([]float32, loaded.NumClass())
	for _, row := range [][]float32{{4, 1}, {22, 0}, {13, 3}} {
		if err := loaded.PredictRow(row, out); err != nil {
			fmt.Println(err)
			return
		}
		best := 0
		for k := range out {
			if out[k] > out[best] {
				best = k
			}
		}
		fmt.Printf("x0=%v: bucket %d\n", row[0], best)
	}
	// Output:
	// x0=4: bucket 0
	// x0=22: bucket 2
	// x0=13: bucket 1
}

// Validate names the first parameter out of range.
func ExampleParams_Validate() {
	p := xgboost.DefaultBoosted(4)
	p.Subsample = 0
	fmt.Println(p.Validate())
	// Output:
	// xgboost: invalid input: subsample 0: want 0 < value ≤ 1
}

// Train an AFT survival model on lifetimes that the first feature
// lengthens tenfold, observed until 500 s: a life still running then is
// right-censored there (known only to exceed it), and predict each group's
// median lifetime. Every life of the long group outlasts 500 s, so
// dropping the censored rows would have left that group out entirely.
func ExampleTrainSurvival() {
	var x, lower, upper []float32
	inf := float32(math.Inf(1))
	for g := range 2 {
		for i := range 50 {
			t := float32(math.Pow(10, float64(g)) * 100 * math.Exp(0.5*math.Sin(float64(i)))) // median 100 or 1000 s
			x = append(x, float32(g))
			if t > 500 {
				lower, upper = append(lower, 500), append(upper, inf) // still running at 500 s
			} else {
				lower, upper = append(lower, t), append(upper, t)
			}
		}
	}
	p := xgboost.DefaultSurvival(xgboost.AFTNormal, 0.5)
	b, err := xgboost.TrainSurvival(context.Background(), x, len(lower), 1, lower, upper, nil, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	median, err := b.Predict([]float32{0, 1}, 2, 1) // exp(μ) per row
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("group 0: %.0f s, group 1: over 500 s: %v\n", median[0], median[1] > 500)
	// Output:
	// group 0: 100 s, group 1: over 500 s: true
}

package xgboost_test

import (
	"context"
	"fmt"

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

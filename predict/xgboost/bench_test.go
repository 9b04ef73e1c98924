package xgboost

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Serving benchmarks use the model of the binding's speed goal: 100
// rounds of depth-6 trees over 4 classes (400 trees) on 30 features.
const (
	benchRows     = 4000
	benchFeatures = 30
	benchClasses  = 4
)

var bench struct {
	once sync.Once
	b    *Booster
	x    []float32
	err  error
}

// benchBooster trains the serving benchmarks' model once.
func benchBooster(tb testing.TB) (*Booster, []float32) {
	bench.once.Do(func() {
		x, y := noisyData(benchRows, benchFeatures, benchClasses, 7)
		bench.x = x
		p := DefaultBoosted(benchClasses)
		bench.b, bench.err = Train(context.Background(), x, benchRows, benchFeatures, y, nil, p)
	})
	if bench.err != nil {
		tb.Fatal(bench.err)
	}
	return bench.b, bench.x
}

// BenchmarkPredictRow is the serving path (in-place prediction), beside
// the DMatrix path it was chosen over; rows cycle through the training
// matrix.
func BenchmarkPredictRow(b *testing.B) {
	bst, x := benchBooster(b)
	if n, err := bst.boostedRounds(); err != nil || n != DefaultRounds {
		b.Fatalf("model has %d rounds (%v), want %d", n, err, DefaultRounds)
	}
	out := make([]float32, benchClasses)
	for _, path := range []struct {
		name string
		f    func(x, out []float32) error
	}{
		{"path=inplace", bst.PredictRow},
		{"path=dmatrix", func(x, out []float32) error { return bst.predictDMatrix(x, 1, out) }},
	} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				row := x[i*benchFeatures : (i+1)*benchFeatures]
				if err := path.f(row, out); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % benchRows
			}
		})
	}
}

// BenchmarkPredictRowParallel runs PredictRow from GOMAXPROCS goroutines
// at once on one booster.
func BenchmarkPredictRowParallel(b *testing.B) {
	bst, x := benchBooster(b)
	b.RunParallel(func(pb *testing.PB) {
		out := make([]float32, benchClasses)
		i := 0
		for pb.Next() {
			if err := bst.PredictRow(x[i*benchFeatures:(i+1)*benchFeatures], out); err != nil {
				b.Error(err)
				return
			}
			i = (i + 1) % benchRows
		}
	})
}

// BenchmarkPredict is batch prediction of the whole benchmark matrix.
func BenchmarkPredict(b *testing.B) {
	bst, x := benchBooster(b)
	for b.Loop() {
		if _, err := bst.Predict(x, benchRows, benchFeatures); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
}

// BenchmarkTrain trains small models of both kinds: 1000 rows × 30
// features, 4 classes, 20 boosting rounds or a 20-tree forest.
func BenchmarkTrain(b *testing.B) {
	const rows = 1000
	x, y := noisyData(rows, benchFeatures, benchClasses, 9)
	boosted := DefaultBoosted(benchClasses)
	boosted.Rounds = 20
	forest := DefaultForest(benchClasses)
	forest.NumParallelTree = 20
	for _, kind := range []struct {
		name string
		p    Params
	}{{"kind=boosted", boosted}, {"kind=forest", forest}} {
		for _, nt := range []int{1, 2} {
			p := kind.p
			p.NThread = nt
			b.Run(fmt.Sprintf("%s/nthread=%d", kind.name, nt), func(b *testing.B) {
				for b.Loop() {
					bst, err := Train(context.Background(), x, rows, benchFeatures, y, nil, p)
					if err != nil {
						b.Fatal(err)
					}
					bst.Close()
				}
			})
		}
	}
}

// BenchmarkPredictThreads backs predictThreads: PredictRow and batch
// Predict with 1 and 2 OpenMP threads.
func BenchmarkPredictThreads(b *testing.B) {
	bst, x := benchBooster(b)
	defer bst.setThreads(predictThreads)
	out := make([]float32, benchClasses)
	for _, nt := range []int{1, 2} {
		if err := bst.setThreads(nt); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nthread=%d/path=row", nt), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if err := bst.PredictRow(x[i*benchFeatures:(i+1)*benchFeatures], out); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % benchRows
			}
		})
		b.Run(fmt.Sprintf("nthread=%d/path=batch", nt), func(b *testing.B) {
			for b.Loop() {
				if _, err := bst.Predict(x, benchRows, benchFeatures); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
		})
	}
}

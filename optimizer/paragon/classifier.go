package paragon

import (
	"fmt"
	"sync"
)

// Classifier holds the three models of §2.2–2.3: heterogeneity (apps ×
// server configurations, normalized performance), and interference
// tolerated and caused (apps × sources of interference).
type Classifier struct {
	Perf, Tolerated, Caused *Model
}

// TrainClassifier trains the three models, in parallel as §2.4 does. The
// options apply to all three; errors name the matrix.
func TrainClassifier(perf, tolerated, caused *Sparse, opts Options) (*Classifier, error) {
	names := [3]string{"performance", "tolerated", "caused"}
	in := [3]*Sparse{perf, tolerated, caused}
	var out [3]*Model
	var errs [3]error
	var wg sync.WaitGroup
	for i := range in {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = Train(in[i], opts)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("paragon: %s matrix: %w", names[i], err)
		}
	}
	return &Classifier{Perf: out[0], Tolerated: out[1], Caused: out[2]}, nil
}

// Profile is what a new application's online profiling measured (§2.4):
// raw performance (instructions per second, say) on a few configurations,
// and sensitivity scores against a few microbenchmarks, keyed by column.
type Profile struct {
	Perf      map[int]float64
	Tolerated map[int]float64
	Caused    map[int]float64
}

// Class is a classified application: normalized performance per
// configuration (best = 1), sensitivity scores per SoI clamped to [0, 1],
// and the fold-in confidence of each.
type Class struct {
	Perf      []float64
	Tolerated []float64
	Caused    []float64

	PerfConfidence, ToleratedConfidence, CausedConfidence float64
}

// Classify folds a profile into the three models (FoldInScaled for
// performance, FoldIn for the sensitivities).
func (c *Classifier) Classify(p Profile) Class {
	var k Class
	k.Perf, k.PerfConfidence = c.Perf.FoldInScaled(p.Perf)
	k.Tolerated, k.ToleratedConfidence = c.Tolerated.FoldIn(p.Tolerated)
	k.Caused, k.CausedConfidence = c.Caused.FoldIn(p.Caused)
	for i := range k.Tolerated {
		k.Tolerated[i] = clamp01(k.Tolerated[i])
	}
	for i := range k.Caused {
		k.Caused[i] = clamp01(k.Caused[i])
	}
	return k
}

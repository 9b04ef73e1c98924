package paragon

import (
	"fmt"
	"math"
	"sync"
)

// Classifier holds the three classifications of §2.2–2.3: heterogeneity
// (apps × server configurations, normalized performance: Platform, which
// also chooses the configurations to profile), and interference tolerated
// and caused (apps × sources of interference).
type Classifier struct {
	Platform          *PlatformClassifier
	Tolerated, Caused *Model
}

// TrainClassifier trains the three, in parallel as §2.4 does: the platform
// classifier on perf's rows (groups as in TrainPlatform) with popts, the
// interference models with opts. Errors name the matrix.
func TrainClassifier(perf, tolerated, caused *Sparse, groups []string, popts PlatformOptions, opts Options) (*Classifier, error) {
	names := [3]string{"performance", "tolerated", "caused"}
	var out Classifier
	var errs [3]error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		rows, cols := perf.Dims()
		m := make([]map[int]float64, rows)
		for i := range m {
			m[i] = perf.Row(i)
		}
		out.Platform, errs[0] = TrainPlatform(m, groups, cols, popts)
	}()
	go func() {
		defer wg.Done()
		out.Tolerated, errs[1] = Train(tolerated, opts)
	}()
	go func() {
		defer wg.Done()
		out.Caused, errs[2] = Train(caused, opts)
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("paragon: %s matrix: %w", names[i], err)
		}
	}
	return &out, nil
}

// Profile is what a new application's online profiling measured (§2.4):
// raw performance (instructions per second, 1 / run time: higher is
// better, any scale) on a few configurations (those Platform.ProfileFor
// names), and sensitivity scores against a few microbenchmarks, keyed by
// column.
type Profile struct {
	Perf      map[int]float64
	Tolerated map[int]float64
	Caused    map[int]float64
}

// Class is a classified application: normalized performance per
// configuration, sensitivity scores per SoI clamped to [0, 1], and the
// fold-in confidence of each sensitivity.
//
// Perf is the platform classifier's row capped at the chosen
// configuration's score and rescaled so that the chosen one (PerfPick)
// scores 1: the classifier's decision that no other configuration is
// believably better is what placement sees, and the order below it is the
// model's.
type Class struct {
	Perf      []float64
	PerfPick  int
	Tolerated []float64
	Caused    []float64

	ToleratedConfidence, CausedConfidence float64
}

// Classify classifies a profile: Platform for performance, FoldIn for the
// sensitivities.
func (c *Classifier) Classify(p Profile) Class {
	var k Class
	pc := c.Platform.Classify(p.Perf)
	k.Perf, k.PerfPick = pc.Perf, pc.Pick
	top := k.Perf[pc.Pick]
	for i, v := range k.Perf {
		k.Perf[i] = math.Min(v, top) / top
	}
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

package oversub

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"placelab/analysis/internal/testkit"
	"placelab/optimizer/violation"
	store "placelab/sql"
)

// TestLoadDemandCurves builds curves from hand-made demand rows: tenant a
// (4 cores, 16 GB) has 300 samples every 5 minutes with the one at step 10
// missing (the gap holds step 9's value); tenant b has a day minus one
// sample and is left out; a's class is its size and its cap its type's.
func TestLoadDemandCurves(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	if _, err := LoadDemandCurves(ctx, db, "d"); !errors.Is(err, ErrNoCurves) {
		t.Fatalf("empty: %v", err)
	}
	_, err := db.Ingest(ctx, store.IngestInfo{Dataset: "d", Format: "test", Source: "hand"}, func(w *store.Writer) error {
		if err := w.Append("vm_type", "c4m16", nil, 4.0, 16.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i, name := range []string{"a", "b"} {
			if err := w.Append("vm", int64(i), name, name, nil, "c4m16", int16(0), 0.0, 86400.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for k := 0; k < 300; k++ {
			if k != 10 {
				if err := w.Append("demand_curve", "a", float64(300*k), float64(k%4), 2.0+float64(k)/100, nil); err != nil {
					return err
				}
			}
			if k < MinCurveSamples-1 {
				if err := w.Append("demand_curve", "b", float64(300*k), 1.0, 1.0, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadDemandCurves(ctx, db, "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d curves, want 1 (b is shorter than a day)", len(cs))
	}
	c := cs[0]
	if c.Class != "cores=4" || c.Lifetime() != 300 || c.Max != (violation.Vec{4, 16, 0}) || c.Demand[violation.Disk] != nil {
		t.Fatalf("curve %s class %s lifetime %d max %v", c.ID, c.Class, c.Lifetime(), c.Max)
	}
	if c.At(violation.CPU, 10) != c.At(violation.CPU, 9) || c.At(violation.CPU, 11) != 3 || c.At(violation.Memory, 299) != float64(float32(4.99)) {
		t.Errorf("samples: cpu 9 %v, 10 %v, 11 %v; memory 299 %v", c.At(violation.CPU, 9), c.At(violation.CPU, 10), c.At(violation.CPU, 11), c.At(violation.Memory, 299))
	}
}

// TestDemandCurvesSpanRefused: curves whose spans add up beyond
// MaxDemandSamples are refused before they are allocated. 25 tenants with
// one reading at 0 and one at 9e8 s (within the loaders' bound) would be
// 3M samples each, 600 MB; before, they were built.
func TestDemandCurvesSpanRefused(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	_, err := db.Ingest(ctx, store.IngestInfo{Dataset: "far", Format: "test", Source: "hand"}, func(w *store.Writer) error {
		if err := w.Append("vm_type", "c4m16", nil, 4.0, 16.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i := range 25 {
			name := fmt.Sprintf("t%02d", i)
			if err := w.Append("vm", int64(i), name, name, nil, "c4m16", int16(0), 0.0, 9e8, nil, nil, nil, nil, nil); err != nil {
				return err
			}
			for _, ts := range []float64{0, 9e8} {
				if err := w.Append("demand_curve", name, ts, 1.0, 2.0, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDemandCurves(ctx, db, "far"); !errors.Is(err, ErrSpanTooLarge) {
		t.Fatalf("got %v, want ErrSpanTooLarge", err)
	} else {
		t.Log(err)
	}
}

// TestViolationSweepSynthetic runs a small sweep on synthetic curves: every
// policy at every density, the same result for the same seed.
func TestViolationSweepSynthetic(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	sim := violation.DefaultSimConfig()
	sim.Nodes, sim.Hours, sim.Seeds = 10, 30, 2
	o := ViolationOptions{Synthetic: 300, Policies: []string{"prv-worstfit", "worstfit-max", "bestfit"}, Densities: []float64{1.0, 1.3}, Sim: sim}
	a, err := ViolationSweep(ctx, db, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ViolationSweep(ctx, db, o)
	if len(a) != 2 || len(a[0].Result.Policies) != 3 {
		t.Fatalf("%+v", a)
	}
	for i := range a {
		for j, p := range a[i].Result.Policies {
			q := b[i].Result.Policies[j]
			if p.Violations != q.Violations || p.Failovers != q.Failovers {
				t.Errorf("density %v %s: %v/%v vs %v/%v", a[i].Density, p.Policy, p.Violations, p.Failovers, q.Violations, q.Failovers)
			}
		}
	}
}

// TestPrVAgainstBaselines runs the violations experiment's quick grid (20
// nodes, 60 hours, 2 tenant sequences, 600 synthetic tenants, densities 1.0
// and 1.2) and asserts what König et al. §6 and Fig 9 claim: using the
// probability of violation to rule out nodes packed too densely (§6.1)
// cuts BestFit's violations, by at least the paper's average factors — the
// baselines show 2.6× PrV-BestFit's and 2.57× PrV-WorstFit's violations,
// so BestFit, one of them, at least as many — under either weighting; and
// PrV-WorstFit is at least as good as the best baseline (§8.3: "either
// equal or better … in 50 of the 52 experiments").
//
// The last claim failed here while the estimator conditioned a placed
// tenant only on its observed maximum (§5.1 as printed) and placed by the
// least Delta with no node below θ: WorstFit-Max, MinStdDev and DotProduct
// had 1.4–8.5× fewer violations (doc.go, "Reading notes"). The 2× margin
// is asserted at 40 nodes by optimizer/violation's
// TestPrVWorstFitBeatsBaselinesSynthetic.
func TestPrVAgainstBaselines(t *testing.T) {
	sim := violation.DefaultSimConfig()
	sim.Nodes, sim.Hours, sim.Seeds, sim.Seed = 20, 60, 2, 1
	pts, err := ViolationSweep(context.Background(), testkit.MemDB(t), ViolationOptions{Synthetic: 600, Policies: violation.PolicyNames(),
		Densities: []float64{1.0, 1.2}, Sim: sim})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		v := func(name string) float64 {
			r := p.Result.Policy(name)
			if r == nil {
				t.Fatalf("density %v: no %s", p.Density, name)
			}
			return r.Violations
		}
		for _, c := range []struct {
			baseline, prv string
			factor        float64
		}{
			{violation.NameBestFitMax, violation.NamePrVBestFit, 2.6},
			{violation.NameBestFit, violation.NamePrVBestFitSum, 2.6},
			{violation.NameBestFitMax, violation.NamePrVWorstFit, 2.57},
			{violation.NameBestFit, violation.NamePrVWorstFitSum, 2.57},
		} {
			if b, q := v(c.baseline), v(c.prv); !(b >= c.factor*q) || b == 0 {
				t.Errorf("density %v: %s %.1f violations, %s %.1f: want at least %.2f× as many", p.Density, c.baseline, b, c.prv, q, c.factor)
			}
		}
		if b, q := v(p.Best), v(violation.NamePrVWorstFit); !(q <= b) {
			t.Errorf("density %v: best baseline %s %.1f violations, PrV-WorstFit %.1f: want at most as many", p.Density, p.Best, b, q)
		}
		if p.BestViolations != v(p.Best) || p.PrVViolations != v(violation.NamePrVWorstFit) || p.Curves != "synthetic" {
			t.Errorf("density %v: point %+v disagrees with its result", p.Density, p)
		}
		t.Logf("density %v: best baseline %s %.1f violations, PrV-WorstFit %.1f, ratio %.2f (paper: 2.57 on average)",
			p.Density, p.Best, v(p.Best), v(violation.NamePrVWorstFit), p.Ratio)
	}
}

package violation

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestCompress(t *testing.T) {
	c := diskCurve("c", "x", ramp(30, 10, 50, 8))
	c.Demand[Memory] = series(30, func(d int) float64 { return float64(min(d, 10)) })
	c.Demand[CPU] = series(30, func(d int) float64 { return float64(d % 10) }) // 0..9 three times
	m := Compress(c)
	want := Model{
		Disk:     Growth{M: 50, G: 8, I: 10},
		Memory:   Growth{M: 10, G: 10, I: 0}, // 9.5 first reached at δ = 10
		CPU90:    8,                          // nearest rank ⌈0.9·30⌉ = 27th of 0,0,0,1,1,1,…
		Lifetime: 30,
	}
	if m != want {
		t.Errorf("Compress = %+v\nwant %+v", m, want)
	}
	for d := range 30 {
		if got := m.At(d)[Disk]; got != c.At(Disk, d) {
			t.Errorf("disk model at δ=%d: %v, curve %v", d, got, c.At(Disk, d))
		}
	}
	if z := Compress(diskCurve("d", "x", ramp(5, 1, 1, 0))); z.Memory != (Growth{}) || z.CPU90 != 0 {
		t.Errorf("absent resources compress to %+v", z)
	}
}

func TestCurveValidate(t *testing.T) {
	good := func() Curve { return diskCurve("g", "x", ramp(5, 1, 2, 2)) }
	cases := []struct {
		name   string
		mutate func(*Curve)
	}{
		{"no step", func(c *Curve) { c.Step = 0 }},
		{"no samples", func(c *Curve) { c.Demand[Disk] = nil }},
		{"lengths differ", func(c *Curve) { c.Demand[CPU] = make([]float32, 4) }},
		{"negative demand", func(c *Curve) { c.Demand[Disk][3] = -1 }},
		{"NaN demand", func(c *Curve) { c.Demand[Disk][1] = float32(math.NaN()) }},
	}
	g := good()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		c := good()
		tc.mutate(&c)
		if err := c.Validate(); !errors.Is(err, ErrCurve) {
			t.Errorf("%s: %v, want ErrCurve", tc.name, err)
		}
	}
	other := good()
	other.Step = time.Hour
	if _, err := NewRepository([]Curve{good(), other}); !errors.Is(err, ErrStep) {
		t.Errorf("mixed steps: %v, want ErrStep", err)
	}
	if _, err := NewRepository(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no curves: %v, want ErrEmpty", err)
	}
}

// fig7Tolerance bounds |Pr(full) − Pr(compressed)| in TestFig7. The two
// estimates share their draws, so the gap is the compression's alone; the
// paper reports "an almost exact correspondence" with compressed estimates
// slightly higher for many tenants.
const fig7Tolerance = 0.03

// TestFig7 is the experiment of §5.3 (Figure 7) on synthetic curves: e
// tenants of random classes placed one step apart on one node; the
// probability of violation from the compressed models at |S| time points
// and from the full curves at every step agree within fig7Tolerance.
func TestFig7(t *testing.T) {
	repo := mustRepo(t, Synthetic(21, 1500))
	classes := repo.Classes()
	limit := DefaultCapacity.Mul(Vec{DefaultThreshold, DefaultThreshold, DefaultThreshold})
	rng := rand.New(rand.NewPCG(3, 3))
	const reps = 2000
	inside := 0
	for e := 2; e <= 20; e++ {
		s := make([]Tenant, e)
		for k := range s {
			s[k] = Tenant{ID: int64(k), Class: classes[rng.IntN(len(classes))], Age: k}
		}
		// Tenants of an age but no observed samples: the §5.1 draws.
		m := NewEstimator(repo, MCConfig{Reps: reps, Condition: ConditionMax}).Estimate(s, nil, limit, uint64(e))
		f := NewEstimator(repo, MCConfig{Reps: reps, Full: true, Condition: ConditionMax}).Estimate(s, nil, limit, uint64(e))
		if math.Abs(m.With-f.With) > fig7Tolerance {
			t.Errorf("e=%d: compressed %.3f, full %.3f", e, m.With, f.With)
		}
		if f.With > 0.05 && f.With < 0.95 {
			inside++
		}
	}
	if inside < 4 {
		t.Errorf("only %d of 19 node sizes have a probability in (0.05, 0.95): the comparison is vacuous", inside)
	}
}

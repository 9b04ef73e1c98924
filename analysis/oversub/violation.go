package oversub

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"placelab/analysis"
	"placelab/optimizer/violation"
	store "placelab/sql"
)

// DatasetNodeCPU and DatasetNodeMemoryGB are the node a sweep over a
// dataset's demand curves uses unless told otherwise: 64 cores and 512 GB,
// a two-socket server of the Bitbrains era, whose VMs report CPU in cores
// and memory in GB. (Synthetic curves use violation.DefaultSimConfig's
// node, in the units of §8.1.)
const (
	DatasetNodeCPU      = 64
	DatasetNodeMemoryGB = 512
)

// DatasetSimConfig is violation.DefaultSimConfig with the dataset node.
func DatasetSimConfig() violation.SimConfig {
	s := violation.DefaultSimConfig()
	s.Capacity[violation.CPU], s.Capacity[violation.Memory] = DatasetNodeCPU, DatasetNodeMemoryGB
	return s
}

// ErrNoCurves says a dataset has no demand curves.
var ErrNoCurves = errors.New("analysis: no demand curves")

// CurveStep is the sampling step of the demand curves placelab builds (the
// 5-minute samples of Bitbrains and the Azure traces).
const CurveStep = 5 * time.Minute

// MinCurveSamples drops tenants observed for less than a day: Algorithm 1
// draws trace offsets, which a short curve hardly offers.
const MinCurveSamples = 288

// MaxDemandSamples bounds the 5-minute samples LoadDemandCurves allocates
// over all tenants: 2^26, at most 768 MiB for three resources — 7,700
// tenant-months (Bitbrains Rnd is 500 tenant-months). A dataset whose
// curves span more is refused (ErrSpanTooLarge) rather than allocated: a
// tenant with one reading now and one in 30 years is 3.2M samples.
const MaxDemandSamples = 1 << 26

// LoadDemandCurves builds violation.Curves from a dataset's demand_curve
// rows: each tenant's CPU cores, memory and disk in use, resampled onto the
// 5-minute grid (a gap holds the last sample), its class the VM size in
// cores (the VM type when cores are unknown), its
// cap (Curve.Max) the type's cores and memory where known, else its peak.
func LoadDemandCurves(ctx context.Context, db *store.DB, dataset string) ([]violation.Curve, error) {
	var curves []violation.Curve
	type sample struct {
		t              float64
		cpu, mem, disk sql.NullFloat64
	}
	var cur string
	var class string
	var capCPU, capMem sql.NullFloat64
	var ss []sample
	total := 0.0 // samples allocated so far
	flush := func() error {
		if cur == "" || len(ss) == 0 {
			return nil
		}
		defer func() { ss = ss[:0] }()
		step := CurveStep.Seconds()
		span := ss[len(ss)-1].t - ss[0].t
		samples := math.Floor(span/step) + 1
		if samples < MinCurveSamples {
			return nil
		}
		if total += samples; !(total <= MaxDemandSamples) {
			return fmt.Errorf("%w: dataset %q: tenant %s spans %.0f s, and the curves so far need %.3g 5-minute samples, more than %d",
				ErrSpanTooLarge, dataset, cur, span, total, MaxDemandSamples)
		}
		n := int(samples)
		c := violation.Curve{ID: dataset + "/" + cur, Class: class, Step: CurveStep}
		has := [3]bool{}
		for _, s := range ss {
			has[0] = has[0] || s.cpu.Valid
			has[1] = has[1] || s.mem.Valid
			has[2] = has[2] || s.disk.Valid
		}
		for r := range has {
			if has[r] {
				c.Demand[r] = make([]float32, n)
			}
		}
		j := 0
		for i := 0; i < n; i++ {
			t := ss[0].t + float64(i)*step
			for j+1 < len(ss) && ss[j+1].t <= t+step/2 {
				j++
			}
			s := ss[j]
			for r, v := range []sql.NullFloat64{s.cpu, s.mem, s.disk} {
				if has[r] && v.Valid {
					c.Demand[r][i] = float32(v.Float64)
				} else if has[r] && i > 0 {
					c.Demand[r][i] = c.Demand[r][i-1]
				}
			}
		}
		peak := c.Peak()
		c.Max = peak
		if capCPU.Valid && capCPU.Float64 >= peak[violation.CPU] {
			c.Max[violation.CPU] = capCPU.Float64
		}
		if capMem.Valid && capMem.Float64 >= peak[violation.Memory] {
			c.Max[violation.Memory] = capMem.Float64
		}
		if err := c.Validate(); err != nil {
			return fmt.Errorf("analysis: dataset %q tenant %s: %w", dataset, cur, err)
		}
		curves = append(curves, c)
		return nil
	}
	err := analysis.Each(ctx, db.SQL(), "violation_curves", []any{dataset}, func(r *sql.Rows) error {
		var tenant, cl string
		var cc, cm sql.NullFloat64
		var s sample
		if err := r.Scan(&tenant, &cl, &cc, &cm, &s.t, &s.cpu, &s.mem, &s.disk); err != nil {
			return err
		}
		if tenant != cur {
			if err := flush(); err != nil {
				return err
			}
			cur, class, capCPU, capMem = tenant, cl, cc, cm
		}
		ss = append(ss, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(curves) == 0 {
		return nil, fmt.Errorf("%w with at least a day of samples in dataset %q (load Bitbrains with placelab ingest gwa)", ErrNoCurves, dataset)
	}
	return curves, nil
}

// ViolationOptions configure ViolationSweep.
type ViolationOptions struct {
	// Dataset of demand curves; "" uses violation.Synthetic curves.
	Dataset   string
	Synthetic int // synthetic tenants when Dataset is "" (0: 2,000)
	Policies  []string
	Densities []float64
	Sim       violation.SimConfig
	Params    violation.PolicyParams
	Progress  func(done, total int64)
}

// ViolationPoint is one density of a sweep. Best and the figures beside it
// are those of the non-PrV policy with the fewest mean violations
// (violation.SimResult.BestBaseline, §8.3's "best-performing algorithm not
// using probability of violation estimates"); Ratio is its violations over
// PrV-WorstFit's, 0 when undefined (PrV-WorstFit has none and the best
// baseline some, or either did not run).
type ViolationPoint struct {
	Density float64              `json:"density"`
	Result  *violation.SimResult `json:"result"`
	// Curves names the curve set: the dataset, or "synthetic".
	Curves         string  `json:"curves"`
	Best           string  `json:"best_baseline"`
	BestViolations float64 `json:"best_baseline_violations"`
	// PrVViolations and PrVMsPerPlacement are PrV-WorstFit's mean
	// violations and milliseconds per placement.
	PrVViolations     float64                  `json:"prv_worstfit_violations"`
	PrVMsPerPlacement float64                  `json:"prv_worstfit_ms_per_placement"`
	Ratio             float64                  `json:"best_baseline_over_prv_worstfit"`
	Summary           []violation.PolicyResult `json:"-"`
}

// ViolationSweep simulates every policy at each density on the same tenant
// sequences (violation.Simulate). As in the paper the repository 𝒟 and the
// arriving tenants are disjoint: a dataset's curves alternate between the
// two (in tenant order); synthetic curves come from two seeds.
func ViolationSweep(ctx context.Context, db *store.DB, o ViolationOptions) ([]ViolationPoint, error) {
	var hist, arrivals []violation.Curve
	curveSet := "synthetic"
	if o.Dataset != "" {
		curveSet = o.Dataset
		curves, err := LoadDemandCurves(ctx, db, o.Dataset)
		if err != nil {
			return nil, err
		}
		if len(curves) < 2 {
			return nil, fmt.Errorf("%w: dataset %q has %d curve(s), need two or more", ErrNoCurves, o.Dataset, len(curves))
		}
		for i, c := range curves {
			if i%2 == 0 {
				hist = append(hist, c)
			} else {
				arrivals = append(arrivals, c)
			}
		}
	} else {
		n := o.Synthetic
		if n == 0 {
			n = 2000
		}
		hist, arrivals = violation.Synthetic(o.Sim.Seed+7, n), violation.Synthetic(o.Sim.Seed+8, n)
	}
	curves := arrivals
	repo, err := violation.NewRepository(hist)
	if err != nil {
		return nil, err
	}
	var out []ViolationPoint
	for i, d := range o.Densities {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.Progress != nil {
			o.Progress(int64(i), int64(len(o.Densities)))
		}
		pols, err := violation.NewPolicies(o.Policies, repo, o.Params)
		if err != nil {
			return nil, err
		}
		cfg := o.Sim
		cfg.Density = d
		res, err := violation.Simulate(ctx, repo, curves, cfg, pols, nil)
		if err != nil {
			return nil, err
		}
		p := ViolationPoint{Density: d, Result: res, Curves: curveSet, Best: res.BestBaseline()}
		if b := res.Policy(p.Best); b != nil {
			p.BestViolations = b.Violations
		}
		if q := res.Policy(violation.NamePrVWorstFit); q != nil {
			p.PrVViolations, p.PrVMsPerPlacement = q.Violations, q.MsPerPlacement
		}
		if r, ok := res.Ratio(p.Best, violation.NamePrVWorstFit); ok {
			p.Ratio = r
		}
		out = append(out, p)
	}
	if o.Progress != nil {
		o.Progress(int64(len(o.Densities)), int64(len(o.Densities)))
	}
	return out, nil
}

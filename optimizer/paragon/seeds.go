package paragon

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// DefaultSeeds is how many seeds a scenario is run over: every figure is
// reported as the median and range over them, never one seed's value.
const DefaultSeeds = 5

// Seeds returns n consecutive seeds from first: first, first+1, …. n < 1
// is an error wrapping ErrBadOptions.
func Seeds(first uint64, n int) ([]uint64, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: %d seeds, want ≥ 1", ErrBadOptions, n)
	}
	if first+uint64(n-1) < first {
		return nil, fmt.Errorf("%w: seeds %d + %d overflow", ErrBadOptions, first, n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out, nil
}

// Range is a figure over seeds: its median (the mean of the two middle
// values for an even count), least and greatest value, and the values in
// seed order.
type Range struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Values []float64 `json:"values"`
}

// RangeOf summarizes values (NaN median and range for none).
func RangeOf(values []float64) Range {
	r := Range{Median: math.NaN(), Min: math.NaN(), Max: math.NaN(), Values: slices.Clone(values)}
	if len(values) == 0 {
		return r
	}
	s := slices.Clone(values)
	slices.Sort(s)
	r.Min, r.Max = s[0], s[len(s)-1]
	if n := len(s); n%2 == 1 {
		r.Median = s[n/2]
	} else {
		r.Median = (s[n/2-1] + s[n/2]) / 2
	}
	return r
}

// PolicySummary is one policy's figures over the seeds of a scenario.
type PolicySummary struct {
	Policy             string `json:"policy"`
	QoSShare           Range  `json:"qos_share"`
	MeanNormalizedPerf Range  `json:"mean_normalized_perf"`
	Within10Share      Range  `json:"within_10pct_share"`
	Degraded20Share    Range  `json:"degraded_20pct_share"`
	MissPlatform       Range  `json:"qos_miss_platform"`
	MissInterference   Range  `json:"qos_miss_interference"`
	PeakDemandUsable   Range  `json:"peak_demand_usable"`
	AboveUsableShare   Range  `json:"above_usable_share"`
}

// Table1 is Table 1's four headline figures (§2.2) for the arriving
// applications of a scenario, over seeds.
type Table1 struct {
	BestSC    Range `json:"best_sc_accuracy"`
	Within5   Range `json:"within_5pct_accuracy"`
	RankExact Range `json:"rank_exact"`
	Rank90    Range `json:"rank_90pct"`
}

// Gap is Paragon's distance to the oracle in QoS share (points of share,
// per seed) and how much of it each half of the oracle closes: true
// platform scores with classified interference (PolicyTruePlatform), and
// the other way round. LargestCause names the half whose median closes
// more: "platform classification" or "interference classification".
type Gap struct {
	OracleMinusParagon Range  `json:"oracle_minus_paragon"`
	TruePlatform       Range  `json:"closed_by_true_platform"`
	TrueInterference   Range  `json:"closed_by_true_interference"`
	LargestCause       string `json:"largest_cause"`
}

// Gap causes.
const (
	CausePlatform     = "platform classification"
	CauseInterference = "interference classification"
)

// Summary is one scenario run over several seeds: every policy's figures
// as median and range, the usable capacity, Table 1 on the arrivals, and
// whether the ordering oracle ≥ paragon ≥ max(nh, ni, random) held on
// every seed.
type Summary struct {
	Scenario string   `json:"scenario"`
	Seeds    []uint64 `json:"seeds"`
	Servers  int      `json:"servers"`
	Apps     int      `json:"apps"`
	// Cores and UsableCores (UsableCapacity) per seed: the server mix and
	// the applications are drawn per seed.
	Cores       Range   `json:"cores"`
	UsableCores Range   `json:"usable_cores"`
	Load        float64 `json:"load"`
	// LoadBasis says what Load is stated against.
	LoadBasis         string          `json:"load_basis"`
	D1                string          `json:"d1"`
	InterferenceModel string          `json:"interference_model"`
	Table1            Table1          `json:"table1"`
	Policies          []PolicySummary `json:"policies"`
	// OrderingChecked is true when the five policies of Policies ran;
	// OrderedSeeds then counts the seeds on which oracle ≥ paragon ≥
	// max(nh, ni, random) in QoS share, and Ordered is true when that is
	// every seed.
	OrderingChecked bool `json:"ordering_checked"`
	OrderedSeeds    int  `json:"ordered_seeds"`
	Ordered         bool `json:"ordered"`
	// Gap is set when paragon, the oracle and both halves ran.
	Gap *Gap `json:"gap,omitempty"`
	// Runs are the per-seed results, seed-major (with SeedOptions.Runs).
	Runs []*Result `json:"runs,omitempty"`
}

// LoadBasisUsable is Summary.LoadBasis: load is core demand at full speed
// over usable capacity.
const LoadBasisUsable = "offered core demand at full speed / usable capacity (cores on configurations within 5% of each arriving application's best; see UsableCapacity)"

// SimulateSeeds runs the policies on the scenario once per seed (cfg.Seed
// is replaced by each) and summarizes every figure over the seeds. keepRuns
// keeps the per-seed results in Summary.Runs. The same configuration,
// policies and seeds give the same summary, bit for bit.
func SimulateSeeds(ctx context.Context, cfg ScenarioConfig, policies []string, seeds []uint64, keepRuns bool) (*Summary, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%w: no seeds", ErrBadOptions)
	}
	if len(policies) == 0 {
		return nil, fmt.Errorf("%w: no policies", ErrBadOptions)
	}
	byPolicy := make(map[string][]*Result, len(policies))
	var cores, usable []float64
	var t1 [4][]float64
	sum := &Summary{Scenario: cfg.Name, Seeds: seeds, Servers: cfg.Servers, Apps: cfg.Apps + cfg.Burst, Load: cfg.Load,
		LoadBasis: LoadBasisUsable, D1: cfg.D1, InterferenceModel: cfg.Interference}
	for _, seed := range seeds {
		c := cfg
		c.Seed = seed
		rs, err := SimulateAll(ctx, c, policies)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		h := rs[0].Classification.Heterogeneity
		cores = append(cores, float64(rs[0].Cores))
		usable = append(usable, rs[0].UsableCores)
		for i, v := range []float64{h.BestSC, h.Within5, h.RankExact, h.Rank90} {
			t1[i] = append(t1[i], v)
		}
		for _, r := range rs {
			byPolicy[r.Policy] = append(byPolicy[r.Policy], r)
		}
		if keepRuns {
			sum.Runs = append(sum.Runs, rs...)
		}
	}
	sum.Cores, sum.UsableCores = RangeOf(cores), RangeOf(usable)
	sum.Table1 = Table1{RangeOf(t1[0]), RangeOf(t1[1]), RangeOf(t1[2]), RangeOf(t1[3])}
	of := func(rs []*Result, f func(*Result) float64) Range {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return RangeOf(v)
	}
	for _, name := range policies {
		rs := byPolicy[name]
		sum.Policies = append(sum.Policies, PolicySummary{Policy: name,
			QoSShare:           of(rs, func(r *Result) float64 { return r.QoSShare }),
			MeanNormalizedPerf: of(rs, func(r *Result) float64 { return r.MeanNormalizedPerf }),
			Within10Share:      of(rs, func(r *Result) float64 { return r.Within10Share }),
			Degraded20Share:    of(rs, func(r *Result) float64 { return r.Degraded20Share }),
			MissPlatform:       of(rs, func(r *Result) float64 { return r.MissPlatform }),
			MissInterference:   of(rs, func(r *Result) float64 { return r.MissInterference }),
			PeakDemandUsable:   of(rs, func(r *Result) float64 { return r.PeakDemandUsable }),
			AboveUsableShare:   of(rs, func(r *Result) float64 { return r.AboveUsableShare }),
		})
	}
	qos := func(name string, i int) (float64, bool) {
		rs, ok := byPolicy[name]
		if !ok {
			return 0, false
		}
		return rs[i].QoSShare, true
	}
	for i := range seeds {
		o, ok1 := qos(PolicyOracle, i)
		p, ok2 := qos(PolicyParagon, i)
		nh, ok3 := qos(PolicyNH, i)
		ni, ok4 := qos(PolicyNI, i)
		rnd, ok5 := qos(PolicyRandom, i)
		if ok1 && ok2 && ok3 && ok4 && ok5 && o >= p && p >= max(nh, ni, rnd) {
			sum.OrderedSeeds++
		}
	}
	sum.OrderingChecked = true
	for _, name := range Policies {
		if _, ok := byPolicy[name]; !ok {
			sum.OrderingChecked = false
		}
	}
	sum.Ordered = sum.OrderingChecked && sum.OrderedSeeds == len(seeds)
	if _, ok := byPolicy[PolicyTruePlatform]; ok {
		if _, ok := byPolicy[PolicyTrueInterference]; ok {
			var gap, tp, ti []float64
			for i := range seeds {
				o, ok1 := qos(PolicyOracle, i)
				p, ok2 := qos(PolicyParagon, i)
				if !ok1 || !ok2 {
					break
				}
				a, _ := qos(PolicyTruePlatform, i)
				b, _ := qos(PolicyTrueInterference, i)
				gap, tp, ti = append(gap, o-p), append(tp, a-p), append(ti, b-p)
			}
			if len(gap) == len(seeds) {
				g := &Gap{OracleMinusParagon: RangeOf(gap), TruePlatform: RangeOf(tp), TrueInterference: RangeOf(ti), LargestCause: CausePlatform}
				if g.TrueInterference.Median > g.TruePlatform.Median {
					g.LargestCause = CauseInterference
				}
				sum.Gap = g
			}
		}
	}
	return sum, nil
}

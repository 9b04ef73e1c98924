package optimizer

import (
	"fmt"
	"math"
)

// Defaults, with the section of the paper they come from.
const (
	// DefaultK is how many clusters machine selection considers: Protean
	// uses k ∈ [8, 16] (§3.2).
	DefaultK = 8
	// DefaultBuckets quantizes BestFit: production uses three (§6.3, Table 5).
	DefaultBuckets = 3
	// DefaultRackBuckets quantizes the rack-balance global rule.
	DefaultRackBuckets = 10
	// DefaultRulePool and DefaultEvalPool size the LRU pools of rule
	// objects and RuleEvaluation objects (§5.2.1–5.2.2: constant-size pools).
	DefaultRulePool = 4096
	DefaultEvalPool = 256
	// DefaultMaxAge evicts cached objects unused for this many requests
	// (§5.2.1: age-based eviction keeps the footprint low when idle).
	DefaultMaxAge = 200000
	// DefaultTopK is how many scored machines an explanation keeps.
	DefaultTopK = 5
	// DefaultTopPct is the share of best-packing candidates among which
	// eviction cost or safety decides (the slides' X, "data-driven"; 20%).
	DefaultTopPct = 0.2
)

// Config parameterizes the engines: Protean reads every field; a baseline
// honours Evict, TopPct, Buffers, Weights, Seed, Oversub, Explain and
// SizeOrder and refuses the others when set (ValidateFor, IgnoredFields).
type Config struct {
	K           int  // clusters passed to machine selection
	Buckets     int  // BestFit buckets; 0 = ∞ (no quantization)
	RackBuckets int  // rack-balance buckets; 0 = ∞
	Cache       bool // the cache hierarchy (§5.2); off = evaluate from scratch per VM
	// Weights are BestFit's scarcity weights wᵢ per dimension (the higher,
	// the scarcer). Zero weights ignore a dimension.
	Weights  Vec
	Buffers  Buffers
	RulePool int
	EvalPool int
	MaxAge   uint64
	Seed     uint64
	// Explain records, per VM, candidates per level, machines removed per
	// rule and the top-k scored machines.
	Explain bool
	TopK    int
	// Evict lets a high-priority VM that fits nowhere evict low-priority VMs.
	Evict bool
	// TopPct is the slides' balancing parameter X: order candidates by
	// packing score, keep the best X share, and among those pick the least
	// eviction cost (high-priority VMs that must evict) or the highest safety
	// score (low-priority VMs, when Safety is on).
	TopPct float64
	// Safety places low-priority VMs by the slides' safety score, computed
	// from ArrivalRates (high-priority arrivals per second, by VM type).
	Safety       bool
	ArrivalRates []float64
	// Oversub, when set, oversubscribes CPU with Resource Central's rule
	// (use OversubRules for the rule set); nil allocates physical cores.
	Oversub *OversubConfig
	// SizeOrder turns off the fault-domain step of ORDER (domainOrder):
	// the VMs of an availability set are then ordered by size alone, as
	// every other request is (an ablation; false, the default, is the
	// domain-aware ORDER). It changes nothing for requests without fault
	// domains. Protean and the baselines share ORDER, so both honour it.
	SizeOrder bool
}

// DefaultConfig is Protean as §6.3 describes production: k = 8, three
// BestFit buckets, caches on, cores and memory weighted equally.
func DefaultConfig() Config {
	return Config{K: DefaultK, Buckets: DefaultBuckets, RackBuckets: DefaultRackBuckets, Cache: true,
		Weights: Vec{Cores: 1, Memory: 1}, RulePool: DefaultRulePool, EvalPool: DefaultEvalPool,
		MaxAge: DefaultMaxAge, Seed: 1, Explain: true, TopK: DefaultTopK, Evict: true, TopPct: DefaultTopPct}
}

// Validate reports a configuration that cannot run.
func (c *Config) Validate() error {
	switch {
	case c.K < 1:
		return fmt.Errorf("%w: k = %d, want ≥ 1", ErrBadRequest, c.K)
	case c.Buckets < 0:
		return fmt.Errorf("%w: buckets = %d, want ≥ 0 (0 = ∞)", ErrBadRequest, c.Buckets)
	case c.RulePool < 1 || c.EvalPool < 1:
		return fmt.Errorf("%w: pool sizes must be ≥ 1", ErrBadRequest)
	case !(c.TopPct >= 0 && c.TopPct <= 1): // NaN fails too
		return fmt.Errorf("%w: top share %v, want 0..1", ErrBadRequest, c.TopPct)
	}
	if c.Oversub != nil {
		if err := c.Oversub.Validate(); err != nil {
			return err
		}
	}
	for d, w := range c.Weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return fmt.Errorf("%w: weight %v for %s, want finite and ≥ 0", ErrBadRequest, w, Dim(d))
		}
	}
	return nil
}

// policyField is a Config field only some policies honour.
type policyField struct {
	name, why string
	set       func(c, def *Config) bool // c sets the field away from the default
}

// baselineCannot lists the Config fields a baseline cannot honour, with
// the reason: the baselines have no cluster selection, no preference rules,
// no caches and no safety score.
var baselineCannot = []policyField{
	{"K", "it has no cluster selection", func(c, d *Config) bool { return c.K != d.K }},
	{"Buckets", "it has no BestFit rule to quantize", func(c, d *Config) bool { return c.Buckets != d.Buckets }},
	{"RackBuckets", "it has no rack-balance rule", func(c, d *Config) bool { return c.RackBuckets != d.RackBuckets }},
	{"Cache", "it has no cache", func(c, d *Config) bool { return c.Cache != d.Cache }},
	{"RulePool", "it has no cache", func(c, d *Config) bool { return c.RulePool != d.RulePool }},
	{"EvalPool", "it has no cache", func(c, d *Config) bool { return c.EvalPool != d.EvalPool }},
	{"MaxAge", "it has no cache", func(c, d *Config) bool { return c.MaxAge != d.MaxAge }},
	{"TopK", "it scores no machines by preference rules", func(c, d *Config) bool { return c.TopK != d.TopK && c.TopK != 0 }},
	{"Safety", "it has no safety score", func(c, d *Config) bool { return c.Safety != d.Safety }},
	{"ArrivalRates", "it has no safety score", func(c, d *Config) bool { return len(c.ArrivalRates) > 0 }},
}

// IgnoredFields lists the Config fields policy cannot honour (Go field
// names): none for "protean"; for a baseline K, Buckets, RackBuckets,
// Cache, RulePool, EvalPool, MaxAge, TopK, Safety and ArrivalRates. A
// baseline honours Evict, TopPct, Buffers, Weights, Seed, Oversub, Explain
// and SizeOrder. Unknown policies get an error.
func IgnoredFields(policy string) ([]string, error) {
	switch Policy(policy) {
	case "protean":
		return nil, nil
	case FirstFit, BestFitP, WorstFit, Random:
		out := make([]string, len(baselineCannot))
		for i, f := range baselineCannot {
			out[i] = f.name
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown policy %q", ErrBadRequest, policy)
}

// ValidateFor is Validate for an engine of the given policy ("protean" or a
// baseline): it also refuses, in one line, a configuration that sets a
// field the policy cannot honour away from DefaultConfig's value (see
// IgnoredFields), so that no setting is recorded with a run and silently
// ignored.
func (c *Config) ValidateFor(policy string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if _, err := IgnoredFields(policy); err != nil {
		return err
	}
	if policy == "protean" {
		return nil
	}
	def := DefaultConfig()
	for _, f := range baselineCannot {
		if f.set(c, &def) {
			return fmt.Errorf("%w: policy %s cannot honour %s (%s)", ErrBadRequest, policy, f.name, f.why)
		}
	}
	return nil
}

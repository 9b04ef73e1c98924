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
// Which engine honours which field, its flag, its run.params key and its
// paper section are declared once, in the Settings table (settings.go).
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

package optimizer

import (
	"fmt"
	"slices"
	"strings"
)

// Honour says where a setting applies: which policies honour it and, for
// a run setting, which replays. A setting is declared once, in a Setting
// row, with its Honour; refusals, IgnoredFields, the recorded run.params
// and the CLI's usage marks all derive from it.
type Honour uint8

const (
	// HonourProtean: Protean's rule engine honours it.
	HonourProtean Honour = 1 << iota
	// HonourBaselines: the baselines (firstfit, bestfit, worstfit, random)
	// honour it.
	HonourBaselines
	// HonourAgentsOnly: only a multi-agent replay (--agents N) has it.
	HonourAgentsOnly
	// HonourSimTimeOnly: only a multi-agent replay in simulated time has it.
	HonourSimTimeOnly
)

// HonourEvery is a setting every policy honours.
const HonourEvery = HonourProtean | HonourBaselines

// PolicyHonour is the Honour bit of a policy: HonourProtean for "protean",
// HonourBaselines for a baseline, 0 for anything else.
func PolicyHonour(policy string) Honour {
	switch Policy(policy) {
	case "protean":
		return HonourProtean
	case FirstFit, BestFitP, WorstFit, Random:
		return HonourBaselines
	}
	return 0
}

// Has reports whether h includes every bit of x.
func (h Honour) Has(x Honour) bool { return h&x == x }

// Mark is how a flag's usage names where it applies: "Protean only",
// "with --agents", "with --agents, simulated time", or "" for a setting
// every policy honours everywhere.
func (h Honour) Mark() string {
	switch {
	case h.Has(HonourSimTimeOnly):
		return "with --agents, simulated time"
	case h.Has(HonourAgentsOnly):
		return "with --agents"
	case h.Has(HonourProtean) && !h.Has(HonourBaselines):
		return "Protean only"
	}
	return ""
}

// Setting declares one setting of a T (an engine Config, or a run spec):
// the field it is, the flag that sets it, the key it is recorded under,
// who honours it, the paper section it comes from and its usage. Its
// default is the field's value in the default T (DefaultConfig): the table
// holds no second copy of it.
type Setting[T any] struct {
	// Field names the setting: the Go field of T ("K", "Oversub.MaxUtil"),
	// or of the spec's parts for a run setting.
	Field string
	// Flag is the placelab flag that sets it ("" when none does).
	Flag string
	// Param is its key in run.params ("" when it is not recorded there).
	Param string
	// Honour says who honours it; Record, when not 0, narrows the policies
	// whose runs record Param (a stored-runs convention: explain is
	// recorded for Protean only).
	Honour, Record Honour
	// Section is where the setting or its default comes from (a paper
	// section, the slides), "" when it is placelab's own.
	Section string
	// Usage is the flag's help, without the marks (Section, Honour.Mark)
	// that Help adds.
	Usage string
	// Why says why a policy that does not honour it cannot ("it has no
	// cluster selection"), for the refusal.
	Why string
	// Value reads the setting from t; Omit, when set, reports that t does
	// not record it (an optional part left off).
	Value func(t *T) any
	Omit  func(t *T) bool
	// Changed reports that t sets it away from def; nil compares Value.
	Changed func(t, def *T) bool
}

// Honoured reports whether policy (its PolicyHonour bit) honours s.
func (s *Setting[T]) Honoured(policy Honour) bool { return s.Honour&policy != 0 }

// Records reports whether a run of policy records s in run.params.
func (s *Setting[T]) Records(policy Honour) bool {
	if s.Param == "" {
		return false
	}
	if s.Record != 0 {
		return s.Record&policy != 0
	}
	return s.Honoured(policy)
}

// IsChanged reports whether t sets s away from def.
func (s *Setting[T]) IsChanged(t, def *T) bool {
	if s.Omit != nil {
		if ot, od := s.Omit(t), s.Omit(def); ot || od {
			return ot != od
		}
	}
	if s.Changed != nil {
		return s.Changed(t, def)
	}
	return s.Value(t) != s.Value(def)
}

// Help is the flag's usage with its marks: the paper section and where it
// applies, e.g. "clusters passed to machine selection (§3.2; Protean only)".
func (s *Setting[T]) Help() string {
	var marks []string
	if s.Section != "" {
		marks = append(marks, s.Section)
	}
	if m := s.Honour.Mark(); m != "" {
		marks = append(marks, m)
	}
	if len(marks) == 0 {
		return s.Usage
	}
	return s.Usage + " (" + strings.Join(marks, "; ") + ")"
}

// Lift makes settings of T settings of U, a value that holds a T (a run
// spec holding its engine Config): the rows stay declared once.
func Lift[T, U any](in []Setting[T], of func(*U) *T) []Setting[U] {
	out := make([]Setting[U], len(in))
	for i, s := range in {
		out[i] = Setting[U]{Field: s.Field, Flag: s.Flag, Param: s.Param, Honour: s.Honour, Record: s.Record,
			Section: s.Section, Usage: s.Usage, Why: s.Why,
			Value: func(u *U) any { return s.Value(of(u)) }}
		if s.Omit != nil {
			out[i].Omit = func(u *U) bool { return s.Omit(of(u)) }
		}
		if s.Changed != nil {
			out[i].Changed = func(u, def *U) bool { return s.Changed(of(u), of(def)) }
		}
	}
	return out
}

// noOversub omits the oversubscription settings of a Config without them.
func noOversub(c *Config) bool { return c.Oversub == nil }

// engineSettings is the table of the engines' settings, each declared
// once. The baselines have no cluster selection, no preference rules, no
// caches and no safety score: the rows that say so (Honour without
// HonourBaselines) are what ValidateFor refuses and IgnoredFields lists.
var engineSettings = []Setting[Config]{
	{Field: "K", Flag: "k", Param: "k", Honour: HonourProtean, Section: "§3.2",
		Usage: "clusters passed to machine selection", Why: "it has no cluster selection",
		Value: func(c *Config) any { return c.K }},
	{Field: "Buckets", Flag: "buckets", Param: "buckets", Honour: HonourProtean, Section: "§6.3, Table 5",
		Usage: "BestFit quantization buckets `N` (\"inf\" or 0: no quantization)", Why: "it has no BestFit rule to quantize",
		Value: func(c *Config) any { return c.Buckets }},
	{Field: "RackBuckets", Honour: HonourProtean,
		Usage: "rack-balance quantization buckets (0: no quantization)", Why: "it has no rack-balance rule",
		Value: func(c *Config) any { return c.RackBuckets }},
	{Field: "Cache", Flag: "cache", Param: "cache", Honour: HonourProtean, Section: "§5.2",
		Usage: "Protean's cache hierarchy: on or off; with simulated agents, off makes every evaluation a miss", Why: "it has no cache",
		Value: func(c *Config) any { return c.Cache }},
	{Field: "RulePool", Honour: HonourProtean, Section: "§5.2.1",
		Usage: "rule objects in the LRU pool", Why: "it has no cache",
		Value: func(c *Config) any { return c.RulePool }},
	{Field: "EvalPool", Honour: HonourProtean, Section: "§5.2.2",
		Usage: "RuleEvaluation objects in the LRU pool", Why: "it has no cache",
		Value: func(c *Config) any { return c.EvalPool }},
	{Field: "MaxAge", Honour: HonourProtean, Section: "§5.2.1",
		Usage: "requests after which an unused cached object is evicted", Why: "it has no cache",
		Value: func(c *Config) any { return c.MaxAge }},
	{Field: "TopK", Honour: HonourProtean,
		Usage: "scored machines an explanation keeps (0: the default)", Why: "it scores no machines by preference rules",
		Value:   func(c *Config) any { return c.TopK },
		Changed: func(c, d *Config) bool { return c.TopK != d.TopK && c.TopK != 0 }},
	{Field: "Safety", Flag: "safety", Param: "safety", Honour: HonourProtean, Section: "the slides",
		Usage: "place low-priority VMs by the slides' safety score: on or off", Why: "it has no safety score",
		Value: func(c *Config) any { return c.Safety }},
	{Field: "ArrivalRates", Honour: HonourProtean, Section: "the slides",
		Usage: "high-priority arrivals per second by VM type, for the safety score (derived from the trace)", Why: "it has no safety score",
		Value:   func(c *Config) any { return c.ArrivalRates },
		Changed: func(c, _ *Config) bool { return len(c.ArrivalRates) > 0 }},
	{Field: "Buffers", Flag: "buffers", Param: "buffers", Honour: HonourEvery, Section: "the slides; §6.3",
		Usage: "cluster buffers as empty machines: `NEW,SCALEOUT,HEAL`",
		Value: func(c *Config) any { return c.Buffers }},
	{Field: "Seed", Flag: "seed", Honour: HonourEvery, // recorded in run.seed
		Usage: "seed of the random tie-breaks",
		Value: func(c *Config) any { return c.Seed }},
	{Field: "Evict", Flag: "no-evict", Param: "evict", Honour: HonourEvery,
		Usage: "never evict low-priority VMs for high-priority ones (every policy evicts alike by default)",
		Value: func(c *Config) any { return c.Evict }},
	{Field: "Explain", Flag: "no-explain", Param: "explain", Honour: HonourEvery, Record: HonourProtean,
		Usage: "record no explanations (faster; placelab explain then tells only a rejected request's story, not each VM's selection)",
		Value: func(c *Config) any { return c.Explain }},
	{Field: "TopPct", Flag: "top-pct", Param: "top_pct", Honour: HonourEvery, Section: "the slides",
		Usage: "share X of best-packing candidates among which eviction cost (or safety) decides",
		Value: func(c *Config) any { return c.TopPct }},
	{Field: "Weights", Param: "weights", Honour: HonourEvery, Section: "§3.2",
		Usage: "BestFit's scarcity weights per dimension (derived from the trace unless the caller sets them)",
		Value: func(c *Config) any { return c.Weights }},
	{Field: "Oversub.MaxOversub", Param: "max_oversub", Honour: HonourEvery, Section: "Resource Central",
		Usage: "MAX_OVERSUB: allocated over physical cores on oversubscribable machines",
		Value: func(c *Config) any { return c.Oversub.MaxOversub }, Omit: noOversub},
	{Field: "Oversub.MaxUtil", Param: "max_util", Honour: HonourEvery, Section: "Resource Central",
		Usage: "MAX_UTIL: predicted P95 over physical cores",
		Value: func(c *Config) any { return c.Oversub.MaxUtil }, Omit: noOversub},
	{Field: "Oversub.Soft", Param: "soft", Honour: HonourEvery, Section: "Resource Central",
		Usage: "the utilization check as a soft rule",
		Value: func(c *Config) any { return c.Oversub.Soft }, Omit: noOversub},
	{Field: "Oversub.Naive", Param: "naive", Honour: HonourEvery, Section: "Resource Central",
		Usage: "oversubscribe without predictions (MAX_OVERSUB only)",
		Value: func(c *Config) any { return c.Oversub.Naive }, Omit: noOversub},
	{Field: "SizeOrder", Param: "size_order", Honour: HonourEvery, Section: "Algorithm 1",
		Usage: "ORDER by size alone, without the fault-domain step (an ablation)",
		Value: func(c *Config) any { return c.SizeOrder }, Omit: func(c *Config) bool { return !c.SizeOrder }},
}

// Settings is the table of the engines' settings (a copy): a Config
// field's flag, run.params key, who honours it, its paper section and
// usage. The run pipeline extends it with the run's own settings.
func Settings() []Setting[Config] { return slices.Clone(engineSettings) }

// SettingOf is the row of the engine setting whose flag is flag.
func SettingOf(flag string) (Setting[Config], bool) {
	i := slices.IndexFunc(engineSettings, func(s Setting[Config]) bool { return s.Flag == flag })
	if i < 0 {
		return Setting[Config]{}, false
	}
	return engineSettings[i], true
}

// IgnoredFields lists the Config fields policy cannot honour (Go field
// names, the Settings rows whose Honour lacks the policy's): none for
// "protean"; for a baseline K, Buckets, RackBuckets, Cache, RulePool,
// EvalPool, MaxAge, TopK, Safety and ArrivalRates. Unknown policies get an
// error.
func IgnoredFields(policy string) ([]string, error) {
	h := PolicyHonour(policy)
	if h == 0 {
		return nil, fmt.Errorf("%w: unknown policy %q", ErrBadRequest, policy)
	}
	var out []string
	for i := range engineSettings {
		if s := &engineSettings[i]; !s.Honoured(h) {
			out = append(out, s.Field)
		}
	}
	return out, nil
}

// ValidateFor is Validate for an engine of the given policy ("protean" or a
// baseline): it also refuses, in one line naming the field, its flag and
// why, a configuration that sets a field the policy cannot honour away
// from DefaultConfig's value (see IgnoredFields), so that no setting is
// recorded with a run and silently ignored.
func (c *Config) ValidateFor(policy string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	h := PolicyHonour(policy)
	if h == 0 {
		return fmt.Errorf("%w: unknown policy %q", ErrBadRequest, policy)
	}
	def := DefaultConfig()
	for i := range engineSettings {
		s := &engineSettings[i]
		if s.Honoured(h) || !s.IsChanged(c, &def) {
			continue
		}
		name := s.Field
		if s.Flag != "" {
			name += " (--" + s.Flag + ")"
		}
		return fmt.Errorf("%w: policy %s cannot honour %s: %s", ErrBadRequest, policy, name, s.Why)
	}
	return nil
}

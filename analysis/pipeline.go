package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"slices"
	"sort"
	"strings"
	"time"

	"placelab/optimizer"
	store "placelab/sql"
)

// A run is a spec. Every caller — the CLI, the experiments, bench all, the
// notebooks — builds one from DefaultSpec, changes what it means to change,
// and hands it to Run, which validates it once, loads the data (pinning the
// load it read), builds the engine, replays, and writes run, placement,
// explain and run_metric through one writer.

// Setting names a spec setting a caller chose explicitly. They are the CLI's
// flag names (the Flag of their row in Settings), so a refusal reads like
// the flag the user typed; who honours each is the table's to say.
const (
	SetK          = "k"
	SetBuckets    = "buckets"
	SetCache      = "cache"
	SetSafety     = "safety"
	SetBuffers    = "buffers"
	SetEvict      = "no-evict"
	SetTopPct     = "top-pct"
	SetExplain    = "no-explain"
	SetTime       = "time"
	SetSpeedup    = "speedup"
	SetHitRate    = "hit-rate"
	SetHitMS      = "hit-ms"
	SetMissMS     = "miss-ms"
	SetCommitMS   = "commit-ms"
	SetMaxRetries = "max-retries"
	SetWindow     = "window"
	SetN0         = "n0"
	SetAvoid      = "avoid"
	// SetWeights keeps the caller's BestFit weights instead of deriving
	// them from the trace (ScarcityWeights).
	SetWeights = "weights"
)

// ErrBadSpec reports a run spec that cannot run as written.
var ErrBadSpec = errors.New("analysis: bad run spec")

// Spec is one run: the dataset (whose current load it pins), the policy,
// the engine's settings, the window and sampling interval, and — for a run
// with concurrent agents — the agent model.
type Spec struct {
	Dataset string
	Policy  string
	// Engine configures Protean (all of it) or a baseline (Seed, Evict,
	// TopPct, Buffers, Weights, Oversub). Weights are derived from the
	// trace (ScarcityWeights) unless Set names SetWeights.
	Engine optimizer.Config
	// Rules, when set, replaces the policy's rule set (optimizer.DefaultRules).
	Rules *optimizer.Rules
	// From, To (trace seconds, ±Inf: unbounded) and Interval (seconds
	// between samples).
	From, To, Interval float64
	// Agents, when set, replays with concurrent agents (Protean only);
	// nil is the single-agent replay.
	Agents *replay.AgentOptions
	// Set names the settings the caller chose (the Set* constants); Validate
	// refuses those the policy or the time model cannot honour.
	Set map[string]bool
	// Availability (issue 27), honoured alike by every policy: Failures is
	// a failure model as --failures takes it (outage.ParseModel: "none",
	// "default", key=value overrides), FailureFile a CSV or Parquet file of
	// outage events replayed as well (read by Run, pinned by its SHA-256),
	// Maintenance a rollout schedule (outage.ParseMaintenance), and
	// FaultDomains/UpdateDomains each tenant's availability set (0 = off).
	// Every path replays them: one agent, agents in simulated or real time.
	Failures, FailureFile, Maintenance string
	FaultDomains, UpdateDomains        int32
	FailureRows                        []outage.FileRow
	failureSHA                         string
	// Interruptions are spot or preemptible SKUs' take-backs per
	// machine-year (a catalog's interruptions_per_year), drawn beside the
	// failure model's machine failures when Failures is on (none: not
	// drawn); nil: none.
	Interruptions outage.Interruptions
}

// DefaultSpec is Protean as §6.3 describes production (optimizer.DefaultConfig)
// on the whole of dataset, sampled hourly, with one agent.
func DefaultSpec(dataset string) Spec {
	return Spec{Dataset: dataset, Policy: "protean", Engine: optimizer.DefaultConfig(),
		From: math.Inf(-1), To: math.Inf(1), Interval: replay.DefaultInterval, Set: map[string]bool{}}
}

// WithAgents returns the spec with n agents of the paper's model
// (DefaultAgentOptions) in the given time model; explanations are off, as
// multi-agent runs record outcomes, retries and conflicts instead.
func (s Spec) WithAgents(n int, timeModel string) Spec {
	a := replay.DefaultAgentOptions()
	a.Agents, a.TimeModel = n, timeModel
	s.Agents = &a
	s.Engine.Explain = false
	return s
}

func (s *Spec) isSet(name string) bool { return s.Set[name] }

// Validate refuses a spec that cannot run as written: an unknown policy, a
// setting the policy or time model cannot honour, a value out of range.
func (s *Spec) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadSpec}, args...)...)
	}
	if s.Dataset == "" {
		return bad("no dataset")
	}
	if !slices.Contains(replay.Policies, s.Policy) {
		return bad("policy %q: want one of %s", s.Policy, strings.Join(replay.Policies, ", "))
	}
	pol := optimizer.PolicyHonour(s.Policy)
	if pol != optimizer.HonourProtean {
		for i := range settings {
			st := &settings[i]
			if st.Flag != "" && s.isSet(st.Flag) && !st.Honoured(pol) && !st.Honour.Has(optimizer.HonourAgentsOnly) {
				return bad("--%s applies to Protean's rule engine; policy %s cannot honour it (%s)", st.Flag, s.Policy, st.Why)
			}
		}
		if s.Agents != nil {
			return bad("--agents applies to Protean; the baseline %s has no allocation agents", s.Policy)
		}
	}
	if s.Agents == nil {
		for i := range settings {
			if st := &settings[i]; st.Flag != "" && s.isSet(st.Flag) && st.Honour.Has(optimizer.HonourAgentsOnly) {
				return bad("--%s applies to multi-agent replays (--agents N)", st.Flag)
			}
		}
	} else {
		if err := s.Agents.Validate(); err != nil {
			return err
		}
		if !s.Engine.Cache && s.Agents.TimeModel == replay.TimeSim && s.isSet(SetHitRate) {
			return bad("--hit-rate with --cache off: without the cache every simulated evaluation is a miss")
		}
		if s.Agents.TimeModel == replay.TimeReal {
			for i := range settings {
				if st := &settings[i]; st.Flag != "" && s.isSet(st.Flag) && st.Honour.Has(optimizer.HonourSimTimeOnly) {
					return bad("--%s applies to simulated time (--time sim); real time measures the engine itself", st.Flag)
				}
			}
		}
	}
	w := replay.ReplayOptions{From: s.From, To: s.To, Interval: s.Interval}
	if err := w.Normalize(); err != nil {
		return err
	}
	_, _, err := outage.ParseModel(s.Failures)
	if err != nil {
		return err
	}
	_, _, err = outage.ParseMaintenance(s.Maintenance)
	if err != nil {
		return err
	}
	if err := optimizer.ValidateDomains(s.FaultDomains, s.UpdateDomains); err != nil {
		return err
	}
	if err := s.Engine.Validate(); err != nil {
		return err
	}
	return nil
}

// Params are the settings the run honoured, as stored in run.params: the
// rows of Settings with a run.params key that the policy honours (the
// engine's all for Protean, the ones a baseline honours for a baseline),
// the window, availability when on, and the agent model for a multi-agent
// run. Nothing a run ignored is recorded.
func (s *Spec) Params() map[string]any {
	pol := optimizer.PolicyHonour(s.Policy)
	if pol == 0 {
		pol = optimizer.HonourBaselines // any policy but Protean: what every policy honours
	}
	p := map[string]any{}
	for i := range settings {
		st := &settings[i]
		if !st.Records(pol) || !s.applies(st) || (st.Omit != nil && st.Omit(s)) {
			continue
		}
		p[st.Param] = st.Value(s)
	}
	return p
}

// paramsWith are Params of the spec run with engine configuration cfg
// (the trace-derived one, engineFor): what ran is what is recorded.
func (s *Spec) paramsWith(cfg optimizer.Config) map[string]any {
	ran := *s
	ran.Engine = cfg
	return ran.Params()
}

// Finite is v, or nil (JSON null) for an unbounded end.
func Finite(v float64) any {
	if math.IsInf(v, 0) {
		return nil
	}
	return v
}

// RunOptions are the parts of a run that are not its spec: progress, the
// version recorded, whether to store it.
type RunOptions struct {
	Progress func(done, total int64)
	// Decorate may fill request fields the trace lacks (see ReplayOptions).
	Decorate func(r *optimizer.Request)
	Version  string
	// Engine is the run table's engine column ("replay" when empty).
	Engine string
	// NoWrite runs without storing (Summary.RunID stays 0).
	NoWrite bool
	// Allocator, when set, is called with the one agent's allocator before
	// the replay starts (its state is the replay's): the lifetime arms turn
	// on its machines' life classes. Agents refuse it.
	Allocator func(a optimizer.Allocator)
	// Prices, when set, prices the run (SKU name → $ per machine-hour, a
	// catalog's prices): see Price.
	Prices map[string]float64
}

// MetricCostPerHour is the run metric of a priced run's cost.
const MetricCostPerHour = "cost_per_hour"

// Price sets res's CostPerHour to Σ the machines of tr's inventory × their
// SKU's price in prices, and appends it as run metric cost_per_hour at t;
// SKUs with machines and no price are UnpricedSKUs instead, and no cost is
// given.
func Price(res *replay.Result, tr *replay.Trace, prices map[string]float64, t float64) {
	sm := &res.Summary
	sm.Machines = len(tr.Inv.Machines)
	cost, missing := 0.0, map[string]bool{}
	for _, m := range tr.Inv.Machines {
		name := tr.Inv.SKUs[m.SKU].Name
		p, ok := prices[name]
		if !ok {
			missing[name] = true
			continue
		}
		cost += p
	}
	if len(missing) > 0 {
		for name := range missing {
			sm.UnpricedSKUs = append(sm.UnpricedSKUs, name)
		}
		sort.Strings(sm.UnpricedSKUs)
		return
	}
	cost = math.Round(cost*1e6) / 1e6
	sm.CostPerHour = &cost
	res.Metrics = append(res.Metrics, replay.MetricRow{T: t, Metric: MetricCostPerHour, Value: cost})
}

// Run validates spec, loads its dataset (pinning the load), replays it and
// stores the run in one transaction.
func Run(ctx context.Context, db *store.DB, spec Spec, o RunOptions) (*replay.Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	tr, err := LoadTrace(ctx, db, spec.Dataset, spec.From, spec.To)
	if err != nil {
		return nil, err
	}
	if len(tr.VMs) == 0 {
		return nil, fmt.Errorf("%w: dataset %q has no VMs in the window", ErrBadSpec, spec.Dataset)
	}
	if spec.FailureFile != "" {
		if err := spec.ReadFailureFile(ctx, db); err != nil {
			return nil, err
		}
	}
	loadSeconds := time.Since(t0).Seconds()
	if o.NoWrite {
		cfg := spec.engineFor(tr)
		res, err := runTrace(ctx, tr, &spec, &cfg, o, nil)
		if err != nil {
			return nil, err
		}
		res.Summary.LoadSeconds = loadSeconds
		return res, nil
	}
	engine := o.Engine
	if engine == "" {
		engine = "replay"
	}
	id, err := db.NextRunID(ctx)
	if err != nil {
		return nil, err
	}
	// One transaction: a one-agent replay streams its final rows into it
	// as it goes (replay.Sink), so its memory follows the VMs alive; the
	// rest is appended when the replay is done. WriteSeconds is the time
	// from the replay's end to the commit.
	cfg := spec.engineFor(tr)
	var res *replay.Result
	var t1 time.Time
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		q := &quoted{}
		var sink *runSink
		if spec.Agents == nil {
			sink = startRunSink(w, id, tr, q)
		}
		var err error
		res, err = runTrace(ctx, tr, &spec, &cfg, o, sink)
		if sink != nil {
			if cerr := sink.close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return err
		}
		t1 = time.Now()
		res.Summary.LoadSeconds = loadSeconds
		return writeRun(w, id, RunMeta{Engine: engine, Policy: spec.Policy, Dataset: spec.Dataset, LoadID: tr.LoadID,
			Version: o.Version, Seed: spec.Engine.Seed, Params: spec.paramsWith(cfg), Started: t0}, res, q)
	})
	if err != nil {
		if res == nil || t1.IsZero() {
			return nil, err
		}
		return nil, fmt.Errorf("analysis: write run: %w", err)
	}
	res.Summary.RunID = id
	res.Summary.WriteSeconds = time.Since(t1).Seconds()
	return res, nil
}

// RunTrace validates spec and runs it on a loaded trace without storing
// it. The spec is not changed: the engine runs with spec.Engine and the
// trace-derived weights and arrival rates (engineFor).
func RunTrace(ctx context.Context, tr *replay.Trace, spec *Spec, o RunOptions) (*replay.Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfg := spec.engineFor(tr)
	return runTrace(ctx, tr, spec, &cfg, o, nil)
}

// engineFor is the engine configuration spec runs with on tr: its Engine
// with BestFit's weights derived from the trace (ScarcityWeights) unless
// the caller chose them (SetWeights) and, with the safety score, the
// trace's arrival rates. It is a copy: the spec stays as validated.
func (s *Spec) engineFor(tr *replay.Trace) optimizer.Config {
	cfg := s.Engine
	if !s.isSet(SetWeights) {
		cfg.Weights = replay.ScarcityWeights(tr)
	}
	if cfg.Safety {
		cfg.ArrivalRates = replay.ArrivalRates(tr)
	}
	return cfg
}

// runTrace runs a validated spec on tr with engine configuration cfg
// (engineFor); a one-agent replay hands its rows to sink when it is not
// nil. It validates nothing and changes nothing of spec.
func runTrace(ctx context.Context, tr *replay.Trace, spec *Spec, cfg *optimizer.Config, o RunOptions, sink *runSink) (*replay.Result, error) {
	av, err := spec.availability(tr)
	if err != nil {
		return nil, err
	}
	if av != nil && len(av.Outages) > 0 {
		tr = tr.WithOwnHealth()
	}
	ropt := replay.ReplayOptions{From: spec.From, To: spec.To, Interval: spec.Interval, Progress: o.Progress,
		Refresh: cfg.Cache, Seed: cfg.Seed, Decorate: o.Decorate, Avail: av, Buffers: cfg.Buffers}
	if sink != nil {
		ropt.Sink = sink
	}
	var res *replay.Result
	if spec.Agents != nil {
		if o.Decorate != nil || o.Allocator != nil {
			return nil, fmt.Errorf("%w: request decoration is not supported with agents", ErrBadSpec)
		}
		a := *spec.Agents
		a.ReplayOptions = ropt
		a.Rules = spec.Rules
		res, err = replay.ReplayAgents(ctx, tr, *cfg, a)
	} else {
		var alloc optimizer.Allocator
		if alloc, err = replay.NewAllocatorWith(spec.Policy, tr, *cfg, spec.Rules); err != nil {
			return nil, err
		}
		if o.Allocator != nil {
			o.Allocator(alloc)
		}
		res, err = replay.Replay(ctx, tr, alloc, ropt)
	}
	if err != nil {
		return nil, err
	}
	res.Summary.LoadID = tr.LoadID
	if o.Prices != nil {
		from, _ := spec.window(tr)
		Price(res, tr, o.Prices, from)
	}
	return res, nil
}

// SetNames lists the settings a spec marks as chosen, sorted (for messages
// and tests).
func (s *Spec) SetNames() []string {
	var out []string
	for k, v := range s.Set {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

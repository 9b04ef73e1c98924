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
// flag names, so a refusal reads like the flag the user typed.
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

// proteanOnly are the settings only Protean's rule engine has: the baselines
// scan every machine (no k clusters), order machines their own way (no
// BestFit buckets, no safety score) and keep no caches.
var proteanOnly = []string{SetK, SetBuckets, SetCache, SetSafety}

// agentOnly are the settings of the multi-agent model.
var agentOnly = []string{SetTime, SetSpeedup, SetHitRate, SetHitMS, SetMissMS, SetCommitMS, SetMaxRetries, SetWindow, SetN0, SetAvoid}

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
	if s.Policy != "protean" {
		for _, name := range proteanOnly {
			if s.isSet(name) {
				return bad("--%s applies to Protean's rule engine; policy %s cannot honour it", name, s.Policy)
			}
		}
		if s.Agents != nil {
			return bad("--agents applies to Protean; the baseline %s has no allocation agents", s.Policy)
		}
	}
	if s.Agents == nil {
		for _, name := range agentOnly {
			if s.isSet(name) {
				return bad("--%s applies to multi-agent replays (--agents N)", name)
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
			for _, name := range []string{SetSpeedup, SetHitRate, SetHitMS, SetMissMS, SetCommitMS} {
				if s.isSet(name) {
					return bad("--%s applies to simulated time (--time sim); real time measures the engine itself", name)
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
// engine's for Protean, the ones a baseline honours for a baseline, the
// window, and the agent model for a multi-agent run. Nothing a run ignored
// is recorded.
func (s *Spec) Params() map[string]any {
	c := &s.Engine
	p := map[string]any{"buffers": c.Buffers, "evict": c.Evict, "top_pct": c.TopPct, "weights": c.Weights,
		"from": Finite(s.From), "to": Finite(s.To), "interval": s.Interval}
	if s.Policy == "protean" {
		p["k"], p["buckets"], p["cache"], p["safety"], p["explain"] = c.K, c.Buckets, c.Cache, c.Safety, c.Explain
	}
	if c.Oversub != nil {
		p["max_oversub"], p["max_util"], p["soft"], p["naive"] = c.Oversub.MaxOversub, c.Oversub.MaxUtil, c.Oversub.Soft, c.Oversub.Naive
	}
	if m, on, err := outage.ParseModel(s.Failures); err == nil && on {
		// the model as --failures names its keys
		p["failures"] = map[string]any{"machine-afr": m.MachineAFR, "rack-afr": m.RackAFR, "reboot-share": m.RebootShare,
			"repair": m.Repair.String(), "repair-median-h": m.RepairMedianH, "repair-sigma": m.RepairSigma,
			"rack-repair-median-h": m.RackRepairMedianH, "rack-repair-sigma": m.RackRepairSigma,
			"reboot-min": m.RebootMin, "heal-min": m.HealMin, "heal": m.Heal.String()}
	}
	if s.FailureFile != "" {
		p["failure_file"], p["failure_file_sha256"] = s.FailureFile, s.failureSHA
	}
	if mt, on, err := outage.ParseMaintenance(s.Maintenance); err == nil && on {
		p["maintenance"] = map[string]any{"every_s": mt.Every, "ud-minutes": mt.UDSeconds / 60}
	}
	if c.SizeOrder {
		p["size_order"] = true // Algorithm 1's ORDER by size alone (ablation)
	}
	if s.FaultDomains > 0 {
		p["fault_domains"] = s.FaultDomains
	}
	if s.UpdateDomains > 0 {
		p["update_domains"] = s.UpdateDomains
	}
	if a := s.Agents; a != nil {
		p["agents"], p["time"], p["max_retries"], p["window"], p["n0"], p["avoid"] = a.Agents, a.TimeModel, a.MaxRetries, a.Window, a.N0, a.Avoid
		if a.TimeModel == replay.TimeSim {
			hit := a.HitRate
			if !c.Cache {
				hit = 0
			}
			p["speedup"], p["hit_rate"], p["hit_ms"], p["miss_ms"], p["commit_ms"] = a.Speedup, hit, a.HitMS, a.MissMS, a.CommitMS
		}
	}
	return p
}

// finite is v, or nil (JSON null) for an unbounded end.
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
		res, err := RunTrace(ctx, tr, &spec, o)
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
	var res *replay.Result
	var t1 time.Time
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		q := &quoted{}
		var sink *runSink
		if spec.Agents == nil {
			sink = startRunSink(w, id, tr, q)
		}
		var err error
		res, err = runTrace(ctx, tr, &spec, o, sink)
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
			Version: o.Version, Seed: spec.Engine.Seed, Params: spec.Params(), Started: t0}, res, q)
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

// RunTrace runs a validated spec on a loaded trace without storing it; the
// spec's Engine gets the trace-derived weights and arrival rates, so that
// Params() then records what ran.
func RunTrace(ctx context.Context, tr *replay.Trace, spec *Spec, o RunOptions) (*replay.Result, error) {
	return runTrace(ctx, tr, spec, o, nil)
}

// runTrace is RunTrace; a one-agent replay hands its rows to sink when it
// is not nil.
func runTrace(ctx context.Context, tr *replay.Trace, spec *Spec, o RunOptions, sink *runSink) (*replay.Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfg := &spec.Engine
	if !spec.isSet(SetWeights) {
		cfg.Weights = replay.ScarcityWeights(tr)
	}
	if cfg.Safety {
		cfg.ArrivalRates = replay.ArrivalRates(tr)
	}
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

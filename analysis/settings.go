package analysis

import (
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"slices"

	"placelab/optimizer"
)

// Settings is the one table of a run's settings: the engine's
// (optimizer.Settings, read from the spec's Engine) and the run's own —
// the window, availability, the agent model —, each declared once with
// its flag, its run.params key, who honours it, its paper section and its
// usage. Spec.Validate's refusals, Spec.Params and the CLI's flag usage
// derive from it; the defaults are DefaultSpec's (DefaultConfig's,
// DefaultAgentOptions').
func Settings() []optimizer.Setting[Spec] { return slices.Clone(settings) }

// SettingOf is the row of the setting whose flag is flag.
func SettingOf(flag string) (optimizer.Setting[Spec], bool) {
	i := slices.IndexFunc(settings, func(s optimizer.Setting[Spec]) bool { return s.Flag == flag })
	if i < 0 {
		return optimizer.Setting[Spec]{}, false
	}
	return settings[i], true
}

var settings = append(optimizer.Lift(optimizer.Settings(), func(s *Spec) *optimizer.Config { return &s.Engine }), runSettings...)

// Honour of the run's own settings.
const (
	every        = optimizer.HonourEvery
	honourAgents = optimizer.HonourProtean | optimizer.HonourAgentsOnly
	honourSim    = honourAgents | optimizer.HonourSimTimeOnly
)

// noAgents omits the agent model's settings from a one-agent run.
func noAgents(s *Spec) bool { return s.Agents == nil }

// runSettings are the run's own settings (the engine's are optimizer's).
var runSettings = []optimizer.Setting[Spec]{
	{Field: "From", Flag: "from", Param: "from", Honour: every,
		Usage: "start of the window (e.g. 0, 36h, 2d); VMs alive then are placed first",
		Value: func(s *Spec) any { return Finite(s.From) }},
	{Field: "To", Flag: "to", Param: "to", Honour: every,
		Usage: "end of the window (default: the end of the trace)",
		Value: func(s *Spec) any { return Finite(s.To) }},
	{Field: "Interval", Flag: "interval", Param: "interval", Honour: every,
		Usage: "metric sampling interval",
		Value: func(s *Spec) any { return s.Interval }},
	{Field: "Failures", Flag: "failures", Param: "failures", Honour: every,
		Usage: "machine and rack failures: `SPEC` none, default, or key=value overrides (see below)",
		Value: func(s *Spec) any {
			m, _, _ := outage.ParseModel(s.Failures)
			// the model as --failures names its keys
			return map[string]any{"machine-afr": m.MachineAFR, "rack-afr": m.RackAFR, "reboot-share": m.RebootShare,
				"repair": m.Repair.String(), "repair-median-h": m.RepairMedianH, "repair-sigma": m.RepairSigma,
				"rack-repair-median-h": m.RackRepairMedianH, "rack-repair-sigma": m.RackRepairSigma,
				"reboot-min": m.RebootMin, "heal-min": m.HealMin, "heal": m.Heal.String()}
		},
		Omit: func(s *Spec) bool { _, on, err := outage.ParseModel(s.Failures); return err != nil || !on }},
	{Field: "Interruptions", Param: "interruptions_per_year", Honour: every,
		Usage: "spot and preemptible SKUs' interruptions per machine-year (a catalog's interruptions_per_year), drawn with the failure model",
		Value: func(s *Spec) any { return map[string]float64(s.Interruptions) },
		Omit: func(s *Spec) bool {
			_, on, err := outage.ParseModel(s.Failures)
			return len(s.Interruptions) == 0 || err != nil || !on
		}},
	{Field: "FailureFile", Flag: "failure-file", Param: "failure_file", Honour: every,
		Usage: "replay your own incident history: a CSV or Parquet `FILE` with columns t_s, machine or rack, duration_s, kind (reboot|hard)",
		Value: func(s *Spec) any { return s.FailureFile }, Omit: func(s *Spec) bool { return s.FailureFile == "" }},
	{Field: "failureSHA", Param: "failure_file_sha256", Honour: every,
		Usage: "the SHA-256 of the failure file the run read",
		Value: func(s *Spec) any { return s.failureSHA }, Omit: func(s *Spec) bool { return s.FailureFile == "" }},
	{Field: "Maintenance", Flag: "maintenance", Param: "maintenance", Honour: every,
		Usage: "planned host OS updates rolled through the update domains: `SPEC` none, default, or every=30d,ud-minutes=30",
		Value: func(s *Spec) any {
			mt, _, _ := outage.ParseMaintenance(s.Maintenance)
			return map[string]any{"every_s": mt.Every, "ud-minutes": mt.UDSeconds / 60}
		},
		Omit: func(s *Spec) bool { _, on, err := outage.ParseMaintenance(s.Maintenance); return err != nil || !on }},
	{Field: "FaultDomains", Flag: "fault-domains", Param: "fault_domains", Honour: every,
		Usage: "each tenant's VMs form an availability set over `F` fault domains (racks; 0 = off, Azure: at most 3)",
		Value: func(s *Spec) any { return s.FaultDomains }, Omit: func(s *Spec) bool { return s.FaultDomains <= 0 }},
	{Field: "UpdateDomains", Flag: "update-domains", Param: "update_domains", Honour: every,
		Usage: "... and over `U` update domains (machine update domains; 0 = off, Azure: at most 20)",
		Value: func(s *Spec) any { return s.UpdateDomains }, Omit: func(s *Spec) bool { return s.UpdateDomains <= 0 }},
	{Field: "Agents.Agents", Flag: "agents", Param: "agents", Honour: optimizer.HonourProtean, Section: "§4",
		Usage: "allocation agents on stale views committing to one store; the agent flags need it", Why: "it has no allocation agents",
		Value: func(s *Spec) any { return s.Agents.Agents }, Omit: noAgents},
	{Field: "Agents.TimeModel", Flag: "time", Param: "time", Honour: honourAgents,
		Usage: "sim (simulated time, deterministic) or real (goroutines, wall clock)",
		Value: func(s *Spec) any { return s.Agents.TimeModel }, Omit: noAgents},
	{Field: "Agents.Speedup", Flag: "speedup", Param: "speedup", Honour: honourSim,
		Usage: "run the trace this many times faster (1..1000)",
		Value: func(s *Spec) any { return s.Agents.Speedup }, Omit: noAgents},
	{Field: "Agents.HitRate", Flag: "hit-rate", Param: "hit_rate", Honour: honourSim, Section: "§6.2",
		Usage: "probability an evaluation hits the cache (0 with --cache off)",
		Value: func(s *Spec) any {
			if !s.Engine.Cache {
				return 0.0 // without the cache every evaluation is a miss
			}
			return s.Agents.HitRate
		}, Omit: noAgents},
	{Field: "Agents.HitMS", Flag: "hit-ms", Param: "hit_ms", Honour: honourSim, Section: "§6.2",
		Usage: "cost of a cache hit (ms)",
		Value: func(s *Spec) any { return s.Agents.HitMS }, Omit: noAgents},
	{Field: "Agents.MissMS", Flag: "miss-ms", Param: "miss_ms", Honour: honourSim, Section: "§6.2",
		Usage: "cost of a cache miss (ms)",
		Value: func(s *Spec) any { return s.Agents.MissMS }, Omit: noAgents},
	{Field: "Agents.CommitMS", Flag: "commit-ms", Param: "commit_ms", Honour: honourSim,
		Usage: "commit round trip (pipelined: the agent moves on)",
		Value: func(s *Spec) any { return s.Agents.CommitMS }, Omit: noAgents},
	{Field: "Agents.MaxRetries", Flag: "max-retries", Param: "max_retries", Honour: honourAgents, Section: "§5.3, §6.2",
		Usage: "conflicting commits before a request is rejected",
		Value: func(s *Spec) any { return s.Agents.MaxRetries }, Omit: noAgents},
	{Field: "Agents.Window", Flag: "window", Param: "window", Honour: honourAgents, Section: "§5.3, §6.2",
		Usage: "commits in the conflict-ratio window",
		Value: func(s *Spec) any { return s.Agents.Window }, Omit: noAgents},
	{Field: "Agents.N0", Flag: "n0", Param: "n0", Honour: honourAgents, Section: "§5.3, §6.2",
		Usage: "machines the conflict-avoidance scheme picks among",
		Value: func(s *Spec) any { return s.Agents.N0 }, Omit: noAgents},
	{Field: "Agents.Avoid", Flag: "avoid", Param: "avoid", Honour: honourAgents, Section: "§5.3",
		Usage: "conflict avoidance: on or off",
		Value: func(s *Spec) any { return s.Agents.Avoid }, Omit: noAgents},
}

// applies reports whether setting st is part of a run of spec s: its
// policy honours it and, for the agent model, s has agents (in simulated
// time for the simulated-time settings).
func (s *Spec) applies(st *optimizer.Setting[Spec]) bool {
	h := st.Honour
	switch {
	case h.Has(optimizer.HonourAgentsOnly) && s.Agents == nil:
		return false
	case h.Has(optimizer.HonourSimTimeOnly) && s.Agents.TimeModel != replay.TimeSim:
		return false
	}
	return true
}

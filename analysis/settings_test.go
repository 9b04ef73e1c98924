package analysis

import (
	"context"
	"encoding/json"
	"math"
	store "placelab/sql"
	"reflect"
	"strings"
	"testing"

	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/datasets/synth"
	"placelab/optimizer"
)

// paramsBefore is Spec.Params as it was written by hand before the
// settings table (issue 53): the reference the table's Params must
// reproduce key for key and value for value, so stored runs and their
// readers are unchanged.
func paramsBefore(s *Spec) map[string]any {
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
		p["size_order"] = true
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

// TestParamsFromTheTable: the recorded run.params, now derived from the
// settings table, are the ones recorded before, for every kind of run.
func TestParamsFromTheTable(t *testing.T) {
	specs := map[string]func(*Spec){
		"protean": func(*Spec) {},
		"bestfit": func(s *Spec) { s.Policy = "bestfit"; s.Engine.Evict = false; s.Engine.TopPct = 0.3 },
		"window":  func(s *Spec) { s.From, s.To, s.Interval = 3600, 7200, 60 },
		"oversub": func(s *Spec) { s.Engine.Oversub = &optimizer.OversubConfig{MaxOversub: 1.25, MaxUtil: 0.8, Soft: true} },
		"baseline oversub": func(s *Spec) {
			s.Policy = "random"
			s.Engine.Oversub = &optimizer.OversubConfig{MaxOversub: 1.5, MaxUtil: 1, Naive: true}
		},
		"size order":   func(s *Spec) { s.Engine.SizeOrder = true },
		"availability": func(s *Spec) { s.Failures, s.Maintenance, s.FaultDomains, s.UpdateDomains = "default", "default", 3, 5 },
		"failure file": func(s *Spec) { s.FailureFile, s.failureSHA = "x.csv", "abc" },
		"agents sim": func(s *Spec) {
			*s = s.WithAgents(4, replay.TimeSim)
			s.Agents.Speedup = 10
		},
		"agents sim cache off": func(s *Spec) { *s = s.WithAgents(2, replay.TimeSim); s.Engine.Cache = false },
		"agents real":          func(s *Spec) { *s = s.WithAgents(2, replay.TimeReal) },
		"no explain":           func(s *Spec) { s.Engine.Explain = false; s.Engine.Safety = true; s.Engine.K = 16; s.Engine.Buckets = 0 },
	}
	for name, mut := range specs {
		s := DefaultSpec("d")
		mut(&s)
		s.Engine.Weights = optimizer.Vec{optimizer.Cores: 0.7, optimizer.Memory: 1.3}
		got, want := s.Params(), paramsBefore(&s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: params %v, want %v", name, got, want)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			t.Errorf("%s: JSON %s, want %s", name, gj, wj)
		}
	}
}

// TestSetConstantsAreFlags: every Set* name but SetWeights is the flag of
// a row of the settings table, so Validate knows who honours it.
func TestSetConstantsAreFlags(t *testing.T) {
	for _, name := range []string{SetK, SetBuckets, SetCache, SetSafety, SetBuffers, SetEvict, SetTopPct, SetExplain, SetTime,
		SetSpeedup, SetHitRate, SetHitMS, SetMissMS, SetCommitMS, SetMaxRetries, SetWindow, SetN0, SetAvoid} {
		if _, ok := SettingOf(name); !ok {
			t.Errorf("--%s has no row in Settings", name)
		}
	}
	for _, st := range Settings() {
		if st.Flag != "" && !st.Honoured(optimizer.HonourBaselines) && !st.Honour.Has(optimizer.HonourAgentsOnly) && st.Why == "" {
			t.Errorf("--%s: a baseline cannot honour it, and its row does not say why", st.Flag)
		}
	}
	if _, ok := SettingOf(SetWeights); ok {
		t.Errorf("SetWeights is a flag")
	}
	s := DefaultSpec("d")
	s.Policy, s.Set[SetSafety] = "worstfit", true
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "--safety applies to Protean's rule engine; policy worstfit cannot honour it (it has no safety score)") {
		t.Errorf("safety with worstfit: %v", err)
	}
}

// TestRunTraceLeavesTheSpec: RunTrace runs with the trace-derived weights
// without writing them into the spec, and Run records the weights that
// ran (the trace's) in run.params.
func TestRunTraceLeavesTheSpec(t *testing.T) {
	ctx := context.Background()
	// an internal test: testkit imports this package, so the store is opened here
	db, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 40, 400, 0.5, 0
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTrace(ctx, db, "s", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	spec := DefaultSpec("s")
	spec.Engine.Explain = false
	spec.Engine.Safety = true
	before := spec.Engine
	if _, err := RunTrace(ctx, tr, &spec, RunOptions{NoWrite: true}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(spec.Engine, before) {
		t.Fatalf("RunTrace changed the spec's engine: %+v, was %+v", spec.Engine, before)
	}
	derived := replay.ScarcityWeights(tr)
	if eff := spec.engineFor(tr); eff.Weights != derived || len(eff.ArrivalRates) == 0 {
		t.Fatalf("effective engine: weights %v, %d arrival rates", eff.Weights, len(eff.ArrivalRates))
	}
	res, err := Run(ctx, db, spec, RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := db.SQL().QueryRowContext(ctx, "SELECT params FROM run WHERE run_id = $1", res.Summary.RunID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal([]byte(raw), &stored); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(derived)
	got, _ := json.Marshal(stored["weights"])
	if string(got) != string(want) {
		t.Fatalf("stored weights %s, want the trace's %s", got, want)
	}
	spec.Set[SetWeights] = true
	if eff := spec.engineFor(tr); eff.Weights != before.Weights {
		t.Fatalf("chosen weights replaced: %v", eff.Weights)
	}
}

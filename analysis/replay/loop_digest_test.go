package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"strings"
	"testing"

	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

// The digests below were recorded on the replay loops as they were before
// they became one (issue 53): the one-agent replay, the simulated-time
// agents and the real-time agents (one agent) must take the same
// decisions, byte for byte, and report the same figures. Wall-clock
// figures (latencies, seconds, throughput) are left out; so are, for real
// time, the times of the outcomes (the run's clock).
const (
	digestReplayAvail   = 0x3dfea046c04ea558
	digestReplayPlain   = 0x7622cd530cdb8656
	digestReplayBestFit = 0xe2ce38b209d6a35b
	digestReplayWindow  = 0x6946f5665b634df9
	digestSimAvail      = 0x18a9ac4b34e42f11
	digestSimOne        = 0x3e83095f4510f02f
	digestSimWindow     = 0xbf4ce02dd43cbc9a
	digestRealOne       = 0x231307bd74cc891b
)

// digestAvail is streamTrace's availability: drawn hard failures, rack
// failures and reboots, healing in the zone after a delay, and fault and
// update domains.
func digestAvail(tr *Trace, seed uint64) *Availability {
	model := outage.DefaultModel()
	model.MachineAFR, model.RackAFR, model.RebootShare = 300, 30, 0.4
	av := &Availability{HealDelay: model.HealSeconds(), HealZone: true, FaultDomains: 3, UpdateDomains: 5}
	for _, o := range outage.Generate(tr.Inv, model, 0, 45000, seed) {
		av.Outages = append(av.Outages, Outage{Outage: o, Source: SourceModel})
	}
	return av
}

type digester struct{ h hash.Hash64 }

func newDigester() *digester { return &digester{fnv.New64a()} }

func (d *digester) add(format string, args ...any) { fmt.Fprintf(d.h, format+"\n", args...) }

// digestResult hashes what a run decided and reported; real drops the run's
// clock (row times, eviction times, response times, queueing figures).
func digestResult(t *testing.T, res *Result, real bool) uint64 {
	t.Helper()
	d := newDigester()
	for _, p := range res.Placements {
		if real {
			d.add("row %d %d %s %s %d %d %v %d %d", p.VM, p.Machine, p.Outcome, p.Reason, p.Agent, p.Retries, p.Spread, p.FaultDomain, p.UpdateDomain)
			continue
		}
		d.add("row %d %v %d %s %s %v %v %d %d %v %d %d", p.VM, p.T, p.Machine, p.Outcome, p.Reason, p.EvictedAt, p.ResponseS, p.Agent, p.Retries, p.Spread, p.FaultDomain, p.UpdateDomain)
	}
	for _, m := range res.Metrics {
		if strings.HasPrefix(m.Metric, "latency_") {
			continue // wall clock
		}
		if real {
			break // sampled at the run's clock
		}
		d.add("metric %v %s %v", m.T, m.Metric, m.Value)
	}
	if !real {
		for _, o := range res.Outages {
			d.add("outage %+v", o)
		}
		for _, m := range res.Moves {
			d.add("move %d %d %v %d %d %v %s", m.VM, m.Seq, m.T, m.From, m.To, m.Placed, m.FailedRule)
		}
		for _, g := range res.Gangs {
			d.add("gang %+v", g)
		}
		s := res.Summary
		s.Seconds, s.LatencyP50US, s.LatencyP99US, s.PlacementsPerSec = 0, 0, 0, 0
		s.HealableSampleSeconds, s.HealableWaitSeconds, s.LoadSeconds, s.WriteSeconds = 0, 0, 0, 0
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		d.add("summary %s", b)
		for _, r := range res.RuleStats {
			d.add("rule %+v", r)
		}
	} else {
		s := res.Summary
		d.add("summary %d %d %d %d %d %v", s.Requests, s.Accepted, s.Rejected, s.Evicted, s.VMs, s.RejectedBy)
	}
	return d.h.Sum64()
}

func checkDigest(t *testing.T, name string, got, want uint64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: digest %#x, recorded %#x: the loop decides or reports differently than before", name, got, want)
	}
}

// TestLoopDigests pins every path of the loop: one agent (Protean with the
// cache on and background refresh, with and without availability; the cache
// off, which must decide alike; a baseline), simulated-time agents (three,
// with availability; one) and real-time agents (one agent on a trace where
// nothing departs, the only case whose decisions do not depend on the wall
// clock).
func TestLoopDigests(t *testing.T) {
	ctx := context.Background()
	tr := streamTrace(t)
	window := func(o *ReplayOptions) {}
	one := func(policy string, cache bool, av *Availability) *Result {
		cfg := optimizer.DefaultConfig()
		cfg.Evict, cfg.Cache, cfg.Seed = true, cache, 5
		cfg.Buffers.Healing = 1
		tr := tr.WithOwnHealth()
		alloc, err := NewAllocator(policy, tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultReplayOptions()
		o.Avail, o.Buffers, o.Refresh, o.Interval = av, cfg.Buffers, true, 1800
		window(&o)
		res, err := Replay(ctx, tr, alloc, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := alloc.State().CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	on := one("protean", true, digestAvail(tr, 3))
	if on.Summary.HealVMs == 0 || on.Summary.Evicted == 0 || on.Summary.Rejected == 0 || len(on.Gangs) == 0 {
		t.Fatalf("the trace tests too little: %d healed, %d evicted, %d rejected, %d gang rows", on.Summary.HealVMs, on.Summary.Evicted, on.Summary.Rejected, len(on.Gangs))
	}
	dOn := digestResult(t, on, false)
	checkDigest(t, "replay/avail", dOn, digestReplayAvail)
	off := one("protean", false, digestAvail(tr, 3))
	// The cache's statistics differ; the decisions do not.
	on.Summary.Caches, off.Summary.Caches, on.Summary.CacheHitRate, off.Summary.CacheHitRate = nil, nil, 0, 0
	on.Summary.BackgroundRefreshes, on.Summary.CellUpdatesBackground, on.Summary.CellUpdatesAtDecision, on.Summary.MachineChanges = 0, 0, 0, 0
	if a, b := digestResult(t, on, false), digestResult(t, off, false); a != b {
		t.Errorf("cache on and off: digests %#x and %#x", a, b)
	}
	checkDigest(t, "replay/plain", digestResult(t, one("protean", true, nil), false), digestReplayPlain)
	checkDigest(t, "replay/bestfit", digestResult(t, one("bestfit", true, digestAvail(tr, 4)), false), digestReplayBestFit)

	// A window that starts with VMs alive and ends before the trace does,
	// its last interval partial, at most 600 requests.
	window = func(o *ReplayOptions) { o.From, o.To, o.Interval, o.MaxRequests = 7000, 31000, 2500, 600 }
	checkDigest(t, "replay/window", digestResult(t, one("protean", true, digestAvail(tr, 5)), false), digestReplayWindow)
	window = func(o *ReplayOptions) {}

	agents := func(n int, model string, av *Availability, tr *Trace) *Result {
		cfg := optimizer.DefaultConfig()
		cfg.Evict, cfg.Seed, cfg.Explain = true, 9, false
		cfg.Buffers.Healing = 1
		o := DefaultAgentOptions()
		o.Agents, o.TimeModel, o.Avail, o.Buffers, o.Interval, o.Seed, o.Speedup = n, model, av, cfg.Buffers, 1800, 11, 500
		o.CheckEvery = true
		window(&o.ReplayOptions)
		res, err := ReplayAgents(ctx, tr.WithOwnHealth(), cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	sim := agents(3, TimeSim, digestAvail(tr, 3), tr)
	if sim.Summary.HealVMs == 0 || sim.Summary.Conflicts == 0 || sim.Summary.Evicted == 0 {
		t.Fatalf("simulated agents test too little: %d healed, %d conflicts, %d evicted", sim.Summary.HealVMs, sim.Summary.Conflicts, sim.Summary.Evicted)
	}
	checkDigest(t, "sim/3 agents/avail", digestResult(t, sim, false), digestSimAvail)
	checkDigest(t, "sim/1 agent", digestResult(t, agents(1, TimeSim, nil, tr), false), digestSimOne)
	window = func(o *ReplayOptions) { o.From, o.To, o.Interval, o.MaxRequests = 7000, 31000, 2500, 600 }
	checkDigest(t, "sim/window", digestResult(t, agents(2, TimeSim, digestAvail(tr, 5), tr), false), digestSimWindow)
	window = func(o *ReplayOptions) {}

	// Real time, one agent, nothing departs: each request is decided on the
	// state every earlier one left.
	still := &Trace{Dataset: tr.Dataset, Inv: tr.Inv, MachineIDs: tr.MachineIDs}
	for _, v := range tr.VMs[:400] {
		v.End = v.Start + 1e9
		still.VMs = append(still.VMs, v)
	}
	real := agents(1, TimeReal, nil, still)
	if real.Summary.Rejected == 0 || real.Summary.Evicted == 0 {
		t.Fatalf("real time tests too little: %+v", real.Summary)
	}
	checkDigest(t, "real/1 agent", digestResult(t, real, true), digestRealOne)
}

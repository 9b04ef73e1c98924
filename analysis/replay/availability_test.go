package replay

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

// availZone is one cluster of n machines of 4 cores and 16 GB, one rack per
// machine, and one VM type of 4 cores (a whole machine) and one of 1 core.
func availZone(t *testing.T, n int) *optimizer.Inventory {
	t.Helper()
	var ms []optimizer.MachineSpec
	for i := 0; i < n; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + string(rune('0'+i)), Cluster: "c", Rack: "r" + string(rune('0'+i)),
			UpdateDomain: int16(i), Healthy: true})
	}
	types := []optimizer.VMType{
		{Name: "big", Demand: []optimizer.Vec{{optimizer.Cores: 4, optimizer.Memory: 16}}, Supported: []bool{true}},
		{Name: "small", Demand: []optimizer.Vec{{optimizer.Cores: 1, optimizer.Memory: 4}}, Supported: []bool{true}},
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 4, optimizer.Memory: 16}}}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func machineIDs(n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	return ids
}

func hard(m int32, start, dur float64) Outage {
	return Outage{Outage: outage.Outage{Start: start, Duration: dur, Machine: m, Rack: -1, Kind: outage.Hard}, Source: SourceFile}
}

// replayAvail replays tr through policy under cfg and av, checking the
// allocator's invariants after the run.
func replayAvail(t *testing.T, tr *Trace, policy string, cfg optimizer.Config, av *Availability) *Result {
	t.Helper()
	tr = tr.WithOwnHealth()
	alloc, err := NewAllocator(policy, tr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultReplayOptions()
	o.Avail, o.Buffers = av, cfg.Buffers
	res, err := Replay(context.Background(), tr, alloc, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := alloc.State().CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHealNeedsTheBuffer: three whole-machine VMs of three tenants arrive on
// a cluster of three machines, then machine 0 fails hard. With a
// new-deployment buffer of 2 empty machines the third tenant is refused (one
// machine would be left empty, fewer than 2), so the failed machine's VM is
// healed onto the machine the buffer kept; without it the third tenant takes
// that machine and the heal fails. Worked out by hand: heal failure rate 0
// and 1, CFR 3/4 (3 of 4 VMs asked for placed: 2 arrivals and the heal)
// and 3/4 (3 arrivals, not the heal), downtime the heal delay against the
// rest of the run.
func TestHealNeedsTheBuffer(t *testing.T) {
	inv := availZone(t, 3)
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: machineIDs(3), VMs: []TraceVM{
		{ID: 1, Tenant: 1, Type: 0, Start: 0, End: math.Inf(1)},
		{ID: 2, Tenant: 2, Type: 0, Start: 1, End: math.Inf(1)},
		{ID: 3, Tenant: 3, Type: 0, Start: 2, End: math.Inf(1)},
		{ID: 4, Tenant: 4, Type: 1, Start: 3600, End: math.Inf(1)},
	}}
	av := &Availability{Outages: []Outage{hard(0, 10, 7200)}, HealDelay: 900}
	for _, tc := range []struct {
		name        string
		buffers     optimizer.Buffers
		healFailure float64
		cfr         float64
		downtimeH   float64
	}{
		{"new-deployment buffer kept: heal lands on the empty machine", optimizer.Buffers{NewDeployment: 2}, 0, 3.0 / 5, 0.25},
		{"no buffer: the third tenant took it, the heal fails", optimizer.Buffers{}, 1, 3.0 / 5, (3600 - 10) / 3600.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := optimizer.DefaultConfig()
			cfg.Buffers = tc.buffers
			res := replayAvail(t, tr, "protean", cfg, av)
			s := res.Summary
			if s.HealRequests != 1 || s.HealVMs != 1 || s.HealFailureRate != tc.healFailure {
				t.Fatalf("heal requests %d, VMs %d, failure rate %v; want 1, 1, %v", s.HealRequests, s.HealVMs, s.HealFailureRate, tc.healFailure)
			}
			if math.Abs(s.CFR-tc.cfr) > 1e-12 {
				t.Errorf("CFR %v, want %v", s.CFR, tc.cfr)
			}
			if math.Abs(s.VMDowntimeHours-tc.downtimeH) > 1e-9 {
				t.Errorf("downtime %v h, want %v", s.VMDowntimeHours, tc.downtimeH)
			}
			if len(res.Moves) != 1 || res.Moves[0].From != 0 || (tc.healFailure == 0) != (res.Moves[0].To >= 0) {
				t.Errorf("moves %+v", res.Moves)
			}
		})
	}
}

// TestDownMachineTakesNoPlacement: machine 0 is down (a reboot) from 5 s to
// 50 s; a VM arriving at 10 s that would go there (best fit: it is the only
// machine with room) must not, and the VMs of the rebooted machine stay.
func TestDownMachineTakesNoPlacement(t *testing.T) {
	inv := availZone(t, 2)
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: machineIDs(2), VMs: []TraceVM{
		{ID: 1, Tenant: 1, Type: 1, Start: 0, End: math.Inf(1)}, // on m0 or m1
		{ID: 2, Tenant: 2, Type: 1, Start: 10, End: math.Inf(1)},
		{ID: 3, Tenant: 3, Type: 1, Start: 60, End: math.Inf(1)},
	}}
	for _, policy := range Policies {
		t.Run(policy, func(t *testing.T) {
			// find where VM 1 goes, then take that machine down
			base := replayAvail(t, tr, policy, optimizer.DefaultConfig(), nil)
			m := base.Placements[0].Machine
			reboot := Outage{Outage: outage.Outage{Start: 5, Duration: 45, Machine: m, Rack: -1, Kind: outage.Reboot}, Source: SourceFile}
			res := replayAvail(t, tr, policy, optimizer.DefaultConfig(), &Availability{Outages: []Outage{reboot}})
			for _, p := range res.Placements {
				if p.Machine == m && p.T >= 5 && p.T < 50 {
					t.Fatalf("VM %d placed on machine %d at %v, during its outage [5, 50)", p.VM, m, p.T)
				}
			}
			if res.Placements[0].Machine != m || res.Summary.Reboots != 1 || len(res.Moves) != 0 {
				t.Fatalf("rebooted machine's VM moved: %+v, reboots %d, moves %v", res.Placements[0], res.Summary.Reboots, res.Moves)
			}
			// one VM down for the reboot's 45 s
			if math.Abs(res.Summary.VMDowntimeHours-45.0/3600) > 1e-12 {
				t.Fatalf("downtime %v h, want 45 s", res.Summary.VMDowntimeHours)
			}
			if !inv.Machines[m].Healthy {
				t.Fatal("the trace's inventory was left unhealthy")
			}
		})
	}
}

// TestFailuresReproduce: a replay with drawn failures and domains gives
// the same placements, moves and outages for the same seed, and other
// failures for another seed.
func TestFailuresReproduce(t *testing.T) {
	var ms []optimizer.MachineSpec
	for i := 0; i < 40; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + itoa(i), Cluster: "c" + itoa(i/20), Rack: "r" + itoa(i/4), UpdateDomain: int16(i % 5), Healthy: true})
	}
	types := []optimizer.VMType{
		{Name: "a", Demand: []optimizer.Vec{{optimizer.Cores: 2, optimizer.Memory: 8}}, Supported: []bool{true}},
		{Name: "b", Demand: []optimizer.Vec{{optimizer.Cores: 5, optimizer.Memory: 10}}, Supported: []bool{true}},
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 64}}}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: machineIDs(40)}
	for i := 0; i < 600; i++ {
		tr.VMs = append(tr.VMs, TraceVM{ID: int64(i), Tenant: int32(i / 6), Type: int32(i % 2), Start: float64(i / 6 * 600), End: float64(i/6*600 + 40000 + i*37%9000)})
	}
	model := outage.DefaultModel()
	model.MachineAFR, model.RackAFR, model.RebootShare = 200, 20, 0.5 // many failures in a short window
	run := func(seed uint64) *Result {
		av := &Availability{HealDelay: model.HealSeconds(), FaultDomains: 3, UpdateDomains: 5}
		for _, o := range outage.Generate(inv, model, 0, 60000, seed) {
			av.Outages = append(av.Outages, Outage{Outage: o, Source: SourceModel})
		}
		cfg := optimizer.DefaultConfig()
		cfg.Buffers.Healing = 1
		return replayAvail(t, tr, "protean", cfg, av)
	}
	a, b, c := run(7), run(7), run(8)
	if a.Summary.MachineFailures+a.Summary.RackFailures == 0 || a.Summary.HealVMs == 0 {
		t.Fatalf("no failure healed anything: %+v", a.Summary)
	}
	strip := func(r *Result) []PlacementRow {
		out := make([]PlacementRow, len(r.Placements))
		for i, p := range r.Placements {
			p.LatencyUS, p.Explain, p.ResponseS = 0, nil, 0 // wall clock; NaN ≠ NaN
			if math.IsNaN(p.EvictedAt) {
				p.EvictedAt = -1
			}
			out[i] = p
		}
		return out
	}
	if !reflect.DeepEqual(a.Outages, b.Outages) {
		t.Fatal("the same seed gave different outages")
	}
	if pa, pb := strip(a), strip(b); !reflect.DeepEqual(pa, pb) {
		for i := range pa {
			if !reflect.DeepEqual(pa[i], pb[i]) {
				t.Fatalf("the same seed gave different placements: %+v and %+v", pa[i], pb[i])
			}
		}
	}
	moves := func(r *Result) []MoveRow {
		out := slices.Clone(r.Moves)
		for i := range out {
			if math.IsNaN(out[i].Placed) {
				out[i].Placed = -1
			}
		}
		return out
	}
	if !reflect.DeepEqual(moves(a), moves(b)) {
		t.Fatalf("the same seed gave different moves: %v and %v", a.Moves, b.Moves)
	}
	if reflect.DeepEqual(a.Outages, c.Outages) {
		t.Fatal("another seed gave the same outages")
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestMaintenanceShareBoundedByUpdateDomains: a rollout takes one machine
// update domain at a time; with U = 5 update domains a tenant of 10 VMs has
// at most ⌈10/5⌉ = 2 VMs on any machine update domain, so at most 20% of
// it is down at once, while without update domains best fit packs it on
// few machines and a window takes down far more of it.
func TestMaintenanceShareBoundedByUpdateDomains(t *testing.T) {
	var ms []optimizer.MachineSpec
	for i := 0; i < 10; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + itoa(i), Cluster: "c", Rack: "r" + itoa(i/2), UpdateDomain: int16(i), Healthy: true})
	}
	types := []optimizer.VMType{{Name: "s", Demand: []optimizer.Vec{{optimizer.Cores: 1, optimizer.Memory: 2}}, Supported: []bool{true}}}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 64}}}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: machineIDs(10)}
	for i := 0; i < 10; i++ {
		tr.VMs = append(tr.VMs, TraceVM{ID: int64(i), Tenant: 3, Type: 0, Start: 0, End: math.Inf(1)})
	}
	tr.VMs = append(tr.VMs, TraceVM{ID: 10, Tenant: 4, Type: 0, Start: 3 * 86400, End: math.Inf(1)})
	windows, err := outage.Maintenance{Every: 86400, UDSeconds: 1800}.Windows(inv, 0, 3*86400)
	if err != nil {
		t.Fatal(err)
	}
	var av []Outage
	for _, o := range windows {
		av = append(av, Outage{Outage: o, Source: SourceMaintenance})
	}
	for _, tc := range []struct {
		u        int32
		min, max float64
	}{{5, 0.1, 0.2}, {0, 0.5, 1}} {
		res := replayAvail(t, tr, "protean", optimizer.DefaultConfig(), &Availability{Outages: av, UpdateDomains: tc.u})
		s := res.Summary
		if s.MaintenanceOutages != 2*10 {
			t.Fatalf("U=%d: %d maintenance outages, want 2 rounds × 10 machines", tc.u, s.MaintenanceOutages)
		}
		if s.MaintenanceMaxDownShare < tc.min || s.MaintenanceMaxDownShare > tc.max {
			t.Errorf("U=%d: largest share down at once %v, want in [%v, %v]", tc.u, s.MaintenanceMaxDownShare, tc.min, tc.max)
		}
		if tc.u > 0 && s.MaintenanceOverBound != 0 {
			t.Errorf("U=%d: %d tenant windows over ⌈n/U⌉", tc.u, s.MaintenanceOverBound)
		}
	}
}

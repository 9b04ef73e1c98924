package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// capOpts are the options of the tests: an LP that stops within 300 ms
// (its bound stays valid).
func capOpts(target float64, scale string) Options {
	return Options{MaxRejection: target, Scale: scale, LP: lpbound.Options{TimeLimit: 300 * time.Millisecond}}
}

// TestCapacityByHand: the hand zone (two 10-core machines; VMs of 4 and 2
// cores) worked out by hand. The peak is t = 4003 s, when VMs 0, 2, 3, 4
// and 5 (five c4, 20 cores) are alive; a 10-core machine holds two c4, so
// the LP packs 2.5 machines: its bounds are ⌈2.5⌉ = 3 machines and 25
// cores. With no rejection allowed the floor is the bound, 3 machines,
// above the zone's 2: the search starts there, 3 machines reject nothing,
// and the answer is 3 (4, the step above, too). With one rejection
// allowed (20% of 6 VMs) the floor is 3 − 1 = 2 machines, the zone's 2
// reject only VM 5 and meet it, and 1 machine is below the floor.
func TestCapacityByHand(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	spec := analysis.DefaultSpec("hand")
	spec.Engine.Explain = false

	rep, err := Run(ctx, db, spec, capOpts(0, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	if rep.PeakT != 4003 || rep.PeakVMs != 5 || rep.PeakCores != 20 {
		t.Errorf("peak t=%v, %d VMs, %v cores; want 4003, 5, 20", rep.PeakT, rep.PeakVMs, rep.PeakCores)
	}
	if rep.LPMachines != 3 || rep.LPCores != 25 || !rep.LPConverged {
		t.Errorf("LP bound %v machines, %v cores (converged %v %v); want 3, 25", rep.LPMachines, rep.LPCores, rep.LPConverged, rep.LPStop)
	}
	type pr struct {
		step     string
		machines int
		rejected int
		met      bool
	}
	var got []pr
	for _, p := range rep.Probes {
		got = append(got, pr{p.Step, p.Machines, p.Rejected, p.Met})
	}
	want := []pr{{StepGrow, 3, 0, true}, {StepCheck, 4, 0, true}}
	if !slices.Equal(got, want) {
		t.Errorf("probes %v, want %v", got, want)
	}
	if rep.Machines != 3 || rep.PerSKU["s10"] != 3 || rep.Cores != 30 || rep.BelowAnswer != BelowFloor || !rep.Monotone ||
		rep.AllowedRejections != 0 || rep.FloorMachines != 3 || rep.VMs != 6 {
		t.Errorf("answer %+v", rep)
	}
	// Five 4-core VMs at the peak, two per 10-core machine: the zone's
	// mix (its one SKU) cannot hold them on fewer than 3 machines.
	if rep.MixLPMachines != 3 {
		t.Errorf("LP bound on the mix %d, want 3", rep.MixLPMachines)
	}

	rep, err = Run(ctx, db, spec, capOpts(0.2, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Machines != 2 || rep.Rejected != 1 || rep.AllowedRejections != 1 || rep.FloorMachines != 2 || rep.BelowAnswer != BelowFloor || rep.MixLPMachines != 3 ||
		rep.Probes[0].Step != StepZone {
		t.Errorf("20%%: %d machines, %d rejected of %d allowed, floor %d, below %q", rep.Machines, rep.Rejected, rep.AllowedRejections,
			rep.FloorMachines, rep.BelowAnswer)
	}
	for _, p := range rep.Probes {
		if p.Machines < rep.FloorMachines {
			t.Errorf("probed %d machines, below the floor %d", p.Machines, rep.FloorMachines)
		}
	}
}

// TestCapacityCap: on a zone whose load keeps growing (a fifth of its VMs
// never leave), the search starts at the floor, far above the zone's 40
// machines, and rejects there; capped at 1× its start it ends with an
// error that says how far it went and what the last probe rejected.
func TestCapacityCap(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 3000, 1)
	spec := analysis.DefaultSpec("mixed")
	spec.Engine.Explain = false
	o := capOpts(0, ScaleMix)
	o.MaxGrowth = 1
	_, err := Run(ctx, db, spec, o)
	var n int
	if errors.Is(err, ErrCapacity) {
		fmt.Sscanf(err.Error(), "analysis: capacity: no inventory of up to %d machines", &n)
	}
	if want := fmt.Sprintf("no inventory of up to %d machines (1× the %d it started from) meets ≤ 0%% of VMs not served (rejected or evicted): %d machines leave ", n, n, n); n <= 40 ||
		!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "rejected by AreNodeResourcesValid") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("capped search: %v", err)
	}
}

// checkAnswer asserts what a capacity answer promises: the answer's probe
// met the target; one machine less (of the mix, or of any SKU) failed in a
// probe or lies below the floor — unless the report says the probes are
// not monotone; the answer is at or above the floor; every probe's met
// and rate follow from its counts.
func checkAnswer(t *testing.T, tr *replay.Trace, rep *Result) {
	t.Helper()
	byKey := map[string]Probe{}
	for _, p := range rep.Probes {
		byKey[countsKey(p.counts)] = p
		metAll := true
		for _, target := range rep.Targets {
			metAll = metAll && slices.Contains(p.MetTargets, target)
		}
		counted := p.Rejected + p.Evicted
		if rep.TargetCounts == CountRejected {
			counted = p.Rejected
		}
		if p.VMs != len(tr.VMs) || p.Met != metAll || slices.Contains(p.MetTargets, TargetRejection) != (counted <= rep.AllowedRejections) ||
			p.RejectionRate != float64(p.Rejected)/float64(p.VMs) || p.ShedVMs != p.Rejected+p.Evicted || p.ShedRate != float64(p.ShedVMs)/float64(p.VMs) {
			t.Errorf("probe %+v (allowed %d, trace %d VMs)", p, rep.AllowedRejections, len(tr.VMs))
		}
		if p.Machines < rep.FloorMachines {
			t.Errorf("probed %d machines below the floor %d", p.Machines, rep.FloorMachines)
		}
	}
	if want := int(math.Floor(rep.MaxRejection * float64(rep.VMs))); rep.AllowedRejections != want {
		t.Errorf("allowed %d, want ⌊%v × %d⌋ = %d", rep.AllowedRejections, rep.MaxRejection, rep.VMs, want)
	}
	var answer []int
	for _, p := range rep.Probes {
		if p.Machines == rep.Machines && mapsEqual(p.PerSKU, rep.PerSKU) {
			answer = p.counts
			if !p.Met || p.Rejected != rep.Rejected {
				t.Errorf("the answer's probe %+v", p)
			}
		}
	}
	if answer == nil {
		t.Fatalf("the answer %d %v was never probed", rep.Machines, rep.PerSKU)
	}
	if rep.Machines < rep.FloorMachines {
		t.Errorf("answer %d below the floor %d", rep.Machines, rep.FloorMachines)
	}
	for k := range answer {
		if answer[k] == 0 {
			continue
		}
		below := slices.Clone(answer)
		if rep.Scale == ScaleMix {
			if rep.Machines-1 < len(presentSKUs(tr)) {
				break // the mix has one machine of each SKU
			}
			below = (&capacitySearch{zone: zoneCounts(tr), present: presentSKUs(tr)}).mixCounts(rep.Machines - 1)
		} else {
			below[k]--
		}
		p, ok := byKey[countsKey(below)]
		switch {
		case ok && p.Met && rep.Monotone:
			t.Errorf("one machine less (%v) met the target, yet the report says monotone", below)
		case !ok && analysis.Sum(below) >= rep.FloorMachines && rep.Monotone:
			// (When the probes contradict monotonicity the answer is the
			// smallest no failed probe dominates, whose neighbours need
			// not have been probed.)
			t.Errorf("one machine less (%v) was neither probed nor below the floor %d", below, rep.FloorMachines)
		}
		if rep.Scale == ScaleMix {
			break
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func zoneCounts(tr *replay.Trace) []int {
	z := make([]int, len(tr.Inv.SKUs))
	for _, m := range tr.Inv.Machines {
		z[m.SKU]++
	}
	return z
}

func presentSKUs(tr *replay.Trace) []int {
	var p []int
	for k, n := range zoneCounts(tr) {
		if n > 0 {
			p = append(p, k)
		}
	}
	return p
}

// TestCapacitySynthetic runs both scales on a small synthetic zone (four
// SKUs, types some SKUs cannot host, low-priority VMs, VMs alive at the
// start and at the end). Protean with eviction at 0.5%: the answer meets
// the target and one machine less does not (or the report says the probes
// are not monotone). Without eviction and with no rejection allowed, every
// VM alive at the peak is on the answer's machines, so the LP bound on
// machines and on cores is at most the answer's; the per-SKU answer is at
// most the mix answer it starts from and was checked one SKU at a time.
func TestCapacitySynthetic(t *testing.T) {
	ctx := context.Background()
	tr := testkit.SynthTrace(t, 100, 2000, 1)
	spec := analysis.DefaultSpec("s")
	spec.Engine.Explain = false
	rep, err := RunTrace(ctx, tr, spec, capOpts(0.005, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, tr, rep)
	if rep.Machines >= rep.ZoneMachines || rep.Machines < 10 {
		t.Errorf("answer %d machines of the zone's %d: the test wants a zone with room to shrink", rep.Machines, rep.ZoneMachines)
	}
	t.Logf("mix 0.5%%: %d machines (zone %d), LB %v, floor %d, %d probes, %.1fs", rep.Machines, rep.ZoneMachines, rep.LPMachines,
		rep.FloorMachines, len(rep.Probes), rep.Seconds)

	spec.Engine.Evict = false
	spec.Set[analysis.SetEvict] = true
	rep, err = RunTrace(ctx, tr, spec, capOpts(0, ScalePerSKU))
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, tr, rep)
	if float64(rep.Machines) < rep.LPMachines || rep.Cores < rep.LPCores {
		t.Errorf("answer %d machines, %v cores with nothing rejected or evicted; the LP bound says at least %v machines, %v cores",
			rep.Machines, rep.Cores, rep.LPMachines, rep.LPCores)
	}
	if rep.Machines > rep.MixMachines {
		t.Errorf("per-SKU answer %d above the mix answer %d", rep.Machines, rep.MixMachines)
	}
	// Nothing shed: the mix answer holds the peak's VMs, so it is at or
	// above the mix's LP bound, which is at or above the any-mix bound.
	if rep.MixLPMachines == 0 || rep.MixMachines < rep.MixLPMachines || float64(rep.MixLPMachines) < rep.LPMachines {
		t.Errorf("mix answer %d, LP bound on the mix %d, on any mix %v", rep.MixMachines, rep.MixLPMachines, rep.LPMachines)
	}
	verified := 0
	for _, p := range rep.Probes {
		if p.Step == StepVerify {
			verified++
		}
	}
	if verified == 0 && rep.BelowAnswer != BelowFloor {
		t.Errorf("no verify probe")
	}
	t.Logf("per-sku 0%% no-evict: %d machines %v (mix %d), LB %v machines %v cores, %d probes, %.1fs, monotone %v %v",
		rep.Machines, rep.PerSKU, rep.MixMachines, rep.LPMachines, rep.LPCores, len(rep.Probes), rep.Seconds, rep.Monotone, rep.Notes)
}

// TestTracePeakAgainstBruteForce: on a trace with mixed request sizes,
// VMs alive before the start, censored and low-priority VMs, the sweep's
// peak is the one found by summing the cores alive at every arrival
// instant (ties: the earliest), and so are its VMs per type.
func TestTracePeakAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 600, 3)
	tr, err := analysis.LoadTrace(ctx, db, "mixed", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, win := range [][2]float64{{0, math.Inf(1)}, {3600, 5 * 3600}} {
		from, to := win[0], win[1]
		zone := zoneCounts(tr)
		pk := tracePeak(tr, zone, from, to)
		// The smallest cores of each type over the SKUs with machines.
		cores := func(ty int32) float64 {
			c := math.Inf(1)
			for k := range tr.Inv.SKUs {
				if zone[k] > 0 && tr.Inv.Types[ty].Supported[k] {
					c = math.Min(c, tr.Inv.Types[ty].Demand[k][optimizer.Cores])
				}
			}
			return c
		}
		bestT, best := 0.0, -1.0
		for _, v := range tr.VMs {
			t0 := math.Max(v.Start, from)
			if t0 >= to {
				continue
			}
			s := 0.0
			for _, u := range tr.VMs {
				if u0 := math.Max(u.Start, from); u0 <= t0 && u0 < to && u.End > t0 && !math.IsInf(cores(u.Type), 1) {
					s += cores(u.Type)
				}
			}
			if s > best+1e-9 || (math.Abs(s-best) <= 1e-9 && t0 < bestT) {
				bestT, best = t0, s
			}
		}
		counts := make([]int, len(tr.Inv.Types))
		n := 0
		for _, u := range tr.VMs {
			if u0 := math.Max(u.Start, from); u0 <= bestT && u0 < to && u.End > bestT && !math.IsInf(cores(u.Type), 1) {
				counts[u.Type]++
				n++
			}
		}
		if pk.t != bestT || math.Abs(pk.cores-best) > 1e-6 || pk.vms != n || !slices.Equal(pk.all, counts) {
			t.Errorf("window [%v, %v): sweep t=%v %v cores %d VMs %v; brute force t=%v %v cores %d VMs %v",
				from, to, pk.t, pk.cores, pk.vms, pk.all, bestT, best, n, counts)
		}
		if pk.lowPriority == 0 || pk.lowPriority+analysis.Sum(pk.high) != pk.vms {
			t.Errorf("window [%v, %v): %d low-priority + %d high-priority VMs at the peak of %d", from, to, pk.lowPriority, analysis.Sum(pk.high), pk.vms)
		}
	}
}

// TestMixCounts: the mix gives every SKU the zone has at least one
// machine, sums to the total asked, never lowers a SKU's count when the
// total grows (so a larger total is a larger inventory), stays within one
// machine of the zone's proportions, and is the zone itself at its size.
func TestMixCounts(t *testing.T) {
	for _, zone := range [][]int{{59, 277, 146, 17}, {0, 5, 1, 2}, {7}, {3, 0, 3}} {
		s := &capacitySearch{zone: zone}
		z := 0
		for k, n := range zone {
			if n > 0 {
				s.present = append(s.present, k)
			}
			z += n
		}
		if got := s.mixCounts(z); !slices.Equal(got, zone) {
			t.Errorf("zone %v at its size: %v", zone, got)
		}
		prev := s.mixCounts(1)
		for n := 1; n <= 3*z; n++ {
			c := s.mixCounts(n)
			if analysis.Sum(c) != max(n, len(s.present)) {
				t.Fatalf("zone %v, n=%d: %v sums to %d", zone, n, c, analysis.Sum(c))
			}
			for k := range c {
				switch {
				case zone[k] == 0 && c[k] != 0, zone[k] > 0 && c[k] < 1:
					t.Fatalf("zone %v, n=%d: %v", zone, n, c)
				case c[k] < prev[k]:
					t.Fatalf("zone %v: SKU %d has %d machines at n=%d, %d at n=%d", zone, k, prev[k], n-1, c[k], n)
				case n >= 2*len(zone) && math.Abs(float64(c[k])-float64(n*zone[k])/float64(z)) > 1+1e-9 && c[k] > 1:
					t.Fatalf("zone %v, n=%d: SKU %d has %d machines, its share is %.2f", zone, n, k, c[k], float64(n*zone[k])/float64(z))
				}
			}
			prev = c
		}
	}
}

// TestScaledInventory: an inventory of given counts has that many machines
// of each SKU, all in service; below the zone's count they are the SKU's
// first machines in zone order, in their own clusters and racks; past it,
// copies in copied clusters; names and machine ids are unique.
func TestScaledInventory(t *testing.T) {
	tr := testkit.SynthTrace(t, 120, 10, 1)
	zone := zoneCounts(tr)
	s := &capacitySearch{tr: tr, zone: zone, template: make([][]int, len(zone))}
	for m, mc := range tr.Inv.Machines {
		s.template[mc.SKU] = append(s.template[mc.SKU], m)
	}
	half, double := make([]int, len(zone)), make([]int, len(zone))
	for k, n := range zone {
		half[k], double[k] = n/2, 2*n+1
	}
	for _, counts := range [][]int{zone, half, double} {
		sc, err := s.scaled(counts)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, len(zone))
		names, ids := map[string]bool{}, map[int32]bool{}
		for i, m := range sc.Inv.Machines {
			got[m.SKU]++
			name := sc.Inv.Clusters[m.Cluster].Name + "/" + m.Name
			if names[name] || ids[sc.MachineIDs[i]] || !m.Healthy {
				t.Fatalf("counts %v: machine %s (id %d, healthy %v) repeated or out of service", counts, name, sc.MachineIDs[i], m.Healthy)
			}
			names[name], ids[sc.MachineIDs[i]] = true, true
		}
		if !slices.Equal(got, counts) || len(sc.MachineIDs) != len(sc.Inv.Machines) || len(sc.VMs) != len(tr.VMs) {
			t.Errorf("counts %v: got %v, %d ids for %d machines", counts, got, len(sc.MachineIDs), len(sc.Inv.Machines))
		}
		for k := range zone {
			own := min(counts[k], zone[k])
			var first []string
			copies := 0
			for _, m := range sc.Inv.Machines {
				if int(m.SKU) != k {
					continue
				}
				if c := sc.Inv.Clusters[m.Cluster].Name; strings.Contains(c, "~") {
					copies++
				} else {
					first = append(first, c+"/"+sc.Inv.Racks[m.Rack].Name+"/"+m.Name)
				}
			}
			var want []string
			for _, m := range s.template[k][:own] {
				mc := tr.Inv.Machines[m]
				want = append(want, tr.Inv.Clusters[mc.Cluster].Name+"/"+tr.Inv.Racks[mc.Rack].Name+"/"+mc.Name)
			}
			if !slices.Equal(first, want) || copies != counts[k]-own {
				t.Errorf("counts %v, SKU %d: own machines %v, want %v; %d copies", counts, k, first, want, copies)
			}
		}
	}
}

// TestCheckMonotone: a probe that met the target with no more machines of
// any SKU than one that failed is reported; probes that cannot be
// compared, or agree with monotonicity, are not.
func TestCheckMonotone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe [][]int // counts
		met   []bool
		want  bool // monotone
	}{
		{"larger failed", [][]int{{2, 2}, {3, 2}}, []bool{true, false}, false},
		{"equal-sized per SKU failed", [][]int{{2, 2}, {2, 3}}, []bool{true, false}, false},
		{"larger met", [][]int{{2, 2}, {3, 2}}, []bool{false, true}, true},
		{"incomparable", [][]int{{3, 1}, {1, 3}}, []bool{true, false}, true},
		{"all met", [][]int{{1, 1}, {3, 3}}, []bool{true, true}, true},
	} {
		rep := &Result{Monotone: true}
		for i, c := range tc.probe {
			rep.Probes = append(rep.Probes, Probe{Step: StepBisect, Machines: analysis.Sum(c), Met: tc.met[i], counts: c})
		}
		s := &capacitySearch{rep: rep}
		s.checkMonotone()
		if rep.Monotone != tc.want || (len(rep.Notes) > 0) == tc.want {
			t.Errorf("%s: monotone %v, notes %v", tc.name, rep.Monotone, rep.Notes)
		}
	}
}

// unplaceableZone is one 10-core machine and VMs of a 4-core type and of a
// 16-core type that no SKU can host.
func unplaceableZone(t *testing.T, db *store.DB) {
	t.Helper()
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "u", Format: "test", Source: "u"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		if err := w.Append("machine", int32(0), "A", "z", "dc", "c1", "r1", int16(0), "s10", "healthy"); err != nil {
			return err
		}
		for _, ty := range [][]any{{"c4", 4.0, 8.0}, {"c16", 16.0, 32.0}} {
			if err := w.Append("vm_type", ty[0], nil, ty[1], ty[2], nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for i, typ := range []string{"c4", "c16", "c4"} {
			if err := w.Append("vm", int64(i), "v", fmt.Sprint("t", i), nil, typ, int16(0), float64(10*i), 1000.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCapacityRefuses: out-of-range targets and scales, settings the
// policy cannot honour, agents, an unknown dataset and a target that VMs
// no SKU can host make impossible are one-line errors, before any replay.
func TestCapacityRefuses(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	unplaceableZone(t, db)
	base := analysis.DefaultSpec("u")
	bestfitK := analysis.DefaultSpec("u")
	bestfitK.Policy, bestfitK.Set[analysis.SetK] = "bestfit", true
	agents := analysis.DefaultSpec("u").WithAgents(2, replay.TimeSim)
	oversub := analysis.DefaultSpec("u")
	oversub.Engine.Oversub = &optimizer.OversubConfig{MaxOversub: 1.25, MaxUtil: 1}
	failing := analysis.DefaultSpec("u")
	failing.Failures = "default"
	heal := func(spec analysis.Spec, h float64, survive string) Options {
		o := capOpts(0.01, ScaleMix)
		o.MaxHealFailure, o.Survive = &h, survive
		return o
	}
	for _, tc := range []struct {
		name string
		spec analysis.Spec
		o    Options
		want string
	}{
		{"NaN target", base, capOpts(math.NaN(), ScaleMix), "max rejection = NaN, want a share in [0, 1)"},
		{"negative target", base, capOpts(-0.01, ScaleMix), "max rejection = -0.01"},
		{"target 100%", base, capOpts(1, ScaleMix), "max rejection = 1,"},
		{"scale", base, capOpts(0.01, "linear"), `scale "linear": want mix or per-sku`},
		{"growth", base, Options{MaxRejection: 0, Scale: ScaleMix, MaxGrowth: -1}, "max growth = -1"},
		{"k with bestfit", bestfitK, capOpts(0.01, ScaleMix), "--k applies to Protean's rule engine; policy bestfit cannot honour it"},
		{"agents", agents, capOpts(0.01, ScaleMix), "--agents is not supported"},
		{"oversubscription", oversub, capOpts(0.01, ScaleMix), "CPU oversubscription is not supported"},
		{"unknown dataset", analysis.DefaultSpec("nope"), capOpts(0.01, ScaleMix), `no such dataset: "nope"`},
		{"NaN heal target", failing, heal(failing, math.NaN(), ""), "max heal failure = NaN, want a share in [0, 1)"},
		{"negative heal target", failing, heal(failing, -0.01, ""), "max heal failure = -0.01, want a share in [0, 1)"},
		{"heal target 100%", failing, heal(failing, 1, ""), "max heal failure = 1, want a share in [0, 1)"},
		{"nothing to heal", base, heal(base, 0.01, ""), "--max-heal-failure with --failures none and no --failure-file: there is nothing to heal"},
		{"survive zone", base, func() Options { o := capOpts(0.01, ScaleMix); o.Survive = "zone"; return o }(), `survive "zone": want none or rack`},
		{"unplaceable", base, capOpts(0.2, ScaleMix), "1 of 3 VMs (33.3%) have types no SKU of the zone can host; no inventory of these SKUs rejects at most 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probes := 0
			tc.o.OnProbe = func(string, int) { probes++ }
			_, err := Run(ctx, db, tc.spec, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || probes > 0 {
				t.Errorf("err = %v after %d probes, want one line containing %q", err, probes, tc.want)
			}
		})
	}
	// One unplaceable VM in three: 34% allows it, and the two 4-core VMs
	// fit on the one machine.
	rep, err := Run(ctx, db, base, capOpts(0.34, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unplaceable != 1 || rep.Machines != 1 || rep.Rejected != 1 || rep.BelowAnswer != BelowFloor {
		t.Errorf("34%%: %d unplaceable, %d machines, %d rejected, below %q", rep.Unplaceable, rep.Machines, rep.Rejected, rep.BelowAnswer)
	}
}

// TestCapacityMetTargets: a probe table where the rejection target alone
// accepts 10 machines but the heal target (1% of the VMs to heal) needs 12:
// at 10 machines 3 of 200 VMs fail to heal (⌊1% × 200⌋ = 2 allowed), at 11
// the rejections fail, and a probe with nothing to heal meets the heal
// target vacuously. Targets not in force are judged all the same (the
// table shows them) but do not decide Met; survive_rack needs a sample.
func TestCapacityMetTargets(t *testing.T) {
	one := 0.01
	type row struct {
		machines, rejected, healVMs, healFailed int
		rackPct                                 float64
		sampled                                 bool
	}
	table := []row{
		{9, 5, 200, 9, 50, true},
		{10, 2, 200, 3, 80, true},
		{11, 4, 190, 1, 100, true},
		{12, 1, 210, 2, 100, true},
		{13, 0, 0, 0, 100, false},
	}
	for _, tc := range []struct {
		name    string
		targets capTargets
		want    [][]string // per row: the targets met
		first   int        // the fewest machines meeting all
	}{
		{"rejection alone", capTargets{allowed: 2}, [][]string{{}, {TargetRejection}, {TargetSurviveRack},
			{TargetRejection, TargetSurviveRack}, {TargetRejection}}, 10},
		{"heal 1%", capTargets{allowed: 2, maxHeal: &one}, [][]string{{}, {TargetRejection}, {TargetHealFailure, TargetSurviveRack},
			{TargetRejection, TargetHealFailure, TargetSurviveRack}, {TargetRejection, TargetHealFailure}}, 12},
		{"heal 1% and rack", capTargets{allowed: 2, maxHeal: &one, survive: SurviveRack}, [][]string{{}, {TargetRejection},
			{TargetHealFailure, TargetSurviveRack}, {TargetRejection, TargetHealFailure, TargetSurviveRack}, {TargetRejection, TargetHealFailure}}, 12},
	} {
		first := -1
		for i, r := range table {
			p := Probe{Machines: r.machines, Rejected: r.rejected, ShedVMs: r.rejected, ProbeAvailability: ProbeAvailability{HealVMs: r.healVMs,
				HealFailed: r.healFailed, HealableRackPct: r.rackPct, Sampled: r.sampled}}
			met, all := metTargets(&p, tc.targets)
			if !slices.Equal(met, tc.want[i]) {
				t.Errorf("%s, %d machines: met %v, want %v", tc.name, r.machines, met, tc.want[i])
			}
			inForce := []string{TargetRejection}
			if tc.targets.maxHeal != nil {
				inForce = append(inForce, TargetHealFailure)
			}
			if tc.targets.survive == SurviveRack {
				inForce = append(inForce, TargetSurviveRack)
			}
			wantAll := true
			for _, target := range inForce {
				wantAll = wantAll && slices.Contains(tc.want[i], target)
			}
			if all != wantAll {
				t.Errorf("%s, %d machines: met all %v, want %v", tc.name, r.machines, all, wantAll)
			}
			if all && first < 0 {
				first = r.machines
			}
		}
		if first != tc.first {
			t.Errorf("%s: the fewest machines meeting every target %d, want %d", tc.name, first, tc.first)
		}
	}
}

// stressedFailures is a failure model harsh enough that a one-day trace on
// a few hundred machines has VMs to heal and, on a tight inventory, heal
// failures: 40 machine failures per machine-year, all hard, and 5 rack
// failures per rack-year.
const stressedFailures = "machine-afr=40,reboot-share=0,rack-afr=5"

// TestCapacityHealTarget: on a 600-machine synthetic zone under
// stressedFailures the rejection target (0.5%) alone accepts N machines
// whose replay fails to heal some VMs; with a heal target of 0% the search
// needs more than N, its answer healed every VM it had to (and had some),
// and its probe of N's inventory, when it made one, met the rejection
// target but not the heal target. Each probe's heal figures agree with its
// summary's share.
func TestCapacityHealTarget(t *testing.T) {
	ctx := context.Background()
	tr := testkit.SynthTrace(t, 600, 12000, 1)
	spec := analysis.DefaultSpec("s")
	spec.Engine.Explain = false
	spec.Failures = stressedFailures
	plain, err := RunTrace(ctx, tr, spec, capOpts(0.005, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, tr, plain)
	if plain.HealFailed == 0 {
		t.Fatalf("setup: the rejection answer (%d machines) healed all %d VMs; the test wants heal failures there", plain.Machines, plain.HealVMs)
	}
	zero := 0.0
	o := capOpts(0.005, ScaleMix)
	o.MaxHealFailure = &zero
	rep, err := RunTrace(ctx, tr, spec, o)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, tr, rep)
	if !slices.Equal(rep.Targets, []string{TargetRejection, TargetHealFailure}) || rep.MaxHealFailure == nil || *rep.MaxHealFailure != 0 {
		t.Errorf("targets %v, max heal failure %v", rep.Targets, rep.MaxHealFailure)
	}
	if rep.Machines <= plain.Machines || rep.HealFailed != 0 || rep.HealVMs == 0 {
		t.Errorf("heal target: %d machines (%d of %d VMs not healed); the rejection target alone: %d machines (%d of %d not healed)",
			rep.Machines, rep.HealFailed, rep.HealVMs, plain.Machines, plain.HealFailed, plain.HealVMs)
	}
	answer := plain.Probes[slices.IndexFunc(plain.Probes, func(p Probe) bool { return p.Machines == plain.Machines })]
	for _, p := range rep.Probes {
		if p.HealVMs > 0 && math.Abs(p.HealFailureRate*float64(p.HealVMs)-float64(p.HealFailed)) > 1e-6 {
			t.Errorf("probe %d machines: %d failed of %d, rate %v", p.Machines, p.HealFailed, p.HealVMs, p.HealFailureRate)
		}
		if countsKey(p.counts) == countsKey(answer.counts) &&
			(p.Met || !slices.Contains(p.MetTargets, TargetRejection) || slices.Contains(p.MetTargets, TargetHealFailure)) {
			t.Errorf("the heal search's probe of the rejection answer: met %v %v", p.Met, p.MetTargets)
		}
	}
	t.Logf("rejection 0.5%%: %d machines, %d of %d VMs not healed; + heal 0%%: %d machines, %d probes, monotone %v %v",
		plain.Machines, plain.HealFailed, plain.HealVMs, rep.Machines, len(rep.Probes), rep.Monotone, rep.Notes)
}

// TestCapacitySurviveRack: on a 300-machine synthetic zone, --survive rack
// needs at least as many machines as the rejection target alone; the
// answer's peak sample has every rack failure healable (100%), and the mix
// one machine smaller, when probed, did not meet the targets — and if it
// met the rejection target, its peak sample had a rack it could not heal.
func TestCapacitySurviveRack(t *testing.T) {
	ctx := context.Background()
	tr := testkit.SynthTrace(t, 300, 6000, 1)
	spec := analysis.DefaultSpec("s")
	spec.Engine.Explain = false
	plain, err := RunTrace(ctx, tr, spec, capOpts(0.005, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	o := capOpts(0.005, ScaleMix)
	o.Survive = SurviveRack
	rep, err := RunTrace(ctx, tr, spec, o)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, tr, rep)
	if rep.Machines < plain.Machines || rep.HealableRackPct != 100 || rep.PeakSampleT <= 0 {
		t.Errorf("survive rack: %d machines, %v%% of racks healable at t=%v; the rejection target alone: %d machines",
			rep.Machines, rep.HealableRackPct, rep.PeakSampleT, plain.Machines)
	}
	below := (&capacitySearch{zone: zoneCounts(tr), present: presentSKUs(tr)}).mixCounts(rep.Machines - 1)
	probed := false
	for _, p := range rep.Probes {
		if countsKey(p.counts) != countsKey(below) {
			continue
		}
		probed = true
		if p.Met || slices.Contains(p.MetTargets, TargetRejection) && p.HealableRackPct >= 100 {
			t.Errorf("one machine less (%d): met %v %v, %v%% of racks healable", p.Machines, p.Met, p.MetTargets, p.HealableRackPct)
		}
	}
	t.Logf("rejection 0.5%%: %d machines (%v%% racks healable at its peak); + survive rack: %d machines, one less probed %v, %d probes, monotone %v %v",
		plain.Machines, plain.HealableRackPct, rep.Machines, probed, len(rep.Probes), rep.Monotone, rep.Notes)
}

// TestCapacityProbeRows: a failure file names the zone's machines and
// racks; a probe keeps the rows of the machines it has and of the racks
// with one of them, rack rows qualified by cluster, so that copies (which
// repeat the zone's rack names) do not make them ambiguous.
func TestCapacityProbeRows(t *testing.T) {
	tr := testkit.SynthTrace(t, 120, 10, 1)
	zone := zoneCounts(tr)
	s := &capacitySearch{tr: tr, zone: zone, template: make([][]int, len(zone))}
	for m, mc := range tr.Inv.Machines {
		s.template[mc.SKU] = append(s.template[mc.SKU], m)
	}
	inv := tr.Inv
	k := 0 // the SKU with the most machines: its cluster has more than one rack
	for i := range zone {
		if zone[i] > zone[k] {
			k = i
		}
	}
	first, last := inv.Machines[s.template[k][0]], inv.Machines[s.template[k][zone[k]-1]]
	lastRack := inv.Racks[last.Rack]
	if first.Rack == last.Rack {
		t.Fatalf("setup: SKU %d's first and last machines share rack %s", k, lastRack.Name)
	}
	s.spec.FailureRows = []outage.FileRow{
		{Row: 2, T: 10, Duration: 60, Machine: first.Name, Kind: "hard"},
		{Row: 3, T: 20, Duration: 60, Machine: last.Name, Kind: "hard"},
		{Row: 4, T: 300, Duration: 60, Rack: lastRack.Name, Kind: "hard"},
	}
	qualified := inv.Clusters[lastRack.Cluster].Name + "/" + lastRack.Name
	one := make([]int, len(zone))
	one[k] = 1
	double := slices.Clone(zone)
	for i := range double {
		double[i] *= 2
	}
	for _, tc := range []struct {
		counts []int
		rows   []int
	}{{one, []int{2}}, {zone, []int{2, 3, 4}}, {double, []int{2, 3, 4}}} {
		rows := s.probeRows(tc.counts)
		var got []int
		for _, r := range rows {
			got = append(got, r.Row)
			if r.Rack != "" && r.Rack != qualified {
				t.Errorf("counts %v: rack row names %q, want %q", tc.counts, r.Rack, qualified)
			}
		}
		if !slices.Equal(got, tc.rows) {
			t.Errorf("counts %v: rows %v, want %v", tc.counts, got, tc.rows)
		}
		sc, err := s.scaled(tc.counts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := outage.FromRows(sc.Inv, "f.csv", rows); err != nil {
			t.Errorf("counts %v: the probe's rows do not resolve on its inventory: %v", tc.counts, err)
		}
	}
}

// evictZone is one 10-core machine and four 4-core VMs that stay to the
// end: two low-priority ones first (t = 0, 1), then two high-priority
// ones (t = 2, 3). On the one machine the high-priority VMs each evict a
// low-priority one: nothing is rejected and two VMs are never served.
func evictZone(t *testing.T, db *store.DB) {
	t.Helper()
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "ev", Format: "test", Source: "ev"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		if err := w.Append("machine", int32(0), "A", "z", "dc", "c1", "r1", int16(0), "s10", "healthy"); err != nil {
			return err
		}
		if err := w.Append("vm_type", "c4", nil, 4.0, 8.0, nil, nil, nil, nil); err != nil {
			return err
		}
		for i, prio := range []int16{1, 1, 0, 0} {
			if err := w.Append("vm", int64(i), fmt.Sprint("vm", i), fmt.Sprint("t", i), nil, "c4", prio, float64(i), 9000.0, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCapacityCountsEvictions reproduces issue 52's contradiction: with
// only rejections counted, one machine "meets" a 0% target by evicting
// half the VMs, below the LP bound of 2 machines for the four VMs alive at
// the peak. Counting every VM not served (the default), the answer is 2
// machines, which serve all four, and is no smaller than the bound; the
// report says what it counted.
func TestCapacityCountsEvictions(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	evictZone(t, db)
	spec := analysis.DefaultSpec("ev")
	spec.Engine.Explain = false
	spec.Engine.Evict = true

	o := capOpts(0, ScaleMix)
	o.TargetCounts = CountRejected
	rep, err := Run(ctx, db, spec, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Machines != 1 || rep.Rejected != 0 || rep.Evicted != 2 || rep.ShedVMs != 2 || rep.ShedRate != 0.5 || rep.TargetCounts != CountRejected {
		t.Errorf("rejections only: %d machines, %d rejected, %d evicted, shed %d (%v), counts %q; want 1, 0, 2, 2 (0.5)",
			rep.Machines, rep.Rejected, rep.Evicted, rep.ShedVMs, rep.ShedRate, rep.TargetCounts)
	}
	if rep.LPMachines != 2 {
		t.Errorf("LP bound %v, want 2", rep.LPMachines)
	}

	rep, err = Run(ctx, db, spec, capOpts(0, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	if rep.TargetCounts != CountShed || rep.Machines != 2 || rep.ShedVMs != 0 || rep.Evicted != 0 || rep.FloorMachines != 2 {
		t.Errorf("shed counted: counts %q, %d machines, shed %d, evicted %d, floor %d; want shed, 2, 0, 0, 2",
			rep.TargetCounts, rep.Machines, rep.ShedVMs, rep.Evicted, rep.FloorMachines)
	}
	if float64(rep.Machines) < rep.LPMachines {
		t.Errorf("answer %d machines below the LP bound %v", rep.Machines, rep.LPMachines)
	}
	for _, p := range rep.Probes {
		if p.ShedVMs != p.Rejected+p.Evicted || p.ShedRate != float64(p.ShedVMs)/float64(p.VMs) {
			t.Errorf("probe %+v: shed_vms is not rejected + evicted", p)
		}
		if p.Met != (p.ShedVMs == 0) {
			t.Errorf("probe of %d machines: met %v with %d shed and none allowed", p.Machines, p.Met, p.ShedVMs)
		}
	}
	// One VM of 4 allowed: the floor (2 − 1) lets the search probe the
	// zone's one machine, which rejects none but evicts two. Counted as
	// shed that fails the target; the answer is 2 machines.
	rep, err = Run(ctx, db, spec, capOpts(0.25, ScaleMix))
	if err != nil {
		t.Fatal(err)
	}
	one := rep.Probes[slices.IndexFunc(rep.Probes, func(p Probe) bool { return p.Machines == 1 })]
	if rep.Machines != 2 || rep.FloorMachines != 1 || one.Met || one.ShedVMs != 2 || one.Rejected != 0 {
		t.Errorf("one VM allowed: %d machines (floor %d); the 1-machine probe met %v with %d shed, %d rejected; want 2 machines, not met, 2 shed, 0 rejected",
			rep.Machines, rep.FloorMachines, one.Met, one.ShedVMs, one.Rejected)
	}
	if o := (Options{MaxRejection: 0, Scale: ScaleMix, TargetCounts: "evicted"}); o.Validate() == nil {
		t.Error("target counts \"evicted\" accepted")
	}
}

// TestCapacityHeadlineNonMonotone: on probes whose outcome is not monotone
// in the machines (met from 3, except at 4), bisection from a zone of 5
// finds 3, and the check one above it, 4, fails. The answer is then the
// smallest total from which every larger probe met the target, 5 (6 is
// probed as its check), and a note says so; bisection_machines keeps 3.
func TestCapacityHeadlineNonMonotone(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	testkit.MixedZone(t, db, "mixed", 200, 1)
	tr, err := analysis.LoadTrace(ctx, db, "mixed", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	zone := make([]int, len(tr.Inv.SKUs))
	var present []int
	for _, m := range tr.Inv.Machines {
		zone[m.SKU]++
	}
	for k, n := range zone {
		if n > 0 {
			present = append(present, k)
		}
	}
	met := func(n int) bool { return n >= 3 && n != 4 }
	var probed []int
	s := &capacitySearch{ctx: ctx, tr: tr, spec: analysis.DefaultSpec("mixed"), o: Options{Survive: SurviveNone, Scale: ScaleMix},
		seen: map[string]int{}, zone: zone, present: present, floor: 1,
		rep: &Result{VMs: 10, ZoneMachines: 5, Monotone: true},
		runTrace: func(_ context.Context, tr *replay.Trace, _ *analysis.Spec, _ analysis.RunOptions) (*replay.Result, error) {
			n := len(tr.Inv.Machines)
			probed = append(probed, n)
			res := &replay.Result{}
			res.Summary.VMs = 10
			if !met(n) {
				res.Summary.Rejected = 1
			}
			return res, nil
		}}
	s.template = make([][]int, len(zone))
	for m, mc := range tr.Inv.Machines {
		s.template[mc.SKU] = append(s.template[mc.SKU], m)
	}
	if len(present) > 3 {
		t.Skipf("zone has %d SKUs; the test needs at most 3", len(present))
	}
	got, err := s.mixSearch()
	if err != nil {
		t.Fatal(err)
	}
	if got != 5 || s.rep.BisectionMachines != 3 || s.rep.Monotone {
		t.Errorf("answer %d, bisection %d, monotone %v (probed %v); want 5, 3, false", got, s.rep.BisectionMachines, s.rep.Monotone, probed)
	}
	for _, n := range probed {
		if n > got && !met(n) {
			t.Errorf("probe of %d machines above the answer %d failed", n, got)
		}
	}
	if !slices.Contains(probed, got+1) {
		t.Errorf("the answer's check, %d machines, was not probed (%v)", got+1, probed)
	}
	if len(s.rep.Notes) == 0 || !strings.Contains(s.rep.Notes[len(s.rep.Notes)-1], "every larger probe") {
		t.Errorf("notes %q", s.rep.Notes)
	}
}

// TestScaledKeepsNodeSets: the inventories a capacity search probes keep
// the pods' node sets (selectors, affinity, tolerations). At the zone's own
// counts a replay rejects exactly what a replay on the zone rejects (every
// pod was refused by HasAllowedNode before), and at twice them each copy
// is in the sets its original is in.
func TestScaledKeepsNodeSets(t *testing.T) {
	ctx := context.Background()
	_, db, _ := testkit.GeneratedCluster(t, testkit.JudgeClusters[0])
	tr, err := analysis.LoadTrace(ctx, db, "c", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Inv.NodeSets) == 0 {
		t.Fatal("the cluster has no node sets: nothing tested")
	}
	s := &capacitySearch{tr: tr, zone: zoneCounts(tr), template: make([][]int, len(tr.Inv.SKUs))}
	for m, mc := range tr.Inv.Machines {
		s.template[mc.SKU] = append(s.template[mc.SKU], m)
	}
	same, err := s.scaled(s.zone)
	if err != nil {
		t.Fatal(err)
	}
	spec := analysis.DefaultSpec("c")
	spec.Engine.Explain = false
	a, err := analysis.RunTrace(ctx, tr, &spec, analysis.RunOptions{NoWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	spec2 := analysis.DefaultSpec("c")
	spec2.Engine.Explain = false
	b, err := analysis.RunTrace(ctx, same, &spec2, analysis.RunOptions{NoWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Summary.Rejected != b.Summary.Rejected || a.Summary.RejectedBy[optimizer.RuleHasAllowedNode] != b.Summary.RejectedBy[optimizer.RuleHasAllowedNode] {
		t.Errorf("zone: %d rejected (%v); its scaled copy: %d (%v)", a.Summary.Rejected, a.Summary.RejectedBy, b.Summary.Rejected, b.Summary.RejectedBy)
	}
	double := make([]int, len(s.zone))
	for k, n := range s.zone {
		double[k] = 2 * n
	}
	big, err := s.scaled(double)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int32{}
	for m, mc := range tr.Inv.Machines {
		byName[mc.Name] = int32(m)
	}
	for j, mc := range big.Inv.Machines {
		orig, _, _ := strings.Cut(mc.Name, "~")
		m := byName[orig]
		for k := range tr.Inv.NodeSets {
			if big.Inv.InSet(int32(k+1), int32(j)) != tr.Inv.InSet(int32(k+1), m) {
				t.Fatalf("machine %s: in set %d %v, its original %s %v", mc.Name, k, big.Inv.InSet(int32(k+1), int32(j)), orig, tr.Inv.InSet(int32(k+1), m))
			}
		}
	}
}

package outage

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"placelab/optimizer"
)

// zone describes a test zone: clusters × racks × perRack machines named
// c<i>-r<j>-m<k> in cluster c<i> and rack r<j> (so bare rack names repeat
// across clusters), machine k of a rack in update domain k % uds, and every
// unhealthy-th machine (1-based, 0: none) not Healthy.
type zone struct {
	clusters, racks, perRack, uds, unhealthy int
}

func buildZone(t testing.TB, z zone) *optimizer.Inventory {
	t.Helper()
	sku := optimizer.SKU{Name: "g5", Generation: 5, Capacity: optimizer.Vec{optimizer.Cores: 40, optimizer.Memory: 512}}
	var ms []optimizer.MachineSpec
	for c := 0; c < z.clusters; c++ {
		for r := 0; r < z.racks; r++ {
			for k := 0; k < z.perRack; k++ {
				n := len(ms) + 1
				ms = append(ms, optimizer.MachineSpec{Name: fmt.Sprintf("c%d-r%d-m%d", c, r, k), Cluster: fmt.Sprintf("c%d", c),
					Rack: fmt.Sprintf("r%d", r), UpdateDomain: int16(k % max(z.uds, 1)),
					Healthy: z.unhealthy == 0 || n%z.unhealthy != 0})
			}
		}
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{sku}, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func mustModel(t testing.TB, spec string) Model {
	t.Helper()
	m, on, err := ParseModel(spec)
	if err != nil || !on {
		t.Fatalf("ParseModel(%q) = on %v, %v", spec, on, err)
	}
	return m
}

// checkNoOverlap fails if a machine has two overlapping outages, an outage
// is not sorted by (Start, Machine), or an unhealthy machine fails.
func checkNoOverlap(t *testing.T, inv *optimizer.Inventory, out []Outage) {
	t.Helper()
	up := map[int32]float64{}
	for i, o := range out {
		if i > 0 && (out[i-1].Start > o.Start || out[i-1].Start == o.Start && out[i-1].Machine >= o.Machine) {
			t.Fatalf("outages %d and %d out of (Start, Machine) order: %+v, %+v", i-1, i, out[i-1], o)
		}
		if !(o.Duration > 0) {
			t.Fatalf("outage %+v: duration not > 0", o)
		}
		if !inv.Machines[o.Machine].Healthy {
			t.Fatalf("outage %+v of an unhealthy machine", o)
		}
		if e, ok := up[o.Machine]; ok && o.Start < e {
			t.Fatalf("machine %d: outage %+v starts before the previous one ends at %g", o.Machine, o, e)
		}
		up[o.Machine] = o.End()
	}
}

func TestGenerateSeeded(t *testing.T) {
	inv := buildZone(t, zone{clusters: 2, racks: 10, perRack: 20, unhealthy: 7})
	for _, tc := range []struct{ name, spec string }{
		{"default", "default"},
		{"machines only", "rack-afr=0"},
		{"racks only", "machine-afr=0,rack-afr=5"},
		{"exponential", "repair=exponential,machine-afr=3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustModel(t, tc.spec)
			a := Generate(inv, m, 0, 2*YearSeconds, 42)
			b := Generate(inv, m, 0, 2*YearSeconds, 42)
			c := Generate(inv, m, 0, 2*YearSeconds, 43)
			if len(a) < 10 {
				t.Fatalf("only %d outages: the case does no work", len(a))
			}
			if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
				t.Fatal("same seed, different outages")
			}
			if reflect.DeepEqual(a, c) {
				t.Fatal("seeds 42 and 43 gave the same outages")
			}
		})
	}
}

// TestGenerateStreamsIndependent: turning rack failures on does not
// reshuffle machine failures; it only drops those that overlap a rack
// outage.
func TestGenerateStreamsIndependent(t *testing.T) {
	inv := buildZone(t, zone{clusters: 2, racks: 10, perRack: 20})
	alone := Generate(inv, mustModel(t, "rack-afr=0,machine-afr=2"), 0, YearSeconds, 7)
	both := Generate(inv, mustModel(t, "rack-afr=10,machine-afr=2"), 0, YearSeconds, 7)
	var rackOut, machineOut []Outage
	for _, o := range both {
		if o.Rack >= 0 {
			rackOut = append(rackOut, o)
		} else {
			machineOut = append(machineOut, o)
		}
	}
	if len(rackOut) == 0 {
		t.Fatal("no rack outages: the case does no work")
	}
	dropped := 0
	k := 0
	for _, o := range alone {
		if k < len(machineOut) && machineOut[k] == o {
			k++
			continue
		}
		dropped++
		covered := false
		for _, r := range rackOut {
			if r.Machine == o.Machine && r.Start <= o.Start && o.Start < r.End() {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("machine failure %+v vanished although no rack outage covers it", o)
		}
	}
	if k != len(machineOut) {
		t.Fatalf("%d machine failures appeared with racks on that were not drawn without", len(machineOut)-k)
	}
	t.Logf("%d machine failures, %d dropped under %d rack outages", len(alone), dropped, len(rackOut))
}

// TestGenerateRates checks the drawn rates against the model on a zone of
// 2,000 machines in 200 racks: 5,500–8,000 expected events per case, so 5%
// is about four standard deviations of a Poisson count (the share of
// reboots likewise).
func TestGenerateRates(t *testing.T) {
	inv := buildZone(t, zone{clusters: 4, racks: 50, perRack: 10})
	n, racks := float64(len(inv.Machines)), float64(len(inv.Racks))
	for _, tc := range []struct {
		name  string
		spec  string
		years float64
		// repairMedianTol, when > 0, checks the median of hard machine
		// outage durations against the model's within that share.
		repairMedianTol float64
	}{
		{"default machine rate and share", "rack-afr=0", 5, 0},
		{"half reboots", "rack-afr=0,reboot-share=0.5,machine-afr=1", 4, 0},
		{"all hard lognormal", "rack-afr=0,reboot-share=0,repair-median-h=6,repair-sigma=1.2", 3, 0.15},
		{"all hard exponential", "rack-afr=0,reboot-share=0,repair=exponential,repair-median-h=6", 3, 0.10},
		{"default rack rate", "machine-afr=0", 80, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustModel(t, tc.spec)
			out := Generate(inv, m, 0, tc.years*YearSeconds, 1)
			var machineFails, reboots int
			var hard []float64
			rackFails := map[[2]float64]bool{}
			for _, o := range out {
				if o.Rack >= 0 {
					rackFails[[2]float64{float64(o.Rack), o.Start}] = true
					continue
				}
				machineFails++
				if o.Kind == Reboot {
					reboots++
					if o.Duration != m.RebootSeconds() {
						t.Fatalf("reboot %+v: duration %g, want %g", o, o.Duration, m.RebootSeconds())
					}
				} else {
					hard = append(hard, o.Duration)
				}
			}
			within := func(what string, got, want, tol float64) {
				t.Helper()
				if math.Abs(got-want) > tol*want {
					t.Errorf("%s = %.4g, want %.4g within %.0f%%", what, got, want, 100*tol)
				} else {
					t.Logf("%s = %.4g (want %.4g)", what, got, want)
				}
			}
			if m.MachineAFR > 0 {
				within("machine failures per machine-year", float64(machineFails)/(n*tc.years), m.MachineAFR, 0.05)
				within("reboot share", float64(reboots)/float64(machineFails), m.RebootShare, 0.05)
			} else if machineFails != 0 {
				t.Errorf("%d machine failures at machine-afr=0", machineFails)
			}
			if m.RackAFR > 0 {
				within("rack failures per rack-year", float64(len(rackFails))/(racks*tc.years), m.RackAFR, 0.05)
			} else if len(rackFails) != 0 {
				t.Errorf("%d rack failures at rack-afr=0", len(rackFails))
			}
			if tc.repairMedianTol > 0 {
				slices.Sort(hard)
				within("median hard repair (h)", hard[len(hard)/2]/3600, m.RepairMedianH, tc.repairMedianTol)
			}
		})
	}
}

func TestGenerateFixedRepair(t *testing.T) {
	inv := buildZone(t, zone{clusters: 1, racks: 10, perRack: 10})
	m := mustModel(t, "repair=fixed,repair-median-h=3,rack-repair-median-h=2,reboot-share=0.5,machine-afr=5,rack-afr=3")
	out := Generate(inv, m, 0, YearSeconds, 3)
	var hard, rack int
	for _, o := range out {
		want := map[bool]float64{true: 2 * 3600, false: 3 * 3600}[o.Rack >= 0]
		switch {
		case o.Kind == Reboot:
			continue
		case o.Duration != want:
			t.Fatalf("%+v: duration %g, want the fixed %g", o, o.Duration, want)
		case o.Rack >= 0:
			rack++
		default:
			hard++
		}
	}
	if hard == 0 || rack == 0 {
		t.Fatalf("%d hard and %d rack outages: the case does no work", hard, rack)
	}
}

func TestGenerateNoOverlap(t *testing.T) {
	inv := buildZone(t, zone{clusters: 2, racks: 5, perRack: 8, unhealthy: 5})
	for _, tc := range []struct{ name, spec string }{
		{"default", "default"},
		{"dense machines, long repairs", "machine-afr=100,reboot-share=0.2,repair-median-h=48,rack-afr=0"},
		{"dense racks and machines", "machine-afr=50,rack-afr=50,rack-repair-median-h=24,repair-median-h=24"},
		{"fixed long repairs", "repair=fixed,repair-median-h=500,machine-afr=40,rack-afr=20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Generate(inv, mustModel(t, tc.spec), 100, 100+YearSeconds, 9)
			if len(out) == 0 {
				t.Fatal("no outages: the case does no work")
			}
			checkNoOverlap(t, inv, out)
			for _, o := range out {
				if o.Start < 100 || o.Start >= 100+YearSeconds {
					t.Fatalf("%+v starts outside the window", o)
				}
			}
		})
	}
}

// TestGenerateRackCoversRack: a rack failure is one Hard outage, of one
// duration, for exactly the rack's healthy machines that are up at its
// start.
func TestGenerateRackCoversRack(t *testing.T) {
	inv := buildZone(t, zone{clusters: 2, racks: 6, perRack: 9, unhealthy: 4})
	out := Generate(inv, mustModel(t, "machine-afr=20,rack-afr=20,repair-median-h=30"), 0, YearSeconds, 5)
	type key struct {
		rack  int32
		start float64
	}
	groups := map[key][]Outage{}
	for _, o := range out {
		if o.Rack >= 0 {
			groups[key{o.Rack, o.Start}] = append(groups[key{o.Rack, o.Start}], o)
		}
	}
	if len(groups) < 50 {
		t.Fatalf("%d rack failures: the case does no work", len(groups))
	}
	downAt := func(m int32, t float64) bool {
		for _, o := range out {
			if o.Machine == m && o.Start < t && t < o.End() {
				return true
			}
		}
		return false
	}
	partial := 0
	for k, g := range groups {
		var got, want []int32
		for _, o := range g {
			if o.Kind != Hard || o.Duration != g[0].Duration || inv.Machines[o.Machine].Rack != k.rack {
				t.Fatalf("rack %d failure at %g: outage %+v is not a Hard outage of the rack's duration %g", k.rack, k.start, o, g[0].Duration)
			}
			got = append(got, o.Machine)
		}
		for _, id := range inv.Racks[k.rack].Machines {
			if inv.Machines[id].Healthy && !downAt(id, k.start) {
				want = append(want, id)
			}
		}
		if len(want) < len(inv.Racks[k.rack].Machines)-2 {
			partial++
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("rack %d failure at %g covers machines %v, want the rack's healthy machines that are up %v", k.rack, k.start, got, want)
		}
	}
	if partial == 0 {
		t.Log("no rack failure met a machine already down: the overlap rule went untested")
	}
}

func TestParseModel(t *testing.T) {
	def := Model{MachineAFR: DefaultMachineAFR, RackAFR: DefaultRackAFR, RebootShare: DefaultRebootShare, Repair: LogNormal,
		RepairMedianH: DefaultRepairMedianHours, RepairSigma: DefaultRepairSigma,
		RackRepairMedianH: DefaultRackRepairMedianHours, RackRepairSigma: DefaultRackRepairSigma,
		RebootMin: DefaultRebootMinutes, HealMin: DefaultHealMinutes, Heal: HealCluster}
	over := def
	over.MachineAFR, over.RackAFR, over.RebootShare, over.RepairMedianH, over.RepairSigma = 2, 0.5, 0.8, 6, 1.2
	over.RebootMin, over.HealMin, over.Heal = 12, 15, HealZone
	fixed := def
	fixed.Repair, fixed.RackRepairMedianH, fixed.RackRepairSigma, fixed.HealMin = Fixed, 4, 0, 0
	for _, tc := range []struct {
		name, spec string
		on         bool
		want       Model
	}{
		{"none is off", "none", false, Model{}},
		{"empty is off", "", false, Model{}},
		{"default has the constants", "default", true, def},
		{"overrides on default", "machine-afr=2,rack-afr=0.5,reboot-share=0.8,repair=lognormal,repair-median-h=6,repair-sigma=1.2,reboot-min=12,heal-min=15,heal=zone", true, over},
		{"spaces, fixed, zero heal", " repair=fixed , rack-repair-median-h=4, rack-repair-sigma=0,heal-min=0 ", true, fixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, on, err := ParseModel(tc.spec)
			if err != nil || on != tc.on || m != tc.want {
				t.Fatalf("ParseModel(%q) = %+v, %v, %v; want %+v, %v", tc.spec, m, on, err, tc.want, tc.on)
			}
			if on {
				if err := m.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if DefaultModel() != def {
		t.Fatalf("DefaultModel() = %+v, want %+v", DefaultModel(), def)
	}
}

func TestParseModelErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"machine-afr=-1", "machine-afr = -1"},
		{"machine-afr=NaN", "machine-afr: \"NaN\" is not a finite number"},
		{"machine-afr=1e9", "machine-afr = 1e+09"},
		{"rack-afr=inf", "rack-afr: \"inf\" is not a finite number"},
		{"rack-afr=x", "rack-afr: \"x\" is not a finite number"},
		{"reboot-share=1.5", "reboot-share = 1.5: want a share in [0, 1]"},
		{"reboot-share=-0.1", "reboot-share = -0.1"},
		{"repair-median-h=0", "repair-median-h = 0: want hours > 0"},
		{"rack-repair-median-h=0", "rack-repair-median-h = 0"},
		{"repair-sigma=-1", "repair-sigma = -1"},
		{"rack-repair-sigma=9", "rack-repair-sigma = 9"},
		{"reboot-min=0", "reboot-min = 0"},
		{"heal-min=-5", "heal-min = -5"},
		{"repair=weibull", "repair: \"weibull\": want lognormal, exponential or fixed"},
		{"heal=region", "heal: \"region\": want cluster or zone"},
		{"machine_afr=1", "unknown key \"machine_afr\""},
		{"machine-afr", "\"machine-afr\" is not key=value"},
		{"machine-afr=1,,rack-afr=1", "\"\" is not key=value"},
		{"heal=zone,heal=cluster", "key heal given twice"},
		{"Default", "\"Default\" is not key=value"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, on, err := ParseModel(tc.spec)
			if err == nil || on {
				t.Fatalf("ParseModel(%q) = on %v, nil error", tc.spec, on)
			}
			if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseModel(%q) error %q, want one ErrBadModel line containing %q", tc.spec, err, tc.want)
			}
		})
	}
}

func TestSpecHelpNamesEveryKey(t *testing.T) {
	for _, k := range modelKeyNames() {
		if !strings.Contains(SpecHelp, "  "+k+"=") {
			t.Errorf("SpecHelp does not document %s", k)
		}
	}
	for _, k := range []string{"every=", "ud-minutes="} {
		if !strings.Contains(MaintenanceSpecHelp, "  "+k) {
			t.Errorf("MaintenanceSpecHelp does not document %s", k)
		}
	}
}

func TestGeneratePanicsOnMisuse(t *testing.T) {
	inv := buildZone(t, zone{clusters: 1, racks: 1, perRack: 1})
	for _, tc := range []struct {
		name     string
		m        Model
		from, to float64
	}{
		{"invalid model", Model{}, 0, 1},
		{"infinite window", DefaultModel(), 0, math.Inf(1)},
		{"NaN start", DefaultModel(), math.NaN(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			Generate(inv, tc.m, tc.from, tc.to, 1)
		})
	}
}

func TestParseMaintenance(t *testing.T) {
	def := Maintenance{Every: 30 * 86400, UDSeconds: 1800}
	for _, tc := range []struct {
		spec string
		on   bool
		want Maintenance
	}{
		{"none", false, Maintenance{}},
		{"", false, Maintenance{}},
		{"default", true, def},
		{"every=30d,ud-minutes=30", true, def},
		{"every=12h", true, Maintenance{Every: 43200, UDSeconds: 1800}},
		{"ud-minutes=10, every=90m", true, Maintenance{Every: 5400, UDSeconds: 600}},
		{"every=3600s", true, Maintenance{Every: 3600, UDSeconds: 1800}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			mt, on, err := ParseMaintenance(tc.spec)
			if err != nil || on != tc.on || mt != tc.want {
				t.Fatalf("ParseMaintenance(%q) = %+v, %v, %v; want %+v, %v", tc.spec, mt, on, err, tc.want, tc.on)
			}
		})
	}
	for _, tc := range []struct{ spec, want string }{
		{"every=30", "every: \"30\" has no unit"},
		{"every=-1d", "every = -86400 s"},
		{"every=0h", "every = 0 s"},
		{"every=xd", "every: \"xd\" is not a finite number"},
		{"every=infd", "every: \"infd\" is not a finite number"},
		{"ud-minutes=0", "ud-minutes = 0"},
		{"ud-minutes=nan", "ud-minutes: \"nan\" is not a finite number"},
		{"ud=30", "unknown key \"ud\""},
		{"every=1d,every=2d", "key every given twice"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, on, err := ParseMaintenance(tc.spec)
			if err == nil || on || !errors.Is(err, ErrBadMaintenance) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseMaintenance(%q) = on %v, error %v; want ErrBadMaintenance containing %q", tc.spec, on, err, tc.want)
			}
		})
	}
}

func TestMaintenanceWindows(t *testing.T) {
	// 5 update domains (0..4), every 7th machine unhealthy.
	inv := buildZone(t, zone{clusters: 2, racks: 3, perRack: 5, uds: 5, unhealthy: 7})
	healthy := 0
	for _, m := range inv.Machines {
		if m.Healthy {
			healthy++
		}
	}
	for _, tc := range []struct {
		name     string
		mt       Maintenance
		from, to float64
		rounds   int
	}{
		{"default over 100 days", DefaultMaintenance(), 0, 100 * 86400, 3},
		{"a round exactly at to is out", DefaultMaintenance(), 500, 500 + 90*86400, 2},
		{"10 min domains twice a day", Maintenance{Every: 43200, UDSeconds: 600}, 1000, 1000 + 2*86400 + 1, 4},
		{"a round that exactly fits", Maintenance{Every: 5 * 1800, UDSeconds: 1800}, 0, 3 * 5 * 1800, 2},
		{"window shorter than every", DefaultMaintenance(), 0, 86400, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.mt.Windows(inv, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != tc.rounds*healthy {
				t.Fatalf("%d outages, want %d rounds × %d healthy machines", len(out), tc.rounds, healthy)
			}
			checkNoOverlap(t, inv, out)
			for _, o := range out {
				ud := inv.Machines[o.Machine].UpdateDomain
				k := math.Floor((o.Start - tc.from) / tc.mt.Every)
				round := tc.from + k*tc.mt.Every
				if o.Kind != Planned || o.Rack != -1 || o.Row != 0 || o.Duration != tc.mt.UDSeconds || k < 1 || round >= tc.to ||
					o.Start != round+float64(ud)*tc.mt.UDSeconds {
					t.Fatalf("outage %+v of update domain %d: want Planned for %g s at round %g + %d × %g", o, ud, tc.mt.UDSeconds, round, ud, tc.mt.UDSeconds)
				}
			}
			// Never two update domains down at once.
			for i, a := range out {
				for _, b := range out[i+1:] {
					if b.Start >= a.End() {
						break
					}
					if inv.Machines[a.Machine].UpdateDomain != inv.Machines[b.Machine].UpdateDomain {
						t.Fatalf("update domains %d and %d down together: %+v, %+v", inv.Machines[a.Machine].UpdateDomain,
							inv.Machines[b.Machine].UpdateDomain, a, b)
					}
				}
			}
		})
	}
}

// TestMaintenanceDomainOrder: domains with gaps in their numbering are
// updated in increasing order, back to back.
func TestMaintenanceDomainOrder(t *testing.T) {
	var ms []optimizer.MachineSpec
	for i, ud := range []int16{9, 2, 40, 2, 9} {
		ms = append(ms, optimizer.MachineSpec{Name: fmt.Sprintf("m%d", i), Cluster: "c", Rack: "r", UpdateDomain: ud, Healthy: true})
	}
	ms = append(ms, optimizer.MachineSpec{Name: "down", Cluster: "c", Rack: "r", UpdateDomain: 1, Healthy: false})
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 8}}}, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Maintenance{Every: 86400, UDSeconds: 1800}.Windows(inv, 0, 86401)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out {
		got = append(got, fmt.Sprintf("%s@%g", inv.Machines[o.Machine].Name, o.Start))
	}
	want := []string{"m1@86400", "m3@86400", "m0@88200", "m4@88200", "m2@90000"}
	if !slices.Equal(got, want) {
		t.Fatalf("windows %v, want %v (domains 2, 9, 40 in order; the unhealthy machine's domain 1 skipped)", got, want)
	}
}

func TestMaintenanceErrors(t *testing.T) {
	inv := buildZone(t, zone{clusters: 1, racks: 2, perRack: 6, uds: 6})
	for _, tc := range []struct {
		name     string
		mt       Maintenance
		from, to float64
		want     string
	}{
		{"round too long", Maintenance{Every: 2 * 3600, UDSeconds: 1800}, 0, 86400, "a round of 6 update domains × 30 min = 3 h does not fit in every = 2 h"},
		{"infinite window", DefaultMaintenance(), 0, math.Inf(1), "needs a finite window"},
		{"invalid", Maintenance{Every: 86400}, 0, 1e6, "ud-minutes = 0"},
		{"too many outages", Maintenance{Every: 10800, UDSeconds: 1800}, 0, 1e10, "more than 10000000 outages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.mt.Windows(inv, tc.from, tc.to)
			if !errors.Is(err, ErrBadMaintenance) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrBadMaintenance containing %q", err, tc.want)
			}
		})
	}
}

// fileZone has racks r0 and r1 in clusters c0 and c1 (bare names ambiguous)
// and rack solo in cluster c2 only.
func fileZone(t testing.TB) *optimizer.Inventory {
	t.Helper()
	var ms []optimizer.MachineSpec
	for _, cr := range [][2]string{{"c0", "r0"}, {"c0", "r1"}, {"c1", "r0"}, {"c1", "r1"}, {"c2", "solo"}} {
		for k := 0; k < 3; k++ {
			ms = append(ms, optimizer.MachineSpec{Name: fmt.Sprintf("%s-%s-m%d", cr[0], cr[1], k), Cluster: cr[0], Rack: cr[1], Healthy: k != 2})
		}
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 8}}}, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestFromRows(t *testing.T) {
	inv := fileZone(t)
	rows := []FileRow{
		{Row: 2, T: 500, Duration: 60, Machine: "c0-r0-m1", Kind: "reboot"},
		{Row: 3, T: 100, Duration: 3600, Rack: "c1/r0", Kind: "hard"},
		{Row: 4, T: 100, Duration: 10, Rack: "solo", Kind: "reboot"},
		{Row: 5, T: 560, Duration: 5, Machine: "c0-r0-m1", Kind: "hard"}, // starts as row 2 ends
	}
	out, err := FromRows(inv, "f.csv", rows)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out {
		got = append(got, fmt.Sprintf("%g+%g %s rack=%d %s row=%d", o.Start, o.Duration, inv.Machines[o.Machine].Name, o.Rack, o.Kind, o.Row))
	}
	want := []string{
		"100+3600 c1-r0-m0 rack=2 hard row=3",
		"100+3600 c1-r0-m1 rack=2 hard row=3",
		"100+3600 c1-r0-m2 rack=2 hard row=3", // file rows are not filtered by Healthy
		"100+10 c2-solo-m0 rack=4 reboot row=4",
		"100+10 c2-solo-m1 rack=4 reboot row=4",
		"100+10 c2-solo-m2 rack=4 reboot row=4",
		"500+60 c0-r0-m1 rack=-1 reboot row=2",
		"560+5 c0-r0-m1 rack=-1 hard row=5",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outages\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFromRowsErrors(t *testing.T) {
	inv := fileZone(t)
	ok := FileRow{Row: 2, T: 0, Duration: 60, Machine: "c0-r0-m0", Kind: "hard"}
	with := func(f func(r *FileRow)) FileRow { r := ok; f(&r); return r }
	for _, tc := range []struct {
		name string
		rows []FileRow
		want string
	}{
		{"unknown machine", []FileRow{ok, with(func(r *FileRow) { r.Row, r.T, r.Machine = 3, 100, "nope" })},
			"f.csv: row 3: field machine: unknown machine \"nope\""},
		{"unknown rack", []FileRow{with(func(r *FileRow) { r.Machine, r.Rack = "", "r9" })},
			"f.csv: row 2: field rack: unknown rack \"r9\""},
		{"unknown qualified rack", []FileRow{with(func(r *FileRow) { r.Machine, r.Rack = "", "c2/r0" })},
			"row 2: field rack: unknown rack \"c2/r0\""},
		{"ambiguous rack", []FileRow{with(func(r *FileRow) { r.Row, r.Machine, r.Rack = 7, "", "r1" })},
			"f.csv: row 7: field rack: rack name \"r1\" is ambiguous: it is in clusters c0, c1; qualify it as cluster/rack (e.g. c0/r1)"},
		{"overlap of two machine rows", []FileRow{
			with(func(r *FileRow) { r.Row, r.T, r.Duration = 9, 1000, 100 }),
			with(func(r *FileRow) { r.Row, r.T, r.Duration = 4, 1050, 100 })},
			"f.csv: rows 4 and 9: field machine: machine \"c0-r0-m0\" is down twice at once"},
		{"rack row overlaps a machine row", []FileRow{
			with(func(r *FileRow) { r.Row, r.T, r.Duration = 2, 1000, 100 }),
			with(func(r *FileRow) { r.Row, r.T, r.Duration, r.Machine, r.Rack = 3, 900, 101, "", "c0/r0" })},
			"f.csv: rows 2 and 3: field rack: machine \"c0-r0-m0\" is down twice at once: [1000, 1100) s and [900, 1001) s overlap"},
		{"two rack rows overlap", []FileRow{
			with(func(r *FileRow) { r.Row, r.Machine, r.Rack = 5, "", "solo" }),
			with(func(r *FileRow) { r.Row, r.T, r.Machine, r.Rack = 6, 59, "", "c2/solo" })},
			"rows 5 and 6: field rack: machine \"c2-solo-m0\""},
		{"both machine and rack", []FileRow{with(func(r *FileRow) { r.Rack = "solo" })},
			"f.csv: row 2: field machine: both machine \"c0-r0-m0\" and rack \"solo\""},
		{"neither machine nor rack", []FileRow{with(func(r *FileRow) { r.Machine = "" })},
			"f.csv: row 2: field machine: neither machine nor rack"},
		{"bad kind", []FileRow{with(func(r *FileRow) { r.Kind = "maintenance" })},
			"f.csv: row 2: field kind: \"maintenance\": want reboot or hard"},
		{"zero duration", []FileRow{with(func(r *FileRow) { r.Duration = 0 })},
			"f.csv: row 2: field duration_s: 0: want a finite duration > 0"},
		{"NaN duration", []FileRow{with(func(r *FileRow) { r.Duration = math.NaN() })}, "field duration_s: NaN"},
		{"infinite time", []FileRow{with(func(r *FileRow) { r.T = math.Inf(-1) })}, "f.csv: row 2: field t_s: -Inf is not a finite time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := FromRows(inv, "f.csv", tc.rows)
			if out != nil || !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FromRows = %v, %v; want ErrBadFile containing %q", out, err, tc.want)
			}
		})
	}
}

func TestFromRowsDuplicateMachineName(t *testing.T) {
	ms := []optimizer.MachineSpec{{Name: "twin", Cluster: "a", Rack: "r", Healthy: true}, {Name: "twin", Cluster: "b", Rack: "r", Healthy: true}}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 8}}}, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromRows(inv, "f.csv", []FileRow{{Row: 2, Duration: 1, Machine: "twin", Kind: "hard"}})
	if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), "machine name \"twin\" names 2 machines") {
		t.Fatalf("error %v", err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Reboot: "reboot", Hard: "hard", Planned: "maintenance", Kind(9): "kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), want)
		}
	}
}

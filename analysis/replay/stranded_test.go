package replay

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"placelab/optimizer"
)

// Types of the stranded tests, on one SKU of 16 cores and 64 GB: a is 2
// cores / 16 GB (memory-heavy), b 4 cores / 8 GB (core-heavy).
var (
	strandSKU16 = optimizer.SKU{Name: "s16", Capacity: optimizer.Vec{optimizer.Cores: 16, optimizer.Memory: 64, optimizer.GPU: 2}}
	strandA     = optimizer.VMType{Name: "a", Demand: []optimizer.Vec{{optimizer.Cores: 2, optimizer.Memory: 16}}, Supported: []bool{true}}
	strandB     = optimizer.VMType{Name: "b", Demand: []optimizer.Vec{{optimizer.Cores: 4, optimizer.Memory: 8}}, Supported: []bool{true}}
)

// strandZone is n healthy machines of strandSKU16, one cluster, a rack each.
func strandZone(t *testing.T, n int, types ...optimizer.VMType) *optimizer.Inventory {
	t.Helper()
	var ms []optimizer.MachineSpec
	for i := 0; i < n; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + itoa(i), Cluster: "c", Rack: "r" + itoa(i), UpdateDomain: int16(i), Healthy: true})
	}
	inv, err := optimizer.NewInventory([]optimizer.SKU{strandSKU16}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestStrandedByHand: the formula of stranded on one 16-core, 64 GB
// machine, each case worked out by hand.
func TestStrandedByHand(t *testing.T) {
	gpu := optimizer.VMType{Name: "g", Demand: []optimizer.Vec{{optimizer.Cores: 2, optimizer.Memory: 8, optimizer.GPU: 1}}, Supported: []bool{true}}
	huge := optimizer.VMType{Name: "huge", Demand: []optimizer.Vec{{optimizer.Cores: 1, optimizer.Memory: 128}}, Supported: []bool{true}}
	elsewhere := optimizer.VMType{Name: "x", Demand: []optimizer.Vec{{optimizer.Cores: 1, optimizer.Memory: 1}}, Supported: []bool{false}}
	ab := []optimizer.VMType{strandA, strandB}
	free := func(c, g float64) optimizer.Vec { return optimizer.Vec{optimizer.Cores: c, optimizer.Memory: g} }
	for _, tc := range []struct {
		name          string
		types         []optimizer.VMType
		free          optimizer.Vec
		cores, memory float64
	}{
		// a fails on memory (16 > 4), b too (8 > 4); both fit by cores
		// (2, 4 ≤ 6): the 6 cores are stranded. Neither fits by memory
		// alone (16, 8 > 4): the 4 GB are not.
		{"memory exhausted strands cores", ab, free(6, 4), 6, 0},
		// The symmetric case: a and b fail on cores (2, 4 > 1) and fit by
		// memory (16, 8 ≤ 40); no type fits by cores alone (2, 4 > 1).
		{"cores exhausted strands memory", ab, free(1, 40), 0, 40},
		{"a type fits: nothing stranded", ab, free(4, 8), 0, 0},
		{"the smallest type fits exactly", ab, free(2, 16), 0, 0},
		// Nothing fits, but by neither dimension alone: nearly full in
		// both, nothing stranded.
		{"nearly full in both", ab, free(1, 4), 0, 0},
		{"full", ab, free(0, 0), 0, 0},
		{"empty", ab, free(16, 64), 0, 0},
		// Memory left as rounding residue is no free memory.
		{"rounding residue is not free", ab, free(6, 1e-12), 6, 0},
		// Over-committed cores (oversubscription) are not free.
		{"over-committed cores", ab, free(-2, 40), 0, 40},
		// GPUs exhausted: g fits by cores and by memory, so both strand.
		{"another dimension (GPU) exhausted", []optimizer.VMType{gpu}, optimizer.Vec{optimizer.Cores: 10, optimizer.Memory: 40}, 10, 40},
		{"GPU free: g fits", []optimizer.VMType{gpu}, optimizer.Vec{optimizer.Cores: 10, optimizer.Memory: 40, optimizer.GPU: 1}, 0, 0},
		// huge (1 core, 128 GB) fits no empty machine of the SKU, so it
		// does not make the last core "fit by cores alone": were it counted,
		// 1 core would be stranded here.
		{"a type larger than the machine strands nothing", []optimizer.VMType{strandA, huge}, free(1, 4), 0, 0},
		{"types of other SKUs strand nothing", []optimizer.VMType{elsewhere}, free(6, 4), 0, 0},
		{"no types", nil, free(6, 4), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := strandZone(t, 1, tc.types...)
			ts := strandTypes(inv, 0)
			c, m := strandedOn(tc.free, &ts)
			if c != tc.cores || m != tc.memory {
				t.Fatalf("stranded cores, memory = %v, %v; want %v, %v", c, m, tc.cores, tc.memory)
			}
		})
	}
}

// TestStrandTypesKeepsMinimal: per SKU only the minimal demands are tried,
// in ascending size; c (4 cores / 16 GB) is dominated by a and by b, d
// repeats b, e runs on no SKU.
func TestStrandTypesKeepsMinimal(t *testing.T) {
	c := optimizer.VMType{Name: "c", Demand: []optimizer.Vec{{optimizer.Cores: 4, optimizer.Memory: 16}}, Supported: []bool{true}}
	d := strandB
	d.Name = "d"
	e := optimizer.VMType{Name: "e", Demand: []optimizer.Vec{{optimizer.Cores: 1}}, Supported: []bool{false}}
	big := optimizer.VMType{Name: "big", Demand: []optimizer.Vec{{optimizer.Cores: 8, optimizer.Memory: 4}}, Supported: []bool{true}}
	inv := strandZone(t, 1, c, big, strandB, d, strandA, e)
	ts := strandTypes(inv, 0)
	// Sizes: b 4/16 + 8/64 = 0.375 (type index 2), a 2/16 + 16/64 = 0.375
	// (index 4), big 8/16 + 4/64 = 0.5625: b, a, big.
	want := []optimizer.Vec{strandB.Demand[0], strandA.Demand[0], big.Demand[0]}
	if len(ts.demands) != len(want) {
		t.Fatalf("demands %v, want %v", ts.demands, want)
	}
	for i := range want {
		if ts.demands[i] != want[i] {
			t.Fatalf("demands %v, want %v", ts.demands, want)
		}
	}
	if ts.minCore != 2 || ts.minMem != 4 {
		t.Fatalf("least cores, memory = %v, %v; want 2, 4", ts.minCore, ts.minMem)
	}
}

// TestStrandedSample: the sampler's percentages over a zone of four
// machines of 16 cores and 64 GB (64 cores, 256 GB): m0 has 6 cores / 4 GB
// free (6 cores stranded), m1 1 core / 40 GB (40 GB stranded), m2 is empty,
// m3 is like m0 but unhealthy: it strands nothing and its capacity counts.
// Cores 100·6/64 = 9.375%, memory 100·40/256 = 15.625%.
func TestStrandedSample(t *testing.T) {
	inv := strandZone(t, 4, strandA, strandB)
	st := optimizer.NewState(inv)
	use := func(vm optimizer.VMID, m int32, c, g float64) {
		st.Place(optimizer.Placement{VM: vm, Machine: m, Type: 0, Tenant: int32(vm), Demand: optimizer.Vec{optimizer.Cores: c, optimizer.Memory: g}})
	}
	use(0, 0, 10, 60)
	use(1, 1, 15, 24)
	use(2, 3, 10, 60)
	st.SetHealthy(3, false)
	smp := newSampler(inv, optimizer.Buffers{})
	smp.sample(3600, st)
	smp.sample(7200, st)
	got := map[string]float64{}
	for _, r := range smp.metrics {
		if r.T == 3600 {
			got[r.Metric] = r.Value
		}
	}
	if got["stranded_cores_pct"] != 9.375 || got["stranded_memory_pct"] != 15.625 {
		t.Fatalf("stranded cores %v%%, memory %v%%; want 9.375, 15.625", got["stranded_cores_pct"], got["stranded_memory_pct"])
	}
	var sum Summary
	smp.summarize(&sum, 0, nil)
	if sum.StrandedCoresPctMean != 9.375 || sum.StrandedMemoryPctMean != 15.625 {
		t.Fatalf("summary means %v, %v", sum.StrandedCoresPctMean, sum.StrandedMemoryPctMean)
	}
}

// strandTrace is a trace on n machines that ends with stranded resources.
// Four a VMs (2 cores, 16 GB) arrive at 10, 20, 30 and 130 s and fill one
// machine's memory (8 cores / 0 GB free), then four b VMs (4 cores, 8 GB)
// at 140..170 s fill another machine's cores (0 cores / 32 GB free); no VM
// leaves. Protean stacks them (it prefers non-empty machines; an a finds no
// memory beside four a, a b none beside three), and the 10 s gaps outlast
// any decision and commit, so every path makes the same placements up to
// which machine is which; samples every 120 s give
//
//	t = 120: three a on a machine, 10 cores / 16 GB free: a fits, nothing stranded
//	t = 240, 360: 8 cores and 32 GB stranded
func strandTrace(t *testing.T, n int) *Trace {
	inv := strandZone(t, n, strandA, strandB)
	tr := &Trace{Dataset: "stranded", Inv: inv, MachineIDs: machineIDs(n)}
	for i, at := range []float64{10, 20, 30, 130, 140, 150, 160, 170} {
		ty := int32(0)
		if i >= 4 {
			ty = 1
		}
		tr.VMs = append(tr.VMs, TraceVM{ID: int64(i), Tenant: int32(i), Type: ty, Start: at, End: math.Inf(1)})
	}
	return tr
}

// strandSeries is a run's stranded samples by metric, in time order.
func strandSeries(res *Result) map[string][]MetricRow {
	out := map[string][]MetricRow{}
	for _, r := range res.Metrics {
		if strings.HasPrefix(r.Metric, "stranded_") {
			out[r.Metric] = append(out[r.Metric], r)
		}
	}
	return out
}

// TestStrandedOnEveryPath: the zone of strandTrace shows its stranded
// resources in run_metric and in the summary; one agent and two simulated
// agents (at speed-up 1: a decision takes at most 88 ms of the 10 s
// between arrivals) sample the same figures, without failures and with one
// (a third machine down from the start: it strands nothing and its
// capacity counts). Real-time agents sample the store when the dispatcher
// passes a boundary, racing with the commits in flight, so only their
// sample times and the summary's means of their own samples are checked.
func TestStrandedOnEveryPath(t *testing.T) {
	for _, tc := range []struct {
		name     string
		machines int
		outages  []Outage
		pct      float64 // the stranded cores and memory share from t = 240
	}{
		{"no failures", 2, nil, 25},                                 // 8 of 32 cores, 32 of 128 GB
		{"a machine down", 3, []Outage{hard(2, 1, 1e6)}, 100.0 / 6}, // 8 of 48 cores, 32 of 192 GB
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := strandTrace(t, tc.machines)
			cfg := optimizer.DefaultConfig()
			opt := DefaultReplayOptions()
			opt.Interval, opt.To = 120, 360
			if tc.outages != nil {
				opt.Avail = &Availability{Outages: tc.outages}
			}
			one := func() *Result {
				tr := tr.WithOwnHealth()
				alloc, err := NewAllocator("protean", tr, cfg)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Replay(context.Background(), tr, alloc, opt)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			agents := func(model string) *Result {
				tr := tr.WithOwnHealth()
				o := DefaultAgentOptions()
				o.ReplayOptions, o.TimeModel, o.Agents = opt, model, 2
				res, err := ReplayAgents(context.Background(), tr, cfg, o)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			want := []MetricRow{{120, "", 0}, {240, "", tc.pct}, {360, "", tc.pct}}
			wantMean := 2 * tc.pct / 3
			for _, p := range []struct {
				name string
				res  *Result
			}{{"one agent", one()}, {"agents, simulated time", agents(TimeSim)}, {"agents, real time", agents(TimeReal)}} {
				s := p.res.Summary
				if s.Accepted != 8 {
					t.Fatalf("%s: %d of 8 VMs placed", p.name, s.Accepted)
				}
				racing := p.name == "agents, real time"
				series := strandSeries(p.res)
				var means [2]float64
				for k, m := range []string{"stranded_cores_pct", "stranded_memory_pct"} {
					got := series[m]
					if len(got) != len(want) {
						t.Fatalf("%s: %s samples %v, want %v", p.name, m, got, want)
					}
					var vs []float64
					for i := range want {
						if got[i].T != want[i].T || !racing && math.Abs(got[i].Value-want[i].Value) > 1e-9 {
							t.Fatalf("%s: %s samples %v, want %v", p.name, m, got, want)
						}
						vs = append(vs, got[i].Value)
					}
					means[k] = mean(vs)
				}
				if !racing {
					means = [2]float64{wantMean, wantMean}
				}
				if math.Abs(s.StrandedCoresPctMean-means[0]) > 1e-9 || math.Abs(s.StrandedMemoryPctMean-means[1]) > 1e-9 {
					t.Fatalf("%s: means %v, %v; want %v", p.name, s.StrandedCoresPctMean, s.StrandedMemoryPctMean, means)
				}
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				var js map[string]any
				if err := json.Unmarshal(b, &js); err != nil {
					t.Fatal(err)
				}
				if js["stranded_cores_pct_mean"] != s.StrandedCoresPctMean || js["stranded_memory_pct_mean"] != s.StrandedMemoryPctMean {
					t.Fatalf("%s: JSON %s", p.name, b)
				}
			}
		})
	}
}

// strandedByDefinition is the formula of stranded, written out with no
// precomputation: every supported type that fits the empty machine, tried
// on every healthy machine.
func strandedByDefinition(st *optimizer.State) (coresPct, memPct float64) {
	inv := st.Inv
	var cores, mem, totalC, totalM float64
	for m := range inv.Machines {
		capa := inv.Capacity(int32(m))
		totalC += capa[optimizer.Cores]
		totalM += capa[optimizer.Memory]
		if !inv.Machines[m].Healthy {
			continue
		}
		f := st.Free(int32(m))
		fits, byCores, byMem := false, false, false
		for ty := range inv.Types {
			d, ok := inv.Demand(int32(ty), int32(m))
			if !ok || !optimizer.Fits(d, capa) {
				continue
			}
			fits = fits || optimizer.Fits(d, f)
			byCores = byCores || d[optimizer.Cores] <= f[optimizer.Cores]+strandEps
			byMem = byMem || d[optimizer.Memory] <= f[optimizer.Memory]+strandEps
		}
		if fits {
			continue
		}
		if byCores && f[optimizer.Cores] > strandEps {
			cores += f[optimizer.Cores]
		}
		if byMem && f[optimizer.Memory] > strandEps {
			mem += f[optimizer.Memory]
		}
	}
	return 100 * cores / totalC, 100 * mem / totalM
}

// TestStrandedMatchesDefinition: the sampler's shortcuts (minimal types,
// the cores-prefix check, early exits) give the figures of the formula on
// randomly filled zones, some machines unhealthy.
func TestStrandedMatchesDefinition(t *testing.T) {
	for _, tc := range []struct {
		types     int
		antichain bool
	}{{3, false}, {10, false}, {50, false}, {10, true}, {50, true}} {
		for seed := uint64(1); seed <= 5; seed++ {
			st := strandBenchZone(t, 300, tc.types, tc.antichain, seed)
			for m := int32(0); m < 300; m += 7 {
				st.SetHealthy(m, false)
			}
			wc, wm := strandedByDefinition(st)
			gc, gm := newStranded(st.Inv).sample(st)
			if math.Abs(gc-wc) > 1e-9 || math.Abs(gm-wm) > 1e-9 {
				t.Fatalf("types=%d antichain=%v seed=%d: stranded %v%%, %v%%; the formula gives %v%%, %v%%",
					tc.types, tc.antichain, seed, gc, gm, wc, wm)
			}
			if seed == 1 && wc == 0 && wm == 0 {
				t.Fatalf("types=%d antichain=%v: nothing stranded, nothing compared", tc.types, tc.antichain)
			}
		}
	}
}

// TestStrandedFollowsChanges: one sampler kept across samples recomputes
// only the machines that changed since its last sample, and still equals
// the formula after every step of a run of removals, placements and health
// changes (a step touches a few machines; a machine can change, change
// back, and change health); a sample of another state reads every machine.
func TestStrandedFollowsChanges(t *testing.T) {
	st := strandBenchZone(t, 300, 10, false, 3)
	s := newStranded(st.Inv)
	rng := rand.New(rand.NewPCG(9, 0))
	check := func(step int) {
		t.Helper()
		wc, wm := strandedByDefinition(st)
		gc, gm := s.sample(st)
		if math.Abs(gc-wc) > 1e-9 || math.Abs(gm-wm) > 1e-9 {
			t.Fatalf("step %d: stranded %v%%, %v%%; the formula gives %v%%, %v%%", step, gc, gm, wc, wm)
		}
	}
	check(0)
	next := optimizer.VMID(1 << 30)
	for step := 1; step <= 200; step++ {
		for k := 0; k < 3; k++ {
			m := int32(rng.IntN(300))
			switch rng.IntN(3) {
			case 0:
				if vms := st.VMsOn(m); len(vms) > 0 {
					st.Remove(vms[rng.IntN(len(vms))])
				}
			case 1:
				ty := int32(rng.IntN(len(st.Inv.Types)))
				if d, ok := st.Inv.Demand(ty, m); ok && optimizer.Fits(d, st.Free(m)) {
					st.Place(optimizer.Placement{VM: next, Machine: m, Type: ty, Tenant: 1, Demand: d})
					next++
				}
			default:
				st.SetHealthy(m, !st.Inv.Machines[m].Healthy)
			}
		}
		check(step)
	}
	// Two states whose machine 0 changed at the same revision: the
	// second is read afresh, not taken for the first. In a, VM 1 takes
	// every core (its free memory is stranded); in b, one core.
	for m := range st.Inv.Machines {
		st.SetHealthy(int32(m), true)
	}
	a, b := optimizer.NewState(st.Inv), optimizer.NewState(st.Inv)
	a.Place(optimizer.Placement{VM: 1, Machine: 0, Demand: optimizer.Vec{optimizer.Cores: 48, optimizer.Memory: 10}})
	b.Place(optimizer.Placement{VM: 1, Machine: 0, Demand: optimizer.Vec{optimizer.Cores: 1, optimizer.Memory: 10}})
	if _, m := s.sample(a); m == 0 {
		t.Fatal("state a strands no memory: the case does not test anything")
	}
	if c, m := s.sample(b); c != 0 || m != 0 {
		t.Fatalf("state b strands %v%%, %v%%; want 0: the sampler took state a's machine 0 for b's", c, m)
	}
}

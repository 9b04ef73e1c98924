package optimizer

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLifetimeDistMath: the median remaining lifetime at age 0 is the
// distribution's median exp(μ); it grows with age for a log-normal (a VM
// that outlived its prediction is repredicted longer), it is exp(μ) − a for
// a known lifetime, 0 once outlived; classes follow the grid.
func TestLifetimeDistMath(t *testing.T) {
	d := LifetimeDist{Mu: math.Log(600), Sigma: 1, Known: true}
	if r := d.RemainingMedian(0); math.Abs(r-600) > 1e-6 {
		t.Fatalf("median at age 0: %v, want 600", r)
	}
	// P(T > a + r | T > a) = 1/2 at the repredicted median, checked on the
	// survival function itself.
	for _, a := range []float64{60, 600, 3600, 86400} {
		r := d.RemainingMedian(a)
		if got := d.Survival(a+r) / d.Survival(a); math.Abs(got-0.5) > 1e-6 {
			t.Errorf("age %v: S(a+r)/S(a) = %v, want 0.5", a, got)
		}
	}
	if !(d.RemainingMedian(3600) > d.RemainingMedian(600) && d.RemainingMedian(600) > d.RemainingMedian(0)-600) {
		t.Error("the log-normal's remaining median does not grow with age")
	}
	if r := d.RemainingMedian(1e9); !(r > 0) || math.IsInf(r, 0) {
		t.Errorf("far beyond the prediction: %v, want a finite positive remaining life", r)
	}
	k := DistOf(900)
	if math.Abs(k.RemainingMedian(300)-600) > 1e-9 || k.RemainingMedian(1000) != 0 {
		t.Errorf("known lifetime: %v, %v", k.RemainingMedian(300), k.RemainingMedian(1000))
	}
	for _, c := range []struct {
		r    float64
		want int8
	}{{-1, 0}, {math.NaN(), 0}, {0, 1}, {300, 1}, {301, 2}, {3600, 4}, {86400, 8}, {1e7, int8(NumLifeClasses - 1)}} {
		if got := LifeClassOf(c.r); got != c.want {
			t.Errorf("LifeClassOf(%v) = %d, want %d", c.r, got, c.want)
		}
	}
}

// TestRepredictionChangesHostClass: a VM predicted to live 10 minutes that
// is still there after an hour makes its machine's class longer once
// repredicted, and NILAS then sends a long-lived VM to that machine rather
// than to one whose VMs are due to end; with the prediction a known
// lifetime (σ = 0) the outlived VM counts as ending now instead.
func TestRepredictionChangesHostClass(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 3, skus: []SKU{skuLarge}})
	s := NewState(inv)
	s.EnableLifeClasses(0)
	a, err := NewProtean(s, DefaultConfig(), LifeClassRules(PreferLifetimeNILAS{}))
	if err != nil {
		t.Fatal(err)
	}
	place := func(id VMID, m int32, d LifetimeDist, at float64) {
		p := placementFor(inv, &Request{ID: id, Tenant: int32(id), Time: at}, VMRequest{ID: id, Type: 0, Life: d}, m)
		s.Place(p)
	}
	place(1, 0, LifetimeDist{Mu: math.Log(600), Sigma: 1, Known: true}, 0) // "10 minutes"
	place(2, 1, DistOf(2*3600), 0)                                         // really 2 hours
	if c := s.LifeClass[0]; c != LifeClassOf(600) {
		t.Fatalf("machine 0 class %d at t = 0, want %d", c, LifeClassOf(600))
	}
	before := s.LifeClass[0]
	rev := s.Journal.MachineRev(0)
	s.Repredict(3600) // VM 1 outlived its prediction
	if s.LifeClass[0] <= before {
		t.Fatalf("machine 0 class %d after an hour, want longer than %d", s.LifeClass[0], before)
	}
	if s.Journal.MachineRev(0) == rev {
		t.Fatal("the class change was not journaled: cached evaluations would not hear of it")
	}
	// A VM of class "1 h" now prefers machine 0 (its repredicted remaining
	// life covers it closest) over machine 1 (due to end in an hour).
	r := &Request{ID: 9, Tenant: 9, Time: 3600, LifeClass: s.LifeClass[0], VMs: []VMRequest{{ID: 9, Type: 0, Life: DistOf(1800)}}}
	d := a.Allocate(r)
	if !d.OK || d.Placements[0].Machine != 0 {
		t.Fatalf("placed %+v, want machine 0", d.Placements)
	}
	// With σ = 0 an outlived VM is due now: its machine's class drops.
	s2 := NewState(inv)
	s2.EnableLifeClasses(0)
	s2.Place(placementFor(inv, &Request{ID: 1, Tenant: 1}, VMRequest{ID: 1, Type: 0, Life: DistOf(600)}, 0))
	s2.Repredict(3600)
	if s2.LifeClass[0] != 1 {
		t.Fatalf("known lifetime outlived: class %d, want 1", s2.LifeClass[0])
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// TestLifeClassScores: NILAS and LAVA agree on the ends (no prediction,
// empty, unknown, extending) and differ on covering machines: NILAS the
// closest class first, LAVA the most anchored (longest) first.
func TestLifeClassScores(t *testing.T) {
	if NILASScore(3, 4, false) >= NILASScore(3, 8, false) {
		t.Error("NILAS: the closest covering machine must score better")
	}
	if LAVAScore(3, 8, false) >= LAVAScore(3, 4, false) {
		t.Error("LAVA: the most anchored machine must score better")
	}
	for _, f := range []func(b, c int8, empty bool) int64{NILASScore, LAVAScore} {
		if f(0, 5, false) != 0 || f(3, 0, true) <= f(3, 1, false) || f(3, 0, false) <= f(3, 12, false) || f(3, 0, false) >= f(3, 2, false) {
			t.Errorf("score order broken")
		}
	}
}

// TestMedianEmptyTime: a machine's predicted empty time is the median of
// the time by which all its VMs have ended, each repredicted from its age.
// Checked against a Monte Carlo of the VMs' conditional lifetimes (an
// independent computation: sampled, not solved), for VMs of mixed
// spreads, ages and starts after the last reprediction; with one VM it is
// that VM's repredicted median end; with known lifetimes only (the
// oracle) it is the latest end; and a machine of many uncertain short VMs
// gets a longer class than its longest VM's own median would give.
func TestMedianEmptyTime(t *testing.T) {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 4, skus: []SKU{skuLarge}})
	type vm struct {
		d     LifetimeDist
		start float64
	}
	cases := []struct {
		name string
		now  float64
		vms  []vm
	}{
		{"one VM", 1000, []vm{{LifetimeDist{Mu: math.Log(3600), Sigma: 1.5, Known: true}, 0}}},
		{"mixed", 7200, []vm{
			{LifetimeDist{Mu: math.Log(600), Sigma: 2, Known: true}, 0},
			{LifetimeDist{Mu: math.Log(1800), Sigma: 1, Known: true}, 3600},
			{LifetimeDist{Mu: math.Log(7200), Sigma: 0.5, Known: true}, 7000},
			{DistOf(5000), 6000},
			{LifetimeDist{Mu: math.Log(900), Sigma: 2, Known: true}, 9000}, // placed after the reprediction
		}},
		{"many short", 0, func() []vm {
			var v []vm
			for i := 0; i < 12; i++ {
				v = append(v, vm{LifetimeDist{Mu: math.Log(600), Sigma: 2, Known: true}, 0})
			}
			return v
		}()},
	}
	rng := rand.New(rand.NewPCG(3, 0))
	for _, c := range cases {
		s := NewState(inv)
		s.EnableLifeClasses(c.now)
		for i, v := range c.vms {
			id := VMID(i + 1)
			s.Place(placementFor(inv, &Request{ID: id, Tenant: 1, Time: v.start}, VMRequest{ID: id, Type: 0, Life: v.d}, 0))
		}
		got := s.LifeEnd[0]
		// Monte Carlo: each VM's lifetime drawn given it survived its age.
		const n = 40000
		ends := make([]float64, n)
		for k := range ends {
			last := math.Inf(-1)
			for _, v := range c.vms {
				age := math.Max(c.now-v.start, 0)
				var life float64
				switch {
				case v.d.Sigma == 0:
					life = math.Max(math.Exp(v.d.Mu), age)
				default:
					// Inverse transform of T | T > age: S(T) uniform on (0, S(age)).
					u := rng.Float64() * v.d.Survival(age)
					life = math.Exp(v.d.Mu + v.d.Sigma*normalQuantile(1-u))
				}
				last = math.Max(last, v.start+life)
			}
			ends[k] = last
		}
		slices.Sort(ends)
		mc := ends[n/2]
		// The sample median's error: ±2% in remaining time is several
		// standard errors at n = 40,000.
		if math.Abs(got-mc) > 0.02*math.Max(mc-c.now, 1) {
			t.Errorf("%s: empty time %v, Monte Carlo median %v", c.name, got, mc)
		}
		switch c.name {
		case "one VM":
			p, _ := s.Lookup(1)
			if want := lifeEnd(&p, c.now); math.Abs(got-want) > 1e-3*want {
				t.Errorf("one VM: %v, want its repredicted median end %v", got, want)
			}
		case "many short":
			own := LifeClassOf(600)
			if s.LifeClass[0] <= own+2 {
				t.Errorf("12 VMs of median 10 min, σ 2: class %d, want well above one VM's %d", s.LifeClass[0], own)
			}
		}
	}
	// Known lifetimes only: the latest end, as before.
	s := NewState(inv)
	s.EnableLifeClasses(0)
	for i, l := range []float64{600, 5400, 1800} {
		id := VMID(i + 1)
		s.Place(placementFor(inv, &Request{ID: id, Tenant: 1}, VMRequest{ID: id, Type: 0, Life: DistOf(l)}, 0))
	}
	if math.Abs(s.LifeEnd[0]-5400) > 1e-6 {
		t.Fatalf("known lifetimes: empty time %v, want the latest end 5400", s.LifeEnd[0])
	}
	// A departure lowers it again.
	s.Remove(2)
	if math.Abs(s.LifeEnd[0]-1800) > 1e-6 {
		t.Fatalf("after the 5400 s VM left: %v, want 1800", s.LifeEnd[0])
	}
}

// TestLifeClassRulesPlace: LAVA sits where PreferAlignedLifetime does,
// after PreferNonEmptyMachines and before BestFit; NILAS, non-invasive,
// comes after BestFit. So NILAS never overturns BestFit — a fuller machine
// wins over one whose class covers the VM more closely — and it decides
// among BestFit's ties: of two machines in the same BestFit bucket, the
// one whose class covers the VM's closest, on every seed. The same zone
// under LAVA sends the VM by class, against BestFit.
func TestLifeClassRulesPlace(t *testing.T) {
	names := func(r Rules) []string {
		var out []string
		for _, p := range r.Preferences {
			out = append(out, p.Name())
		}
		return out
	}
	if got, want := names(LifeClassRules(PreferLifetimeNILAS{})), []string{RulePreferNonEmptyMachines, RuleBestFit, RulePreferLifetimeNILAS}; !slices.Equal(got, want) {
		t.Fatalf("NILAS rules %v, want %v", got, want)
	}
	if got, want := names(LifeClassRules(PreferLifetimeLAVA{})), []string{RulePreferNonEmptyMachines, RulePreferLifetimeLAVA, RuleBestFit}; !slices.Equal(got, want) {
		t.Fatalf("LAVA rules %v, want %v", got, want)
	}
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 3, skus: []SKU{skuLarge}})
	// Types 0 and 4 are 1 and 16 cores. Machine 0 is the fullest (16 + 16
	// + 1 cores, 8 days), machines 1 and 2 hold one core each (2 h and
	// 1 day).
	setup := func(rule MachinePreferenceRule, seed uint64) (*Protean, *State) {
		s := NewState(inv)
		s.EnableLifeClasses(0)
		cfg := DefaultConfig()
		cfg.Seed = seed
		a, err := NewProtean(s, cfg, LifeClassRules(rule))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range []struct {
			m    int32
			typ  int32
			life float64
		}{{0, 4, 8 * 86400}, {0, 4, 8 * 86400}, {0, 0, 8 * 86400}, {1, 0, 2 * 3600}, {2, 0, 86400}} {
			id := VMID(i + 1)
			s.Place(placementFor(inv, &Request{ID: id, Tenant: int32(id)}, VMRequest{ID: id, Type: v.typ, Life: DistOf(v.life)}, v.m))
		}
		return a, s
	}
	bucket := func(s *State, m int32) int64 {
		d, _ := inv.Demand(0, m)
		return Quantize(BestFitScore(s.Free(m), d, inv.SKUs[inv.Machines[m].SKU].Capacity, DefaultConfig().Weights), DefaultBuckets)
	}
	_, s := setup(PreferLifetimeNILAS{}, 1)
	if !(bucket(s, 0) < bucket(s, 1) && bucket(s, 1) == bucket(s, 2)) {
		t.Fatalf("BestFit buckets %d, %d, %d: want machine 0 best and 1, 2 tied", bucket(s, 0), bucket(s, 1), bucket(s, 2))
	}
	if !(NILASScore(LifeClassOf(3600), s.LifeClass[1], false) < NILASScore(LifeClassOf(3600), s.LifeClass[0], false)) {
		t.Fatal("NILAS alone must prefer machine 1 to machine 0 for a 1-hour VM")
	}
	allocate := func(a *Protean, id VMID, life float64, full bool) int32 {
		for i := VMID(100); full && a.State().Free(0)[Cores] >= 1; i++ { // machine 0 out of the way: fill it
			a.State().Place(placementFor(inv, &Request{ID: i, Tenant: int32(i)}, VMRequest{ID: i, Type: 0, Life: DistOf(8 * 86400)}, 0))
		}
		d := a.Allocate(&Request{ID: id, Tenant: int32(id), LifeClass: LifeClassOf(life), VMs: []VMRequest{{ID: id, Type: 0, Life: DistOf(life)}}})
		if !d.OK {
			t.Fatalf("request %d rejected: %s", id, d.Reason)
		}
		if err := a.State().CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		return d.Placements[0].Machine
	}
	for seed := uint64(1); seed <= 8; seed++ {
		a, _ := setup(PreferLifetimeNILAS{}, seed)
		if m := allocate(a, 50, 3600, false); m != 0 {
			t.Fatalf("seed %d: NILAS placed on machine %d, want BestFit's machine 0", seed, m)
		}
		a, _ = setup(PreferLifetimeNILAS{}, seed)
		if m := allocate(a, 50, 3600, true); m != 1 {
			t.Fatalf("seed %d: NILAS placed on machine %d among BestFit's ties, want machine 1 (2 h covers 1 h closest)", seed, m)
		}
		a, _ = setup(PreferLifetimeLAVA{}, seed)
		if m := allocate(a, 50, 3600, false); m != 0 {
			t.Fatalf("seed %d: LAVA placed on machine %d, want machine 0 (the most anchored)", seed, m)
		}
		a, _ = setup(PreferLifetimeLAVA{}, seed)
		if m := allocate(a, 50, 3600, true); m != 0 && m != 2 {
			t.Fatalf("seed %d: LAVA placed on machine %d", seed, m)
		}
	}
}

package optimizer

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestLifetimeBucketOf(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want int8
	}{{0, 1}, {900, 1}, {900.5, 2}, {3600, 2}, {3601, 3}, {86400, 3}, {86400.001, 4}, {1e9, 4}, {math.Inf(1), 4},
		{-1, 0}, {math.NaN(), 0}} {
		if got := LifetimeBucketOf(c.s); got != c.want {
			t.Errorf("LifetimeBucketOf(%v) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestAlignedLifetimeScore(t *testing.T) {
	for _, c := range []struct {
		b, c  int8
		empty bool
		want  int64
	}{
		{0, 4, false, 0}, {0, 0, true, 0}, // no prediction: indifferent
		{9, 1, false, 0}, {-1, 1, true, 0}, // out of range counts as no prediction
		{1, 0, true, 8}, {4, 0, true, 8}, // empty: last
		{2, 0, false, 4},                                     // unknown machine
		{1, 1, false, 0}, {1, 2, false, 1}, {1, 4, false, 3}, // covered: closest first
		{4, 4, false, 0}, {4, 3, false, 5}, {4, 1, false, 7}, {2, 1, false, 5}, // extended: longest class first
	} {
		if got := AlignedLifetimeScore(c.b, c.c, c.empty); got != c.want {
			t.Errorf("AlignedLifetimeScore(%d, %d, empty=%v) = %d, want %d", c.b, c.c, c.empty, got, c.want)
		}
	}
}

// lifetimeZone is one rack of five 24-core machines holding, by hand:
// m0 a VM of bucket 1 (ends within 15 min), m1 a VM of bucket 4 (runs
// more than a day), m2 nothing, m3 a VM without prediction, m4 VMs of
// buckets 2 and 0.
func lifetimeZone(t *testing.T) *State {
	inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 5, skus: []SKU{skuSmall}})
	s := NewState(inv)
	for _, p := range []Placement{
		{VM: 1, Machine: 0, Demand: Vec{Cores: 2}, LifetimeBucket: 1},
		{VM: 2, Machine: 1, Demand: Vec{Cores: 2}, LifetimeBucket: 4},
		{VM: 3, Machine: 3, Demand: Vec{Cores: 2}},
		{VM: 4, Machine: 4, Demand: Vec{Cores: 2}, LifetimeBucket: 2},
		{VM: 5, Machine: 4, Demand: Vec{Cores: 2}},
	} {
		s.Place(p)
	}
	return s
}

// TestPreferAlignedLifetimeByHand scores the machines of lifetimeZone
// through the rule object, with the trait taken from a request: a VM of
// bucket 1 prefers the machine whose VMs end soon (m0) over the one whose
// VM runs more than 24 h (m1); a VM of bucket 4 the reverse; a VM without
// prediction scores every machine 0; an empty machine (m2) is the last
// choice of any predicted VM.
func TestPreferAlignedLifetimeByHand(t *testing.T) {
	s := lifetimeZone(t)
	cfg := DefaultConfig()
	env := &Env{Inv: s.Inv, State: s, Cfg: &cfg}
	for _, c := range []struct {
		bucket int8
		want   [5]int64 // m0..m4
	}{
		{0, [5]int64{0, 0, 0, 0, 0}},
		{1, [5]int64{0, 3, 8, 4, 1}},
		{2, [5]int64{5, 2, 8, 4, 0}},
		{3, [5]int64{6, 1, 8, 4, 5}},
		{4, [5]int64{7, 0, 8, 4, 6}},
	} {
		req := &Request{LifetimeBucket: c.bucket}
		p := PreferAlignedLifetime{}.NewPreference(env, req.traits(VMRequest{}).project(PreferAlignedLifetime{}.Traits()))
		var got [5]int64
		for m := range got {
			got[m] = p.Score(int32(m))
		}
		if got != c.want {
			t.Errorf("bucket %d: scores %v, want %v", c.bucket, got, c.want)
		}
	}
}

// TestLifetimeRulesPlaceByClass places VMs with Protean on lifetimeZone's
// first two machines (m0: a 4-core VM of bucket 1; m1: a 16-core VM of
// bucket 4), cache on and off. BestFit prefers m1, the fuller one: that is
// where DefaultRules put a new 4-core VM whatever its bucket, and where
// LifetimeRules put it when it is long-lived or unpredicted; a short-lived
// one goes to m0 instead, whose VM ends as soon as it does.
func TestLifetimeRulesPlaceByClass(t *testing.T) {
	const d4, d16 = 2, 4 // testTypes: 4 and 16 cores
	for _, cache := range []bool{true, false} {
		for _, c := range []struct {
			name   string
			rules  Rules
			bucket int8
			want   int32
		}{
			{"default rules, bucket 1", DefaultRules(), 1, 1},
			{"lifetime rules, bucket 1", LifetimeRules(), 1, 0},
			{"lifetime rules, bucket 4", LifetimeRules(), 4, 1},
			{"lifetime rules, bucket 3", LifetimeRules(), 3, 1},
			{"lifetime rules, no prediction", LifetimeRules(), 0, 1},
		} {
			inv := buildZone(t, zoneSpec{clusters: 1, racks: 1, perRack: 3, skus: []SKU{skuSmall}})
			s := NewState(inv)
			cfg := DefaultConfig()
			cfg.Cache = cache
			p, err := NewProtean(s, cfg, c.rules)
			if err != nil {
				t.Fatal(err)
			}
			place := func(id int64, typ int32, b int8) int32 {
				d := p.Allocate(&Request{ID: id, Tenant: int32(id), VMs: []VMRequest{{ID: id, Type: typ}}, LifetimeBucket: b})
				if !d.OK {
					t.Fatalf("%s: request %d: %s", c.name, id, d.Reason)
				}
				if err := s.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				return d.Placements[0].Machine
			}
			// Set up m0 and m1 through the engine: the 16-core bucket-4 VM
			// first (it goes to some empty machine), then the 4-core
			// bucket-1 VM, which under LifetimeRules avoids it and, under
			// DefaultRules, joins it: move it by hand to another machine.
			long := place(1, d16, 4)
			short := place(2, d4, 1)
			if short == long {
				pl, _ := s.Remove(2)
				pl.Machine = (long + 1) % 3
				s.Place(pl)
				short = pl.Machine
			}
			got := place(3, d4, c.bucket)
			want := long
			if c.want == 0 {
				want = short
			}
			if got != want {
				t.Errorf("%s (cache %v): machine %d, want %d (short-lived VM on %d, long-lived on %d)", c.name, cache, got, want, short, long)
			}
		}
	}
}

// TestLifetimeRulesIndifferentWithoutPredictions: with no request carrying
// a prediction, LifetimeRules places every VM where DefaultRules does (the
// rule scores every machine 0, so it breaks no tie and makes none).
func TestLifetimeRulesIndifferentWithoutPredictions(t *testing.T) {
	reqs := randomRequests(buildZone(t, smallZone), 2000, 41)
	run := func(rules Rules) []int32 {
		p, err := NewProtean(NewState(buildZone(t, smallZone)), DefaultConfig(), rules)
		if err != nil {
			t.Fatal(err)
		}
		return replay(t, p, reqs, 150, nil)
	}
	a, b := run(DefaultRules()), run(LifetimeRules())
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("placements differ: %d default, %d lifetime", len(a), len(b))
	}
}

// TestLifetimeRulesOrder pins where the preference sits.
func TestLifetimeRulesOrder(t *testing.T) {
	r := LifetimeRules()
	want := []string{RulePreferNonEmptyMachines, RulePreferAlignedLifetime, RuleBestFit, RuleRackBalance}
	if got := r.PreferenceOrder(); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	def := DefaultRules()
	if got := def.PreferenceOrder(); slices.Contains(got, RulePreferAlignedLifetime) {
		t.Fatalf("DefaultRules has the lifetime rule: %v", got)
	}
}

// TestBaselinesRefuseLifetimeRules: a baseline cannot honour a preference
// rule, so a rule set with PreferAlignedLifetime is refused in one line
// naming the policy and the rule; Protean takes it.
func TestBaselinesRefuseLifetimeRules(t *testing.T) {
	inv := buildZone(t, smallZone)
	for _, pol := range []Policy{FirstFit, BestFitP, WorstFit, Random} {
		_, err := NewBaseline(pol, NewState(inv), DefaultConfig(), LifetimeRules())
		if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "policy "+string(pol)+" cannot honour "+RulePreferAlignedLifetime) ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", pol, err)
		}
		if _, err := NewBaseline(pol, NewState(inv), DefaultConfig(), DefaultRules()); err != nil {
			t.Errorf("%s with DefaultRules: %v", pol, err)
		}
	}
	if _, err := NewProtean(NewState(inv), DefaultConfig(), LifetimeRules()); err != nil {
		t.Fatal(err)
	}
}

// lifetimeWorkload is randomRequests with predicted lifetime buckets
// (0..4, and some out-of-range values that count as 0) and a life per
// request in requests (0: censored, never released).
func lifetimeWorkload(inv *Inventory, n int, seed uint64) ([]*Request, []int) {
	reqs := randomRequests(inv, n, seed)
	rng := rand.New(rand.NewPCG(seed, 15))
	life := make([]int, n)
	for i, r := range reqs {
		switch x := rng.Float64(); {
		case x < 0.03:
			r.LifetimeBucket = int8(5 + rng.IntN(3)) // out of range
		case x < 0.05:
			r.LifetimeBucket = -1
		default:
			r.LifetimeBucket = int8(rng.IntN(NumLifetimeBuckets))
		}
		if rng.Float64() >= 0.15 {
			life[i] = 1 + int(float64(40*(1+int(lifetimeIndex(r.LifetimeBucket))))*rng.ExpFloat64())
		}
	}
	return reqs, life
}

// TestLifetimeStateConsistent replays lifetimeWorkload — VMs of mixed
// sizes, gang requests (some rolled back), low-priority VMs evicted by
// high-priority ones, censored VMs that never leave — through Protean with
// LifetimeRules, and migrations (PlanMigrations) every 250 requests. A
// shadow kept by the test from the decisions alone (where each VM went,
// with its request's bucket; evictions, departures and moves) is recounted
// per machine after every event and compared with State.LifetimeVMs, and
// CheckInvariants runs too. The run must have evicted, migrated and
// released VMs of every bucket, or the test proves nothing.
func TestLifetimeStateConsistent(t *testing.T) {
	inv := buildZone(t, smallZone)
	reqs, life := lifetimeWorkload(inv, 4000, 77)
	s := NewState(inv)
	cfg := DefaultConfig()
	p, err := NewProtean(s, cfg, LifetimeRules())
	if err != nil {
		t.Fatal(err)
	}
	type where struct {
		m int32
		b int8
	}
	shadow := map[VMID]where{}
	check := func(event string) {
		t.Helper()
		want := make([][NumLifetimeBuckets]int32, len(inv.Machines))
		for _, w := range shadow {
			b := w.b
			if b < 1 || b > 4 {
				b = 0
			}
			want[w.m][b]++
		}
		for m := range want {
			if want[m] != s.LifetimeVMs[m] {
				t.Fatalf("after %s: machine %d: VMs per bucket %v, shadow %v", event, m, s.LifetimeVMs[m], want[m])
			}
		}
		if len(shadow) != s.Len() {
			t.Fatalf("after %s: %d VMs placed, shadow %d", event, s.Len(), len(shadow))
		}
		if err := s.CheckInvariants(); err != nil {
			t.Fatalf("after %s: %v", event, err)
		}
	}
	due := map[int][]VMID{}
	var evicted, moved, failedGangs int
	released := [NumLifetimeBuckets]int{}
	for i, r := range reqs {
		for _, vm := range due[i] {
			if w, ok := shadow[vm]; ok { // not evicted meanwhile
				if !p.Release(vm) {
					t.Fatalf("release %d", vm)
				}
				delete(shadow, vm)
				released[lifetimeIndex(w.b)]++
				check("a departure")
			}
		}
		delete(due, i)
		d := p.Allocate(r)
		if d.OK {
			for _, pl := range d.Placements {
				shadow[pl.VM] = where{pl.Machine, r.LifetimeBucket}
				if life[i] > 0 {
					due[i+life[i]] = append(due[i+life[i]], pl.VM)
				}
			}
			for _, e := range d.Evicted {
				delete(shadow, e.VM)
				evicted++
			}
		} else if len(r.VMs) > 1 {
			failedGangs++
		}
		check("a placement")
		if i%250 == 249 {
			plan, err := PlanMigrations(s, cfg, LifetimeRules(), 20)
			if err != nil {
				t.Fatal(err)
			}
			for _, mv := range plan.Moves {
				w := shadow[mv.VM]
				if w.m != mv.From {
					t.Fatalf("move of VM %d from %d: shadow has it on %d", mv.VM, mv.From, w.m)
				}
				shadow[mv.VM] = where{mv.To, w.b}
				moved++
			}
			check("migrations")
		}
	}
	t.Logf("%d VMs alive, %d evicted, %d moved, %d gang requests failed, released per bucket %v", s.Len(), evicted, moved, failedGangs, released)
	if evicted == 0 || moved == 0 || failedGangs == 0 {
		t.Fatalf("the workload did not exercise every path: %d evicted, %d moved, %d failed gangs", evicted, moved, failedGangs)
	}
	for b, n := range released {
		if n == 0 {
			t.Fatalf("no VM of bucket %d departed", b)
		}
	}
}

// TestLifetimeRulesCacheTransparent: the cache hierarchy changes nothing
// with the lifetime trait in play — cached and uncached Protean place
// lifetimeWorkload identically.
func TestLifetimeRulesCacheTransparent(t *testing.T) {
	reqs, life := lifetimeWorkload(buildZone(t, smallZone), 2500, 5)
	run := func(cache bool) []int32 {
		cfg := DefaultConfig()
		cfg.Cache = cache
		p, err := NewProtean(NewState(buildZone(t, smallZone)), cfg, LifetimeRules())
		if err != nil {
			t.Fatal(err)
		}
		var out []int32
		due := map[int][]VMID{}
		for i, r := range reqs {
			for _, vm := range due[i] {
				p.Release(vm)
			}
			d := p.Allocate(r)
			for _, pl := range d.Placements {
				out = append(out, pl.Machine)
				if life[i] > 0 {
					due[i+life[i]] = append(due[i+life[i]], pl.VM)
				}
			}
			if i%100 == 0 {
				p.Refresh(0)
			}
		}
		return out
	}
	on, off := run(true), run(false)
	if len(on) == 0 || !slices.Equal(on, off) {
		t.Fatalf("cache on and off place differently (%d and %d placements)", len(on), len(off))
	}
}

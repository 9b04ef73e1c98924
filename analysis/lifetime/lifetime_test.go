package lifetime

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/optimizer"
	store "placelab/sql"
)

// lifeZone is a hand-made trace on two 10-core machines, replayed up to
// lifeTo, where lifetime alignment provably empties a machine that
// Protean without it keeps busy:
//
//	VM 0  4 cores  t=0     ends 100000   bucket 4 → machine X
//	VM 1  8 cores  t=1     ends 601      bucket 1 → does not fit X: Y
//	VM 2  2 cores  t=2     ends 100002   bucket 4
//	VM 3  2 cores  t=3     censored, seen until 90003: bucket 4 (age > 24 h)
//	VM 4  2 cores  t=7000  censored, seen until 8000: no bucket (age 1000 s)
//
// Without the rule, BestFit sends VM 2 to Y (full, 10 of 10 cores) rather
// than X (6 of 10): Y then holds a VM for more than a day after VM 1
// leaves, and only Y's first second is empty, a mean of 1/7200 empty
// machines. With true lifetimes VM 2 joins X (the same lifetime class;
// on Y it would extend a 10-minute machine by a day), Y empties when VM 1
// leaves at 601 and stays empty to 7200: (1 + 6599)/7200. VMs 3 and 4 go
// to X in both arms. Memory is 1 GB per VM and never binds.
func lifeZone(t *testing.T, db *store.DB) {
	t.Helper()
	lifeTrace(t, db, "life", []lifeVM{{"a", "c4", 0, 100000.0}, {"b", "c8", 1, 601.0}, {"c", "c2", 2, 100002.0}, {"d", "c2", 3, nil}, {"e", "c2", 7000, nil}},
		map[int64]float64{3: 90003, 4: 8000})
}

// lifeVM is a VM of a hand-made trace: tenant, type, start, end (nil:
// censored).
type lifeVM struct {
	tenant, typ string
	start       float64
	end         any
}

// lifeTrace ingests a hand-made trace on two 10-core machines (types c2,
// c4, c8: that many cores, 1 GB each), VM ids in order, with vm_censor
// rows (vm id → last seen alive).
func lifeTrace(t *testing.T, db *store.DB, name string, vms []lifeVM, censor map[int64]float64) {
	t.Helper()
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: name, Format: "test", Source: "hand"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		for i, name := range []string{"A", "B"} {
			if err := w.Append("machine", int32(i), name, "z", "dc", "c1", "r1", int16(0), "s10", "healthy"); err != nil {
				return err
			}
		}
		for _, ty := range [][]any{{"c4", 4.0, 1.0}, {"c8", 8.0, 1.0}, {"c2", 2.0, 1.0}} {
			if err := w.Append("vm_type", ty[0], nil, ty[1], ty[2], nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for i, v := range vms {
			if err := w.Append("vm", int64(i), fmt.Sprintf("vm%d", i), v.tenant, nil, v.typ, int16(0), v.start, v.end, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for vm, at := range censor {
			if err := w.Append("vm_censor", vm, at); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

const lifeTo = 7200.0

func lifeRun(t *testing.T, db *store.DB, arm string, predict func(int64) (int8, bool)) *Result {
	t.Helper()
	o := DefaultOptions()
	o.Arm, o.To, o.Predict = arm, lifeTo, predict
	r, err := Run(context.Background(), db, o.For("life"))
	if err != nil {
		t.Fatalf("%s: %v", arm, err)
	}
	return r
}

// TestLifetimeReplayByHand checks lifeZone's arms against the figures
// worked out by hand: empty machines over time, no rejection, the true
// buckets (censored VMs included), the oracle's coverage and accuracy; a
// model that predicts the truth matches the oracle, one that calls every
// VM short-lived matches the arm without the rule and is right on one VM
// of four; a rerun gives the same figures.
func TestLifetimeReplayByHand(t *testing.T) {
	db := testkit.MemDB(t)
	lifeZone(t, db)
	off, oracle := lifeRun(t, db, "off", nil), lifeRun(t, db, "oracle", nil)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(off.EmptyMachinesTimeMean, 1.0/7200) || !near(oracle.EmptyMachinesTimeMean, 6600.0/7200) {
		t.Fatalf("empty machines: off %v (want 1/7200), oracle %v (want 6600/7200)", off.EmptyMachinesTimeMean, oracle.EmptyMachinesTimeMean)
	}
	for _, r := range []*Result{off, oracle} {
		if r.VMs != 5 || r.Rejected != 0 || r.Machines != 2 || r.WindowFrom != 0 || r.WindowTo != lifeTo {
			t.Errorf("%s: %+v", r.Arm, r)
		}
		if r.TrueBuckets != [5]int{1, 1, 0, 0, 3} || r.CensoredVMs != 2 {
			t.Errorf("%s: true buckets %v, censored %d; want [1 1 0 0 3], 2", r.Arm, r.TrueBuckets, r.CensoredVMs)
		}
	}
	if off.PredictedVMs != 0 || slices.Contains(off.PreferenceOrder, optimizer.RulePreferAlignedLifetime) {
		t.Errorf("off: %d predicted VMs, rules %v", off.PredictedVMs, off.PreferenceOrder)
	}
	if oracle.PredictedVMs != 4 || oracle.CorrectVMs != 4 || oracle.CoveragePct != 80 || oracle.AccuracyPct != 100 ||
		!slices.Contains(oracle.PreferenceOrder, optimizer.RulePreferAlignedLifetime) || oracle.Evict != off.Evict {
		t.Errorf("oracle: %+v", oracle)
	}
	// Packing differs: the oracle keeps Y's cores out of the denominator.
	if !(oracle.PackingPct > off.PackingPct) {
		t.Errorf("packing: oracle %v%%, off %v%%", oracle.PackingPct, off.PackingPct)
	}
	truth := map[int64]int8{0: 4, 1: 1, 2: 4, 3: 4}
	right := lifeRun(t, db, "model", func(vm int64) (int8, bool) { b, ok := truth[vm]; return b, ok })
	if right.EmptyMachinesTimeMean != oracle.EmptyMachinesTimeMean || right.CorrectVMs != 4 || right.PredictedVMs != 4 {
		t.Errorf("model with the true buckets: %+v, oracle %+v", right, oracle)
	}
	short := lifeRun(t, db, "model", func(int64) (int8, bool) { return 1, true })
	if short.EmptyMachinesTimeMean != off.EmptyMachinesTimeMean || short.PredictedVMs != 5 || short.CorrectVMs != 1 || short.AccuracyPct != 20 {
		t.Errorf("model calling every VM short-lived: %+v", short)
	}
	again := lifeRun(t, db, "oracle", nil)
	a, b := *again, *oracle
	a.Seconds, b.Seconds, a.ReplaySeconds, b.ReplaySeconds = 0, 0, 0, 0
	a.LatencyP50US, b.LatencyP50US, a.LatencyP99US, b.LatencyP99US = 0, 0, 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("rerun differs:\n%+v\n%+v", a, b)
	}
	// Every figure is stored under its JSON name.
	names := map[string]bool{}
	for _, f := range oracle.Figures() {
		names[f.Metric] = true
	}
	for _, n := range []string{"empty_machines_time_mean", "packing_density_mean_pct", "rejected", "rejection_rate_pct", "coverage_pct", "accuracy_pct", "true_bucket_0", "true_bucket_4"} {
		if !names[n] {
			t.Errorf("figure %s missing", n)
		}
	}
}

// TestLifetimeOptionsValidate: each bad option is refused in one line
// naming what is wrong, before anything is loaded.
func TestLifetimeOptionsValidate(t *testing.T) {
	pred := func(int64) (int8, bool) { return 1, true }
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"unknown arm", func(o *Options) { o.Arm = "on" }, `arm "on": want one of [off model oracle nilas lava nilas-oracle lava-oracle]`},
		{"nilas without distributions", func(o *Options) { o.Arm = "nilas" }, "arm nilas needs a lifetime distribution predictor"},
		{"lava-oracle with distributions", func(o *Options) {
			o.Arm, o.PredictDist = "lava-oracle", func(int64) (optimizer.LifetimeDist, bool) { return optimizer.LifetimeDist{}, false }
		}, "arm lava-oracle takes no distribution predictor"},
		{"zero cadence", func(o *Options) { o.Arm, o.RepredictEvery = "nilas-oracle", 0 }, "repredict every 0 s"},
		{"NaN cadence", func(o *Options) { o.Arm, o.RepredictEvery = "nilas-oracle", math.NaN() }, "repredict every NaN s"},
		{"no arm", func(o *Options) { o.Arm = "" }, `arm "": want one of`},
		{"model without predictor", func(o *Options) { o.Arm = "model" }, "arm model needs a lifetime predictor"},
		{"oracle with predictor", func(o *Options) { o.Arm, o.Predict = "oracle", pred }, "arm oracle takes no predictor"},
		{"off with predictor", func(o *Options) { o.Arm, o.Predict = "off", pred }, "arm off takes no predictor"},
		{"NaN from", func(o *Options) { o.Arm, o.From = "off", math.NaN() }, "want from < to"},
		{"NaN to", func(o *Options) { o.Arm, o.To = "off", math.NaN() }, "want from < to"},
		{"inverted window", func(o *Options) { o.Arm, o.From, o.To = "off", 100, 50 }, "window [100, 50): want from < to"},
		{"empty window", func(o *Options) { o.Arm, o.From, o.To = "oracle", 100, 100 }, "want from < to"},
	} {
		o := DefaultOptions()
		c.edit(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		// LifetimeReplay refuses it too, with no database needed.
		if _, err := Run(context.Background(), nil, o.For("life")); err == nil {
			t.Errorf("%s: LifetimeReplay ran", c.name)
		}
	}
	for _, arm := range []string{"off", "oracle", "nilas-oracle", "lava-oracle"} {
		o := DefaultOptions()
		o.Arm = arm
		if err := o.Validate(); err != nil {
			t.Errorf("%s: %v", arm, err)
		}
	}
}

// TestLifetimeReplayBadPredictor: a predictor bucket outside 0..4 stops
// the replay with an error naming the bucket and the VM.
func TestLifetimeReplayBadPredictor(t *testing.T) {
	db := testkit.MemDB(t)
	lifeZone(t, db)
	o := DefaultOptions()
	o.Arm, o.To = "model", lifeTo
	o.Predict = func(vm int64) (int8, bool) {
		if vm == 2 {
			return 7, true
		}
		return 1, true
	}
	_, err := Run(context.Background(), db, o.For("life"))
	if err == nil || !strings.Contains(err.Error(), "bucket 7 for VM 2") {
		t.Fatalf("%v", err)
	}
}

// TestEmptyMachinesTimeMean checks the integral by hand on three machines
// over [10, 110]: machine 0 busy [0, 40) and [30, 60) (overlapping: 50 s
// in the window), machine 1 busy from 50 until its VM's eviction at 70
// (20 s), a rejected row and a VM placed after its end (ignored), machine
// 2 never busy. Empty: (100−50 + 100−20 + 100)/100 = 2.3 machines.
func TestEmptyMachinesTimeMean(t *testing.T) {
	tr := &replay.Trace{MachineIDs: []int32{7, 8, 9}, VMs: []replay.TraceVM{
		{ID: 1, End: 40}, {ID: 2, End: 60}, {ID: 3, End: math.Inf(1)}, {ID: 4, End: 90}, {ID: 5, End: 20},
	}}
	nan := math.NaN()
	rows := []replay.PlacementRow{
		{VM: 1, T: 0, Machine: 7, Outcome: "placed", EvictedAt: nan},
		{VM: 2, T: 30, Machine: 7, Outcome: "placed", EvictedAt: nan},
		{VM: 3, T: 50, Machine: 8, Outcome: "evicted", EvictedAt: 70},
		{VM: 4, T: 60, Machine: -1, Outcome: "rejected", EvictedAt: nan},
		{VM: 5, T: 100, Machine: 9, Outcome: "placed", EvictedAt: nan},
	}
	mean, from, to := EmptyMachinesTimeMean(tr, rows, 10, 110)
	if math.Abs(mean-2.3) > 1e-12 || from != 10 || to != 110 {
		t.Fatalf("mean %v over [%v, %v], want 2.3 over [10, 110]", mean, from, to)
	}
	// An unbounded window ends at the last row: [10, 100].
	if mean, _, to = EmptyMachinesTimeMean(tr, rows, 10, math.Inf(1)); to != 100 || math.Abs(mean-(3-(50.0+20)/90)) > 1e-12 {
		t.Fatalf("unbounded: mean %v to %v", mean, to)
	}
	// A zero span counts the machines empty at t0: at 35 only machine 0 is busy.
	if mean, _, _ = EmptyMachinesTimeMean(tr, rows[:2], 35, 35); mean != 2 {
		t.Fatalf("zero span: %v", mean)
	}
}

// TestLifetimeReplayGangBucket: a request of several VMs carries the
// longest of its VMs' buckets when each has one, and none when one lacks
// it. Tenant t asks for a 10-minute VM and a two-day VM at once: the
// request is bucket 4, right for one VM of two. Tenant u asks for a
// 695-second VM and a censored one seen only 995 s: no bucket.
func TestLifetimeReplayGangBucket(t *testing.T) {
	db := testkit.MemDB(t)
	lifeTrace(t, db, "gang", []lifeVM{{"t", "c2", 0, 600.0}, {"t", "c2", 0, 172800.0}, {"u", "c2", 5, 700.0}, {"u", "c2", 5, nil}},
		map[int64]float64{3: 1000})
	o := DefaultOptions()
	o.Arm = "oracle"
	r, err := Run(context.Background(), db, o.For("gang"))
	if err != nil {
		t.Fatal(err)
	}
	if r.TrueBuckets != [5]int{1, 2, 0, 0, 1} || r.PredictedVMs != 2 || r.CorrectVMs != 1 || r.CoveragePct != 50 || r.AccuracyPct != 50 {
		t.Fatalf("%+v", r)
	}
}

// TestLifetimeWindowStartsAtFirstPlacement: a trace that begins late (the
// Azure V1 flavor trace's dev split starts at 1,800,000 s) must not count
// the empty time before its first VM. One 8-core VM from 5000 s to 6000 s
// on two machines, window to 7200 s: from 5000 s, machine B is empty
// throughout (2200 s) and A after 6000 s (1200 s): a mean of 3400/2200
// empty machines, not (7200 + 6200)/7200 from 0.
func TestLifetimeWindowStartsAtFirstPlacement(t *testing.T) {
	db := testkit.MemDB(t)
	lifeTrace(t, db, "life", []lifeVM{{"a", "c8", 5000, 6000.0}}, nil)
	r := lifeRun(t, db, "off", nil)
	if r.WindowFrom != 5000 || math.Abs(r.EmptyMachinesTimeMean-3400.0/2200) > 1e-9 {
		t.Errorf("window from %v, empty machines %v: want 5000 and %v", r.WindowFrom, r.EmptyMachinesTimeMean, 3400.0/2200)
	}
}

package oversub

import (
	"context"
	"errors"
	"math"
	"testing"

	"placelab/analysis/internal/testkit"
	"placelab/datasets/synth"
	"placelab/optimizer"
	"placelab/predict"
	store "placelab/sql"
)

func TestP95Bucket(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want int8
	}{{0, 1}, {25, 1}, {25.01, 2}, {50, 2}, {75, 3}, {75.5, 4}, {100, 4}} {
		if got := p95Bucket(c.p); got != c.want {
			t.Errorf("p95Bucket(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}

// oversubZone is the oversubscription experiment's quick zone
// (experiments "oversubscription"): 600 machines, 92% of their cores
// allocated at the start, 12,000 VMs over two days, 100 CPU series.
func oversubZone(t *testing.T) *store.DB {
	t.Helper()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs, cfg.Load, cfg.Seed = 600, 12000, 2, 100, 0.92, 1
	if err := synth.Ingest(context.Background(), db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestOversubArms replays the zone under every arm of RC §6.2 at the
// paper's defaults (MAX_OVERSUB 125%, MAX_UTIL 100%, 71% production) and
// checks RC's claims for RC-informed-soft where they hold on this data:
// the baseline has no reading above 100% (a VM uses at most its cores);
// rc-soft oversubscribes servers yet has at most a sixth of naive's
// readings above 100% (RC: naive "shows 6× more"); with predictions for
// every VM (rc-soft-right) oversubscription fails fewer VMs than the
// baseline; the oracle that always names a wrong bucket exceeds 100% at
// least as often as the right one; every VM is accounted for; a rerun
// gives the same figures.
//
// RC's other claim, that rc-soft itself fails fewer VMs than the baseline
// (0 against 0.25%), does not hold here, and is logged rather than
// asserted: rc-soft learns each subscription's bucket from its VMs
// completed so far, so the VMs alive at the start — 92% of the cores — get
// no confident prediction and are held to all their cores, while the
// production/non-production split of Algorithm 1 already costs the
// production VMs capacity. Given their true buckets (rc-soft-right) the
// failures fall below the baseline's. RC's predictions come from models
// trained on earlier months, so its VMs have predictions from the start.
func TestOversubArms(t *testing.T) {
	ctx := context.Background()
	db := oversubZone(t)
	got := map[string]*Result{}
	for _, arm := range Arms {
		if arm == "rc-model" {
			continue // TestOversubModelArm: it needs a trained model
		}
		o := DefaultOptions()
		o.Arm, o.Seed = arm, 1
		r, err := Run(ctx, db, o.For("s"))
		if err != nil {
			t.Fatal(err)
		}
		if r.VMs != 12000 || r.Readings == 0 || r.MaxOversub != optimizer.DefaultMaxOversub {
			t.Fatalf("%s: %+v", arm, r)
		}
		got[arm] = r
		t.Logf("%-14s failures %4d  readings %7d  >100%% %5d  oversubscribed %6d  confident %4d/%4d correct %4d", arm, r.Failures, r.Readings, r.ReadingsOver100, r.OversubscribedReadings, r.Confident, r.NonProduction, r.Correct)
	}
	base, naive, soft := got["baseline"], got["naive"], got["rc-soft"]
	if base.ReadingsOver100 != 0 || base.OversubscribedReadings != 0 {
		t.Errorf("baseline: %+v", base)
	}
	if soft.OversubscribedReadings == 0 || naive.ReadingsOver100 == 0 || 6*soft.ReadingsOver100 > naive.ReadingsOver100 {
		t.Errorf("rc-soft %d readings above 100%% (%d oversubscribed), naive %d: want rc-soft to oversubscribe with at most a sixth of naive's",
			soft.ReadingsOver100, soft.OversubscribedReadings, naive.ReadingsOver100)
	}
	if n, h := naive, got["rc-hard"]; n.ReadingsOver100 < h.ReadingsOver100 || n.OversubscribedReadings <= h.OversubscribedReadings {
		t.Errorf("naive %d readings above 100%% (%d oversubscribed), rc-hard %d (%d)", n.ReadingsOver100, n.OversubscribedReadings, h.ReadingsOver100, h.OversubscribedReadings)
	}
	if got["rc-soft-wrong"].ReadingsOver100 < got["rc-soft-right"].ReadingsOver100 {
		t.Errorf("wrong oracle %d, right oracle %d", got["rc-soft-wrong"].ReadingsOver100, got["rc-soft-right"].ReadingsOver100)
	}
	if got["rc-soft-right"].Failures >= base.Failures {
		t.Errorf("oversubscription with right predictions did not lower failures: %d, baseline %d", got["rc-soft-right"].Failures, base.Failures)
	}
	t.Logf("RC's rc-soft failures below the baseline's (not asserted, see above): rc-soft %d, baseline %d", soft.Failures, base.Failures)
	if got["rc-soft-right"].Correct != got["rc-soft-right"].Confident || got["rc-soft-wrong"].Correct != 0 {
		t.Errorf("oracles: right %+v, wrong %+v", got["rc-soft-right"], got["rc-soft-wrong"])
	}
	o := DefaultOptions()
	o.Arm, o.Seed = "rc-soft", 1
	again, err := Run(ctx, db, o.For("s"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := *again, *soft
	a.Seconds, b.Seconds = 0, 0
	if a != b {
		t.Errorf("rerun differs:\n%+v\n%+v", a, b)
	}
	// A share of 0 means no production VM, not the default 71%.
	o.ProductionShare = 0
	none, err := Run(ctx, db, o.For("s"))
	if err != nil {
		t.Fatal(err)
	}
	if none.NonProduction <= soft.NonProduction {
		t.Errorf("production share 0: %d non-production requests, at 71%% %d", none.NonProduction, soft.NonProduction)
	}
	// A dataset without CPU readings needs --series.
	testkit.HandZone(t, db)
	o.Arm = "naive"
	if _, err := Run(ctx, db, o.For("hand")); !errors.Is(err, ErrNoSeries) {
		t.Errorf("no series: %v", err)
	}
}

// TestOversubOptionsRefused: options out of range are errors, never the
// defaults (a zero MAX_UTIL once became 100%, a window ending at 0 the
// whole trace, a NaN start the trace's beginning).
func TestOversubOptionsRefused(t *testing.T) {
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	nan := math.NaN()
	for name, mutate := range map[string]func(*Options){
		"unknown arm":        func(o *Options) { o.Arm = "bogus" },
		"MAX_OVERSUB 0":      func(o *Options) { o.MaxOversub = 0 },
		"MAX_OVERSUB 0.9":    func(o *Options) { o.MaxOversub = 0.9 },
		"MAX_OVERSUB NaN":    func(o *Options) { o.MaxOversub = nan },
		"MAX_UTIL 0":         func(o *Options) { o.MaxUtil = 0 },
		"MAX_UTIL NaN":       func(o *Options) { o.MaxUtil = nan },
		"MAX_UTIL Inf":       func(o *Options) { o.MaxUtil = math.Inf(1) },
		"share 1.5":          func(o *Options) { o.ProductionShare = 1.5 },
		"share NaN":          func(o *Options) { o.ProductionShare = nan },
		"from NaN":           func(o *Options) { o.From = nan },
		"to 0 from -Inf":     func(o *Options) { o.To = math.Inf(-1) },
		"to before from":     func(o *Options) { o.From, o.To = 7200, 3600 },
		"to equal to from":   func(o *Options) { o.From, o.To = 3600, 3600 },
		"to NaN":             func(o *Options) { o.To = nan },
		"zero-value options": func(o *Options) { *o = Options{Arm: "naive"} },
		"rc-model, no model": func(o *Options) { o.Arm = "rc-model" },
		"naive with a model": func(o *Options) { o.Predict = func(int64) (int8, float64) { return 1, 1 } },
	} {
		o := DefaultOptions()
		o.Arm = "naive"
		mutate(&o)
		if _, err := Run(context.Background(), db, o.For("hand")); err == nil || errors.Is(err, ErrNoSeries) {
			t.Errorf("%s: %v, want an error about the options", name, err)
		}
	}
}

// TestOversubSpanRefused: a trace whose span would need a readings grid
// beyond MaxOversubCells is refused before anything is allocated (a VM
// ending after 30 years on 600 machines is 1.9e9 cells, 15 GB).
func TestOversubSpanRefused(t *testing.T) {
	db := oversubZone(t)
	if _, err := db.SQL().Exec("UPDATE vm SET end_s = 30 * 365.25 * 86400 WHERE dataset = 's' AND vm_id = (SELECT min(vm_id) FROM vm WHERE dataset = 's')"); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Arm = "baseline"
	_, err := Run(context.Background(), db, o.For("s"))
	if !errors.Is(err, ErrSpanTooLarge) {
		t.Fatalf("got %v, want ErrSpanTooLarge", err)
	}
	t.Log(err)
	// The window narrows the span back to what the trace holds.
	o.To = 2 * 86400
	if _, err := Run(context.Background(), db, o.For("s")); err != nil {
		t.Fatal(err)
	}
}

// TestOversubModelArm checks the rc-model arm's wiring, then logs what a
// trained model brings at the cold start. Wiring: a predictor naming
// bucket 4 with full confidence for every VM counts every non-production
// request as confident yet places exactly as one that never predicts
// (Algorithm 1 takes a bucket-4 VM at all its cores, as a VM without a
// prediction); one naming bucket 1 oversubscribes more. The model: a P95
// forest trained on the zone through placelab predict, served by RC's
// client, over the first hour, when the history rule has almost nothing;
// every request there is before the model's training cut (in-sample). How
// many of them the model is confident about is logged, not asserted: on
// this zone, VMs alive at the start carry no history, and the forest is
// rarely sure of a P95 bucket from size and type alone.
func TestOversubModelArm(t *testing.T) {
	ctx := context.Background()
	db := oversubZone(t)
	run := func(arm string, pred func(int64) (int8, float64), cut float64) *Result {
		t.Helper()
		o := DefaultOptions()
		o.Arm, o.Seed, o.From, o.To, o.Predict, o.ModelCut = arm, 1, 0, 3600, pred, cut
		r, err := Run(ctx, db, o.For("s"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	none := run("rc-model", func(int64) (int8, float64) { return 0, 0 }, 0)
	full := run("rc-model", func(int64) (int8, float64) { return 4, 1 }, 0)
	low := run("rc-model", func(int64) (int8, float64) { return 1, 1 }, 0)
	if none.Confident != 0 || full.Confident != full.NonProduction || full.NonProduction == 0 {
		t.Errorf("confident predictions: none %d, bucket 4 %d of %d", none.Confident, full.Confident, full.NonProduction)
	}
	if full.Failures != none.Failures || full.Readings != none.Readings || full.ReadingsOver100 != none.ReadingsOver100 || full.OversubscribedReadings != none.OversubscribedReadings {
		t.Errorf("bucket 4 placed unlike no prediction: %+v\n%+v", full, none)
	}
	if low.OversubscribedReadings <= none.OversubscribedReadings {
		t.Errorf("bucket 1 everywhere: %d oversubscribed readings, no prediction %d", low.OversubscribedReadings, none.OversubscribedReadings)
	}
	to := predict.DefaultTrainOptions("s")
	to.Metrics, to.AllMetrics = []predict.Metric{predict.P95CPU}, false
	to.Forest.NumParallelTree = 30
	tr, err := predict.Train(ctx, db, to)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	pred, cut, c, err := P95Predictor(ctx, db, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	model, soft := run("rc-model", pred, cut), run("rc-soft", nil, 0)
	for _, r := range []*Result{model, soft} {
		t.Logf("%-8s first hour: confident %4d of %4d non-production requests, correct %4d, in-sample %d, failures %d",
			r.Arm, r.Confident, r.NonProduction, r.Correct, r.InSample, r.Failures)
	}
	if model.InSample != model.NonProduction || cut <= 3600 {
		t.Errorf("in-sample %d of %d requests, cut %v", model.InSample, model.NonProduction, cut)
	}
	if _, _, _, err := P95Predictor(ctx, db, "s", predict.Boosted); !errors.Is(err, predict.ErrNoModel) {
		t.Errorf("no boosted P95 model stored: %v", err)
	}
}

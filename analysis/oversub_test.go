package analysis

import (
	"context"
	"errors"
	"math"
	"testing"

	"placelab/datasets/synth"
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

// TestOversubArms replays a tight synthetic zone (90% of cores allocated at
// the start, MAX_OVERSUB 200%) under every arm of RC §6.2: without
// oversubscription no reading exceeds 100% (a VM uses at most its cores);
// oversubscribing without predictions oversubscribes more servers and
// exceeds 100% at least as often as with them, and RC-informed oversubscription fails fewer VMs than the baseline; the oracle that always names a wrong bucket does worse
// than the right one; every VM is accounted for; a rerun gives the same
// figures.
func TestOversubArms(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs, cfg.SeriesDays, cfg.Load = 200, 8000, 3, 60, 3, 0.9
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	got := map[string]*OversubResult{}
	for _, arm := range OversubArms {
		r, err := OversubReplay(ctx, db, "s", OversubOptions{Arm: arm, Seed: 3, MaxOversub: 2, From: math.Inf(-1), To: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		if r.VMs != 8000 || r.Readings == 0 {
			t.Fatalf("%s: %+v", arm, r)
		}
		got[arm] = r
		t.Logf("%-14s failures %4d  readings %7d  >100%% %5d  oversubscribed %6d  confident %4d/%4d correct %4d", arm, r.Failures, r.Readings, r.ReadingsOver100, r.OversubscribedReadings, r.Confident, r.NonProduction, r.Correct)
	}
	if b := got["baseline"]; b.ReadingsOver100 != 0 || b.OversubscribedReadings != 0 {
		t.Errorf("baseline: %+v", b)
	}
	if n, h := got["naive"], got["rc-hard"]; n.ReadingsOver100 < h.ReadingsOver100 || n.OversubscribedReadings <= h.OversubscribedReadings {
		t.Errorf("naive %d readings above 100%% (%d oversubscribed), rc-hard %d (%d)", n.ReadingsOver100, n.OversubscribedReadings, h.ReadingsOver100, h.OversubscribedReadings)
	}
	if got["rc-soft-wrong"].ReadingsOver100 < got["rc-soft-right"].ReadingsOver100 {
		t.Errorf("wrong oracle %d, right oracle %d", got["rc-soft-wrong"].ReadingsOver100, got["rc-soft-right"].ReadingsOver100)
	}
	if got["rc-soft-right"].Failures >= got["baseline"].Failures {
		t.Errorf("oversubscription with right predictions did not lower failures: %d, baseline %d", got["rc-soft-right"].Failures, got["baseline"].Failures)
	}
	if got["rc-soft-right"].Correct != got["rc-soft-right"].Confident || got["rc-soft-wrong"].Correct != 0 {
		t.Errorf("oracles: right %+v, wrong %+v", got["rc-soft-right"], got["rc-soft-wrong"])
	}
	again, err := OversubReplay(ctx, db, "s", OversubOptions{Arm: "rc-soft", Seed: 3, MaxOversub: 2, From: math.Inf(-1), To: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	a, b := *again, *got["rc-soft"]
	a.Seconds, b.Seconds = 0, 0
	if a != b {
		t.Errorf("rerun differs:\n%+v\n%+v", a, b)
	}
	if _, err := OversubReplay(ctx, db, "s", OversubOptions{Arm: "bogus"}); err == nil {
		t.Error("unknown arm accepted")
	}
	// A dataset without CPU readings needs --series.
	handZone(t, db)
	if _, err := OversubReplay(ctx, db, "hand", OversubOptions{Arm: "naive"}); !errors.Is(err, ErrNoSeries) {
		t.Errorf("no series: %v", err)
	}
}

package replay

import (
	"context"
	"testing"

	"placelab/analysis/replay/healable"
	"placelab/optimizer"
)

// TestHealableSamplesOfReplay checks a replay's healable-failure samples,
// computed beside the replay (healable.Sampler.Start) while it goes on,
// against the state rebuilt from the stored placements alone: at each
// sample time t, the VMs that arrived before t (a sample at t precedes the
// decisions at t), neither departed by t nor evicted before t, each on its
// machine with its type's demand there. A new sampler's Sample of that
// state must give the stored figures exactly. The trace mixes sizes and
// priorities, rejects some requests and evicts some VMs; the healing
// buffer is 1 and samples come every 10 minutes, so that many figures are
// neither 0 nor 100.
func TestHealableSamplesOfReplay(t *testing.T) {
	tr := streamTrace(t)
	// Busy and quiet spells of 6000 s: the zone fills (evicting and
	// rejecting) and drains (so that some failures heal and some not).
	vms := tr.VMs[:0]
	for i, v := range tr.VMs {
		if int(v.Start/6000)%2 == 0 || i%4 == 0 {
			vms = append(vms, v)
		}
	}
	tr.VMs = vms
	cfg := optimizer.DefaultConfig()
	cfg.Evict = true
	alloc, err := NewAllocator("protean", tr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultReplayOptions()
	o.Buffers = optimizer.Buffers{Healing: 1}
	o.Interval = 600
	res, err := Replay(context.Background(), tr, alloc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Evicted == 0 || res.Summary.Rejected == 0 {
		t.Fatalf("the trace lacks a hard case: %d evicted, %d rejected", res.Summary.Evicted, res.Summary.Rejected)
	}
	inv := tr.Inv
	index, byID := traceIndex(tr)
	type fig struct{ m, r float64 }
	got := map[float64]*fig{}
	var times []float64
	for _, r := range res.Metrics {
		switch r.Metric {
		case "healable_machine_failures_pct":
			got[r.T] = &fig{m: r.Value}
			times = append(times, r.T)
		case "healable_rack_failures_pct":
			got[r.T].r = r.Value
		}
	}
	partial := 0 // samples with a figure strictly between 0 and 100
	for _, at := range times {
		st := optimizer.NewState(inv)
		for _, p := range res.Placements {
			v := byID[p.VM]
			if p.Outcome == "rejected" || p.T >= at || v.End <= at || p.Outcome == "evicted" && p.EvictedAt < at {
				continue
			}
			m := index[p.Machine]
			d, _ := inv.Demand(v.Type, m)
			st.Place(optimizer.Placement{VM: p.VM, Machine: m, Type: v.Type, Tenant: v.Tenant, Demand: d})
		}
		wm, wr := healable.New(inv).Sample(st, o.Buffers)
		if g := got[at]; g.m != wm || g.r != wr {
			t.Fatalf("sample at %v s: healable machine and rack failures %v%%, %v%%; the state rebuilt from the placements gives %v%%, %v%%", at, g.m, g.r, wm, wr)
		}
		if wm > 0 && wm < 100 || wr > 0 && wr < 100 {
			partial++
		}
	}
	t.Logf("%d of %d", partial, len(times))
	if len(times) < 50 || partial < 10 {
		t.Fatalf("%d samples, %d strictly between 0 and 100%%: the test checks too little", len(times), partial)
	}
	if s := res.Summary; s.HealableSampleSeconds <= 0 || s.HealableWaitSeconds <= 0 || s.HealableWaitSeconds > s.Seconds {
		t.Fatalf("healable sample seconds %v, wait %v, replay %v", s.HealableSampleSeconds, s.HealableWaitSeconds, s.Seconds)
	}
}

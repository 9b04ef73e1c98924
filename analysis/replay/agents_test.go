package replay

import (
	"testing"

	"placelab/optimizer"
)

// TestConflictsPerMinute reproduces defect 4 of issue 13: the figure set
// beside Table 5's "P99 conflicts per minute" was 60 × the p99 of per-second
// conflicts over the seconds that had any (180 here). It is now the p99 of
// per-minute counts over every minute of the run, idle ones included.
func TestConflictsPerMinute(t *testing.T) {
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 8, optimizer.Memory: 32}}},
		[]optimizer.MachineSpec{{Name: "m", Cluster: "c", Rack: "r", Healthy: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{Dataset: "x", Inv: inv, MachineIDs: []int32{0}}
	reqs := []optimizer.Request{{ID: 0, VMs: []optimizer.VMRequest{{ID: 1}}}, {ID: 1, VMs: []optimizer.VMRequest{{ID: 2}}}}
	outs := []outcome{
		// conflicts at 0.5 and 0.6 s (minute 0), 61, 61.5 and 61.7 s (minute 1); the run lasts 300 s
		{done: true, reason: "x", arrive: 0, start: 0, at: 100, conflictAt: []float64{0.5, 0.6}},
		{done: true, reason: "x", arrive: 0, start: 0, at: 300, conflictAt: []float64{61, 61.5, 61.7}},
	}
	res := summarizeAgents(tr, nil, reqs, outs, newSampler(inv), DefaultAgentOptions())
	s := res.Summary
	// minutes [0,60) [60,120) ... [300,360): counts 2, 3, 0, 0, 0, 0 → p99 (nearest rank of 6) = 3
	if s.ConflictsP99PerMin != 3 {
		t.Fatalf("p99 conflicts per minute = %v, want 3", s.ConflictsP99PerMin)
	}
	// 301 seconds, two with conflicts (2 and 3): p99 is the 298th of 301 sorted counts = 0; the max is 3
	if s.ConflictsP99PerS != 0 || s.ConflictsMaxPerS != 3 || s.Conflicts != 5 {
		t.Fatalf("per second p99 %v max %v, conflicts %d", s.ConflictsP99PerS, s.ConflictsMaxPerS, s.Conflicts)
	}
}

// TestWindowRefused: a window that ends before it starts, a NaN bound, an
// interval that is not a positive number are errors (defect 8: --to ≤ --from
// replayed to the end, --interval nan gave empty metrics); a span that would
// take more than MaxSamples samples is refused rather than sampled for ever.
func TestWindowRefused(t *testing.T) {
	for _, o := range []ReplayOptions{
		{From: 100, To: 50, Interval: 3600},
		{From: 100, To: 100, Interval: 3600},
		{From: 0, To: nan(), Interval: 3600},
		{From: nan(), To: 10, Interval: 3600},
		{From: 0, To: 10, Interval: nan()},
		{From: 0, To: 10, Interval: 0},
		{From: 0, To: 10, Interval: -1},
	} {
		if err := o.Normalize(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := checkSpan(0, 1e300, 3600); err == nil {
		t.Error("a span of 1e300 s at hourly samples accepted")
	}
}

func nan() float64 { var z float64; return z / z }

package replay

import (
	"context"
	"math"
	"reflect"
	"testing"

	"placelab/optimizer"
)

// gangTrace: on availZone(4) (four machines of 4 cores and 16 GB, one
// rack each), tenants 1 and 2 take a whole machine each at t = 10; at
// t = 20 tenant 9 asks for four whole machines in one request (VMs 2–5).
// Worked out by hand: ORDER keeps request order (one size), VMs 2 and 3
// take the two free machines, VM 4 finds every machine short of cores
// (AreNodeResourcesValid), so the request is rejected, VMs 2 and 3 rolled
// back, VM 5 never tried.
func gangTrace(t *testing.T) *Trace {
	tr := &Trace{Dataset: "gang", Inv: availZone(t, 4), MachineIDs: []int32{100, 101, 102, 103}}
	for i, tenant := range []int32{1, 2, 9, 9, 9, 9} {
		at := 20.0
		if i < 2 {
			at = 10
		}
		tr.VMs = append(tr.VMs, TraceVM{ID: int64(i), Tenant: tenant, Type: 0, Start: at, End: math.Inf(1)})
	}
	return tr
}

// TestGangRejectionRecorded is issue 32 item 6: `explain` on a VM of a
// rejected gang request told a story of its own ("rejected" with a best
// machine) or said no explanation was recorded, because what became of
// each VM of the request was not kept. The replay now records, for a
// rejected request of several VMs, every VM in the order tried: rolled
// back (with the machine it held), failed, never tried — on one agent and
// on many, explanations on or off.
func TestGangRejectionRecorded(t *testing.T) {
	want := []GangVM{
		{Request: 2, VM: 2, Position: 0, Role: GangRolledBack},
		{Request: 2, VM: 3, Position: 1, Role: GangRolledBack},
		{Request: 2, VM: 4, Position: 2, Role: GangFailed, Machine: -1},
		{Request: 2, VM: 5, Position: 3, Role: GangNotTried, Machine: -1},
	}
	check := func(t *testing.T, res *Result, explain bool) {
		t.Helper()
		if res.Summary.Rejected != 4 || res.Summary.RejectedBy[optimizer.RuleAreNodeResourcesValid] != 4 {
			t.Fatalf("rejected %d by %v, want the 4 VMs of the request by %s", res.Summary.Rejected, res.Summary.RejectedBy, optimizer.RuleAreNodeResourcesValid)
		}
		got := res.Gangs
		if len(got) != len(want) {
			t.Fatalf("gang rows = %+v, want %d rows", got, len(want))
		}
		// The rolled-back VMs held the two machines the first tenants left
		// free, one each (which one is the tie-break's).
		held := map[int32]bool{}
		for i := range got {
			if got[i].Role == GangRolledBack {
				if got[i].Machine < 100 || held[got[i].Machine] {
					t.Errorf("rolled-back VM %d held machine %d", got[i].VM, got[i].Machine)
				}
				held[got[i].Machine] = true
				got[i].Machine = 0
			}
		}
		for _, p := range res.Placements {
			if p.Outcome == "placed" && held[p.Machine] {
				t.Errorf("VM %d is placed on machine %d, which rolled-back VM held: the machines held must have been free", p.VM, p.Machine)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("gang rows =\n%+v\nwant\n%+v", got, want)
		}
		if !explain {
			return
		}
		for _, p := range res.Placements {
			switch p.VM {
			case 4:
				if p.Explain == nil || p.Explain.FailedRule != optimizer.RuleAreNodeResourcesValid || len(p.Explain.Short) == 0 || p.Explain.Short[0].Dim != optimizer.Cores {
					t.Errorf("failed VM's explanation = %+v, want %s short of cores", p.Explain, optimizer.RuleAreNodeResourcesValid)
				}
			case 5:
				if p.Explain != nil {
					t.Errorf("never-tried VM 5 has an explanation: %+v", p.Explain)
				}
			}
		}
	}
	for _, explain := range []bool{true, false} {
		cfg := optimizer.DefaultConfig()
		cfg.Explain = explain
		t.Run("one agent, explain="+map[bool]string{true: "on", false: "off"}[explain], func(t *testing.T) {
			tr := gangTrace(t)
			alloc, err := NewAllocator("protean", tr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Replay(context.Background(), tr, alloc, DefaultReplayOptions())
			if err != nil {
				t.Fatal(err)
			}
			check(t, res, explain)
		})
	}
	t.Run("baseline", func(t *testing.T) {
		tr := gangTrace(t)
		alloc, err := NewAllocator("firstfit", tr, optimizer.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		res, err := Replay(context.Background(), tr, alloc, DefaultReplayOptions())
		if err != nil {
			t.Fatal(err)
		}
		check(t, res, false)
	})
	t.Run("agents", func(t *testing.T) {
		cfg := optimizer.DefaultConfig()
		cfg.Explain = false
		o := DefaultAgentOptions()
		o.Agents = 2
		res, err := ReplayAgents(context.Background(), gangTrace(t), cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		check(t, res, false)
	})
}

package replay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"placelab/optimizer"
)

// TestUpkeepCounts: a replay's summary counts Protean's cache upkeep
// (optimizer.Protean.CellUpdates) on a trace whose requests mix sizes and
// priorities, with evictions. With the background refresh on, most cell
// updates are the refresh's; with it off, none are, and the decisions —
// the same placements — make them. Each change updates a machine at most
// once in each cell holding it, and no cluster holds more cells than the
// evaluations of the trace's three shapes at two priorities. With the
// cache off nothing is kept and nothing is reported.
func TestUpkeepCounts(t *testing.T) {
	tr := streamTrace(t)
	run := func(cache, refresh bool) *Result {
		t.Helper()
		cfg := optimizer.DefaultConfig()
		cfg.Evict, cfg.Cache = true, cache
		alloc, err := NewAllocator("protean", tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultReplayOptions()
		o.Refresh = refresh
		res, err := Replay(context.Background(), tr, alloc, o)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(alloc.State().Journal.Rev()); cache && res.Summary.MachineChanges != want {
			t.Fatalf("machine changes %d, the journal has %d", res.Summary.MachineChanges, want)
		}
		return res
	}
	placed := func(r *Result) []int32 {
		var out []int32
		for _, p := range r.Placements {
			out = append(out, p.Machine)
		}
		return out
	}
	on, lazy, off := run(true, true), run(true, false), run(false, true)
	s := on.Summary
	if s.Evicted == 0 || s.Rejected == 0 {
		t.Fatalf("the trace lacks a hard case: %d evicted, %d rejected", s.Evicted, s.Rejected)
	}
	const evaluations = 3 * 2
	if s.MachineChanges == 0 || s.CellUpdatesBackground == 0 || s.CellUpdatesBackground < s.CellUpdatesAtDecision ||
		s.CellUpdatesBackground+s.CellUpdatesAtDecision > evaluations*s.MachineChanges {
		t.Fatalf("refresh on: %d + %d cell updates for %d machine changes", s.CellUpdatesBackground, s.CellUpdatesAtDecision, s.MachineChanges)
	}
	l := lazy.Summary
	if l.CellUpdatesBackground != 0 || l.BackgroundRefreshes != 0 || l.CellUpdatesAtDecision == 0 || l.MachineChanges != s.MachineChanges {
		t.Fatalf("refresh off: %d + %d cell updates (%d refreshed cells) for %d changes, %d with it on",
			l.CellUpdatesBackground, l.CellUpdatesAtDecision, l.BackgroundRefreshes, l.MachineChanges, s.MachineChanges)
	}
	if !slices.Equal(placed(on), placed(lazy)) || !slices.Equal(placed(on), placed(off)) {
		t.Fatal("the background refresh or the cache changed a placement")
	}
	o := off.Summary
	if o.CellUpdatesBackground != 0 || o.CellUpdatesAtDecision != 0 || o.MachineChanges != 0 {
		t.Fatalf("cache off: %d + %d cell updates, %d changes", o.CellUpdatesBackground, o.CellUpdatesAtDecision, o.MachineChanges)
	}
	js, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "cell_updates") || strings.Contains(string(js), "machine_changes") {
		t.Fatalf("cache off reports upkeep: %s", js)
	}
}

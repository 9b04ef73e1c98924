package optimizer

import (
	"fmt"
	"hash/fnv"
	"testing"
)

// sameDecisionsDigest is the FNV-64a digest of the placements, evictions
// and failure reasons of TestSameDecisions's seeded replay, recorded before
// the cache upkeep was made proportional to change (issue 31). Any change
// to the engine that moves one VM changes it.
const sameDecisionsDigest = 0xcb2dc06e75af4ef6

// TestSameDecisions replays a seeded workload whose requests mix sizes
// (single VMs and gangs of up to 7), types and priorities on a zone kept
// full enough that high-priority requests evict low-priority VMs, through
// the cached engine with idle-time Refresh calls (as a replay makes them),
// the cached engine with tiny pools and a short age (evictions from the
// pools, cells rebuilt), and the uncached engine: every VM must land on the
// same machine, every eviction and failure be the same, and the digest of
// it all equal the one recorded before issue 31's changes. Invariants are
// checked after every request.
func TestSameDecisions(t *testing.T) {
	zone := zoneSpec{clusters: 6, racks: 4, perRack: 6, skus: []SKU{skuSmall, skuLarge}}
	reqs := randomRequests(buildZone(t, zone), 6000, 31)
	arms := []struct {
		name    string
		mut     func(*Config)
		refresh bool
	}{
		{"cache=on/refresh", nil, true},
		{"cache=on/no-refresh", nil, false},
		{"cache=on/tiny-pools", func(c *Config) { c.RulePool, c.EvalPool, c.MaxAge = 3, 2, 7 }, true},
		{"cache=off", func(c *Config) { c.Cache = false }, false},
	}
	var first []string
	for _, arm := range arms {
		p := newProteanT(t, buildZone(t, zone), arm.mut)
		log, evicted := sameDecisionsLog(t, p, reqs, arm.refresh)
		if evicted == 0 {
			t.Fatalf("%s: no eviction: the zone is not full enough to test them", arm.name)
		}
		if first == nil {
			first = log
			continue
		}
		if len(log) != len(first) {
			t.Fatalf("%s: %d decisions, want %d", arm.name, len(log), len(first))
		}
		for i := range log {
			if log[i] != first[i] {
				t.Fatalf("%s: decision %d is %q, %s made %q", arm.name, i, log[i], arms[0].name, first[i])
			}
		}
	}
	h := fnv.New64a()
	for _, s := range first {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	if got := h.Sum64(); got != sameDecisionsDigest {
		t.Fatalf("digest of the decisions %#x, recorded %#x: the engine decides differently than before", got, uint64(sameDecisionsDigest))
	}
}

// sameDecisionsLog replays reqs through p (each request's VMs leave 600
// requests later, a Refresh every 5th request when refresh is set) and
// returns one line per request: its outcome, placements and evictions.
func sameDecisionsLog(t *testing.T, p *Protean, reqs []*Request, refresh bool) ([]string, int) {
	t.Helper()
	const life = 600
	placed := map[int][]VMID{}
	var log []string
	evicted, low, gangs := 0, 0, 0
	for i, r := range reqs {
		for _, vm := range placed[i-life] {
			p.Release(vm) // false when it was evicted
		}
		delete(placed, i-life)
		if refresh && i%5 == 0 {
			p.Refresh(0)
		}
		d := p.Allocate(r)
		if err := p.State().CheckInvariants(); err != nil {
			t.Fatalf("after request %d: %v", r.ID, err)
		}
		line := fmt.Sprintf("%d ok=%v reason=%s", r.ID, d.OK, d.Reason)
		for _, pl := range d.Placements {
			placed[i] = append(placed[i], pl.VM)
			line += fmt.Sprintf(" %d@%d", pl.VM, pl.Machine)
		}
		for _, e := range d.Evicted {
			line += fmt.Sprintf(" evict %d@%d", e.VM, e.Machine)
			evicted++
		}
		if r.Priority > 0 {
			low++
		}
		if len(r.VMs) > 1 {
			gangs++
		}
		log = append(log, line)
	}
	if low == 0 || gangs == 0 {
		t.Fatalf("workload has %d low-priority requests and %d gangs: it must mix both", low, gangs)
	}
	return log, evicted
}

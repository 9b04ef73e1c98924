package snapshot

import (
	"fmt"
	"sort"

	"placelab/optimizer"
)

// PendingOutcome is what a plan made of one VM the run had not placed at
// the snapshot (a Pending pod): placed on Machine, or not, with the rule
// that left it no machine.
type PendingOutcome struct {
	VM      string `json:"pod"`
	VMID    int64  `json:"vm_id"`
	Placed  bool   `json:"placed"`
	Machine string `json:"node,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// PlacePending tries the snapshot's Pending VMs before a plan, as the
// scheduler would take them next: high priority first, then by arrival
// (ties by vm_id), each through the run's own rules and settings (Protean's
// engine on the state, no eviction: a plan does not preempt running pods).
// A VM placed joins State as a placement like the run's (its pin kept,
// starting at T), so the plan that follows keeps room for it and may move
// it; Pending keeps only the VMs that found no machine. The outcomes are in
// the order tried.
func (rs *RunState) PlacePending() ([]PendingOutcome, error) {
	out := []PendingOutcome{}
	if len(rs.Pending) == 0 {
		return out, nil
	}
	if err := rs.Planning("placing pending VMs"); err != nil {
		return nil, err
	}
	cfg := rs.Cfg
	cfg.Cache, cfg.Evict, cfg.Explain = false, false, false
	eng, err := optimizer.NewProtean(rs.State, cfg, rs.Rules)
	if err != nil {
		return nil, fmt.Errorf("analysis: placing pending VMs: %w", err)
	}
	tr := rs.Trace
	order := append([]int(nil), rs.Pending...)
	sort.SliceStable(order, func(a, b int) bool {
		va, vb := &tr.VMs[order[a]], &tr.VMs[order[b]]
		if va.Priority != vb.Priority {
			return va.Priority < vb.Priority
		}
		if va.Start != vb.Start {
			return va.Start < vb.Start
		}
		return va.ID < vb.ID
	})
	if rs.Tried == nil {
		rs.Tried = map[optimizer.VMID]bool{}
	}
	var left []int
	for _, i := range order {
		v := &tr.VMs[i]
		// The request as every planner asks about a VM: from its
		// placement's fields (RequestOf), its stored availability-set
		// domains included.
		skel, err := rs.placementOf(v, v.Type, rs.T)
		if err != nil {
			return nil, err
		}
		req := *optimizer.RequestOf(skel)
		req.ID = v.ID
		o := PendingOutcome{VM: rs.Name(v.ID), VMID: v.ID}
		d := eng.Allocate(&req)
		if !d.OK || len(d.Placements) != 1 {
			o.Reason = d.Reason
			if o.Reason == "" {
				o.Reason = "no machine"
			}
			left = append(left, i)
			out = append(out, o)
			continue
		}
		pl := d.Placements[0]
		if pin := rs.pins[v.ID]; pin != optimizer.PinNone {
			rs.State.Remove(pl.VM)
			pl.Pin = pin
			rs.State.Place(pl)
			rs.PinnedVMs = append(rs.PinnedVMs, pl.VM)
		}
		rs.Tried[pl.VM] = true
		o.Placed, o.Machine = true, rs.MachineName(pl.Machine)
		out = append(out, o)
	}
	sort.Ints(left)
	rs.Pending = left
	return out, nil
}

// PlacedPending reports whether vm is one PlacePending placed.
func (rs *RunState) PlacedPending(vm optimizer.VMID) bool { return rs.Tried[vm] }

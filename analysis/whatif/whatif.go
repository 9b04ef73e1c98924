package whatif

import (
	"context"
	"fmt"
	"math"
	"time"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/snapshot"
	"placelab/optimizer"
	store "placelab/sql"
)

// MigrationReport is what `placelab whatif migrate` prints.
type MigrationReport struct {
	Run     int64   `json:"run_id"`
	Dataset string  `json:"dataset"`
	Policy  string  `json:"policy"`
	At      float64 `json:"t_s"`
	Time    string  `json:"time,omitempty"` // At as RFC 3339 (Stamp)
	// VMs are the VMs placed at the instant (pinned ones included);
	// PinnedVMs those of them that never move; PendingVMs the VMs alive
	// then that the run did not place.
	VMs        int `json:"vms"`
	PinnedVMs  int `json:"pinned_vms"`
	PendingVMs int `json:"pending_vms"`
	// The plan tries the Pending VMs first, on the run's rules
	// (RunState.PlacePending): PendingPlaced of them found a machine,
	// Pending says what became of each.
	PendingPlaced   int                       `json:"pending_placed"`
	PendingOutcomes []snapshot.PendingOutcome `json:"pending"`
	// Machines in use hold a VM that can move (one with only DaemonSet
	// pods is empty): MachinesInUse at the snapshot as the run left it,
	// MachinesInUseWithPending once the pending VMs are placed, and
	// MachinesInUseAfter after the plan, = MachinesInUseWithPending −
	// MachinesFreed + MachinesNewlyUsed (machines that held only pinned
	// pods and took a moved VM).
	MachinesInUse            int     `json:"machines_in_use"`
	MachinesInUseWithPending int     `json:"machines_in_use_with_pending"`
	MachinesNewlyUsed        int     `json:"machines_newly_used"`
	MachinesInUseAfter       int     `json:"machines_in_use_after"`
	Budget                   int     `json:"budget"`
	DensityBefore            float64 `json:"packing_density_before"`
	DensityAfter             float64 `json:"packing_density_after"`
	MachinesFreed            int     `json:"machines_freed"`
	// RemovedMachines names the machines the plan empties, in order; a
	// DaemonSet's pods on them leave with them (PinnedDropped).
	RemovedMachines []string     `json:"removed_machines"`
	PinnedDropped   int          `json:"pinned_dropped"`
	Moves           []MoveRecord `json:"moves"`
	// PlanRun is the placement after the plan, stored as an offline run
	// that placelab check verifies (0 when not stored).
	PlanRun int64   `json:"plan_run,omitempty"`
	Seconds float64 `json:"seconds"`
}

// MoveRecord is one recommended move, by name and by database id: VM is
// the VM's name (a pod's namespace/name, also as Pod on a Kubernetes
// dataset), From and To the machines' names.
type MoveRecord struct {
	VM     string `json:"vm"`
	Pod    string `json:"pod,omitempty"`
	From   string `json:"from"`
	To     string `json:"to"`
	VMID   int64  `json:"vm_id"`
	FromID int32  `json:"from_machine_id"`
	ToID   int32  `json:"to_machine_id"`
}

// MigrateOptions tune Migrate; start from DefaultMigrateOptions.
type MigrateOptions struct {
	// At is the snapshot instant (NaN: the run's last event).
	At float64
	// Budget bounds the moves (0: none).
	Budget int
	// Store keeps the placement after the plan as an offline run.
	Store bool
	// Progress, when set, is told the machines emptied so far.
	Progress func(freed, moves int)
}

// DefaultMigrateOptions: the run's last event, at most 100 moves, the plan
// stored.
func DefaultMigrateOptions() MigrateOptions {
	return MigrateOptions{At: math.NaN(), Budget: 100, Store: true}
}

// Validate refuses values out of range.
func (o MigrateOptions) Validate() error {
	if o.Budget < 0 {
		return fmt.Errorf("analysis: migrate: budget %d, want ≥ 0 (0: no limit)", o.Budget)
	}
	return cluster.BoundOptions{At: o.At}.Validate()
}

// Migrate rebuilds a stored run's state at opts.At (LoadRunState:
// every field of every placement, the run's own settings) and plans
// migrations that raise packing density (Protean §6.3) within opts.Budget
// moves, judged by the run's rules (optimizer.PlanMigrations); the
// placement after the plan is stored as an offline run (PlanRun) with the
// source run's availability-set domains, so placelab check verifies it.
func Migrate(ctx context.Context, db *store.DB, run int64, opts MigrateOptions) (*MigrationReport, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	rs, err := snapshot.Load(ctx, db, run, opts.At)
	if err != nil {
		return nil, fmt.Errorf("whatif: %w", err)
	}
	if err := rs.Planning("whatif migrate"); err != nil {
		return nil, err
	}
	state := rs.State
	rep := &MigrationReport{Run: run, Dataset: rs.Dataset, Policy: rs.Policy, At: rs.T, Time: analysis.Stamp(rs.Trace, rs.T), VMs: state.Len(), PinnedVMs: len(rs.PinnedVMs),
		PendingVMs: len(rs.Pending), Budget: opts.Budget, RemovedMachines: []string{}, Moves: []MoveRecord{}}
	rep.MachinesInUse = machinesInUse(state)
	if rep.PendingOutcomes, err = rs.PlacePending(); err != nil {
		return nil, err
	}
	for _, o := range rep.PendingOutcomes {
		if o.Placed {
			rep.PendingPlaced++
		}
	}
	usedBefore := inUseSet(state)
	rep.MachinesInUseWithPending = len(usedBefore)
	plan, err := optimizer.PlanMigrationsWith(ctx, state, rs.Cfg, rs.Rules, optimizer.MigrateOptions{Budget: opts.Budget, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	rep.DensityBefore, rep.DensityAfter, rep.MachinesFreed = plan.DensityBefore, plan.DensityAfter, plan.MachinesFreed
	usedAfter := inUseSet(state)
	rep.MachinesInUseAfter = len(usedAfter)
	for m := range usedAfter {
		if !usedBefore[m] {
			rep.MachinesNewlyUsed++
		}
	}
	if rep.MachinesInUseAfter != rep.MachinesInUseWithPending-rep.MachinesFreed+rep.MachinesNewlyUsed {
		return nil, fmt.Errorf("analysis: migrate: %d machines in use after freeing %d of %d (a bug)",
			rep.MachinesInUseAfter, rep.MachinesFreed, rep.MachinesInUseWithPending)
	}
	rep.PinnedDropped = len(plan.Dropped)
	ids := rs.Trace.MachineIDs
	k8s := rs.Trace.OnePerRequest
	for _, m := range plan.Removed {
		rep.RemovedMachines = append(rep.RemovedMachines, rs.MachineName(m))
	}
	for _, mv := range plan.Moves {
		if rs.PlacedPending(mv.VM) {
			// A pending VM is placed once, where the plan leaves it.
			setPendingNode(rep.PendingOutcomes, mv.VM, rs.MachineName(mv.To))
			continue
		}
		r := MoveRecord{VM: rs.Name(mv.VM), From: rs.MachineName(mv.From), To: rs.MachineName(mv.To),
			VMID: mv.VM, FromID: ids[mv.From], ToID: ids[mv.To]}
		if k8s {
			r.Pod = r.VM
		}
		rep.Moves = append(rep.Moves, r)
	}
	if opts.Store {
		var rows []snapshot.PlanRow
		inv := rs.Trace.Inv
		for m := range inv.Machines {
			for _, vm := range state.VMsOn(int32(m)) {
				rows = append(rows, snapshot.PlanRow{VM: vm, Machine: ids[m]})
			}
		}
		id, err := rs.StorePlan(ctx, db, rows, "migrate-plan", map[string]any{"budget": opts.Budget,
			"machines_freed": rep.MachinesFreed, "moves": len(rep.Moves), "pending_placed": rep.PendingPlaced, "objective": "packing density"})
		if err != nil {
			return nil, err
		}
		rep.PlanRun = id
	}
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

// machinesInUse counts the machines holding a VM that is not pinned (a
// machine with only DaemonSet or static pods holds nothing a plan moves).
func machinesInUse(s *optimizer.State) int { return len(inUseSet(s)) }

// inUseSet is the set machinesInUse counts.
func inUseSet(s *optimizer.State) map[int32]bool {
	out := map[int32]bool{}
	for m := range s.Inv.Machines {
		for _, vm := range s.VMsOn(int32(m)) {
			if pl, _ := s.Lookup(vm); pl.Pin == optimizer.PinNone {
				out[int32(m)] = true
				break
			}
		}
	}
	return out
}

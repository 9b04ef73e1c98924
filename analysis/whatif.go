package analysis

import (
	"context"
	"fmt"
	"math"
	"placelab/analysis/replay"

	"placelab/optimizer"
	store "placelab/sql"
)

// MigrationReport is what `placelab whatif migrate` prints.
type MigrationReport struct {
	Run           int64        `json:"run_id"`
	Dataset       string       `json:"dataset"`
	At            float64      `json:"t_s"`
	VMs           int          `json:"vms"`
	Budget        int          `json:"budget"`
	DensityBefore float64      `json:"packing_density_before"`
	DensityAfter  float64      `json:"packing_density_after"`
	MachinesFreed int          `json:"machines_freed"`
	Moves         []MoveRecord `json:"moves"`
}

// MoveRecord is one recommended move, by database ids.
type MoveRecord struct {
	VM   int64 `json:"vm_id"`
	From int32 `json:"from_machine_id"`
	To   int32 `json:"to_machine_id"`
}

// WhatIfMigrate rebuilds the placement state of a stored run at time at
// (NaN: the run's last sample) and plans migrations that raise packing
// density (Protean §6.3), within budget moves (0: no limit).
func WhatIfMigrate(ctx context.Context, db *store.DB, run int64, at float64, budget int) (*MigrationReport, error) {
	in, err := LoadRunInput(ctx, db, run)
	if err != nil {
		return nil, fmt.Errorf("whatif: %w", err)
	}
	var ds string
	var last float64
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_info"), run).Scan(&ds, &last); err != nil {
		return nil, err
	}
	if math.IsNaN(at) {
		at = last
	}
	tr, err := LoadTrace(ctx, db, ds, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	vmOf := make(map[int64]*replay.TraceVM, len(tr.VMs))
	for i := range tr.VMs {
		vmOf[tr.VMs[i].ID] = &tr.VMs[i]
	}
	machineOf := make(map[int32]int32, len(tr.MachineIDs))
	for i, id := range tr.MachineIDs {
		machineOf[id] = int32(i)
	}
	state := optimizer.NewState(tr.Inv)
	rows, err := db.SQL().QueryContext(ctx, store.MustQuery("run_alive"), run, at)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var vmID int64
		var mid int32
		if err := rows.Scan(&vmID, &mid); err != nil {
			return nil, err
		}
		v := vmOf[vmID]
		m, ok := machineOf[mid]
		if v == nil || !ok {
			return nil, fmt.Errorf("whatif: run %d places VM %d on machine %d; load %d of dataset %q lacks the VM or the machine", run, vmID, mid, in.LoadID, ds)
		}
		d, _ := tr.Inv.Demand(v.Type, m)
		state.Place(optimizer.Placement{VM: vmID, Machine: m, Type: v.Type, Tenant: v.Tenant, Priority: v.Priority, Demand: d})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	plan, err := optimizer.PlanMigrations(state, cfg, optimizer.DefaultRules(), budget)
	if err != nil {
		return nil, err
	}
	rep := &MigrationReport{Run: run, Dataset: ds, At: at, VMs: state.Len(), Budget: budget,
		DensityBefore: plan.DensityBefore, DensityAfter: plan.DensityAfter, MachinesFreed: plan.MachinesFreed, Moves: []MoveRecord{}}
	for _, mv := range plan.Moves {
		rep.Moves = append(rep.Moves, MoveRecord{mv.VM, tr.MachineIDs[mv.From], tr.MachineIDs[mv.To]})
	}
	return rep, nil
}

package analysis

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"placelab/analysis/replay"
	store "placelab/sql"
)

// Stay is one VM's time on one machine in a run.
type Stay struct {
	VM       int64
	Type     int32
	Machine  int32 // inventory index
	From, To float64
}

// lpRun is what a stored run placed: its head, the trace it read, and
// every VM's stays.
type lpRun struct {
	Dataset, Policy, Engine string // the run's head
	Trace                   *replay.Trace
	Stays                   []Stay
	From                    float64 // first placement
	Last                    float64 // last sample or placement, whichever is later
}

// LoadRunStays reads run's placements against the trace it read.
func LoadRunStays(ctx context.Context, db *store.DB, run int64) (*lpRun, error) {
	var dataset, policy, engine string
	err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_head"), run).Scan(&dataset, &policy, &engine)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d (placelab sql --view run_summary lists the runs)", ErrNoRun, run)
	}
	if err != nil {
		return nil, err
	}
	if engine == OfflineEngine {
		return nil, fmt.Errorf("analysis: run %d is an offline packing (itself a bound's witness), not a replay", run)
	}
	// The run's placements are read against the load it pinned; a run
	// from before runs pinned their load is read against the current one.
	if _, err := LoadRunInput(ctx, db, run); err != nil && !errors.Is(err, ErrUnpinned) {
		return nil, err
	}
	lr := &lpRun{Dataset: dataset, Policy: policy, Engine: engine, From: math.Inf(1)}
	var ds string
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_info"), run).Scan(&ds, &lr.Last); err != nil {
		return nil, err
	}
	lr.Trace, err = LoadTrace(ctx, db, dataset, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	end := make(map[int64]float64, len(lr.Trace.VMs))
	typ := make(map[int64]int32, len(lr.Trace.VMs))
	for _, v := range lr.Trace.VMs {
		end[v.ID], typ[v.ID] = v.End, v.Type
	}
	machineOf := make(map[int32]int32, len(lr.Trace.MachineIDs))
	for i, id := range lr.Trace.MachineIDs {
		machineOf[id] = int32(i)
	}
	err = Each(ctx, db.SQL(), "run_placements", []any{run}, func(r *sql.Rows) error {
		var id int64
		var mid int32
		var t float64
		var ev sql.NullFloat64
		if err := r.Scan(&id, &mid, &t, &ev); err != nil {
			return err
		}
		tp, ok := typ[id]
		m, okm := machineOf[mid]
		if !ok || !okm {
			return fmt.Errorf("analysis: run %d places VM %d on machine %d, which dataset %q lacks", run, id, mid, dataset)
		}
		to := end[id]
		if ev.Valid && ev.Float64 < to {
			to = ev.Float64
		}
		lr.Stays = append(lr.Stays, Stay{id, tp, m, t, to})
		lr.From = math.Min(lr.From, t)
		lr.Last = math.Max(lr.Last, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lr.Stays) == 0 {
		lr.From = 0
	}
	lr.Last = math.Max(lr.Last, lr.From)
	return lr, nil
}

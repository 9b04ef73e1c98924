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

// lpStay is one VM's time on one machine in a run.
type lpStay struct {
	vm       int64
	typ      int32
	machine  int32 // inventory index
	from, to float64
}

// lpRun is what a stored run placed: its head, the trace it read, and
// every VM's stays.
type lpRun struct {
	dataset, policy, engine string // the run's head
	tr                      *replay.Trace
	stays                   []lpStay
	from                    float64 // first placement
	last                    float64 // last sample or placement, whichever is later
}

// loadLPRun reads run's placements against the trace it read.
func loadLPRun(ctx context.Context, db *store.DB, run int64) (*lpRun, error) {
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
	lr := &lpRun{dataset: dataset, policy: policy, engine: engine, from: math.Inf(1)}
	var ds string
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("run_info"), run).Scan(&ds, &lr.last); err != nil {
		return nil, err
	}
	lr.tr, err = LoadTrace(ctx, db, dataset, math.Inf(-1), math.Inf(1))
	if err != nil {
		return nil, err
	}
	end := make(map[int64]float64, len(lr.tr.VMs))
	typ := make(map[int64]int32, len(lr.tr.VMs))
	for _, v := range lr.tr.VMs {
		end[v.ID], typ[v.ID] = v.End, v.Type
	}
	machineOf := make(map[int32]int32, len(lr.tr.MachineIDs))
	for i, id := range lr.tr.MachineIDs {
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
		lr.stays = append(lr.stays, lpStay{id, tp, m, t, to})
		lr.from = math.Min(lr.from, t)
		lr.last = math.Max(lr.last, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lr.stays) == 0 {
		lr.from = 0
	}
	lr.last = math.Max(lr.last, lr.from)
	return lr, nil
}

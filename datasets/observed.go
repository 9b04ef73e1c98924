package datasets

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	store "placelab/sql"
)

// ObservedEngine is the run.engine of a placement a source recorded rather
// than one placelab made: a Kubernetes snapshot's bound pods (policy
// ObservedKubeScheduler) or a native workload file's machine column (policy
// ObservedRecorded). It is a run like any other: placelab check verifies
// it, lpbound bounds it, whatif drain and explain --machine read it.
const ObservedEngine = "observed"

// Policies of observed runs.
const (
	ObservedKubeScheduler = "kube-scheduler"
	ObservedRecorded      = "recorded"
)

// observedPlacement is one VM where the source says it ran, from t.
type observedPlacement struct {
	vm      int64
	t       float64
	machine int32
}

// writeObservedRun records the source's placements as a run of the load
// being written, in the ingest's transaction, and sets w.Counts.ObservedRun.
// It writes nothing when there are no placements.
func writeObservedRun(w *store.Writer, engine, policy, version string, params map[string]any, obs []observedPlacement) error {
	if len(obs) == 0 {
		return nil
	}
	var id int64
	if err := w.QueryRows("SELECT nextval('run_seq')", func(r []driver.Value) error {
		id = r[0].(int64)
		return nil
	}); err != nil {
		return fmt.Errorf("datasets: observed run id: %w", err)
	}
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["source"]; !ok {
		params["source"] = "ingest"
	}
	params["placements"] = len(obs)
	js, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if version == "" {
		version = "unknown"
	}
	if err := w.AppendResult("run", id, engine, policy, string(js), int64(0), w.Dataset(), version,
		time.Now().UTC(), 0.0, "done", w.LoadID()); err != nil {
		return fmt.Errorf("datasets: observed run: %w", err)
	}
	for _, p := range obs {
		// run_id, vm_id, t_s, machine_id, agent, retries, latency_us,
		// outcome, reason, evicted_s, response_s
		if err := w.AppendResult("placement", id, p.vm, p.t, p.machine, int16(0), int32(0), nil, "placed", nil, nil, nil); err != nil {
			return fmt.Errorf("datasets: observed run: VM %d: %w", p.vm, err)
		}
	}
	w.Counts.ObservedRun = id
	return nil
}

package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"placelab/optimizer"
	store "placelab/sql"
)

// Policies lists the allocators a replay can use.
var Policies = []string{"protean", "firstfit", "bestfit", "worstfit", "random"}

// NewAllocator returns the allocator for a policy over a fresh state of
// tr's inventory. cfg configures Protean (and seeds the baselines).
func NewAllocator(policy string, tr *Trace, cfg optimizer.Config) (optimizer.Allocator, error) {
	state := optimizer.NewState(tr.Inv)
	if policy == "protean" {
		return optimizer.NewProtean(state, cfg, optimizer.DefaultRules())
	}
	return optimizer.NewBaseline(optimizer.Policy(policy), state, cfg.Weights, cfg.Seed)
}

// ScarcityWeights derives BestFit's weights from a trace: for each
// dimension, the mean share of a machine that the trace's VMs ask for
// (averaged over the SKUs each type runs on), scaled so the scarcest
// dimension weighs 1. Dimensions no VM asks for weigh 0.
func ScarcityWeights(tr *Trace) optimizer.Vec {
	inv := tr.Inv
	perType := make([]optimizer.Vec, len(inv.Types))
	for t, ty := range inv.Types {
		n := 0.0
		for s, ok := range ty.Supported {
			if !ok {
				continue
			}
			c := inv.SKUs[s].Capacity
			for i := range c {
				if c[i] > 0 {
					perType[t][i] += ty.Demand[s][i] / c[i]
				}
			}
			n++
		}
		for i := range perType[t] {
			if n > 0 {
				perType[t][i] /= n
			}
		}
	}
	var w optimizer.Vec
	for _, v := range tr.VMs {
		if v.Type >= 0 {
			w = w.Add(perType[v.Type])
		}
	}
	max := 0.0
	for _, x := range w {
		max = math.Max(max, x)
	}
	if max == 0 {
		return optimizer.Vec{optimizer.Cores: 1}
	}
	for i := range w {
		w[i] /= max
	}
	return w
}

// RunMeta is what the run table records besides the results.
type RunMeta struct {
	Engine, Policy, Dataset, Version string
	Seed                             uint64
	Params                           any // marshalled to JSON
	Started                          time.Time
}

// WriteRun stores a replay's run, placement, explain and run_metric rows in
// one transaction and returns the run id.
func WriteRun(ctx context.Context, db *store.DB, meta RunMeta, res *Result) (int64, error) {
	id, err := db.NextRunID(ctx)
	if err != nil {
		return 0, err
	}
	params, err := json.Marshal(meta.Params)
	if err != nil {
		return 0, err
	}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Append("run", id, meta.Engine, meta.Policy, string(params), int64(meta.Seed), meta.Dataset,
			meta.Version, meta.Started.UTC(), res.Summary.Seconds, "done"); err != nil {
			return err
		}
		for i := range res.Placements {
			p := &res.Placements[i]
			var machine, reason, evicted any
			if p.Machine >= 0 {
				machine = p.Machine
			}
			if p.Reason != "" {
				reason = p.Reason
			}
			if !math.IsNaN(p.EvictedAt) {
				evicted = p.EvictedAt
			}
			if err := w.Append("placement", id, p.VM, p.T, machine, int16(0), int32(0), p.LatencyUS, p.Outcome, reason, evicted); err != nil {
				return err
			}
			if p.Explain != nil {
				if err := appendExplain(w, id, p.Explain, res.trace); err != nil {
					return err
				}
			}
		}
		for _, m := range res.Metrics {
			if err := w.Append("run_metric", id, m.T, m.Metric, m.Value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("analysis: write run: %w", err)
	}
	res.Summary.RunID = id
	return id, nil
}

// explainTop is a top-k machine as stored: database id and name.
type explainTop struct {
	Machine int32   `json:"machine_id"`
	Name    string  `json:"name"`
	Scores  []int64 `json:"scores"`
}

func appendExplain(w *store.Writer, run int64, ex *optimizer.Explanation, tr *Trace) error {
	crej := map[string]int{}
	for _, r := range ex.ClusterRejected {
		crej[r.Rule] = r.Count
	}
	cj, _ := json.Marshal(crej)
	sel := make([]string, len(ex.Selected))
	for i, c := range ex.Selected {
		sel[i] = tr.Inv.Clusters[c].Name
	}
	top, _ := json.Marshal(map[string]any{"selected_clusters": sel})
	var failed any
	if ex.FailedRule != "" && ex.Machines == 0 {
		failed = ex.FailedRule
	}
	if err := w.Append("explain", run, ex.VM, "cluster", int32(ex.Clusters), string(cj), string(top), failed); err != nil {
		return err
	}
	mrej := map[string]int{}
	for _, r := range ex.Rejected {
		mrej[r.Rule] = r.Count
	}
	after := map[string]int{}
	for _, a := range ex.AfterPrefs {
		after[a.Rule] = a.Count
	}
	mj, _ := json.Marshal(map[string]any{"rejected": mrej, "left_after": after, "evicted": ex.Evicted})
	tops := make([]explainTop, len(ex.Top))
	for i, t := range ex.Top {
		tops[i] = explainTop{tr.MachineIDs[t.Machine], tr.Inv.Machines[t.Machine].Name, t.Scores}
	}
	var chosen any
	if ex.Chosen >= 0 {
		chosen = tr.MachineIDs[ex.Chosen]
	}
	topj, _ := json.Marshal(map[string]any{"chosen": chosen, "top": tops})
	failed = nil
	if ex.FailedRule != "" && ex.Machines > 0 {
		failed = ex.FailedRule
	}
	return w.Append("explain", run, ex.VM, "machine", int32(ex.Machines), string(mj), string(topj), failed)
}

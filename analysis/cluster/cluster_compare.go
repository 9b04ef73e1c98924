package cluster

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/internal/kunits"
	store "placelab/sql"
)

// ClusterCompareRow is one run of a cluster's pods: the observed placement
// or a replay, with its interval at the comparison's instant.
type ClusterCompareRow struct {
	Run    int64  `json:"run_id"`
	Engine string `json:"engine"`
	Policy string `json:"policy"`
	// Placed counts the pods the run holds at T; NotPlaced those of the
	// dataset alive then that it does not (Pending, or rejected).
	Placed         int     `json:"placed"`
	NotPlaced      int     `json:"not_placed"`
	NodesInUse     int     `json:"nodes_in_use"`
	LBNodes        float64 `json:"lb_nodes"`
	UBNodes        int     `json:"ub_nodes"`
	DrainableNodes int     `json:"drainable_nodes"`
	// Violations counts what placelab check finds wrong with the run
	// (capacity, constraints): 0 for a clean run.
	Violations int     `json:"violations"`
	Seconds    float64 `json:"seconds"`
}

// CompareReport sets the replays of a cluster's pods — in creation
// order, through Protean and the baselines, each under DefaultSpec's
// validated defaults (the same validators, constraints and inventory) —
// beside the observed placement, each with its interval at one instant T
// (the dataset's last arrival, when every pod has arrived).
type CompareReport struct {
	Dataset string              `json:"dataset"`
	T       float64             `json:"t_s"`
	Time    string              `json:"time,omitempty"` // T as RFC 3339, for a dataset with a time origin
	Rows    []ClusterCompareRow `json:"rows"`
	// With kube-scheduler among the policies: FilterDisagreements is the
	// judgement of placelab's validators against the real scheduler's
	// Filter (FilterJudgement: pairs, by rule, an example each, and the
	// known differences).
	FilterDisagreements *int             `json:"filter_disagreements,omitempty"`
	Filter              *FilterJudgement `json:"filter_judgement,omitempty"`
}

// Compare replays run's dataset through each policy (stored as
// runs) and bounds every run at the same instant.
func Compare(ctx context.Context, db *store.DB, run int64, policies []string, o analysis.RunOptions) (*CompareReport, error) {
	if len(policies) == 0 {
		return nil, fmt.Errorf("%w: no policies to compare", analysis.ErrBadSpec)
	}
	for _, p := range policies {
		if !slices.Contains(replay.Policies, p) && p != KubeSchedulerPolicy {
			return nil, fmt.Errorf("%w: policy %q, want one of %v or %s", analysis.ErrBadSpec, p, replay.Policies, KubeSchedulerPolicy)
		}
	}
	var ds string
	if err := db.SQL().QueryRowContext(ctx, "SELECT dataset FROM run WHERE run_id = $1", run).Scan(&ds); err != nil {
		return nil, fmt.Errorf("%w: %d", analysis.ErrNoRun, run)
	}
	var t float64
	var origin sql.NullTime
	if err := db.SQL().QueryRowContext(ctx, store.MustQuery("dataset_last_arrival"), ds).Scan(&t, &origin); err != nil {
		return nil, err
	}
	rep := &CompareReport{Dataset: ds, T: t}
	if origin.Valid {
		rep.Time = kunits.Time(origin.Time, t)
	}
	runs := []int64{run}
	for _, p := range policies {
		if p == KubeSchedulerPolicy {
			ksr, err := RunKubeScheduler(ctx, db, ds, KubeSchedulerSeed, o)
			if err != nil {
				return nil, fmt.Errorf("analysis: compare: %s: %w", p, err)
			}
			runs = append(runs, ksr.Run)
			j, err := JudgeKubeFilters(ctx, db, ds)
			if err != nil {
				return nil, fmt.Errorf("analysis: compare: the filter judgement: %w", err)
			}
			rep.Filter, rep.FilterDisagreements = j, &j.Disagreements
			continue
		}
		spec := analysis.DefaultSpec(ds)
		spec.Policy = p
		spec.Engine.Explain = false
		res, err := analysis.Run(ctx, db, spec, o)
		if err != nil {
			return nil, fmt.Errorf("analysis: compare: %s: %w", p, err)
		}
		runs = append(runs, res.Summary.RunID)
	}
	opts := DefaultBoundOptions()
	opts.At, opts.Store = t, false
	for _, id := range runs {
		b, err := Bound(ctx, db, id, opts)
		if err != nil {
			return nil, err
		}
		chk, err := analysis.CheckRun(ctx, db, id)
		if err != nil {
			return nil, err
		}
		var engine string
		if err := db.SQL().QueryRowContext(ctx, "SELECT engine FROM run WHERE run_id = $1", id).Scan(&engine); err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, ClusterCompareRow{Run: id, Engine: engine, Policy: b.Policy, Placed: b.Pods + b.PinnedPods,
			NotPlaced: b.PendingPods, NodesInUse: b.NodesInUse, LBNodes: b.LBNodes, UBNodes: b.UBNodes,
			DrainableNodes: b.DrainableNodes, Violations: len(chk.Violations) + len(chk.Constraints) + len(chk.Avail),
			Seconds: math.Round(b.Seconds*1000) / 1000})
	}
	return rep, nil
}

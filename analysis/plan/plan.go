package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"placelab/analysis"
	"placelab/datasets/catalog"
	"placelab/optimizer/fleet"
	store "placelab/sql"
)

// Options of Run. Start from DefaultOptions.
type Options struct {
	// Run (a snapshot of it at At; NaN: its last event) or Dataset (a
	// trace's VMs alive at At; Peak: at the instant most cores are alive).
	Run     int64
	At      float64
	Dataset string
	Peak    bool
	// Catalog is the catalog file; Price its price column ("" the one it
	// has); Types a --types filter; Reserved none, eks or gke.
	Catalog  string
	Price    string
	Types    string
	Reserved string
	Fleet    fleet.Options
	// Store the plan as a dataset and run (default true).
	Store   bool
	Version string
	// Progress, when not nil, is told each stage.
	Progress func(stage string)
}

// DefaultOptions are the validated defaults every caller starts from.
func DefaultOptions() Options {
	return Options{At: math.NaN(), Reserved: string(catalog.ReservedNone), Fleet: fleet.DefaultOptions(), Store: true}
}

// Validate refuses what cannot be planned.
func (o Options) Validate() error {
	switch {
	case o.Catalog == "":
		return errors.New("plan: no catalog (--catalog FILE; placelab ingest help-format catalog)")
	case o.Run == 0 && o.Dataset == "":
		return errors.New("plan: give --run ID [--at T] (a snapshot) or --dataset D --at peak|T (a trace's VMs)")
	case o.Run != 0 && o.Dataset != "":
		return errors.New("plan: --run and --dataset are exclusive")
	case o.Run < 0:
		return fmt.Errorf("plan: run %d, want > 0", o.Run)
	case o.Run != 0 && o.Peak:
		return errors.New("plan: --at peak is for --dataset (a run's snapshot is at an instant: --at T)")
	case o.Dataset != "" && !o.Peak && math.IsNaN(o.At):
		return errors.New("plan: --dataset needs --at peak or --at T (seconds)")
	case math.IsInf(o.At, 0):
		return fmt.Errorf("plan: --at %g, want a finite instant", o.At)
	}
	if _, err := catalog.ParseReserved(o.Reserved); err != nil {
		return err
	}
	if _, err := catalog.ParseFilter(o.Types); err != nil {
		return err
	}
	return o.Fleet.Validate()
}

// Fleet is a fleet as the JSON shows it.
type Fleet struct {
	CostPerHour float64        `json:"cost_per_hour"`
	Nodes       int            `json:"nodes"`
	Types       map[string]int `json:"types"`
	Seconds     float64        `json:"seconds,omitempty"`
	// Type is the best single fleet's type.
	Type string `json:"type,omitempty"`
	// Unpriced lists the current fleet's instance types the catalog does
	// not price (then CostPerHour counts only the priced nodes).
	Unpriced []string `json:"unpriced,omitempty"`
}

// Baselines are computed in the same call on the same pods.
type Baselines struct {
	// Current is the fleet as it is (nil for a trace's peak, which has no
	// fleet of the catalog's types).
	Current    *Fleet `json:"current"`
	Karpenter  Fleet  `json:"karpenter"`
	BestSingle Fleet  `json:"best_single"`
}

// MarshalJSON writes best_single as null when no one type holds every
// placeable pod (a cluster with GPU and CPU-only pods on types of one
// kind), rather than a fleet of no nodes at $0.
func (b Baselines) MarshalJSON() ([]byte, error) {
	type plain struct {
		Current    *Fleet `json:"current"`
		Karpenter  Fleet  `json:"karpenter"`
		BestSingle *Fleet `json:"best_single"`
	}
	out := plain{Current: b.Current, Karpenter: b.Karpenter}
	if b.BestSingle.Nodes > 0 {
		out.BestSingle = &b.BestSingle
	}
	return json.Marshal(out)
}

// CatalogInfo says what was read.
type CatalogInfo struct {
	File            string   `json:"file"`
	SHA256          string   `json:"sha256"`
	PriceColumn     string   `json:"price_column"`
	TypesRead       int      `json:"types_read"`
	TypesKept       int      `json:"types_kept"`
	Filter          string   `json:"filter"`
	Reserved        string   `json:"reserved"`
	ReservedFormula string   `json:"reserved_formula"`
	Notes           []string `json:"notes,omitempty"`
}

// Bound is how the interval was reached.
type Bound struct {
	LPBound        float64 `json:"lp_bound"`
	VolumeBound    float64 `json:"volume_bound"`
	Converged      bool    `json:"converged"`
	Stop           string  `json:"stop"`
	Iterations     int     `json:"iterations"`
	Columns        int     `json:"columns"`
	Candidates     int     `json:"candidate_types"`
	TypesUsable    int     `json:"types_usable"`
	TypesDominated int     `json:"types_dominated"`
	Source         string  `json:"plan_source"`
	IntegerProven  bool    `json:"integer_proven"`
	// FlowConverged: the assignment relaxation was solved whole within its
	// share of the time; PackingTypes the types its fleet used, on which
	// the packing's own column generation ran (0: it did not run).
	FlowConverged bool `json:"flow_converged"`
	PackingTypes  int  `json:"packing_types"`
	// LNSTried and LNSImproved count the neighbourhoods the search after
	// the packing planned again and those that saved (0 when column
	// generation ended before the clock and the search did not run).
	LNSTried    int `json:"lns_tried"`
	LNSImproved int `json:"lns_improved"`
	// SpreadMoves counts pods moved after the LP to keep topology spread
	// (the LP relaxes it), SpreadNodes the nodes added for it.
	SpreadMoves int `json:"spread_moves"`
	SpreadNodes int `json:"spread_nodes"`
	// CostBeforeSpread is the plan's cost before topology spread was kept.
	CostBeforeSpread float64 `json:"cost_per_hour_before_spread"`
}

// Check is placelab check's verdict on the stored plan.
type Check struct {
	OK          bool `json:"ok"`
	Capacity    int  `json:"capacity_violations"`
	Constraints int  `json:"constraint_violations"`
	Constrained int  `json:"constrained"`
}

// Unplaceable is a set of pods no catalog type can hold.
type Unplaceable struct {
	Pods   int      `json:"pods"`
	Reason string   `json:"reason"`
	Names  []string `json:"examples"`
}

// Result is placelab plan's answer.
type Result struct {
	CostPerHour   float64        `json:"cost_per_hour"`
	LBCostPerHour float64        `json:"lb_cost_per_hour"`
	GapPct        float64        `json:"gap_pct"`
	Nodes         int            `json:"nodes"`
	Types         map[string]int `json:"types"`
	// Pools is the plan per pool (a Kubernetes snapshot's node pools).
	Pools       map[string]map[string]int `json:"pools,omitempty"`
	Placed      int                       `json:"placed"`
	Unplaceable []Unplaceable             `json:"unplaceable"`
	PlanRun     int64                     `json:"plan_run"`
	PlanDataset string                    `json:"plan_dataset"`
	Seconds     float64                   `json:"seconds"`
	Baselines   Baselines                 `json:"baselines"`
	Catalog     CatalogInfo               `json:"catalog"`
	Source      struct {
		Run     int64   `json:"run,omitempty"`
		Dataset string  `json:"dataset"`
		T       float64 `json:"t_s"`
		Kind    string  `json:"kind"`
	} `json:"source"`
	Dims  []string `json:"dims"`
	Bound Bound    `json:"bound"`
	Check *Check   `json:"check"`
	// LeftOut says what the plan does not hold and why (static pods, which
	// stay on their control-plane nodes).
	LeftOut []string `json:"left_out"`
}

// source is what a plan is made for: the fleet problem, a way to turn a
// fleet into a stored dataset and run, and the current fleet.
type source interface {
	problem() *fleet.Problem
	// repair adjusts the plan for what the LP relaxes; it returns moves
	// and nodes added.
	repair(f *fleet.Fleet) (moves, nodes int, err error)
	store(ctx context.Context, db *store.DB, f *fleet.Fleet, name string, params map[string]any) (int64, error)
	current(cat *catalog.Catalog) *Fleet
	typeName(k int) string
	poolName(k int) string
	groupNames(g int) []string
	leftOut() []string
	kind() string
}

// Run plans the cheapest fleet (see the package comment).
func Run(ctx context.Context, db *store.DB, o Options) (*Result, error) {
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stage := func(s string) {
		if o.Progress != nil {
			o.Progress(s)
		}
	}
	stage("reading the catalog")
	cat, err := catalog.Read(o.Catalog, catalog.ReadOptions{Price: o.Price})
	if err != nil {
		return nil, err
	}
	all := cat
	filt, _ := catalog.ParseFilter(o.Types)
	if !filt.IsZero() {
		if cat, err = cat.Filter(filt); err != nil {
			return nil, err
		}
	}
	res, _ := catalog.ParseReserved(o.Reserved)
	r := &Result{Types: map[string]int{}, Unplaceable: []Unplaceable{}, LeftOut: []string{}}
	r.Catalog = CatalogInfo{File: cat.File, SHA256: cat.SHA256, PriceColumn: cat.PriceColumn, TypesRead: len(all.Types),
		TypesKept: len(cat.Types), Filter: filt.String(), Reserved: string(res), Notes: cat.Notes}
	if len(cat.Types) > 0 {
		r.Catalog.ReservedFormula = res.Allocatable(cat.Types[0]).Formula
	}
	stage("reading the load")
	var src source
	var t float64
	var dataset string
	if o.Run != 0 {
		src, t, dataset, err = fromRun(ctx, db, o.Run, o.At, cat, res)
	} else {
		src, t, err = fromDataset(ctx, db, o.Dataset, o.At, o.Peak, cat, res)
		dataset = o.Dataset
	}
	if err != nil {
		return nil, err
	}
	r.Source.Run, r.Source.Dataset, r.Source.T, r.Source.Kind = o.Run, dataset, t, src.kind()
	r.LeftOut = append(r.LeftOut, src.leftOut()...)
	p := src.problem()
	r.Dims = p.Dims
	stage(fmt.Sprintf("planning %d pod groups on %d candidate types", len(p.Groups), len(p.Types)))
	fo := o.Fleet
	if o.Progress != nil {
		fo.Progress = func(s string) { o.Progress("  " + s) }
	}
	fr, err := fleet.Solve(ctx, p, fo)
	if err != nil {
		return nil, err
	}
	plan := fr.Plan
	before := plan.Cost
	if len(plan.Nodes) > 0 {
		moves, added, err := src.repair(&plan)
		if err != nil {
			return nil, err
		}
		r.Bound.SpreadMoves, r.Bound.SpreadNodes = moves, added
		if err := fleet.Check(p, &plan); err != nil {
			return nil, fmt.Errorf("plan: after keeping topology spread: %w", err)
		}
	}
	r.CostPerHour, r.LBCostPerHour = round6(plan.Cost), math.Floor(fr.LowerBound*1e6)/1e6
	if fr.LowerBound > 0 {
		r.GapPct = round6(100 * (plan.Cost - fr.LowerBound) / fr.LowerBound)
	}
	r.Nodes = len(plan.Nodes)
	r.Types = typeCounts(src, plan.Nodes)
	r.Pools = poolCounts(src, plan.Nodes)
	r.Placed = fr.Placed
	for _, u := range fr.Unplaceable {
		names := src.groupNames(u.Group)
		if len(names) > 3 {
			names = names[:3]
		}
		r.Unplaceable = append(r.Unplaceable, Unplaceable{Pods: u.Count, Reason: u.Reason, Names: names})
	}
	r.Bound = Bound{LPBound: round6(fr.LPBound), VolumeBound: round6(fr.VolumeBound), Converged: fr.Converged, Stop: fr.Stop,
		Iterations: fr.Iterations, Columns: fr.Columns, Candidates: len(p.Types), TypesUsable: fr.TypesUsable, TypesDominated: fr.TypesDominated,
		Source: fr.Source, IntegerProven: fr.IntegerProven, FlowConverged: fr.FlowConverged, PackingTypes: fr.SubTypes, LNSTried: fr.LNSTried, LNSImproved: fr.LNSImproved, SpreadMoves: r.Bound.SpreadMoves, SpreadNodes: r.Bound.SpreadNodes,
		CostBeforeSpread: round6(before)}
	r.Baselines.Karpenter = Fleet{CostPerHour: round6(fr.Karpenter.Cost), Nodes: len(fr.Karpenter.Nodes), Types: typeCounts(src, fr.Karpenter.Nodes),
		Seconds: fr.KarpenterSeconds}
	r.Baselines.BestSingle = Fleet{CostPerHour: round6(fr.BestSingle.Cost), Nodes: len(fr.BestSingle.Nodes), Types: typeCounts(src, fr.BestSingle.Nodes)}
	if len(fr.BestSingle.Nodes) > 0 {
		r.Baselines.BestSingle.Type = src.typeName(fr.BestSingle.Nodes[0].Type)
	}
	r.Baselines.Current = src.current(all)
	if o.Store && len(plan.Nodes) > 0 {
		stage("storing and checking the plan")
		params := map[string]any{"catalog": cat.File, "catalog_sha256": cat.SHA256, "price_column": cat.PriceColumn,
			"types_filter": filt.String(), "reserved": string(res), "source_run": o.Run, "source_dataset": dataset, "t_s": t,
			"cost_per_hour": r.CostPerHour, "lb_cost_per_hour": r.LBCostPerHour, "gap_pct": r.GapPct}
		name := planName(dataset, params)
		r.PlanDataset = name
		id, err := src.store(ctx, db, &plan, name, params)
		if err != nil {
			return nil, err
		}
		r.PlanRun = id
		rep, err := analysis.CheckRun(ctx, db, id)
		if err != nil {
			return nil, err
		}
		r.Check = &Check{OK: rep.OK(), Capacity: len(rep.Violations), Constraints: len(rep.Constraints), Constrained: int(rep.Constrained)}
		if err := storeMetrics(ctx, db, id, t, r); err != nil {
			return nil, err
		}
	}
	r.Seconds = round6(time.Since(start).Seconds())
	return r, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// planName is the plan's dataset: the source's name and a digest of what
// was asked, so the same question replaces its own answer.
func planName(dataset string, params map[string]any) string {
	js, _ := json.Marshal(params)
	h := sha256.Sum256(js)
	return dataset + "-plan-" + hex.EncodeToString(h[:4])
}

func typeCounts(src source, nodes []fleet.Node) map[string]int {
	out := map[string]int{}
	for _, n := range nodes {
		out[src.typeName(n.Type)]++
	}
	return out
}

func poolCounts(src source, nodes []fleet.Node) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, n := range nodes {
		p := src.poolName(n.Type)
		if p == "" {
			return nil
		}
		if out[p] == nil {
			out[p] = map[string]int{}
		}
		out[p][src.typeName(n.Type)]++
	}
	return out
}

// storeMetrics keeps the plan's figures as the plan run's metrics, for the
// report and SQL.
func storeMetrics(ctx context.Context, db *store.DB, run int64, t float64, r *Result) error {
	return db.WriteTx(ctx, func(w *store.Writer) error {
		ms := map[string]float64{"plan_cost_per_hour": r.CostPerHour, "plan_lb_cost_per_hour": r.LBCostPerHour, "plan_gap_pct": r.GapPct,
			"plan_nodes": float64(r.Nodes), "plan_karpenter_cost_per_hour": r.Baselines.Karpenter.CostPerHour}
		if r.Baselines.BestSingle.Nodes > 0 {
			ms["plan_best_single_cost_per_hour"] = r.Baselines.BestSingle.CostPerHour
		}
		if r.Baselines.Current != nil {
			ms["plan_current_cost_per_hour"] = r.Baselines.Current.CostPerHour
		}
		keys := make([]string, 0, len(ms))
		for k := range ms {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := w.Append("run_metric", run, t, k, ms[k]); err != nil {
				return err
			}
		}
		return nil
	})
}

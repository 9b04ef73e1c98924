package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"placelab/analysis"
	"placelab/analysis/plan"
	"placelab/datasets"
	"placelab/datasets/k8sgen"
	store "placelab/sql"
)

// AWSCatalog is the real catalog bench plan prices the fleet with, under
// the shared data directory (../shared/data).
const AWSCatalog = "catalogs/aws-ec2-us-east-1.csv"

// PlanBenchOptions size placelab bench plan.
type PlanBenchOptions struct {
	Nodes, Pods int
	Seed        uint64
	Reps        int
	// Catalog is the catalog file (CatalogPath finds the default).
	Catalog string
	// Types is a --types filter of the catalog ("": every type).
	Types string
	// TimeLimit and IntegerTimeLimit are plan's (0: its defaults).
	TimeLimit, IntegerTimeLimit time.Duration
	// Progress, when not nil, is told each step.
	Progress func(string)
}

// DefaultPlanBenchOptions are the size: the 1,500-node,
// 10,000-pod snapshot of bench cluster in 3 zones, three repetitions.
func DefaultPlanBenchOptions() PlanBenchOptions {
	return PlanBenchOptions{Nodes: 1500, Pods: 10000, Seed: 1, Reps: 3}
}

// CatalogPath is the AWS catalog under the shared data directory dir, or
// an error saying where it was looked for.
func CatalogPath(dir string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(AWSCatalog))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("bench plan: the AWS catalog is not here: %s (it comes with ../shared/data beside the repository; give --shared DIR or --catalog FILE)", p)
	}
	return p, nil
}

// PlanBench is what placelab plan makes a Kubernetes user wait for on a
// large snapshot against the full AWS catalog, medians over the
// repetitions: Seconds is plan.Run's wall time, all of it (catalog read,
// snapshot load, solve, store, check), Stages its parts; beside it the
// Karpenter-style baseline's own time from the same call and every cost.
type PlanBench struct {
	Nodes     int     `json:"nodes_in_snapshot"`
	Pods      int     `json:"pods"`
	Reps      int     `json:"reps"`
	Seed      uint64  `json:"seed"`
	Catalog   string  `json:"catalog"`
	TypesRead int     `json:"catalog_types_read"`
	TypesKept int     `json:"catalog_types_kept"`
	Filter    string  `json:"types_filter"`
	JSONBytes int     `json:"json_bytes"`
	Ingest    float64 `json:"ingest_seconds_untimed"`
	// Seconds: plan.Run end to end (median).
	Seconds float64 `json:"seconds"`
	// Stages: seconds from each of plan's stages to the next (median):
	// catalog, load, solve, store_check.
	Stages map[string]float64 `json:"stage_seconds"`
	// KarpenterSeconds is the Karpenter-style baseline's own time in the
	// same call (Result.Baselines.Karpenter.Seconds).
	KarpenterSeconds float64   `json:"karpenter_seconds_baseline"`
	CostPerHour      float64   `json:"cost_per_hour"`
	LBCostPerHour    float64   `json:"lb_cost_per_hour"`
	GapPct           float64   `json:"gap_pct"`
	PlanNodes        int       `json:"nodes"`
	KarpenterCost    float64   `json:"karpenter_cost_per_hour"`
	KarpenterNodes   int       `json:"karpenter_nodes"`
	BestSingleCost   float64   `json:"best_single_cost_per_hour"`
	BestSingleType   string    `json:"best_single_type"`
	CurrentCost      float64   `json:"current_cost_per_hour"`
	CurrentNodes     int       `json:"current_nodes"`
	Placed           int       `json:"placed"`
	Unplaceable      int       `json:"unplaceable_pods"`
	Stop             string    `json:"lp_stop"`
	Converged        bool      `json:"lp_converged"`
	PlanSource       string    `json:"plan_source"`
	CheckOK          bool      `json:"check_ok"`
	RepSeconds       []float64 `json:"rep_seconds"`
	RepCostPerHour   []float64 `json:"rep_cost_per_hour"`
	RepLBCostPerHour []float64 `json:"rep_lb_cost_per_hour"`
}

// planStages are the stage names bench plan reports, in plan.Run's order,
// keyed by the start of plan's progress messages.
var planStages = []struct{ prefix, name string }{
	{"reading the catalog", "catalog"}, {"reading the load", "load"}, {"planning", "solve"}, {"storing", "store_check"},
}

// RunPlanBench generates the snapshot once, as kubectl prints it, and per
// repetition ingests it (untimed) into a fresh in-memory database and
// times plan.Run on its observed run.
func RunPlanBench(ctx context.Context, o PlanBenchOptions) (*PlanBench, error) {
	if o.Reps < 1 {
		return nil, fmt.Errorf("%w: reps = %d, want ≥ 1", analysis.ErrBadSpec, o.Reps)
	}
	if o.Catalog == "" {
		return nil, errors.New("bench plan: no catalog")
	}
	if _, err := os.Stat(o.Catalog); err != nil {
		return nil, fmt.Errorf("bench plan: the catalog: %w", err)
	}
	say := func(f string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(f, a...))
		}
	}
	say("generating a %d-node, %d-pod cluster", o.Nodes, o.Pods)
	nodes, pods, err := k8sgen.Generate(k8sgen.Options{Nodes: o.Nodes, Pods: o.Pods, Seed: o.Seed, Zones: k8sgen.DefaultZones})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "placelab-bench-plan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := k8sgen.WriteDir(dir, nodes, pods); err != nil {
		return nil, err
	}
	b := &PlanBench{Nodes: o.Nodes, Pods: o.Pods, Reps: o.Reps, Seed: o.Seed, Catalog: o.Catalog, JSONBytes: len(nodes) + len(pods),
		Stages: map[string]float64{}}
	var ingest, secs, karp, cost, lb, gap, planNodes, kcost, knodes, bcost, ccost, cnodes []float64
	stages := map[string][]float64{}
	for rep := range o.Reps {
		db, err := store.Open(ctx, ":memory:")
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		c, err := datasets.Ingest(ctx, db, "k8s", []string{dir}, datasets.Options{Dataset: "bench"})
		if err != nil {
			db.Close()
			return nil, err
		}
		ingest = append(ingest, time.Since(t0).Seconds())
		po := plan.DefaultOptions()
		po.Run, po.Catalog, po.Types, po.Version = c.ObservedRun, o.Catalog, o.Types, "bench"
		if o.TimeLimit > 0 {
			po.Fleet.TimeLimit = o.TimeLimit
		}
		if o.IntegerTimeLimit > 0 {
			po.Fleet.IntegerTimeLimit = o.IntegerTimeLimit
		}
		var marks []time.Time
		var names []string
		po.Progress = func(s string) {
			for _, st := range planStages {
				if len(s) >= len(st.prefix) && s[:len(st.prefix)] == st.prefix {
					marks, names = append(marks, time.Now()), append(names, st.name)
				}
			}
			say("rep %d/%d: %s", rep+1, o.Reps, s)
		}
		start := time.Now()
		r, err := plan.Run(ctx, db, po)
		end := time.Now()
		db.Close()
		if err != nil {
			return nil, err
		}
		for i, n := range names {
			next := end
			if i+1 < len(marks) {
				next = marks[i+1]
			}
			stages[n] = append(stages[n], next.Sub(marks[i]).Seconds())
		}
		s := end.Sub(start).Seconds()
		secs, karp = append(secs, s), append(karp, r.Baselines.Karpenter.Seconds)
		cost, lb, gap = append(cost, r.CostPerHour), append(lb, r.LBCostPerHour), append(gap, r.GapPct)
		planNodes, kcost, knodes = append(planNodes, float64(r.Nodes)), append(kcost, r.Baselines.Karpenter.CostPerHour), append(knodes, float64(r.Baselines.Karpenter.Nodes))
		bcost = append(bcost, r.Baselines.BestSingle.CostPerHour)
		if cur := r.Baselines.Current; cur != nil {
			ccost, cnodes = append(ccost, cur.CostPerHour), append(cnodes, float64(cur.Nodes))
		}
		b.RepSeconds, b.RepCostPerHour, b.RepLBCostPerHour = append(b.RepSeconds, round6(s)), append(b.RepCostPerHour, r.CostPerHour), append(b.RepLBCostPerHour, r.LBCostPerHour)
		b.TypesRead, b.TypesKept, b.Filter = r.Catalog.TypesRead, r.Catalog.TypesKept, r.Catalog.Filter
		b.BestSingleType, b.Placed, b.Stop, b.Converged, b.PlanSource = r.Baselines.BestSingle.Type, r.Placed, r.Bound.Stop, r.Bound.Converged, r.Bound.Source
		b.Unplaceable = 0
		for _, u := range r.Unplaceable {
			b.Unplaceable += u.Pods
		}
		b.CheckOK = r.Check != nil && r.Check.OK
		say("rep %d/%d: %.1fs, $%.2f per hour (LB $%.2f)", rep+1, o.Reps, s, r.CostPerHour, r.LBCostPerHour)
	}
	b.Ingest, b.Seconds, b.KarpenterSeconds = round6(median(ingest)), round6(median(secs)), round6(median(karp))
	b.CostPerHour, b.LBCostPerHour, b.GapPct = median(cost), median(lb), median(gap)
	b.PlanNodes, b.KarpenterCost, b.KarpenterNodes = int(median(planNodes)), median(kcost), int(median(knodes))
	b.BestSingleCost, b.CurrentCost, b.CurrentNodes = median(bcost), median(ccost), int(median(cnodes))
	for n, xs := range stages {
		b.Stages[n] = round6(median(xs))
	}
	return b, nil
}

func round6(v float64) float64 { return float64(int64(v*1e6+0.5)) / 1e6 }

package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"placelab/analysis/internal/testkit"
	"placelab/analysis/plan"
	"placelab/datasets/k8sgen"
	"placelab/internal/shareddata"
)

// TestPlanTracePeak plans the hand zone's peak (five 4-core 8 GB VMs at
// t=4003) on a two-type catalog whose cheapest fleet is worked out by hand:
// five smalls cost 5.00, two bigs 7.00, one big (four VMs) and one small
// 4.50. The plan must be that, its bound at most that, and the stored run
// must pass placelab check.
func TestPlanTracePeak(t *testing.T) {
	db := testkit.MemDB(t)
	testkit.HandZone(t, db)
	cat := filepath.Join(t.TempDir(), "c.csv")
	if err := os.WriteFile(cat, []byte("name,vcpus,memory_gb,price_per_hour\nsmall,4,8,1.0\nbig,16,32,3.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := plan.DefaultOptions()
	o.Dataset, o.Peak, o.Catalog = "hand", true, cat
	o.Fleet.TimeLimit, o.Fleet.IntegerTimeLimit = 5*time.Second, time.Second
	r, err := plan.Run(context.Background(), db, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Source.T != 4003 || r.Placed != 5 {
		t.Fatalf("peak t=%g placed %d, want t=4003 and 5", r.Source.T, r.Placed)
	}
	if r.CostPerHour != 4.5 || r.Types["big"] != 1 || r.Types["small"] != 1 {
		t.Fatalf("plan $%g %v, want $4.5 = 1 big + 1 small", r.CostPerHour, r.Types)
	}
	if r.LBCostPerHour > 4.5+1e-9 || r.LBCostPerHour <= 0 {
		t.Fatalf("lb %g, want 0 < lb ≤ 4.5", r.LBCostPerHour)
	}
	if r.Check == nil || !r.Check.OK || r.PlanRun == 0 {
		t.Fatalf("stored plan: run %d, check %+v", r.PlanRun, r.Check)
	}
	if r.Baselines.BestSingle.CostPerHour != 5 || r.Baselines.BestSingle.Type != "small" {
		t.Fatalf("best single %+v, want 5 smalls at $5", r.Baselines.BestSingle)
	}
}

// TestPlanCluster plans a generated cluster (GPU pods, node selectors of
// pools, taints, zonal volumes, anti-affinity and zone spread) on EC2
// types: the plan must hold every pod that fits some type, cost no more
// than the Karpenter-style and best-single fleets, keep its bound below
// its cost, and its stored run must pass placelab check (which reads the
// plan written back as a cluster by the same reader as ingest k8s).
func TestPlanCluster(t *testing.T) {
	cat := shareddata.Path(t, "catalogs/aws-ec2-us-east-1.csv")
	_, db, run := testkit.GeneratedCluster(t, k8sgen.Options{Nodes: 40, Pods: 300, Seed: 11, Zones: 2})
	o := plan.DefaultOptions()
	o.Run, o.Catalog, o.Types, o.Reserved = run, cat, "family=m5,c5,r5,g4dn,m6g", "eks"
	o.Fleet.TimeLimit, o.Fleet.IntegerTimeLimit = 10*time.Second, 3*time.Second
	r, err := plan.Run(context.Background(), db, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cost %.4f lb %.4f gap %.2f%% nodes %d karpenter %.4f best single %.4f (%s) current %+v moves %d check %+v %.1fs",
		r.CostPerHour, r.LBCostPerHour, r.GapPct, r.Nodes, r.Baselines.Karpenter.CostPerHour, r.Baselines.BestSingle.CostPerHour,
		r.Baselines.BestSingle.Type, r.Baselines.Current, r.Bound.SpreadMoves, r.Check, r.Seconds)
	if len(r.Unplaceable) != 0 {
		t.Errorf("unplaceable: %+v", r.Unplaceable)
	}
	// No one type holds the GPU and the CPU-only pods: best_single is
	// null in the JSON, not a fleet of no nodes at $0.
	js, err := json.Marshal(r.Baselines)
	if err != nil {
		t.Fatal(err)
	}
	if r.Baselines.BestSingle.Nodes == 0 && !strings.Contains(string(js), `"best_single":null`) {
		t.Errorf("baselines %s: want best_single null", js)
	}
	if r.Check == nil || !r.Check.OK {
		t.Fatalf("check of plan run %d: %+v", r.PlanRun, r.Check)
	}
	if r.LBCostPerHour > r.CostPerHour+1e-6 {
		t.Errorf("lb %g above the plan's cost %g", r.LBCostPerHour, r.CostPerHour)
	}
	if k := r.Baselines.Karpenter; k.Nodes > 0 && r.CostPerHour > k.CostPerHour+1e-6 {
		t.Errorf("plan $%g dearer than karpenter's $%g", r.CostPerHour, k.CostPerHour)
	}
	if b := r.Baselines.BestSingle; b.Nodes > 0 && r.CostPerHour > b.CostPerHour+1e-6 && r.Bound.SpreadNodes == 0 {
		t.Errorf("plan $%g dearer than the best single type's $%g", r.CostPerHour, b.CostPerHour)
	}
}

// TestPlanRefuses: the options' errors.
func TestPlanRefuses(t *testing.T) {
	for _, o := range []func(*plan.Options){
		func(o *plan.Options) { o.Catalog = "" },
		func(o *plan.Options) { o.Run, o.Dataset = 0, "" },
		func(o *plan.Options) { o.Run, o.Dataset = 1, "d" },
		func(o *plan.Options) { o.Peak = true },
		func(o *plan.Options) { o.Reserved = "aks" },
		func(o *plan.Options) { o.Types = "colour=red" },
	} {
		p := plan.DefaultOptions()
		p.Run, p.Catalog = 1, "c.csv"
		o(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

package plan_test

import (
	"context"
	"testing"
	"time"

	"placelab/analysis/internal/testkit"
	"placelab/analysis/plan"
	"placelab/datasets/k8sgen"
	"placelab/internal/shareddata"
	store "placelab/sql"
)

func replaceOpts(t *testing.T, run int64, maxMoves int) plan.ReplaceOptions {
	o := plan.DefaultReplaceOptions()
	o.Plan.Run, o.Plan.Catalog, o.Plan.Types, o.Plan.Reserved = run, shareddata.Path(t, "catalogs/aws-ec2-us-east-1.csv"), "family=m5,c5,r5,g4dn,m6g", "eks"
	o.Plan.Fleet.TimeLimit, o.Plan.Fleet.IntegerTimeLimit = 10*time.Second, 3*time.Second
	o.MaxMoves = maxMoves
	return o
}

func TestReplaceCluster(t *testing.T) {
	_, db, run := testkit.GeneratedCluster(t, k8sgen.Options{Nodes: 40, Pods: 300, Seed: 11, Zones: 2})
	for _, budget := range []int{-1, 0, 10} {
		r, err := plan.Replace(context.Background(), db, replaceOpts(t, run, budget))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %d: keep %d add %d (unneeded %d) remove %d kept-budget %d kept-no-room %d moves %d pending placed %d left %d; $%.4f → $%.4f (plan $%.4f); check %+v; %.1fs",
			budget, len(r.NodesKeep), len(r.NodesAdd), len(r.NodesAddUnneeded), len(r.NodesRemove), len(r.NodesKeptBudget), len(r.NodesKeptNoRoom),
			r.MovesCount, len(r.PendingPlaced), len(r.PendingLeft), r.CostPerHourBefore, r.CostPerHourAfter, r.PlanCostPerHour, r.Check, r.Seconds)
		for _, k := range r.NodesKeptNoRoom {
			t.Logf("  no room: %s %s", k.Name, k.Reason)
		}
		if r.Check == nil || !r.Check.OK {
			t.Errorf("check %+v", r.Check)
		}
		_ = store.Counts{}
	}
}

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

// podsOf is SQL over a run's stored placements: each non-pinned pod's
// name and node ("" when not placed), pinned pods (DaemonSet, static) left
// out.
const podsOf = `SELECT v.name, coalesce(m.name, '') AS node, coalesce(v.end_s, -1) AS end_s
	FROM run r JOIN dataset d ON d.name = r.dataset
	JOIN vm v ON v.load_id = d.load_id
	LEFT JOIN placement p ON p.run_id = r.run_id AND p.vm_id = v.vm_id
	LEFT JOIN machine m ON m.load_id = d.load_id AND m.machine_id = p.machine_id AND p.outcome = 'placed'
	LEFT JOIN k8s_pod kp ON kp.load_id = d.load_id AND kp.vm_id = v.vm_id
	WHERE r.run_id = $1 AND coalesce(kp.owner_kind, '') NOT IN ('DaemonSet', 'Node')`

type podRow struct {
	node string
	end  float64
}

func storedPods(t *testing.T, db *store.DB, run int64) (map[string]podRow, int) {
	t.Helper()
	rows, err := db.SQL().Query(podsOf, run)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out, n := map[string]podRow{}, 0
	for rows.Next() {
		var name string
		var r podRow
		if err := rows.Scan(&name, &r.node, &r.end); err != nil {
			t.Fatal(err)
		}
		out[name] = r
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out, n
}

// TestReplaceCluster replaces a generated cluster's fleet (40 nodes, 300
// pods, two zones, GPU, taints, zonal volumes, anti-affinity and spread)
// by the plan's, with no bound on moves, none, and 10: the state after
// must pass placelab check; every pod of the cluster must appear in it
// exactly once; the moves, counted apart from Replace by SQL over the
// stored placements joined with the cluster's observed run by pod name,
// must be the moves it reports and within the budget; a budget of 0 moves
// nothing and removes only nodes without a pod that would move; with no
// bound every node the plan does not keep goes and the cost after is no
// more than before when the plan is cheaper.
func TestReplaceCluster(t *testing.T) {
	_, db, run := testkit.GeneratedCluster(t, k8sgen.Options{Nodes: 40, Pods: 300, Seed: 11, Zones: 2})
	before, _ := storedPods(t, db, run)
	for _, budget := range []int{-1, 0, 10} {
		r, err := plan.Replace(context.Background(), db, replaceOpts(t, run, budget))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %d: keep %d, add %d (not needed %d), remove %d, kept for budget %d, for room %d; %d moves, %d pending placed, %d left; $%.4f → $%.4f per hour (plan $%.4f); check %+v; %.1fs",
			budget, len(r.NodesKeep), len(r.NodesAdd), len(r.NodesAddUnneeded), len(r.NodesRemove), len(r.NodesKeptBudget), len(r.NodesKeptNoRoom),
			r.MovesCount, len(r.PendingPlaced), len(r.PendingLeft), r.CostPerHourBefore, r.CostPerHourAfter, r.PlanCostPerHour, r.Check, r.Seconds)
		testkit.CheckPlanRun(t, db, r.ReplaceRun)
		if r.Check == nil || !r.Check.OK {
			t.Errorf("budget %d: check %+v", budget, r.Check)
		}
		after, rowsAfter := storedPods(t, db, r.ReplaceRun)
		if rowsAfter != len(after) || len(after) != r.Pods {
			t.Errorf("budget %d: %d rows, %d distinct pods, %d reported", budget, rowsAfter, len(after), r.Pods)
		}
		moves, placed := 0, 0
		for name, b := range before {
			a, ok := after[name]
			if b.end >= 0 {
				continue // ended before the snapshot
			}
			if !ok {
				t.Errorf("budget %d: pod %s missing after", budget, name)
				continue
			}
			switch {
			case b.node != "" && a.node != b.node:
				moves++
			case b.node == "" && a.node != "":
				placed++
			}
		}
		for name := range after {
			if _, ok := before[name]; !ok {
				t.Errorf("budget %d: pod %s after is not the cluster's", budget, name)
			}
		}
		if moves != r.MovesCount || moves != len(r.Moves) || placed != len(r.PendingPlaced) {
			t.Errorf("budget %d: SQL counts %d moves and %d pending placed, Replace %d (%d listed) and %d", budget, moves, placed, r.MovesCount, len(r.Moves), len(r.PendingPlaced))
		}
		if budget >= 0 && moves > budget {
			t.Errorf("budget %d: %d moves", budget, moves)
		}
		if budget == 0 {
			busy := map[string]bool{}
			for _, b := range before {
				if b.node != "" && b.end < 0 {
					busy[b.node] = true
				}
			}
			for _, n := range r.NodesRemove {
				if busy[n.Name] || n.Pods != 0 {
					t.Errorf("budget 0 removes %s, which holds pods", n.Name)
				}
			}
		}
		if budget < 0 {
			if len(r.NodesKeptBudget) != 0 || len(r.NodesKeptNoRoom) != 0 {
				t.Errorf("no bound: kept %+v %+v", r.NodesKeptBudget, r.NodesKeptNoRoom)
			}
			if r.PlanCostPerHour < r.CostPerHourBefore && r.CostPerHourAfter > r.CostPerHourBefore+1e-6 {
				t.Errorf("no bound: $%g after, $%g before, plan $%g", r.CostPerHourAfter, r.CostPerHourBefore, r.PlanCostPerHour)
			}
		}
	}
}

// TestReplaceRefuses: a trace's peak has no fleet to replace.
func TestReplaceRefuses(t *testing.T) {
	o := plan.DefaultReplaceOptions()
	o.Plan.Dataset, o.Plan.Peak, o.Plan.Catalog = "d", true, "c.csv"
	if err := o.Validate(); err == nil {
		t.Error("--dataset: no error")
	}
}

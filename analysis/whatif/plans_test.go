package whatif

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/snapshot"
	"placelab/datasets/k8sgen"
	"placelab/internal/kubejudge"
	"placelab/internal/shareddata"
	"placelab/optimizer"
	"placelab/optimizer/drain"
	store "placelab/sql"
)

// TestPlansKeepKubernetesRules is issue 50's judge: whatif migrate and
// whatif drain on generated clusters, each plan read back as its user would
// apply it (pod, from, to; nodes removed) and judged from the kubectl JSON
// alone by kubejudge (Kubernetes' own affinity, taint and request helpers):
// no pinned pod moved, no selector, affinity or taint broken, no pod with a
// persistentVolumeClaim moved to another zone, no node over allocatable, no
// pod left on a removed node; and each stored plan passes placelab check.
// Before the fix, migrate's plan on seed 3 broke all of these.
func TestPlansKeepKubernetesRules(t *testing.T) {
	ctx := context.Background()
	for _, o := range testkit.JudgeClusters {
		dir, db, run := testkit.GeneratedCluster(t, o)
		judge, err := kubejudge.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		mig, err := Migrate(ctx, db, run, MigrateOptions{At: math.NaN(), Budget: 0, Store: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(mig.Moves) == 0 || mig.MachinesFreed == 0 {
			t.Errorf("seed %d: migrate made no plan (%d moves, %d freed): nothing judged", o.Seed, len(mig.Moves), mig.MachinesFreed)
		}
		var plan kubejudge.Plan
		for _, mv := range mig.Moves {
			if mv.Pod == "" || mv.Pod != mv.VM {
				t.Fatalf("seed %d: migrate move %+v names no pod", o.Seed, mv)
			}
			plan.Moves = append(plan.Moves, kubejudge.Move{Pod: mv.Pod, From: mv.From, To: mv.To})
		}
		plan.Removed = mig.RemovedMachines
		plan.Binds = testkit.Binds(t, mig.PendingOutcomes)
		for _, v := range judge.Judge(plan) {
			if v.Kind != kubejudge.KindOverAllocatableBefore {
				t.Errorf("seed %d: migrate: %s", o.Seed, v)
			}
		}
		testkit.CheckPlanRun(t, db, mig.PlanRun)

		dr, err := Drain(ctx, db, run, DefaultDrainOptions())
		if err != nil {
			t.Fatal(err)
		}
		plan = kubejudge.Plan{Removed: append(slices.Clone(dr.RemovedNodes), dr.RemovedEmptyNodes...), Binds: testkit.Binds(t, dr.PendingOutcomes)}
		for _, mv := range dr.Moves {
			plan.Moves = append(plan.Moves, kubejudge.Move{Pod: mv.Pod, From: mv.From, To: mv.To})
		}
		for _, v := range judge.Judge(plan) {
			if v.Kind != kubejudge.KindOverAllocatableBefore {
				t.Errorf("seed %d: drain: %s", o.Seed, v)
			}
		}
		testkit.CheckPlanRun(t, db, dr.PlanRun)
	}
}

// TestPlanCountsAgree is issue 52's "counts that do not add up": on the
// generated clusters, the Pending pods whatif drain and migrate report are
// the pods kubectl's JSON shows Pending; both plans try them (each outcome
// placed on a node or with a reason); nodes in use are the nodes holding a
// pod that is neither a DaemonSet's nor static, counted from the files;
// and the plans' counts add up: nodes_after = nodes_in_use_with_pending −
// nodes_removed + nodes_newly_used, recounted from the moves, and
// machines_in_use_after = machines_in_use_with_pending − machines_freed +
// machines_newly_used.
func TestPlanCountsAgree(t *testing.T) {
	ctx := context.Background()
	for _, o := range testkit.JudgeClusters {
		dir, db, run := testkit.GeneratedCluster(t, o)
		judge, err := kubejudge.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		pending, inUse := 0, map[string]bool{}
		for _, p := range judge.Pods {
			if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			if p.Spec.NodeName == "" {
				pending++
			} else if !kubejudge.IsPinned(p) {
				inUse[p.Spec.NodeName] = true
			}
		}
		dr, err := Drain(ctx, db, run, DefaultDrainOptions())
		if err != nil {
			t.Fatal(err)
		}
		if dr.PendingPods != pending || len(dr.PendingOutcomes) != pending || dr.NodesInUse != len(inUse) {
			t.Errorf("seed %d: drain: %d pending (%d tried), %d nodes in use; kubectl: %d pending, %d nodes in use",
				o.Seed, dr.PendingPods, len(dr.PendingOutcomes), dr.NodesInUse, pending, len(inUse))
		}
		// Recount from the plan: nodes in use after = those with a
		// running pod that stays or moves there, or a pending pod bound.
		final := map[string]string{}
		for _, p := range judge.Pods {
			if p.Spec.NodeName != "" && !kubejudge.IsPinned(p) && kubejudge.IsRunning(p) {
				final[kubejudge.PodKey(p)] = p.Spec.NodeName
			}
		}
		for _, mv := range dr.Moves {
			final[mv.Pod] = mv.To
		}
		placed := 0
		for _, po := range dr.PendingOutcomes {
			if po.Placed {
				final[po.VM] = po.Machine
				placed++
			}
		}
		after := map[string]bool{}
		for _, n := range final {
			after[n] = true
		}
		if dr.NodesAfter != len(after) || dr.PendingPlaced != placed ||
			dr.NodesAfter != dr.NodesInUseWithPending-dr.NodesRemoved+dr.NodesNewlyUsed || dr.NodesRemoved != len(dr.RemovedNodes) {
			t.Errorf("seed %d: drain: %d nodes after (%d recounted) = %d with pending − %d removed + %d newly used? pending placed %d (%d)",
				o.Seed, dr.NodesAfter, len(after), dr.NodesInUseWithPending, dr.NodesRemoved, dr.NodesNewlyUsed, dr.PendingPlaced, placed)
		}
		for _, n := range dr.RemovedNodes {
			if !inUse[n] && !slices.ContainsFunc(dr.PendingOutcomes, func(po snapshot.PendingOutcome) bool { return po.Placed && po.Machine == n }) {
				// a node a pending pod was placed on and the plan then
				// emptied is in use with the pending pods
				t.Logf("seed %d: removed node %s was empty at the snapshot", o.Seed, n)
			}
		}
		for _, n := range dr.RemovedEmptyNodes {
			if inUse[n] {
				t.Errorf("seed %d: node %s counted empty but holds a pod that can move", o.Seed, n)
			}
		}

		mig, err := Migrate(ctx, db, run, MigrateOptions{At: math.NaN(), Budget: 0})
		if err != nil {
			t.Fatal(err)
		}
		if mig.PendingVMs != pending || len(mig.PendingOutcomes) != pending || mig.MachinesInUse != len(inUse) ||
			mig.MachinesInUseAfter != mig.MachinesInUseWithPending-mig.MachinesFreed+mig.MachinesNewlyUsed {
			t.Errorf("seed %d: migrate: %d pending (%d tried), %d in use, %d with pending, %d freed, %d after; kubectl %d pending, %d in use",
				o.Seed, mig.PendingVMs, len(mig.PendingOutcomes), mig.MachinesInUse, mig.MachinesInUseWithPending, mig.MachinesFreed,
				mig.MachinesInUseAfter, pending, len(inUse))
		}
		if pending == 0 {
			t.Errorf("seed %d: no Pending pod: the test wants some", o.Seed)
		}
	}
}

// TestCapacityLikePendingPods: capacity --like on every Pending pod of the
// generated clusters is at most the upper bound read from kubectl's JSON
// alone (per node: selector, affinity, taints, then floor(free/request));
// before, a Pending pod read demand 0 and millions of copies "fit".
func TestCapacityLikePendingPods(t *testing.T) {
	ctx := context.Background()
	seen := 0
	for _, o := range testkit.JudgeClusters {
		dir, db, run := testkit.GeneratedCluster(t, o)
		judge, err := kubejudge.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range judge.Pods {
			if p.Spec.NodeName != "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			name := kubejudge.PodKey(p)
			ub, err := judge.FitUpperBound(name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := cluster.SnapshotFit(ctx, db, run, name, math.NaN())
			if err != nil {
				t.Fatalf("seed %d: capacity --like %s: %v", o.Seed, name, err)
			}
			seen++
			if rep.More > ub {
				t.Errorf("seed %d: capacity --like %s: %d more fit, but at most %d can (demand %v)", o.Seed, name, rep.More, ub, rep.Demand)
			}
			if rep.Demand["cores"] == 0 && rep.Demand["memory"] == 0 {
				t.Errorf("seed %d: capacity --like %s reads demand 0: %v", o.Seed, name, rep.Demand)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no Pending pod in the clusters: nothing tested")
	}
}

// TestRunStateAtAnEmptyInstant: a snapshot instant at which the run held
// nothing is refused, naming the span of its placements, not answered with
// an empty state; the default instant of an observed run is its last event
// and holds its pods (whatif migrate planned for 1 VM before).
func TestRunStateAtAnEmptyInstant(t *testing.T) {
	ctx := context.Background()
	dir, db, run := testkit.GeneratedCluster(t, testkit.JudgeClusters[0])
	if _, err := snapshot.Load(ctx, db, run, -1e9); err == nil || !strings.Contains(err.Error(), "holds no VM") {
		t.Fatalf("snapshot before the first placement: %v, want ErrNoSnapshot", err)
	}
	rs, err := snapshot.Load(ctx, db, run, math.NaN())
	if err != nil {
		t.Fatal(err)
	}
	if rs.State.Len() < 300 || len(rs.PinnedVMs) == 0 {
		t.Fatalf("default snapshot holds %d VMs (%d pinned)", rs.State.Len(), len(rs.PinnedVMs))
	}
	// Its Pending pods are the kubectl JSON's (pods with no node), created
	// after the last pod the scheduler bound: the default instant holds
	// them (it ended before them, and drain said 0 Pending).
	judge, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, p := range judge.Pods {
		if p.Spec.NodeName == "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			pending++
		}
	}
	if pending == 0 || len(rs.Pending) != pending {
		t.Errorf("default snapshot: %d Pending VMs, kubectl's JSON %d Pending pods", len(rs.Pending), pending)
	}
	// Every placement is rebuilt whole: its node sets and tenant bounds are
	// the trace's, and a pinned pod carries its pin.
	pinned := 0
	for _, vm := range rs.PinnedVMs {
		if p, ok := rs.State.Lookup(vm); ok && p.Pin != 0 && p.Affinity != 0 {
			pinned++
		}
	}
	if pinned != len(rs.PinnedVMs) {
		t.Errorf("%d of %d pinned VMs carry their pin and affinity set", pinned, len(rs.PinnedVMs))
	}
	names := map[string]bool{}
	for _, v := range rs.Trace.VMs {
		names[rs.Name(v.ID)] = true
	}
	if len(names) != len(rs.Trace.VMs) || !slices.ContainsFunc(rs.Trace.VMs, func(v replay.TraceVM) bool { return strings.Contains(rs.Name(v.ID), "/") }) {
		t.Errorf("VM names are not the pods' namespace/name")
	}
}

// overlappingPairs counts, in stored run plan, the pairs of one tenant's
// VMs in different fault domains on one rack, and of different update
// domains on one machine update domain, with the domains read from the
// source run's own placement_domain rows (not the plan's copy).
func overlappingPairs(t *testing.T, db *store.DB, plan, source int64) (fd, ud int64) {
	t.Helper()
	q := `WITH p AS (
		SELECT pl.vm_id, v.tenant, m.cluster, m.rack, m.update_domain AS mud, d.fault_domain, d.update_domain
		FROM placement pl JOIN run r ON r.run_id = pl.run_id
		JOIN vm v ON v.load_id = r.load_id AND v.vm_id = pl.vm_id
		JOIN machine m ON m.load_id = r.load_id AND m.machine_id = pl.machine_id
		JOIN placement_domain d ON d.run_id = $2 AND d.vm_id = pl.vm_id
		WHERE pl.run_id = $1 AND pl.machine_id IS NOT NULL)
	SELECT (SELECT count(*) FROM p a JOIN p b ON a.tenant = b.tenant AND a.cluster = b.cluster AND a.rack = b.rack
	            AND a.vm_id < b.vm_id AND a.fault_domain <> b.fault_domain),
	       (SELECT count(*) FROM p a JOIN p b ON a.tenant = b.tenant AND a.mud = b.mud
	            AND a.vm_id < b.vm_id AND a.update_domain <> b.update_domain)`
	if err := db.SQL().QueryRowContext(context.Background(), q, plan, source).Scan(&fd, &ud); err != nil {
		t.Fatal(err)
	}
	return fd, ud
}

// TestPlansKeepAvailabilitySets is issue 50's drain of a replay with fault
// and update domains: the drain and migrate plans keep every tenant's
// spread (0 pairs of one tenant's different fault domains on a rack, or of
// different update domains on one machine update domain, counted against
// the source run's domains), each passes placelab check with its domains
// checked, and moving one VM by hand onto a rack holding another fault
// domain of its tenant makes check fail, naming the fault domains. Before,
// the drain's plan held thousands of such pairs and check said ok.
func TestPlansKeepAvailabilitySets(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	run := replayWithDomains(t, db, 3, 5)
	dr, err := Drain(ctx, db, run, DefaultDrainOptions())
	if err != nil {
		t.Fatal(err)
	}
	mig, err := Migrate(ctx, db, run, MigrateOptions{At: math.NaN(), Budget: 0, Store: true})
	if err != nil {
		t.Fatal(err)
	}
	if dr.NodesRemoved == 0 || len(dr.Moves) == 0 || mig.MachinesFreed == 0 {
		t.Fatalf("nothing planned: drain removes %d with %d moves, migrate frees %d", dr.NodesRemoved, len(dr.Moves), mig.MachinesFreed)
	}
	for _, plan := range []int64{dr.PlanRun, mig.PlanRun} {
		if fd, ud := overlappingPairs(t, db, plan, run); fd != 0 || ud != 0 {
			t.Errorf("plan run %d: %d fault-domain and %d update-domain overlapping pairs", plan, fd, ud)
		}
		rep, err := analysis.CheckRun(ctx, db, plan)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Domains == 0 {
			t.Errorf("check --run %d: ok %v with %d domains checked: %+v", plan, rep.OK(), rep.Domains, rep.Avail)
		}
	}
	// By hand: VM a onto the machine of b, a VM of its tenant in another
	// fault domain on another rack.
	var a, b int64
	var mb int32
	err = db.SQL().QueryRowContext(ctx, `SELECT pa.vm_id, pb.vm_id, pb.machine_id
		FROM placement pa JOIN placement pb ON pb.run_id = pa.run_id AND pb.vm_id > pa.vm_id
		JOIN run r ON r.run_id = pa.run_id
		JOIN vm va ON va.load_id = r.load_id AND va.vm_id = pa.vm_id
		JOIN vm vb ON vb.load_id = r.load_id AND vb.vm_id = pb.vm_id AND vb.tenant = va.tenant
		JOIN machine ma ON ma.load_id = r.load_id AND ma.machine_id = pa.machine_id
		JOIN machine mb ON mb.load_id = r.load_id AND mb.machine_id = pb.machine_id AND mb.rack <> ma.rack
		JOIN placement_domain da ON da.run_id = $2 AND da.vm_id = pa.vm_id
		JOIN placement_domain db ON db.run_id = $2 AND db.vm_id = pb.vm_id AND db.fault_domain <> da.fault_domain
		WHERE pa.run_id = $1 ORDER BY pa.vm_id, pb.vm_id LIMIT 1`, dr.PlanRun, run).Scan(&a, &b, &mb)
	if err != nil {
		t.Fatalf("no tenant with two fault domains in the plan: %v", err)
	}
	if _, err := db.SQL().ExecContext(ctx, "UPDATE placement SET machine_id = $1 WHERE run_id = $2 AND vm_id = $3", mb, dr.PlanRun, a); err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.CheckRun(ctx, db, dr.PlanRun)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range rep.Avail {
		if v.Problem == "fault_domain_shared_rack" && (v.VM == a || v.OtherVM == a) && strings.Contains(v.Detail, "fault domains") {
			found = true
		}
	}
	if !found || rep.OK() {
		t.Errorf("VM %d moved onto VM %d's machine %d: check %v, availability %+v", a, b, mb, rep.OK(), rep.Avail)
	}
}

// TestDrainConformsToRules holds the drain planner's encoding of the
// constraints (ClusterSnapshot: masks, fault domains, capacity, per-node
// and spread counts, checked by drain.Check) to the rules every engine
// uses: on generated clusters and on a replay with availability sets, for
// random single moves of a pod from the snapshot to another schedulable
// node, drain.Check accepts the assignment after the move exactly when the
// run's rules accept the move (optimizer.MoveCheck: the VM off its machine,
// its request rebuilt from its placement). The one difference allowed is
// the drain's stricter spread: a move out of a zone that would raise the
// skew of the tenant's other pods is refused by the drain alone (it checks
// every pod of the final assignment, as placelab check does).
func TestDrainConformsToRules(t *testing.T) {
	ctx := context.Background()
	type src struct {
		name string
		db   *store.DB
		run  int64
	}
	var srcs []src
	for _, o := range testkit.JudgeClusters[:2] {
		_, db, run := testkit.GeneratedCluster(t, o)
		srcs = append(srcs, src{fmt.Sprintf("k8s seed %d", o.Seed), db, run})
	}
	db := testkit.AvailDB(t)
	srcs = append(srcs, src{"replay with availability sets", db, replayWithDomains(t, db, 3, 5)})
	for _, sc := range srcs {
		cs, err := cluster.LoadSnapshot(ctx, sc.db, sc.run, math.NaN())
		if err != nil {
			t.Fatal(err)
		}
		p := &cs.Problem
		assign := make([]int, len(p.Pods))
		for i := range p.Pods {
			assign[i] = p.Pods[i].Node
		}
		if err := drain.Check(p, assign, nil); err != nil {
			t.Fatalf("%s: the snapshot itself fails drain.Check: %v", sc.name, err)
		}
		rs := cs.State
		// Fault-domain reasons name racks as the inventory does.
		for n, nd := range p.Nodes {
			mc := &rs.Trace.Inv.Machines[n]
			if got, want := p.RackNames[nd.Rack], rs.Trace.Inv.Racks[mc.Rack].Name; mc.Name != nd.Name || got != want {
				t.Fatalf("%s: node %d %q (machine %q): rack name %q, want %q", sc.name, n, nd.Name, mc.Name, got, want)
			}
		}
		env := &optimizer.Env{Inv: rs.Trace.Inv, State: rs.State, Cfg: &rs.Cfg}
		rng := rand.New(rand.NewPCG(uint64(sc.run), 50))
		var agree, refused, stricter int
		for range 4000 {
			i := rng.IntN(len(p.Pods))
			to := rng.IntN(len(p.Nodes))
			from := p.Pods[i].Node
			if to == from || !p.Nodes[to].Schedulable {
				continue
			}
			assign[i] = to
			drainOK := drain.Check(p, assign, nil) == nil
			assign[i] = from
			pl, _ := rs.State.Lookup(cs.PodVM[i])
			rej := optimizer.MoveCheck(env, &rs.Rules, pl, int32(to))
			crossSkew := p.Pods[i].MaxSkew > 0 && p.Nodes[to].Zone != p.Nodes[from].Zone
			switch {
			case drainOK == rej.OK():
				agree++
				if !drainOK {
					refused++
				}
			case crossSkew && !drainOK && rej.OK():
				stricter++
			default:
				t.Fatalf("%s: pod %q from %q to %q: drain.Check says %v, the rules %v", sc.name, p.Pods[i].Name,
					p.Nodes[from].Name, p.Nodes[to].Name, drainOK, rej)
			}
		}
		t.Logf("%s: %d moves agree (%d refused by both), %d refused by the drain's spread alone", sc.name, agree, refused, stricter)
		if refused == 0 || refused == agree {
			t.Errorf("%s: %d of %d moves refused: the comparison saw no contrast", sc.name, refused, agree)
		}
	}
}

// TestCheckHealth: placelab check finds a VM a run put on a machine its
// load marks out of service (IsMachineHealthy), and charges a stored plan
// only for the VMs it moved: a VM the plan leaves on a machine that went
// offline is not a fault of the plan, one it moves onto it is.
func TestCheckHealth(t *testing.T) {
	ctx := context.Background()
	db := testkit.AvailDB(t)
	run := replayWithDomains(t, db, 0, 0)
	dr, err := Drain(ctx, db, run, DefaultDrainOptions())
	if err != nil {
		t.Fatal(err)
	}
	testkit.CheckPlanRun(t, db, dr.PlanRun)
	var kept, moved int64
	var keptOn, movedTo int32
	q := `SELECT p.vm_id, p.machine_id FROM placement p JOIN vm_stay s ON s.run_id = $2 AND s.vm_id = p.vm_id
		AND s.t0 <= p.t_s AND coalesce(s.evicted_s, 'infinity'::DOUBLE) > p.t_s
		WHERE p.run_id = $1 AND (s.machine_id = p.machine_id) = $3 ORDER BY p.vm_id LIMIT 1`
	if err := db.SQL().QueryRowContext(ctx, q, dr.PlanRun, run, true).Scan(&kept, &keptOn); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRowContext(ctx, q, dr.PlanRun, run, false).Scan(&moved, &movedTo); err != nil {
		t.Fatal(err)
	}
	offline := func(m int32) {
		t.Helper()
		if _, err := db.SQL().ExecContext(ctx, "UPDATE machine SET health = 'offline' WHERE machine_id = $1 AND load_id = (SELECT load_id FROM run WHERE run_id = $2)", m, run); err != nil {
			t.Fatal(err)
		}
	}
	flagged := func(id, vm int64) bool {
		t.Helper()
		rep, err := analysis.CheckRun(ctx, db, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range rep.Constraints {
			if v.Problem == "unhealthy_machine" && v.VM == vm {
				return true
			}
		}
		return false
	}
	offline(keptOn)
	if flagged(dr.PlanRun, kept) {
		t.Errorf("the plan is charged for VM %d, which it left on machine %d", kept, keptOn)
	}
	if !flagged(run, kept) {
		t.Errorf("the replay is not charged for VM %d on offline machine %d", kept, keptOn)
	}
	offline(movedTo)
	if !flagged(dr.PlanRun, moved) {
		t.Errorf("the plan is not charged for moving VM %d onto offline machine %d", moved, movedTo)
	}
}

// TestIngestKeepsObjects: ingest k8s keeps every Node and every Running or
// Pending Pod as read (k8s_object), so the real scheduler can be given the
// user's own objects: one row per node (with its machine) and per pod (with
// its VM), each decoding back to the object of that name, and as many as
// kubectl's JSON holds.
func TestIngestKeepsObjects(t *testing.T) {
	dir, db, _ := testkit.GeneratedCluster(t, testkit.JudgeClusters[1])
	judge, err := kubejudge.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Node": len(judge.Nodes)}
	for _, p := range judge.Pods {
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			want["Pod"]++
		}
	}
	rows, err := db.SQL().Query(`SELECT o.kind, o.name, o.object, coalesce(m.name, ''), coalesce(v.name, '')
		FROM k8s_object o LEFT JOIN machine m ON m.load_id = o.load_id AND m.machine_id = o.machine_id
		LEFT JOIN vm v ON v.load_id = o.load_id AND v.vm_id = o.vm_id ORDER BY o.kind, o.name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var kind, name, obj, machine, vm string
		if err := rows.Scan(&kind, &name, &obj, &machine, &vm); err != nil {
			t.Fatal(err)
		}
		got[kind]++
		var meta struct {
			Metadata struct{ Name, Namespace string } `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(obj), &meta); err != nil {
			t.Fatalf("%s %s: %v", kind, name, err)
		}
		switch kind {
		case "Node":
			if meta.Metadata.Name != name || machine != name {
				t.Errorf("node row %q: object %q, machine %q", name, meta.Metadata.Name, machine)
			}
		case "Pod":
			if meta.Metadata.Namespace+"/"+meta.Metadata.Name != name || vm != name {
				t.Errorf("pod row %q: object %s/%s, vm %q", name, meta.Metadata.Namespace, meta.Metadata.Name, vm)
			}
		}
	}
	if got["Node"] != want["Node"] || got["Pod"] != want["Pod"] {
		t.Errorf("k8s_object rows %v, want %v", got, want)
	}
}

// replayWithDomains stores a Protean replay of dataset "s" with fault
// domains f and update domains u (0: off), explanations off, and returns
// its run id.
func replayWithDomains(t *testing.T, db *store.DB, f, u int32) int64 {
	t.Helper()
	s := analysis.DefaultSpec("s")
	s.Engine.Explain = false
	s.FaultDomains, s.UpdateDomains = f, u
	res, err := analysis.Run(context.Background(), db, s, analysis.RunOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Summary.RunID
}

// TestOneSKUPerInstanceType is issue 52's "60 nodes of 60 SKUs": on the
// generated clusters (a kubelet's memory differs by KiB from node to node)
// the SKUs are no more than the distinct (instance type, allocatable)
// pairs of kubectl's JSON, and no more than the instance types there;
// every node's SKU is its instance type; no SKU is larger than a node it
// holds; and capacity --pool TYPE finds every node kubectl labels TYPE.
func TestOneSKUPerInstanceType(t *testing.T) {
	ctx := context.Background()
	for _, o := range testkit.JudgeClusters {
		dir, db, run := testkit.GeneratedCluster(t, o)
		judge, err := kubejudge.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		pairs, types, byType := map[string]bool{}, map[string]bool{}, map[string]int{}
		typeOf := map[string]string{}
		for _, n := range judge.Nodes {
			it := n.Labels[corev1.LabelInstanceTypeStable]
			a := n.Status.Allocatable
			pairs[fmt.Sprintf("%s|%s|%s|%s|%s", it, a.Cpu(), a.Memory(), a.StorageEphemeral(), a.Pods())] = true
			types[it] = true
			byType[it]++
			typeOf[n.Name] = it
		}
		var skus int
		if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM sku WHERE dataset = 'c'").Scan(&skus); err != nil {
			t.Fatal(err)
		}
		if skus > len(pairs) || skus > len(types) {
			t.Errorf("seed %d: %d SKUs for %d instance types and %d (type, allocatable) pairs", o.Seed, skus, len(types), len(pairs))
		}
		rows, err := db.SQL().QueryContext(ctx, `SELECT m.name, s.sku, s.memory_gb FROM machine m JOIN sku s ON s.load_id = m.load_id AND s.sku = m.sku WHERE m.dataset = 'c'`)
		if err != nil {
			t.Fatal(err)
		}
		mem := map[string]float64{}
		for _, n := range judge.Nodes {
			mem[n.Name] = float64(n.Status.Allocatable.Memory().Value()) / 1e9
		}
		for rows.Next() {
			var name, sku string
			var gb float64
			if err := rows.Scan(&name, &sku, &gb); err != nil {
				t.Fatal(err)
			}
			if it := typeOf[name]; sku != it && !strings.HasPrefix(sku, it+" (") {
				t.Errorf("seed %d: node %s of type %s has SKU %q", o.Seed, name, it, sku)
			}
			if gb > mem[name]+1e-9 {
				t.Errorf("seed %d: node %s: SKU %s has %v GB memory, the node %v", o.Seed, name, sku, gb, mem[name])
			}
		}
		rows.Close()
		for it, n := range byType {
			rep, err := cluster.PoolFewest(ctx, db, run, it, math.NaN(), cluster.BoundTimeLimit)
			if err != nil {
				t.Fatal(err)
			}
			if rep.PoolNodes != n {
				t.Errorf("seed %d: capacity --pool %s: %d nodes, kubectl labels %d", o.Seed, it, rep.PoolNodes, n)
			}
		}
	}
}

// TestKubernetesUnits is issue 52's "Kubernetes output in Kubernetes
// units": on the generated clusters, explain --machine of every node in
// use writes amounts in cpu and Gi/Mi (never "4.29497 memory"), groups by
// their owner (never "group 54"), a taint reason by the taint the pod does
// not tolerate (checked against kubectl's JSON), and the instant as an RFC
// 3339 timestamp: the earliest pod creation in the files plus t_s.
func TestKubernetesUnits(t *testing.T) {
	ctx := context.Background()
	bare := regexp.MustCompile(`\b[0-9]+(\.[0-9]+)? (memory|cores|ssd|gpu)\b|group [0-9]+`)
	taints := 0
	for _, o := range testkit.JudgeClusters {
		dir, db, run := testkit.GeneratedCluster(t, o)
		judge, err := kubejudge.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var origin time.Time
		for _, p := range judge.Pods {
			if c := p.CreationTimestamp.Time; !c.IsZero() && (origin.IsZero() || c.Before(origin)) {
				origin = c
			}
		}
		nodeByName := map[string]*corev1.Node{}
		for _, n := range judge.Nodes {
			nodeByName[n.Name] = n
		}
		inUse := map[string]bool{}
		for _, p := range judge.Pods {
			if kubejudge.IsRunning(p) && !kubejudge.IsPinned(p) {
				inUse[p.Spec.NodeName] = true
			}
		}
		for name := range inUse {
			why, err := ExplainMachine(ctx, db, run, name, math.NaN())
			if err != nil {
				t.Fatal(err)
			}
			if want := origin.Add(time.Duration(why.T * float64(time.Second))).UTC().Format(time.RFC3339); why.Time != want {
				t.Fatalf("seed %d: time %q, want %q (origin %v + %vs)", o.Seed, why.Time, want, origin, why.T)
			}
			texts := []string{why.Text}
			for _, r := range why.Reasons {
				texts = append(texts, r.Detail)
				if r.Code != drain.ReasonTaint {
					continue
				}
				taints++
				if !strings.HasPrefix(r.Detail, "untolerated taint ") {
					t.Errorf("seed %d: node %s: taint reason %q names no taint", o.Seed, name, r.Detail)
				}
				// Every taint named is on some node of the files.
				for _, part := range strings.Split(strings.TrimPrefix(r.Detail, "untolerated taint "), ", ") {
					key, _, _ := strings.Cut(part, " on ")
					found := false
					for _, n := range judge.Nodes {
						for _, tn := range n.Spec.Taints {
							found = found || tn.ToString() == key
						}
						found = found || (n.Spec.Unschedulable && key == corev1.TaintNodeUnschedulable+":NoSchedule")
					}
					if !found {
						t.Errorf("seed %d: node %s: taint %q is on no node", o.Seed, name, key)
					}
				}
			}
			for _, s := range texts {
				if m := bare.FindString(s); m != "" {
					t.Errorf("seed %d: node %s: %q in %q", o.Seed, name, m, s)
				}
			}
		}
	}
	if taints == 0 {
		t.Log("no explanation had a taint reason")
	}
}

// TestClusterFromAlibaba: the Alibaba GPU cluster trace's 1,523 nodes and
// its Running and Pending pods, written as kubectl prints them and bound by
// a kube-scheduler-like simulation (k8sgen.FromAlibaba), load with the
// report's counts equal to the files', the observed run passes placelab
// check, the interval holds (LB ≤ UB ≤ nodes in use) with its packing
// checked, and the drain plan frees at least the greedy's nodes.
func TestClusterFromAlibaba(t *testing.T) {
	dir := shareddata.Path(t, "alibaba-gpu-v2023")
	nodes, pods, err := k8sgen.FromAlibaba(filepath.Join(dir, "openb_node_list_all_node.csv"),
		filepath.Join(dir, "openb_pod_list_default.csv"), k8sgen.PhaseSnapshot, 1)
	if err != nil {
		t.Fatal(err)
	}
	db, run := testkit.LoadCluster(t, nodes, pods)
	ctx := context.Background()
	var machines, vms, placed int64
	q := `SELECT (SELECT count(*) FROM machine), (SELECT count(*) FROM vm), (SELECT count(*) FROM placement WHERE run_id = $1)`
	if err := db.SQL().QueryRow(q, run).Scan(&machines, &vms, &placed); err != nil {
		t.Fatal(err)
	}
	if machines != 1523 || vms == 0 || placed == 0 || placed > vms {
		t.Fatalf("machines %d, VMs %d, observed placements %d", machines, vms, placed)
	}
	chk, err := analysis.CheckRun(ctx, db, run)
	if err != nil {
		t.Fatal(err)
	}
	if !chk.OK() {
		t.Fatalf("observed run: %+v %+v", chk.Violations, chk.Constraints)
	}
	b, err := cluster.Bound(ctx, db, run, cluster.DefaultBoundOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !(b.LBNodes >= 1 && b.LBNodes <= float64(b.UBNodes) && b.UBNodes <= b.NodesInUse) {
		t.Fatalf("interval [%v, %d] with %d nodes in use", b.LBNodes, b.UBNodes, b.NodesInUse)
	}
	if chk, err := analysis.CheckRun(ctx, db, b.PackingRun); err != nil || !chk.OK() {
		t.Fatalf("UB packing run %d: %v %+v", b.PackingRun, err, chk)
	}
	d, err := Drain(ctx, db, run, DefaultDrainOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d.NodesRemoved < d.GreedyRemoved {
		t.Fatalf("plan removes %d, greedy %d", d.NodesRemoved, d.GreedyRemoved)
	}
	if chk, err := analysis.CheckRun(ctx, db, d.PlanRun); err != nil || !chk.OK() {
		t.Fatalf("plan run %d: %v %+v", d.PlanRun, err, chk)
	}
	t.Logf("Alibaba: %d pods placed of %d on %d nodes in use; interval [%v, %d] (%s); plan removes %d (greedy %d) in %.1fs",
		placed, vms, b.NodesInUse, b.LBNodes, b.UBNodes, b.Stop, d.NodesRemoved, d.GreedyRemoved, d.Seconds)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/whatif"
	"placelab/datasets/k8sgen"
)

// mustJSON runs a command with --format json and decodes its output.
func mustJSON[T any](t *testing.T, db string, args ...string) T {
	t.Helper()
	out := mustRun(t, db, append(args, "--format", "json")...)
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("placelab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

type ingestJSON struct {
	ObservedRun int64 `json:"observed_run"`
	RowsLoaded  int64 `json:"rows_loaded"`
	Report      struct {
		Nodes         int `json:"nodes"`
		PodsRunning   int `json:"pods_running"`
		PodsPending   int `json:"pods_pending"`
		PodsSucceeded int `json:"pods_succeeded"`
		PodsFailed    int `json:"pods_failed"`
		PodsBound     int `json:"pods_bound"`
		PodsPinned    int `json:"pods_pinned"`
		NodesNotReady int `json:"nodes_not_ready"`
		NodesCordoned int `json:"nodes_unschedulable"`
	} `json:"report"`
}

// checkClean asserts placelab check passes on a run.
func checkClean(t *testing.T, db string, run int64) {
	t.Helper()
	rep := mustJSON[analysis.CheckReport](t, db, "check", "--run", strconv.FormatInt(run, 10))
	if !rep.OK() {
		t.Fatalf("check --run %d: %+v %+v", run, rep.Violations, rep.Constraints)
	}
}

// TestClusterEndToEnd: a generated cluster as kubectl prints it loads with
// every count of the report equal to a count made here from the JSON, the
// observed run and every packing made from it pass placelab check, LB ≤ UB
// ≤ nodes in use, the drain plan removes at least as many nodes as the
// node-by-node greedy, and the replays of the same pods keep every
// constraint.
func TestClusterEndToEnd(t *testing.T) {
	dir := t.TempDir()
	o := k8sgen.DefaultOptions()
	nodes, pods, err := k8sgen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := k8sgen.WriteDir(dir, nodes, pods); err != nil {
		t.Fatal(err)
	}
	// Independent counts from the JSON.
	var nl corev1.NodeList
	var pl corev1.PodList
	if err := json.Unmarshal(nodes, &nl); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pods, &pl); err != nil {
		t.Fatal(err)
	}
	phase := map[corev1.PodPhase]int{}
	bound, pinned := 0, 0
	for _, p := range pl.Items {
		phase[p.Status.Phase]++
		if (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending) && p.Spec.NodeName != "" {
			bound++
		}
		for _, ow := range p.OwnerReferences {
			if (ow.Kind == "DaemonSet" || ow.Kind == "Node") && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending) {
				pinned++
			}
		}
	}
	db := filepath.Join(t.TempDir(), "k.duckdb")
	ing := mustJSON[ingestJSON](t, db, "ingest", "k8s", dir, "--dataset", "c")
	r := ing.Report
	if r.Nodes != len(nl.Items) || r.PodsRunning != phase[corev1.PodRunning] || r.PodsPending != phase[corev1.PodPending] ||
		r.PodsSucceeded != phase[corev1.PodSucceeded] || r.PodsFailed != phase[corev1.PodFailed] || r.PodsBound != bound || r.PodsPinned != pinned {
		t.Fatalf("report %+v; from the JSON: %d nodes, phases %v, %d bound, %d pinned", r, len(nl.Items), phase, bound, pinned)
	}
	if ing.RowsLoaded != int64(phase[corev1.PodRunning]+phase[corev1.PodPending]) || ing.ObservedRun == 0 {
		t.Fatalf("loaded %d, observed run %d", ing.RowsLoaded, ing.ObservedRun)
	}
	obs := strconv.FormatInt(ing.ObservedRun, 10)
	checkClean(t, db, ing.ObservedRun)

	b := mustJSON[cluster.BoundReport](t, db, "lpbound", "--run", obs)
	if !(b.LBNodes <= float64(b.UBNodes) && b.UBNodes <= b.NodesInUse && b.LBNodes >= 1) || b.PackingRun == 0 {
		t.Fatalf("interval [%v, %d] of %d nodes in use, packing run %d", b.LBNodes, b.UBNodes, b.NodesInUse, b.PackingRun)
	}
	checkClean(t, db, b.PackingRun)

	d := mustJSON[whatif.DrainReport](t, db, "whatif", "drain", "--run", obs)
	if d.NodesRemoved < d.GreedyRemoved || float64(d.NodesAfter) < d.LBNodes || d.PlanRun == 0 || d.NodesAfter != d.NodesInUse-d.NodesRemoved+countEmptyRemoved(d, b) {
		t.Fatalf("drain %+v", d)
	}
	checkClean(t, db, d.PlanRun)
	// The control plane runs static pods: never a consolidation candidate.
	for _, n := range nl.Items {
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; cp && slices.Contains(d.RemovedNodes, n.Name) {
			t.Fatalf("the plan removes control-plane node %s", n.Name)
		}
	}
	limited := mustJSON[whatif.DrainReport](t, db, "whatif", "drain", "--run", obs, "--max-moves", "3")
	if len(limited.Moves) > 3 || limited.NodesRemoved < limited.GreedyRemoved {
		t.Fatalf("--max-moves 3: %d moves, removed %d, greedy %d", len(limited.Moves), limited.NodesRemoved, limited.GreedyRemoved)
	}
	checkClean(t, db, limited.PlanRun)

	if len(d.RemovedNodes) > 0 {
		why := mustJSON[whatif.MachineWhy](t, db, "explain", "--run", obs, "--machine", d.RemovedNodes[0])
		if why.Node != d.RemovedNodes[0] || why.Text == "" {
			t.Fatalf("explain: %+v", why)
		}
	}

	cmp := mustJSON[cluster.CompareReport](t, db, "whatif", "policies", "--run", obs, "--policies", "protean,bestfit")
	if len(cmp.Rows) != 3 {
		t.Fatalf("compare rows: %+v", cmp.Rows)
	}
	for _, row := range cmp.Rows {
		if row.Violations != 0 || row.LBNodes > float64(row.UBNodes) || row.UBNodes > row.NodesInUse {
			t.Errorf("compare row %+v", row)
		}
	}
	fit := mustJSON[cluster.FitReport](t, db, "capacity", "--run", obs, "--like", firstPodName(pl))
	if fit.More < 0 {
		t.Fatalf("fit %+v", fit)
	}
	pool := mustJSON[cluster.PoolReport](t, db, "capacity", "--run", obs, "--pool", "general")
	if pool.PoolNodes == 0 || !(pool.LBNodes <= float64(pool.UBNodes) && pool.UBNodes <= pool.PoolInUse) {
		t.Fatalf("pool %+v", pool)
	}
	if _, err := run(t, db, "capacity", "--run", obs, "--pool", "general", "--policy", "bestfit"); err == nil {
		t.Fatal("capacity snapshot mode accepted a replay-mode flag")
	}
}

// countEmptyRemoved is how many removed nodes held no movable pod.
func countEmptyRemoved(d whatif.DrainReport, b cluster.BoundReport) int {
	moved := map[string]bool{}
	for _, m := range d.Moves {
		moved[m.From] = true
	}
	n := 0
	for _, r := range d.RemovedNodes {
		if !moved[r] {
			n++
		}
	}
	return n
}

func firstPodName(pl corev1.PodList) string {
	for _, p := range pl.Items {
		if p.Status.Phase == corev1.PodRunning && len(p.OwnerReferences) > 0 && p.OwnerReferences[0].Kind == "ReplicaSet" {
			return p.Namespace + "/" + p.Name
		}
	}
	return ""
}

// kNode is a Ready node of cpu cores and mem GiB in zone, labelled pool.
func kNode(name, zone, pool string, cpu, mem int) corev1.Node {
	q := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(int64(mem)<<30, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI)}
	return corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": zone, "pool": pool,
			"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "m.xlarge"}},
		Status: corev1.NodeStatus{Capacity: q, Allocatable: q,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

// kPod is a Running pod of an owner bound to node with cpu millicores.
func kPod(name, owner, node string, milli int64, created int) corev1.Pod {
	return corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": owner},
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: owner}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(milli, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(1<<30, resource.BinarySI)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func writeList(t *testing.T, path string, items any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClusterKnownOptimum: six 4-core nodes in two zones each hold one
// 2-core pod (and a pinned DaemonSet pod of no cpu), so by construction the
// six pods need exactly three nodes: two of them must use pool b (a node
// selector), two of the others may not share a node (hostname
// anti-affinity). The interval is [3, 3], the plan drains three nodes, the
// pods that still fit are counted by hand (capacity --like), and a pod
// pinned by a hostname selector to its own node makes that node
// undrainable, with affinity named as the reason.
func TestClusterKnownOptimum(t *testing.T) {
	dir := t.TempDir()
	var nodes []corev1.Node
	var pods []corev1.Pod
	for i := range 6 {
		pool := "a"
		if i >= 4 {
			pool = "b"
		}
		name := "n" + strconv.Itoa(i)
		nodes = append(nodes, kNode(name, "z"+strconv.Itoa(i%2), pool, 4, 16))
		ds := kPod("ds-"+name, "ds", name, 0, 0)
		ds.OwnerReferences[0].Kind = "DaemonSet"
		pods = append(pods, ds)
	}
	for i := range 6 {
		owner := "misc"
		p := kPod("p"+strconv.Itoa(i), owner, "n"+strconv.Itoa(i), 2000, 10+i)
		switch {
		case i >= 4:
			p.Spec.NodeSelector = map[string]string{"pool": "b"}
			p.Labels["app"], p.OwnerReferences[0].Name = "bee", "bee"
		case i < 2:
			p.Labels["app"], p.OwnerReferences[0].Name = "web", "web"
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}}
		}
		pods = append(pods, p)
	}
	writeList(t, filepath.Join(dir, "nodes.json"), nodes)
	writeList(t, filepath.Join(dir, "pods.json"), pods)
	db := filepath.Join(t.TempDir(), "k.duckdb")
	ing := mustJSON[ingestJSON](t, db, "ingest", "k8s", dir, "--dataset", "opt")
	obs := strconv.FormatInt(ing.ObservedRun, 10)
	checkClean(t, db, ing.ObservedRun)
	b := mustJSON[cluster.BoundReport](t, db, "lpbound", "--run", obs)
	if b.LBNodes != 3 || b.UBNodes != 3 || b.NodesInUse != 6 || b.DrainableNodes != 3 || b.PinnedPods != 6 {
		t.Fatalf("bound %+v, want [3, 3] of 6 in use with 6 pinned pods", b)
	}
	checkClean(t, db, b.PackingRun)
	d := mustJSON[whatif.DrainReport](t, db, "whatif", "drain", "--run", obs)
	if d.NodesRemoved != 3 || d.NodesAfter != 3 || d.BeyondPlan != 0 {
		t.Fatalf("drain %+v, want 3 nodes removed", d)
	}
	checkClean(t, db, d.PlanRun)
	// Every node has 2 cores free: six more pods like p3 fit; like p0 (web,
	// at most one per node, two nodes already hold one) four.
	for _, c := range []struct {
		like string
		more int
	}{{"default/p3", 6}, {"default/p0", 4}, {"default/p4", 2}} {
		if fit := mustJSON[cluster.FitReport](t, db, "capacity", "--run", obs, "--like", c.like); fit.More != c.more {
			t.Fatalf("more like %s: %+v, want %d", c.like, fit, c.more)
		}
	}

	// Pin p2 to its node by hostname: n2 can no longer be drained.
	pods[6+2].Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "n2"}
	writeList(t, filepath.Join(dir, "pods.json"), pods)
	ing = mustJSON[ingestJSON](t, db, "ingest", "k8s", dir, "--dataset", "opt")
	obs = strconv.FormatInt(ing.ObservedRun, 10)
	why := mustJSON[whatif.MachineWhy](t, db, "explain", "--run", obs, "--machine", "n2")
	if why.Drainable || why.Pod != "default/p2" || len(why.Reasons) == 0 || why.Reasons[0].Code != "affinity" {
		t.Fatalf("explain n2: %+v", why)
	}
}

// TestClusterIngestRefusals: ingest k8s refuses --inventory and
// --max-rejects (flags it cannot honour), and a bad quantity stops it with
// the file, item, object and field named and nothing changed.
func TestClusterIngestRefusals(t *testing.T) {
	dir := t.TempDir()
	writeList(t, filepath.Join(dir, "nodes.json"), []corev1.Node{kNode("n0", "z0", "a", 4, 16)})
	db := filepath.Join(t.TempDir(), "k.duckdb")
	for _, args := range [][]string{
		{"ingest", "k8s", dir, "--inventory", "synthetic:10"},
		{"ingest", "k8s", dir, "--max-rejects", "5"},
	} {
		if out, err := run(t, db, args...); err == nil {
			t.Fatalf("%v: accepted\n%s", args, out)
		}
	}
	bad := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default"},` +
		`"spec":{"nodeName":"n0","containers":[{"name":"c","resources":{"requests":{"cpu":"two"}}}]},"status":{"phase":"Running"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "pods.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, db, "ingest", "k8s", dir)
	if err == nil || !strings.Contains(err.Error(), "pods.json: item 0 (default/web-1)") || !strings.Contains(err.Error(), "requests.cpu") ||
		!strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("bad quantity: %v", err)
	}
	if out := mustRun(t, db, "sql", "SELECT count(*) AS n FROM dataset", "--format", "csv"); !strings.Contains(out, "\n0") {
		t.Fatalf("a dataset was written: %s", out)
	}
}

// TestNativeWorkloadObservedRun: your own fleet and workload, with where
// each VM ran, load as an observed run that placelab check verifies and
// lpbound, whatif drain and explain --machine read like any replay.
func TestNativeWorkloadObservedRun(t *testing.T) {
	dir := t.TempDir()
	fleet := write(t, dir, "fleet.csv", "name,cluster,rack,sku,cores,memory_gb\n"+
		"m1,c1,r1,gen5,16,64\nm2,c1,r1,gen5,16,64\nm3,c1,r2,gen5,16,64\nm4,c1,r2,gen5,16,64\n")
	vms := write(t, dir, "vms.csv", "id,tenant,cores,memory_gb,start_s,end_s,machine\n"+
		"a,web,4,16,0,,m1\nb,web,4,16,0,,m2\nc,db,8,32,10,,m3\nd,db,4,8,20,,m4\ne,batch,2,4,30,600,m1\n")
	db := filepath.Join(t.TempDir(), "w.duckdb")
	ing := mustJSON[ingestJSON](t, db, "ingest", "placelab", vms, "--inventory", fleet, "--dataset", "mine")
	if ing.ObservedRun == 0 || ing.RowsLoaded != 5 {
		t.Fatalf("ingest: %+v", ing)
	}
	checkClean(t, db, ing.ObservedRun)
	obs := strconv.FormatInt(ing.ObservedRun, 10)
	mustRun(t, db, "lpbound", "--run", obs, "--every", "1h")
	// At t = 30 s the five VMs (20 cores) sit on four 16-core machines: two
	// machines hold them all, so two can be drained.
	d := mustJSON[whatif.DrainReport](t, db, "whatif", "drain", "--run", obs, "--at", "30")
	if d.NodesInUse != 4 || d.NodesAfter != 2 || d.LBNodes != 2 {
		t.Fatalf("drain: %+v", d)
	}
	checkClean(t, db, d.PlanRun)
	why := mustJSON[whatif.MachineWhy](t, db, "explain", "--run", obs, "--machine", "m3", "--at", "30")
	if !why.Drainable {
		t.Fatalf("m3 (one 8-core VM, 8 cores free elsewhere) should drain alone: %+v", why)
	}
}

// TestCheckFindsConstraintViolations: placelab check reports, from SQL
// alone, an observed placement that breaks each kind of constraint — a pod
// on a node its selector excludes, one on a node whose taint it does not
// tolerate, two replicas of an anti-affinity tenant on one node, and a
// zone spread over its skew — and nothing on a clean one.
func TestCheckFindsConstraintViolations(t *testing.T) {
	dir := t.TempDir()
	nodes := []corev1.Node{kNode("a0", "za", "a", 8, 32), kNode("a1", "za", "a", 8, 32), kNode("b0", "zb", "b", 8, 32)}
	nodes[2].Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	sel := kPod("sel", "sel", "a0", 500, 1)
	sel.Spec.NodeSelector = map[string]string{"pool": "b"} // on a0, pool a
	tol := kPod("tol", "tol", "b0", 500, 2)                // on tainted b0 without a toleration
	sel.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	anti := func(name string) corev1.Pod {
		p := kPod(name, "web", "a1", 500, 3)
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}}
		return p
	}
	spread := func(name, node string, at int) corev1.Pod {
		p := kPod(name, "spr", node, 500, at)
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spr"}}}}
		return p
	}
	pods := []corev1.Pod{sel, tol, anti("web-0"), anti("web-1"), spread("spr-0", "a0", 4), spread("spr-1", "a1", 5)}
	writeList(t, filepath.Join(dir, "nodes.json"), nodes)
	writeList(t, filepath.Join(dir, "pods.json"), pods)
	db := filepath.Join(t.TempDir(), "k.duckdb")
	ing := mustJSON[ingestJSON](t, db, "ingest", "k8s", dir, "--dataset", "bad")
	out, err := run(t, db, "check", "--run", strconv.FormatInt(ing.ObservedRun, 10), "--format", "json")
	if err == nil {
		t.Fatalf("check passed a run that breaks every constraint:\n%s", out)
	}
	var rep analysis.CheckReport
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]int{}
	for _, v := range rep.Constraints {
		got[v.Problem]++
	}
	for _, p := range []string{"affinity", "taint", "anti_affinity", "topology_spread"} {
		if got[p] == 0 {
			t.Errorf("check missed %s: %+v", p, rep.Constraints)
		}
	}
}

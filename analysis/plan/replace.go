package plan

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/snapshot"
	"placelab/datasets"
	"placelab/datasets/catalog"
	"placelab/datasets/k8s"
	"placelab/optimizer/drain"
	store "placelab/sql"
)

// ReplaceOptions are Replace's: the plan's options (Plan.Run a Kubernetes
// cluster's run) and the move budget.
type ReplaceOptions struct {
	Plan Options
	// MaxMoves bounds the pods that change node (< 0: no bound; 0: no pod
	// moves, only empty nodes go).
	MaxMoves int
}

// DefaultReplaceOptions: the plan's defaults, no bound on moves.
func DefaultReplaceOptions() ReplaceOptions {
	return ReplaceOptions{Plan: DefaultOptions(), MaxMoves: -1}
}

// Validate refuses what cannot be replaced.
func (o ReplaceOptions) Validate() error {
	if o.Plan.Run == 0 || o.Plan.Dataset != "" {
		return errors.New("plan: --replace needs --run ID (a Kubernetes cluster's run): a trace's peak has no fleet to replace")
	}
	return o.Plan.Validate()
}

// ReplaceNode is a node the replacement adds.
type ReplaceNode struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Pool        string  `json:"pool"`
	Zone        string  `json:"zone"`
	CostPerHour float64 `json:"cost_per_hour"`
	Pods        int     `json:"pods"`
}

// ReplaceRemoved is a current node the replacement removes, or one it
// would remove but keeps (Reason says why).
type ReplaceRemoved struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Pool        string  `json:"pool,omitempty"`
	Zone        string  `json:"zone,omitempty"`
	CostPerHour float64 `json:"cost_per_hour"`
	// Pods is the node's pods that would move (Pending pods placed there
	// first not counted).
	Pods   int    `json:"pods"`
	Reason string `json:"reason,omitempty"`
}

// ReplaceMove is one pod that changes node.
type ReplaceMove struct {
	Pod  string `json:"pod"`
	From string `json:"from"`
	To   string `json:"to"`
}

// ReplaceResult is the replace plan: from the cluster as it is to the
// plan's fleet.
type ReplaceResult struct {
	SourceRun     int64  `json:"source_run"`
	SourceDataset string `json:"source_dataset"`
	// MaxMoves is the budget (-1: none).
	MaxMoves int `json:"max_moves"`
	// NodesKeep are the current nodes the plan's fleet keeps (same pool,
	// instance type and zone as a planned node).
	NodesKeep []string      `json:"nodes_keep"`
	NodesAdd  []ReplaceNode `json:"nodes_add"`
	// NodesAddUnneeded are planned nodes not added: no pod needed them.
	NodesAddUnneeded []ReplaceNode    `json:"nodes_add_unneeded"`
	NodesRemove      []ReplaceRemoved `json:"nodes_remove"`
	// NodesKeptBudget are nodes to remove that stay for lack of move
	// budget; NodesKeptNoRoom those whose pods found no room.
	NodesKeptBudget []ReplaceRemoved `json:"nodes_kept_budget"`
	NodesKeptNoRoom []ReplaceRemoved `json:"nodes_kept_no_room"`
	Moves           []ReplaceMove    `json:"moves"`
	MovesCount      int              `json:"moves_count"`
	// Pending pods placed first (not moves) and those left Pending.
	PendingPlaced []ReplaceMove `json:"pending_placed"`
	PendingLeft   []string      `json:"pending_left"`
	Pods          int           `json:"pods"`
	// Costs of the worker nodes priced by the whole catalog (control-plane
	// nodes left out, as in the plan's baselines.current).
	CostPerHourBefore float64  `json:"cost_per_hour_before"`
	CostPerHourAfter  float64  `json:"cost_per_hour_after"`
	PlanCostPerHour   float64  `json:"plan_cost_per_hour"`
	NodesBefore       int      `json:"nodes_before"`
	NodesAfter        int      `json:"nodes_after"`
	Unpriced          []string `json:"unpriced"`
	ReplaceRun        int64    `json:"replace_run"`
	ReplaceDataset    string   `json:"replace_dataset"`
	Check             *Check   `json:"check"`
	Seconds           float64  `json:"seconds"`
	Plan              *Result  `json:"plan"`
}

// k8sObj is one row of k8s_objects.
type k8sObj struct {
	kind, name, obj, owner, node string
	vm                           int64
}

func readObjects(ctx context.Context, db *store.DB, load int64) ([]k8sObj, error) {
	var out []k8sObj
	err := analysis.Each(ctx, db.SQL(), "k8s_objects", []any{load}, func(r *sql.Rows) error {
		var o k8sObj
		var vm sql.NullInt64
		var machine sql.NullInt32
		var owner, node sql.NullString
		if err := r.Scan(&o.kind, &o.name, &vm, &machine, &o.obj, &owner, &node); err != nil {
			return err
		}
		o.vm, o.owner, o.node = vm.Int64, owner.String, node.String
		out = append(out, o)
		return nil
	})
	return out, err
}

// nodeKey is a node's pool, instance type and zone, read as the plan
// reads them.
func nodeKey(n *corev1.Node) (pool, typ, zone string) {
	pool = "default"
	for _, k := range k8s.PoolLabels {
		if v, ok := n.Labels[k]; ok {
			pool = v
			break
		}
	}
	typ = n.Labels[corev1.LabelInstanceTypeStable]
	if typ == "" {
		typ = n.Labels[corev1.LabelInstanceType]
	}
	return pool, typ, n.Labels[corev1.LabelTopologyZone]
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// Replace plans the cheapest fleet for a Kubernetes run (Run) and the way
// from the cluster as it is to it: current worker nodes of a planned pool,
// instance type and zone are kept (up to the plan's count of them, those
// with the most pods first), the other workers removed, the missing planned
// nodes added under the plan's names; pods on kept nodes stay, pods on
// removed nodes and Pending pods move to kept or added nodes, each move
// keeping every constraint (the drain planner's rules on the cluster with
// the added nodes, read by the same reader as ingest k8s). Removals go in
// order of most cost saved per moved pod; under MaxMoves a removal that
// would exceed the budget is skipped and the node kept. Planned nodes no
// pod needs are not added. The state after (kept and added nodes, every
// pod bound) is stored as a dataset and run that placelab check verifies.
func Replace(ctx context.Context, db *store.DB, o ReplaceOptions) (*ReplaceResult, error) {
	start := time.Now()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stage := func(s string) {
		if o.Plan.Progress != nil {
			o.Plan.Progress(s)
		}
	}
	po := o.Plan
	po.Store = true
	r, err := Run(ctx, db, po)
	if err != nil {
		return nil, err
	}
	if r.Source.Kind != "kubernetes" {
		return nil, fmt.Errorf("plan: --replace: run %d is not a Kubernetes cluster's (%s)", o.Plan.Run, r.Source.Kind)
	}
	out := &ReplaceResult{SourceRun: o.Plan.Run, SourceDataset: r.Source.Dataset, MaxMoves: max(o.MaxMoves, -1), Plan: r,
		PlanCostPerHour: r.CostPerHour, NodesKeep: []string{}, NodesAdd: []ReplaceNode{}, NodesAddUnneeded: []ReplaceNode{},
		NodesRemove: []ReplaceRemoved{}, NodesKeptBudget: []ReplaceRemoved{}, NodesKeptNoRoom: []ReplaceRemoved{}, Moves: []ReplaceMove{},
		PendingPlaced: []ReplaceMove{}, PendingLeft: []string{}, Unpriced: []string{}}
	if r.Baselines.Current != nil {
		out.CostPerHourBefore, out.NodesBefore = r.Baselines.Current.CostPerHour, r.Baselines.Current.Nodes
		out.Unpriced = append(out.Unpriced, r.Baselines.Current.Unpriced...)
	}
	if r.PlanRun == 0 {
		return nil, errors.New("plan: --replace: the plan has no node to replace the fleet with")
	}
	cat, err := catalog.Read(o.Plan.Catalog, catalog.ReadOptions{Price: o.Plan.Price})
	if err != nil {
		return nil, err
	}
	price := map[string]float64{}
	for _, t := range cat.Types {
		price[t.Name] = t.Price
	}
	stage("matching the cluster's nodes to the plan's")
	rs, err := snapshot.Load(ctx, db, o.Plan.Run, o.Plan.At)
	if err != nil {
		return nil, err
	}
	alive := map[int64]bool{}
	for m := range rs.Trace.Inv.Machines {
		for _, vm := range rs.State.VMsOn(int32(m)) {
			alive[int64(vm)] = true
		}
	}
	for _, i := range rs.Pending {
		alive[rs.Trace.VMs[i].ID] = true
	}
	src, err := readObjects(ctx, db, rs.Trace.LoadID)
	if err != nil {
		return nil, err
	}
	var planLoad int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT load_id FROM dataset WHERE name = $1`, r.PlanDataset).Scan(&planLoad); err != nil {
		return nil, fmt.Errorf("plan: --replace: plan dataset %s: %w", r.PlanDataset, err)
	}
	planObjs, err := readObjects(ctx, db, planLoad)
	if err != nil {
		return nil, err
	}
	// The source: nodes, control plane, pods.
	var nodes []*corev1.Node
	control := map[string]bool{}
	type srcPod struct {
		pod    *corev1.Pod
		pinned bool // static or DaemonSet: goes with its node
	}
	var pods []srcPod
	for _, ob := range src {
		switch ob.kind {
		case "Node":
			n := new(corev1.Node)
			if err := json.Unmarshal([]byte(ob.obj), n); err != nil {
				return nil, fmt.Errorf("node %s: %w", ob.name, err)
			}
			nodes = append(nodes, n)
		case "Pod":
			p := new(corev1.Pod)
			if err := json.Unmarshal([]byte(ob.obj), p); err != nil {
				return nil, fmt.Errorf("pod %s: %w", ob.name, err)
			}
			switch {
			case ob.owner == "Node":
				if ob.node != "" {
					control[ob.node] = true
				}
				pods = append(pods, srcPod{p, true})
			case ob.owner == "DaemonSet" || isDaemonSetPod(p):
				pods = append(pods, srcPod{p, true})
			case alive[ob.vm]:
				if ob.node == "" {
					p.Spec.NodeName = ""
				}
				pods = append(pods, srcPod{p, false})
			}
		}
	}
	var workers, controls []*corev1.Node
	for _, n := range nodes {
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; cp || control[n.Name] {
			controls = append(controls, n)
			continue
		}
		workers = append(workers, n)
	}
	movable := map[string]int{}
	for _, sp := range pods {
		if !sp.pinned && sp.pod.Spec.NodeName != "" {
			movable[sp.pod.Spec.NodeName]++
		}
	}
	// The plan: its nodes and their DaemonSet pods.
	var planNodes []*corev1.Node
	planDS := map[string][]*corev1.Pod{}
	for _, ob := range planObjs {
		switch ob.kind {
		case "Node":
			n := new(corev1.Node)
			if err := json.Unmarshal([]byte(ob.obj), n); err != nil {
				return nil, err
			}
			planNodes = append(planNodes, n)
		case "Pod":
			if ob.owner != "DaemonSet" {
				continue
			}
			p := new(corev1.Pod)
			if err := json.Unmarshal([]byte(ob.obj), p); err != nil {
				return nil, err
			}
			planDS[p.Spec.NodeName] = append(planDS[p.Spec.NodeName], p)
		}
	}
	// Match: per pool × type × zone, the current workers with the most
	// pods are kept, up to the plan's count; the plan's nodes of that key
	// beyond them are added.
	type key struct{ pool, typ, zone string }
	target := map[key][]*corev1.Node{}
	for _, n := range planNodes {
		p, t, z := nodeKey(n)
		target[key{p, t, z}] = append(target[key{p, t, z}], n)
	}
	current := map[key][]*corev1.Node{}
	for _, n := range workers {
		p, t, z := nodeKey(n)
		current[key{p, t, z}] = append(current[key{p, t, z}], n)
	}
	names := map[string]bool{}
	for _, n := range nodes {
		names[n.Name] = true
	}
	var kept, added, removed []*corev1.Node
	keys := make([]key, 0, len(current)+len(target))
	seenKey := map[key]bool{}
	for k := range current {
		keys, seenKey[k] = append(keys, k), true
	}
	for k := range target {
		if !seenKey[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.pool+"\x00"+a.typ+"\x00"+a.zone < b.pool+"\x00"+b.typ+"\x00"+b.zone
	})
	for _, k := range keys {
		cur := current[k]
		sort.SliceStable(cur, func(i, j int) bool {
			if movable[cur[i].Name] != movable[cur[j].Name] {
				return movable[cur[i].Name] > movable[cur[j].Name]
			}
			return cur[i].Name < cur[j].Name
		})
		want := len(target[k])
		nk := min(want, len(cur))
		kept = append(kept, cur[:nk]...)
		removed = append(removed, cur[nk:]...)
		for _, n := range target[k][nk:] {
			if names[n.Name] {
				return nil, fmt.Errorf("plan: --replace: planned node %s has the name of a node of the cluster", n.Name)
			}
			added = append(added, n)
		}
	}
	toRemove := map[string]bool{}
	for _, n := range removed {
		toRemove[n.Name] = true
	}
	// The staging cluster: the current one with the added nodes (empty but
	// for their DaemonSet pods), read in a scratch database by the same
	// reader as ingest k8s; the nodes to remove take no pod.
	stage(fmt.Sprintf("placing the pods: %d nodes kept, %d to add, %d to remove", len(kept), len(added), len(removed)))
	var stNodes []*corev1.Node
	stNodes = append(stNodes, kept...)
	stNodes = append(stNodes, added...)
	stNodes = append(stNodes, removed...)
	stNodes = append(stNodes, controls...)
	var stPods []*corev1.Pod
	for _, sp := range pods {
		stPods = append(stPods, sp.pod)
	}
	for _, n := range added {
		stPods = append(stPods, planDS[n.Name]...)
	}
	dir, err := os.MkdirTemp("", "placelab-replace-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := writeList(dir, stNodes, stPods); err != nil {
		return nil, err
	}
	scratch, err := store.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	defer scratch.Close()
	sc, err := datasets.Ingest(ctx, scratch, "k8s", []string{dir}, datasets.Options{Dataset: "replace-staging"})
	if err != nil {
		return nil, fmt.Errorf("plan: --replace: the cluster with the planned nodes: %w", err)
	}
	srs, err := snapshot.Load(ctx, scratch, sc.ObservedRun, math.NaN())
	if err != nil {
		return nil, err
	}
	if _, err := srs.PlacePending(); err != nil {
		return nil, err
	}
	snap, err := cluster.SnapshotOf(srs)
	if err != nil {
		return nil, err
	}
	p := &snap.Problem
	nodeIdx := map[string]int{}
	for i := range p.Nodes {
		nodeIdx[p.Nodes[i].Name] = i
		nm := p.Nodes[i].Name
		if toRemove[nm] || control[nm] || slices.ContainsFunc(controls, func(c *corev1.Node) bool { return c.Name == nm }) {
			p.Nodes[i].Schedulable = false
		}
		p.Nodes[i].Removable = toRemove[nm]
	}
	// Staging pod names: vm → namespace/name.
	stObjs, err := readObjects(ctx, scratch, srs.Trace.LoadID)
	if err != nil {
		return nil, err
	}
	keyOfVM := map[int64]string{}
	for _, ob := range stObjs {
		if ob.kind == "Pod" {
			var pm struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(ob.obj), &pm); err != nil {
				return nil, err
			}
			keyOfVM[ob.vm] = pm.Metadata.Namespace + "/" + pm.Metadata.Name
		}
	}
	origNode := map[string]string{}
	for _, sp := range pods {
		if !sp.pinned {
			origNode[podKey(sp.pod)] = sp.pod.Spec.NodeName
		}
	}
	// Removals, most cost saved per moved pod first.
	priceOf := func(n *corev1.Node) (float64, string) {
		_, t, _ := nodeKey(n)
		return price[t], t
	}
	movesOn := func(m int) int {
		c := 0
		for i := range p.Pods {
			if p.Pods[i].Node == m && origNode[keyOfVM[snap.PodVM[i]]] != "" {
				c++
			}
		}
		return c
	}
	order := slices.Clone(removed)
	ratio := func(n *corev1.Node) float64 {
		pr, _ := priceOf(n)
		k := movable[n.Name]
		if k == 0 {
			return math.Inf(1)
		}
		return pr / float64(k)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ra, rb := ratio(a), ratio(b); ra != rb {
			return ra > rb
		}
		pa, _ := priceOf(a)
		pb, _ := priceOf(b)
		if pa != pb {
			return pa > pb
		}
		return a.Name < b.Name
	})
	used := 0
	gone := map[string]bool{}
	for _, n := range order {
		m := nodeIdx[n.Name]
		pr, t := priceOf(n)
		pl, _, z := nodeKey(n)
		rr := ReplaceRemoved{Name: n.Name, Type: t, Pool: pl, Zone: z, CostPerHour: pr, Pods: movesOn(m)}
		if o.MaxMoves >= 0 && used+rr.Pods > o.MaxMoves {
			rr.Reason = fmt.Sprintf("%d moves would exceed the budget of %d (%d used)", rr.Pods, o.MaxMoves, used)
			out.NodesKeptBudget = append(out.NodesKeptBudget, rr)
			continue
		}
		why := drain.Explain(p, m)
		if !why.Drainable {
			rr.Reason = why.Text
			out.NodesKeptNoRoom = append(out.NodesKeptNoRoom, rr)
			continue
		}
		for _, mv := range why.Moves {
			p.Pods[mv.Pod].Node = mv.To
		}
		used += rr.Pods
		gone[n.Name] = true
		out.NodesRemove = append(out.NodesRemove, rr)
	}
	// Nodes whose pods found no room one node at a time: the drain
	// planner on them alone (its ejection pass may displace a pod of a
	// kept or added node to make room), within the budget left.
	if len(out.NodesKeptNoRoom) > 0 && (o.MaxMoves < 0 || used < o.MaxMoves) {
		for i := range p.Nodes {
			p.Nodes[i].Removable = false
		}
		for _, k := range out.NodesKeptNoRoom {
			p.Nodes[nodeIdx[k.Name]].Removable = true
		}
		left := 0 // drain: no bound
		if o.MaxMoves >= 0 {
			left = o.MaxMoves - used
		}
		pl, err := drain.Plan(p, drain.Options{MaxMoves: left})
		if err != nil {
			return nil, fmt.Errorf("plan: --replace: %w", err)
		}
		for _, mv := range pl.Moves {
			p.Pods[mv.Pod].Node = mv.To
		}
		var still []ReplaceRemoved
		for _, m := range pl.Removed {
			gone[p.Nodes[m].Name] = true
		}
		for _, k := range out.NodesKeptNoRoom {
			if gone[k.Name] {
				k.Reason = ""
				out.NodesRemove = append(out.NodesRemove, k)
				continue
			}
			still = append(still, k)
		}
		out.NodesKeptNoRoom = append([]ReplaceRemoved{}, still...)
	}
	// Added nodes the pods can do without: each drained onto the nodes
	// that stay (kept for lack of budget or room included), the dearest
	// first. A pod on an added node came from elsewhere, so this adds no
	// move.
	for i := range p.Nodes {
		nm := p.Nodes[i].Name
		p.Nodes[i].Removable = false
		if toRemove[nm] && !gone[nm] {
			p.Nodes[i].Schedulable = true
		}
	}
	byPrice := slices.Clone(added)
	sort.SliceStable(byPrice, func(i, j int) bool {
		pi, _ := priceOf(byPrice[i])
		pj, _ := priceOf(byPrice[j])
		return pi > pj
	})
	for _, n := range byPrice {
		m := nodeIdx[n.Name]
		p.Nodes[m].Removable = true
		why := drain.Explain(p, m)
		p.Nodes[m].Removable = false
		if !why.Drainable {
			continue
		}
		for _, mv := range why.Moves {
			p.Pods[mv.Pod].Node = mv.To
		}
		p.Nodes[m].Schedulable = false
	}
	// The state after.
	final := map[string]string{}
	for i := range p.Pods {
		final[keyOfVM[snap.PodVM[i]]] = p.Nodes[p.Pods[i].Node].Name
	}
	onNode := map[string]int{}
	for _, nd := range final {
		onNode[nd]++
	}
	addedUsed := map[string]bool{}
	for _, n := range added {
		pl, t, z := nodeKey(n)
		rn := ReplaceNode{Name: n.Name, Type: t, Pool: pl, Zone: z, CostPerHour: price[t], Pods: onNode[n.Name]}
		if onNode[n.Name] == 0 {
			out.NodesAddUnneeded = append(out.NodesAddUnneeded, rn)
			continue
		}
		addedUsed[n.Name] = true
		out.NodesAdd = append(out.NodesAdd, rn)
	}
	for _, n := range kept {
		out.NodesKeep = append(out.NodesKeep, n.Name)
	}
	// Volume zones as the reader holds them (a pod moved keeps its
	// volume's zone as a node selector, as the plan's store writes it).
	volZone, err := volumeZones(dir)
	if err != nil {
		return nil, err
	}
	var finNodes []*corev1.Node
	after := 0.0
	for _, n := range stNodes {
		switch {
		case gone[n.Name] || (slices.Contains(added, n) && !addedUsed[n.Name]):
			continue
		}
		finNodes = append(finNodes, n)
		if !slices.ContainsFunc(controls, func(c *corev1.Node) bool { return c.Name == n.Name }) {
			pr, _ := priceOf(n)
			after += pr
			out.NodesAfter++
		}
	}
	out.CostPerHourAfter = round6(after)
	var finPods []*corev1.Pod
	for _, pd := range stPods {
		k := podKey(pd)
		orig, planned := origNode[k]
		if !planned { // static or DaemonSet: with its node
			if gone[pd.Spec.NodeName] || (pd.Spec.NodeName != "" && !slices.ContainsFunc(finNodes, func(n *corev1.Node) bool { return n.Name == pd.Spec.NodeName })) {
				continue
			}
			finPods = append(finPods, pd)
			continue
		}
		out.Pods++
		q := pd.DeepCopy()
		to, placed := final[k]
		if !placed {
			out.PendingLeft = append(out.PendingLeft, k)
			finPods = append(finPods, q)
			continue
		}
		switch {
		case orig == "":
			out.PendingPlaced = append(out.PendingPlaced, ReplaceMove{Pod: k, To: to})
		case orig != to:
			out.Moves = append(out.Moves, ReplaceMove{Pod: k, From: orig, To: to})
		}
		q.Spec.NodeName = to
		if z := volZone[k]; z != "" {
			if q.Spec.NodeSelector == nil {
				q.Spec.NodeSelector = map[string]string{}
			}
			q.Spec.NodeSelector[corev1.LabelTopologyZone] = z
		}
		q.Status = corev1.PodStatus{Phase: corev1.PodRunning}
		finPods = append(finPods, q)
	}
	out.MovesCount = len(out.Moves)
	if o.MaxMoves >= 0 && out.MovesCount > o.MaxMoves {
		return nil, fmt.Errorf("plan: --replace: %d moves over the budget of %d (a bug)", out.MovesCount, o.MaxMoves)
	}
	zoneOf := map[string]string{}
	for _, n := range finNodes {
		zoneOf[n.Name] = n.Labels[corev1.LabelTopologyZone]
	}
	finPods = creationOrder(finPods, zoneOf, snap.Problem.Zones)
	// Store and check.
	stage("storing and checking the state after")
	params := map[string]any{"source_run": o.Plan.Run, "source_dataset": r.Source.Dataset, "plan_run": r.PlanRun, "plan_dataset": r.PlanDataset,
		"max_moves": out.MaxMoves, "moves": out.MovesCount, "cost_per_hour_before": out.CostPerHourBefore, "cost_per_hour_after": out.CostPerHourAfter,
		"plan_cost_per_hour": out.PlanCostPerHour}
	js, _ := json.Marshal(params)
	h := sha256.Sum256(js)
	name := r.Source.Dataset + "-replace-" + hex.EncodeToString(h[:4])
	fdir, err := os.MkdirTemp("", "placelab-replace-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(fdir)
	if err := writeList(fdir, finNodes, finPods); err != nil {
		return nil, err
	}
	params["replace"] = true
	c, err := datasets.IngestK8sPlan(ctx, db, name, []string{fdir}, o.Plan.Version, params)
	if err != nil {
		return nil, err
	}
	out.ReplaceRun, out.ReplaceDataset = c.ObservedRun, name
	rep, err := analysis.CheckRun(ctx, db, c.ObservedRun)
	if err != nil {
		return nil, err
	}
	out.Check = &Check{OK: rep.OK(), Capacity: len(rep.Violations), Constraints: len(rep.Constraints), Constrained: int(rep.Constrained)}
	out.Seconds = round6(time.Since(start).Seconds())
	return out, nil
}

// volumeZones reads the cluster in dir as ingest k8s does and returns the
// zone each pod's volumes hold it to.
func volumeZones(dir string) (map[string]string, error) {
	c, err := k8s.Load(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, lp := range c.Pods {
		if lp.Affinity < 0 {
			continue
		}
		if _, z, ok := strings.Cut(c.NodeSets[lp.Affinity].Key, k8s.VolumeZonePrefix); ok {
			z, _, _ = strings.Cut(z, ";")
			out[lp.Namespace+"/"+lp.Name] = z
		}
	}
	return out, nil
}

// creationOrder orders pods for placelab check, which holds topology
// spread at each placement in creation order (as the plan's store does):
// pinned pods (DaemonSet, static) first, then round-robin over the zones
// within each tenant; Pending pods last.
func creationOrder(pods []*corev1.Pod, zoneOf map[string]string, zones []string) []*corev1.Pod {
	zi := map[string]int{}
	for i, z := range zones {
		zi[z] = i
	}
	var first, rest, pending []*corev1.Pod
	for _, p := range pods {
		switch {
		case p.Spec.NodeName == "":
			pending = append(pending, p)
		case isDaemonSetPod(p) || isStatic(p):
			first = append(first, p)
		default:
			rest = append(rest, p)
		}
	}
	rank := make([]int, len(rest))
	seen := map[[2]string]int{}
	for i, p := range rest {
		k := [2]string{p.Namespace + "/" + ownerOf(p), zoneOf[p.Spec.NodeName]}
		rank[i] = seen[k]
		seen[k]++
	}
	idx := make([]int, len(rest))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if rank[x] != rank[y] {
			return rank[x] < rank[y]
		}
		return zi[zoneOf[rest[x].Spec.NodeName]] < zi[zoneOf[rest[y].Spec.NodeName]]
	})
	out := first
	for _, i := range idx {
		out = append(out, rest[i])
	}
	out = append(out, pending...)
	base := time.Unix(1_000_000_000, 0).UTC()
	for i, p := range out {
		p.CreationTimestamp = metav1.NewTime(base.Add(time.Duration(i) * time.Second))
	}
	return out
}

func isStatic(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "Node" {
			return true
		}
	}
	return false
}

package whatif

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"time"

	"placelab/analysis"
	"placelab/analysis/cluster"
	"placelab/analysis/snapshot"
	"placelab/optimizer/drain"
	store "placelab/sql"
)

// DrainOptions tune Drain; start from DefaultDrainOptions.
type DrainOptions struct {
	// At is the snapshot instant (NaN: the run's last placement).
	At float64
	// MaxMoves bounds the pods the plan moves (0: no bound).
	MaxMoves int
	// TimeLimit bounds the LP bound set beside the plan.
	TimeLimit time.Duration
	// Store keeps the placement after the plan as an offline run.
	Store bool
}

// DefaultDrainOptions: the last instant, no bound on moves, the LP within
// ClusterBoundTimeLimit, the plan's placement stored.
func DefaultDrainOptions() DrainOptions {
	return DrainOptions{At: math.NaN(), TimeLimit: cluster.BoundTimeLimit, Store: true}
}

// Validate refuses values out of range.
func (o DrainOptions) Validate() error {
	if o.MaxMoves < 0 {
		return fmt.Errorf("analysis: drain: max moves %d, want ≥ 0 (0: no bound)", o.MaxMoves)
	}
	return cluster.BoundOptions{At: o.At, TimeLimit: o.TimeLimit}.Validate()
}

// DrainMove is one pod a plan moves.
type DrainMove struct {
	Pod  string `json:"pod"`
	VM   int64  `json:"vm_id"`
	From string `json:"from"`
	To   string `json:"to"`
}

// DrainReport is a consolidation plan as Karpenter would apply it: the nodes
// to remove and, for each pod that must move, where it goes; every other pod
// stays. Beside it: what Karpenter's single-node greedy frees under the same
// move budget, and the LP bound on the nodes the pods need, so that
// NodesAfter − LBNodes says how many more nodes any plan could still free.
type DrainReport struct {
	cluster.SnapshotHead
	MaxMoves int `json:"max_moves"`
	// The counts, one definition each (a node is in use when it holds a
	// pod that can move; one with only DaemonSet pods is empty):
	//   - NodesInUse (SnapshotHead): in use at the snapshot, as the run
	//     left it;
	//   - PendingPlaced: the snapshot's Pending pods the plan placed first
	//     (Pending: what became of each), on the run's rules; with them
	//     NodesInUseWithPending nodes are in use;
	//   - NodesRemoved: nodes in use (with the pending pods) the plan
	//     empties and removes (RemovedNodes);
	//   - EmptyNodesRemoved: empty nodes it removes besides
	//     (RemovedEmptyNodes; out-of-service ones among them);
	//   - NodesNewlyUsed: nodes empty before the plan that hold a pod after;
	//   - NodesAfter: in use after the plan, = NodesInUseWithPending −
	//     NodesRemoved + NodesNewlyUsed.
	PendingPlaced         int                       `json:"pending_placed"`
	PendingOutcomes       []snapshot.PendingOutcome `json:"pending"`
	NodesInUseWithPending int                       `json:"nodes_in_use_with_pending"`
	NodesRemoved          int                       `json:"nodes_removed"`
	RemovedNodes          []string                  `json:"removed_nodes"`
	EmptyNodesRemoved     int                       `json:"empty_nodes_removed"`
	RemovedEmptyNodes     []string                  `json:"removed_empty_nodes"`
	Moves                 []DrainMove               `json:"moves"`
	NodesNewlyUsed        int                       `json:"nodes_newly_used"`
	NodesAfter            int                       `json:"nodes_after"`
	// GreedyRemoved is what the single-node greedy (Karpenter's
	// node-by-node consolidation) removes under the same MaxMoves, counted
	// as NodesRemoved is (nodes in use; the empty ones every plan removes
	// left out).
	GreedyRemoved int     `json:"greedy_nodes_removed"`
	LBNodes       float64 `json:"lb_nodes"`
	UBNodes       int     `json:"ub_nodes"`
	// BeyondPlan = NodesAfter − LBNodes: at most this many more nodes any
	// placement of the same pods could free (0: the plan is optimal).
	BeyondPlan float64 `json:"beyond_plan_max"`
	PlanRun    int64   `json:"plan_run,omitempty"`
	Seconds    float64 `json:"seconds"`
}

// Drain plans a consolidation of run's pods at one instant.
func Drain(ctx context.Context, db *store.DB, run int64, opts DrainOptions) (*DrainReport, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	rs, err := snapshot.Load(ctx, db, run, opts.At)
	if err != nil {
		return nil, err
	}
	if err := rs.Planning("a consolidation"); err != nil {
		return nil, err
	}
	pending, err := rs.PlacePending()
	if err != nil {
		return nil, err
	}
	s, err := cluster.SnapshotOf(rs)
	if err != nil {
		return nil, err
	}
	p := &s.Problem
	pl, err := drain.Plan(p, drain.Options{MaxMoves: opts.MaxMoves})
	if err != nil {
		return nil, fmt.Errorf("analysis: drain: %w", err)
	}
	rep := &DrainReport{SnapshotHead: s.Head(), MaxMoves: opts.MaxMoves, PendingOutcomes: pending, RemovedNodes: []string{},
		RemovedEmptyNodes: []string{}, Moves: []DrainMove{}}
	for _, o := range pending {
		if o.Placed {
			rep.PendingPlaced++
		}
	}
	before := make([]int, len(p.Pods))
	for i := range p.Pods {
		before[i] = p.Pods[i].Node
	}
	occupied := make([]bool, len(p.Nodes))
	for _, n := range before {
		occupied[n] = true
	}
	rep.NodesInUseWithPending = cluster.UsedNodes(before, len(p.Nodes))
	emptyRemovable := 0
	for n := range p.Nodes {
		if !occupied[n] && p.Nodes[n].Removable {
			emptyRemovable++
		}
	}
	removed := make([]bool, len(p.Nodes))
	for _, n := range pl.Removed {
		removed[n] = true
		if occupied[n] {
			rep.RemovedNodes = append(rep.RemovedNodes, p.Nodes[n].Name)
		} else {
			rep.RemovedEmptyNodes = append(rep.RemovedEmptyNodes, p.Nodes[n].Name)
		}
	}
	rep.NodesRemoved, rep.EmptyNodesRemoved = len(rep.RemovedNodes), len(rep.RemovedEmptyNodes)
	// The greedy removes every empty removable node first; what it
	// removes beyond them are nodes in use. (A plan taken from a packing
	// from scratch may instead fill empty nodes: NodesNewlyUsed.)
	rep.GreedyRemoved = pl.Greedy - emptyRemovable
	if rep.GreedyRemoved < 0 {
		return nil, fmt.Errorf("analysis: drain: the greedy removed %d nodes of %d empty removable ones (a bug)", pl.Greedy, emptyRemovable)
	}
	for _, mv := range pl.Moves {
		if vm := s.PodVM[mv.Pod]; rs.PlacedPending(vm) {
			// A pending pod is bound once, where the plan leaves it.
			setPendingNode(rep.PendingOutcomes, vm, p.Nodes[mv.To].Name)
			continue
		}
		rep.Moves = append(rep.Moves, DrainMove{Pod: p.Pods[mv.Pod].Name, VM: s.PodVM[mv.Pod], From: p.Nodes[mv.From].Name, To: p.Nodes[mv.To].Name})
	}
	after := cluster.ApplyPlan(p, pl)
	if err := drain.Check(p, after, removed); err != nil {
		return nil, fmt.Errorf("analysis: drain: the plan breaks a constraint (a bug): %w", err)
	}
	rep.NodesAfter = cluster.UsedNodes(after, len(p.Nodes))
	newly := make([]bool, len(p.Nodes))
	for _, n := range after {
		if n >= 0 && !occupied[n] && !newly[n] {
			newly[n] = true
			rep.NodesNewlyUsed++
		}
	}
	// The interval: as lpbound stored it for this run at this instant, or
	// computed now.
	if lb, ub, ok := storedInterval(ctx, db, run, s.T); ok {
		rep.LBNodes, rep.UBNodes = lb, ub
		rep.UBNodes = min(rep.UBNodes, rep.NodesAfter)
	} else {
		var unbounded *drain.Result
		if opts.MaxMoves == 0 {
			unbounded = pl
		}
		b, _, err := s.Bound(ctx, opts.TimeLimit, unbounded)
		if err != nil {
			return nil, err
		}
		rep.LBNodes, rep.UBNodes = b.LBNodes, b.UBNodes
	}
	rep.BeyondPlan = math.Max(0, float64(rep.NodesAfter)-rep.LBNodes)
	if opts.Store {
		id, err := s.StorePacking(ctx, db, after, "drain-plan", map[string]any{"max_moves": opts.MaxMoves,
			"nodes_removed": rep.NodesRemoved, "empty_nodes_removed": rep.EmptyNodesRemoved, "pending_placed": rep.PendingPlaced,
			"moves": len(rep.Moves)})
		if err != nil {
			return nil, err
		}
		rep.PlanRun = id
	}
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

// MachineWhy says why one node of a run cannot be drained (the question of
// karpenter#1442): the pod with nowhere to go and, over the other nodes,
// what excludes each.
type MachineWhy struct {
	Run       int64              `json:"run_id"`
	Dataset   string             `json:"dataset"`
	T         float64            `json:"t_s"`
	Time      string             `json:"time,omitempty"` // T as RFC 3339 (Stamp)
	Node      string             `json:"node"`
	Pods      int                `json:"pods"`        // movable pods on the node
	Pinned    int                `json:"pinned_pods"` // DaemonSet/static pods that go with it
	Drainable bool               `json:"drainable"`
	Moves     []DrainMove        `json:"moves"`
	Pod       string             `json:"blocking_pod,omitempty"`
	Reasons   []drain.Reason     `json:"reasons"`
	Nearest   string             `json:"nearest_node,omitempty"`
	Short     map[string]float64 `json:"nearest_short,omitempty"`
	Text      string             `json:"text"`
}

// ExplainMachine explains why node (a machine name) of run cannot be
// drained at the snapshot instant at (NaN: the run's last placement).
func ExplainMachine(ctx context.Context, db *store.DB, run int64, node string, at float64) (*MachineWhy, error) {
	s, err := cluster.LoadSnapshot(ctx, db, run, at)
	if err != nil {
		return nil, err
	}
	p := &s.Problem
	n := -1
	for i := range p.Nodes {
		if p.Nodes[i].Name == node {
			n = i
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("analysis: explain: run %d's dataset %q has no machine named %q", run, s.Dataset, node)
	}
	why := drain.Explain(p, n)
	out := &MachineWhy{Run: run, Dataset: s.Dataset, T: s.T, Time: analysis.Stamp(s.Tr, s.T), Node: node, Drainable: why.Drainable, Reasons: why.Reasons,
		Text: why.Text, Moves: []DrainMove{}}
	for i := range p.Pods {
		if p.Pods[i].Node == n {
			out.Pods++
		}
	}
	for _, m := range s.PinnedNode {
		if int(m) == n {
			out.Pinned++
		}
	}
	if out.Reasons == nil {
		out.Reasons = []drain.Reason{}
	}
	for _, mv := range why.Moves {
		out.Moves = append(out.Moves, DrainMove{Pod: p.Pods[mv.Pod].Name, VM: s.PodVM[mv.Pod], From: p.Nodes[mv.From].Name, To: p.Nodes[mv.To].Name})
	}
	if !why.Drainable && why.Pod >= 0 && why.Pod < len(p.Pods) {
		out.Pod = p.Pods[why.Pod].Name
		// A Kubernetes pod kept off nodes by their taints: name the taints
		// (the reason's own detail describes the pod's tolerations).
		pod := &p.Pods[why.Pod]
		if s.Tr.OnePerRequest && pod.TolerationOK != nil {
			off := map[string]bool{}
			for t := range p.Nodes {
				if t != n && (pod.AffinityOK == nil || pod.AffinityOK[t]) && !pod.TolerationOK[t] {
					off[p.Nodes[t].Name] = true
				}
			}
			if len(off) > 0 {
				desc, err := cluster.UntoleratedTaints(ctx, db, s.Tr.LoadID, s.PodVM[why.Pod], off)
				if err != nil {
					return nil, err
				}
				for i := range out.Reasons {
					if out.Reasons[i].Code == drain.ReasonTaint && desc != "" {
						out.Reasons[i].Detail = desc
					}
				}
			}
		}
	}
	if why.Nearest >= 0 {
		out.Nearest = p.Nodes[why.Nearest].Name
		out.Short = map[string]float64{}
		for j, x := range why.Short {
			if x > 0 {
				out.Short[p.DimNames[j]] = x
			}
		}
	}
	return out, nil
}

// LatestRun is the newest run of dataset with engine (e.g. the observed
// run of a cluster's latest ingest).
func LatestRun(ctx context.Context, db *store.DB, dataset, engine string) (int64, error) {
	var id int64
	err := db.SQL().QueryRowContext(ctx, `SELECT r.run_id FROM run r JOIN dataset d ON d.name = r.dataset AND d.load_id = r.load_id
		WHERE r.dataset = $1 AND r.engine = $2 ORDER BY r.run_id DESC LIMIT 1`, dataset, engine).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("%w: no %s run of dataset %q's current load", analysis.ErrNoRun, engine, dataset)
	}
	return id, nil
}

// KeptNodes are up to n of the nodes in use that run's unbounded drain
// plan keeps, those holding the most movable pods first (ties by name):
// the nodes a user asks "why not that one" about.
func KeptNodes(ctx context.Context, db *store.DB, run int64, n int) ([]string, error) {
	s, err := cluster.LoadSnapshot(ctx, db, run, math.NaN())
	if err != nil {
		return nil, err
	}
	p := &s.Problem
	pl, err := drain.Plan(p, drain.Options{})
	if err != nil {
		return nil, err
	}
	removed := make([]bool, len(p.Nodes))
	for _, m := range pl.Removed {
		removed[m] = true
	}
	pods := make([]int, len(p.Nodes))
	for i := range p.Pods {
		pods[p.Pods[i].Node]++
	}
	var kept []int
	for m := range p.Nodes {
		if !removed[m] && pods[m] > 0 {
			kept = append(kept, m)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if pods[a] != pods[b] {
			return pods[a] > pods[b]
		}
		return p.Nodes[a].Name < p.Nodes[b].Name
	})
	var out []string
	for _, m := range kept[:min(n, len(kept))] {
		out = append(out, p.Nodes[m].Name)
	}
	return out, nil
}

// storedInterval is the interval lpbound stored for run at t (run_metric
// lp_lb_machines and lp_ub_machines), if it did.
func storedInterval(ctx context.Context, db *store.DB, run int64, t float64) (lb float64, ub int, ok bool) {
	var l, u sql.NullFloat64
	err := db.SQL().QueryRowContext(ctx, `SELECT max(value) FILTER (WHERE metric = 'lp_lb_machines'), max(value) FILTER (WHERE metric = 'lp_ub_machines')
		FROM run_metric WHERE run_id = $1 AND t_s = $2 AND metric IN ('lp_lb_machines', 'lp_ub_machines')`, run, t).Scan(&l, &u)
	if err != nil || !l.Valid || !u.Valid {
		return 0, 0, false
	}
	return l.Float64, int(u.Float64), true
}

// setPendingNode records that pending VM vm ends on node.
func setPendingNode(outs []snapshot.PendingOutcome, vm int64, node string) {
	for i := range outs {
		if outs[i].VMID == vm {
			outs[i].Machine = node
		}
	}
}

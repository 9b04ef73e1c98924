package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/analysis/snapshot"
	"placelab/internal/kunits"
	"placelab/optimizer"
	"placelab/optimizer/drain"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// Snapshot is what a run held at one instant (RunState), as the
// consolidation questions see it (lpbound on a Kubernetes run, whatif
// drain, explain --machine, capacity --like): every machine is a node,
// every VM the run held then a pod. Pinned VMs (a DaemonSet's or a static
// pod, vm_constraint.pinned) stay on their node: their demand is
// subtracted from the node's Free and they are not in Problem.Pods. A node
// running a static pod (the control plane) is not Removable. A VM of the
// dataset alive then that the run did not place (a Pending pod) is counted
// in Pending; it is a pod of the Problem only when a plan placed it first
// (RunState.PlacePending), and NodesInUse never counts it.
//
// The Problem is generated from the run's rules, so the drain planner keeps
// what every engine keeps: a pod's AffinityOK is NodeAffinity's verdict
// per node (node selector, required affinity, a zonal volume's zone),
// TolerationOK TaintToleration's, DomainOK the other static conditions
// (AvailabilitySetSpread's update domain, IsTypeSupported's SKU), and its
// FaultDomain and the nodes' racks AvailabilitySetSpread's rack rule.
// Capacity, anti-affinity (MaxPerNode) and topology spread (MaxSkew) are
// the drain's own fast encodings of AreNodeResourcesValid,
// TenantAntiColocation and PodTopologySpread; TestDrainConformsToRules
// holds the two to the same verdicts on random snapshots.
type Snapshot struct {
	Run     int64
	Dataset string
	Policy  string
	Engine  string
	T       float64 // the instant: the run's last event unless asked
	Problem drain.Problem
	// PodVM is each pod's vm_id; Machines each node's database machine_id.
	PodVM    []int64
	Machines []int32
	// PinnedVM and PinnedNode are the pinned VMs alive at T and their nodes.
	PinnedVM   []int64
	PinnedNode []int32
	Pending    int
	// NodesInUse counts nodes holding a pod that can move; NodesWithPods
	// nodes holding any pod (a node with only pinned pods is empty for a
	// drain: its DaemonSet pods go with it).
	NodesInUse, NodesWithPods int
	// State is the run's state the snapshot was made from.
	State   *snapshot.RunState
	podType []int32
	dims    []optimizer.Dim
	Tr      *replay.Trace
	masks   map[string][]bool
}

// ErrSKUDemand refuses a drain of VMs whose demand depends on the SKU (the
// Azure packing trace gives a VM type's demand as a fraction of each
// machine type): moving a VM would change its size.
var ErrSKUDemand = errors.New("analysis: VM demands differ by SKU")

// LoadSnapshot reads run's state at at (NaN: the run's last event)
// as a drain Problem (RunState.Cluster).
func LoadSnapshot(ctx context.Context, db *store.DB, run int64, at float64) (*Snapshot, error) {
	rs, err := snapshot.Load(ctx, db, run, at)
	if err != nil {
		return nil, err
	}
	return SnapshotOf(rs)
}

// SnapshotOf is the run's state as a drain Problem (see Snapshot).
func SnapshotOf(rs *snapshot.RunState) (*Snapshot, error) {
	if err := rs.Planning("a consolidation"); err != nil {
		return nil, err
	}
	tr := rs.Trace
	inv := tr.Inv
	st := rs.State
	s := &Snapshot{Run: rs.Run, Dataset: rs.Dataset, Policy: rs.Policy, Engine: rs.Engine, T: rs.T, State: rs, Tr: tr,
		Pending: len(rs.Pending) + len(rs.Tried)}
	// Dimensions some SKU has.
	for d := optimizer.Dim(0); d < optimizer.NumDims; d++ {
		for _, k := range inv.SKUs {
			if k.Capacity[d] > 0 {
				s.dims = append(s.dims, d)
				break
			}
		}
	}
	p := &s.Problem
	for _, d := range s.dims {
		p.DimNames = append(p.DimNames, d.String())
	}
	p.GroupNames = rs.TenantNames
	if tr.OnePerRequest { // a Kubernetes cluster: its own units
		p.Amount = func(k int, x float64) string { return kunits.Amount(p.DimNames[k], x) }
	}
	for _, c := range inv.Clusters {
		p.Zones = append(p.Zones, c.Name)
	}
	for _, r := range inv.Racks {
		p.RackNames = append(p.RackNames, r.Name)
	}
	for m := range inv.Machines {
		mc := &inv.Machines[m]
		p.Nodes = append(p.Nodes, drain.Node{Name: mc.Name, Free: s.vec(inv.Capacity(int32(m))), Zone: int(mc.Cluster), Rack: int(mc.Rack),
			Cost: inv.Capacity(int32(m))[optimizer.Cores], Removable: true, Schedulable: mc.Healthy})
		s.Machines = append(s.Machines, tr.MachineIDs[m])
	}
	var vms []optimizer.VMID
	for m := range inv.Machines {
		vms = append(vms, st.VMsOn(int32(m))...)
	}
	slices.Sort(vms)
	env := &optimizer.Env{Inv: inv, State: st, Cfg: &rs.Cfg}
	inUse := make([]bool, len(inv.Machines))
	withPods := make([]bool, len(inv.Machines))
	for _, vm := range vms {
		pl, _ := st.Lookup(vm)
		m := pl.Machine
		// The snapshot's counts are of the run's pods: Pending pods a
		// plan placed (PlacePending) are in the Problem, not in them.
		ours := !rs.PlacedPending(vm)
		withPods[m] = withPods[m] || ours
		if pl.Pin != optimizer.PinNone {
			n := &p.Nodes[m]
			if pl.Pin == optimizer.PinStatic {
				// A node running static pods (the control plane's, from
				// the kubelet's manifests) is not a consolidation
				// candidate: removing it removes them.
				n.Removable = false
			}
			for j, x := range s.vec(pl.Demand) {
				n.Free[j] -= x
			}
			s.PinnedVM = append(s.PinnedVM, vm)
			s.PinnedNode = append(s.PinnedNode, m)
			continue
		}
		if err := sameDemandEverywhere(inv, pl.Type); err != nil {
			return nil, err
		}
		inUse[m] = inUse[m] || ours
		pod := drain.Pod{Name: rs.Name(vm), Demand: s.vec(pl.Demand), Node: int(m), Group: int(pl.Tenant),
			MaxPerNode: int(pl.MaxPerMachine), MaxSkew: int(pl.MaxSkew), FaultDomain: int(pl.FaultDomain)}
		s.masksOf(env, pl, &pod)
		p.Pods = append(p.Pods, pod)
		s.PodVM = append(s.PodVM, vm)
		s.podType = append(s.podType, pl.Type)
	}
	for m := range inUse {
		if inUse[m] {
			s.NodesInUse++
		}
		if withPods[m] {
			s.NodesWithPods++
		}
	}
	return s, nil
}

// vec projects a resource vector on the snapshot's dimensions.
func (s *Snapshot) vec(v optimizer.Vec) []float64 {
	out := make([]float64, len(s.dims))
	for j, d := range s.dims {
		out[j] = v[d]
	}
	return out
}

// masksOf gives pod the per-node verdicts of the rules' static conditions
// for placement pl, each from the rule itself: NodeAffinity (AffinityOK),
// TaintToleration (TolerationOK), and AvailabilitySetSpread's update
// domain with IsTypeSupported's SKU (DomainOK). A mask that admits every
// node stays nil. Pods alike share one slice per mask (the planner groups
// pods by them).
func (s *Snapshot) masksOf(env *optimizer.Env, pl optimizer.Placement, pod *drain.Pod) {
	inv := env.Inv
	req := optimizer.RequestOf(pl)
	v := req.VMs[0]
	if pl.Affinity != 0 {
		pod.AffinityOK = s.mask(fmt.Sprintf("a%d", pl.Affinity), func(m int32) bool { return optimizer.NodeAffinity{}.ValidFor(env, req, v, m) })
		pod.AffinityDesc = inv.NodeSets[pl.Affinity-1].Name
	}
	if pl.Tolerated != 0 {
		pod.TolerationOK = s.mask(fmt.Sprintf("t%d", pl.Tolerated), func(m int32) bool { return optimizer.TaintToleration{}.ValidFor(env, req, v, m) })
		pod.TolerationDesc = inv.NodeSets[pl.Tolerated-1].Name
	}
	ud := pl.UpdateDomain != optimizer.NoDomain
	supported := func(m int32) bool { return inv.Types[pl.Type].Supported[inv.Machines[m].SKU] }
	key := fmt.Sprintf("s%d", pl.Type)
	desc := "type " + inv.Types[pl.Type].Name + " runs on the node's SKU"
	if ud {
		u := int32(pl.SetU)
		key = fmt.Sprintf("%s|u%d/%d", key, (int32(pl.UpdateDomain.Index())+(pl.Tenant%u+u)%u)%u, u)
		desc = fmt.Sprintf("update domain %d of %d; %s", pl.UpdateDomain.Index(), u, desc)
	}
	dm := s.mask(key, func(m int32) bool {
		return supported(m) && (!ud || optimizer.AvailabilitySetSpread{}.ValidInRack(env, req, v, m))
	})
	if dm != nil {
		pod.DomainOK, pod.DomainDesc = dm, desc
	}
}

// mask is the per-node mask of key, computed once by ok; nil when it
// admits every node.
func (s *Snapshot) mask(key string, ok func(m int32) bool) []bool {
	if m, seen := s.masks[key]; seen {
		return m
	}
	if s.masks == nil {
		s.masks = map[string][]bool{}
	}
	out := make([]bool, len(s.Problem.Nodes))
	all := true
	for m := range out {
		out[m] = ok(int32(m))
		all = all && out[m]
	}
	if all {
		out = nil
	}
	s.masks[key] = out
	return out
}

// sameDemandEverywhere refuses a VM type whose absolute demand differs
// between the SKUs that can host it.
func sameDemandEverywhere(inv *optimizer.Inventory, t int32) error {
	ty := &inv.Types[t]
	first := -1
	for k := range ty.Demand {
		if !ty.Supported[k] {
			continue
		}
		if first < 0 {
			first = k
			continue
		}
		for d := range ty.Demand[k] {
			if math.Abs(ty.Demand[k][d]-ty.Demand[first][d]) > 1e-9*math.Max(1, math.Abs(ty.Demand[first][d])) {
				return fmt.Errorf("%w: type %s needs %g %s on %s but %g on %s; a drain moves VMs between machines, so their sizes must not depend on the machine",
					ErrSKUDemand, ty.Name, ty.Demand[first][d], optimizer.Dim(d), inv.SKUs[first].Name, ty.Demand[k][d], inv.SKUs[k].Name)
			}
		}
	}
	return nil
}

// BoundOptions tune ClusterBound; start from DefaultClusterBoundOptions.
type BoundOptions struct {
	// At is the snapshot instant (NaN: the run's last placement).
	At float64
	// TimeLimit bounds the LP (its bound stays valid when it stops early).
	TimeLimit time.Duration
	// Store keeps the UB packing as an offline run (placelab check verifies it).
	Store bool
}

// BoundTimeLimit bounds the cluster LP by default. Its Lagrangian
// bound rises early and then barely moves: on the Alibaba GPU cluster
// (1,523 nodes, 5,120 pods, 27 node and 121 pod types) it is 652 after 3 s
// and 654 after 58 s (the master LP at 677), and on a generated 1,500-node,
// 10,000-pod cluster it is final within 1 s. The bound stays valid when the
// limit stops it, only weaker; --time-limit raises it.
const BoundTimeLimit = 5 * time.Second

// DefaultBoundOptions: the last instant, ClusterBoundTimeLimit, the
// packing stored.
func DefaultBoundOptions() BoundOptions {
	return BoundOptions{At: math.NaN(), TimeLimit: BoundTimeLimit, Store: true}
}

// Validate refuses values out of range.
func (o BoundOptions) Validate() error {
	if math.IsInf(o.At, 0) {
		return fmt.Errorf("analysis: cluster bound: at = %v, want a finite time", o.At)
	}
	if o.TimeLimit < 0 {
		return fmt.Errorf("analysis: cluster bound: time limit %v < 0", o.TimeLimit)
	}
	return nil
}

// BoundReport is how few nodes the pods a run held at one instant
// need: no placement of them (pinned pods on their nodes, every constraint
// kept) uses fewer than LBNodes nodes for its movable pods, and one on
// UBNodes exists (stored as PackingRun, checked by placelab check).
//
// LB is the configuration LP's rounded bound over node types — nodes
// grouped by SKU family and by which pods' node affinity and tolerations
// allow them, each type as large as its largest node's free capacity
// (allocatable minus its pinned pods), pods by demand and by those sets —
// with required anti-affinity and topology spread relaxed, and nodes
// rounded up to their type: a relaxation keeps a lower bound valid. UB is the fewest nodes of the
// packings found that keep every constraint: the run's own, a full
// repacking, the drain plan and the LP's integer packing when it passes the
// independent check.
type BoundReport struct {
	SnapshotHead
	LBNodes  float64 `json:"lb_nodes"`
	UBNodes  int     `json:"ub_nodes"`
	UBSource string  `json:"ub_source"`
	// DrainableNodes = NodesInUse − UBNodes: nodes that could be drained
	// now (a placement of the same pods on that many fewer nodes exists).
	DrainableNodes int `json:"drainable_nodes"`
	// MaxDrainableNodes = NodesInUse − LBNodes: no placement frees more.
	MaxDrainableNodes float64  `json:"max_drainable_nodes"`
	IntervalGapPct    float64  `json:"interval_gap_pct"`
	Converged         bool     `json:"converged"`
	Stop              string   `json:"stop"`
	NodeTypes         int      `json:"node_types"`
	PodTypes          int      `json:"pod_types"`
	Relaxed           []string `json:"relaxed"`
	PackingRun        int64    `json:"packing_run,omitempty"`
	Seconds           float64  `json:"seconds"`
}

// SnapshotHead is what every answer on a snapshot says of it first: the
// run, the instant, its nodes and pods (movable, pinned, pending) and the
// nodes in use.
type SnapshotHead struct {
	Run     int64   `json:"run_id"`
	Dataset string  `json:"dataset"`
	Policy  string  `json:"policy"`
	T       float64 `json:"t_s"`
	// Time is T as an RFC 3339 timestamp, for a dataset whose times have
	// an origin (a Kubernetes cluster's earliest creation); else omitted.
	Time          string `json:"time,omitempty"`
	Nodes         int    `json:"nodes"`
	Pods          int    `json:"pods"`
	PinnedPods    int    `json:"pinned_pods"`
	PendingPods   int    `json:"pending_pods"`
	NodesInUse    int    `json:"nodes_in_use"`
	NodesWithPods int    `json:"nodes_with_pods"`
}

// Head is the snapshot's SnapshotHead.
func (s *Snapshot) Head() SnapshotHead {
	pods := 0
	for _, vm := range s.PodVM {
		if !s.State.PlacedPending(vm) {
			pods++
		}
	}
	return SnapshotHead{Run: s.Run, Dataset: s.Dataset, Policy: s.Policy, T: s.T, Time: analysis.Stamp(s.Tr, s.T), Nodes: len(s.Problem.Nodes), Pods: pods,
		PinnedPods: len(s.PinnedVM), PendingPods: s.Pending, NodesInUse: s.NodesInUse, NodesWithPods: s.NodesWithPods}
}

// ClusterPricingNodeLimit bounds the branch-and-bound nodes of one pricing
// problem of the cluster LP. Pods of a cluster come in many shapes (one
// per Deployment) over five dimensions, where the default limit spends
// seconds per pricing round without raising the rounded bound (1,500
// nodes, 10,000 pods: 2.1 s at 2M nodes, 0.69 s at 100k, the same LB);
// the Lagrangian bound stays valid whatever the limit.
const ClusterPricingNodeLimit = 100_000

// Bound bounds the nodes a run's pods need at one instant (see
// BoundReport).
func Bound(ctx context.Context, db *store.DB, run int64, opts BoundOptions) (*BoundReport, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	s, err := LoadSnapshot(ctx, db, run, opts.At)
	if err != nil {
		return nil, err
	}
	rep, assign, err := s.Bound(ctx, opts.TimeLimit, nil)
	if err != nil {
		return nil, err
	}
	if opts.Store && assign != nil {
		id, err := s.StorePacking(ctx, db, assign, "cluster-packing", map[string]any{"lb_nodes": rep.LBNodes, "ub_nodes": rep.UBNodes, "ub_source": rep.UBSource})
		if err != nil {
			return nil, err
		}
		rep.PackingRun = id
	}
	// The interval as the run's LP metrics at T, as lpbound --run writes
	// them for a replay's snapshots (the lpbound views and --unbounded read
	// them): machines in use, LB and UB.
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Exec("DELETE FROM run_metric WHERE run_id = $1 AND metric IN ('lp_online_machines', 'lp_lb_machines', 'lp_ub_machines', 'lp_emptiable_machines', 'lp_converged')", run); err != nil {
			return err
		}
		for _, m := range []struct {
			name string
			v    float64
		}{{"lp_online_machines", float64(rep.NodesInUse)}, {"lp_lb_machines", rep.LBNodes}, {"lp_ub_machines", float64(rep.UBNodes)},
			{"lp_emptiable_machines", float64(rep.DrainableNodes)}, {"lp_converged", analysis.BoolNum(rep.Converged)}} {
			if err := w.Append("run_metric", run, rep.T, m.name, m.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

// Bound computes the interval on the snapshot and returns the UB packing
// (each pod's node); plan, when not nil, is the unbounded drain plan
// already made on the snapshot (a candidate for UB), else bound makes it.
func (s *Snapshot) Bound(ctx context.Context, limit time.Duration, plan *drain.Result) (*BoundReport, []int, error) {
	p := &s.Problem
	rep := &BoundReport{SnapshotHead: s.Head(),
		Relaxed: []string{"required pod anti-affinity (at most N per node)", "topology spread", "fault domains' racks", "each node rounded up to the largest free capacity of its SKU family and node-set signature"}}
	if len(p.Pods) == 0 {
		rep.UBSource = "empty"
		rep.Converged, rep.Stop = true, "no pods"
		return rep, []int{}, nil
	}
	prob, nodeTypes, podTypes := s.lpProblem()
	rep.NodeTypes, rep.PodTypes = len(prob.Bins), len(prob.Items)
	// No integer master: the packings that keep every constraint (the run's,
	// the repacking, the drain plan) give UB; the LP's own packing
	// ignores anti-affinity and spread and rarely beats them.
	res, err := lpbound.Solve(ctx, prob, lpbound.Options{Objective: lpbound.MinCount, TimeLimit: limit, IntegerTimeLimit: -1,
		NodeLimit: ClusterPricingNodeLimit})
	if err != nil && res == nil {
		return nil, nil, fmt.Errorf("analysis: cluster bound: %w", err)
	}
	rep.LBNodes, rep.Converged, rep.Stop = res.Bound, res.Converged, res.Stop.String()
	// UB: the fewest nodes among the feasible packings found.
	type cand struct {
		src    string
		assign []int
	}
	var cands []cand
	own := make([]int, len(p.Pods))
	for i := range p.Pods {
		own[i] = p.Pods[i].Node
	}
	cands = append(cands, cand{"run", own})
	if a, err := drain.Repack(p); err == nil {
		cands = append(cands, cand{"repack", a})
	}
	if plan == nil {
		if pl, err := drain.Plan(p, drain.Options{}); err == nil {
			plan = pl
		}
	}
	if plan != nil {
		cands = append(cands, cand{"drain-plan", ApplyPlan(p, plan)})
	}
	if res.Packing != nil {
		if a, ok := s.fromPatterns(res.Packing, nodeTypes, podTypes); ok {
			cands = append(cands, cand{"lp-integer", a})
		}
	}
	best := -1
	var bestA []int
	for _, c := range cands {
		if drain.Check(p, c.assign, nil) != nil {
			continue
		}
		n := UsedNodes(c.assign, len(p.Nodes))
		if best < 0 || n < best {
			best, bestA, rep.UBSource = n, c.assign, c.src
		}
	}
	if best < 0 {
		return nil, nil, fmt.Errorf("analysis: cluster bound: no packing of run %d's pods keeps every constraint (the run's own breaks one: placelab check --run %d)", s.Run, s.Run)
	}
	rep.UBNodes = best
	rep.DrainableNodes = s.NodesInUse - best
	rep.MaxDrainableNodes = float64(s.NodesInUse) - rep.LBNodes
	if rep.LBNodes > 0 {
		rep.IntervalGapPct = 100 * (float64(best) - rep.LBNodes) / rep.LBNodes
	}
	return rep, bestA, nil
}

// ApplyPlan is the assignment a drain plan leaves.
func ApplyPlan(p *drain.Problem, pl *drain.Result) []int {
	a := make([]int, len(p.Pods))
	for i := range p.Pods {
		a[i] = p.Pods[i].Node
	}
	for _, mv := range pl.Moves {
		a[mv.Pod] = mv.To
	}
	return a
}

func UsedNodes(assign []int, nodes int) int {
	used := make([]bool, nodes)
	n := 0
	for _, m := range assign {
		if m >= 0 && !used[m] {
			used[m] = true
			n++
		}
	}
	return n
}

// lpProblem is the snapshot as a configuration LP: node types (free
// capacity and which pod classes may use them) with their counts, pod types
// (demand and class) with theirs. nodeTypes[k] lists bin k's nodes,
// podTypes[i] item i's pods.
func (s *Snapshot) lpProblem() (*lpbound.Problem, [][]int, [][]int) {
	p := &s.Problem
	// Pod classes: distinct (affinity, tolerated, domain) masks.
	classOf := make([]int, len(p.Pods))
	var classes [][3][]bool
	key := map[string]int{}
	maskKey := func(m []bool) string {
		if m == nil {
			return "*"
		}
		var b strings.Builder
		for _, x := range m {
			if x {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		return b.String()
	}
	for i := range p.Pods {
		k := maskKey(p.Pods[i].AffinityOK) + "|" + maskKey(p.Pods[i].TolerationOK) + "|" + maskKey(p.Pods[i].DomainOK)
		c, ok := key[k]
		if !ok {
			c = len(classes)
			key[k] = c
			classes = append(classes, [3][]bool{p.Pods[i].AffinityOK, p.Pods[i].TolerationOK, p.Pods[i].DomainOK})
		}
		classOf[i] = c
	}
	allows := func(c, n int) bool {
		a, t, d := classes[c][0], classes[c][1], classes[c][2]
		return (a == nil || a[n]) && (t == nil || t[n]) && (d == nil || d[n])
	}
	// Node types: the nodes of one SKU family (the SKU's name before "#":
	// a Kubernetes instance type whose nodes' allocatable differ a little)
	// that the same pod classes may use, each type as large as its largest
	// node in every dimension (free capacity, clamped at 0). Rounding a
	// node up relaxes the problem, so the bound stays valid, and keeps the
	// LP to a few node types where every node of a real cluster differs.
	inv := s.Tr.Inv
	var bins []lpbound.BinType
	var nodeTypes [][]int
	nkey := map[string]int{}
	for n := range p.Nodes {
		free := make([]float64, len(p.DimNames))
		for j, x := range p.Nodes[n].Free {
			free[j] = math.Max(0, x)
		}
		family, _, _ := strings.Cut(inv.SKUs[inv.Machines[n].SKU].Name, "#")
		var b strings.Builder
		b.WriteString(family + "|")
		for c := range classes {
			if allows(c, n) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		k, ok := nkey[b.String()]
		if !ok {
			k = len(bins)
			nkey[b.String()] = k
			bins = append(bins, lpbound.BinType{Name: fmt.Sprintf("n%d", k), Capacity: free})
			nodeTypes = append(nodeTypes, nil)
		}
		for j, x := range free {
			bins[k].Capacity[j] = math.Max(bins[k].Capacity[j], x)
		}
		bins[k].Limit++
		nodeTypes[k] = append(nodeTypes[k], n)
	}
	// Pod types: demand and class.
	var items []lpbound.ItemType
	var podTypes [][]int
	ikey := map[string]int{}
	for i := range p.Pods {
		k := fmt.Sprintf("%v|%d", p.Pods[i].Demand, classOf[i])
		t, ok := ikey[k]
		if !ok {
			t = len(items)
			ikey[k] = t
			sizes := make([][]float64, len(bins))
			for b := range bins {
				if allows(classOf[i], nodeTypes[b][0]) {
					sizes[b] = p.Pods[i].Demand
				}
			}
			items = append(items, lpbound.ItemType{Name: fmt.Sprintf("p%d", t), Sizes: sizes})
			podTypes = append(podTypes, nil)
		}
		items[t].Count++
		podTypes[t] = append(podTypes[t], i)
	}
	return &lpbound.Problem{Bins: bins, Items: items}, nodeTypes, podTypes
}

// fromPatterns turns the LP's integer packing into an assignment, node
// types' nodes taken in order; false when it does not map.
func (s *Snapshot) fromPatterns(pk []lpbound.Pattern, nodeTypes, podTypes [][]int) ([]int, bool) {
	a := make([]int, len(s.Problem.Pods))
	nextNode := make([]int, len(nodeTypes))
	nextPod := make([]int, len(podTypes))
	idx := func(name string) int {
		var k int
		fmt.Sscanf(name[1:], "%d", &k)
		return k
	}
	for _, p := range pk {
		b := idx(p.Bin)
		for range int(math.Round(p.X)) {
			if nextNode[b] >= len(nodeTypes[b]) {
				return nil, false
			}
			n := nodeTypes[b][nextNode[b]]
			nextNode[b]++
			for j, name := range p.Items {
				t := idx(name)
				for range p.Counts[j] {
					if nextPod[t] >= len(podTypes[t]) {
						return nil, false
					}
					a[podTypes[t][nextPod[t]]] = n
					nextPod[t]++
				}
			}
		}
	}
	for t := range podTypes {
		if nextPod[t] != len(podTypes[t]) {
			return nil, false
		}
	}
	return a, true
}

// StorePacking stores an assignment of the snapshot's pods as an offline run
// placed at T, and returns its id. The pinned pods stay on the nodes the
// assignment uses; a node it leaves without a movable pod is drained, and
// its DaemonSet and static pods go with it (no placement row), so the run's
// nodes with pods are the nodes the packing needs.
func (s *Snapshot) StorePacking(ctx context.Context, db *store.DB, assign []int, policy string, extra map[string]any) (int64, error) {
	var rows []snapshot.PlanRow
	for i, n := range assign {
		rows = append(rows, snapshot.PlanRow{VM: s.PodVM[i], Machine: s.Machines[n]})
	}
	used := make([]bool, len(s.Problem.Nodes))
	for _, n := range assign {
		used[n] = true
	}
	for i, vm := range s.PinnedVM {
		if used[s.PinnedNode[i]] {
			rows = append(rows, snapshot.PlanRow{VM: vm, Machine: s.Machines[s.PinnedNode[i]]})
		}
	}
	return s.State.StorePlan(ctx, db, rows, policy, extra)
}

// IsRun reports whether a run's dataset is a cluster snapshot whose
// pods carry placement constraints or pod slots (ingest k8s): lpbound bounds
// it at one instant with its constraints (ClusterBound) rather than hourly
// over the zone's SKUs.
func IsRun(ctx context.Context, db *store.DB, run int64) (bool, error) {
	var n int64
	err := db.SQL().QueryRowContext(ctx, store.MustQuery("cluster_run"), run).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("%w: %d (placelab sql --view run_summary lists the runs)", analysis.ErrNoRun, run)
	}
	return n > 0, err
}

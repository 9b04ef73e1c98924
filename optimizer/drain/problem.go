package drain

import (
	"fmt"
	"math"
)

// Eps is the slack allowed per dimension when a demand is compared with
// free capacity: requests come from decimal quantities (0.1 cores, 0.3 GB)
// whose float sums drift by far less than this.
const Eps = 1e-9

// Problem is a snapshot. Resource vectors have len(DimNames) entries
// (e.g. cores, memory GB, ephemeral GB, GPUs, pods); a fit allows Eps slack
// per dimension.
type Problem struct {
	DimNames []string
	Nodes    []Node
	// Pods are the pods that may move or must stay. Pods pinned to their
	// node (DaemonSet, static) are not here: their requests are already
	// subtracted in Node.Free.
	Pods []Pod
	// Zones names the zone indices of Node.Zone. With no names every node
	// must be in zone 0.
	Zones []string
	// For explanations and errors only (no plan depends on them):
	// GroupNames names Pod.Group's indices (a tenant, a pod's owner),
	// RackNames Node.Rack's (the inventory's rack names), and Amount
	// writes x of dimension k ("4Gi memory"); nil: "group 3", "rack 2"
	// and "4.29497 memory".
	GroupNames []string
	RackNames  []string
	Amount     func(k int, x float64) string
}

// groupName names group g for a message.
func (p *Problem) groupName(g int) string {
	if g >= 0 && g < len(p.GroupNames) && p.GroupNames[g] != "" {
		return p.GroupNames[g]
	}
	return fmt.Sprintf("group %d", g)
}

// rackName names rack r for a message: "rack " and its name, or its id.
func (p *Problem) rackName(r int) string {
	if r >= 0 && r < len(p.RackNames) && p.RackNames[r] != "" {
		return "rack " + p.RackNames[r]
	}
	return fmt.Sprintf("rack %d", r)
}

// amount writes x of dimension k for a message.
func (p *Problem) amount(k int, x float64) string {
	if p.Amount != nil {
		return p.Amount(k, x)
	}
	return fmt.Sprintf("%.6g %s", x, p.DimNames[k])
}

// Node is one node of the snapshot.
type Node struct {
	Name string
	// Free is the capacity for the pods of Problem.Pods: allocatable minus
	// the node's pinned pods. The pods of Problem.Pods bound to the node use
	// it up.
	Free []float64
	Zone int // index into Problem.Zones
	// Cost (e.g. the node's cores) only breaks ties: among plans that
	// remove as many nodes with as many moves, Plan keeps the one that
	// removes the most Cost, and candidate orders put costlier nodes first
	// among equals.
	Cost float64
	// Removable false: the plan keeps this node. Unhealthy nodes are
	// Removable=false and Schedulable=false.
	Removable bool
	// Schedulable false: the node takes no pod it does not already hold
	// (cordoned or NotReady). Its pods may stay, and it may be drained.
	Schedulable bool
	// Rack is the node's rack, a problem-wide id: nodes of different racks
	// have different ids. Only pods with a FaultDomain read it.
	Rack int
}

// Pod is one bound pod.
type Pod struct {
	Name   string
	Demand []float64
	Node   int // current node; every pod is bound
	// AffinityOK, TolerationOK and DomainOK say per node whether the pod's
	// node affinity, its tolerations and its update domain admit it (nil =
	// every node); the pod may run on n iff AffinityOK[n] &&
	// TolerationOK[n] && DomainOK[n]. DomainOK is the update-domain
	// condition of an availability set, computed by the caller (the set's
	// update domain k may use only the nodes of its machine update
	// domains); unlike AffinityOK it does not make a zone eligible for
	// MaxSkew.
	AffinityOK, TolerationOK, DomainOK []bool
	// AffinityDesc, TolerationDesc and DomainDesc describe the constraints
	// for explanations ("nodeSelector pool=gpu", "tolerates
	// gpu=true:NoSchedule", "update domain 2 of 5").
	AffinityDesc, TolerationDesc, DomainDesc string
	// Group is the tenant id, -1 for none. MaxPerNode and MaxSkew count the
	// pods of the same Group and are ignored when Group < 0.
	Group int
	// MaxPerNode (0 = none): on the pod's node at most this many pods of
	// Group, the pod included (required hostname anti-affinity).
	MaxPerNode int
	// MaxSkew (0 = none): topology spread over zones with Kubernetes'
	// DoNotSchedule semantics, see the package comment.
	MaxSkew int
	// FaultDomain (0 = none) is the pod's fault domain, 1-based, in its
	// Group's availability set; it needs Group ≥ 0. Pods of one Group with
	// different non-zero FaultDomain never share a rack (Node.Rack).
	FaultDomain int
}

// Allowed reports whether pod may run on node n at all: AffinityOK[n] &&
// TolerationOK[n] && DomainOK[n].
func (pod *Pod) Allowed(n int) bool {
	return (pod.AffinityOK == nil || pod.AffinityOK[n]) && (pod.TolerationOK == nil || pod.TolerationOK[n]) &&
		(pod.DomainOK == nil || pod.DomainOK[n])
}

// Move sends pod Pod from node From (its node in the snapshot) to node To.
type Move struct{ Pod, From, To int }

// Options tune Plan and Greedy.
type Options struct {
	// MaxMoves bounds the pods that end on another node than in the
	// snapshot: 0 = unlimited, < 0 = no pod may move (only empty nodes go).
	MaxMoves int
	// Effort bounds Plan's work beyond the greedy baseline, in search
	// steps (a tree node visited or a node considered for a pod);
	// 0 = DefaultEffort. The count is deterministic, so the plan does not
	// depend on the machine.
	Effort int64
	// Restarts is the number of seeded random candidate orders Plan tries
	// after its fixed orders while Effort lasts; 0 = DefaultRestarts,
	// < 0 = none.
	Restarts int
	// Seed seeds those random orders; 0 = DefaultSeed.
	Seed uint64
}

// Defaults of Options.
const (
	// DefaultEffort keeps Plan near half a second on one core for 1,500
	// nodes and 10,000 pods (BenchmarkPlan1500x10000) and exhausts nothing
	// on small clusters.
	DefaultEffort = 50_000_000
	// DefaultRestarts random orders after the fixed ones: they matter on
	// small clusters, where they are cheap.
	DefaultRestarts = 8
	// DefaultSeed seeds the random orders.
	DefaultSeed = 1
)

func (o Options) effort() int64 {
	if o.Effort > 0 {
		return o.Effort
	}
	return DefaultEffort
}

func (o Options) restarts() int {
	switch {
	case o.Restarts < 0:
		return 0
	case o.Restarts == 0:
		return DefaultRestarts
	}
	return o.Restarts
}

func (o Options) seed() uint64 {
	if o.Seed == 0 {
		return DefaultSeed
	}
	return o.Seed
}

// budget is the most pods that may end away from their node, -1 = no limit.
func (o Options) budget() int {
	switch {
	case o.MaxMoves == 0:
		return -1
	case o.MaxMoves < 0:
		return 0
	}
	return o.MaxMoves
}

// Result is a consolidation plan. (The brief named it Plan, which Go does
// not allow beside the function Plan; the function kept the name.)
type Result struct {
	// Removed are the nodes to remove, in the order the planner drained
	// them (nodes empty in the snapshot need no draining).
	Removed []int
	// Moves lists each pod that ends on another node, From its node in the
	// snapshot, in the order the planner last moved it; pods not listed
	// stay. Applying all moves and removing the nodes gives an assignment
	// that passes Check (when the snapshot does). Made one by one in this
	// order, each move fits when it is made, except that a pod the planner
	// moved twice is listed once, at its last move, and a plan taken whole
	// from a packing from scratch (see Plan) promises only its end state.
	Moves []Move
	// Kept is the number of nodes not removed: len(Nodes) − len(Removed).
	// Every plan removes every empty Removable node, so these are exactly
	// the nodes that hold a pod of Problem.Pods or are not Removable.
	Kept int
	// Greedy is the number of nodes the Greedy baseline removes under the
	// same MaxMoves.
	Greedy int
}

// Validate reports the first malformed field of p, wrapping ErrProblem.
func Validate(p *Problem) error {
	if p == nil {
		return fmt.Errorf("%w: nil problem", ErrProblem)
	}
	d, n := len(p.DimNames), len(p.Nodes)
	zones := max(1, len(p.Zones))
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for j := range p.Nodes {
		nd := &p.Nodes[j]
		if len(nd.Free) != d {
			return fmt.Errorf("%w: node %d %q: Free has %d entries, want %d", ErrProblem, j, nd.Name, len(nd.Free), d)
		}
		for k, f := range nd.Free {
			if !finite(f) {
				return fmt.Errorf("%w: node %d %q: Free[%d] = %v", ErrProblem, j, nd.Name, k, f)
			}
		}
		if nd.Zone < 0 || nd.Zone >= zones {
			return fmt.Errorf("%w: node %d %q: Zone %d out of range [0,%d)", ErrProblem, j, nd.Name, nd.Zone, zones)
		}
		if !finite(nd.Cost) {
			return fmt.Errorf("%w: node %d %q: Cost = %v", ErrProblem, j, nd.Name, nd.Cost)
		}
	}
	for i := range p.Pods {
		pod := &p.Pods[i]
		if len(pod.Demand) != d {
			return fmt.Errorf("%w: pod %d %q: Demand has %d entries, want %d", ErrProblem, i, pod.Name, len(pod.Demand), d)
		}
		for k, x := range pod.Demand {
			if !finite(x) || x < 0 {
				return fmt.Errorf("%w: pod %d %q: Demand[%d] = %v", ErrProblem, i, pod.Name, k, x)
			}
		}
		if pod.Node < 0 || pod.Node >= n {
			return fmt.Errorf("%w: pod %d %q: Node %d out of range [0,%d)", ErrProblem, i, pod.Name, pod.Node, n)
		}
		if pod.AffinityOK != nil && len(pod.AffinityOK) != n {
			return fmt.Errorf("%w: pod %d %q: AffinityOK has %d entries, want %d", ErrProblem, i, pod.Name, len(pod.AffinityOK), n)
		}
		if pod.TolerationOK != nil && len(pod.TolerationOK) != n {
			return fmt.Errorf("%w: pod %d %q: TolerationOK has %d entries, want %d", ErrProblem, i, pod.Name, len(pod.TolerationOK), n)
		}
		if pod.DomainOK != nil && len(pod.DomainOK) != n {
			return fmt.Errorf("%w: pod %d %q: DomainOK has %d entries, want %d", ErrProblem, i, pod.Name, len(pod.DomainOK), n)
		}
		if pod.MaxPerNode < 0 || pod.MaxSkew < 0 {
			return fmt.Errorf("%w: pod %d %q: MaxPerNode %d, MaxSkew %d: want ≥ 0", ErrProblem, i, pod.Name, pod.MaxPerNode, pod.MaxSkew)
		}
		if pod.FaultDomain < 0 {
			return fmt.Errorf("%w: pod %d %q: FaultDomain %d: want ≥ 0 (0 = none)", ErrProblem, i, pod.Name, pod.FaultDomain)
		}
		if pod.FaultDomain > 0 && pod.Group < 0 {
			return fmt.Errorf("%w: pod %d %q: FaultDomain %d without a Group: a fault domain belongs to a group's availability set", ErrProblem, i, pod.Name, pod.FaultDomain)
		}
	}
	return nil
}

func mustValidate(p *Problem) {
	if err := Validate(p); err != nil {
		panic(err)
	}
}

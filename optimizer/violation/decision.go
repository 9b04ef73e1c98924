package violation

import "slices"

// Reason says which branch of Algorithm 2 or 3 chose the node.
type Reason string

// The branches, named after the lines of Algorithms 2 and 3.
const (
	// ReasonNoFit: no available node can take the demand (empty
	// configuration space); the tenant is not placed.
	ReasonNoFit Reason = "no-fit"
	// ReasonCandidates: some node has Pr_violation(S_n ∪ {db}) < θ; the
	// secondary heuristic picks among them (Alg 2 line 14, Alg 3 line 21).
	ReasonCandidates Reason = "candidates"
	// ReasonHeldOut: only held-out nodes are below θ; the heuristic picks
	// among them (Alg 3 lines 17–18, 21).
	ReasonHeldOut Reason = "held-out"
	// ReasonCertain: no node is below θ and min_n Delta_n = 1 (placing db
	// anywhere adds a certain violation, so the estimates cannot rank the
	// nodes); the heuristic picks among all feasible nodes (the "OR min
	// Delta = 1" of Alg 2 line 10 and Alg 3 line 20, whose listing then
	// ranges over an empty candidate set).
	ReasonCertain Reason = "certain"
	// ReasonMinDelta: no node is below θ; the node adding the fewest
	// expected violations wins (Alg 2 line 16, Alg 3 line 22), ties by the
	// heuristic, then the lower index.
	ReasonMinDelta Reason = "min-delta"
	// ReasonMinWith: no node is below θ; under FallbackMinWith the node
	// least likely to violate with db wins (least Pr(S_n ∪ {db})), ties
	// by the heuristic, then the lower index.
	ReasonMinWith Reason = "min-with"
)

// NodeEstimate is Algorithm 1's outcome for one feasible node.
type NodeEstimate struct {
	Node int `json:"node"`
	Estimate
}

// Decision records one PrV placement step by step (STYLE habit 5).
type Decision struct {
	Policy  string `json:"policy"`
	Request int64  `json:"request"`
	// Node is the destination, −1 when none.
	Node   int    `json:"node"`
	Reason Reason `json:"reason"`
	// Estimates holds Pr_violation with and without db for every feasible
	// node, ascending by node.
	Estimates []NodeEstimate `json:"estimates"`
	// HeldOut is HeldOut_Nodes of Algorithm 3 (the M nodes of least W).
	HeldOut []int `json:"held_out,omitempty"`
	// Candidates are the nodes not held out with Pr(S_n ∪ {db}) < θ.
	Candidates []int `json:"candidates"`
	// HeldOutCandidates is HeldOut_Cand of Algorithm 3.
	HeldOutCandidates []int `json:"held_out_candidates,omitempty"`
	// Score is W(nodeload + usage_db) of the chosen node, its Delta for
	// ReasonMinDelta, or its Pr(S_n ∪ {db}) for ReasonMinWith.
	Score float64 `json:"score"`
}

func (d *Decision) clone() Decision {
	c := *d
	c.Estimates = slices.Clone(d.Estimates)
	c.HeldOut = slices.Clone(d.HeldOut)
	c.Candidates = slices.Clone(d.Candidates)
	c.HeldOutCandidates = slices.Clone(d.HeldOutCandidates)
	return c
}

package optimizer

// Allocator places service requests on an inventory: the Protean engine and
// the baselines.
type Allocator interface {
	Name() string
	// Allocate places all VMs of req or none (gang allocation).
	Allocate(req *Request) Decision
	// Release removes a departing VM.
	Release(vm VMID) bool
	// State is the allocator's view of the inventory.
	State() *State
}

// Decision is the outcome of one service request.
type Decision struct {
	Request int64
	OK      bool
	// Placements of every VM (on success).
	Placements []Placement
	// Evicted low-priority VMs (on success, when a rule allowed eviction).
	Evicted []Placement
	// FailedVM and Reason say which VM found no machine and which rule
	// emptied its candidate set (on failure).
	FailedVM VMID
	Reason   string
	// Explain holds one explanation per VM tried, when enabled.
	Explain []Explanation
	// Avoided: at least one VM was placed by the conflict-avoidance scheme
	// (a random pick among the top N0 machines) rather than among the best.
	Avoided bool
}

// Reasons reported when no rule is to blame.
const (
	ReasonNoCluster    = "NoValidCluster"
	ReasonBadType      = "UnknownVMType"
	ReasonEmptyRequest = "EmptyRequest"
)

// Explanation is the record of one VM's machine selection (§3.4): how many
// candidates each level started with, how many each rule removed, how many
// were left after each preference rule, and the best machines with their
// per-rule scores. Rule order is the order rules ran in.
type Explanation struct {
	VM VMID
	// Clusters: candidates, removed per cluster validator, and the clusters
	// passed on to machine selection.
	Clusters        int
	ClusterRejected []RuleCount
	Selected        []int32
	// Machines: machines in the selected clusters, removed per machine
	// validator, and left after each preference rule (in rule order).
	Machines   int
	Rejected   []RuleCount
	AfterPrefs []RuleCount
	Top        []Scored
	Chosen     int32 // -1 on failure
	FailedRule string
	// Evictions made for this VM.
	Evicted int
}

// RuleCount is a count attributed to a rule.
type RuleCount struct {
	Rule  string `json:"rule"`
	Count int    `json:"count"`
}

// Scored is a candidate machine with its score per preference rule (and the
// global rule last).
type Scored struct {
	Machine int32   `json:"machine"`
	Scores  []int64 `json:"scores"`
}

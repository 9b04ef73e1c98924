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
	// Gang says, for a request that failed after ORDER (Algorithm 1),
	// what became of each of its VMs; nil on success or when it failed
	// before any VM was tried.
	Gang *GangFailure
	// Avoided: at least one VM was placed by the conflict-avoidance scheme
	// (a random pick among the top N0 machines) rather than among the best.
	Avoided bool
}

// GangFailure is the story of a failed request (gang allocation: all of
// its VMs or none). Order is every VM of the request in the order Algorithm
// 1 tried them (ORDER: largest first, or by fault domain); Order[:Tried-1]
// were placed and then rolled back (on the machines in RolledBack, in the
// same order), Order[Tried-1] is the VM that found no machine
// (Decision.FailedVM, for the rule Decision.Reason), and Order[Tried:] were
// never tried.
type GangFailure struct {
	Order      []VMID
	Tried      int
	RolledBack []int32
}

// Reasons reported when no rule is to blame.
const (
	ReasonNoCluster    = "NoValidCluster"
	ReasonBadType      = "UnknownVMType"
	ReasonEmptyRequest = "EmptyRequest"
	// ReasonBadDomains refuses a request whose availability set Azure
	// would refuse (ValidateDomains: F or U out of range).
	ReasonBadDomains = "BadAvailabilitySet"
)

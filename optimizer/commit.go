package optimizer

import (
	"fmt"
	"sync"
)

// EventKind says what a published change did.
type EventKind uint8

// Event kinds.
const (
	EventPlace EventKind = iota + 1
	EventRemove
	EventEvict
	// EventHealth: machine Machine became healthy (Healthy) or not (an
	// outage); P is unset.
	EventHealth
)

// Event is one committed change to the authoritative inventory, published to
// every agent (the pub/sub stream of §4).
type Event struct {
	Seq   int // position in the stream
	Kind  EventKind
	P     Placement
	Agent int // the agent whose commit made it (-1: the trace, e.g. a departure)
	// Machine and Healthy describe an EventHealth.
	Machine int32
	Healthy bool
}

// CommitResult is the outcome of a commit.
type CommitResult struct {
	OK bool
	// On a conflict: the first machine that refused and why — the rule of
	// the rule set that refused the placement on the authoritative state
	// (with the short dimension for a resource rule), or
	// ConflictEvictionGone.
	Machine   int32
	Rejection Rejection
}

// ConflictEvictionGone is the conflict of a commit whose eviction victim is
// no longer where its agent saw it.
const ConflictEvictionGone = "EvictionTargetGone"

// CommitStore is the authoritative state of the inventory (§4): agents
// decide on their own stale views and commit here. A commit made on an
// outdated view still succeeds when, merged into the current state, every
// placement passes the rule set's validators (fine-grained conflict
// detection, §5.3: the same cluster, machine and request validators the
// agents decide with, applied through a Check); otherwise nothing of it is
// applied. Commits are serialized; every applied change is appended to the
// published stream.
type CommitStore struct {
	mu     sync.Mutex
	env    Env
	cfg    Config
	rules  Rules
	state  *State
	events []Event
	// Commits and Conflicts count commit attempts that succeeded and failed.
	Commits, Conflicts int64
}

// NewCommitStore returns a store over an empty state of inv that checks
// commits with rules under cfg (the agents' rule set and configuration:
// cfg's buffers and oversubscription setting reach the validators).
func NewCommitStore(inv *Inventory, cfg Config, rules Rules) (*CommitStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	cs := &CommitStore{cfg: cfg, rules: rules, state: NewState(inv)}
	if cfg.Oversub != nil {
		cs.state.OversubLimit = cfg.Oversub.MaxOversub
	}
	cs.env = Env{Inv: inv, State: cs.state, Cfg: &cs.cfg}
	return cs, nil
}

// Commit applies a request's placements (and the low-priority evictions its
// agent chose) all or nothing. The placements are checked in order, each
// on the state with the earlier ones applied, as the agent placed them.
func (cs *CommitStore) Commit(agent int, req *Request, placements, evicted []Placement) CommitResult {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	s := cs.state
	kind := resolveKind(s, req, req.Kind)
	// Evictions first: the victims must still be where the agent saw them.
	for _, e := range evicted {
		if p, ok := s.Lookup(e.VM); !ok || p.Machine != e.Machine {
			cs.Conflicts++
			return CommitResult{Machine: e.Machine, Rejection: Rejection{Rule: ConflictEvictionGone, Dim: NoDim}}
		}
	}
	for _, e := range evicted {
		s.Remove(e.VM)
	}
	undo := func(n int) {
		for i := n - 1; i >= 0; i-- {
			s.Remove(placements[i].VM)
		}
		for _, e := range evicted {
			s.Place(e)
		}
	}
	vmOf := vmLookup(req)
	for i, p := range placements {
		v := vmOf(p)
		rej := cs.rules.Check(&cs.env, req, kind, v, p.Machine)
		if fd, ud := VMDomains(req, v); rej.OK() && (fd != p.FaultDomain || ud != p.UpdateDomain) {
			// The placement's recorded domains are not the ones req gives
			// the VM: the state would count the set wrongly.
			rej = Rejection{Rule: RuleAvailabilitySetSpread, Dim: NoDim}
		}
		if !rej.OK() {
			undo(i)
			cs.Conflicts++
			return CommitResult{Machine: p.Machine, Rejection: rej}
		}
		s.Place(p)
	}
	cs.Commits++
	for _, e := range evicted {
		cs.events = append(cs.events, Event{Seq: len(cs.events), Kind: EventEvict, P: e, Agent: agent})
	}
	for _, p := range placements {
		cs.events = append(cs.events, Event{Seq: len(cs.events), Kind: EventPlace, P: p, Agent: agent})
	}
	return CommitResult{OK: true, Rejection: accepted}
}

// vmLookup returns the function that finds the VM of req a placement
// places: by VM id in req.VMs when req is an availability set (the VM's
// SetIndex gives its domains), else rebuilt from the placement's id and
// type (nothing else of a VMRequest is read). A placement of a VM not in
// req gets set index 0.
func vmLookup(req *Request) func(Placement) VMRequest {
	if !req.hasDomains() {
		return func(p Placement) VMRequest { return VMRequest{ID: p.VM, Type: p.Type} }
	}
	idx := make(map[VMID]int, len(req.VMs))
	for i, v := range req.VMs {
		idx[v.ID] = i
	}
	return func(p Placement) VMRequest {
		if i, ok := idx[p.VM]; ok {
			return req.VMs[i]
		}
		return VMRequest{ID: p.VM, Type: p.Type}
	}
}

// Release removes a departing VM and publishes it; false if it is not placed.
func (cs *CommitStore) Release(vm VMID) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p, ok := cs.state.Remove(vm)
	if ok {
		cs.events = append(cs.events, Event{Seq: len(cs.events), Kind: EventRemove, P: p, Agent: -1})
	}
	return ok
}

// SetHealthy changes machine m's health in the authoritative state (an
// outage starting or ending) and publishes it, so every agent's view
// follows. Each state must own its inventory's machine table (agents and
// the store do not share health).
func (cs *CommitStore) SetHealthy(m int32, healthy bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.state.SetHealthy(m, healthy)
	cs.events = append(cs.events, Event{Seq: len(cs.events), Kind: EventHealth, Agent: -1, Machine: m, Healthy: healthy})
}

// Since returns the events after position from (a copy), and the new position.
func (cs *CommitStore) Since(from int) ([]Event, int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if from >= len(cs.events) {
		return nil, from
	}
	out := append([]Event(nil), cs.events[from:]...)
	return out, len(cs.events)
}

// Lookup reports where the authoritative state has a VM.
func (cs *CommitStore) Lookup(vm VMID) (Placement, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.state.Lookup(vm)
}

// CheckInvariants verifies the authoritative state.
func (cs *CommitStore) CheckInvariants() error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if err := cs.state.CheckInvariants(); err != nil {
		return fmt.Errorf("authoritative state: %w", err)
	}
	return nil
}

// WithState runs fn on the authoritative state under the store's lock (for
// metrics and tests; fn must not keep the pointer).
func (cs *CommitStore) WithState(fn func(*State)) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	fn(cs.state)
}

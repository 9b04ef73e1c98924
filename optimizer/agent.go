package optimizer

// Defaults of the conflict-avoidance scheme, as in Protean's production
// settings for the simulations of §6.2.
const (
	DefaultWindow     = 50  // commits in the rolling conflict-ratio window
	DefaultN0         = 100 // machines the avoidance scheme picks among
	DefaultMaxRetries = 20  // retries before a request is rejected
)

// Agent is one allocation agent (§4): a Protean engine over its own view of
// the inventory, brought up to date from the commit store's published
// changes, with the conflict-avoidance scheme of §5.3. An Agent is used by
// one goroutine at a time.
type Agent struct {
	ID     int
	Engine *Protean
	view   *State
	cursor int
	// pending: this agent's placements applied to its view but not yet
	// confirmed by the store.
	pending map[VMID]int32
	// Conflict avoidance: outcomes of the last Window commits (true =
	// conflict); with probability equal to their conflict ratio the agent
	// picks at random among the top N0 machines instead of the best.
	Avoid       bool
	Window, N0  int
	outcomes    []bool
	next, fails int
	// Activations counts requests decided with conflict avoidance on.
	Activations int64
}

// NewAgent returns agent id over its own empty view of inv (with its own
// machine health, which follows the store's EventHealth).
func NewAgent(id int, inv *Inventory, cfg Config, rules Rules) (*Agent, error) {
	view := NewState(inv.WithOwnHealth())
	eng, err := NewProtean(view, cfg, rules)
	if err != nil {
		return nil, err
	}
	return &Agent{ID: id, Engine: eng, view: view, pending: map[VMID]int32{}, Avoid: true,
		Window: DefaultWindow, N0: DefaultN0}, nil
}

// View is the agent's view.
func (a *Agent) View() *State { return a.view }

// Sync consumes the changes the store published since the agent last looked
// into its view (and so into its journal); it returns how many it applied.
func (a *Agent) Sync(cs *CommitStore) int {
	evs, next := cs.Since(a.cursor)
	a.cursor = next
	for _, ev := range evs {
		a.apply(ev)
	}
	return len(evs)
}

func (a *Agent) apply(ev Event) {
	v := a.view
	switch ev.Kind {
	case EventPlace:
		if m, mine := a.pending[ev.P.VM]; mine && ev.Agent == a.ID && m == ev.P.Machine {
			delete(a.pending, ev.P.VM) // our own commit, already in the view
			return
		}
		if old, ok := v.Lookup(ev.P.VM); ok {
			if old.Machine == ev.P.Machine {
				delete(a.pending, ev.P.VM)
				return
			}
			v.Remove(ev.P.VM) // a stale tentative placement of ours
			delete(a.pending, ev.P.VM)
		}
		v.Place(ev.P)
	case EventHealth:
		v.SetHealthy(ev.Machine, ev.Healthy)
	case EventRemove, EventEvict:
		if p, ok := v.Lookup(ev.P.VM); ok && p.Machine == ev.P.Machine {
			v.Remove(ev.P.VM)
			delete(a.pending, ev.P.VM)
		}
	}
}

// Decide runs Algorithm 1 on the agent's view. The placements stay in the
// view as pending until Resolve learns the commit's outcome.
func (a *Agent) Decide(req *Request) Decision {
	prob := 0.0
	if a.Avoid {
		prob = a.ConflictRatio()
	}
	a.Engine.setAvoidance(prob, a.N0)
	d := a.Engine.Allocate(req)
	if d.Avoided {
		a.Activations++
	}
	for _, p := range d.Placements {
		a.pending[p.VM] = p.Machine
	}
	return d
}

// Resolve records a commit's outcome. On a conflict the request's
// placements are taken back out of the view and the VMs it meant to evict
// are put back if the store still has them where they were.
func (a *Agent) Resolve(cs *CommitStore, d Decision, res CommitResult) {
	a.record(!res.OK)
	if res.OK {
		return
	}
	for _, p := range d.Placements {
		if m, ok := a.pending[p.VM]; ok && m == p.Machine {
			a.view.Remove(p.VM)
			delete(a.pending, p.VM)
		}
	}
	for _, e := range d.Evicted {
		if p, ok := cs.Lookup(e.VM); ok && p.Machine == e.Machine {
			if _, in := a.view.Lookup(e.VM); !in {
				a.view.Place(e)
			}
		}
	}
}

// ConflictRatio is the share of conflicts in the rolling window.
func (a *Agent) ConflictRatio() float64 {
	if len(a.outcomes) == 0 {
		return 0
	}
	return float64(a.fails) / float64(len(a.outcomes))
}

func (a *Agent) record(conflict bool) {
	if a.Window <= 0 {
		return
	}
	if len(a.outcomes) < a.Window {
		a.outcomes = append(a.outcomes, conflict)
	} else {
		if a.outcomes[a.next] {
			a.fails--
		}
		a.outcomes[a.next] = conflict
		a.next = (a.next + 1) % a.Window
	}
	if conflict {
		a.fails++
	}
}

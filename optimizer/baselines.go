package optimizer

import (
	"fmt"
	"math/rand/v2"
)

// Policy names a baseline placement policy.
type Policy string

// The baselines Protean is judged against.
const (
	FirstFit Policy = "firstfit" // the lowest-numbered machine that fits
	BestFitP Policy = "bestfit"  // the machine minimizing BestFitScore, unquantized
	WorstFit Policy = "worstfit" // the machine maximizing BestFitScore
	Random   Policy = "random"   // a uniformly random machine that fits (seeded)
)

// Baseline is a simple scan-all-machines allocator. It applies the same hard
// constraints as Protean's validators (type support, resources in every
// dimension, health, isolation, tenant anti-colocation) but no cluster
// selection, buffers or caches, and allocates service requests all or
// nothing.
type Baseline struct {
	policy Policy
	state  *State
	w      Vec
	seed   uint64
	pcg    *rand.PCG
	rng    *rand.Rand
}

var _ Allocator = (*Baseline)(nil)

// NewBaseline returns a baseline allocator; weights are BestFit's scarcity
// weights (used by bestfit and worstfit).
func NewBaseline(policy Policy, state *State, weights Vec, seed uint64) (*Baseline, error) {
	switch policy {
	case FirstFit, BestFitP, WorstFit, Random:
	default:
		return nil, fmt.Errorf("%w: unknown policy %q", ErrBadRequest, policy)
	}
	pcg := rand.NewPCG(seed, 0)
	return &Baseline{policy: policy, state: state, w: weights, seed: seed, pcg: pcg, rng: rand.New(pcg)}, nil
}

// Name is the policy name.
func (b *Baseline) Name() string { return string(b.policy) }

// State is the allocator's state.
func (b *Baseline) State() *State { return b.state }

// Release removes a departing VM.
func (b *Baseline) Release(vm VMID) bool {
	_, ok := b.state.Remove(vm)
	return ok
}

// Allocate places every VM of req or none.
func (b *Baseline) Allocate(req *Request) Decision {
	d := Decision{Request: req.ID}
	if len(req.VMs) == 0 {
		d.Reason = ReasonEmptyRequest
		return d
	}
	b.pcg.Seed(b.seed, uint64(req.ID))
	for _, v := range orderVMs(b.state.Inv, req.VMs) {
		m, reason := b.choose(req, v)
		if m < 0 {
			for i := len(d.Placements) - 1; i >= 0; i-- {
				b.state.Remove(d.Placements[i].VM)
			}
			d.Placements = nil
			d.FailedVM, d.Reason = v.ID, reason
			return d
		}
		pl := placementFor(b.state.Inv, req, v, m)
		b.state.Place(pl)
		d.Placements = append(d.Placements, pl)
	}
	d.OK = true
	return d
}

// feasible reports whether VM v of req may go on machine m, and if not,
// the first constraint that fails (named like Protean's rules).
func feasible(s *State, req *Request, v VMRequest, m int32) (bool, string) {
	inv := s.Inv
	d, sup := inv.Demand(v.Type, m)
	switch {
	case !sup:
		return false, IsTypeSupported{}.Name()
	case !inv.Machines[m].Healthy:
		return false, IsMachineHealthy{}.Name()
	case req.Isolation && s.Count[m] > 0, !req.Isolation && s.Exclusive[m] >= 0:
		return false, RequireIsolation{}.Name()
	case !Fits(d, s.Free(m)):
		return false, AreNodeResourcesValid{}.Name()
	case !antiColocationOK(s, req, m):
		return false, TenantAntiColocation{}.Name()
	}
	return true, ""
}

func (b *Baseline) choose(req *Request, v VMRequest) (int32, string) {
	if v.Type < 0 || int(v.Type) >= len(b.state.Inv.Types) {
		return -1, ReasonBadType
	}
	s := b.state
	inv := s.Inv
	best := int32(-1)
	var bestScore float64
	n := 0
	var counts [8]int
	names := []string{IsTypeSupported{}.Name(), IsMachineHealthy{}.Name(), RequireIsolation{}.Name(), AreNodeResourcesValid{}.Name(), TenantAntiColocation{}.Name()}
	for i := range inv.Machines {
		m := int32(i)
		ok, why := feasible(s, req, v, m)
		if !ok {
			for k, nm := range names {
				if nm == why {
					counts[k]++
				}
			}
			continue
		}
		switch b.policy {
		case FirstFit:
			return m, ""
		case Random: // reservoir sampling: uniform over feasible machines
			n++
			if b.rng.IntN(n) == 0 {
				best = m
			}
		case BestFitP, WorstFit:
			d, _ := inv.Demand(v.Type, m)
			sc := BestFitScore(s.Free(m), d, inv.Capacity(m), b.w)
			if b.policy == WorstFit {
				sc = -sc
			}
			if best < 0 || sc < bestScore {
				best, bestScore = m, sc
			}
		}
	}
	if best >= 0 {
		return best, ""
	}
	// The set emptied at the last constraint that removed machines.
	for k := len(names) - 1; k >= 0; k-- {
		if counts[k] > 0 {
			return -1, names[k]
		}
	}
	return -1, ReasonNoCluster
}

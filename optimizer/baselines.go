package optimizer

import (
	"fmt"
	"math/rand/v2"
)

// Policy names a baseline placement policy.
type Policy string

// The baselines Protean is judged against.
const (
	FirstFit Policy = "firstfit" // the lowest-numbered machine the rules accept
	BestFitP Policy = "bestfit"  // the machine minimizing BestFitScore, unquantized
	WorstFit Policy = "worstfit" // the machine maximizing BestFitScore
	Random   Policy = "random"   // a uniformly random machine the rules accept (seeded)
)

// Baseline is a scan-all-machines allocator that differs from Protean only
// in how it orders the machines the rule set accepts. It applies the same
// rule set's validators (cluster validators — type support, health, the
// cluster buffers of Config.Buffers —, machine validators — health,
// isolation, resources or CPUOversubscription under Config.Oversub — and
// request validators such as tenant anti-colocation) through a Check,
// allocates service requests all or nothing with the same gang allocation,
// and with Config.Evict evicts low-priority VMs for a high-priority VM no
// machine takes exactly as Protean does (the same evictFor, balanced by
// Config.TopPct and Config.Weights). Config.Weights also drive bestfit and
// worstfit, Config.Seed the random policy, Config.Explain its explanations
// (candidates and removals per rule, the short dimensions of a failure; no
// preference scores: a baseline has none).
//
// It has no cluster selection, preference rules or caches, so it cannot
// honour K, Buckets, RackBuckets, Cache, RulePool, EvalPool, MaxAge, TopK,
// Safety or ArrivalRates: Config.ValidateFor refuses a configuration that
// sets them for a baseline, and IgnoredFields lists them.
type Baseline struct {
	policy Policy
	env    Env
	cfg    Config
	rules  Rules
	pcg    *rand.PCG
	rng    *rand.Rand
}

var _ Allocator = (*Baseline)(nil)

// NewBaseline returns a baseline allocator over state with the rule set and
// configuration a Protean engine would get (cfg must pass
// cfg.ValidateFor(policy)).
func NewBaseline(policy Policy, state *State, cfg Config, rules Rules) (*Baseline, error) {
	if PolicyHonour(string(policy)) != HonourBaselines {
		return nil, fmt.Errorf("%w: unknown policy %q", ErrBadRequest, policy)
	}
	if err := cfg.ValidateFor(string(policy)); err != nil {
		return nil, err
	}
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if err := rules.refuseFor(policy); err != nil {
		return nil, err
	}
	if cfg.Oversub != nil {
		state.OversubLimit = cfg.Oversub.MaxOversub
	}
	pcg := rand.NewPCG(cfg.Seed, 0)
	b := &Baseline{policy: policy, cfg: cfg, rules: rules, pcg: pcg, rng: rand.New(pcg)}
	b.env = Env{Inv: state.Inv, State: state, Cfg: &b.cfg}
	return b, nil
}

// Name is the policy name.
func (b *Baseline) Name() string { return string(b.policy) }

// State is the allocator's state.
func (b *Baseline) State() *State { return b.env.State }

// Release removes a departing VM.
func (b *Baseline) Release(vm VMID) bool {
	_, ok := b.env.State.Remove(vm)
	return ok
}

// Allocate places every VM of req or none (allocateGang).
func (b *Baseline) Allocate(req *Request) Decision {
	b.pcg.Seed(b.cfg.Seed, uint64(req.ID))
	return allocateGang(b.env.State, req, &b.cfg, b)
}

func (b *Baseline) newExplanation(vm VMID) Explanation {
	return Explanation{VM: vm, Chosen: -1}
}

// placeVM is the baseline's per-VM stage: the policy's choice among the
// machines the rule set accepts, then the eviction fallback.
func (b *Baseline) placeVM(req *Request, kind RequestKind, v VMRequest, ex *Explanation, d *Decision) (int32, string) {
	m, reason := b.choose(req, kind, v, ex)
	if m < 0 {
		m = evictFallback(&b.env, &b.rules, req, kind, v, ex, d)
	}
	return m, reason
}

// choose scans every machine in index order, keeps those the Check
// accepts, and picks by the policy; on failure it names the rule that
// emptied the candidate set (the last one, in rule order, that removed any
// machine), as Protean does.
func (b *Baseline) choose(req *Request, kind RequestKind, v VMRequest, ex *Explanation) (int32, string) {
	env := &b.env
	s, inv := env.State, env.Inv
	chk := NewCheck(env, &b.rules, req, kind, v)
	ncv, nmv := len(b.rules.ClusterValidators), len(b.rules.Validators)
	var clusterRej [maxValidators]int
	var machineRej [2 * maxValidators]int
	machines := 0
	for c := range inv.Clusters {
		if i := chk.clusterRule(int32(c)); i >= 0 {
			clusterRej[i]++
		} else {
			machines += len(inv.Clusters[c].Machines)
		}
	}
	best := int32(-1)
	var bestScore float64
	n := 0
scan:
	for i := range inv.Machines {
		m := int32(i)
		if chk.clusterRule(inv.Machines[m].Cluster) >= 0 {
			continue
		}
		if r := chk.machineRule(m); r >= 0 {
			machineRej[r]++
			continue
		}
		switch b.policy {
		case FirstFit:
			if best < 0 {
				best = m
			}
			if !ex.recording() {
				break scan // with explanations on, the scan goes on to count every rule's removals
			}
		case Random: // reservoir sampling: uniform over feasible machines
			n++
			if b.rng.IntN(n) == 0 {
				best = m
			}
		case BestFitP, WorstFit:
			d, _ := inv.Demand(v.Type, m)
			sc := BestFitScore(s.Free(m), d, inv.Capacity(m), b.cfg.Weights)
			if b.policy == WorstFit {
				sc = -sc
			}
			if best < 0 || sc < bestScore {
				best, bestScore = m, sc
			}
		}
	}
	reason := ""
	if best < 0 {
		// The set emptied at the last rule that removed machines.
		reason = ReasonNoCluster
		for i := ncv - 1; i >= 0; i-- {
			if clusterRej[i] > 0 {
				reason = b.rules.ClusterValidators[i].Name()
				break
			}
		}
		if machines > 0 {
			for i := nmv + len(b.rules.Request) - 1; i >= 0; i-- {
				if machineRej[i] > 0 {
					if i < nmv {
						reason = b.rules.Validators[i].Name()
					} else {
						reason = b.rules.Request[i-nmv].Name()
					}
					break
				}
			}
		}
	}
	ex.baseline(b, chk, machines, &clusterRej, &machineRej, best, reason)
	return best, reason
}

// explain records choose's counts in ex (Explanation.baseline).
func (b *Baseline) explain(ex *Explanation, chk *Check, machines int, clusterRej *[maxValidators]int, machineRej *[2 * maxValidators]int, best int32, reason string) {
	ncv, nmv := len(b.rules.ClusterValidators), len(b.rules.Validators)
	ex.Clusters, ex.Machines = len(b.env.Inv.Clusters), machines
	if ex.ClusterRejected == nil && ex.Rejected == nil {
		ex.ClusterRejected = make([]RuleCount, 0, ncv)
		ex.Rejected = make([]RuleCount, 0, nmv+len(b.rules.Request))
	}
	for i, cv := range b.rules.ClusterValidators {
		ex.ClusterRejected = append(ex.ClusterRejected, RuleCount{cv.Name(), clusterRej[i]})
	}
	for i, mv := range b.rules.Validators {
		ex.Rejected = append(ex.Rejected, RuleCount{mv.Name(), machineRej[i]})
	}
	for i, rv := range b.rules.Request {
		ex.Rejected = append(ex.Rejected, RuleCount{rv.Name(), machineRej[nmv+i]})
	}
	if best >= 0 {
		ex.Pick = string(b.policy)
	} else {
		ex.FailedRule = reason
		ex.Short = b.shortDims(chk)
	}
}

// shortDims counts, over the machines a resource validator refused, the
// first short dimension (a second scan, on the failure path only).
func (b *Baseline) shortDims(chk *Check) []DimCount {
	var short [NumDims]int
	for i := range b.env.Inv.Machines {
		m := int32(i)
		if chk.clusterRule(b.env.Inv.Machines[m].Cluster) >= 0 {
			continue
		}
		if r := chk.machineRule(m); r >= 0 && r < len(chk.machine) {
			if rv, ok := chk.machine[r].(ResourceValidator); ok {
				if d := rv.Short(m); d != NoDim {
					short[d]++
				}
			}
		}
	}
	var out []DimCount
	for d, k := range short {
		if k > 0 {
			out = append(out, DimCount{Dim(d), k})
		}
	}
	return out
}

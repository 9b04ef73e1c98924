package optimizer

import (
	"cmp"
	"fmt"
	"slices"
)

// Move is one recommended migration.
type Move struct {
	VM       VMID  `json:"vm_id"`
	From, To int32 `json:"-"`
}

// MigrationPlan is the what-if analysis of §6.3: moves that raise packing
// density, with the density before and after.
type MigrationPlan struct {
	Moves          []Move
	DensityBefore  float64
	DensityAfter   float64
	MachinesFreed  int
	CandidatesSeen int
}

// PackingDensity is Protean §6.3's packing density of a state: allocated
// cores over the cores of non-empty machines (0 when all are empty).
func PackingDensity(s *State) float64 {
	var used, nonEmpty float64
	for m := range s.Inv.Machines {
		if s.Count[m] > 0 {
			used += s.Used[m][Cores]
			nonEmpty += s.Inv.Capacity(int32(m))[Cores]
		}
	}
	if nonEmpty == 0 {
		return 0
	}
	return used / nonEmpty
}

// migrateCandidates is how many of the least-used machines each greedy step
// considers emptying.
const migrateCandidates = 256

// PlanMigrations finds fragmented machines and the VM moves that raise
// packing density most per move, within a budget of moves (0: no budget).
// Density rises only when a machine empties (its cores leave the
// denominator), so each step tries to empty one of the least-used non-empty
// machines: its VMs go, largest first, to the best-fitting (BestFitScore
// with cfg.Weights) other non-empty machine that the rule set's validators
// accept for them — the same Check the baselines and the commit store use,
// with each VM's request rebuilt from its Placement (tenant, type,
// priority, isolation, production, availability-set domains; a move is a
// scale-out of the tenant). Anti-colocation bounds are not part of a
// Placement, so they do not constrain moves; the VM's fault and update
// domains are, so moves keep the availability set spread. The step with the best density gain per move is
// applied; the state is changed in place.
func PlanMigrations(s *State, cfg Config, rules Rules, budget int) (MigrationPlan, error) {
	if err := cfg.Validate(); err != nil {
		return MigrationPlan{}, err
	}
	if err := rules.Validate(); err != nil {
		return MigrationPlan{}, err
	}
	if budget < 0 {
		return MigrationPlan{}, fmt.Errorf("%w: migration budget %d, want ≥ 0 (0 = none)", ErrBadRequest, budget)
	}
	env := &Env{Inv: s.Inv, State: s, Cfg: &cfg}
	plan := MigrationPlan{DensityBefore: PackingDensity(s)}
	inv := s.Inv
	for budget == 0 || len(plan.Moves) < budget {
		var cands []int32
		for m := range inv.Machines {
			if s.Count[m] > 0 {
				cands = append(cands, int32(m))
			}
		}
		slices.SortFunc(cands, func(a, b int32) int {
			ua, ub := s.Used[a][Cores]/inv.Capacity(a)[Cores], s.Used[b][Cores]/inv.Capacity(b)[Cores]
			if ua != ub {
				return cmp.Compare(ua, ub)
			}
			return int(a - b)
		})
		if len(cands) > migrateCandidates {
			cands = cands[:migrateCandidates]
		}
		base := PackingDensity(s)
		var best []Move
		bestGain := 0.0
		for _, src := range cands {
			plan.CandidatesSeen++
			n := int(s.Count[src])
			if budget > 0 && len(plan.Moves)+n > budget {
				continue
			}
			moves, ok := emptyMachine(env, &rules, src)
			if !ok {
				continue
			}
			gain := (PackingDensity(s) - base) / float64(len(moves))
			undo(s, moves)
			if gain > bestGain+1e-12 {
				best, bestGain = moves, gain
			}
		}
		if best == nil {
			break
		}
		for _, mv := range best {
			move(s, mv.VM, mv.To)
		}
		plan.Moves = append(plan.Moves, best...)
		plan.MachinesFreed++
	}
	plan.DensityAfter = PackingDensity(s)
	return plan, nil
}

// requestOf rebuilds the request context of a placed VM: what the
// validators read about the request that placed it, its availability set
// included (Placement.SetF, SetU, SetIndex).
func requestOf(p Placement) *Request {
	return &Request{ID: p.VM, Tenant: p.Tenant, Priority: p.Priority, Isolation: p.Exclusive, Production: p.Production,
		UtilBucket: p.UtilBucket, LifetimeBucket: p.LifetimeBucket, Kind: KindScaleOut,
		FaultDomains: int32(p.SetF), UpdateDomains: int32(p.SetU),
		MaxPerRack: p.MaxPerRack, MaxPerMachine: p.MaxPerMachine, MaxSkew: p.MaxSkew,
		LifeClass: LifeClassOf(p.Life.RemainingMedian(0)), Time: p.Start,
		VMs: []VMRequest{{ID: p.VM, Type: p.Type, SetIndex: p.SetIndex, Affinity: p.Affinity, Tolerated: p.Tolerated, Life: p.Life}}}
}

// emptyMachine moves every VM off src (largest first, best fit among the
// other non-empty machines the rule set accepts); on failure it restores
// the state and returns false.
func emptyMachine(env *Env, rules *Rules, src int32) ([]Move, bool) {
	s := env.State
	inv := s.Inv
	var ps []Placement
	for _, vm := range s.VMsOn(src) {
		p, _ := s.Lookup(vm)
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Placement) int {
		if a.Demand[Cores] != b.Demand[Cores] {
			return cmp.Compare(b.Demand[Cores], a.Demand[Cores])
		}
		return int(a.VM - b.VM)
	})
	var moves []Move
	for _, p := range ps {
		req := requestOf(p)
		chk := NewCheck(env, rules, req, req.Kind, req.VMs[0])
		to, bestS := int32(-1), 0.0
		for m := range inv.Machines {
			dst := int32(m)
			if dst == src || s.Count[dst] == 0 || !chk.Machine(dst).OK() {
				continue
			}
			d, _ := inv.Demand(p.Type, dst)
			sc := BestFitScore(s.Free(dst), d, inv.Capacity(dst), env.Cfg.Weights)
			if to < 0 || sc < bestS {
				to, bestS = dst, sc
			}
		}
		if to < 0 {
			undo(s, moves)
			return nil, false
		}
		move(s, p.VM, to)
		moves = append(moves, Move{VM: p.VM, From: src, To: to})
	}
	return moves, true
}

// move puts a placed VM on machine to, with its demand on to's SKU.
func move(s *State, vm VMID, to int32) {
	p, _ := s.Remove(vm)
	p.Machine = to
	p.Demand, _ = s.Inv.Demand(p.Type, to)
	s.Place(p)
}

// undo reverses moves (last first).
func undo(s *State, moves []Move) {
	for i := len(moves) - 1; i >= 0; i-- {
		move(s, moves[i].VM, moves[i].From)
	}
}

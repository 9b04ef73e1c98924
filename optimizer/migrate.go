package optimizer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Move is one recommended migration.
type Move struct {
	VM       VMID  `json:"vm_id"`
	From, To int32 `json:"-"`
}

// MigrationPlan is the what-if analysis of §6.3: moves that raise packing
// density, with the density before and after. Removed are the machines
// the plan empties, in order; Dropped the pinned VMs (PinNode: a
// DaemonSet's pods) that leave with them.
type MigrationPlan struct {
	Moves          []Move
	Removed        []int32
	Dropped        []VMID
	DensityBefore  float64
	DensityAfter   float64
	MachinesFreed  int
	CandidatesSeen int
}

// PackingDensity is Protean §6.3's packing density of a state: allocated
// cores over the cores of non-empty machines (0 when all are empty).
func PackingDensity(s *State) float64 {
	used, nonEmpty := densityTerms(s)
	if nonEmpty == 0 {
		return 0
	}
	return used / nonEmpty
}

// densityTerms are PackingDensity's numerator and denominator.
func densityTerms(s *State) (used, nonEmpty float64) {
	for m := range s.Inv.Machines {
		if s.Count[m] > 0 {
			used += s.Used[m][Cores]
			nonEmpty += s.Inv.Capacity(int32(m))[Cores]
		}
	}
	return used, nonEmpty
}

// migrateCandidates is how many of the least-used machines each greedy step
// considers emptying.
const migrateCandidates = 256

// PlanMigrations finds fragmented machines and the VM moves that raise
// packing density most per move, within a budget of moves (0: no budget).
// Density rises only when a machine empties (its cores leave the
// denominator), so each step tries to empty one of the least-used machines
// holding a VM that may move: its movable VMs go, largest first, to the
// best-fitting (BestFitScore with cfg.Weights) other non-empty machine
// that the rule set's validators accept for them — the same Check the
// baselines, the commit store and eviction use, with each VM's request
// rebuilt from its whole Placement (RequestOf: tenant, type, priority,
// isolation, production, node sets, tenant bounds, availability-set
// domains; a move is a scale-out of the tenant), asked with the VM taken
// off its machine, as a move deletes it before it is created again.
//
// Pinned VMs never move (Placement.Pin): a machine holding a static pod
// is never emptied, and a DaemonSet's pod leaves with its machine once the
// rest have moved (Dropped), as a drained node's DaemonSet pods do. A VM
// bounded by a topology spread (MaxSkew) moves only within its cluster:
// leaving its zone could raise the skew its tenant's other VMs were placed
// under, which no check at the destination sees. A VM moves at most
// once: a machine that received a moved VM is not emptied. The step with
// the best density gain per move is applied; the state is changed in
// place.
func PlanMigrations(s *State, cfg Config, rules Rules, budget int) (MigrationPlan, error) {
	return PlanMigrationsWith(context.Background(), s, cfg, rules, MigrateOptions{Budget: budget})
}

// MigrateOptions tune PlanMigrationsWith.
type MigrateOptions struct {
	// Budget bounds the moves (0: none).
	Budget int
	// Progress, when set, is told after each emptied machine how many
	// machines and moves the plan has so far.
	Progress func(freed, moves int)
}

// PlanMigrationsWith is PlanMigrations with a context (a cancelled plan
// returns the context's error and leaves the state as far as it got) and
// progress.
func PlanMigrationsWith(ctx context.Context, s *State, cfg Config, rules Rules, o MigrateOptions) (MigrationPlan, error) {
	budget := o.Budget
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
	// moved: the VMs the plan moves. Each moves at most once: a machine
	// that received one is not emptied, so Moves lists a VM once, from
	// where it was to where the plan leaves it.
	moved := map[VMID]bool{}
	for budget == 0 || len(plan.Moves) < budget {
		if err := ctx.Err(); err != nil {
			return plan, err
		}
		var cands []int32
		for m := range inv.Machines {
			if movable, static := pinsOn(s, int32(m)); movable > 0 && !static && !holdsMoved(s, int32(m), moved) {
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
		var bestSrc int32 = -1
		bestGain := 0.0
		for _, src := range cands {
			plan.CandidatesSeen++
			n, _ := pinsOn(s, src)
			if budget > 0 && len(plan.Moves)+n > budget {
				continue
			}
			moves, ok := emptyMachine(env, &rules, src)
			if !ok {
				continue
			}
			// src now holds only its DaemonSet pods, which go with it.
			used, nonEmpty := densityTerms(s)
			used -= s.Used[src][Cores]
			nonEmpty -= inv.Capacity(src)[Cores]
			after := 0.0
			if nonEmpty > 0 {
				after = used / nonEmpty
			}
			gain := (after - base) / float64(len(moves))
			undo(s, moves)
			if gain > bestGain+1e-12 {
				best, bestSrc, bestGain = moves, src, gain
			}
		}
		if best == nil {
			break
		}
		for _, mv := range best {
			move(s, mv.VM, mv.To)
			moved[mv.VM] = true
		}
		for _, vm := range slices.Clone(s.VMsOn(bestSrc)) {
			s.Remove(vm)
			plan.Dropped = append(plan.Dropped, vm)
		}
		plan.Moves = append(plan.Moves, best...)
		plan.Removed = append(plan.Removed, bestSrc)
		plan.MachinesFreed++
		if o.Progress != nil {
			o.Progress(plan.MachinesFreed, len(plan.Moves))
		}
	}
	plan.DensityAfter = PackingDensity(s)
	return plan, nil
}

// holdsMoved reports whether machine m holds a VM of moved.
func holdsMoved(s *State, m int32, moved map[VMID]bool) bool {
	for _, vm := range s.VMsOn(m) {
		if moved[vm] {
			return true
		}
	}
	return false
}

// pinsOn counts the VMs on m that may move and says whether a static pod
// holds m.
func pinsOn(s *State, m int32) (movable int, static bool) {
	for _, vm := range s.VMsOn(m) {
		p, _ := s.Lookup(vm)
		switch p.Pin {
		case PinNone:
			movable++
		case PinStatic:
			static = true
		}
	}
	return movable, static
}

// RequestOf rebuilds the request context of a placed VM: what the
// validators read about the request that placed it, its availability set
// included (Placement.SetF, SetU, SetIndex). Every planner that asks the
// rules about a placed VM asks with it.
func RequestOf(p Placement) *Request {
	return &Request{ID: p.VM, Tenant: p.Tenant, Priority: p.Priority, Isolation: p.Exclusive, Production: p.Production,
		UtilBucket: p.UtilBucket, LifetimeBucket: p.LifetimeBucket, Kind: KindScaleOut,
		FaultDomains: int32(p.SetF), UpdateDomains: int32(p.SetU),
		MaxPerRack: p.MaxPerRack, MaxPerMachine: p.MaxPerMachine, MaxSkew: p.MaxSkew,
		LifeClass: LifeClassOf(p.Life.RemainingMedian(0)), Time: p.Start,
		VMs: []VMRequest{{ID: p.VM, Type: p.Type, SetIndex: p.SetIndex, Affinity: p.Affinity, Tolerated: p.Tolerated, Life: p.Life}}}
}

// MoveCheck asks the rule set whether placed VM p may move to machine dst:
// p is taken off its machine for the question and put back after, so the
// rules see the state the move would meet (its own share of capacity,
// tenant counts and domains gone).
func MoveCheck(env *Env, rules *Rules, p Placement, dst int32) Rejection {
	s := env.State
	s.Remove(p.VM)
	defer s.Place(p)
	req := RequestOf(p)
	return NewCheck(env, rules, req, req.Kind, req.VMs[0]).Machine(dst)
}

// emptyMachine moves every movable VM off src (largest first, best fit
// among the other non-empty machines the rule set accepts); on failure it
// restores the state and returns false.
func emptyMachine(env *Env, rules *Rules, src int32) ([]Move, bool) {
	s := env.State
	inv := s.Inv
	var ps []Placement
	for _, vm := range s.VMsOn(src) {
		if p, _ := s.Lookup(vm); p.Pin == PinNone {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b Placement) int {
		if a.Demand[Cores] != b.Demand[Cores] {
			return cmp.Compare(b.Demand[Cores], a.Demand[Cores])
		}
		return int(a.VM - b.VM)
	})
	var moves []Move
	for _, p := range ps {
		s.Remove(p.VM) // asked as the move meets the state (MoveCheck)
		req := RequestOf(p)
		chk := NewCheck(env, rules, req, req.Kind, req.VMs[0])
		cluster := inv.Machines[src].Cluster
		to, bestS := int32(-1), 0.0
		for m := range inv.Machines {
			dst := int32(m)
			if dst == src || s.Count[dst] == 0 || (p.MaxSkew > 0 && inv.Machines[m].Cluster != cluster) || !chk.Machine(dst).OK() {
				continue
			}
			d, _ := inv.Demand(p.Type, dst)
			sc := BestFitScore(s.Free(dst), d, inv.Capacity(dst), env.Cfg.Weights)
			if to < 0 || sc < bestS {
				to, bestS = dst, sc
			}
		}
		s.Place(p)
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

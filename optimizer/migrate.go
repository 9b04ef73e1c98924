package optimizer

import (
	"cmp"
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
// machines: its VMs go, largest first, to the best-fitting other non-empty
// machine that takes them under every hard constraint (type support,
// resources in all dimensions, health, isolation). The step with the best
// density gain per move is applied; the state is changed in place.
func PlanMigrations(s *State, w Vec, budget int) MigrationPlan {
	plan := MigrationPlan{DensityBefore: PackingDensity(s)}
	inv := s.Inv
	for budget == 0 || len(plan.Moves) < budget {
		var cands []int32
		for m := range inv.Machines {
			if s.Count[m] > 0 && s.Exclusive[m] < 0 {
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
			moves, ok := emptyMachine(s, src, w)
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
			p, _ := s.Remove(mv.VM)
			p.Machine = mv.To
			p.Demand, _ = inv.Demand(p.Type, mv.To)
			s.Place(p)
		}
		plan.Moves = append(plan.Moves, best...)
		plan.MachinesFreed++
	}
	plan.DensityAfter = PackingDensity(s)
	return plan
}

// emptyMachine moves every VM off src (largest first, best fit among other
// non-empty machines); on failure it restores the state and returns false.
func emptyMachine(s *State, src int32, w Vec) ([]Move, bool) {
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
		to, bestS := int32(-1), 0.0
		for m := range inv.Machines {
			dst := int32(m)
			if dst == src || s.Count[dst] == 0 || !inv.Machines[dst].Healthy {
				continue
			}
			d, sup := inv.Demand(p.Type, dst)
			if !sup || p.Exclusive || s.Exclusive[dst] >= 0 || !Fits(d, s.Free(dst)) {
				continue
			}
			sc := BestFitScore(s.Free(dst), d, inv.Capacity(dst), w)
			if to < 0 || sc < bestS {
				to, bestS = dst, sc
			}
		}
		if to < 0 {
			undo(s, moves)
			return nil, false
		}
		q, _ := s.Remove(p.VM)
		q.Machine = to
		q.Demand, _ = inv.Demand(p.Type, to)
		s.Place(q)
		moves = append(moves, Move{VM: p.VM, From: src, To: to})
	}
	return moves, true
}

// undo reverses moves (last first).
func undo(s *State, moves []Move) {
	for i := len(moves) - 1; i >= 0; i-- {
		mv := moves[i]
		p, _ := s.Remove(mv.VM)
		p.Machine = mv.From
		p.Demand, _ = s.Inv.Demand(p.Type, mv.From)
		s.Place(p)
	}
}

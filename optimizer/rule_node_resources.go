package optimizer

// RuleAreNodeResourcesValid names AreNodeResourcesValid.
const RuleAreNodeResourcesValid = "AreNodeResourcesValid"

// AreNodeResourcesValid is the machine validator AreNodeResourcesValid(x, v)
// (§3.2): v's type runs on x's SKU and machine x has enough free capacity
// for v in every dimension,
//
//	∀i: dᵢ(v, sku(x)) ≤ cᵢ(x) − uᵢ(x).
//
// It depends on the VM type trait. When it refuses a machine for capacity,
// Short names the first dimension that is short.
type AreNodeResourcesValid struct{}

var _ MachineValidatorRule = AreNodeResourcesValid{}

func (AreNodeResourcesValid) Name() string    { return RuleAreNodeResourcesValid }
func (AreNodeResourcesValid) Traits() []Trait { return []Trait{TraitType} }

// TypeByShape is true: the rule reads the type only through its demand and
// supported SKUs.
func (AreNodeResourcesValid) TypeByShape() bool { return true }

func (AreNodeResourcesValid) NewValidator(env *Env, t Traits) MachineValidator {
	ty := &env.Inv.Types[t[TraitType]]
	return &nodeResources{state: env.State, inv: env.Inv, demand: ty.Demand, supported: ty.Supported}
}

type nodeResources struct {
	state     *State
	inv       *Inventory
	demand    []Vec
	supported []bool
}

var _ ResourceValidator = (*nodeResources)(nil)

func (r *nodeResources) IsValid(m int32) bool {
	s := r.inv.Machines[m].SKU
	return r.supported[s] && Fits(r.demand[s], r.state.Free(m))
}

func (r *nodeResources) Short(m int32) Dim {
	s := r.inv.Machines[m].SKU
	if !r.supported[s] {
		return NoDim
	}
	return FirstShort(r.demand[s], r.state.Free(m))
}

// NodeResourcesFit is AreNodeResourcesValid's predicate for VM type t on
// machine m of state s: whether it fits, and if not the first short
// dimension (NoDim when m's SKU cannot run t at all).
func NodeResourcesFit(s *State, t, m int32) (bool, Dim) {
	d, ok := s.Inv.Demand(t, m)
	if !ok {
		return false, NoDim
	}
	short := FirstShort(d, s.Free(m))
	return short == NoDim, short
}

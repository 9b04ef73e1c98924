package optimizer

// AreNodeResourcesValid is the machine validator AreNodeResourcesValid(x, v)
// (§3.2): machine x has enough free capacity for v in every dimension,
//
//	∀i: dᵢ(v, sku(x)) ≤ cᵢ(x) − uᵢ(x),
//
// and v's type runs on x's SKU. It depends on the VM type trait.
type AreNodeResourcesValid struct{}

var _ MachineValidatorRule = AreNodeResourcesValid{}

func (AreNodeResourcesValid) Name() string    { return "AreNodeResourcesValid" }
func (AreNodeResourcesValid) Traits() []Trait { return []Trait{TraitType} }

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

func (r *nodeResources) IsValid(m int32) bool {
	s := r.inv.Machines[m].SKU
	return r.supported[s] && Fits(r.demand[s], r.state.Free(m))
}

package optimizer

// IsMachineHealthy is the machine validator for health/ready state: only
// healthy machines take new VMs (§3.1, tenant experience).
type IsMachineHealthy struct{}

var _ MachineValidatorRule = IsMachineHealthy{}

func (IsMachineHealthy) Name() string    { return "IsMachineHealthy" }
func (IsMachineHealthy) Traits() []Trait { return nil }

func (IsMachineHealthy) NewValidator(env *Env, _ Traits) MachineValidator {
	return machineHealthy{env.Inv}
}

type machineHealthy struct{ inv *Inventory }

func (h machineHealthy) IsValid(m int32) bool { return h.inv.Machines[m].Healthy }

package optimizer

// RuleIsMachineHealthy names IsMachineHealthy.
const RuleIsMachineHealthy = "IsMachineHealthy"

// IsMachineHealthy is the machine validator for health/ready state: only
// healthy machines take new VMs (§3.1, tenant experience).
type IsMachineHealthy struct{}

var _ MachineValidatorRule = IsMachineHealthy{}

func (IsMachineHealthy) Name() string    { return RuleIsMachineHealthy }
func (IsMachineHealthy) Traits() []Trait { return nil }

func (IsMachineHealthy) NewValidator(env *Env, _ Traits) MachineValidator {
	return machineHealthy{env.Inv}
}

type machineHealthy struct{ inv *Inventory }

func (h machineHealthy) IsValid(m int32) bool { return MachineHealthy(h.inv, m) }

// MachineHealthy is IsMachineHealthy's predicate: machine m is healthy.
func MachineHealthy(inv *Inventory, m int32) bool { return inv.Machines[m].Healthy }

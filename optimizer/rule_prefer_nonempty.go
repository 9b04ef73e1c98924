package optimizer

// RulePreferNonEmptyMachines names PreferNonEmptyMachines.
const RulePreferNonEmptyMachines = "PreferNonEmptyMachines"

// PreferNonEmptyMachines is the machine preference PreferNonEmptyMachines
// (§3.2): score 0 for a machine that already hosts VMs, 1 for an empty one,
// so empty machines are kept for large VMs and failover. It depends on no
// trait: one rule object serves every request.
type PreferNonEmptyMachines struct{}

var _ MachinePreferenceRule = PreferNonEmptyMachines{}

func (PreferNonEmptyMachines) Name() string    { return RulePreferNonEmptyMachines }
func (PreferNonEmptyMachines) Traits() []Trait { return nil }

func (PreferNonEmptyMachines) NewPreference(env *Env, _ Traits) MachinePreference {
	return nonEmpty{env.State}
}

type nonEmpty struct{ state *State }

func (n nonEmpty) Score(m int32) int64 {
	if n.state.Count[m] > 0 {
		return 0
	}
	return 1
}

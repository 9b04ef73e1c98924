package optimizer

// RuleRequireIsolation names RequireIsolation.
const RuleRequireIsolation = "RequireIsolation"

// RequireIsolation is the machine validator for isolated tenants (§2.1: "a
// tenant can even specify that no VMs from any other tenant be placed on the
// machine that hosts its VMs"). For a VM that requires isolation, x is
// valid iff x is empty; for any other VM, x is valid iff no tenant holds x
// exclusively. It depends on the isolation trait: every isolated VM gets a
// machine of its own.
type RequireIsolation struct{}

var _ MachineValidatorRule = RequireIsolation{}

func (RequireIsolation) Name() string    { return RuleRequireIsolation }
func (RequireIsolation) Traits() []Trait { return []Trait{TraitIsolation} }

func (RequireIsolation) NewValidator(env *Env, t Traits) MachineValidator {
	return isolation{env.State, t[TraitIsolation] == 1}
}

type isolation struct {
	state *State
	want  bool
}

func (r isolation) IsValid(m int32) bool { return IsolationOK(r.state, r.want, m) }

// IsolationOK is RequireIsolation's predicate: a VM that requires isolation
// (isolated) may go only on an empty machine, any other VM only on a
// machine no tenant holds exclusively.
func IsolationOK(s *State, isolated bool, m int32) bool {
	if isolated {
		return s.Count[m] == 0
	}
	return s.Exclusive[m] < 0
}

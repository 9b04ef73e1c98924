package optimizer

// IsNotForbidden is a machine validator that exists only in the tests: it
// refuses a fixed set of machines. It shows that a rule is one file —
// this one — plus one line in a rule set, and then binds every path that
// places a VM (TestNewValidatorBindsEveryPath).
type IsNotForbidden struct{ Forbidden map[int32]bool }

const ruleIsNotForbidden = "IsNotForbidden"

var _ MachineValidatorRule = IsNotForbidden{}

func (IsNotForbidden) Name() string    { return ruleIsNotForbidden }
func (IsNotForbidden) Traits() []Trait { return nil }

func (r IsNotForbidden) NewValidator(*Env, Traits) MachineValidator { return notForbidden(r) }

type notForbidden IsNotForbidden

func (r notForbidden) IsValid(m int32) bool { return !r.Forbidden[m] }

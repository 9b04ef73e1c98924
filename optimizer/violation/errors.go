package violation

import "errors"

// Sentinel errors for data conditions. Errors from NewRepository, Simulate
// and NewPolicy wrap one of them (or the context's error) and say which
// curve, field or name is at fault.
var (
	// ErrCurve: a demand curve is malformed (series of different lengths,
	// an empty curve, a negative or non-finite demand, a non-positive step).
	ErrCurve = errors.New("violation: invalid demand curve")
	// ErrStep: the curves of one repository or simulation are sampled at
	// different steps, so their time axes cannot be added up.
	ErrStep = errors.New("violation: curves sampled at different steps")
	// ErrEmpty: a repository or a simulation's tenant pool has no curves.
	ErrEmpty = errors.New("violation: no demand curves")
	// ErrConfig: a SimConfig or policy parameter is out of range.
	ErrConfig = errors.New("violation: invalid configuration")
	// ErrPolicy: a policy name is unknown or two policies share a name.
	ErrPolicy = errors.New("violation: unknown or duplicate policy")
)

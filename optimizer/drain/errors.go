package drain

import "errors"

// Sentinel errors for data conditions. Errors from Validate, Plan, Repack
// and Check wrap one of them and name the node, pod or field at fault.
var (
	// ErrProblem: a Problem is malformed (vectors of the wrong length,
	// a non-finite or negative demand, an index out of range).
	ErrProblem = errors.New("drain: invalid problem")
	// ErrViolation: an assignment breaks a constraint (Check).
	ErrViolation = errors.New("drain: constraint violated")
	// ErrNoFit: Repack found no node for a pod.
	ErrNoFit = errors.New("drain: pod fits on no node")
)

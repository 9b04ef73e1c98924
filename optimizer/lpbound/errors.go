package lpbound

import "errors"

// Sentinel errors for data conditions. Errors from Solve wrap one of them
// (or the context's error) and say which bin or item type is at fault.
var (
	// ErrInvalid: the problem is malformed (a negative size, count,
	// capacity or limit, a size vector of the wrong length, a duplicate
	// name, a column naming an unknown type).
	ErrInvalid = errors.New("lpbound: invalid problem")
	// ErrInfeasible: no packing exists — an item type fits no bin type, or
	// the machine limits cannot hold the demand (detected when the item
	// types that only limited bin types can hold cannot be covered, with a
	// dual certificate).
	ErrInfeasible = errors.New("lpbound: problem is infeasible")
	// ErrUnbounded: the objective has no lower bound (a bin type with a
	// negative cost and no limit).
	ErrUnbounded = errors.New("lpbound: problem is unbounded")
	// ErrTimeLimit: Options.TimeLimit ran out; the Result returned with it
	// holds the best valid bound found.
	ErrTimeLimit = errors.New("lpbound: time limit reached")
)

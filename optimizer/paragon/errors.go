package paragon

import "errors"

// Sentinel errors for data conditions. Errors returned by this package wrap
// one of them (or a context's error) and say which row, column, option or
// name is at fault. Misuse that a test would catch (an index out of range,
// a negative dimension) panics instead.
var (
	// ErrEmpty: a utility matrix has no entries, or a scenario no servers
	// or applications.
	ErrEmpty = errors.New("paragon: empty input")
	// ErrBadValue: an entry is NaN or infinite.
	ErrBadValue = errors.New("paragon: non-finite value")
	// ErrBadOptions: an option is out of its range.
	ErrBadOptions = errors.New("paragon: invalid options")
	// ErrDiverged: SGD produced a non-finite error even after the learning
	// rate was halved the allowed number of times.
	ErrDiverged = errors.New("paragon: SGD diverged")
	// ErrUnknownName: a scenario or policy name is not one of the known ones.
	ErrUnknownName = errors.New("paragon: unknown name")
	// ErrNoServer: a placement found no server at all (an empty cluster).
	ErrNoServer = errors.New("paragon: no server")
)

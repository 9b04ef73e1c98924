package datasets

import (
	"errors"
	"fmt"
)

// Sentinel errors for data conditions; a *RowError wraps one of them.
var (
	ErrMalformed      = errors.New("malformed")
	ErrNotNumber      = errors.New("not a number")
	ErrNonPositive    = errors.New("size must be > 0")
	ErrNegative       = errors.New("must be >= 0")
	ErrEndBeforeStart = errors.New("end before start")
	ErrUnknownType    = errors.New("unknown VM type")
	ErrDuplicateID    = errors.New("duplicate id")
	ErrMissingField   = errors.New("missing field")
	ErrUnknownFormat  = errors.New("datasets: unknown format")
	ErrTooManyRejects = errors.New("datasets: too many rejected rows")
	ErrNoInventory    = errors.New("datasets: no inventory")
)

// RowError says where in which file a value is bad. Row is 1-based and
// counts physical records including a header (0 when not row-specific).
type RowError struct {
	File  string
	Row   int64
	Field string
	Value string
	Err   error
}

func (e *RowError) Error() string {
	loc := e.File
	if e.Row > 0 {
		loc = fmt.Sprintf("%s: row %d", e.File, e.Row)
	}
	if e.Field != "" {
		loc += ": field " + e.Field
	}
	if e.Value != "" {
		v := e.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("%s: %v (value %q)", loc, e.Err, v)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// Reason is the short reason used in rejection counts, e.g. "cores: size must be > 0".
func (e *RowError) Reason() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Err.Error()
}

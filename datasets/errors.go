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
	ErrExtraField     = errors.New("extra field")
	ErrUnknownFormat  = errors.New("datasets: unknown format")
	ErrTooManyRejects = errors.New("datasets: too many rejected rows")
	ErrNoInventory    = errors.New("datasets: no inventory")
	ErrTimeRange      = fmt.Errorf("time beyond ±%.0f s (%d years) of the trace's origin", MaxTraceSeconds, MaxTraceYears)
)

// MaxTraceYears and MaxTraceSeconds bound every time a loader accepts, on
// either side of the trace's origin (its t = 0): 30 years, 946,728,000 s.
// Real traces span days to months — Azure V1 and Huawei-East-1 a month,
// Bitbrains a month, Alibaba openb under five months, the Azure packing
// trace two weeks — so the bound is generous for any of them, while a time
// beyond it (a unit mistake, a corrupt row, 1e300) would have a replay
// sample hour by hour toward it and analyses size arrays by it. A row
// error names the file, row and field.
const (
	MaxTraceYears   = 30
	MaxTraceSeconds = MaxTraceYears * 365.25 * 86400
)

// RowError says where in which file a value is bad. Row is 1-based and
// counts physical records including a header (0 when not row-specific),
// unless Numbering says how it counts (NumberingCSV: the file's line;
// NumberingParquet), which the message then states after the row.
type RowError struct {
	File      string
	Row       int64
	Numbering string
	Field     string
	Value     string
	Err       error
}

func (e *RowError) Error() string {
	loc := e.File
	if e.Row > 0 {
		loc = fmt.Sprintf("%s: row %d", e.File, e.Row)
		if e.Numbering != "" {
			loc += " (" + e.Numbering + ")"
		}
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

// skippable marks a bad row that Options.MaxRejects could have skipped: the
// rejecter of a format that skips rows returns it when it may skip no more.
type skippable struct{ err error }

func (s skippable) Error() string { return s.err.Error() }
func (s skippable) Unwrap() error { return s.err }

// Skippable reports whether err stopped an ingest at a bad row that
// --max-rejects (Options.MaxRejects) would have skipped: a row error of a
// format that skips rows, raised where it skips them. Other errors (an
// inventory file's rows, a header, the whole-file formats placelab and
// k8s) are not, and a hint to raise --max-rejects would mislead.
func Skippable(err error) bool {
	var s skippable
	return errors.As(err, &s)
}

package catalog

import (
	"errors"
	"fmt"
)

// Sentinel errors. A *RowError from Read wraps one of the first group; test
// with errors.Is.
var (
	ErrFormat      = errors.New("unknown catalog format")
	ErrMalformed   = errors.New("malformed")
	ErrEmpty       = errors.New("no machine types")
	ErrNoColumn    = errors.New("missing column")
	ErrPriceColumn = errors.New("price column")
	ErrBadHeader   = errors.New("bad header")
	ErrEmptyValue  = errors.New("empty value")
	ErrNotNumber   = errors.New("not a number")
	ErrOutOfRange  = errors.New("out of range")
	ErrUnknown     = errors.New("unknown value")
	ErrDuplicate   = errors.New("duplicate name")

	ErrFilter      = errors.New("catalog: bad --types filter")
	ErrNothingLeft = errors.New("catalog: no type passes the filter")
	ErrReserved    = errors.New("catalog: unknown --reserved")
)

// RowError says where a catalog is bad: the file, and for a row's value the
// data row (1-based, header not counted), the line (a CSV file's line as an
// editor shows it, the header being line 1; 0 for Parquet, which has no
// lines) and the column as the file spells it.
type RowError struct {
	File  string
	Row   int // data row from 1; 0 when the error is about the file or its header
	Line  int // CSV line; 0 for Parquet or when not row-specific
	Field string
	Value string
	Err   error
}

// maxValueShown caps how much of a bad value a message quotes.
const maxValueShown = 40

func (e *RowError) Error() string {
	loc := "catalog " + e.File
	switch {
	case e.Row > 0 && e.Line > 0:
		loc += fmt.Sprintf(": line %d (data row %d)", e.Line, e.Row)
	case e.Row > 0:
		loc += fmt.Sprintf(": data row %d", e.Row)
	case e.Line > 0:
		loc += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Field != "" {
		v := e.Value
		if len(v) > maxValueShown {
			v = v[:maxValueShown] + "…"
		}
		return fmt.Sprintf("%s, field %s %q: %v", loc, e.Field, v, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// reason is an error that reads as its own message and is its sentinel
// (errors.Is(r, r.is)).
type reason struct {
	is  error
	msg string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.is }

// because is an error saying msg that wraps the sentinel is.
func because(is error, format string, args ...any) error {
	return &reason{is: is, msg: fmt.Sprintf(format, args...)}
}

package k8sgen

import (
	"errors"
	"fmt"
)

// Sentinel errors. Options errors wrap ErrOptions; a bad CSV value is a
// *RowError wrapping ErrMalformed or ErrDuplicate.
var (
	ErrOptions   = errors.New("k8sgen: bad options")
	ErrMalformed = errors.New("k8sgen: malformed value")
	ErrDuplicate = errors.New("k8sgen: duplicate name")
	ErrNoNodes   = errors.New("k8sgen: no nodes")
)

// RowError says where in which CSV file a value is bad. Row is 1-based and
// counts the header (row 1); 0 when the error is about the file as a whole
// (a missing column).
type RowError struct {
	File  string
	Row   int
	Field string
	Value string
	Err   error
}

func (e *RowError) Error() string {
	loc := e.File
	if e.Row > 0 {
		loc = fmt.Sprintf("%s: row %d", loc, e.Row)
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

package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"placelab/analysis/replay"
	"placelab/internal/kunits"
	store "placelab/sql"
	"slices"
	"strconv"
)

func Col(r *store.Result, name string) int {
	for i, c := range r.Columns {
		if c == name {
			return i
		}
	}
	panic("analysis: view has no column " + name)
}

func Num(x any) float64 {
	f, _ := asFloat(x)
	return f
}

func Round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func Sum(c []int) int {
	n := 0
	for _, x := range c {
		n += x
	}
	return n
}

func BoolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ErrNoRun is returned for a run id that is not stored.
var ErrNoRun = errors.New("analysis: no such run")

// OfflineEngine is the run.engine of a packing stored by LPBoundRun.
const OfflineEngine = "offline"

// Stamp is instant t of tr as an RFC 3339 timestamp when tr's times have
// an origin (dataset.time_origin: a Kubernetes cluster's), else "".
func Stamp(tr *replay.Trace, t float64) string {
	if tr == nil || tr.TimeOrigin.IsZero() || math.IsNaN(t) || math.IsInf(t, 0) {
		return ""
	}
	return kunits.Time(tr.TimeOrigin, t)
}

// AsFloat reads a DuckDB result cell as a number (false when NULL or not
// numeric).
func AsFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case int:
		return float64(v), true
	case int16:
		return float64(v), true
	case uint64:
		return float64(v), true
	case nil:
		return 0, false
	}
	if s, ok := x.(fmt.Stringer); ok {
		f, err := strconv.ParseFloat(s.String(), 64)
		return f, err == nil
	}
	return 0, false
}

// asFloat is AsFloat.
func asFloat(x any) (float64, bool) { return AsFloat(x) }

// SampleSeconds is the period of a VM's utilization readings (5 minutes
// in the Azure traces), the grid periodicity detection and the series
// views read them on.
const SampleSeconds = 300.0

// Range is the median of a figure over seeds or repetitions, with its
// range (JSON null when there were none: see MarshalJSON).
type Range struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// RangeOf is xs's median (the mean of the two middle values for an even
// count) and range; NaN for none.
func RangeOf(xs []float64) Range {
	if len(xs) == 0 {
		return Range{math.NaN(), math.NaN(), math.NaN()}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Range{Median: med, Min: s[0], Max: s[n-1]}
}

// MarshalJSON writes a range without values (no seeds, or no oracle gain
// to share) as null.
func (r Range) MarshalJSON() ([]byte, error) {
	if math.IsNaN(r.Median) {
		return []byte("null"), nil
	}
	type plain Range
	return json.Marshal(plain(r))
}

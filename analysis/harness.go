package analysis

import (
	"fmt"
	"placelab/optimizer"
	"strconv"
)

// CharViewNames lists the characterization views Characterize runs, in its
// order (placelab bench views times each alone).
func CharViewNames() []string {
	vs := charViews()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.view
	}
	return out
}

// LPLargestBinCost is the cost (cores) of the largest bin type of the
// configuration LP over inv, the unit placelab bench lp reports sizes in.
func LPLargestBinCost(inv *optimizer.Inventory) float64 {
	largest := 0.0
	for _, b := range newLPZone(inv).bins {
		largest = max(largest, b.Cost) // a bin costs its cores
	}
	return largest
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

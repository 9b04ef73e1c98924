// Package kunits writes placelab's amounts in the units a Kubernetes user
// reads them in: CPU in cores or millicores ("500m", "2", "1.5"), memory
// and storage in binary units ("512Mi", "4Gi", "57.4Gi"; placelab keeps
// them in GB, 10^9 bytes), and a cluster's instants as RFC 3339 timestamps
// from the time origin its ingest recorded (the earliest creation).
package kunits

import (
	"math"
	"strconv"
	"time"
)

// CPU writes cores as kubectl does: millicores below one core or when not
// a whole number of tenths ("250m", "1500m" is "1.5"), else cores.
func CPU(cores float64) string {
	m := math.Round(cores * 1000)
	if m < 1000 || math.Mod(m, 100) != 0 {
		return strconv.FormatFloat(m, 'f', -1, 64) + "m"
	}
	return strconv.FormatFloat(m/1000, 'f', -1, 64)
}

// Bytes writes a size given in GB (10^9 bytes) in binary units: Ki, Mi
// or Gi, at most two decimals, the unit the largest under which it is at
// least 1 ("4Gi", "57.39Gi", "512Mi"). 0 is "0".
func Bytes(gb float64) string {
	b := gb * 1e9
	switch {
	case b == 0:
		return "0"
	case math.Abs(b) >= 1<<30:
		return round2(b/(1<<30)) + "Gi"
	case math.Abs(b) >= 1<<20:
		return round2(b/(1<<20)) + "Mi"
	default:
		return round2(b/(1<<10)) + "Ki"
	}
}

func round2(x float64) string { return strconv.FormatFloat(math.Round(100*x)/100, 'f', -1, 64) }

// Amount writes x of the resource placelab names dim ("cores", "memory",
// "ssd", "gpu", "pods", as optimizer.Dim.String) with its Kubernetes name
// and unit: "500m cpu", "4Gi memory", "10Gi ephemeral-storage", "1 GPU",
// "3 pods".
func Amount(dim string, x float64) string {
	switch dim {
	case "cores":
		return CPU(x) + " cpu"
	case "memory":
		return Bytes(x) + " memory"
	case "ssd":
		return Bytes(x) + " ephemeral-storage"
	case "gpu":
		return strconv.FormatFloat(x, 'f', -1, 64) + " GPU"
	case "pods":
		return strconv.FormatFloat(x, 'f', -1, 64) + " pods"
	}
	return strconv.FormatFloat(x, 'g', 6, 64) + " " + dim
}

// Time is the instant s seconds after origin, RFC 3339 in UTC.
func Time(origin time.Time, s float64) string {
	return origin.Add(time.Duration(math.Round(s * float64(time.Second)))).UTC().Format(time.RFC3339)
}

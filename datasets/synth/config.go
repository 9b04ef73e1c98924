package synth

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Sentinel errors.
var (
	// ErrBadConfig is returned by Config.Validate for an unusable field.
	ErrBadConfig = errors.New("synth: bad config")
	// ErrBadSpec is returned for an inventory spec that does not parse.
	ErrBadSpec = errors.New("synth: bad inventory spec")
)

// Limits of a Config and an inventory spec.
const (
	MaxMachines = 1_000_000  // machines in one zone or one spec
	MaxVMs      = 50_000_000 // VMs in one trace
	MaxDays     = 366        // trace length
)

// Config describes one synthetic zone and trace. The same Config gives the
// same rows, byte for byte.
type Config struct {
	// Machines in the zone (Protean Table 1 proportions).
	Machines int `json:"machines"`
	// VMs in the trace, counting those alive at t = 0.
	VMs int `json:"vms"`
	// Days the trace covers; arrivals fall in [0, Days·86400) seconds.
	Days float64 `json:"days"`
	// Seed for every random choice; each part of the generator draws from
	// its own stream derived from it, so that e.g. changing SeriesVMs leaves
	// the VMs unchanged.
	Seed uint64 `json:"seed"`
	// SeriesVMs is how many long-lived VMs get a 5-minute CPU series.
	SeriesVMs int `json:"series_vms"`
	// SeriesDays caps each series' length (readings every 5 minutes).
	SeriesDays float64 `json:"series_days"`
	// Load is the share of zone cores allocated at t = 0: the initial
	// population (VMs with negative start times) is drawn until its cores
	// reach Load × zone cores, or until it holds all VMs when they are too
	// few (see Stats.LoadAtStart).
	Load float64 `json:"load"`
	// LowPriority is the share of VMs from low-priority (evictable)
	// subscriptions.
	LowPriority float64 `json:"low_priority"`
}

// DefaultConfig is a demo-sized zone: 5,000 machines, 100,000 VMs over two
// weeks, 500 CPU series of at most 3 days, 65% of cores allocated at t = 0
// and 15% low-priority VMs.
func DefaultConfig() Config {
	return Config{
		Machines:    5000,
		VMs:         100_000,
		Days:        14,
		Seed:        1,
		SeriesVMs:   500,
		SeriesDays:  3,
		Load:        0.65,
		LowPriority: 0.15,
	}
}

// Validate reports the first unusable field, wrapping ErrBadConfig.
func (c Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%w: %s = %v, want %s", ErrBadConfig, field, v, want)
	}
	switch {
	case c.Machines < 1 || c.Machines > MaxMachines:
		return bad("machines", c.Machines, fmt.Sprintf("1..%d", MaxMachines))
	case c.VMs < 1 || c.VMs > MaxVMs:
		return bad("vms", c.VMs, fmt.Sprintf("1..%d", MaxVMs))
	case !(c.Days > 0 && c.Days <= MaxDays):
		return bad("days", c.Days, fmt.Sprintf("> 0 and <= %d", MaxDays))
	case c.SeriesVMs < 0:
		return bad("series_vms", c.SeriesVMs, ">= 0")
	case c.SeriesVMs > 0 && !(c.SeriesDays > 0 && c.SeriesDays <= MaxDays):
		return bad("series_days", c.SeriesDays, fmt.Sprintf("> 0 and <= %d when series_vms > 0", MaxDays))
	case !(c.Load >= 0 && c.Load < 1):
		return bad("load", c.Load, "in [0, 1)")
	case !(c.LowPriority >= 0 && c.LowPriority <= 1):
		return bad("low_priority", c.LowPriority, "in [0, 1]")
	}
	return nil
}

// Stream names: each part of the generator draws from its own PCG stream.
const (
	streamInventory     = "inventory"
	streamSubscriptions = "subscriptions"
	streamInitial       = "initial"
	streamRequests      = "requests"
	streamArrivals      = "arrivals"
	streamCPU           = "cpu"
	streamSeriesPick    = "series-pick"
	streamSeries        = "series" // combined with the VM id
)

// stream returns the generator for one named stream of a seed.
func stream(seed uint64, name string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, streamKey(name)))
}

// streamAt returns the generator for item i of a named stream, so that an
// item's draws do not depend on which other items were drawn.
func streamAt(seed uint64, name string, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^mix64(i+1), streamKey(name)))
}

func streamKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// mix64 is SplitMix64's finalizer: it spreads consecutive integers over
// all 64 bits.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// normCDF is Φ, the standard normal CDF.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// normQuantile is Φ⁻¹.
func normQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// lognormal draws exp(mu + sigma·Z).
func lognormal(rng *rand.Rand, mu, sigma float64) float64 {
	return math.Exp(mu + sigma*rng.NormFloat64())
}

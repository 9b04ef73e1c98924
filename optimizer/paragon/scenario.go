package paragon

import "fmt"

// Scenario names, as the CLI's --scenario takes them (§4's large-scale
// scenarios).
const (
	ScenarioLow            = "low"
	ScenarioHigh           = "high"
	ScenarioOversubscribed = "oversubscribed"
)

// Scenarios lists the scenario names in increasing load.
var Scenarios = []string{ScenarioLow, ScenarioHigh, ScenarioOversubscribed}

// Scenario defaults (§4).
const (
	// DefaultServers is §4's EC2 cluster size.
	DefaultServers = 1000
	// DefaultOffline is §2.2's offline training set for a 1,000-server
	// cluster: 50 workloads profiled on every configuration and SoI.
	DefaultOffline = 50
	// defaultInterval is §4's inter-arrival time, 1 s; burstInterval its
	// "less than 0.1 sec".
	defaultInterval = 1.0
	burstInterval   = 0.05
	// defaultNoise and defaultMeasureNoise: 3% of each true score is
	// idiosyncratic, and a one-minute profile is off by 2%.
	defaultNoise        = 0.03
	defaultMeasureNoise = 0.02
)

// ScenarioConfig describes one simulated workload scenario (§4). Load is
// the steady-state core demand over the cluster's cores that the mean
// application duration is set to: an application needs on average
// Load × cores × Interval / (mean cores per application) seconds alone on
// its best configuration (×U(0.5, 1.5)).
type ScenarioConfig struct {
	Name    string `json:"name"`
	Servers int    `json:"servers"`
	Configs int    `json:"configs"`
	// Apps arrive every Interval seconds; Burst more arrive every
	// BurstInterval seconds after the first BurstAfter, drawn from the
	// memory-bound workloads when BurstMemoryBound.
	Apps             int     `json:"apps"`
	Interval         float64 `json:"interval_s"`
	Load             float64 `json:"load"`
	Burst            int     `json:"burst"`
	BurstAfter       int     `json:"burst_after"`
	BurstInterval    float64 `json:"burst_interval_s"`
	BurstMemoryBound bool    `json:"burst_memory_bound"`
	// Pool is the number of distinct workloads arrivals are drawn from
	// (§4: 401); Offline of them form the training matrices; each arrival
	// is profiled on Known configurations and Known SoIs of each kind.
	Pool    int `json:"pool"`
	Offline int `json:"offline"`
	Known   int `json:"known"`
	// Noise and MeasureNoise are SynthOptions'.
	Noise        float64 `json:"noise"`
	MeasureNoise float64 `json:"measure_noise"`
	// Compound multiplies the slowdowns of all SoIs instead of taking the
	// worst (see Simulate).
	Compound bool `json:"compound"`
	// PaperTolerance uses §3.2's min-t server tolerance in Paragon and NH.
	PaperTolerance bool `json:"paper_tolerance"`
	// Oracle gives the policies the true scores instead of the classified
	// ones: the bound that perfect classification would reach.
	Oracle bool   `json:"oracle"`
	Seed   uint64 `json:"seed"`
	// Outcomes keeps one Outcome per application in the Result.
	Outcomes bool `json:"-"`
}

// Scenario returns the default configuration of a named scenario, on
// DefaultServers servers of 14 configurations (about 6 cores each, near
// §4's EC2 cluster). Load is the demand at full speed; slowdowns stretch
// the applications and raise the demand actually seen (Result.PeakDemand:
// about 0.45, 0.9 and 2.1 with Paragon):
//
//   - low: 2,500 applications at 1 s, load 0.4 (§4: "significantly lower
//     than the available processor resources");
//   - high: 5,000 at 1 s, load 0.6, and a burst of 500 memory-bound
//     applications at 0.05 s after the first 2,000 (the small-scale high
//     scenario's "50 memory-bound workloads arrive in a burst"); demand
//     "approaches the load the system can support";
//   - oversubscribed: 7,500 at 1 s, load 0.9, and a burst of 1,000 after
//     the first 3,750 (§4's EC2 oversubscribed scenario); demand exceeds
//     the cores.
func Scenario(name string) (ScenarioConfig, error) {
	c := ScenarioConfig{
		Name: name, Servers: DefaultServers, Configs: DefaultConfigs,
		Interval: defaultInterval, BurstInterval: burstInterval,
		Pool: DefaultApps, Offline: DefaultOffline, Known: DefaultKnown,
		Noise: defaultNoise, MeasureNoise: defaultMeasureNoise, Seed: 1,
	}
	switch name {
	case ScenarioLow:
		c.Apps, c.Load = 2500, 0.4
	case ScenarioHigh:
		c.Apps, c.Load = 5000, 0.6
		c.Burst, c.BurstAfter, c.BurstMemoryBound = 500, 2000, true
	case ScenarioOversubscribed:
		c.Apps, c.Load = 7500, 0.9
		c.Burst, c.BurstAfter = 1000, 3750
	default:
		return c, fmt.Errorf("%w: scenario %q (want %s, %s or %s)", ErrUnknownName, name,
			ScenarioLow, ScenarioHigh, ScenarioOversubscribed)
	}
	return c, nil
}

// Scaled returns the configuration with servers and applications scaled by
// f (at least one server, offline set and pool unchanged): the same load
// on a smaller cluster, for tests.
func (c ScenarioConfig) Scaled(f float64) ScenarioConfig {
	c.Servers = max(1, int(float64(c.Servers)*f))
	c.Apps = max(1, int(float64(c.Apps)*f))
	c.Burst = int(float64(c.Burst) * f)
	c.BurstAfter = int(float64(c.BurstAfter) * f)
	c.Interval /= f
	return c
}

func (c ScenarioConfig) validate() error {
	switch {
	case c.Servers <= 0 || c.Apps <= 0:
		return fmt.Errorf("%w: scenario %q: %d servers, %d applications", ErrEmpty, c.Name, c.Servers, c.Apps)
	case c.Configs <= 0 || c.Pool <= 0 || c.Offline <= 0 || c.Offline > c.Pool:
		return fmt.Errorf("%w: scenario %q: %d configurations, pool %d, offline %d", ErrBadOptions, c.Name, c.Configs, c.Pool, c.Offline)
	case c.Known < 1 || c.Known >= c.Configs || c.Known > DefaultSoIs:
		return fmt.Errorf("%w: scenario %q: known %d", ErrBadOptions, c.Name, c.Known)
	case !(c.Interval > 0) || !(c.Load > 0) || c.Burst < 0 || c.BurstAfter < 0 || (c.Burst > 0 && !(c.BurstInterval > 0)):
		return fmt.Errorf("%w: scenario %q: interval %v, load %v, burst %d after %d at %v", ErrBadOptions, c.Name, c.Interval, c.Load, c.Burst, c.BurstAfter, c.BurstInterval)
	}
	return nil
}

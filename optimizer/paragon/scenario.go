package paragon

import (
	"fmt"
	"math"
)

// Scenario names, as the CLI's --scenario takes them: §4's large-scale
// (EC2) scenarios, and the small-scale high-load scenario with its burst.
const (
	ScenarioLow            = "low"
	ScenarioHigh           = "high"
	ScenarioOversubscribed = "oversubscribed"
	ScenarioBurst          = "burst"
)

// Scenarios lists the scenario names: the EC2 ones in increasing load,
// then the small-scale burst.
var Scenarios = []string{ScenarioLow, ScenarioHigh, ScenarioOversubscribed, ScenarioBurst}

// D1 rules (ScenarioConfig.D1, the CLI's --d1): what t_server is in
// §3.2's D1 = t_server − c_new.
const (
	// D1MinTolerated is §3.2's definition, the default: "the sensitivity
	// to tolerated interference is the minimum of these values" over the
	// server's applications (Server.Tolerated).
	D1MinTolerated = "min-tolerated"
	// D1Headroom is a more lenient-to-residents rule (Server.Headroom):
	// each resident's tolerance less the pressure the other residents
	// already put on it. Not the paper's; kept to measure what it changes.
	D1Headroom = "headroom"
)

// Interference models (ScenarioConfig.Interference, --interference): how
// the slowdowns of the ten SoIs combine into one.
const (
	// InterferenceCompound, the default, multiplies them: contention on
	// several resources compounds.
	InterferenceCompound = "compound"
	// InterferenceWorst takes the worst SoI alone, a lenient model under
	// which a server within every tolerance keeps QoS whatever the number
	// of contended resources.
	InterferenceWorst = "worst"
)

// Scenario defaults (§4).
const (
	// DefaultServers is §4's EC2 cluster size.
	DefaultServers = 1000
	// DefaultOffline is §2.2's offline training set for a 1,000-server
	// cluster: 50 workloads profiled on every configuration and SoI.
	DefaultOffline = 50
	// defaultInterval is §4's EC2 inter-arrival time, 1 s; burstInterval
	// its "less than 0.1 sec".
	defaultInterval = 1.0
	burstInterval   = 0.05
	// defaultNoise and defaultMeasureNoise: 3% of each true interference
	// score is idiosyncratic, and a one-minute microbenchmark run is off
	// by 2% (platform scores use DefaultPlatformNoise and
	// DefaultPlatformMeasureNoise, the Table 1 calibration).
	defaultNoise        = 0.03
	defaultMeasureNoise = 0.02
	// Loads against usable capacity (ScenarioConfig.Load), §4: low is
	// "significantly lower than the available processor resources", high
	// "approaches the load the system can support but does not surpass
	// it", oversubscribed "often exceeds the system's capabilities". They
	// are offered demand at full speed: slowdowns stretch applications, so
	// the demand actually running is higher (Result.AboveUsableShare says
	// how often it passed usable capacity).
	loadLow            = 0.4
	loadHigh           = 0.75
	loadOversubscribed = 0.9
	// The small-scale cluster of §4 (Table 3): 40 servers of 10
	// configurations, 20 offline workloads (§2.2), 178 applications at
	// 10 s, 50 memory-bound ones in a burst after the first 64.
	smallServers, smallConfigs, smallOffline = 40, 10, 20
	smallApps, smallInterval                 = 178, 10.0
	smallBurst, smallBurstAfter              = 50, 64
	// maxConfigs bounds the configurations: usable capacity looks at every
	// set of them (2^Configs).
	maxConfigs = 20
)

// ScenarioConfig describes one simulated workload scenario (§4).
//
// Load is stated against usable capacity, not all cores: Load × usable
// capacity is the mean core demand the arrivals offer at full speed (an
// application needs on average Load × U × Interval / (mean cores per
// application) seconds alone on its best configuration, × U(0.5, 1.5)),
// where U (Result.UsableCores) is the largest steady core demand of the
// arrival mix that the cluster can run with every application on a
// configuration within 5% of its best (see UsableCapacity), for the
// pool's uniform arrival mix (a burst's memory-bound arrivals are extra
// load on top). The server mix is left as drawn: cores on configurations
// that are near-best for few applications simply do not count in U.
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
	// Noise and MeasureNoise are the interference scores' (SynthOptions);
	// PlatformNoise and PlatformMeasureNoise the platform scores'.
	Noise                float64 `json:"noise"`
	MeasureNoise         float64 `json:"measure_noise"`
	PlatformNoise        float64 `json:"platform_noise"`
	PlatformMeasureNoise float64 `json:"platform_measure_noise"`
	// D1 is the D1 rule of the greedy policies (D1MinTolerated or
	// D1Headroom) and Interference the simulator's interference model
	// (InterferenceCompound or InterferenceWorst).
	D1           string `json:"d1"`
	Interference string `json:"interference"`
	Seed         uint64 `json:"seed"`
	// Outcomes keeps one Outcome per application in the Result.
	Outcomes bool `json:"-"`
}

// Scenario returns the default configuration of a named scenario. The EC2
// ones run on DefaultServers servers of 14 configurations with §4's
// arrivals and no burst except where §4 has one; Load is against usable
// capacity (see ScenarioConfig):
//
//   - low: 2,500 applications at 1 s, load 0.4;
//   - high: 5,000 at 1 s, load 0.75, no burst (§4's EC2 high-load
//     scenario has none);
//   - oversubscribed: 7,500 at 1 s, load 0.9, and a burst of 1,000 after
//     the first 3,750 (§4): the slowdowns and the burst push the running
//     demand above usable capacity, intermittently;
//   - burst: §4's small-scale high-load scenario, 40 servers of 10
//     configurations (20 offline workloads), 178 applications at 10 s,
//     load 0.75, 50 memory-bound ones in a burst after the first 64.
func Scenario(name string) (ScenarioConfig, error) {
	c := ScenarioConfig{
		Name: name, Servers: DefaultServers, Configs: DefaultConfigs,
		Interval: defaultInterval, BurstInterval: burstInterval,
		Pool: DefaultApps, Offline: DefaultOffline, Known: DefaultKnown,
		Noise: defaultNoise, MeasureNoise: defaultMeasureNoise,
		PlatformNoise: DefaultPlatformNoise, PlatformMeasureNoise: DefaultPlatformMeasureNoise,
		D1: D1MinTolerated, Interference: InterferenceCompound, Seed: 1,
	}
	switch name {
	case ScenarioLow:
		c.Apps, c.Load = 2500, loadLow
	case ScenarioHigh:
		c.Apps, c.Load = 5000, loadHigh
	case ScenarioOversubscribed:
		c.Apps, c.Load = 7500, loadOversubscribed
		c.Burst, c.BurstAfter = 1000, 3750
	case ScenarioBurst:
		c.Servers, c.Configs, c.Offline = smallServers, smallConfigs, smallOffline
		c.Apps, c.Interval, c.Load = smallApps, smallInterval, loadHigh
		c.Burst, c.BurstAfter, c.BurstMemoryBound = smallBurst, smallBurstAfter, true
	default:
		return c, fmt.Errorf("%w: scenario %q (want %s, %s, %s or %s)", ErrUnknownName, name,
			ScenarioLow, ScenarioHigh, ScenarioOversubscribed, ScenarioBurst)
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
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case c.Servers <= 0 || c.Apps <= 0:
		return fmt.Errorf("%w: scenario %q: %d servers, %d applications", ErrEmpty, c.Name, c.Servers, c.Apps)
	case c.Configs <= 0 || c.Configs > maxConfigs || c.Pool <= 0 || c.Offline <= 0 || c.Offline > c.Pool:
		return fmt.Errorf("%w: scenario %q: %d configurations (want 1 to %d), pool %d, offline %d", ErrBadOptions, c.Name, c.Configs, maxConfigs, c.Pool, c.Offline)
	case c.Known < 1 || c.Known >= c.Configs || c.Known > DefaultSoIs:
		return fmt.Errorf("%w: scenario %q: known %d", ErrBadOptions, c.Name, c.Known)
	case !(c.Interval > 0) || !(c.Load > 0) || !finite(c.Load) || c.Burst < 0 || c.BurstAfter < 0 || (c.Burst > 0 && !(c.BurstInterval > 0)):
		return fmt.Errorf("%w: scenario %q: interval %v, load %v, burst %d after %d at %v", ErrBadOptions, c.Name, c.Interval, c.Load, c.Burst, c.BurstAfter, c.BurstInterval)
	case !(c.Noise >= 0) || !(c.MeasureNoise >= 0) || !(c.PlatformNoise >= 0) || !(c.PlatformMeasureNoise >= 0) ||
		!finite(c.Noise+c.MeasureNoise+c.PlatformNoise+c.PlatformMeasureNoise):
		return fmt.Errorf("%w: scenario %q: noises %v, %v, %v, %v", ErrBadOptions, c.Name, c.Noise, c.MeasureNoise, c.PlatformNoise, c.PlatformMeasureNoise)
	case c.D1 != D1MinTolerated && c.D1 != D1Headroom:
		return fmt.Errorf("%w: scenario %q: D1 rule %q (want %s or %s)", ErrUnknownName, c.Name, c.D1, D1MinTolerated, D1Headroom)
	case c.Interference != InterferenceCompound && c.Interference != InterferenceWorst:
		return fmt.Errorf("%w: scenario %q: interference model %q (want %s or %s)", ErrUnknownName, c.Name, c.Interference, InterferenceCompound, InterferenceWorst)
	}
	return nil
}

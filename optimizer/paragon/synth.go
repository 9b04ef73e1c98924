package paragon

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// AppKind is an application's type in §4's workload mix.
type AppKind int

const (
	// SingleThreaded stands for SPEC CPU2006: one core.
	SingleThreaded AppKind = iota
	// MultiThreaded stands for PARSEC, SPLASH-2, BioParallel, Minebench
	// and SPECjbb.
	MultiThreaded
	// MultiProgrammed stands for a mix of four SPEC CPU2006 programs.
	MultiProgrammed
)

func (k AppKind) String() string {
	switch k {
	case SingleThreaded:
		return "ST"
	case MultiThreaded:
		return "MT"
	case MultiProgrammed:
		return "MP"
	}
	return fmt.Sprintf("AppKind(%d)", int(k))
}

// Latent interference intensities of an application.
const (
	intensityMemory = iota
	intensityCache
	intensityIO
	numIntensities
)

// soiLoading maps the latent intensities (memory, cache, I/O) to the ten
// sources of interference of SoINames: how much an application of unit
// intensity presses on (and suffers on) each.
var soiLoading = [DefaultSoIs][numIntensities]float64{
	{1.0, 0.2, 0}, // mem_bw
	{0.7, 0, 0.1}, // mem_cap
	{0, 0.8, 0},   // l1i
	{0.1, 0.9, 0}, // l1d
	{0.2, 0.8, 0}, // l2
	{0.6, 0.5, 0}, // llc
	{0, 0.6, 0},   // itlb
	{0.4, 0.4, 0}, // dtlb
	{0, 0, 1.0},   // net_bw
	{0.1, 0, 0.9}, // storage_bw
}

// coreChoices are the core counts of generated configurations, from the
// slowest generation (Atom-like, §4 Table 3) to the fastest (quad-socket
// Xeon-like).
var coreChoices = []int{1, 2, 2, 4, 4, 4, 4, 8, 8, 8, 12, 16}

// Synthetic generator settings, with the paper's workload mix.
const (
	// DefaultApps is §4's pool: 29 ST + 22 MT + 350 MP workloads.
	DefaultApps = 401
	// DefaultConfigs is §4's EC2 cluster: 14 server configurations.
	DefaultConfigs = 14
	// DefaultMemoryBound is the share of memory-bound applications.
	DefaultMemoryBound = 0.25
	// causedScale and toleratedScale turn latent intensity into caused and
	// tolerated scores (§2.3: "over 60%" is a lot of caused interference,
	// or high tolerance).
	causedScale    = 0.6
	toleratedScale = 0.8
	// appThreads is the cores an MT or MP application asks for.
	appThreads = 4
)

// The platform-score model, calibrated so that the package's classifier,
// from two profiling runs per application, reproduces Table 1 (§2.2) on a
// world of the paper's validation size (10 configurations, 20 offline
// applications; see TestTable1Calibrated). Calibrated against Table 1 only,
// never against the scheduling results of Fig. 9. In log space
//
//	log perf_a(c) = log g_c + s_a v_c + σ_a (r_a · ρ_c) + log(1 + PlatformNoise·z)
//
// g_c is the configuration's generation (overall speed): log-spaced from
// platformGenLow to 1 over the configurations, one stratum each, so
// neighbours in generation are ≥ half a stratum apart (§4 Table 3 spans
// Atom boards to Xeon servers). v_c ∈ [−platformKappa, platformKappa] is
// its specialization (compute versus memory: clock against memory
// bandwidth and cache, one stratum each, in random order) and s_a ∈
// [−1, 1] the application's leaning (memory-bound ones s ≥ 0.4): the
// specialization is what makes different configurations best for
// different applications (§2.2: "some applications have a 2x performance
// difference"). r_a · ρ_c is a two-dimensional residual (standard normal
// r and ρ) of size σ_a = platformResidual, or platformResidual ×
// platformIrregularScale for the platformIrregular share of applications
// that resemble no other ("collaborative filtering identifies
// similarities between new and known applications", §2.2: these have
// few). Rows are normalized so the best is 1.
const (
	platformGenLow         = 0.45
	platformKappa          = 0.6
	platformResidual       = 0.003
	platformIrregular      = 0.2
	platformIrregularScale = 20
	// memoryLeanLow is the least leaning of a memory-bound application.
	memoryLeanLow = 0.4
	// DefaultPlatformNoise is the idiosyncratic share of a true platform
	// score and DefaultPlatformMeasureNoise the error of a profiled one
	// (one-minute runs of instructions per second, §2.2): the two Table 1
	// calibration noises.
	DefaultPlatformNoise        = 0.003
	DefaultPlatformMeasureNoise = 0.002
)

// SynthOptions configure Synthesize. A zero field takes its default
// (Apps 401, Configs 14, SoIs 10, Density 1, MemoryBound 0.25,
// PlatformNoise DefaultPlatformNoise); Noise and MeasureNoise are used as
// given (zero is none).
type SynthOptions struct {
	Apps    int
	Configs int
	SoIs    int // at most DefaultSoIs: the first SoIs of SoINames
	// Noise is the standard deviation of the multiplicative idiosyncratic
	// part of each true interference score: the share of an application's
	// behaviour the latent factors do not explain (so the truth is not
	// exactly low rank).
	Noise float64
	// MeasureNoise is the standard deviation of the multiplicative error of
	// each observed entry (a one-minute profiling run, §2.2).
	MeasureNoise float64
	// Density is the share of entries observed in the sparse matrices;
	// Dense rows (the offline training set, §2.2) are observed fully.
	Density float64
	Dense   int
	// MemoryBound is the share of memory-bound applications.
	MemoryBound float64
	// PlatformNoise is the idiosyncratic share of each true platform score
	// (DefaultPlatformNoise when zero, none when negative); MeasureNoise
	// applies to observed platform scores too.
	PlatformNoise float64
	Seed          uint64
}

// Config is a server configuration (SC): its generation g (overall speed,
// the fastest 1) and specialization v of the platform-score model.
type Config struct {
	Name           string
	Cores          int
	Generation     float64
	Specialization float64
}

// App is the ground truth of one generated application.
type App struct {
	Kind        AppKind
	MemoryBound bool
	Cores       int
	// Perf is the performance on each configuration, normalized so the
	// best is 1 (§2.2's scores); Scale is the raw performance on the best
	// (instructions per second, say), which profiling measures.
	Perf  []float64
	Scale float64
	// Tolerated and Caused are the sensitivity scores in [0, 1] per source
	// of interference (§2.3): the microbenchmark intensity the application
	// tolerates before it falls to QoSFraction of its performance, and the
	// intensity at which it slows a microbenchmark by 5%.
	Tolerated []float64
	Caused    []float64
}

// Synth is a generated data set: configurations, the true applications and
// the observed utility matrices (apps × configurations with normalized
// performance; apps × SoIs with tolerated and with caused sensitivity).
type Synth struct {
	Configs                 []Config
	Apps                    []App
	Perf, Tolerated, Caused *Sparse
}

func (o SynthOptions) withDefaults() (SynthOptions, error) {
	if o.Apps == 0 {
		o.Apps = DefaultApps
	}
	if o.Configs == 0 {
		o.Configs = DefaultConfigs
	}
	if o.SoIs == 0 {
		o.SoIs = DefaultSoIs
	}
	if o.Density == 0 {
		o.Density = 1
	}
	if o.MemoryBound == 0 {
		o.MemoryBound = DefaultMemoryBound
	}
	switch {
	case o.PlatformNoise == 0:
		o.PlatformNoise = DefaultPlatformNoise
	case o.PlatformNoise < 0:
		o.PlatformNoise = 0
	}
	switch {
	case math.IsNaN(o.PlatformNoise) || math.IsInf(o.PlatformNoise, 0):
		return o, fmt.Errorf("%w: PlatformNoise %v", ErrBadOptions, o.PlatformNoise)
	case o.Apps < 0 || o.Configs < 0:
		return o, fmt.Errorf("%w: %d apps, %d configurations", ErrBadOptions, o.Apps, o.Configs)
	case o.SoIs < 0 || o.SoIs > DefaultSoIs:
		return o, fmt.Errorf("%w: SoIs %d not in [1, %d]", ErrBadOptions, o.SoIs, DefaultSoIs)
	case !(o.Density > 0 && o.Density <= 1):
		return o, fmt.Errorf("%w: Density %v not in (0, 1]", ErrBadOptions, o.Density)
	case o.Dense < 0 || o.Dense > o.Apps:
		return o, fmt.Errorf("%w: Dense %d not in [0, %d]", ErrBadOptions, o.Dense, o.Apps)
	case o.Noise < 0 || o.MeasureNoise < 0 || math.IsInf(o.Noise+o.MeasureNoise, 0):
		return o, fmt.Errorf("%w: Noise %v, MeasureNoise %v", ErrBadOptions, o.Noise, o.MeasureNoise)
	case !(o.MemoryBound >= 0 && o.MemoryBound <= 1):
		return o, fmt.Errorf("%w: MemoryBound %v not in [0, 1]", ErrBadOptions, o.MemoryBound)
	}
	return o, nil
}

// Synthesize generates applications with latent platform and interference
// factors. The same options (seed included) give the same data set.
//
// Configurations and platform scores: see the platform-score model
// (platformGenLow and the constants beside it). Cores grow with the
// generation (coreChoices).
//
// Interference: latent intensities x = (memory, cache, I/O) — memory-bound
// applications have memory ≥ 0.6, the rest ≤ 0.4; I/O ≤ 0.3 (§3.4: these
// workloads rarely load network and storage) — and a sensitivity α ~
// U(0.6, 1). With L the SoI loadings,
//
//	caused_s    = clamp(0.6 · L_s·x × (1 + Noise·z))
//	tolerated_s = clamp(1 − 0.8 α · L_s·x × (1 + Noise·z))
//
// clamped to [0, 1]: applications that lean on a resource press on it and
// suffer when others do.
//
// Observed matrices hold the Dense first rows fully and each other entry
// with probability Density, times (1 + MeasureNoise·z); performance is
// observed normalized (the raw Scale is for simulated profiling).
func Synthesize(o SynthOptions) (*Synth, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5e7a11))
	s := &Synth{Configs: make([]Config, o.Configs), Apps: make([]App, o.Apps)}
	vperm := rng.Perm(o.Configs)
	rho := make([][2]float64, o.Configs)
	for c := range s.Configs {
		u := (float64(c) + 0.5 + 0.5*(rng.Float64()-0.5)) / float64(o.Configs)
		cfg := Config{Name: fmt.Sprintf("sc%02d", c), Generation: math.Exp(math.Log(platformGenLow) * (1 - u)),
			Specialization: platformKappa * (2*(float64(vperm[c])+0.5)/float64(o.Configs) - 1)}
		cfg.Cores = coreChoices[min(int(u*float64(len(coreChoices))), len(coreChoices)-1)]
		rho[c] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		s.Configs[c] = cfg
	}
	noisy := func(v, sd float64) float64 { return v * (1 + sd*rng.NormFloat64()) }
	for i := range s.Apps {
		a := App{Kind: AppKind(rng.IntN(3)), MemoryBound: rng.Float64() < o.MemoryBound}
		a.Cores = 1
		if a.Kind != SingleThreaded {
			a.Cores = appThreads
		}
		lean := 2*rng.Float64() - 1
		if a.MemoryBound {
			lean = memoryLeanLow + (1-memoryLeanLow)*rng.Float64()
		}
		sigma := platformResidual
		if rng.Float64() < platformIrregular {
			sigma *= platformIrregularScale
		}
		r := [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		a.Perf = make([]float64, o.Configs)
		for c, cfg := range s.Configs {
			v := math.Log(cfg.Generation) + lean*cfg.Specialization + sigma*(r[0]*rho[c][0]+r[1]*rho[c][1])
			a.Perf[c] = math.Max(noisy(math.Exp(v), o.PlatformNoise), 1e-6)
		}
		a.Scale = maxOf(a.Perf) * (0.5 + rng.Float64()) * 1e9
		normalizeMax(a.Perf)

		var x [numIntensities]float64
		if a.MemoryBound {
			x[intensityMemory] = 0.6 + 0.4*rng.Float64()
		} else {
			x[intensityMemory] = 0.4 * rng.Float64()
		}
		x[intensityCache] = 0.8 * rng.Float64()
		x[intensityIO] = 0.3 * rng.Float64()
		alpha := 0.6 + 0.4*rng.Float64()
		a.Tolerated = make([]float64, o.SoIs)
		a.Caused = make([]float64, o.SoIs)
		for soi := 0; soi < o.SoIs; soi++ {
			load := 0.0
			for k := range x {
				load += soiLoading[soi][k] * x[k]
			}
			a.Caused[soi] = clamp01(noisy(causedScale*load, o.Noise))
			a.Tolerated[soi] = clamp01(1 - noisy(toleratedScale*alpha*load, o.Noise))
		}
		s.Apps[i] = a
	}
	s.Perf = NewSparse(o.Apps, o.Configs)
	s.Tolerated = NewSparse(o.Apps, o.SoIs)
	s.Caused = NewSparse(o.Apps, o.SoIs)
	for i, a := range s.Apps {
		for c, v := range a.Perf {
			if i < o.Dense || rng.Float64() < o.Density {
				s.Perf.Set(i, c, noisy(v, o.MeasureNoise))
			}
		}
		for soi := range a.Tolerated {
			if i < o.Dense || rng.Float64() < o.Density {
				s.Tolerated.Set(i, soi, clamp01(noisy(a.Tolerated[soi], o.MeasureNoise)))
			}
			if i < o.Dense || rng.Float64() < o.Density {
				s.Caused.Set(i, soi, clamp01(noisy(a.Caused[soi], o.MeasureNoise)))
			}
		}
	}
	return s, nil
}

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }

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

// Latent platform features of a server configuration, in Config.Features.
const (
	FeatureFrequency = iota // clock speed
	FeatureCache            // cache capacity
	FeatureMemory           // memory bandwidth and capacity
	FeatureCores            // core count, relative to the largest
	NumFeatures
)

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

// coreChoices are the core counts of generated configurations, small
// (Atom-like, §4 Table 3) to large (quad-socket Xeon-like).
var coreChoices = []int{2, 2, 4, 4, 4, 8, 8, 8, 12, 12, 16, 16, 24, 32}

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

// SynthOptions configure Synthesize. A zero field takes its default
// (Apps 401, Configs 14, SoIs 10, Density 1, MemoryBound 0.25, Noise and
// MeasureNoise 0); Noise and MeasureNoise are used as given.
type SynthOptions struct {
	Apps    int
	Configs int
	SoIs    int // at most DefaultSoIs: the first SoIs of SoINames
	// Noise is the standard deviation of the multiplicative idiosyncratic
	// part of each true score: the share of an application's behaviour the
	// latent factors do not explain (so the truth is not exactly low rank).
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
	Seed        uint64
}

// Config is a server configuration (SC).
type Config struct {
	Name     string
	Cores    int
	Features [NumFeatures]float64
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
// Configurations: a generation g ~ U(0,1) draws cache = 0.3 + 0.5g + 0.2u
// and memory = 0.3 + 0.5g + 0.2u' (newer servers have more of both),
// frequency 0.55 + 0.45u” independently (low-power parts run slower), and
// cores from coreChoices by g.
//
// Platform scores: an application has non-negative weights w over the four
// features (a Dirichlet draw; ST applications put none on cores,
// memory-bound ones most on memory) and scores w · f_c × (1 + Noise·z) on
// configuration c, normalized per application so the best is 1. Before the
// noise the matrix has rank ≤ 4.
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
	maxCores := 0
	for c := range s.Configs {
		g := rng.Float64()
		cfg := Config{Name: fmt.Sprintf("sc%02d", c)}
		cfg.Features[FeatureFrequency] = 0.55 + 0.45*rng.Float64()
		cfg.Features[FeatureCache] = 0.3 + 0.5*g + 0.2*rng.Float64()
		cfg.Features[FeatureMemory] = 0.3 + 0.5*g + 0.2*rng.Float64()
		cfg.Cores = coreChoices[min(int(g*float64(len(coreChoices))), len(coreChoices)-1)]
		maxCores = max(maxCores, cfg.Cores)
		s.Configs[c] = cfg
	}
	for c := range s.Configs {
		s.Configs[c].Features[FeatureCores] = float64(s.Configs[c].Cores) / float64(maxCores)
	}
	noisy := func(v, sd float64) float64 { return v * (1 + sd*rng.NormFloat64()) }
	for i := range s.Apps {
		a := App{Kind: AppKind(rng.IntN(3)), MemoryBound: rng.Float64() < o.MemoryBound}
		a.Cores = 1
		if a.Kind != SingleThreaded {
			a.Cores = appThreads
		}
		// Platform weights: Gamma(1) draws normalized (Dirichlet(1,…)),
		// shaped by kind.
		var w [NumFeatures]float64
		for k := range w {
			w[k] = -math.Log(1 - rng.Float64())
		}
		if a.Kind == SingleThreaded {
			w[FeatureCores] = 0
		}
		if a.MemoryBound {
			w[FeatureMemory] += 2
		}
		a.Perf = make([]float64, o.Configs)
		for c, cfg := range s.Configs {
			v := 0.0
			for k := range w {
				v += w[k] * cfg.Features[k]
			}
			a.Perf[c] = math.Max(noisy(v, o.Noise), 1e-6)
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

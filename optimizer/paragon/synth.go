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
	// A configuration's generation g ~ U(genLow, 1) is split unevenly over
	// frequency, cache and memory (§4 Table 3: a 3.16 GHz part with 1 MB
	// of LLC beside a 1.87 GHz one with 12 MB): feature = min(1, g ×
	// (specialBase + specialGain × share)), share a Dirichlet(1) draw.
	genLow      = 0.5
	specialBase = 0.45
	specialGain = 1.65
	// DefaultFamilies and DefaultSpread: applications come from a few
	// families (benchmark suites, say) whose archetypes are Dirichlet(½)
	// draws over the features — each leans on one or two — and each
	// application adds Spread × a Dirichlet(1) draw of its own. Families
	// are what collaborative filtering relies on (§2: a new workload is
	// "a combination of known applications").
	DefaultFamilies     = 6
	DefaultSpread       = 0.3
	familyConcentration = 0.5
	// memoryLean is the weight memory-bound applications add on memory.
	memoryLean = 1.0
)

// SynthOptions configure Synthesize. A zero field takes its default
// (Apps 401, Configs 14, SoIs 10, Density 1, MemoryBound 0.25, Families 6,
// Spread 0.3); Noise and MeasureNoise are used as given (zero is none).
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
	// Families and Spread shape the platform weights (DefaultFamilies,
	// DefaultSpread); a negative Spread means none.
	Families int
	Spread   float64
	Seed     uint64
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
	if o.Families == 0 {
		o.Families = DefaultFamilies
	}
	switch {
	case o.Spread == 0:
		o.Spread = DefaultSpread
	case o.Spread < 0:
		o.Spread = 0
	}
	switch {
	case o.Families < 0 || math.IsNaN(o.Spread) || math.IsInf(o.Spread, 0):
		return o, fmt.Errorf("%w: Families %d, Spread %v", ErrBadOptions, o.Families, o.Spread)
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
// Configurations: a generation g ~ U(0.5, 1) sets the cores (from
// coreChoices) and is split unevenly over frequency, cache and memory
// bandwidth, so configurations trade one for another as §4's Table 3
// does; the cores feature is min(cores, 4)/4, what a 4-thread application
// can use.
//
// Platform scores: an application has non-negative weights w over the four
// features — its family's archetype plus Spread × its own draw; ST
// applications put none on cores, memory-bound ones lean on memory — and
// scores w · f_c × (1 + Noise·z) on configuration c, normalized per
// application so the best is 1. Before the noise the matrix has rank ≤ 4.
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
	families := make([][NumFeatures]float64, o.Families)
	for f := range families {
		families[f] = dirichlet(rng, NumFeatures, familyConcentration)
	}
	for c := range s.Configs {
		g := genLow + (1-genLow)*rng.Float64()
		cfg := Config{Name: fmt.Sprintf("sc%02d", c)}
		split := dirichlet(rng, 3, 1)
		for k, f := range []int{FeatureFrequency, FeatureCache, FeatureMemory} {
			cfg.Features[f] = math.Min(1, g*(specialBase+specialGain*split[k]))
		}
		pos := (g - genLow) / (1 - genLow)
		cfg.Cores = coreChoices[min(int(pos*float64(len(coreChoices))), len(coreChoices)-1)]
		cfg.Features[FeatureCores] = math.Min(float64(cfg.Cores), appThreads) / appThreads
		s.Configs[c] = cfg
	}
	noisy := func(v, sd float64) float64 { return v * (1 + sd*rng.NormFloat64()) }
	for i := range s.Apps {
		a := App{Kind: AppKind(rng.IntN(3)), MemoryBound: rng.Float64() < o.MemoryBound}
		a.Cores = 1
		if a.Kind != SingleThreaded {
			a.Cores = appThreads
		}
		// Platform weights: the family's archetype plus a spread of its
		// own; ST applications do not use more cores, memory-bound ones
		// lean on memory.
		fam := families[rng.IntN(len(families))]
		own := dirichlet(rng, NumFeatures, 1)
		var w [NumFeatures]float64
		for k := range w {
			w[k] = fam[k] + o.Spread*own[k]
		}
		if a.Kind == SingleThreaded {
			w[FeatureCores] = 0
		}
		if a.MemoryBound {
			w[FeatureMemory] += memoryLean
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

// dirichlet draws n components from a symmetric Dirichlet(alpha)
// distribution: Gamma(alpha) draws, normalized.
func dirichlet(rng *rand.Rand, n int, alpha float64) [NumFeatures]float64 {
	var out [NumFeatures]float64
	sum := 0.0
	for k := 0; k < n; k++ {
		out[k] = gamma(rng, alpha)
		sum += out[k]
	}
	for k := 0; k < n; k++ {
		out[k] /= sum
	}
	return out
}

// gamma draws from Gamma(alpha, 1): Marsaglia–Tsang for alpha ≥ 1, and
// Gamma(alpha + 1) × U^(1/alpha) below.
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return gamma(rng, alpha+1) * math.Pow(1-rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

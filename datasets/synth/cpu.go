package synth

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Per-VM CPU utilization summaries follow Resource Central Fig 1: the CDFs
// of each VM's average utilization and of its 95th percentile of 5-minute
// maxima ("P95 max"), read off the figure's "All" curves at the points
// below. The text fixes two of them: 60% of VMs average under 20%, 40% have
// a P95 max under 50%; and "a large percentage" run above 80% at P95.
var (
	avgCDF = knots{{0, 0}, {2, 0.20}, {8, 0.40}, {20, 0.60}, {45, 0.80}, {65, 0.90}, {100, 1}}
	p95CDF = knots{{0, 0}, {5, 0.10}, {15, 0.20}, {30, 0.30}, {50, 0.40}, {70, 0.50}, {85, 0.60}, {95, 0.65}, {100, 1}}
)

const (
	// subUtilCorr is the correlation of a VM's utilization level (normal
	// scores) with its subscription's (RC §3.2: 80% of subscriptions have
	// a CoV of average utilization under 1).
	subUtilCorr = 0.7
	// avgP95Corr is the correlation of the normal scores of average and P95
	// max (RC Fig 8: "strongly positively correlated").
	avgP95Corr = 0.85
)

// cpuSummary draws a VM's whole-life average, P95 max and max utilization
// (percent) through a Gaussian copula: normal scores correlated with the
// subscription's level, mapped through avgCDF and p95CDF. The marginals are
// the figure's; P95 max is raised to at least the average and the max lies
// between P95 max and 100.
func cpuSummary(rng *rand.Rand, subZ float64) (avg, p95, mx float64) {
	za := subUtilCorr*subZ + math.Sqrt(1-subUtilCorr*subUtilCorr)*rng.NormFloat64()
	zp := avgP95Corr*za + math.Sqrt(1-avgP95Corr*avgP95Corr)*rng.NormFloat64()
	avg = avgCDF.quantile(normCDF(za))
	p95 = p95CDF.quantile(normCDF(zp))
	if p95 < avg {
		p95 = avg + (100-avg)*0.1*rng.Float64()
	}
	mx = p95 + (100-p95)*math.Sqrt(rng.Float64())
	return round2(avg), round2(p95), round2(mx)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// Reading is one 5-minute CPU utilization sample (percent).
type Reading struct {
	TS  float64 // seconds from the trace start
	Min float64
	Max float64
	Avg float64
}

// Series is a VM's CPU utilization time series.
type Series struct {
	VMID     int64
	Readings []Reading
}

// Series model constants.
const (
	readingInterval  = 5 * minute
	seriesNoiseAR    = 0.9  // AR(1) coefficient of the log-noise per reading
	seriesNoisePer   = 0.20 // its stationary sd for periodic VMs
	seriesNoiseOther = 0.45 // ... and for the others
	seriesAmpMin     = 0.5  // diurnal amplitude of periodic VMs, U(min, max)
	seriesAmpMax     = 0.9
)

// makeSeries picks cfg.SeriesVMs VMs at random among those alive (and
// classified, i.e. living ≥ 3 days) for at least min(SeriesDays, Days, 3)
// days of the trace, and draws each one's readings from its own stream.
func makeSeries(cfg Config, vms []VM) []Series {
	if cfg.SeriesVMs == 0 {
		return nil
	}
	horizon := cfg.Days * day
	span := math.Min(cfg.SeriesDays*day, horizon)
	need := math.Min(span, classifyAfter)
	var eligible []int
	for i, v := range vms {
		if v.Category != CategoryUnknown && math.Min(v.End, horizon)-math.Max(v.Start, 0) >= need {
			eligible = append(eligible, i)
		}
	}
	rng := stream(cfg.Seed, streamSeriesPick)
	n := min(cfg.SeriesVMs, len(eligible))
	for i := 0; i < n; i++ { // partial Fisher–Yates
		j := i + rng.IntN(len(eligible)-i)
		eligible[i], eligible[j] = eligible[j], eligible[i]
	}
	chosen := eligible[:n]
	slices.Sort(chosen)
	out := make([]Series, n)
	for i, vi := range chosen {
		out[i] = seriesFor(cfg, vms[vi], span)
	}
	return out
}

// seriesFor draws a VM's readings from t0 (its start, or 0, rounded up to
// the reading grid) for span seconds or until it ends. avg(t) is the VM's
// average times a diurnal factor 1 + a·sin(2π(t − φ)/24 h) (periodic VMs)
// times exp of an AR(1) log-noise; each reading's max adds a share of the
// VM's P95-max headroom and its min is a share of avg.
func seriesFor(cfg Config, v VM, span float64) Series {
	rng := streamAt(cfg.Seed, streamSeries, uint64(v.ID))
	horizon := cfg.Days * day
	t0 := math.Ceil(math.Max(v.Start, 0)/readingInterval) * readingInterval
	end := math.Min(math.Min(v.End, horizon), t0+span)
	n := int(math.Max(0, math.Floor((end-t0)/readingInterval)))
	amp, phase, sd := 0.0, 0.0, seriesNoiseOther
	if v.Periodic {
		amp = seriesAmpMin + (seriesAmpMax-seriesAmpMin)*rng.Float64()
		phase = rng.Float64() * day
		sd = seriesNoisePer
	}
	head := math.Max(v.CPUP95Max-v.CPUAvg, 0)
	innov := sd * math.Sqrt(1-seriesNoiseAR*seriesNoiseAR)
	x := sd * rng.NormFloat64()
	s := Series{VMID: v.ID, Readings: make([]Reading, n)}
	for i := range s.Readings {
		t := t0 + float64(i)*readingInterval
		x = seriesNoiseAR*x + innov*rng.NormFloat64()
		level := v.CPUAvg * (1 + amp*math.Sin(2*math.Pi*(t-phase)/day)) * math.Exp(x-sd*sd/2)
		avg := math.Min(math.Max(level, 0.01), 100)
		mx := math.Min(avg+head*(0.2+0.8*rng.Float64()), 100)
		mn := avg * (0.3 + 0.6*rng.Float64())
		s.Readings[i] = Reading{TS: t, Min: round2(mn), Max: round2(math.Max(mx, avg)), Avg: round2(avg)}
	}
	return s
}

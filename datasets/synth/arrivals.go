package synth

import (
	"math"
	"math/rand/v2"
)

// baseRate is the arrival intensity at time t before bursts: diurnal with
// its peak at diurnalPeakHour, scaled down on weekends (t = 0 is Monday
// 00:00).
//
//	rate(t) = (1 + A·cos(2π(h(t) − peak)/24)) · (weekendFactor if Saturday or Sunday)
func baseRate(t float64) float64 {
	h := math.Mod(t, day) / hour
	r := 1 + diurnalAmplitude*math.Cos(2*math.Pi*(h-diurnalPeakHour)/24)
	if d := int(t/day) % 7; d == 5 || d == 6 {
		r *= weekendFactor
	}
	return r
}

// intensity returns the arrival rate per intensityBin over [0, horizon):
// baseRate plus bursts, which arrive as a Poisson process of burstsPerDay,
// last a log-normal time around burstMedian and multiply the rate by
// 1 + U(1, burstMaxGain) while they last (Protean Fig 4).
func intensity(rng *rand.Rand, horizon float64) []float64 {
	nb := int(math.Ceil(horizon / intensityBin))
	rate := make([]float64, nb)
	for b := range rate {
		rate[b] = baseRate((float64(b) + 0.5) * intensityBin)
	}
	burst := make([]float64, nb)
	for t := rng.ExpFloat64() * day / burstsPerDay; t < horizon; t += rng.ExpFloat64() * day / burstsPerDay {
		dur := lognormal(rng, math.Log(burstMedian), burstSigma)
		gain := 1 + (burstMaxGain-1)*rng.Float64()
		for b := int(t / intensityBin); b < nb && float64(b)*intensityBin < t+dur; b++ {
			burst[b] = math.Max(burst[b], gain)
		}
	}
	for b := range rate {
		rate[b] *= 1 + burst[b]
	}
	return rate
}

// arrivalTimes draws n sorted arrival times in [0, horizon) from the
// intensity: sorted uniforms (normalized sums of exponential spacings)
// mapped through the inverse cumulative intensity, in O(n + bins).
func arrivalTimes(rng *rand.Rand, n int, horizon float64) []float64 {
	if n == 0 {
		return nil
	}
	rate := intensity(rng, horizon)
	var total float64
	for _, r := range rate {
		total += r
	}
	u := make([]float64, n)
	var s float64
	for i := range u {
		s += rng.ExpFloat64()
		u[i] = s
	}
	s += rng.ExpFloat64()
	out := make([]float64, n)
	b, below := 0, 0.0 // bin, cumulative intensity before it
	for i := range u {
		target := u[i] / s * total
		for b < len(rate)-1 && below+rate[b] < target {
			below += rate[b]
			b++
		}
		frac := math.Min(math.Max((target-below)/rate[b], 0), 1)
		out[i] = math.Min((float64(b)+frac)*intensityBin, math.Nextafter(horizon, 0))
	}
	return out
}

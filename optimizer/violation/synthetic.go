package violation

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// SyntheticStep is the sampling step of the synthetic curves, the 10-minute
// granularity of the paper's traces (§8.1).
const SyntheticStep = 10 * time.Minute

// stepsPerDay at SyntheticStep.
const stepsPerDay = int(24 * time.Hour / SyntheticStep)

// MemoryPerCore is the memory of a node per vCore in the paper's hardware
// (§8.1: "5.1 GB of memory per vCore"); synthetic tenants get the same
// memory cap per vCore.
const MemoryPerCore = 5.1

// Shapes of the synthetic curves, from the observations of §3.1 (and, where
// the paper gives no figure, a stated choice).
const (
	// fastGrowers is the share of tenants whose disk and memory grow fast
	// and then plateau (§3.1: "over 90% of tenants reach 95% of their
	// maximum … within 2%–5% of their lifetime"); the rest grow
	// throughout their lifetime (Figure 3).
	fastGrowers = 0.9
	// diskGrowthMin and diskGrowthMax bound the fast growers' disk growth
	// phase as a fraction of the lifetime (§3.1: 2%–5%; from 1% here).
	diskGrowthMin, diskGrowthMax = 0.01, 0.05
	// memGrowthMin and memGrowthMax: memory reaches its peak "at a much
	// later time than … disk" (§5.3).
	memGrowthMin, memGrowthMax = 0.02, 0.15
	// memDropShare and pausingShare are the shares of provisioned and of
	// serverless tenants whose memory drops below 80% of its peak once
	// reached — together under the 7% of §3.1 ("less than 7% of tenants
	// ever drop below 80% of the maximum") with serverless at 10% of
	// tenants.
	memDropShare = 0.03
	pausingShare = 0.35
	// lifetimeMedianDays and lifetimeSigma give the log-normal lifetime
	// (a choice: the paper shows no lifetime distribution).
	lifetimeMedianDays = 2.0
	lifetimeSigma      = 1.1
	// minLifetime and maxLifetime clip it, in steps (1 hour to 60 days).
	minLifetime, maxLifetime = 6, 60 * 144
)

// syntheticClass is one tenant class: an edition (storage and billing, §3)
// and a size in vCores.
type syntheticClass struct {
	edition string
	vcores  float64
	weight  float64
}

// The synthetic mix: Azure SQL-like editions — "gp" (remote storage, local
// disk for tempdb and caches only), "bc" (local SSD holding the data),
// "sl" (serverless: remote storage, memory reclaimed when idle) — at
// 2–32 vCores, smaller sizes more common.
var syntheticClasses = func() []syntheticClass {
	var out []syntheticClass
	for _, e := range []struct {
		name string
		w    float64
	}{{"gp", 0.6}, {"bc", 0.3}, {"sl", 0.1}} {
		for _, v := range []struct{ cores, w float64 }{{2, 0.35}, {4, 0.30}, {8, 0.20}, {16, 0.10}, {32, 0.05}} {
			out = append(out, syntheticClass{edition: e.name, vcores: v.cores, weight: e.w * v.w})
		}
	}
	return out
}()

func (c syntheticClass) name() string { return fmt.Sprintf("%s-%d", c.edition, int(c.vcores)) }

// max is MaxUsage of the class: its vCores, MemoryPerCore per vCore, and
// local disk of 256 GB per vCore up to 4 TB for "bc", 32 GB per vCore
// otherwise.
func (c syntheticClass) max() Vec {
	disk := 32 * c.vcores
	if c.edition == "bc" {
		disk = min(256*c.vcores, 4096)
	}
	return Vec{CPU: c.vcores, Memory: MemoryPerCore * c.vcores, Disk: disk}
}

// Synthetic generates n tenant curves with the shapes of §3.1, seeded:
// disk and memory grow fast (concave) to a plateau over the first few
// percent of the lifetime for most tenants and linearly throughout it for
// the rest, with small noise, rare memory drops (frequent, deep ones for
// serverless tenants); CPU is noisy — a per-tenant level with a daily cycle,
// autocorrelated log-normal noise and short spikes. A shared latent
// activity level correlates a tenant's resources and its lifetime. Units:
// vCores, GB. The same seed gives the same curves.
func Synthetic(seed uint64, n int) []Curve {
	rng := rand.New(rand.NewPCG(seed, 0x7e4a7c15))
	var total float64
	for _, c := range syntheticClasses {
		total += c.weight
	}
	out := make([]Curve, n)
	for i := range out {
		u := rng.Float64() * total
		cls := syntheticClasses[len(syntheticClasses)-1]
		for _, c := range syntheticClasses {
			if u < c.weight {
				cls = c
				break
			}
			u -= c.weight
		}
		out[i] = synthCurve(rng, cls, fmt.Sprintf("syn-%d", i))
	}
	return out
}

func synthCurve(rng *rand.Rand, cls syntheticClass, id string) Curve {
	z := rng.NormFloat64() // latent activity
	corr := func(rho float64) float64 { return rho*z + math.Sqrt(1-rho*rho)*rng.NormFloat64() }
	life := math.Exp(math.Log(lifetimeMedianDays*float64(stepsPerDay)) + lifetimeSigma*corr(0.3))
	l := int(min(max(math.Round(life), minLifetime), maxLifetime))
	cap := cls.max()
	c := Curve{ID: id, Class: cls.name(), Step: SyntheticStep, Max: cap}

	diskFrac := clamp(math.Exp(math.Log(0.3)+0.6*corr(0.6)), 0.02, 1)
	c.Demand[Disk] = growthSeries(rng, l, diskFrac*cap[Disk], diskGrowthMin, diskGrowthMax, 0.003)

	memFrac := clamp(math.Exp(math.Log(0.55)+0.35*corr(0.6)), 0.05, 1)
	mem := growthSeries(rng, l, memFrac*cap[Memory], memGrowthMin, memGrowthMax, 0.01)
	switch {
	case cls.edition == "sl":
		if rng.Float64() < pausingShare {
			reclaim(rng, mem, 0.5, 0.3, 0.7)
		}
	case rng.Float64() < memDropShare:
		reclaim(rng, mem, 1.5/float64(max(l/stepsPerDay, 1)), 0.6, 0.8)
	}
	c.Demand[Memory] = mem

	level := clamp(math.Exp(math.Log(0.2)+0.6*corr(0.5)), 0.01, 0.8)
	amp := 0.6 * rng.Float64()
	phase := 2 * math.Pi * rng.Float64()
	cpu := make([]float32, l)
	ar, spike := 0.0, 0
	var spikeLevel float64
	for d := range cpu {
		ar = 0.9*ar + 0.25*math.Sqrt(1-0.81)*rng.NormFloat64()
		x := level * (1 + amp*math.Sin(2*math.Pi*float64(d)/float64(stepsPerDay)+phase)) * math.Exp(ar)
		if spike == 0 && rng.Float64() < 0.005 {
			spike, spikeLevel = 1+rng.IntN(3), 0.3+0.5*rng.Float64()
		}
		if spike > 0 {
			x += spikeLevel
			spike--
		}
		cpu[d] = float32(cap[CPU] * clamp(x, 0, 1))
	}
	c.Demand[CPU] = cpu
	return c
}

// growthSeries is a disk or memory curve of l samples growing from a share
// of peak to peak: concave over a short growth phase for fast growers,
// linear over the whole lifetime otherwise, with multiplicative noise of
// relative size noise that never exceeds peak.
func growthSeries(rng *rand.Rand, l int, peak, gMin, gMax, noise float64) []float32 {
	s := make([]float32, l)
	init := peak * (0.05 + 0.45*rng.Float64())
	fast := rng.Float64() < fastGrowers
	g := float64(l - 1)
	if fast {
		g = max(1, math.Round(float64(l)*(gMin+(gMax-gMin)*rng.Float64())))
	}
	for d := range s {
		x := peak
		if f := float64(d) / max(g, 1); f < 1 {
			if fast {
				x = init + (peak-init)*(1-(1-f)*(1-f))
			} else {
				x = init + (peak-init)*f
			}
		}
		s[d] = float32(x * (1 - math.Abs(noise*rng.NormFloat64())))
	}
	return s
}

// reclaim cuts a memory series to a share in [lo, hi] of itself for
// episodes of a few hours, perDay episodes a day on average, after the
// first tenth of its life.
func reclaim(rng *rand.Rand, s []float32, perDay, lo, hi float64) {
	p := perDay / float64(stepsPerDay)
	for d := len(s) / 10; d < len(s); d++ {
		if rng.Float64() >= p {
			continue
		}
		f := float32(lo + (hi-lo)*rng.Float64())
		n := 6 + rng.IntN(4*6) // 1–5 hours
		for k := d; k < min(d+n, len(s)); k++ {
			s[k] *= f
		}
		d += n
	}
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }

package violation

import (
	"math"
	"slices"
)

// GrowthReach is the fraction of M at which Compress ends the growth phase:
// §3.1 finds that over 90% of tenants reach 95% of their maximum disk or
// memory demand within 2–5% of their lifetime.
const GrowthReach = 0.95

// CPUQuantile is the percentile that models CPU demand (§5.3: "a relatively
// high percentile to err on the side of over-estimating" violations).
const CPUQuantile = 0.90

// Growth is the §5.3 model of disk or memory demand: linear growth from the
// initial demand I to the maximum M over the growth phase of G steps, then
// the plateau M:
//
//	demand(δ) = I + (δ/G)·(M − I)   for δ < G
//	demand(δ) = M                   for δ ≥ G
//
// Equation 2 of the paper prints the ramp as I + (δ/G)·M, which overshoots
// to I+M at δ = G and then drops to M; that curve is not monotone, and the
// |S|-time-point reduction of §5.3 needs monotone curves, so the ramp here
// ends at M.
type Growth struct {
	M float64 // maximum size the tenant grows to
	G int     // duration of the growth phase, steps
	I float64 // initial demand first reported
}

// At evaluates the model at δ steps after creation.
func (g Growth) At(delta int) float64 {
	if delta >= g.G {
		return g.M
	}
	return g.I + (g.M-g.I)*float64(delta)/float64(g.G)
}

// Model is the compressed demand curve of §5.3, the 8-tuple
// (M_disk, G_disk, I_disk, M_mem, G_mem, I_mem, U90_cpu, L). Every resource
// is monotone non-decreasing in δ, which is what lets Algorithm 1 check only
// |S| time points.
type Model struct {
	Disk     Growth
	Memory   Growth
	CPU90    float64 // U90_cpu, the CPUQuantile of the CPU series
	Lifetime int     // L, samples
}

// At evaluates the model at δ steps after creation.
func (m Model) At(delta int) Vec {
	var v Vec
	v[CPU] = m.CPU90
	v[Memory] = m.Memory.At(delta)
	v[Disk] = m.Disk.At(delta)
	return v
}

// Compress fits the §5.3 model to a curve: M is the series maximum, I its
// first sample, G the first δ at which the series reaches GrowthReach·M, and
// U90 the nearest-rank CPUQuantile of the CPU samples. An absent resource
// compresses to zeros.
func Compress(c Curve) Model {
	return Model{
		Disk:     fitGrowth(c.Demand[Disk]),
		Memory:   fitGrowth(c.Demand[Memory]),
		CPU90:    quantile(c.Demand[CPU], CPUQuantile),
		Lifetime: c.Lifetime(),
	}
}

func fitGrowth(s []float32) Growth {
	if len(s) == 0 {
		return Growth{}
	}
	var m float32
	for _, x := range s {
		m = max(m, x)
	}
	g := Growth{M: float64(m), I: float64(s[0])}
	reach := GrowthReach * g.M
	for d, x := range s {
		if float64(x) >= reach {
			g.G = d
			break
		}
	}
	return g
}

// quantile is the nearest-rank q-quantile: the smallest sample with at least
// ⌈q·n⌉ samples at or below it.
func quantile(s []float32, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	k := int(math.Ceil(q*float64(len(c)))) - 1
	return float64(c[max(k, 0)])
}

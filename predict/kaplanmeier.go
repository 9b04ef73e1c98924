package predict

import (
	"math"
	"sort"
)

// KaplanMeier is the Kaplan–Meier estimate of a survival function from
// right-censored times: a step function that is 1 before Times[0] and
// Surv[k] on [Times[k], Times[k+1]). Times are the distinct times at which
// at least one observed (uncensored) life ended, ascending.
type KaplanMeier struct {
	Times []float64
	Surv  []float64
}

// FitKaplanMeier estimates S(t) = P(T > t) from times and whether each was
// observed (false: right-censored, the life lasted longer than its time):
//
//	Ŝ(t) = ∏_{tₖ ≤ t} (1 − dₖ/nₖ)
//
// over the distinct observed times tₖ, with dₖ the lives observed to end
// at tₖ and nₖ those at risk there, every life whose time is ≥ tₖ. Ties: a
// life censored at tₖ is still at risk at tₖ (censoring is taken to come
// just after the deaths of the same instant). NaN times are skipped.
func FitKaplanMeier(time []float64, observed []bool) KaplanMeier {
	idx := make([]int, 0, len(time))
	for i, t := range time {
		if !math.IsNaN(t) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return time[idx[a]] < time[idx[b]] })
	var km KaplanMeier
	s, atRisk := 1.0, len(idx)
	for i := 0; i < len(idx); {
		t := time[idx[i]]
		d, n := 0, 0
		for ; i < len(idx) && time[idx[i]] == t; i++ {
			n++
			if observed[idx[i]] {
				d++
			}
		}
		if d > 0 {
			s *= 1 - float64(d)/float64(atRisk)
			km.Times = append(km.Times, t)
			km.Surv = append(km.Surv, s)
		}
		atRisk -= n
	}
	return km
}

// At is Ŝ(t).
func (k KaplanMeier) At(t float64) float64 {
	i := sort.Search(len(k.Times), func(i int) bool { return k.Times[i] > t })
	if i == 0 {
		return 1
	}
	return k.Surv[i-1]
}

// Median is the smallest time at which Ŝ falls to 0.5 or below; +Inf when
// it never does (more than half the lives outlast the data).
func (k KaplanMeier) Median() float64 {
	for i, s := range k.Surv {
		if s <= 0.5 {
			return k.Times[i]
		}
	}
	return math.Inf(1)
}

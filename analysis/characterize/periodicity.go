package characterize

import (
	"context"
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"

	"placelab/analysis"
	store "placelab/sql"
)

// Periodicity detection (Resource Central §3.6): a VM whose CPU utilization
// repeats at the diurnal scale is potentially interactive; series shorter
// than MinSeriesDays are not classified.
const (
	// MinSeriesDays is RC's minimum: "at least 3 days".
	MinSeriesDays = 3.0
	// MinPeriodHours and MaxPeriodHours bound the periods looked for.
	MinPeriodHours = 0.75
	MaxPeriodHours = 48.0
	// PeakShare is the share of the series' (non-DC) spectral power the
	// dominant peak (its bin and two neighbours) must hold for the series to
	// be called periodic.
	PeakShare = 0.08
	// MinPeakShare is the share any significant peak must hold: below it a
	// peak, however sharp, moves too little of the utilization to matter.
	MinPeakShare = 0.005
	// NoiseWidth is the half-width, relative to the peak's frequency, of the
	// neighbourhood whose median power is the local noise floor; NoiseMinBins
	// keeps the neighbourhood of low-frequency peaks wide enough.
	NoiseWidth   = 0.25
	NoiseMinBins = 6
	// HarmonicSlack is how close (relative) a frequency ratio must be to an
	// integer for a peak to count as a harmonic.
	HarmonicSlack = 0.03
	// HarmonicRatio: a longer period whose peak holds at least this share of
	// the strongest peak is taken as the fundamental.
	HarmonicRatio = 0.5
	// PeakOverMedian is how far above the local noise floor (median power
	// of the neighbouring bins) a peak must stand: noise spreads power
	// evenly, a period concentrates it.
	PeakOverMedian = 25.0
	// DiurnalTolerance is how close to 24 h a period must be to be diurnal.
	DiurnalTolerance = 0.1
)

// PeriodResult is what DetectPeriod finds in one series.
type PeriodResult struct {
	Periodic    bool
	PeriodHours float64 // the dominant (strongest significant) period
	Strength    float64 // share of non-DC power in the dominant peak's bins
	// Periods lists every significant period, strongest first (the FFT
	// "detects periodicity at multiple time scales", RC §3.6): a series can
	// spike every hour and also follow the day.
	Periods []Period
}

// Period is one significant peak of the power spectrum.
type Period struct {
	Hours     float64 // refined between bins by the power-weighted frequency
	Share     float64 // share of non-DC power in the peak and its two neighbours
	OverNoise float64 // the peak bin's power over the local noise floor
}

// HasPeriod reports whether one of the significant periods lies within
// tol (relative) of hours.
func (r PeriodResult) HasPeriod(hours, tol float64) bool {
	for _, p := range r.Periods {
		if math.Abs(p.Hours-hours) <= tol*hours {
			return true
		}
	}
	return false
}

// DetectPeriod finds the significant periods of x, uniformly sampled every
// step seconds, with gonum's real FFT: subtract the mean, take the power
// spectrum |X_k|², and look at the bins k whose period n·step/k lies in
// [minH, maxH] hours. A bin is a peak when it is a local maximum; its
// strength is its power with its two neighbours (a period between bins is
// not split). A peak is significant when
//
//	power_k ≥ PeakOverMedian · median(power over the bins within ±NoiseWidth of k)
//	share_k  = (power_{k−1} + power_k + power_{k+1}) / Σ_{j≥1} power_j ≥ MinPeakShare
//
// The floor is local because utilization spectra are red: low frequencies
// carry more power than high ones, so a band-wide median would make every
// slow wiggle look significant. A periodogram bin of noise is roughly
// exponential around its local mean, so PeakOverMedian·median stands far
// above what noise reaches. Harmonics of a significant period (integer
// fractions of it) are dropped in favour of the fundamental. The series is
// Periodic when the dominant peak also holds PeakShare of the power.
func DetectPeriod(x []float64, step, minH, maxH float64) PeriodResult {
	n := len(x)
	if n < 8 {
		return PeriodResult{}
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	y := make([]float64, n)
	for i, v := range x {
		y[i] = v - mean
	}
	fft := fourier.NewFFT(n)
	c := fft.Coefficients(nil, y)
	pw := make([]float64, len(c))
	total := 0.0
	for k := 1; k < len(c); k++ {
		a := cmplx.Abs(c[k])
		pw[k] = a * a
		total += pw[k]
	}
	if total == 0 {
		return PeriodResult{}
	}
	span := float64(n) * step
	lo := int(math.Ceil(span / (maxH * 3600)))
	hi := int(math.Floor(span / (minH * 3600)))
	if lo < 2 {
		lo = 2
	}
	if hi > len(c)-2 {
		hi = len(c) - 2
	}
	if lo > hi {
		return PeriodResult{}
	}
	peak := func(k int) float64 { return pw[k-1] + pw[k] + pw[k+1] }
	// floor is the median power of the bins within ±NoiseWidth of k (at
	// least NoiseMinBins on each side), leaving out the peak's own three.
	floor := func(k int) float64 {
		w := max(int(NoiseWidth*float64(k)), NoiseMinBins)
		var xs []float64
		for j := max(1, k-w); j <= min(len(pw)-1, k+w); j++ {
			if j < k-1 || j > k+1 {
				xs = append(xs, pw[j])
			}
		}
		return median(xs)
	}
	type cand struct {
		k           int
		share, over float64
	}
	var cands []cand
	for k := lo; k <= hi; k++ {
		if pw[k] < pw[k-1] || pw[k] < pw[k+1] || pw[k] == 0 {
			continue
		}
		sh := peak(k) / total
		if sh < MinPeakShare {
			continue
		}
		f := floor(k)
		over := math.Inf(1)
		if f > 0 {
			over = pw[k] / f
		}
		if over >= PeakOverMedian {
			cands = append(cands, cand{k, sh, over})
		}
	}
	if len(cands) == 0 {
		return PeriodResult{}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].share > cands[j].share })
	// Drop harmonics: a peak at (about) an integer multiple of a stronger
	// or longer significant peak's frequency belongs to that period.
	refine := func(k int) float64 {
		w := pw[k-1] + pw[k] + pw[k+1]
		return (float64(k-1)*pw[k-1] + float64(k)*pw[k] + float64(k+1)*pw[k+1]) / w
	}
	var res PeriodResult
	var kept []float64 // refined frequencies (in bins) kept so far
	for _, cd := range cands {
		kf := refine(cd.k)
		harmonic := false
		for _, f0 := range kept {
			if r := kf / f0; r > 1.5 && math.Abs(r-math.Round(r)) <= HarmonicSlack*r {
				harmonic = true
				break
			}
		}
		// A weaker candidate at a lower frequency whose harmonic the kept
		// peak is: report the fundamental, as 24 h over its 12 h and 8 h.
		if harmonic {
			continue
		}
		kept = append(kept, kf)
		res.Periods = append(res.Periods, Period{Hours: span / kf / 3600, Share: cd.share, OverNoise: cd.over})
	}
	// The dominant period: the strongest peak, unless a longer period of
	// which it is a harmonic holds HarmonicRatio of its power.
	dom := res.Periods[0]
	for _, p := range res.Periods[1:] {
		if p.Hours > dom.Hours && p.Share >= HarmonicRatio*res.Periods[0].Share {
			if r := p.Hours / dom.Hours; math.Abs(r-math.Round(r)) <= HarmonicSlack*r {
				dom = p
			}
		}
	}
	res.PeriodHours, res.Strength = dom.Hours, dom.Share
	res.Periodic = dom.Share >= PeakShare
	return res
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ { // insertion sort: bands are small
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// ClassStats summarizes a classification run.
type ClassStats struct {
	Dataset          string `json:"dataset"`
	Series           int    `json:"series"`
	Interactive      int    `json:"interactive"`
	DelayInsensitive int    `json:"delay_insensitive"`
	Unknown          int    `json:"unknown"`
	Periodic         int    `json:"periodic"`
}

// ClassifyWorkloads classifies every VM of a dataset that has a CPU series
// and stores the result in workload_class (replacing the dataset's rows):
// a series of at least MinSeriesDays is resampled onto the 5-minute grid
// (gaps hold the last reading) and DetectPeriod decides; a significant
// period within DiurnalTolerance of 24 h — dominant or not — makes the VM
// potentially interactive (RC §3.6: periodic "at the diurnal scale").
func ClassifyWorkloads(ctx context.Context, db *store.DB, dataset string, progress func(done, total int64)) (ClassStats, error) {
	st := ClassStats{Dataset: dataset}
	rows, err := db.SQL().QueryContext(ctx, store.MustQuery("classify_series"), dataset)
	if err != nil {
		return st, err
	}
	type result struct {
		vm   int64
		days float64
		r    PeriodResult
	}
	var results []result
	var cur int64 = -1
	var ts, vals []float64
	flush := func() {
		if cur < 0 || len(ts) == 0 {
			return
		}
		days := (ts[len(ts)-1] - ts[0] + analysis.SampleSeconds) / 86400
		r := result{vm: cur, days: days}
		if days >= MinSeriesDays {
			n := int(math.Round((ts[len(ts)-1]-ts[0])/analysis.SampleSeconds)) + 1
			grid := make([]float64, n)
			j := 0
			for i := range grid {
				t := ts[0] + float64(i)*analysis.SampleSeconds
				for j+1 < len(ts) && ts[j+1] <= t+analysis.SampleSeconds/2 {
					j++
				}
				grid[i] = vals[j]
			}
			r.r = DetectPeriod(grid, analysis.SampleSeconds, MinPeriodHours, MaxPeriodHours)
		}
		results = append(results, r)
	}
	for rows.Next() {
		var vm int64
		var t, v float64
		if err := rows.Scan(&vm, &t, &v); err != nil {
			rows.Close()
			return st, err
		}
		if vm != cur {
			flush()
			cur, ts, vals = vm, ts[:0], vals[:0]
			if progress != nil && len(results)%64 == 0 {
				progress(int64(len(results)), 0)
			}
		}
		ts, vals = append(ts, t), append(vals, v)
	}
	if err := rows.Err(); err != nil {
		return st, err
	}
	rows.Close()
	flush()
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		if err := w.Exec("DELETE FROM workload_class WHERE dataset = $1", dataset); err != nil {
			return err
		}
		for _, r := range results {
			class := "unknown"
			var period any
			switch {
			case r.days < MinSeriesDays:
				st.Unknown++
			case r.r.HasPeriod(24, DiurnalTolerance):
				class = "interactive"
				st.Interactive++
			default:
				class = "delay-insensitive"
				st.DelayInsensitive++
			}
			if r.r.Periodic {
				period = r.r.PeriodHours
				st.Periodic++
			}
			var periods []float64
			for _, p := range r.r.Periods {
				periods = append(periods, math.Round(p.Hours*1000)/1000)
			}
			if err := w.Append("workload_class", dataset, r.vm, r.days, r.r.Periodic, period, r.r.Strength, class, periods); err != nil {
				return err
			}
		}
		return nil
	})
	st.Series = len(results)
	return st, err
}

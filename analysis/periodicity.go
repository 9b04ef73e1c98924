package analysis

import (
	"context"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"

	store "placelab/sql"
)

// Periodicity detection (Resource Central §3.6): a VM whose CPU utilization
// repeats at the diurnal scale is potentially interactive; series shorter
// than MinSeriesDays are not classified.
const (
	// MinSeriesDays is RC's minimum: "at least 3 days".
	MinSeriesDays = 3.0
	// SampleSeconds is the readings' period (5 minutes in the Azure traces).
	SampleSeconds = 300.0
	// MinPeriodHours and MaxPeriodHours bound the periods looked for.
	MinPeriodHours = 0.75
	MaxPeriodHours = 48.0
	// PeakShare is the share of the series' (non-DC) spectral power a
	// period's peak (its bin and two neighbours) must hold to count.
	PeakShare = 0.08
	// HarmonicRatio: a longer period whose peak holds at least this share of
	// the strongest peak is taken as the fundamental.
	HarmonicRatio = 0.5
	// PeakOverMedian is how far above the band's median power the peak must
	// stand: noise spreads power evenly, a period concentrates it.
	PeakOverMedian = 25.0
	// DiurnalTolerance is how close to 24 h a period must be to be diurnal.
	DiurnalTolerance = 0.1
)

// PeriodResult is the dominant period of one series.
type PeriodResult struct {
	Periodic    bool
	PeriodHours float64
	Strength    float64 // share of non-DC power in the peak's bins
}

// DetectPeriod finds the dominant period of x, uniformly sampled every step
// seconds, with gonum's real FFT: subtract the mean, take the power
// spectrum, and among the bins whose period lies in [minH, maxH] hours take
// the strongest peak (a local maximum; its power with its two neighbours, so
// a period between bins is not split); the fundamental is the longest
// period whose peak holds HarmonicRatio of the strongest. The series is
// periodic when that peak holds PeakShare of the non-DC power and its bin
// stands PeakOverMedian above the band's median (a periodogram of noise is
// roughly exponential: its largest of a few hundred bins stays near ten
// times the median).
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
	if lo < 1 {
		lo = 1
	}
	if hi > len(c)-2 {
		hi = len(c) - 2
	}
	if lo > hi {
		return PeriodResult{}
	}
	peak := func(k int) float64 { return pw[k-1] + pw[k] + pw[k+1] }
	band := make([]float64, 0, hi-lo+1)
	best, bestP := -1, 0.0
	for k := max(lo, 1); k <= hi; k++ {
		band = append(band, pw[k])
		if k > 1 && pw[k] >= pw[k-1] && pw[k] >= pw[k+1] && peak(k) > bestP {
			best, bestP = k, peak(k)
		}
	}
	if best < 0 {
		return PeriodResult{}
	}
	// The fundamental: the lowest-frequency local maximum strong enough
	// (24 h over its 12 h and 8 h harmonics).
	fund := best
	for k := max(lo, 2); k < best; k++ {
		if pw[k] >= pw[k-1] && pw[k] >= pw[k+1] && peak(k) >= HarmonicRatio*bestP {
			fund = k
			break
		}
	}
	// Refine the period between bins by the power-weighted mean frequency.
	wsum := pw[fund-1] + pw[fund] + pw[fund+1]
	kf := (float64(fund-1)*pw[fund-1] + float64(fund)*pw[fund] + float64(fund+1)*pw[fund+1]) / wsum
	share := peak(fund) / total
	med := median(band)
	res := PeriodResult{PeriodHours: span / kf / 3600, Strength: share}
	res.Periodic = share >= PeakShare && (med == 0 || pw[fund] >= PeakOverMedian*med)
	if !res.Periodic {
		res.PeriodHours = 0
	}
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
// (gaps hold the last reading) and DetectPeriod decides; a period within
// DiurnalTolerance of 24 h makes the VM potentially interactive.
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
		days := (ts[len(ts)-1] - ts[0] + SampleSeconds) / 86400
		r := result{vm: cur, days: days}
		if days >= MinSeriesDays {
			n := int(math.Round((ts[len(ts)-1]-ts[0])/SampleSeconds)) + 1
			grid := make([]float64, n)
			j := 0
			for i := range grid {
				t := ts[0] + float64(i)*SampleSeconds
				for j+1 < len(ts) && ts[j+1] <= t+SampleSeconds/2 {
					j++
				}
				grid[i] = vals[j]
			}
			r.r = DetectPeriod(grid, SampleSeconds, MinPeriodHours, MaxPeriodHours)
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
			case r.r.Periodic && math.Abs(r.r.PeriodHours-24) <= DiurnalTolerance*24:
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
			if err := w.Append("workload_class", dataset, r.vm, r.days, r.r.Periodic, period, r.r.Strength, class); err != nil {
				return err
			}
		}
		return nil
	})
	st.Series = len(results)
	return st, err
}

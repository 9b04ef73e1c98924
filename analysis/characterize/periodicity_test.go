package characterize

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/datasets"
	"placelab/internal/shareddata"
)

func TestDetectPeriod(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	day := 86400.0
	cases := []struct {
		name     string
		x        []float64
		periodic bool
		hours    float64
	}{
		{"pure 24h sine, 3 days", testkit.Series(3, func(t float64) float64 { return 30 + 20*math.Sin(2*math.Pi*t/day) }), true, 24},
		{"24h sine with noise, 7 days", testkit.Series(7, func(t float64) float64 { return 30 + 20*math.Sin(2*math.Pi*t/day) + 8*rng.NormFloat64() }), true, 24},
		{"8h sine", testkit.Series(4, func(t float64) float64 { return 10 + 5*math.Sin(2*math.Pi*t/(8*3600)) }), true, 8},
		{"1h sine", testkit.Series(3, func(t float64) float64 { return 10 + 5*math.Sin(2*math.Pi*t/3600) }), true, 1},
		// A daily on/off pattern: strong 12h and 8h harmonics, fundamental 24h.
		{"24h square wave", testkit.Series(5, func(t float64) float64 {
			if math.Mod(t, day) < 9*3600 {
				return 60
			}
			return 5
		}), true, 24},
		{"white noise", testkit.Series(7, func(float64) float64 { return 20 + 10*rng.NormFloat64() }), false, 0},
		{"constant", testkit.Series(4, func(float64) float64 { return 7 }), false, 0},
	}
	for _, tc := range cases {
		r := DetectPeriod(tc.x, analysis.SampleSeconds, MinPeriodHours, MaxPeriodHours)
		if r.Periodic != tc.periodic {
			t.Errorf("%s: periodic %v (strength %.3f), want %v", tc.name, r.Periodic, r.Strength, tc.periodic)
			continue
		}
		if tc.periodic && math.Abs(r.PeriodHours-tc.hours) > 0.1*tc.hours {
			t.Errorf("%s: period %.2fh, want %vh", tc.name, r.PeriodHours, tc.hours)
		}
	}
}

// TestPeriodicityOnAzureLabels classifies the 78 labelled periodic Azure V1
// series (periods 1, 8 and 24 h) and the 100-VM random sample. The detector
// must tell them apart — flag far more of the labelled series as periodic
// than of the random sample; how many are found at their labelled period is
// logged per label (measured, not asserted: the spectra of most labelled
// series — the 24 h ones included — are dominated by a 1.0–1.15 h spike
// train and show no peak at the labelled period above the local noise
// floor; see issue 5's closing note).
func TestPeriodicityOnAzureLabels(t *testing.T) {
	ctx := context.Background()
	rate := map[string]float64{}
	for _, file := range []string{
		"azure-v1-cpu-100vms/azure_v1_cpu_78periodic_5min.csv.gz",
		"azure-v1-cpu-100vms/azure_v1_cpu_100vms_5min.csv.gz",
	} {
		p := shareddata.Path(t, file)
		db := testkit.MemDB(t)
		if _, err := datasets.Ingest(ctx, db, "azure-cpu", []string{p}, datasets.Options{Dataset: "az"}); err != nil {
			t.Fatal(err)
		}
		st, err := ClassifyWorkloads(ctx, db, "az", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Series == 0 {
			t.Fatal("nothing classified")
		}
		var labelled, found int
		if err := db.SQL().QueryRow(`SELECT labelled, found_at_period FROM periodicity_accuracy WHERE dataset = 'az'`).Scan(&labelled, &found); err != nil {
			t.Fatal(err)
		}
		per, err := db.SQL().Query(`SELECT v.period_hours, count(*), count(*) FILTER (WHERE list_filter(w.periods, p -> abs(p - v.period_hours) <= 0.1 * v.period_hours) <> []),
			count(*) FILTER (WHERE w.periodic), count(*) FILTER (WHERE w.class = 'interactive')
			FROM workload_class w JOIN vm v ON v.dataset = w.dataset AND v.vm_id = w.vm_id
			WHERE w.dataset = 'az' AND v.period_hours IS NOT NULL GROUP BY 1 ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for per.Next() {
			var label float64
			var n, at, flagged, inter int
			if err := per.Scan(&label, &n, &at, &flagged, &inter); err != nil {
				t.Fatal(err)
			}
			t.Logf("  label %2.0f h: %d series, %d with a significant period at the label, %d periodic, %d interactive", label, n, at, flagged, inter)
		}
		per.Close()
		rate[file] = float64(st.Periodic) / float64(st.Series)
		t.Logf("%s: %d series, %d periodic, %d interactive; labelled %d, found at their period %d", file, st.Series, st.Periodic, st.Interactive, labelled, found)
	}
	lab, rnd := rate["azure-v1-cpu-100vms/azure_v1_cpu_78periodic_5min.csv.gz"], rate["azure-v1-cpu-100vms/azure_v1_cpu_100vms_5min.csv.gz"]
	if !(lab >= 2*rnd && lab >= 0.5) {
		t.Fatalf("periodic share: labelled %.2f, random sample %.2f", lab, rnd)
	}
}

package store

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// rcDataset: four VMs of one subscription whose metrics are in known rank
// orders — cores, memory and lifetime rise together, CPU falls:
//
//	v0 1 core/2 GB  cpu 40/90  0..3600    Interactive
//	v1 2/4          30/80      0..7200    Interactive
//	v2 4/8          20/70      0..10800   Delay-insensitive
//	v3 8/16         10/60      0..14400   (none: Unknown)
func rcDataset(t *testing.T, db *DB) {
	t.Helper()
	_, err := db.Ingest(context.Background(), IngestInfo{Dataset: "rc", Format: "test", Source: "hand"}, func(w *Writer) error {
		for i, c := range []float64{1, 2, 4, 8} {
			if err := w.Append("vm_type", fmt.Sprint("s", c), nil, c, 2*c, nil, nil, nil, nil); err != nil {
				return err
			}
			cat := []any{"Interactive", "Interactive", "Delay-insensitive", nil}[i]
			if err := w.Append("vm", int64(i), fmt.Sprint("v", i), fmt.Sprint("t", i), "sa", fmt.Sprint("s", c), int16(0),
				0.0, 3600.0*float64(i+1), cat, 40.0-10*float64(i), nil, 90.0-10*float64(i), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestResourceCentralViewsByHand(t *testing.T) {
	db := openMem(t)
	rcDataset(t, db)
	get := func(view string, cols ...string) []string {
		res, err := db.QueryView(context.Background(), view, "rc")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Rows {
			s := ""
			for i, c := range cols {
				for j, rc := range res.Columns {
					if rc == c {
						if i > 0 {
							s += " "
						}
						s += fmt.Sprint(r[j])
					}
				}
			}
			out = append(out, s)
		}
		return out
	}
	// Core-hours: 1, 4, 12, 32 of 49.
	if got := fmt.Sprint(get("vm_category", "category", "vms", "core_hours", "pct_core_hours")); got !=
		"[Interactive 2 5 10.2 Delay-insensitive 1 12 24.49 Unknown 1 32 65.31]" {
		t.Errorf("vm_category: %s", got)
	}
	// Spearman: cores, memory and lifetime rank alike (+1), CPU the other way (−1).
	rho := map[string]string{}
	for _, row := range get("metric_correlation", "metric_a", "metric_b", "spearman") {
		var a, b, r string
		fmt.Sscan(row, &a, &b, &r)
		rho[a+"|"+b] = r
	}
	for pair, want := range map[string]string{"cores|memory_gb": "1", "lifetime|cores": "", "cores|lifetime": "", "cpu_avg|cores": "-1",
		"cpu_avg|cpu_p95max": "1", "cpu_avg|lifetime": "-1", "cores|cores": "1"} {
		if want == "" {
			continue
		}
		if rho[pair] != want {
			t.Errorf("spearman %s = %q, want %s (all: %v)", pair, rho[pair], want, rho)
		}
	}
	if r := rho["cores|lifetime"] + rho["lifetime|cores"]; r != "1" {
		t.Errorf("spearman cores/lifetime = %q", r)
	}
	// RC Fig 1: averages 40, 30, 20, 10 and P95-max 90, 80, 70, 60: at 20%
	// two of four averages and no P95 are below; at 70%, all and two.
	rows := get("cpu_utilization_cdf", "util_pct", "avg_cdf_pct", "p95max_cdf_pct")
	seen := 0
	for _, row := range rows {
		switch row[:3] {
		case "20 ":
			seen++
			if row != "20 50 0" {
				t.Errorf("cpu_utilization_cdf at 20: %q", row)
			}
		case "70 ":
			seen++
			if row != "70 100 50" {
				t.Errorf("cpu_utilization_cdf at 70: %q", row)
			}
		}
	}
	if seen != 2 || len(rows) != 21 {
		t.Errorf("cpu_utilization_cdf rows %q", rows)
	}
	// RC Table 3 buckets: averages 40, 30 | 20, 10; P95-max 90, 80 | 70, 60;
	// four one-VM deployments of 1 | 2, 4, 8 cores; lifetimes 1 h (≤ 60 min,
	// inclusive) | 2, 3, 4 h.
	if got := fmt.Sprint(get("rc_buckets", "metric", "bucket", "vms", "pct")); got != "[avg_cpu 1 2 50 avg_cpu 2 2 50 "+
		"deploy_cores 1 1 25 deploy_cores 2 3 75 deploy_vms 1 4 100 lifetime 2 1 25 lifetime 3 3 75 p95_cpu 3 2 50 p95_cpu 4 2 50]" {
		t.Errorf("rc_buckets: %s", got)
	}
	// Per-subscription CoV of cores 1, 2, 4, 8: population stddev / mean 3.75.
	cores := []float64{1, 2, 4, 8}
	mean, ss := 3.75, 0.0
	for _, c := range cores {
		ss += (c - mean) * (c - mean)
	}
	want := math.Round(math.Sqrt(ss/4)/mean*1e4) / 1e4
	found := false
	for _, row := range get("subscription_cov", "metric", "median_cov") {
		var m string
		var v float64
		fmt.Sscan(row, &m, &v)
		if m == "cores" {
			found = true
			if v != want {
				t.Errorf("subscription_cov cores = %v, want %v", v, want)
			}
		}
	}
	if !found {
		t.Error("subscription_cov has no cores row")
	}
}

// TestInterarrivalWeibull: gaps placed at the exact exponential quantiles of
// the median ranks make the least-squares Weibull fit exact: shape 1,
// scale = the mean, 10 s.
func TestInterarrivalWeibull(t *testing.T) {
	db := openMem(t)
	const n = 60
	_, err := db.Ingest(context.Background(), IngestInfo{Dataset: "ia", Format: "test", Source: "hand"}, func(w *Writer) error {
		if err := w.Append("vm_type", "a", nil, 1.0, 1.0, nil, nil, nil, nil); err != nil {
			return err
		}
		t := 0.0
		if err := w.Append("vm", int64(0), "v0", "t", nil, "a", int16(0), t, nil, nil, nil, nil, nil, nil); err != nil {
			return err
		}
		for i := 1; i <= n; i++ {
			t += -10 * math.Log(1-(float64(i)-0.3)/(n+0.4))
			if err := w.Append("vm", int64(i), fmt.Sprint("v", i), "t", nil, "a", int16(0), t, nil, nil, nil, nil, nil, nil); err != nil {
				return err
			}
			if i == 5 { // three more VMs at the same time: three zero gaps, left out of the fit
				for j := int64(0); j < 3; j++ {
					if err := w.Append("vm", 1000+j, fmt.Sprint("s", j), "t", nil, "a", int16(0), t, nil, nil, nil, nil, nil, nil); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.QueryView(context.Background(), "interarrival", "ia")
	if err != nil || len(res.Rows) != 1 {
		t.Fatal(err, res)
	}
	row := map[string]any{}
	for i, c := range res.Columns {
		row[c] = res.Rows[0][i]
	}
	if row["gaps"] != int64(n) || row["zero_gaps"] != int64(3) || row["weibull_shape"] != 1.0 || row["weibull_scale_s"] != 10.0 {
		t.Fatalf("interarrival %v", row)
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// bench allocator refuses what it cannot honour, naming the flag, before it
// generates anything.
func TestBenchAllocatorRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero reps", []string{"--reps", "0"}, "--reps 0"},
		{"negative reps", []string{"--reps", "-2"}, "--reps -2"},
		{"zero vms", []string{"--vms", "0"}, "--vms 0"},
		{"zero machines", []string{"--machines", "0"}, "--machines 0"},
		{"csv", []string{"--format", "csv"}, `--format "csv"`},
		{"the old cache-off size", []string{"--nocache-vms", "10"}, "nocache-vms"},
		{"production size without --production", []string{"--production-machines", "500"}, "--production-machines applies only with --production"},
		{"production trace without --production", []string{"--production-vms", "500"}, "--production-vms applies only with --production"},
		{"zero production machines", []string{"--production", "--production-machines", "0"}, "--production-machines 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, ":memory:", append([]string{"bench", "allocator"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// The JSON output carries the documented fields: the timed set, each arm's
// median and range, and one entry per rep with the same VMs on both arms.
func TestBenchAllocatorJSON(t *testing.T) {
	out := mustRun(t, ":memory:", "bench", "allocator", "--machines", "200", "--vms", "300", "--reps", "2", "--format", "json")
	var r struct {
		Reps     int `json:"reps"`
		VMs      int `json:"vms"`
		Requests int `json:"requests"`
		CacheOn  struct {
			CostPerPlacementUS   map[string]float64 `json:"cost_per_placement_us"`
			PlacementsPerWallSec map[string]float64 `json:"placements_per_wall_sec"`
			DecisionLatencyP99US map[string]float64 `json:"decision_latency_p99_us"`
		} `json:"cache_on"`
		CacheSpeedup map[string]float64 `json:"cache_speedup"`
		Runs         []struct {
			On struct {
				VMs        int     `json:"vms"`
				Placements int     `json:"placements"`
				Wall       float64 `json:"wall_seconds"`
				PPS        float64 `json:"placements_per_wall_sec"`
			} `json:"cache_on"`
			Off struct {
				VMs int `json:"vms"`
			} `json:"cache_off"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Reps != 2 || len(r.Runs) != 2 || r.VMs < 300 || r.Requests < 1 {
		t.Fatalf("reps %d, runs %d, vms %d, requests %d", r.Reps, len(r.Runs), r.VMs, r.Requests)
	}
	for _, k := range []string{"median", "min", "max"} {
		if _, ok := r.CacheOn.CostPerPlacementUS[k]; !ok {
			t.Fatalf("cache_on.cost_per_placement_us has no %s: %v", k, r.CacheOn.CostPerPlacementUS)
		}
	}
	m := r.CacheOn.PlacementsPerWallSec
	if !(m["min"] > 0 && m["min"] <= m["median"] && m["median"] <= m["max"]) || r.CacheSpeedup["median"] <= 0 {
		t.Fatalf("placements_per_wall_sec %v, cache_speedup %v", m, r.CacheSpeedup)
	}
	for i, run := range r.Runs {
		if run.On.VMs != r.VMs || run.Off.VMs != r.VMs {
			t.Fatalf("rep %d: cache on timed %d VMs, off %d, want %d each", i+1, run.On.VMs, run.Off.VMs, r.VMs)
		}
		if want := float64(run.On.Placements) / run.On.Wall; run.On.PPS < want*(1-1e-9) || run.On.PPS > want*(1+1e-9) {
			t.Fatalf("rep %d: placements_per_wall_sec %v, want %v", i+1, run.On.PPS, want)
		}
	}
	table := mustRun(t, ":memory:", "bench", "allocator", "--machines", "200", "--vms", "300", "--reps", "1")
	for _, want := range []string{"cost per placement, upkeep included", "identical for cache on and off", "cache speedup"} {
		if !strings.Contains(table, want) {
			t.Fatalf("table lacks %q:\n%s", want, table)
		}
	}
}

// bench predict reports its three paths: every uncached request executes
// the model (no hit), every cached one is a hit, the batch baseline covers
// the zone's VMs; sizes out of range are refused.
func TestBenchPredictJSON(t *testing.T) {
	out := mustRun(t, ":memory:", "bench", "predict", "--machines", "60", "--vms", "2000", "--days", "3", "--requests", "3000", "--format", "json")
	var r struct {
		Model string `json:"model"`
		Paths []struct {
			Path     string  `json:"path"`
			Requests int     `json:"requests"`
			P50      float64 `json:"p50_us"`
			P99      float64 `json:"p99_us"`
			Hits     int64   `json:"cache_hits"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Model != "b/lifetime/xgboost" || len(r.Paths) != 3 {
		t.Fatalf("%s", out)
	}
	un, ca, batch := r.Paths[0], r.Paths[1], r.Paths[2]
	if un.Path != "uncached" || un.Hits != 0 || un.Requests != 3000 || ca.Path != "cached" || ca.Hits != 3000 || batch.Requests < 1000 {
		t.Errorf("paths: %+v", r.Paths)
	}
	for _, p := range r.Paths {
		if !(p.P50 > 0 && p.P99 >= p.P50) {
			t.Errorf("%s: p50 %v, p99 %v", p.Path, p.P50, p.P99)
		}
	}
	if _, err := run(t, ":memory:", "bench", "predict", "--requests", "0"); err == nil || !strings.Contains(err.Error(), "--requests") {
		t.Errorf("--requests 0: %v", err)
	}
}

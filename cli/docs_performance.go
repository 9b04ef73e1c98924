package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"placelab/analysis"
	"placelab/bench"
)

// benchMeta says when and where the committed bench JSON was measured
// (make bench-docs writes it beside the JSON).
type benchMeta struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Command string `json:"command"`
	Machine string `json:"machine"`
}

// docsPerformanceReference is docs/reference/performance.md: the figures of
// `placelab bench all` as make bench-docs last recorded them in
// docs/bench/all.json (with docs/bench/meta.json), one row per engine with
// its baseline from the same run. Nothing here is typed by hand: a new
// measurement is `make bench-docs`.
func docsPerformanceReference(dir string) (string, error) {
	var r bench.BenchAll
	var m benchMeta
	for name, v := range map[string]any{"all.json": &r, "meta.json": &m} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("docs/bench/%s: %w (make bench-docs writes it)", name, err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return "", fmt.Errorf("docs/bench/%s: %w", name, err)
		}
	}
	rng := func(s analysis.Range, unit string, prec int) string {
		return fmt.Sprintf("%.*f%s (%.*f–%.*f)", prec, s.Median, unit, prec, s.Min, prec, s.Max)
	}
	var b strings.Builder
	b.WriteString("# Performance figures\n\n")
	b.WriteString("Generated from `placelab bench all`'s JSON (`docs/bench/all.json`) by `go test ./cli -run TestDocs`;\n")
	b.WriteString("`make bench-docs` measures again and rewrites both. Each row's baseline ran in the same process, on the same\n")
	b.WriteString("data, so compare within a row; the machine's speed varies from hour to hour. Dated measurements at production\n")
	b.WriteString("scale, with their commands, are in [../history.md](../history.md).\n\n")
	fmt.Fprintf(&b, "Measured %s at commit `%s` on %s: `%s` (%.0f s in all).\n\n", m.Date, m.Commit, m.Machine, m.Command, r.Seconds)
	b.WriteString("| engine | figure | baseline, same run |\n| --- | --- | --- |\n")
	a := r.Allocator
	same := "same decisions"
	if !a.SameDecisions {
		same = "**decisions differ**"
	}
	fmt.Fprintf(&b, "| Protean's allocator, %d machines, %d VMs timed, median of %d reps (min–max) | cache on: %s per placement all-in, decision p50 %s, p99 %s, %s placements per wall second; cache speedup %s; %s | cache off: %s per placement, decision p99 %s |\n",
		a.Machines, a.VMs, a.Reps, rng(a.CacheOn.CostPerPlacementUS, " µs", 1), rng(a.CacheOn.DecisionLatencyP50US, " µs", 1),
		rng(a.CacheOn.DecisionLatencyP99US, " µs", 1), rng(a.CacheOn.PlacementsPerWallSec, "", 0), rng(a.CacheSpeedup, "×", 1), same,
		rng(a.CacheOff.CostPerPlacementUS, " µs", 1), rng(a.CacheOff.DecisionLatencyP99US, " µs", 1))
	p := r.Replay
	fmt.Fprintf(&b, "| replay of a generated zone end to end, %d VMs on %d machines (eviction %s, explanations %s) | Protean %.2f s, %.0f placements per wall second, decision p99 %.1f µs, packing density %.2f%% | best fit %.2f s, %.0f per second, p99 %.1f µs, density %.2f%% |\n",
		p.VMs, p.Machines, onOffString(p.Evict), onOffString(p.Explain), p.ProteanSeconds, p.ProteanPlacementsPS, p.ProteanDecisionP99US, 100*p.PackingDensity,
		p.BestFitSeconds, p.BestFitPlacementsPS, p.BestFitDecisionP99US, 100*p.BestFitDensity)
	fmt.Fprintf(&b, "| every characterization view, %d VMs | %.2f s | — |\n", r.Views.VMs, r.Views.Seconds)
	fmt.Fprintf(&b, "| LP bound on %s; the LP interval of the replay's snapshots | %.3f s (bound %.0f); %d snapshots in %.1f s, median %.3f s, worst %.3f s, %d optimal, widest interval %.2f%% | — |\n",
		r.LP.Instance, r.LP.InstanceSeconds, r.LP.InstanceBound, r.LP.Snapshots, r.LP.SnapshotSeconds, r.LP.SnapshotMedianSeconds,
		r.LP.SnapshotMaxSeconds, r.LP.Converged, r.LP.MaxIntervalGapPct)
	fmt.Fprintf(&b, "| PrV-WorstFit, %d nodes | %.3f ms per placement | worst fit %.3f ms |\n", r.PrV.Nodes, r.PrV.MsPerPlacement, r.PrV.BaselineMsPerPlacement)
	fmt.Fprintf(&b, "| Paragon, a new app among %d × %d | fold-in %.1f µs | retraining %.0f ms |\n", r.Paragon.Apps, r.Paragon.Columns, r.Paragon.FoldInUS, r.Paragon.RetrainMS)
	return b.String(), nil
}

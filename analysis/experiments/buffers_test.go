package experiments

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
	"placelab/optimizer"
)

// tinyMachines is the hand-built zone's size: one cluster of 8 machines.
const tinyMachines = 8

// tinyFailures is the tests' failure model: machine failures only (no
// racks, no reboots), every one a hardware failure that is not repaired
// within the run, healed at once (heal-min=0), in the failed machine's
// cluster.
const tinyFailures = "machine-afr=4,rack-afr=0,reboot-share=0,repair=fixed,repair-median-h=100000,heal-min=0"

// tinyDays is the length of the tests' window.
const tinyDays = 30

// tinyZone is one cluster of tinyMachines machines of 4 cores and 16 GB,
// one rack each, and one VM type of 4 cores and 16 GB: every VM takes a
// whole machine, so a cluster's empty machines are its machines minus its
// VMs. tenants lists each VM's tenant; VM i arrives at i+1 s and never ends.
func tinyZone(t *testing.T, tenants []int32) *replay.Trace {
	t.Helper()
	var ms []optimizer.MachineSpec
	for i := 0; i < tinyMachines; i++ {
		ms = append(ms, optimizer.MachineSpec{Name: "m" + string(rune('0'+i)), Cluster: "c", Rack: "r" + string(rune('0'+i)), Healthy: true})
	}
	types := []optimizer.VMType{{Name: "whole", Demand: []optimizer.Vec{{optimizer.Cores: 4, optimizer.Memory: 16}}, Supported: []bool{true}}}
	inv, err := optimizer.NewInventory([]optimizer.SKU{{Name: "s", Capacity: optimizer.Vec{optimizer.Cores: 4, optimizer.Memory: 16}}}, ms, types)
	if err != nil {
		t.Fatal(err)
	}
	tr := &replay.Trace{Dataset: "tiny", Inv: inv}
	for i := range tinyMachines {
		tr.MachineIDs = append(tr.MachineIDs, int32(i))
	}
	for i, tn := range tenants {
		tr.VMs = append(tr.VMs, replay.TraceVM{ID: int64(i + 1), Tenant: tn, Start: float64(i + 1), End: math.Inf(1)})
	}
	return tr
}

// tinySeed is the tests' failure seed: over the 30 days it draws three
// hardware failures, of machines 7, 0 and 4 at 10.6, 14.2 and 26.6 days
// (checked below), each after the zone filled (arrivals end at 9 s).
const tinySeed = 191

// tinySpec replays the tiny zone under thresholds b with tinyFailures.
func tinySpec(b optimizer.Buffers) analysis.Spec {
	spec := analysis.DefaultSpec("tiny")
	spec.From, spec.To, spec.Failures, spec.Engine.Seed, spec.Engine.Explain = 0, tinyDays*86400, tinyFailures, tinySeed, false
	spec.Engine.Buffers = b
	return spec
}

// tinyOutages are the failures tinySpec draws, with a check that the
// arguments below apply: three hardware failures of distinct machines, all
// after the last arrival, none repaired within the window.
func tinyOutages(t *testing.T, tr *replay.Trace) []outage.Outage {
	t.Helper()
	m, on, err := outage.ParseModel(tinyFailures)
	if err != nil || !on {
		t.Fatal(err)
	}
	os := outage.Generate(tr.Inv, m, 0, tinyDays*86400, tinySeed)
	seen := map[int32]bool{}
	for _, o := range os {
		if o.Kind != outage.Hard || o.Start <= float64(len(tr.VMs)) || o.Start+o.Duration < tinyDays*86400 || seen[o.Machine] {
			t.Fatalf("seed %d draws %+v: want hardware failures of distinct machines after the fill, unrepaired", tinySeed, o)
		}
		seen[o.Machine] = true
	}
	if len(os) != 3 {
		t.Fatalf("seed %d draws %d failures, want 3", tinySeed, len(os))
	}
	return os
}

// failuresBy counts the outages that started at or before t.
func failuresBy(os []outage.Outage, t float64) int {
	n := 0
	for _, o := range os {
		if o.Start <= t {
			n++
		}
	}
	return n
}

// TestBuffersHealingBufferLowersHealFailures sweeps the healing buffer
// (scale-out threshold s, healing 0, new deployment 8) on the tiny zone:
// one tenant asks for 9 whole-machine VMs, the first a new deployment and
// the rest scale-outs, then three machines fail for good (tinySeed).
//
// Why the direction must hold here. A scale-out enters while the cluster
// has E ≥ s empty machines, so the fill stops with k = max(s−1, 0) empty
// machines (s = 0 and 1: all 8 full, the 9th VM refused for room). Every
// failure then lowers E by one while E > 0 — a failed occupied machine's
// VM is healed at once (heal-min=0) onto an empty machine, a failed empty
// machine is simply gone — and once E = 0 every healthy machine holds a
// VM, so every later failure is a heal that fails. Hence failed heals =
// max(0, 3 − k), whatever machines the allocator chose. At this seed the
// three failures strike occupied machines at every s (heal_vms = 3,
// checked), so heal_failure_rate = max(0, 3 − k)/3: by hand, s = 0..5 →
// k = 0, 0, 1, 2, 3, 4 → 1, 1, 2/3, 1/3, 0, 0. It never rises as the
// buffer grows and falls strictly from s = 1 to 4. The empty machines per
// cluster at a sample are max(0, k − failures so far), checked too.
func TestBuffersHealingBufferLowersHealFailures(t *testing.T) {
	tr := tinyZone(t, []int32{1, 1, 1, 1, 1, 1, 1, 1, 1})
	os := tinyOutages(t, tr)
	want := []float64{1, 1, 2.0 / 3, 1.0 / 3, 0, 0}
	prev := math.Inf(1)
	for s := int32(0); s <= 5; s++ {
		b := optimizer.Buffers{NewDeployment: 8, ScaleOut: s}
		if HealingBuffer(b) != s {
			t.Fatalf("HealingBuffer(%+v) = %d, want %d", b, HealingBuffer(b), s)
		}
		figs, err := buffersReplay(context.Background(), tr, tinySpec(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		g := figures(figs)
		if g["heal_vms"] != 3 || g["machine_failures"] != 3 {
			t.Fatalf("s=%d: heal VMs %v, machine failures %v; want 3, 3", s, g["heal_vms"], g["machine_failures"])
		}
		r := g["heal_failure_rate"]
		if math.Abs(r-want[s]) > 1e-12 {
			t.Errorf("s=%d: heal failure rate %v, want %v (k = %d empty machines after the fill)", s, r, want[s], max(s-1, 0))
		}
		if r > prev {
			t.Errorf("s=%d: heal failure rate rose from %v to %v as the healing buffer grew", s, prev, r)
		}
		prev = r
		k := max(int(s)-1, 0)
		for _, row := range figs {
			if row.Metric == buffersSamplePrefix+sampleEmpty && row.T > float64(len(tr.VMs)) {
				if w := float64(max(0, k-failuresBy(os, row.T))); row.Value != w {
					t.Fatalf("s=%d t=%v: %v empty machines, want %v", s, row.T, row.Value, w)
				}
			}
		}
	}
	if want[1] <= want[4] {
		t.Fatal("the worked case must fall strictly")
	}
}

// TestBuffersNewDeploymentThresholdLowersUtilization sweeps the
// new-deployment threshold n (scale-out and healing 0) on the tiny zone:
// nine tenants ask for one whole-machine VM each, then the same three
// machines fail for good.
//
// Why utilization must not rise with n here. A new deployment enters while
// E ≥ n, so the fill stops with k = max(n−1, 0) empty machines and 8 − k
// VMs. After j failures, A + E = 8 − j (VMs plus empty healthy machines:
// each failure takes one healthy machine, and a heal moves a VM, never
// adds one) and E = max(0, k − j) (the argument of the healing test), so
// A = 8 − max(j, k): at every sample, whichever machines fail. Utilization
// is A·4 cores ÷ 32 cores = (8 − max(j, k))/8, non-increasing in k and so
// in n; by hand before the first failure n = 1, 2, 4 give 8/8, 7/8, 5/8.
// Every stored sample is checked against the formula, and the mean must
// fall strictly from n = 1 to n = 2.
func TestBuffersNewDeploymentThresholdLowersUtilization(t *testing.T) {
	tr := tinyZone(t, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	os := tinyOutages(t, tr)
	prev := math.Inf(1)
	var means []float64
	for n := int32(0); n <= 6; n++ {
		b := optimizer.Buffers{NewDeployment: n}
		figs, err := buffersReplay(context.Background(), tr, tinySpec(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		k := max(int(n)-1, 0)
		checked := 0
		for _, row := range figs {
			if row.Metric == buffersSamplePrefix+sampleUtilization && row.T > float64(len(tr.VMs)) {
				w := float64(tinyMachines-max(failuresBy(os, row.T), k)) / tinyMachines
				if math.Abs(row.Value-w) > 1e-12 {
					t.Fatalf("n=%d t=%v: utilization %v, want %v", n, row.T, row.Value, w)
				}
				checked++
			}
		}
		if checked < 100 {
			t.Fatalf("n=%d: only %d samples checked", n, checked)
		}
		u := figures(figs)["utilization_mean"]
		if u > prev+1e-12 {
			t.Errorf("n=%d: utilization rose from %v to %v as the new-deployment threshold grew", n, prev, u)
		}
		prev = u
		means = append(means, u)
	}
	if !(means[2] < means[1]) {
		t.Errorf("utilization did not fall from n=1 (%v) to n=2 (%v)", means[1], means[2])
	}
}

// figures returns a point's figures (not its samples) by name.
func figures(rows []replay.MetricRow) map[string]float64 {
	m := map[string]float64{}
	for _, r := range rows {
		if !isBuffersSample(r.Metric) {
			m[r.Metric] = r.Value
		}
	}
	return m
}

// TestBuffersQuickGrid: the quick grid is the three sweeps and §6.3's pair
// on the zone and on the real trace (20 points), every point keeps
// NewDeployment ≥ ScaleOut ≥ Healing and records the scaled failure model
// (a spec ParseModel accepts, with buffersFailureScale × the default
// rates); every zone point stores every figure, finite, with interval
// samples, and a real-trace point without a database stores available = 0.
func TestBuffersQuickGrid(t *testing.T) {
	e, err := Lookup(buffersName)
	if err != nil {
		t.Fatal(err)
	}
	pts := e.Points(true)
	if len(pts) != 20 {
		t.Fatalf("quick grid has %d points, want 20", len(pts))
	}
	if full := e.Points(false); len(full) != 40 {
		t.Fatalf("full grid has %d points, want 40", len(full))
	}
	m, on, err := outage.ParseModel(buffersFailures())
	if err != nil || !on || math.Abs(m.MachineAFR-buffersFailureScale*outage.DefaultMachineAFR) > 1e-3 ||
		math.Abs(m.RackAFR-buffersFailureScale*outage.DefaultRackAFR) > 1e-3 {
		t.Fatalf("failures %q: %+v, %v", buffersFailures(), m, err)
	}
	ctx := context.Background()
	for i, p := range pts {
		if p.Index != i || p.Params["failures"] != buffersFailures() {
			t.Fatalf("point %d: %+v", i, p)
		}
		if p.Params["sweep"] != SweepLimits {
			nd, so, h := p.Params["new_deployment_pct"].(float64), p.Params["scale_out_pct"].(float64), p.Params["healing_pct"].(float64)
			if !(nd >= so && so >= h && h >= 0) {
				t.Errorf("point %d %v: thresholds out of order", i, p.Params)
			}
		}
		figs, err := e.Run(ctx, nil, p, true)
		if err != nil {
			t.Fatal(err)
		}
		g := figures(figs)
		if p.Params["trace"] != buffersZone {
			if len(figs) != 1 || g["available"] != 0 {
				t.Errorf("point %d on %v without a database: %v", i, p.Params["trace"], g)
			}
			continue
		}
		for _, name := range buffersFigures {
			v, ok := g[name]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("point %d %v: figure %s = %v (stored %v)", i, p.Params, name, v, ok)
			}
		}
		if g["available"] != 1 || g["heal_vms"] == 0 {
			t.Errorf("point %d: available %v, heal VMs %v: healing never happened", i, g["available"], g["heal_vms"])
		}
		samples := 0
		for _, r := range figs {
			if isBuffersSample(r.Metric) {
				samples++
				if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
					t.Errorf("point %d: sample %s at %v = %v", i, r.Metric, r.T, r.Value)
				}
			}
		}
		if samples == 0 || samples > 3*buffersSamples {
			t.Errorf("point %d: %d samples", i, samples)
		}
		if p.Params["sweep"] == SweepLimits && g["limit_step"] != 2 {
			t.Errorf("point %d: limit step %v, want 2 (1%% of the quick zone's 200-machine clusters)", i, g["limit_step"])
		}
	}
}

// TestBuffersLimitStep: Protean §6.3's 1% raise as empty-machine buffers —
// round(1% × machines per cluster), at least 1 — and RaiseLimits keeps the
// order and stops at 0.
func TestBuffersLimitStep(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want int32
	}{{200, 2}, {1000, 10}, {30, 1}, {149, 1}, {150, 2}, {250, 3}} {
		if got := LimitStep(c.n); got != c.want {
			t.Errorf("LimitStep(%v) = %d, want %d", c.n, got, c.want)
		}
	}
	got := RaiseLimits(optimizer.Buffers{NewDeployment: 8, ScaleOut: 4, Healing: 1}, 2)
	if got != (optimizer.Buffers{NewDeployment: 6, ScaleOut: 2, Healing: 0}) {
		t.Errorf("RaiseLimits: %+v", got)
	}
}

// TestBuffersCFRTargetQuotesProtean: CFRTarget's sentence is Protean
// §6.3's, verbatim up to whitespace, and says four nines.
func TestBuffersCFRTargetQuotesProtean(t *testing.T) {
	b, err := os.ReadFile(seedsDir + "/" + seedFiles["Protean"])
	if err != nil {
		if os.Getenv("PLACELAB_REQUIRE_DATA") != "" {
			t.Fatal(err)
		}
		t.Skip("no ../shared/seeds:", err)
	}
	if !strings.Contains(normalize(string(b)), normalize(cfrTargetQuote)) || !strings.Contains(cfrTargetQuote, "four nines") || CFRTarget != 0.9999 {
		t.Errorf("CFRTarget %v, quote %q not in Protean", CFRTarget, cfrTargetQuote)
	}
	if !strings.Contains(normalize(string(b)), "we increased the utilization limits in each cluster by 1%") || LimitRaise != 0.01 {
		t.Error("LimitRaise's quote is not in Protean")
	}
}

// TestBuffersPage stores the quick zone points of the buffers grid and
// checks the page: the three plots against the threshold (x and y axes
// named with their units, one line per sweep), the scatter of interval
// samples colored by healable_machine_failures_pct, and the §6.3 table
// with the CFR target; the interval samples stay out of the figures table.
func TestBuffersPage(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	e, err := Lookup(buffersName)
	if err != nil {
		t.Fatal(err)
	}
	var zone []int
	for _, p := range e.Points(true) {
		if p.Params["trace"] == buffersZone {
			zone = append(zone, p.Index)
		}
	}
	if _, err := Run(ctx, db, e, Options{Quick: true, Points: zone}); err != nil {
		t.Fatal(err)
	}
	page, err := Page(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	main := section(t, page, buffersName)
	for _, r := range rowsOf(main.Table) {
		if isBuffersSample(r["figure"].(string)) {
			t.Fatalf("sample %v in the figures table", r["figure"])
		}
	}
	if !strings.Contains(main.Note, "scaled by 50") {
		t.Errorf("note does not state the failure scale: %s", main.Note)
	}
	type axis struct {
		Name string `json:"name"`
	}
	var opt struct {
		X      []axis `json:"xAxis"`
		Y      []axis `json:"yAxis"`
		Series []struct {
			Name string `json:"name"`
			Data []struct {
				Value []float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
		VisualMap []struct {
			Dimension string `json:"dimension"`
		} `json:"visualMap"`
	}
	found := map[string]bool{}
	for _, s := range page.Sections {
		if !strings.HasPrefix(s.Title, buffersName+" — ") || s.Chart == nil || s.Title == main.Title {
			continue
		}
		b, _ := json.Marshal(s.Chart.JSON())
		opt.VisualMap = nil
		if err := json.Unmarshal(b, &opt); err != nil {
			t.Fatal(err)
		}
		if len(opt.X) != 1 || len(opt.Y) != 1 || !strings.Contains(opt.X[0].Name, "(") || !strings.Contains(opt.Y[0].Name, "(") {
			t.Errorf("%s: axes %+v %+v, want one each named with its unit", s.Title, opt.X, opt.Y)
		}
		found[strings.TrimPrefix(s.Title, buffersName+" — ")] = true
		if strings.Contains(s.Title, "empty machines") {
			if len(opt.VisualMap) != 1 || opt.VisualMap[0].Dimension != "2" || len(opt.Series) == 0 || len(opt.Series[0].Data) < 20 {
				t.Errorf("scatter: %d series, visual map %+v", len(opt.Series), opt.VisualMap)
			}
			continue
		}
		if len(opt.Series) != 3 {
			t.Errorf("%s: %d lines, want 3 (one per sweep)", s.Title, len(opt.Series))
		}
	}
	for _, w := range []string{"scale-out failure rate against the threshold", "healing failure rate against the threshold",
		"utilization against the threshold", "utilization against empty machines"} {
		if !found[w] {
			t.Errorf("no chart %q (have %v)", w, found)
		}
	}
	var rows []map[string]any
	for _, s := range page.Sections {
		if s.Title == buffersName+" — Protean §6.3: limits raised by 1%" && s.Table != nil {
			rows = rowsOf(s.Table)
		}
	}
	if len(rows) != 2 || rows[1]["utilization_change_pct_points"] == nil || rows[0]["cfr_target"] != CFRTarget {
		t.Errorf("§6.3 table: %v", rows)
	}
}

package capacity

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/plan"
	"placelab/datasets/catalog"
	"placelab/datasets/synth"
	store "placelab/sql"
)

// catalogTestCSV is a tiny hand-made catalog: two on-demand types of
// different shapes and a cheap spot type of the first one's shape.
const catalogTestCSV = `name,vcpus,memory_mib,on_demand_usd_per_hour,capacity_type,interruptions_per_year
m.8x,32,131072,1.60,on-demand,0
r.8x,32,262144,2.00,on-demand,0
s.8x,32,131072,0.70,spot,24
`

// catalogFixture is a small synthetic trace with arrivals, its catalog and
// the plan at its peak.
func catalogFixture(t *testing.T) (*store.DB, analysis.Spec, Catalog) {
	t.Helper()
	ctx := context.Background()
	db := testkit.MemDB(t)
	cfg := synth.DefaultConfig()
	cfg.Machines, cfg.VMs, cfg.Days, cfg.SeriesVMs = 100, 2500, 1, 0
	if err := synth.Ingest(ctx, db, "s", "test", cfg); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cat.csv")
	if err := os.WriteFile(file, []byte(catalogTestCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	po := plan.DefaultOptions()
	po.Dataset, po.Peak, po.Store, po.Catalog = "s", true, false, file
	pr, err := plan.Run(ctx, db, po)
	if err != nil {
		t.Fatal(err)
	}
	spec := analysis.DefaultSpec("s")
	spec.Engine.Explain = false
	return db, spec, Catalog{File: file, Reserved: po.Reserved, Mix: pr.Types, PlanCostPerHour: pr.CostPerHour, PlanLBCostPerHour: pr.LBCostPerHour}
}

// replayFleet replays the dataset on exactly the fleet of counts (no
// scaling: growth 1) and returns the VMs it did not serve, counted from
// its placements, and the VMs requested.
func replayFleet(t *testing.T, db *store.DB, spec analysis.Spec, c Catalog, counts map[string]int) (shed, vms int) {
	t.Helper()
	ctx := context.Background()
	tr, err := analysis.LoadTrace(ctx, db, "s", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := typeSizes(ctx, db, tr.LoadID)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Read(c.File, catalog.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Mix = counts
	ft, _, _, err := catalogFleet(tr, sizes, cat, catalog.ReservedNone, c, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range counts {
		n += k
	}
	if len(ft.Inv.Machines) != n {
		t.Fatalf("fleet of %v has %d machines", counts, len(ft.Inv.Machines))
	}
	res, err := analysis.RunTrace(ctx, ft, &spec, analysis.RunOptions{NoWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Placements {
		if p.Outcome != "placed" {
			shed++
		}
	}
	return shed, len(res.Placements)
}

// TestCapacityCatalog: the cheapest fleet found meets the target on an
// independent replay of exactly that fleet, costs Σ nodes × price, and one
// node less of any type breaks the target (the per-type search's local
// minimum), unless the search itself says the probes were not monotone.
func TestCapacityCatalog(t *testing.T) {
	db, spec, c := catalogFixture(t)
	o := capOpts(0.01, ScalePerSKU)
	rep, err := RunCatalog(context.Background(), db, spec, o, c)
	if err != nil {
		t.Fatal(err)
	}
	prices := map[string]float64{"m.8x": 1.6, "r.8x": 2.0, "s.8x": 0.7}
	want := 0.0
	for name, n := range rep.Types {
		want += float64(n) * prices[name]
	}
	if rep.CostPerHour == nil || math.Abs(*rep.CostPerHour-want) > 1e-6 {
		t.Fatalf("cost_per_hour %v, want Σ nodes × price = %v (%v)", rep.CostPerHour, want, rep.Types)
	}
	if rep.Catalog == nil || rep.Catalog.PlanCostPerHour != c.PlanCostPerHour || rep.Catalog.PlanNodes == 0 {
		t.Fatalf("catalog info %+v, plan cost %v", rep.Catalog, c.PlanCostPerHour)
	}
	if rep.Catalog.Interruptions != nil {
		t.Fatalf("interruptions %v without failures", rep.Catalog.Interruptions)
	}
	shed, vms := replayFleet(t, db, spec, c, rep.Types)
	if vms != rep.VMs || shed != rep.ShedVMs || shed > rep.AllowedRejections {
		t.Fatalf("independent replay of %v: %d of %d VMs shed; the search says %d of %d, allowed %d", rep.Types, shed, vms, rep.ShedVMs, rep.VMs, rep.AllowedRejections)
	}
	t.Logf("%d machines %v at $%.2f/h (plan at the peak %v at $%.2f/h, LB $%.2f/h), %d probes, monotone %v",
		rep.Machines, rep.Types, *rep.CostPerHour, rep.Catalog.PlanTypes, rep.Catalog.PlanCostPerHour, rep.Catalog.PlanLBCostPerHour, len(rep.Probes), rep.Monotone)
	for name, n := range rep.Types {
		if n == 0 {
			continue
		}
		less := map[string]int{}
		for k, v := range rep.Types {
			less[k] = v
		}
		less[name]--
		s, _ := replayFleet(t, db, spec, c, less)
		if s <= rep.AllowedRejections && rep.Monotone {
			t.Errorf("one %s node less (%v) sheds %d ≤ %d VMs and is cheaper, and the search says it was monotone", name, less, s, rep.AllowedRejections)
		}
	}
}

// TestCapacityCatalogInterruptions: with failures on, the spot type is
// interrupted at its interruptions_per_year: the probes draw more hard
// failures than the failure model alone gives on the same fleets.
func TestCapacityCatalogInterruptions(t *testing.T) {
	db, spec, c := catalogFixture(t)
	spec.Failures = "machine-afr=0,rack-afr=0"
	h := 0.5
	o := capOpts(0.01, ScaleMix)
	o.MaxHealFailure = &h
	rep, err := RunCatalog(context.Background(), db, spec, o, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Catalog.Interruptions["s.8x"] != 24 || len(rep.Catalog.Interruptions) != 1 {
		t.Fatalf("interruptions %v, want s.8x 24 only", rep.Catalog.Interruptions)
	}
	spot := 0
	for _, p := range rep.Probes {
		if p.PerSKU["s.8x"] > 0 {
			spot += p.MachineFailures
		}
		if p.PerSKU["s.8x"] == 0 && p.MachineFailures > 0 {
			t.Fatalf("probe %v without spot nodes drew %d failures with machine-afr=0", p.PerSKU, p.MachineFailures)
		}
	}
	if c.Mix["s.8x"] > 0 && spot == 0 {
		t.Fatalf("no probe drew an interruption of its spot nodes: %+v", rep.Probes)
	}
}

package analysis_test

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	"placelab/analysis/replay"
	"testing"

	"placelab/datasets"
	"placelab/optimizer"
)

// TestReplayAzurePacking replays the Azure packing trace 2020 schema: VM
// types carry demand as fractions of each machine type they run on, the
// inventory is N machines of each machine type (--inventory per-sku:N),
// and every VM lands on a machine type its type lists, with that demand.
func TestReplayAzurePacking(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "packing.sqlite")
	lite, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{
		"CREATE TABLE vm (vmId INTEGER, tenantId INTEGER, vmTypeId INTEGER, priority INTEGER, starttime REAL, endtime REAL)",
		"CREATE TABLE vmType (id INTEGER, vmTypeId INTEGER, machineId INTEGER, core REAL, memory REAL, hdd REAL, ssd REAL, nic REAL)",
		// Type 1 runs on machine types 10 and 20; type 2 only on 20, as half a machine.
		"INSERT INTO vmType VALUES (1, 1, 10, 0.25, 0.2, 0, 0.1, 0.05), (2, 1, 20, 0.125, 0.1, 0, 0.05, 0.025), (3, 2, 20, 0.5, 0.5, 0, 0.5, 0.5)",
	}
	for _, s := range stmts {
		if _, err := lite.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// 40 VMs of type 1 and 6 of type 2 over two days, some alive before t=0.
	for i := 0; i < 46; i++ {
		typ, start, end := 1, float64(i%10)*0.1-0.2, any(float64(i%10)*0.1+0.5)
		if i >= 40 {
			typ, end = 2, nil
		}
		if _, err := lite.Exec("INSERT INTO vm VALUES (?, ?, ?, ?, ?, ?)", 1000+i, i/3, typ, i%2, start, end); err != nil {
			t.Fatal(err)
		}
	}
	lite.Close()
	db := testkit.MemDB(t)
	if _, err := datasets.Ingest(ctx, db, "azure-packing", []string{path}, datasets.Options{Dataset: "pack", Inventory: "per-sku:4"}); err != nil {
		t.Fatal(err)
	}
	tr, err := analysis.LoadTrace(ctx, db, "pack", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Inv.Machines) != 8 || len(tr.VMs) != 46 {
		t.Fatalf("%d machines, %d VMs", len(tr.Inv.Machines), len(tr.VMs))
	}
	cfg := optimizer.DefaultConfig()
	cfg.Weights = replay.ScarcityWeights(tr)
	alloc, _ := replay.NewAllocator("protean", tr, cfg)
	res, err := replay.Replay(ctx, tr, alloc, replay.DefaultReplayOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := alloc.State().CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	byID := map[int64]int32{}
	for i, id := range tr.MachineIDs {
		byID[int64(id)] = int32(i)
	}
	t2 := 0
	for _, p := range res.Placements {
		if p.Outcome != "placed" {
			continue
		}
		m := byID[int64(p.Machine)]
		sku := tr.Inv.SKUs[tr.Inv.Machines[m].SKU].Name
		var typ int32
		for _, v := range tr.VMs {
			if v.ID == p.VM {
				typ = v.Type
			}
		}
		if tr.TypeNames[typ] == "t2" {
			t2++
			if sku != "m20" {
				t.Errorf("VM %d of type t2 placed on %s, which t2 does not list", p.VM, sku)
			}
		}
	}
	if t2 == 0 {
		t.Fatal("no VM of type t2 placed: the check above saw nothing")
	}
	if res.Summary.Accepted < 40 {
		t.Fatalf("summary %+v", res.Summary)
	}
}

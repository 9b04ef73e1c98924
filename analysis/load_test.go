package analysis_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"placelab/analysis"
	"placelab/analysis/internal/testkit"
	store "placelab/sql"
)

// orderZone writes a zone whose VMs are appended out of order: 60 VMs in
// 12 distinct start times (one before the window's start), of 9 tenants
// whose names sort unlike their first arrival (t2, t5 and t8 arrive
// first, then t1, t4 and t7), with ties of start time across tenants and
// within one; types c4 and c2, and
// with missing the type "gone", which vm_type lacks.
func orderZone(t *testing.T, db *store.DB, missing bool) {
	t.Helper()
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "order", Format: "test", Source: "order"}, func(w *store.Writer) error {
		if err := w.Append("sku", "s10", 1, 10.0, 64.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
			return err
		}
		if err := w.Append("machine", int32(0), "A", "z", "dc", "c1", "r1", int16(0), "s10", "healthy"); err != nil {
			return err
		}
		for _, ty := range [][]any{{"c4", 4.0, 8.0}, {"c2", 2.0, 4.0}} {
			if err := w.Append("vm_type", ty[0], nil, ty[1], ty[2], nil, nil, nil, nil); err != nil {
				return err
			}
		}
		for k := 0; k < 60; k++ {
			i := (k * 37) % 60 // appended out of order
			tenant := "t" + string(rune('0'+(8-i%9)))
			start := float64((i%12)*100 - 100) // -100: alive before the window
			typ := []string{"c4", "c2"}[i%2]
			if missing && i == 31 {
				typ = "gone"
			}
			if err := w.Append("vm", int64(1000-i*7), "v", tenant, nil, typ, int16(0), start, start+5000, nil, nil, nil, nil, nil); err != nil {
				return err
			}
		}
		return w.Exec(store.MustQuery("derive_type_demand"), w.Dataset(), w.LoadID())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLoadTraceOrder: LoadTrace, which sorts in Go, returns the VMs in the
// order SQL's ORDER BY start_s, tenant, vm_id gives (VMs alive before the
// window arrive at their own start, sorted among the others by it), with
// tenants numbered by first arrival, and a VM of a type vm_type lacks is
// refused naming the VM and the type.
func TestLoadTraceOrder(t *testing.T) {
	ctx := context.Background()
	db := testkit.MemDB(t)
	orderZone(t, db, false)
	tr, err := analysis.LoadTrace(ctx, db, "order", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.SQL().QueryContext(ctx, "SELECT vm_id, tenant FROM vm WHERE dataset = 'order' ORDER BY start_s, tenant, vm_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	number := map[string]int32{}
	i := 0
	for rows.Next() {
		var id int64
		var tenant string
		if err := rows.Scan(&id, &tenant); err != nil {
			t.Fatal(err)
		}
		n, ok := number[tenant]
		if !ok {
			n = int32(len(number))
			number[tenant] = n
		}
		if i >= len(tr.VMs) || tr.VMs[i].ID != id || tr.VMs[i].Tenant != n {
			t.Fatalf("VM %d: SQL's order has VM %d of tenant %s (number %d by first arrival), LoadTrace %+v", i, id, tenant, n, tr.VMs[min(i, len(tr.VMs)-1)])
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(tr.VMs) || i != 60 || tr.NumTenants != len(number) || len(number) != 9 {
		t.Fatalf("SQL has %d VMs of %d tenants, LoadTrace %d VMs of %d", i, len(number), len(tr.VMs), tr.NumTenants)
	}
	if number["t2"] != 0 || number["t8"] != 2 || number["t1"] != 3 {
		t.Fatalf("tenants are not numbered by first arrival, ties by name: %v", number)
	}

	bad := testkit.MemDB(t)
	orderZone(t, bad, true)
	_, err = analysis.LoadTrace(ctx, bad, "order", math.Inf(-1), math.Inf(1))
	if err == nil || !strings.Contains(err.Error(), `type "gone", which the vm_type table lacks`) || !strings.Contains(err.Error(), "VM 783") {
		t.Fatalf("a VM of a type vm_type lacks: %v", err)
	}
}

package datasets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	store "placelab/sql"
)

// warnFleet: two SKUs of mixed sizes, one machine offline.
const warnFleet = "name,cluster,rack,sku,cores,memory_gb,health\n" +
	"east-m1,east,r1,small,8,32,\n" +
	"east-m2,east,r1,small,8,32,offline\n" +
	"east-m3,east,r2,wide,16,16,\n"

// ingestWarnings ingests a workload file against warnFleet and returns its
// warnings by code, failing the test if the ingest fails.
func ingestWarnings(t *testing.T, vms string) (*store.DB, store.Counts, map[string]store.Warning) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"fleet.csv": warnFleet, "vms.csv": vms})
	db := openDB(t)
	counts, err := Ingest(context.Background(), db, "placelab", []string{filepath.Join(dir, "vms.csv")},
		Options{Dataset: "mine", Inventory: filepath.Join(dir, "fleet.csv")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Warning{}
	for _, wa := range counts.Warnings {
		if _, dup := got[wa.Code]; dup {
			t.Errorf("warning %s given twice: a warning of many rows is one warning", wa.Code)
		}
		got[wa.Code] = wa
	}
	return db, counts, got
}

// TestWorkloadWarnings: each suspicious row of a workload file loads (the
// ingest is not stopped) with a named warning giving the file, row and the
// user's names and sizes (issue 52 item 7; each loaded with no word):
// a VM larger than every SKU, VMs recorded on a machine beyond its SKU's
// capacity, a VM recorded on an offline machine, a 0-core and a 0-memory
// VM. The warnings are in ingest_warning with row and count.
func TestWorkloadWarnings(t *testing.T) {
	vms := "id,tenant,cores,memory_gb,start_s,end_s,machine\n" +
		"web-1,web,4,16,0,,east-m1\n" + // row 2
		"web-2,web,6,8,10,,east-m1\n" + // row 3: east-m1 holds 10 of 8 cores from t = 10
		"huge,db,12,24,0,,\n" + // row 4: no SKU has 12 cores and 24 GB
		"down,web,1,1,0,,east-m2\n" + // row 5: east-m2 is offline
		"idle,web,0,2,0,,\n" + // row 6: 0 cores
		"tiny,web,1,0,0,100,east-m3\n" + // row 7: 0 memory
		"ok,web,2,4,0,100,east-m3\n" // row 8
	db, counts, got := ingestWarnings(t, vms)
	if counts.RowsLoaded != 7 {
		t.Errorf("loaded %d rows, want all 7: warnings do not stop an ingest", counts.RowsLoaded)
	}
	for _, c := range []struct {
		code, object string
		row, count   int64
		texts        []string
	}{
		{WarnVMFitsNoSKU, "VM huge", 4, 1, []string{"huge (row 4: 12 cores, 24 GB memory)", "no one SKU has all of it"}},
		{WarnMachineOverCapacity, "machine east-m1", 3, 1, []string{"east-m1 (SKU small) holds 10 of its 8 cores (125.0%) at t = 10 s", "web-2 (row 3: 6 cores, 8 GB memory), web-1 (row 2: 4 cores, 16 GB memory)"}},
		{WarnVMOnUnhealthyMachine, "VM down", 5, 1, []string{"down (row 5) on east-m2 (offline)"}},
		{WarnVMZeroCores, "VM idle", 6, 1, []string{"idle (row 6: 0 cores, 2 GB memory)"}},
		{WarnVMZeroMemory, "VM tiny", 7, 1, []string{"tiny (row 7: 1 core, 0 GB memory)"}},
	} {
		wa, ok := got[c.code]
		if !ok {
			t.Errorf("no %s warning (got %v)", c.code, counts.Warnings)
			continue
		}
		if !strings.HasSuffix(wa.Source, "vms.csv") || wa.Object != c.object || wa.Row != c.row || wa.Count != c.count {
			t.Errorf("%s: source %q object %q row %d count %d, want vms.csv, %q, row %d, count %d", c.code, wa.Source, wa.Object, wa.Row, wa.Count, c.object, c.row, c.count)
		}
		for _, s := range c.texts {
			if !strings.Contains(wa.Message, s) {
				t.Errorf("%s: message %q lacks %q", c.code, wa.Message, s)
			}
		}
		if n := rowCount(t, db, `SELECT count(*) FROM ingest_warning WHERE dataset = 'mine' AND code = ? AND "row" = ? AND count = ? AND object = ? AND message = ?`,
			c.code, c.row, c.count, c.object, wa.Message); n != 1 {
			t.Errorf("%s: %d ingest_warning rows with its row, count, object and message, want 1", c.code, n)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d warnings, want the 5 above: %v", len(got), counts.Warnings)
	}
}

// TestWorkloadWarningsQuiet: a file with nothing suspicious has no warning
// — VMs that follow one another on a machine (one ends as the next starts)
// and VMs filling a machine exactly are within capacity.
func TestWorkloadWarningsQuiet(t *testing.T) {
	vms := "id,tenant,cores,memory_gb,start_s,end_s,machine\n" +
		"a,web,8,32,0,100,east-m1\n" +
		"b,web,8,32,100,,east-m1\n" +
		"c,web,0.1,1,0,,east-m3\n" + // 0.1 + 0.2 + … sums with rounding error
		"d,web,0.2,1,0,,east-m3\n" +
		"e,web,15.7,14,0,,east-m3\n"
	_, counts, _ := ingestWarnings(t, vms)
	if len(counts.Warnings) != 0 {
		t.Fatalf("warnings %v, want none", counts.Warnings)
	}
}

// TestWorkloadWarningsAggregate: a warning repeated over many rows of a
// 5,000-row file is one warning with the count and the first 3 examples,
// not one per row: 1,000 VMs of 0 cores, 500 VMs too large for any SKU,
// and 60 VMs recorded at once on one 16-core machine (one
// machine-over-capacity warning naming its first 3 VMs and 57 more).
func TestWorkloadWarningsAggregate(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,tenant,cores,memory_gb,start_s,end_s,machine\n")
	for i := 0; i < 5000; i++ {
		switch {
		case i%5 == 0: // 1,000 rows
			fmt.Fprintf(&b, "z%04d,web,0,1,%d,,\n", i, i)
		case i%10 == 1: // 500 rows
			fmt.Fprintf(&b, "big%04d,web,64,1,%d,,\n", i, i)
		case i < 300 && i%5 == 2: // 60 rows on east-m3 at once
			fmt.Fprintf(&b, "m%04d,web,1,1,0,,east-m3\n", i)
		default:
			fmt.Fprintf(&b, "v%04d,web,1,1,%d,%d,\n", i, i, i+1)
		}
	}
	_, counts, got := ingestWarnings(t, b.String())
	if len(counts.Warnings) != 3 {
		t.Fatalf("%d warnings, want 3 (zero cores, fits no SKU, over capacity): %v", len(counts.Warnings), counts.Warnings)
	}
	for _, c := range []struct {
		code  string
		count int64
		row   int64
		texts []string
	}{
		{WarnVMZeroCores, 1000, 2, []string{"1000 VMs ask for 0 cores", "z0000 (row 2: 0 cores, 1 GB memory); z0005 (row 7:", "z0010 (row 12:", "; and 997 more"}},
		{WarnVMFitsNoSKU, 500, 3, []string{"500 VMs fit no SKU", "big0001 (row 3: 64 cores, 1 GB memory): more cores than any SKU (at most 16)", "; and 497 more"}},
		{WarnMachineOverCapacity, 1, 4, []string{"1 machine holds", "east-m3 (SKU wide) holds 60 of its 16 cores (375.0%) at t = 0 s", "m0002 (row 4: 1 core, 1 GB memory)", "and 57 more"}},
	} {
		wa := got[c.code]
		if wa.Count != c.count || wa.Row != c.row {
			t.Errorf("%s: count %d row %d, want %d and %d", c.code, wa.Count, wa.Row, c.count, c.row)
		}
		for _, s := range c.texts {
			if !strings.Contains(wa.Message, s) {
				t.Errorf("%s: message %q lacks %q", c.code, wa.Message, s)
			}
		}
	}
}

package datasets

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	store "placelab/sql"
)

const (
	packingVMDDL   = "CREATE TABLE vm (vmId INTEGER, tenantId INTEGER, vmTypeId INTEGER, priority INTEGER, starttime REAL, endtime REAL)"
	packingTypeDDL = "CREATE TABLE vmType (id INTEGER, vmTypeId INTEGER, machineId INTEGER, core REAL, memory REAL, hdd REAL, ssd REAL, nic REAL)"
)

// packingFixture is a small Azure packing trace: vmType rows are
// (id, vmTypeId, machineId, core, memory, hdd, ssd, nic), vm rows are
// (vmId, tenantId, vmTypeId, priority, starttime, endtime).
type packingFixture struct {
	vmDDL, typeDDL string // "" for the published schema, "-" to leave the table out
	types, vms     [][]any
}

func goodPackingFixture() packingFixture {
	return packingFixture{
		types: [][]any{
			{1, 1, 10, 0.25, 0.2, 0.0, 0.1, 0.05},
			{2, 1, 20, 0.125, 0.1, 0.0, 0.05, 0.025}, // type 1 runs on two machine types
			{3, 2, 10, 1.0, 1.0, 1.0, 1.0, 1.0},
		},
		vms: [][]any{
			{100, 7, 1, 0, -0.5, 1.25}, // alive before collection began
			{101, 7, 2, 1, 0.1, nil},   // low priority, still alive
			{102, 8, 1, 0, 3, 3},
		},
	}
}

// write builds the SQLite file with modernc.org/sqlite.
func (f packingFixture) write(t testing.TB, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []struct {
		ddl, def, insert string
		rows             [][]any
	}{
		{f.typeDDL, packingTypeDDL, "INSERT INTO vmType VALUES (?, ?, ?, ?, ?, ?, ?, ?)", f.types},
		{f.vmDDL, packingVMDDL, "INSERT INTO vm VALUES (?, ?, ?, ?, ?, ?)", f.vms},
	} {
		if tb.ddl == "-" {
			continue
		}
		if tb.ddl == "" {
			tb.ddl = tb.def
		}
		if _, err := tx.Exec(tb.ddl); err != nil {
			t.Fatal(err)
		}
		if len(tb.rows) == 0 {
			continue
		}
		st, err := tx.Prepare(tb.insert)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tb.rows {
			if _, err := st.Exec(r...); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAzurePackingSmall(t *testing.T) {
	db := openDB(t)
	p := goodPackingFixture().write(t, filepath.Join(t.TempDir(), "trace.sqlite"))
	c, err := Ingest(context.Background(), db, "azure-packing", []string{p}, Options{Dataset: "pk"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 6 || c.RowsLoaded != 6 || c.Tables["vm"] != 3 || c.Tables["vm_type_demand"] != 3 {
		t.Fatalf("counts = %+v", c)
	}
	checks := []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM sku WHERE dataset = 'pk'", 2},
		{`SELECT count(*) FROM sku WHERE dataset = 'pk' AND sku IN ('m10', 'm20') AND generation IS NULL AND cores = 1 AND memory_gb = 1
			AND ssd_gb = 1 AND hdd_gb = 1 AND nic_gbps = 1 AND gpus = 0 AND gpu_model IS NULL`, 2},
		{"SELECT count(*) FROM vm_type WHERE dataset = 'pk'", 2},
		{`SELECT count(*) FROM vm_type WHERE dataset = 'pk' AND vm_type IN ('t1', 't2') AND cores IS NULL AND memory_gb IS NULL
			AND ssd_gb IS NULL AND hdd_gb IS NULL AND nic_gbps IS NULL AND gpus IS NULL`, 2},
		{"SELECT count(*) FROM vm_type_demand WHERE dataset = 'pk'", 3},
		{`SELECT count(*) FROM vm_type_demand WHERE vm_type = 't1' AND sku = 'm10' AND cores = 0.25 AND memory = 0.2
			AND hdd = 0 AND ssd = 0.1 AND nic = 0.05 AND gpu = 0`, 1},
		{`SELECT count(*) FROM vm_type_demand WHERE vm_type = 't1' AND sku = 'm20' AND cores = 0.125 AND ssd = 0.05`, 1},
		{`SELECT count(*) FROM vm_type_demand WHERE vm_type = 't2' AND sku = 'm10' AND cores = 1 AND hdd = 1`, 1},
		{"SELECT count(*) FROM vm WHERE dataset = 'pk'", 3},
		{`SELECT count(*) FROM vm WHERE vm_id = 0 AND name = '100' AND tenant = '7' AND vm_type = 't1' AND priority = 0
			AND start_s = -43200 AND end_s = 108000 AND subscription IS NULL AND category IS NULL`, 1},
		{"SELECT count(*) FROM vm WHERE vm_id = 1 AND name = '101' AND vm_type = 't2' AND priority = 1 AND end_s IS NULL", 1},
		{"SELECT count(*) FROM vm WHERE vm_id = 2 AND name = '102' AND tenant = '8' AND start_s = 259200 AND end_s = 259200", 1},
		{"SELECT count(*) FROM machine", 0},
	}
	for _, ch := range checks {
		if n := rowCount(t, db, ch.q); n != ch.want {
			t.Errorf("%s = %d, want %d", ch.q, n, ch.want)
		}
	}
	// derive_type_demand (which --inventory runs) skips types with NULL
	// nominal sizes, so it cannot clash with the trace's own demands.
	var loadID int64
	if err := db.SQL().QueryRow("SELECT load_id FROM dataset WHERE name = 'pk'").Scan(&loadID); err != nil {
		t.Fatal(err)
	}
	res, err := db.SQL().Exec(store.MustQuery("derive_type_demand"), "pk", loadID)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Fatalf("derive_type_demand wrote %d rows for the packing trace", n)
	}
}

func TestAzurePackingInventory(t *testing.T) {
	db := openDB(t)
	p := goodPackingFixture().write(t, filepath.Join(t.TempDir(), "trace.sqlite"))
	_, err := Ingest(context.Background(), db, "azure-packing", []string{p}, Options{Dataset: "pk", Inventory: "per-sku:3"})
	if err != nil && strings.Contains(err.Error(), "not implemented") {
		t.Skip("synth.WriteInventory not implemented yet")
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM machine WHERE dataset = 'pk'"); n != 6 {
		t.Fatalf("machines = %d, want 3 per SKU", n)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm_type_demand WHERE dataset = 'pk'"); n != 3 {
		t.Fatalf("demand rows = %d, want the trace's 3", n)
	}
}

func TestAzurePackingBadInput(t *testing.T) {
	type mutate func(f *packingFixture)
	cases := []struct {
		name   string
		mut    mutate
		raw    []byte // file content instead of a fixture
		want   error
		wantIn string
	}{
		{"unknown vm type", func(f *packingFixture) { f.vms = append(f.vms, []any{103, 9, 5, 0, 1, 2}) }, nil, ErrUnknownType, "row 4: field vmTypeId"},
		{"end before start", func(f *packingFixture) { f.vms[1] = []any{101, 7, 2, 1, 2.0, 1.5} }, nil, ErrEndBeforeStart, "row 2: field endtime"},
		{"negative demand", func(f *packingFixture) { f.types[1][6] = -0.1 }, nil, ErrNegative, "row 2: field ssd"},
		{"zero core", func(f *packingFixture) { f.types[2][3] = 0.0 }, nil, ErrNonPositive, "row 3: field core"},
		{"null core", func(f *packingFixture) { f.types[0][3] = nil }, nil, ErrMissingField, "row 1: field core"},
		{"demand above one", func(f *packingFixture) { f.types[0][4] = 1.5 }, nil, ErrMalformed, "row 1: field memory"},
		{"type row id", func(f *packingFixture) { f.types[2][0] = 42; f.types[2][7] = "lots" }, nil, ErrNotNumber, "row 42: field nic"},
		{"duplicate type on machine", func(f *packingFixture) { f.types = append(f.types, []any{4, 1, 20, 0.5, 0.5, 0, 0, 0}) }, nil, ErrDuplicateID, "row 4: field machineId"},
		{"priority 2", func(f *packingFixture) { f.vms[0][3] = 2 }, nil, ErrMalformed, "row 1: field priority"},
		{"null priority", func(f *packingFixture) { f.vms[2][3] = nil }, nil, ErrMissingField, "row 3: field priority"},
		{"text start", func(f *packingFixture) { f.vms[2][4] = "soon" }, nil, ErrNotNumber, "row 3: field starttime"},
		{"null start", func(f *packingFixture) { f.vms[2][4] = nil }, nil, ErrMissingField, "row 3: field starttime"},
		{"duplicate vm id", func(f *packingFixture) { f.vms[2][0] = 100 }, nil, ErrDuplicateID, "row 3: field vmId"},
		{"not utf-8 tenant", func(f *packingFixture) { f.vms[1][1] = "\xff\xfe" }, nil, ErrMalformed, "row 2: field tenantId"},
		{"null tenant", func(f *packingFixture) { f.vms[1][1] = nil }, nil, ErrMissingField, "row 2: field tenantId"},
		{"missing table", func(f *packingFixture) { f.typeDDL = "-" }, nil, ErrMissingField, "no table vmType"},
		{"missing column", func(f *packingFixture) {
			f.vmDDL = "CREATE TABLE vm (vmId INTEGER, tenantId INTEGER, vmTypeId INTEGER, starttime REAL, endtime REAL)"
			f.vms = nil
		}, nil, ErrMissingField, "field vm.priority"},
		{"without rowid", func(f *packingFixture) {
			f.vmDDL = "CREATE TABLE vm (vmId INTEGER PRIMARY KEY, tenantId INTEGER, vmTypeId INTEGER, priority INTEGER, starttime REAL, endtime REAL) WITHOUT ROWID"
			f.vms[2][2] = 77
		}, nil, ErrUnknownType, "row 3: field vmTypeId"},
		{"not sqlite", nil, []byte("vmId,tenantId\n1,2\n"), ErrMalformed, "not a SQLite database"},
		{"zip", nil, []byte("PK\x03\x04 rest of a zip"), ErrMalformed, "unzip"},
		{"empty file", nil, []byte{}, ErrMalformed, "empty file"},
		{"corrupt", nil, []byte("SQLite format 3\x00 and then garbage, garbage, garbage"), ErrMalformed, "sqlite"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := filepath.Join(t.TempDir(), "trace.sqlite")
			if tc.mut != nil {
				f := goodPackingFixture()
				tc.mut(&f)
				f.write(t, p)
			} else if err := os.WriteFile(p, tc.raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Ingest(context.Background(), db, "azure-packing", []string{p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"sku", "vm_type", "vm_type_demand", "vm", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

// A failure on the last of 20,000 VMs rolls everything back, leaving an
// earlier dataset of the same name exactly as it was.
func TestAzurePackingLastRowRollback(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	good := goodPackingFixture().write(t, filepath.Join(dir, "good.sqlite"))
	if _, err := Ingest(context.Background(), db, "azure-packing", []string{good}, Options{Dataset: "pk"}); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		var s string
		q := `SELECT string_agg(x, '|' ORDER BY x) FROM (
			SELECT CAST(d AS VARCHAR) AS x FROM dataset d
			UNION ALL SELECT CAST(s AS VARCHAR) FROM sku s
			UNION ALL SELECT CAST(t AS VARCHAR) FROM vm_type t
			UNION ALL SELECT CAST(m AS VARCHAR) FROM vm_type_demand m
			UNION ALL SELECT CAST(v AS VARCHAR) FROM vm v)`
		if err := db.SQL().QueryRow(q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()

	big := goodPackingFixture()
	big.vms = nil
	for i := 0; i < 20000; i++ {
		big.vms = append(big.vms, []any{i, i % 97, 1 + i%2, i % 2, float64(i) / 1000, float64(i)/1000 + 0.5})
	}
	big.vms[19999][2] = 3 // no vmType row for type 3
	bad := big.write(t, filepath.Join(dir, "big.sqlite"))
	start := time.Now()
	_, err := Ingest(context.Background(), db, "azure-packing", []string{bad}, Options{Dataset: "pk"})
	t.Logf("20,000-VM ingest failed after %v", time.Since(start))
	if !errors.Is(err, ErrUnknownType) || !strings.Contains(err.Error(), "row 20000: field vmTypeId") || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v", err)
	}
	if after := snapshot(); after != before {
		t.Fatalf("database changed:\nbefore %s\nafter  %s", before, after)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm"); n != 3 {
		t.Fatalf("vm rows = %d, want the earlier 3", n)
	}

	// The same file with the last VM fixed loads all 20,000.
	big.vms[19999][2] = 1
	fixed := big.write(t, filepath.Join(dir, "fixed.sqlite"))
	start = time.Now()
	c, err := Ingest(context.Background(), db, "azure-packing", []string{fixed}, Options{Dataset: "pk"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("20,000 VMs in %v", time.Since(start))
	if c.Tables["vm"] != 20000 || rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'pk'") != 20000 {
		t.Fatalf("counts = %+v", c)
	}
}

func TestAzurePackingRejects(t *testing.T) {
	db := openDB(t)
	f := goodPackingFixture()
	f.types[2][3] = 2.0                                // type 2's only row is bad ...
	f.vms = append(f.vms, []any{103, 9, 1, 0, 5, nil}) // ... so VM 101 is of an unknown type
	p := f.write(t, filepath.Join(t.TempDir(), "trace.sqlite"))
	c, err := Ingest(context.Background(), db, "azure-packing", []string{p}, Options{Dataset: "r", MaxRejects: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRejected != 2 || c.Rejected["vmTypeId: unknown VM type"] != 1 || c.Tables["vm"] != 3 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT max(vm_id) FROM vm WHERE dataset = 'r'"); n != 2 {
		t.Fatalf("vm ids not dense: max %d", n)
	}
	_, err = Ingest(context.Background(), db, "azure-packing", []string{p}, Options{Dataset: "r2", MaxRejects: 1})
	if !errors.Is(err, ErrTooManyRejects) {
		t.Fatalf("err = %v", err)
	}
}

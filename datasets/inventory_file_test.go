package datasets

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"placelab/internal/shareddata"
	store "placelab/sql"
)

// invHeader is the full header of an inventory CSV.
const invHeader = "name,zone,datacenter,cluster,rack,update_domain,sku,cores,memory_gb,ssd_gb,hdd_gb,nic_gbps,gpus,health\n"

// invFleetCSV is two SKUs across 2 clusters × 2 racks: cluster c1 is gen5
// (48 cores), cluster c2 is gpu8 (96 cores, 8 GPUs); one machine offline,
// one unhealthy; optional cells left empty in places.
const invFleetCSV = invHeader +
	"c1-r1-m1,z1,dcA,c1,c1-r1,0,gen5,48,384,1024,,40,,healthy\n" +
	"c1-r1-m2,z1,dcA,c1,c1-r1,1,gen5,48,384,1024,0,40,0,\n" +
	"c1-r2-m1,z1,dcA,c1,c1-r2,0,gen5,48,384,1024,,40,,OFFLINE\n" +
	"c2-r1-m1,,,c2,c2-r1,,gpu8,96,768,2048,,100,8,\n" +
	"c2-r2-m1,,,c2,c2-r2,3,gpu8,96,768,2048,,100,8,unhealthy\n"

// loadInventoryFile ingests only an inventory file as dataset "inv".
func loadInventoryFile(t *testing.T, db *store.DB, path string) (int, error) {
	t.Helper()
	var n int
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "inv", Format: "inventory", Source: path},
		func(w *store.Writer) error {
			var err error
			n, err = WriteInventoryFile(w, path)
			return err
		})
	return n, err
}

// checkFleet checks the tables a good invFleet file writes.
func checkFleet(t *testing.T, db *store.DB) {
	t.Helper()
	for _, c := range []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM sku WHERE dataset = 'inv'", 2},
		{"SELECT count(*) FROM sku WHERE dataset = 'inv' AND generation IS NULL", 2},
		{"SELECT count(*) FROM sku WHERE sku = 'gen5' AND cores = 48 AND memory_gb = 384 AND ssd_gb = 1024 AND hdd_gb = 0 AND nic_gbps = 40 AND gpus = 0", 1},
		{"SELECT count(*) FROM sku WHERE sku = 'gpu8' AND cores = 96 AND memory_gb = 768 AND ssd_gb = 2048 AND nic_gbps = 100 AND gpus = 8", 1},
		{"SELECT count(*) FROM machine WHERE dataset = 'inv'", 5},
		{"SELECT count(DISTINCT cluster) FROM machine", 2},
		{"SELECT count(DISTINCT (cluster, rack)) FROM machine", 4},
		{"SELECT count(*) FROM machine WHERE health = 'healthy'", 3},
		{"SELECT count(*) FROM machine WHERE health = 'offline' AND name = 'c1-r2-m1'", 1},
		{"SELECT count(*) FROM machine WHERE health = 'unhealthy' AND name = 'c2-r2-m1' AND update_domain = 3", 1},
		{"SELECT count(*) FROM machine WHERE zone = 'zone1' AND datacenter = 'dc1' AND cluster = 'c2'", 2},
		{"SELECT count(*) FROM machine WHERE zone = 'z1' AND datacenter = 'dcA' AND sku = 'gen5'", 3},
		// ids are dense in file order
		{"SELECT count(*) FROM machine WHERE machine_id = 0 AND name = 'c1-r1-m1'", 1},
		{"SELECT count(*) FROM machine WHERE machine_id = 4 AND name = 'c2-r2-m1'", 1},
	} {
		if got := rowCount(t, db, c.q); got != c.want {
			t.Errorf("%s = %d, want %d", c.q, got, c.want)
		}
	}
}

func TestInventoryFileGood(t *testing.T) {
	db := openDB(t)
	for _, tc := range []struct {
		name string
		file func(t *testing.T) string
	}{
		{"csv", func(t *testing.T) string { return writeFile(t, "fleet.csv", invFleetCSV) }},
		{"csv columns reordered, mixed case", func(t *testing.T) string {
			return writeFile(t, "fleet.csv", "HEALTH,Name,SKU,Cores,Memory_GB,Cluster,Rack,zone,datacenter,update_domain,ssd_gb,hdd_gb,nic_gbps,gpus\n"+
				"healthy,c1-r1-m1,gen5,48,384,c1,c1-r1,z1,dcA,0,1024,,40,\n"+
				",c1-r1-m2,gen5,48,384,c1,c1-r1,z1,dcA,1,1024,0,40,0\n"+
				"offline,c1-r2-m1,gen5,48,384,c1,c1-r2,z1,dcA,0,1024,,40,\n"+
				",c2-r1-m1,gpu8,96,768,c2,c2-r1,,,,2048,,100,8\n"+
				"unhealthy,c2-r2-m1,gpu8,96,768,c2,c2-r2,,,3,2048,,100,8\n")
		}},
		{"parquet typed columns", func(t *testing.T) string {
			csv := writeFile(t, "fleet.csv", invFleetCSV)
			return writeFailureParquet(t, db, "fleet.parquet", `SELECT name, zone, datacenter, cluster, rack,
				update_domain::SMALLINT AS update_domain, sku, cores::INTEGER AS cores, memory_gb::DOUBLE AS memory_gb,
				ssd_gb::DOUBLE AS ssd_gb, hdd_gb::DOUBLE AS hdd_gb, nic_gbps::FLOAT AS nic_gbps, gpus::INTEGER AS gpus, health
				FROM read_csv(`+store.QuoteString(csv)+`, header = true, all_varchar = true)`)
		}},
		{"parquet under file: prefix and another name", func(t *testing.T) string {
			csv := writeFile(t, "fleet.csv", invFleetCSV)
			return InventoryFilePrefix + writeFailureParquet(t, db, "fleet.dat", `SELECT * FROM read_csv(`+
				store.QuoteString(csv)+`, header = true, all_varchar = true)`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := InventoryFilePath(tc.file(t))
			if !ok {
				t.Fatalf("InventoryFilePath(%q) is not a file", p)
			}
			n, err := loadInventoryFile(t, db, p)
			if err != nil {
				t.Fatal(err)
			}
			if n != 5 {
				t.Fatalf("wrote %d machines, want 5", n)
			}
			checkFleet(t, db)
		})
	}
}

func TestInventoryFilePath(t *testing.T) {
	for _, tc := range []struct {
		in, path string
		ok       bool
	}{
		{"synthetic:2000", "", false},
		{"shape:cores=64,memory=256:10", "", false},
		{"per-sku:3", "", false},
		{"fleet.csv", "fleet.csv", true},
		{"/x/Fleet.CSV", "/x/Fleet.CSV", true},
		{"fleet.csv.gz", "fleet.csv.gz", true},
		{"fleet.parquet", "fleet.parquet", true},
		{"file:machines.txt", "machines.txt", true},
	} {
		got, ok := InventoryFilePath(tc.in)
		if got != tc.path || ok != tc.ok {
			t.Errorf("InventoryFilePath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.path, tc.ok)
		}
	}
}

func TestInventoryFileBadRows(t *testing.T) {
	const good = "m0,,,c1,r1,,gen5,48,384,,,,,\n" // row 2
	for _, tc := range []struct {
		name, content string
		row           int64
		field         string
		want          error
	}{
		{"missing required column lists the columns present",
			"name,cluster,sku,cores,memory_gb\nm1,c1,gen5,48,384\n", 1, "rack", ErrMissingField},
		{"header only", "name,cluster,rack,sku,cores,memory_gb\n", 0, "", ErrMalformed},
		{"empty name", invHeader + good + ",,,c1,r1,,gen5,48,384,,,,,\n", 3, "name", ErrMissingField},
		{"empty cluster", invHeader + good + "m1,,,,r1,,gen5,48,384,,,,,\n", 3, "cluster", ErrMissingField},
		{"empty rack", invHeader + good + "m1,,,c1,,,gen5,48,384,,,,,\n", 3, "rack", ErrMissingField},
		{"empty sku", invHeader + good + "m1,,,c1,r1,,,48,384,,,,,\n", 3, "sku", ErrMissingField},
		{"empty cores", invHeader + good + "m1,,,c1,r1,,gen5,,384,,,,,\n", 3, "cores", ErrMissingField},
		{"empty memory", invHeader + good + "m1,,,c1,r1,,gen5,48,,,,,,\n", 3, "memory_gb", ErrMissingField},
		{"cores not a number", invHeader + "m1,,,c1,r1,,gen5,many,384,,,,,\n", 2, "cores", ErrNotNumber},
		{"memory NaN", invHeader + "m1,,,c1,r1,,gen5,48,NaN,,,,,\n", 2, "memory_gb", ErrNotNumber},
		{"ssd Inf", invHeader + "m1,,,c1,r1,,gen5,48,384,Inf,,,,\n", 2, "ssd_gb", ErrNotNumber},
		{"hdd negative", invHeader + "m1,,,c1,r1,,gen5,48,384,,-1,,,\n", 2, "hdd_gb", ErrNegative},
		{"nic not a number", invHeader + "m1,,,c1,r1,,gen5,48,384,,,10G,,\n", 2, "nic_gbps", ErrNotNumber},
		{"gpus negative", invHeader + "m1,,,c1,r1,,gen5,48,384,,,,-8,\n", 2, "gpus", ErrNegative},
		{"cores zero", invHeader + "m1,,,c1,r1,,gen5,0,384,,,,,\n", 2, "cores", ErrNonPositive},
		{"memory zero", invHeader + "m1,,,c1,r1,,gen5,48,0,,,,,\n", 2, "memory_gb", ErrNonPositive},
		{"update_domain fraction", invHeader + "m1,,,c1,r1,1.5,gen5,48,384,,,,,\n", 2, "update_domain", ErrUpdateDomain},
		{"update_domain negative", invHeader + "m1,,,c1,r1,-1,gen5,48,384,,,,,\n", 2, "update_domain", ErrUpdateDomain},
		{"update_domain beyond SMALLINT", invHeader + "m1,,,c1,r1,40000,gen5,48,384,,,,,\n", 2, "update_domain", ErrUpdateDomain},
		{"unknown health", invHeader + "m1,,,c1,r1,,gen5,48,384,,,,,broken\n", 2, "health", ErrHealth},
		{"duplicate name", invHeader + good + "m1,,,c1,r1,,gen5,48,384,,,,,\n" + "m0,,,c1,r2,,gen5,48,384,,,,,\n", 4, "name", ErrDuplicateName},
		{"SKU cores disagree", invHeader + good + "m1,,,c1,r1,,gen5,64,384,,,,,\n", 3, "cores", ErrSKUDisagrees},
		{"SKU gpus disagree", invHeader + good + "m1,,,c1,r1,,gen5,48,384,,,,1,\n", 3, "gpus", ErrSKUDisagrees},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "fleet.csv", tc.content)
			_, err := loadInventoryFile(t, db, p)
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a *RowError", err)
			}
			if re.File != p || re.Row != tc.row || re.Field != tc.field || !errors.Is(err, tc.want) {
				t.Fatalf("error %v: file %q row %d field %q; want %q row %d field %q wrapping %v",
					err, re.File, re.Row, re.Field, p, tc.row, tc.field, tc.want)
			}
			switch tc.want {
			case ErrMissingField:
				if tc.row == 1 && !strings.Contains(err.Error(), "this one has name, cluster, sku, cores, memory_gb") {
					t.Errorf("error %v does not list the columns present", err)
				}
			case ErrSKUDisagrees:
				if !strings.Contains(err.Error(), "from row 2") {
					t.Errorf("error %v does not name the SKU's first row", err)
				}
			case ErrDuplicateName:
				if !strings.Contains(err.Error(), "also row 2") {
					t.Errorf("error %v does not name the first row", err)
				}
			}
			if n := rowCount(t, db, "SELECT count(*) FROM machine"); n != 0 {
				t.Errorf("%d machines written by a failed ingest", n)
			}
		})
	}
}

// hwTrace is a tiny trace in the huawei format: 4 VMs of two flavors.
const hwTrace = "vmid,cpu,mem,at,lt\n0,4,16,0,100\n1,8,32,5,50\n2,4,16,10,20\n3,96,768,12,30\n"

func TestInventoryFileHuaweiIngest(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		trace func(t *testing.T) string
		vms   int64 // 0: at least one
	}{
		{"tiny trace", func(t *testing.T) string { return writeFile(t, "hw.csv", hwTrace) }, 4},
		{"Huawei-East-1", func(t *testing.T) string { return shareddata.Path(t, "huawei-east-1/Huawei-East-1-lt.csv") }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			trace := tc.trace(t)
			inv := writeFile(t, "fleet.csv", invFleetCSV)
			c, err := Ingest(ctx, db, "huawei", []string{trace}, Options{Dataset: "inv", Inventory: inv})
			if err != nil {
				t.Fatal(err)
			}
			checkFleet(t, db)
			vms := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'inv'")
			if tc.vms > 0 && vms != tc.vms || vms == 0 || c.RowsLoaded != vms {
				t.Fatalf("%d VMs (%d loaded), want %d", vms, c.RowsLoaded, tc.vms)
			}
			// Every VM type that fits a file SKU has its demand on it: a
			// c4m16 on gen5 is 4/48 of the cores.
			if got := rowCount(t, db, `SELECT count(*) FROM vm_type_demand
				WHERE dataset = 'inv' AND vm_type = 'c4m16' AND sku = 'gen5' AND abs(cores - 4.0/48) < 1e-12`); got != 1 {
				t.Errorf("c4m16 on gen5: %d demand rows, want 1", got)
			}
			// Every VM has a SKU of the file it fits on.
			if got := rowCount(t, db, `SELECT count(*) FROM vm v WHERE v.dataset = 'inv' AND NOT EXISTS
				(SELECT 1 FROM vm_type_demand d WHERE d.load_id = v.load_id AND d.vm_type = v.vm_type)`); got != 0 {
				t.Errorf("%d VMs fit no SKU of the file", got)
			}
		})
	}
}

// TestInventoryFileFailureLeavesDatabase checks that a bad inventory file
// fails the whole ingest and leaves an earlier ingest of the same name as
// it was.
func TestInventoryFileFailureLeavesDatabase(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	trace := writeFile(t, "hw.csv", hwTrace)
	if _, err := Ingest(ctx, db, "huawei", []string{trace}, Options{Dataset: "inv",
		Inventory: writeFile(t, "fleet.csv", invFleetCSV)}); err != nil {
		t.Fatal(err)
	}
	before := tableCounts(t, db)
	loadID := rowCount(t, db, "SELECT load_id FROM dataset WHERE name = 'inv'")
	bad := writeFile(t, "bad.csv", invHeader+"m0,,,c1,r1,,gen5,48,384,,,,,\nm1,,,c1,r1,,gen5,48,384,,,,,lost\n")
	_, err := Ingest(ctx, db, "huawei", []string{trace}, Options{Dataset: "inv", Inventory: bad})
	var re *RowError
	if !errors.As(err, &re) || re.File != bad || re.Row != 3 || re.Field != "health" {
		t.Fatalf("error %v, want a row error at %s row 3 field health", err, bad)
	}
	if after := tableCounts(t, db); !maps.Equal(after, before) {
		t.Fatalf("failed ingest changed the database: %v, was %v", after, before)
	}
	if got := rowCount(t, db, "SELECT load_id FROM dataset WHERE name = 'inv'"); got != loadID {
		t.Fatalf("dataset load_id %d, was %d", got, loadID)
	}
	checkFleet(t, db)
	// A file that does not exist is refused the same way.
	missing := filepath.Join(t.TempDir(), "none.parquet")
	if _, err := Ingest(ctx, db, "huawei", []string{trace}, Options{Dataset: "inv", Inventory: missing}); !errors.As(err, &re) || re.File != missing {
		t.Fatalf("error %v, want a row error naming %s", err, missing)
	}
	if after := tableCounts(t, db); !maps.Equal(after, before) {
		t.Fatalf("failed ingest changed the database: %v, was %v", after, before)
	}
}

// TestInventoryFileHelpExample loads the example of InventoryFileHelp, so
// that the documentation cannot drift from the reader.
func TestInventoryFileHelpExample(t *testing.T) {
	_, example, ok := strings.Cut(InventoryFileHelp, "Example:\n")
	if !ok {
		t.Fatal("InventoryFileHelp has no example")
	}
	var lines []string
	for _, l := range strings.Split(example, "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	if len(lines) != 3 {
		t.Fatalf("example has %d lines, want 3", len(lines))
	}
	db := openDB(t)
	n, err := loadInventoryFile(t, db, writeFile(t, "example.csv", strings.Join(lines, "\n")+"\n"))
	if err != nil || n != 2 {
		t.Fatalf("example: %d machines, %v", n, err)
	}
	if got := rowCount(t, db, "SELECT count(*) FROM machine WHERE health = 'offline' AND zone = 'zone1' AND datacenter = 'dc1'"); got != 1 {
		t.Fatalf("example: %d offline machines in zone1/dc1, want 1", got)
	}
}

func TestInventoryFileOtherRefusals(t *testing.T) {
	db := openDB(t)
	csv := writeFile(t, "fleet.csv", invFleetCSV)
	for _, tc := range []struct {
		name  string
		load  func(w *store.Writer) error
		path  string
		row   int64
		field string
		want  error
	}{
		{"parquet row numbers start at 1", nil,
			writeFailureParquet(t, db, "bad.parquet", `SELECT * FROM (VALUES ('m1', 'c1', 'r1', 'gen5', 48, 384),
				('m2', 'c1', 'r1', 'gen5', 48, -384)) AS t(name, cluster, rack, sku, cores, memory_gb)`),
			2, "memory_gb", ErrNegative},
		{"a SKU the trace already wrote", func(w *store.Writer) error {
			return w.Append("sku", "gpu8", nil, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, nil)
		}, csv, 5, "sku", ErrSKUAlreadyThere},
		{"not a CSV", nil, writeFile(t, "fleet.parquet", "name,cluster\n"), 0, "", ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "other", Format: "inventory", Source: tc.path},
				func(w *store.Writer) error {
					if tc.load != nil {
						if err := tc.load(w); err != nil {
							return err
						}
					}
					_, err := WriteInventoryFile(w, tc.path)
					return err
				})
			var re *RowError
			if !errors.As(err, &re) || re.File != tc.path || re.Row != tc.row || re.Field != tc.field || !errors.Is(err, tc.want) {
				t.Fatalf("error %v; want %s row %d field %q wrapping %v", err, tc.path, tc.row, tc.field, tc.want)
			}
		})
	}
}

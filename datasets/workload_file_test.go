package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wlFleet is a small fleet: two SKUs, one machine of each rack.
const wlFleet = "name,cluster,rack,sku,cores,memory_gb,gpus\n" +
	"m1,c1,r1,gen5,48,384,0\n" +
	"m2,c1,r2,gen5,48,384,0\n" +
	"g1,c2,r3,gpu8,96,768,8\n"

// wlGood mixes sized rows, a named type defined once and reused, a VM still
// running (empty end), a low-priority VM, a zero-core VM and rows with and
// without a machine.
const wlGood = "id,tenant,type,cores,memory_gb,gpus,priority,start_s,end_s,machine\n" +
	"a,web,,4,16,,0,0,,m1\n" +
	"b,web,,4,16,,0,0,3600,m2\n" +
	"c,ml,gpu-big,16,128,2,0,10,100,g1\n" +
	"d,ml,gpu-big,,,,1,20,,\n" +
	"e,batch,,0,0.5,,1,-30,60,m1\n"

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWorkloadFile: a native workload loads every row with its demand,
// priority, times and tenant; rows with a machine become one observed run
// (engine observed, policy recorded) of exactly those VMs.
func TestWorkloadFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fleet.csv": wlFleet, "vms.csv": wlGood})
	db := openDB(t)
	counts, err := Ingest(context.Background(), db, "placelab", []string{filepath.Join(dir, "vms.csv")},
		Options{Dataset: "mine", Inventory: filepath.Join(dir, "fleet.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if counts.RowsRead != 5 || counts.RowsLoaded != 5 {
		t.Fatalf("read %d loaded %d, want 5 and 5", counts.RowsRead, counts.RowsLoaded)
	}
	if counts.ObservedRun == 0 {
		t.Fatal("no observed run")
	}
	for _, c := range []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM vm WHERE dataset = 'mine'", 5},
		{"SELECT count(*) FROM vm WHERE name = 'a' AND end_s IS NULL AND tenant = 'web' AND priority = 0", 1},
		{"SELECT count(*) FROM vm WHERE name = 'd' AND vm_type = 'gpu-big' AND priority = 1 AND end_s IS NULL", 1},
		{"SELECT count(*) FROM vm WHERE name = 'e' AND start_s = -30 AND end_s = 60", 1},
		{"SELECT count(*) FROM vm_type WHERE vm_type = 'gpu-big' AND cores = 16 AND memory_gb = 128 AND gpus = 2", 1},
		{"SELECT count(*) FROM vm_type WHERE cores = 0 AND memory_gb = 0.5", 1},
		// the GPU type runs only on the GPU SKU
		{"SELECT count(*) FROM vm_type_demand WHERE vm_type = 'gpu-big'", 1},
		{"SELECT count(*) FROM vm_type_demand WHERE vm_type = 'gpu-big' AND sku = 'gpu8' AND gpu = 0.25", 1},
		{"SELECT count(*) FROM run WHERE engine = 'observed' AND policy = 'recorded' AND dataset = 'mine'", 1},
		{"SELECT count(*) FROM placement p JOIN run r USING (run_id) WHERE r.engine = 'observed'", 4},
		{"SELECT count(*) FROM placement p JOIN vm v ON v.vm_id = p.vm_id JOIN machine m ON m.machine_id = p.machine_id WHERE v.name = 'c' AND m.name = 'g1' AND p.t_s = 10", 1},
		{"SELECT count(*) FROM run r JOIN dataset d ON d.name = r.dataset WHERE r.engine = 'observed' AND r.load_id = d.load_id", 1},
	} {
		if got := rowCount(t, db, c.q); got != c.want {
			t.Errorf("%s = %d, want %d", c.q, got, c.want)
		}
	}
}

// TestWorkloadFileBadRows: every bad row is refused naming file, row and
// field, and the database is left as it was (no dataset, no run).
func TestWorkloadFileBadRows(t *testing.T) {
	head := "id,tenant,type,cores,memory_gb,priority,start_s,end_s,machine\n"
	for _, c := range []struct {
		name, body, field string
		row               int64
		err               error
	}{
		{"duplicate id", head + "a,t,,1,1,0,0,,\na,t,,1,1,0,0,,\n", "id", 3, ErrDuplicateID},
		{"unknown machine", head + "a,t,,1,1,0,0,,nowhere\n", "machine", 2, ErrUnknownMachine},
		{"end before start", head + "a,t,,1,1,0,10,5,\n", "end_s", 2, ErrEndBeforeStart},
		{"negative cores", head + "a,t,,-1,1,0,0,,\n", "cores", 2, ErrNegative},
		{"no memory", head + "a,t,,1,,0,0,,\n", "memory_gb", 2, ErrMissingField},
		{"type disagrees", head + "a,t,x,1,1,0,0,,\nb,t,x,2,1,0,0,,\n", "cores", 3, ErrTypeDisagrees},
		{"type undefined", head + "a,t,x,,,0,0,,\n", "type", 2, ErrTypeUndefined},
		{"bad priority", head + "a,t,,1,1,2,0,,\n", "priority", 2, ErrPriority},
		{"NaN start", head + "a,t,,1,1,0,NaN,,\n", "start_s", 2, ErrNotNumber},
		{"empty tenant", head + "a,,,1,1,0,0,,\n", "tenant", 2, ErrMissingField},
		{"no start column", "id,tenant,cores,memory_gb\na,t,1,1\n", "start_s", 1, ErrMissingField},
		{"header only", head, "", 0, ErrMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"fleet.csv": wlFleet, "vms.csv": c.body})
			db := openDB(t)
			_, err := Ingest(context.Background(), db, "placelab", []string{filepath.Join(dir, "vms.csv")},
				Options{Dataset: "mine", Inventory: filepath.Join(dir, "fleet.csv")})
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, c.err) || re.Row != c.row || re.Field != c.field || !strings.HasSuffix(re.File, "vms.csv") {
				t.Fatalf("err = %v, want a row error at row %d field %q wrapping %v", err, c.row, c.field, c.err)
			}
			for _, tbl := range []string{"dataset", "vm", "machine", "run", "placement"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+tbl); n != 0 {
					t.Errorf("%s has %d rows after a refused ingest", tbl, n)
				}
			}
		})
	}
	// Without --inventory the format refuses at once.
	dir := writeFiles(t, map[string]string{"vms.csv": wlGood})
	if _, err := Ingest(context.Background(), openDB(t), "placelab", []string{filepath.Join(dir, "vms.csv")}, Options{}); !errors.Is(err, ErrNeedInventory) {
		t.Fatalf("no inventory: err = %v, want ErrNeedInventory", err)
	}
}

// TestWorkloadFileParquet: the same rows as Parquet load the same VMs.
func TestWorkloadFileParquet(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fleet.csv": wlFleet, "vms.csv": wlGood})
	db := openDB(t)
	pq := filepath.Join(dir, "vms.parquet")
	if _, err := db.SQL().Exec("COPY (SELECT * FROM read_csv('" + filepath.Join(dir, "vms.csv") + "', all_varchar = true)) TO '" + pq + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	counts, err := Ingest(context.Background(), db, "placelab", []string{pq}, Options{Dataset: "pq", Inventory: filepath.Join(dir, "fleet.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if counts.RowsLoaded != 5 || counts.ObservedRun == 0 {
		t.Fatalf("loaded %d, observed run %d", counts.RowsLoaded, counts.ObservedRun)
	}
}

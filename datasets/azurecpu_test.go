package datasets

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"placelab/internal/shareddata"
)

func TestAzureCPUReal(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 1.45M real readings")
	}
	p100 := shareddata.Path(t, "azure-v1-cpu-100vms/azure_v1_cpu_100vms_5min.csv.gz")
	p78 := shareddata.Path(t, "azure-v1-cpu-100vms/azure_v1_cpu_78periodic_5min.csv.gz")
	db := openDB(t)
	for _, tc := range []struct {
		name, path   string
		vms, reading int64
	}{
		{"all", p100, 100, 800400},
		{"periodic", p78, 78, 655200},
	} {
		start := time.Now()
		c, err := Ingest(context.Background(), db, "azure-cpu", []string{tc.path}, Options{Dataset: tc.name})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d readings in %v", tc.name, c.RowsLoaded, time.Since(start))
		if c.RowsRead != tc.reading || c.RowsLoaded != tc.reading || c.RowsRejected != 0 {
			t.Fatalf("%s: counts = %+v", tc.name, c)
		}
		if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = ?", tc.name); n != tc.vms {
			t.Fatalf("%s: vm rows = %d, want %d", tc.name, n, tc.vms)
		}
		if n := rowCount(t, db, "SELECT count(*) FROM cpu_reading WHERE dataset = ?", tc.name); n != tc.reading {
			t.Fatalf("%s: cpu_reading rows = %d, want %d", tc.name, n, tc.reading)
		}
		if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = ? AND (cpu_avg IS NULL OR cpu_max IS NULL OR cpu_p95max IS NULL OR cpu_p95max > cpu_max OR vm_type <> 'unknown')", tc.name); n != 0 {
			t.Fatalf("%s: %d VMs without summaries", tc.name, n)
		}
		if n := rowCount(t, db, "SELECT count(*) FROM vm_type WHERE dataset = ? AND vm_type = 'unknown' AND cores IS NULL", tc.name); n != 1 {
			t.Fatalf("%s: unknown vm_type rows = %d", tc.name, n)
		}
	}
	// The 100-VM series run from minute 0 to 40015: 8004 readings each.
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'all' AND start_s = 0 AND end_s = 40015*60+300 AND period_hours IS NULL"); n != 100 {
		t.Fatalf("VMs spanning the trace = %d", n)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'periodic' AND period_hours NOT IN (1, 8, 24)"); n != 0 {
		t.Fatalf("%d periodic VMs with a bad label", n)
	}
	if n := rowCount(t, db, "SELECT count(DISTINCT period_hours) FROM vm WHERE dataset = 'periodic'"); n != 3 {
		t.Fatalf("distinct period labels = %d", n)
	}
	// VM 83972 is labelled twice (1 h and 24 h): two series, one tenant.
	if n := rowCount(t, db, `SELECT count(*) FROM vm WHERE dataset = 'periodic' AND tenant = '83972' AND name IN ('83972 1', '83972 24')`); n != 2 {
		t.Fatalf("series of VM 83972 = %d", n)
	}
	// Summaries agree with a direct aggregate.
	var avg, want float64
	if err := db.SQL().QueryRow(`SELECT v.cpu_avg, (SELECT avg(cpu_avg) FROM cpu_reading r WHERE r.load_id = v.load_id AND r.vm_id = v.vm_id)
		FROM vm v WHERE dataset = 'all' AND vm_id = 7`).Scan(&avg, &want); err != nil {
		t.Fatal(err)
	}
	if math.Abs(avg-want) > 1e-9 {
		t.Fatalf("cpu_avg = %v, want %v", avg, want)
	}
}

func TestAzureCPUSmall(t *testing.T) {
	db := openDB(t)
	body := `"vm","period_hours","step","minute","avg_cpu","max_cpu"
"a",24,1,0,1.5,3
"a",24,2,5,2.5,5
"b",8,1,10,4,4
"a",24,3,15,3.5,7
"b",8,2,5,1,2
`
	p := writeFile(t, "p.csv", body)
	c, err := Ingest(context.Background(), db, "azure-cpu", []string{p}, Options{Dataset: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 5 {
		t.Fatalf("counts = %+v", c)
	}
	type vmRow struct {
		name, tenant       string
		start, end, period float64
		avg, max           float64
	}
	rows, err := db.SQL().Query("SELECT name, tenant, start_s, end_s, period_hours, cpu_avg, cpu_max FROM vm WHERE dataset = 's' ORDER BY vm_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []vmRow
	for rows.Next() {
		var r vmRow
		if err := rows.Scan(&r.name, &r.tenant, &r.start, &r.end, &r.period, &r.avg, &r.max); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []vmRow{
		{"a 24", "a", 0, 15*60 + 300, 24, 2.5, 7},
		{"b 8", "b", 5 * 60, 10*60 + 300, 8, 2.5, 4},
	}
	if len(got) != len(want) {
		t.Fatalf("vm rows = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("vm %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := rowCount(t, db, "SELECT count(*) FROM cpu_reading WHERE dataset = 's' AND ts_s = 900 AND cpu_avg = 3.5 AND cpu_max = 7 AND cpu_min IS NULL"); n != 1 {
		t.Fatalf("reading at minute 15 missing")
	}
}

func TestAzureCPUBadInput(t *testing.T) {
	hdr := `"vm","step","minute","avg_cpu","max_cpu"` + "\n"
	phdr := `"vm","period_hours","step","minute","avg_cpu","max_cpu"` + "\n"
	cases := []struct {
		name, body string
		want       error
		wantIn     string
	}{
		{"non-numeric", hdr + "a,1,0,1,2\na,2,5,x,2\n", ErrNotNumber, "row 3: field avg_cpu"},
		{"negative cpu", hdr + "a,1,0,1,-2\n", ErrNegative, "row 2: field max_cpu"},
		{"empty vm", hdr + ",1,0,1,2\n", ErrMissingField, "row 2: field vm"},
		{"duplicate minute", hdr + "a,1,0,1,2\nb,1,0,1,2\na,2,5,1,2\na,3,0,1,2\n", ErrDuplicateID, "row 5: field minute"},
		{"duplicate in order", hdr + "a,1,0,1,2\na,1,0,1,2\n", ErrDuplicateID, "row 3: field minute"},
		{"not utf-8", hdr + "\xc3\x28,1,0,1,2\n", ErrMalformed, "row 2: field vm"},
		{"zero period", phdr + "a,0,1,0,1,2\n", ErrNonPositive, "row 2: field period_hours"},
		{"missing column", `"vm","step","minute","avg_cpu"` + "\na,1,0,1\n", ErrMissingField, "max_cpu"},
		{"short record", hdr + "a,1,0\n", ErrMissingField, "row 2: field avg_cpu"},
		{"bad quote", hdr + "\"a,1,0,1,2\n", ErrMalformed, "row 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "cpu.csv", tc.body)
			_, err := Ingest(context.Background(), db, "azure-cpu", []string{p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"vm", "vm_type", "cpu_reading", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

func TestAzureCPURejects(t *testing.T) {
	db := openDB(t)
	body := `"vm","step","minute","avg_cpu","max_cpu"` + "\na,1,0,1,2\nb,1,0,x,2\na,2,5,1,2\na,2,5,1,2\n"
	p := writeFile(t, "cpu.csv", body)
	c, err := Ingest(context.Background(), db, "azure-cpu", []string{p}, Options{Dataset: "r", MaxRejects: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 4 || c.RowsLoaded != 2 || c.RowsRejected != 2 {
		t.Fatalf("counts = %+v", c)
	}
	// The rejected row was b's only one: no VM b.
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'r'"); n != 1 {
		t.Fatalf("vm rows = %d", n)
	}
}

func TestTSSet(t *testing.T) {
	var s tsSet
	for _, ts := range []float64{0, 300, 600, 900, 1500, 1800, 0.1, 0.30000000000000004, 0.3} {
		if !s.add(ts) {
			t.Fatalf("%v reported as repeated", ts)
		}
	}
	for _, ts := range []float64{0, 600, 1500, 1800, 0.3} {
		if s.add(ts) {
			t.Fatalf("%v not reported as repeated", ts)
		}
	}
	var r tsSet
	for _, ts := range []float64{0.1, 0.3, 0.5, 0.7} {
		if !r.add(ts) {
			t.Fatalf("%v reported as repeated", ts)
		}
	}
	for _, ts := range []float64{0.1, 0.3, 0.5, 0.7} {
		if r.add(ts) {
			t.Fatalf("%v not reported as repeated", ts)
		}
	}
	if !r.add(0.2) {
		t.Fatal("0.2 reported as repeated")
	}
}

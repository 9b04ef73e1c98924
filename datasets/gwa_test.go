package datasets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"placelab/internal/shareddata"
)

const gwaHdr = "vm_id,ts,cpu_cores,cpu_cap_mhz,cpu_usage_mhz,cpu_usage_pct,mem_cap_kb,mem_usage_kb,disk_read_kbps,disk_write_kbps,net_rx_kbps,net_tx_kbps\n"

const gwaRawHdr = "Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\tCPU usage [MHZ];\tCPU usage [%];\tMemory capacity provisioned [KB];\tMemory usage [KB];\tDisk read throughput [KB/s];\tDisk write throughput [KB/s];\tNetwork received throughput [KB/s];\tNetwork transmitted throughput [KB/s]\n"

func TestGWARawFixture(t *testing.T) {
	p := shareddata.Path(t, "bitbrains/bitbrains.csv")
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{Dataset: "bb"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 8619 || c.RowsLoaded != 8619 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM vm WHERE dataset = 'bb' AND name = 'bitbrains' AND tenant = 'bitbrains'":                    1,
		"SELECT count(*) FROM cpu_reading WHERE dataset = 'bb'":                                                           8619,
		"SELECT count(*) FROM demand_curve WHERE dataset = 'bb' AND tenant = 'bitbrains'":                                 8619,
		"SELECT count(*) FROM vm_type WHERE dataset = 'bb' AND cores = 1 AND memory_gb = 2":                               1,
		"SELECT count(*) FROM vm WHERE cpu_avg IS NOT NULL AND cpu_max >= cpu_p95max AND cpu_p95max >= 0 AND start_s = 0": 1,
		// Timestamps are seconds: 8,619 five-minute readings span about 30 days.
		"SELECT count(*) FROM vm WHERE end_s BETWEEN 29 * 86400 AND 31 * 86400": 1,
	} {
		if n := rowCount(t, db, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}

func TestGWARndReal(t *testing.T) {
	p := shareddata.Path(t, "bitbrains-rnd/bitbrains_rnd_2013-7.csv.gz")
	if testing.Short() {
		t.Skip("3.9M rows; skipped with -short")
	}
	// The file's own numbers, counted outside the loader (awk, and DuckDB's
	// read_csv_auto: count(*), count(DISTINCT vm_id), count(DISTINCT
	// (vm_id, ts))). 71,664 rows of 13 VMs repeat a (vm_id, ts) reading.
	const rows, vms, distinct = 3890450, 500, 3818786
	db := openDB(t)
	// A strict ingest stops at the first repeated reading (row 153,516).
	start := time.Now()
	_, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{Dataset: "rnd"})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), "row 153516: field ts") {
		t.Fatalf("strict ingest: err = %v, want a duplicate id at row 153516", err)
	}
	t.Logf("strict ingest failed in %v: %v", time.Since(start), err)
	start = time.Now()
	c, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{Dataset: "rnd", MaxRejects: rows})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ingested %d rows in %v: %+v", c.RowsRead, time.Since(start), c)
	if c.RowsRead != rows || c.RowsLoaded != distinct || c.RowsRejected != rows-distinct {
		t.Fatalf("counts = %+v, want read %d, loaded %d", c, rows, distinct)
	}
	if len(c.Rejected) != 1 {
		t.Errorf("rejections: %v, want only duplicates", c.Rejected)
	}
	for reason := range c.Rejected {
		if !strings.Contains(reason, ErrDuplicateID.Error()) {
			t.Errorf("unexpected rejection reason %q", reason)
		}
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM vm WHERE dataset = 'rnd'":                                             vms,
		"SELECT count(*) FROM vm WHERE dataset = 'rnd' AND cpu_p95max IS NOT NULL":                  vms,
		"SELECT count(*) FROM cpu_reading WHERE dataset = 'rnd'":                                    distinct,
		"SELECT count(*) FROM demand_curve WHERE dataset = 'rnd'":                                   distinct,
		"SELECT count(DISTINCT tenant) FROM demand_curve WHERE dataset = 'rnd'":                     vms,
		"SELECT count(*) FROM (SELECT min(start_s) AS m FROM vm WHERE dataset = 'rnd') WHERE m = 0": 1,
		"SELECT count(*) FROM demand_curve WHERE dataset = 'rnd' AND t_s = 0":                       vms,
		"SELECT count(*) FROM vm_type WHERE dataset = 'rnd' AND vm_type = 'unknown'":                0,
		"SELECT count(*) FROM vm v JOIN vm_type t USING (load_id, vm_type) WHERE v.dataset = 'rnd'": vms,
	} {
		if n := rowCount(t, db, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}

// TestGWASemantics checks origins, units, ms detection, unsorted rows, the
// summaries and the demand curve on a hand-made combined file.
func TestGWASemantics(t *testing.T) {
	body := gwaHdr +
		// VM a: out of order; first row has no capacity (type from row 2).
		"a,1000000600,0,0,0,0,0,0,0,0,0,0\n" +
		"a,1000000300,2,4000,1000,25,4194304,1048576,0,0,0,0\n" +
		"a,1000000900,2,4000,4000,100,4194304,2097152,0,0,0,0\n" +
		// VM b: timestamps in ms, starts 100 s before a.
		"b,1000000200000,4,8000,2000,12.5,8388608,524288,0,0,0,0\n" +
		"b,1000000500000,4,8000,8000,50,8388608,524288,0,0,0,0\n"
	p := writeFile(t, "rnd.csv", body)
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{Dataset: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 5 || c.RowsLoaded != 5 {
		t.Fatalf("counts = %+v", c)
	}
	type vmRow struct {
		name, typ                string
		start, end, avg, mx, p95 float64
	}
	rows, err := db.SQL().Query("SELECT name, vm_type, start_s, end_s, cpu_avg, cpu_max, cpu_p95max FROM vm ORDER BY vm_id")
	if err != nil {
		t.Fatal(err)
	}
	var got []vmRow
	for rows.Next() {
		var r vmRow
		if err := rows.Scan(&r.name, &r.typ, &r.start, &r.end, &r.avg, &r.mx, &r.p95); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	rows.Close()
	want := []vmRow{
		{"a", "c2m4", 100, 700, 125.0 / 3, 100, 92.5},
		{"b", "c4m8", 0, 300, 31.25, 50, 48.125},
	}
	if len(got) != len(want) {
		t.Fatalf("vms = %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.name != w.name || g.typ != w.typ || g.start != w.start || g.end != w.end ||
			math.Abs(g.avg-w.avg) > 1e-9 || g.mx != w.mx || math.Abs(g.p95-w.p95) > 1e-9 {
			t.Errorf("vm %d = %+v, want %+v", i, g, w)
		}
	}
	// Readings relative to the earliest timestamp (b's first, in ms).
	if n := rowCount(t, db, "SELECT count(*) FROM cpu_reading WHERE (vm_id = 0 AND ts_s IN (100, 400, 700)) OR (vm_id = 1 AND ts_s IN (0, 300))"); n != 5 {
		t.Errorf("cpu_reading timestamps: %d of 5 match", n)
	}
	// Demand: per-VM time, cores = usage / MHz per core, memory in GB.
	type dc struct {
		tenant string
		t      float64
		cores  sql.NullFloat64
		mem    float64
	}
	rows, err = db.SQL().Query("SELECT tenant, t_s, cpu_cores, memory_gb FROM demand_curve ORDER BY tenant, t_s")
	if err != nil {
		t.Fatal(err)
	}
	var curve []dc
	for rows.Next() {
		var r dc
		if err := rows.Scan(&r.tenant, &r.t, &r.cores, &r.mem); err != nil {
			t.Fatal(err)
		}
		curve = append(curve, r)
	}
	rows.Close()
	wantCurve := []dc{
		{"a", 0, sql.NullFloat64{Float64: 0.5, Valid: true}, 1},
		{"a", 300, sql.NullFloat64{}, 0},
		{"a", 600, sql.NullFloat64{Float64: 2, Valid: true}, 2},
		{"b", 0, sql.NullFloat64{Float64: 1, Valid: true}, 0.5},
		{"b", 300, sql.NullFloat64{Float64: 4, Valid: true}, 0.5},
	}
	if len(curve) != len(wantCurve) {
		t.Fatalf("demand curve = %+v", curve)
	}
	for i := range wantCurve {
		if curve[i] != wantCurve[i] {
			t.Errorf("demand_curve[%d] = %+v, want %+v", i, curve[i], wantCurve[i])
		}
	}
}

// TestGWARawDirectory loads two raw per-VM files from a directory: the VM
// ids come from the file names.
func TestGWARawDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"7.csv":     gwaRawHdr + "1376314846;\t1;\t2600;\t26;\t1;\t2097152.0;\t1048576;\t0;\t0;\t0;\t0\n1376315146;\t1;\t2600;\t52;\t2;\t2097152.0;\t1048576;\t0;\t0;\t0;\t0\n",
		"12.csv":    gwaRawHdr + "1376314546;\t2;\t5200;\t26;\t0.5;\t4194304;\t0;\t0;\t0;\t0;\t0\n",
		"notes.txt": "not a trace\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "gwa", []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 3 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE (name = '12' AND start_s = 0 AND vm_type = 'c2m4') OR (name = '7' AND start_s = 300 AND end_s = 600 AND vm_type = 'c1m2')"); n != 2 {
		t.Fatalf("vm rows matching: %d of 2", n)
	}
}

func TestGWABadInput(t *testing.T) {
	row := "a,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n"
	cases := []struct {
		name, file, body string
		want             error
		wantIn           string
	}{
		{"non-numeric", "g.csv", gwaHdr + row + "a,1000000300,2,4000,x,25,4194304,1048576,0,0,0,0\n", ErrNotNumber, "row 3: field cpu_usage_mhz"},
		{"negative pct", "g.csv", gwaHdr + "a,1000000000,2,4000,1000,-1,4194304,1048576,0,0,0,0\n", ErrNegative, "row 2: field cpu_usage_pct"},
		{"negative timestamp", "g.csv", gwaHdr + "a,-5,2,4000,1000,1,4194304,1048576,0,0,0,0\n", ErrNegative, "row 2: field ts"},
		{"huge timestamp", "g.csv", gwaHdr + "a,1e15,2,4000,1000,1,4194304,1048576,0,0,0,0\n", ErrMalformed, "row 2: field ts"},
		{"empty vm id", "g.csv", gwaHdr + row + ",1000000300,2,4000,1000,25,4194304,1048576,0,0,0,0\n", ErrMissingField, "row 3: field vm_id"},
		{"duplicate reading", "g.csv", gwaHdr + row + "b" + row[1:] + row, ErrDuplicateID, "row 4: field ts"},
		{"duplicate after ms conversion", "g.csv", gwaHdr + row + "a,1000000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n", ErrDuplicateID, "row 3: field ts"},
		{"duplicate out of order", "g.csv", gwaHdr + "a,1000000600,2,4000,1000,25,4194304,1048576,0,0,0,0\n" + row + "a,1000000300,2,4000,1000,25,4194304,1048576,0,0,0,0\n" + row, ErrDuplicateID, "row 5: field ts"},
		{"missing column", "g.csv", "vm_id,ts,cpu_cores,cpu_cap_mhz,cpu_usage_mhz,cpu_usage_pct,mem_cap_kb\na,1,2,3,4,5,6\n", ErrMissingField, "mem_usage_kb"},
		{"short record", "g.csv", gwaHdr + "a,1000000000,2,4000\n", ErrMissingField, "row 2: field cpu_usage_mhz"},
		{"unknown header", "g.csv", "foo,bar\n1,2\n", ErrMissingField, "row 1"},
		{"raw non-numeric", "7.csv", gwaRawHdr + "1376314846;\t1;\t2600;\t26;\tabc;\t2097152.0;\t0;\t0;\t0;\t0;\t0\n", ErrNotNumber, "row 2: field cpu usage [%]"},
		{"raw duplicate", "7.csv", gwaRawHdr + "1376314846;\t1;\t2600;\t26;\t1;\t2097152.0;\t0;\t0;\t0;\t0;\t0\n1376314846;\t1;\t2600;\t26;\t1;\t2097152.0;\t0;\t0;\t0;\t0;\t0\n", ErrDuplicateID, "row 3: field timestamp [ms]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, tc.file, tc.body)
			_, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"vm", "vm_type", "cpu_reading", "demand_curve", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

// TestGWARejects: with MaxRejects, bad rows are skipped in both passes and
// counted by reason.
func TestGWARejects(t *testing.T) {
	row := "a,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n"
	body := gwaHdr + row + row + "a,1000000300,2,4000,x,25,4194304,1048576,0,0,0,0\n" + "a,1000000600,2,4000,1000,50,4194304,1048576,0,0,0,0\n"
	p := writeFile(t, "g.csv", body)
	db := openDB(t)
	if _, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{MaxRejects: 1}); !errors.Is(err, ErrTooManyRejects) {
		t.Fatalf("err = %v, want too many rejects", err)
	}
	c, err := Ingest(context.Background(), db, "gwa", []string{p}, Options{MaxRejects: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsRead != 4 || c.RowsLoaded != 2 || c.RowsRejected != 2 || len(c.Rejected) != 2 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM cpu_reading WHERE ts_s IN (0, 600)"); n != 2 {
		t.Fatalf("readings = %d", n)
	}
}

// TestGWACancel: a cancelled ingest stops the reader goroutine and leaves
// nothing behind.
func TestGWACancel(t *testing.T) {
	var b strings.Builder
	b.WriteString(gwaHdr)
	for i := 0; i < 140000; i++ {
		fmt.Fprintf(&b, "vm%d,%d,2,4000,1000,25,4194304,1048576,0,0,0,0\n", i%50, 1000000000+300*(i/50))
	}
	p := writeFile(t, "g.csv", b.String())
	db := openDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Ingest(ctx, db, "gwa", []string{p}, Options{Progress: func(done, total int64) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for _, table := range []string{"vm", "cpu_reading", "demand_curve", "dataset"} {
		if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
			t.Fatalf("%d %s rows left behind", n, table)
		}
	}
}

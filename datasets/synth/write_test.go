package synth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	store "placelab/sql"
)

func openMem(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t testing.TB, db *store.DB, q string, args ...any) int64 {
	t.Helper()
	res, err := db.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		t.Fatalf("%s: %d rows", q, len(res.Rows))
	}
	switch v := res.Rows[0][0].(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case float64:
		return int64(v)
	case nil:
		return 0
	default:
		t.Fatalf("%s: unexpected %T", q, v)
	}
	return 0
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	cfg := smallConfig(5)
	var st Stats
	var calls int
	var last [2]int64
	counts, err := db.Ingest(ctx, store.IngestInfo{Dataset: "syn", Format: "synthetic", Source: "test"}, func(w *store.Writer) error {
		var err error
		st, err = Write(ctx, w, cfg, func(done, total int64) {
			calls++
			last = [2]int64{done, total}
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last[0] != last[1] || last[1] != st.Rows {
		t.Fatalf("progress: %d calls, last %v, rows %d", calls, last, st.Rows)
	}
	if counts.RowsLoaded != st.Rows {
		t.Fatalf("counts.RowsLoaded = %d, stats rows %d", counts.RowsLoaded, st.Rows)
	}
	tr := mustGenerate(t, cfg)
	want := map[string]int64{
		"sku":         int64(len(tr.Zone.SKUs)),
		"machine":     int64(cfg.Machines),
		"vm_type":     int64(len(VMTypes())),
		"vm":          int64(cfg.VMs),
		"cpu_reading": st.Readings,
	}
	for table, n := range want {
		if got := queryInt(t, db, "SELECT count(*) FROM "+table+" WHERE dataset = 'syn'"); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	if st.Readings == 0 || st.SeriesVMs != cfg.SeriesVMs {
		t.Errorf("series: %d VMs, %d readings", st.SeriesVMs, st.Readings)
	}
	checks := []struct {
		name string
		q    string
		want int64
	}{
		{"initial VMs", "SELECT count(*) FROM vm WHERE dataset = 'syn' AND start_s < 0", int64(st.InitialVMs)},
		{"censored VMs", "SELECT count(*) FROM vm WHERE dataset = 'syn' AND end_s IS NULL", int64(st.Censored)},
		{"tenants", "SELECT count(DISTINCT tenant) FROM vm WHERE dataset = 'syn'", int64(st.Requests)},
		{"periodic = interactive", "SELECT count(*) FROM vm WHERE dataset = 'syn' AND (period_hours IS NOT NULL) <> (category = 'Interactive')", 0},
		{"series VMs", "SELECT count(DISTINCT vm_id) FROM cpu_reading WHERE dataset = 'syn'", int64(st.SeriesVMs)},
		{"every type has demand", "SELECT count(DISTINCT vm_type) FROM vm_type_demand WHERE dataset = 'syn'", int64(len(VMTypes()))},
		// The SKUs make packing multi-dimensional: D/G need SSD (not gen3),
		// G4/G5 need gen5+ memory, A8–A11 need more NIC than gen3 has.
		{"gen3 hosts A only", "SELECT count(*) FROM vm_type_demand d JOIN vm_type t USING (load_id, vm_type) WHERE d.dataset = 'syn' AND d.sku = 'gen3' AND t.family <> 'A'", 0},
		{"gen3 lacks A8-A11", "SELECT count(*) FROM vm_type_demand WHERE dataset = 'syn' AND sku = 'gen3' AND vm_type IN ('A8','A9','A10','A11')", 0},
		{"G4/G5 on gen5+ only", "SELECT count(*) FROM vm_type_demand WHERE dataset = 'syn' AND vm_type IN ('G4','G5') AND sku IN ('gen3','gen4')", 0},
		{"G4/G5 on gen5 and gen6", "SELECT count(*) FROM vm_type_demand WHERE dataset = 'syn' AND vm_type IN ('G4','G5')", 4},
		{"clusters homogeneous", "SELECT count(*) FROM (SELECT cluster FROM machine WHERE dataset = 'syn' GROUP BY cluster HAVING count(DISTINCT sku) > 1)", 0},
		{"clusters <= 1000", "SELECT count(*) FROM (SELECT cluster FROM machine WHERE dataset = 'syn' GROUP BY cluster HAVING count(*) > 1000)", 0},
		{"racks <= 40", "SELECT count(*) FROM (SELECT rack FROM machine WHERE dataset = 'syn' GROUP BY rack HAVING count(*) > 40)", 0},
	}
	for _, c := range checks {
		if got := queryInt(t, db, c.q); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// The views see it.
	if res, err := db.QueryView(ctx, "inventory_by_sku", "syn"); err != nil || len(res.Rows) != 4 {
		t.Errorf("inventory_by_sku: %v, %v", res, err)
	}
}

// A cancelled context stops Write and the ingest leaves nothing behind.
func TestWriteCancelled(t *testing.T) {
	db := openMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := db.Ingest(ctx, store.IngestInfo{Dataset: "syn", Format: "synthetic"}, func(w *store.Writer) error {
		_, err := Write(ctx, w, smallConfig(1), func(done, total int64) { cancel() })
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM vm"); n != 0 {
		t.Fatalf("%d vm rows after a cancelled ingest", n)
	}
}

func TestWriteInventory(t *testing.T) {
	ctx := context.Background()
	type want struct {
		machines int
		skus     int64 // rows in sku after the ingest
		perSKU   map[string]int64
		clusters int64
	}
	cases := []struct {
		name   string
		before func(w *store.Writer) error // rows a trace loader wrote first
		spec   string
		want   want
	}{
		{name: "synthetic", spec: "synthetic:5000",
			want: want{5000, 4, map[string]int64{"gen3": 592, "gen4": 2777, "gen5": 1463, "gen6": 168}, 7}},
		{name: "synthetic small keeps every generation", spec: "synthetic:40",
			want: want{40, 4, map[string]int64{"gen3": 5, "gen4": 22, "gen5": 12, "gen6": 1}, 4}},
		{name: "named shape", spec: "shape:gen5:2500",
			want: want{2500, 1, map[string]int64{"gen5": 2500}, 3}},
		{name: "custom shape", spec: "shape:cores=64,memory=512,ssd=3840,nic=100,gpus=8:100",
			want: want{100, 1, map[string]int64{"shape-c64m512s3840n100g8": 100}, 1}},
		{name: "custom shape, spaces", spec: " shape: cores = 16 , memory=128 :10",
			want: want{10, 1, map[string]int64{"shape-c16m128": 10}, 1}},
		{name: "per-sku", spec: "per-sku:1200",
			before: func(w *store.Writer) error {
				for _, s := range []string{"m1", "m2"} {
					if err := w.Append("sku", s, nil, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
						return err
					}
				}
				return nil
			},
			want: want{2400, 2, map[string]int64{"m1": 1200, "m2": 1200}, 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openMem(t)
			var got int
			_, err := db.Ingest(ctx, store.IngestInfo{Dataset: "inv", Format: "test"}, func(w *store.Writer) error {
				if tc.before != nil {
					if err := tc.before(w); err != nil {
						return err
					}
				}
				var err error
				got, err = WriteInventory(w, tc.spec, 42)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want.machines {
				t.Fatalf("machines = %d, want %d", got, tc.want.machines)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM sku"); n != tc.want.skus {
				t.Errorf("sku rows = %d, want %d", n, tc.want.skus)
			}
			if n := queryInt(t, db, "SELECT count(DISTINCT machine_id) FROM machine WHERE machine_id < $1", got); n != int64(got) {
				t.Errorf("machine ids not 0..%d: %d distinct below", got-1, n)
			}
			for sku, n := range tc.want.perSKU {
				if m := queryInt(t, db, "SELECT count(*) FROM machine WHERE sku = $1", sku); m != n {
					t.Errorf("sku %s: %d machines, want %d", sku, m, n)
				}
			}
			if n := queryInt(t, db, "SELECT count(DISTINCT cluster) FROM machine"); n != tc.want.clusters {
				t.Errorf("clusters = %d, want %d", n, tc.want.clusters)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM (SELECT cluster FROM machine GROUP BY cluster HAVING count(DISTINCT sku) > 1 OR count(*) > 1000)"); n != 0 {
				t.Errorf("%d clusters mixed or over 1,000", n)
			}
			if n := queryInt(t, db, "SELECT max(c) FROM (SELECT count(*) AS c FROM machine GROUP BY rack)"); n > RackSize {
				t.Errorf("largest rack %d", n)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM machine m LEFT JOIN sku s USING (load_id, sku) WHERE s.sku IS NULL"); n != 0 {
				t.Errorf("%d machines of unknown SKU", n)
			}
		})
	}
}

// Machine ids continue after those already written, so two specs can be
// combined in one ingest.
func TestWriteInventoryTwice(t *testing.T) {
	db := openMem(t)
	_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "inv", Format: "test"}, func(w *store.Writer) error {
		if _, err := WriteInventory(w, "shape:gen4:30", 1); err != nil {
			return err
		}
		_, err := WriteInventory(w, "shape:gen6:20", 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, "SELECT max(machine_id) + 1 FROM machine"); n != 50 {
		t.Fatalf("machine ids end at %d, want 50", n)
	}
}

func TestWriteInventoryBadSpecs(t *testing.T) {
	cases := []struct {
		spec, mention string // the error must name the bad part
	}{
		{"", "empty"},
		{"synthetic", "synthetic:N"},
		{"synthetic:", `""`},
		{"synthetic:0", `"0"`},
		{"synthetic:-5", `"-5"`},
		{"synthetic:ten", `"ten"`},
		{"synthetic:2000000", "2000000"},
		{"synthetic:10:2", "synthetic:N"},
		{"shape:gen4", "shape:NAME:N"},
		{"shape:gen9:10", `"gen9"`},
		{"shape:cores=8:10", "memory > 0"},
		{"shape:cores=8,memory=0:10", "memory > 0"},
		{"shape:cores=8,memory=64,disk=1:10", `"disk"`},
		{"shape:cores=8,memory=64,cores=4:10", `"cores" given twice`},
		{"shape:cores=eight,memory=64:10", `cores="eight"`},
		{"shape:cores=8,memory=-1:10", `memory="-1"`},
		{"shape:cores=8,memory=NaN:10", `memory="NaN"`},
		{"shape:cores=8,memory:10", `"memory"`},
		{"shape:cores=8,memory=64:x", `"x"`},
		{"per-sku:3", "no sku rows"},
		{"per-sku:abc", `"abc"`},
		{"azure:100", `"azure"`},
	}
	db := openMem(t)
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := db.Ingest(context.Background(), store.IngestInfo{Dataset: "bad", Format: "test"}, func(w *store.Writer) error {
				_, err := WriteInventory(w, tc.spec, 1)
				return err
			})
			if !errors.Is(err, ErrBadSpec) {
				t.Fatalf("err = %v, want ErrBadSpec", err)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Fatalf("error %q does not mention %s", err, tc.mention)
			}
		})
	}
}

// BenchmarkIngestSynthetic generates and ingests a trace into an in-memory
// DuckDB in one transaction, and reports rows (all tables) per second.
func BenchmarkIngestSynthetic(b *testing.B) {
	sizes := []struct {
		name          string
		machines, vms int
	}{
		{"vms=100000", 5000, 100_000},
		{"vms=1000000", 50_000, 1_000_000},
	}
	for _, sz := range sizes {
		b.Run(sz.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Machines, cfg.VMs = sz.machines, sz.vms
			ctx := context.Background()
			var rows int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, err := store.Open(ctx, ":memory:")
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var st Stats
				_, err = db.Ingest(ctx, store.IngestInfo{Dataset: "bench", Format: "synthetic"}, func(w *store.Writer) error {
					st, err = Write(ctx, w, cfg, nil)
					return err
				})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				// Real work: every VM landed.
				if n := queryInt(b, db, "SELECT count(*) FROM vm"); n != int64(sz.vms) {
					b.Fatalf("vm rows = %d, want %d", n, sz.vms)
				}
				rows += st.Rows
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func ExampleParseSpec() {
	for _, spec := range []string{"synthetic:5000", "shape:gen5:100", "shape:cores=64,memory=512,gpus=8:10", "per-sku:1000"} {
		s, err := ParseSpec(spec)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s.Kind, s.Shape.Name, s.N)
	}
	_, err := ParseSpec("shape:gen9:10")
	fmt.Println(err)
	// Output:
	// synthetic  5000
	// shape gen5 100
	// shape shape-c64m512g8 10
	// per-sku  1000
	// synth: bad inventory spec "shape:gen9:10": unknown shape "gen9" (known: gen3, gen4, gen5, gen6, or cores=C,memory=M,...)
}

func ExampleNewZone() {
	z, _ := NewZone(5000, 1)
	n := map[string]int{}
	for _, m := range z.Machines {
		n[m.SKU]++
	}
	for _, s := range z.SKUs {
		fmt.Printf("%s: %d cores, %g GB, %d machines\n", s.Name, int(s.Cores), s.MemoryGB, n[s.Name])
	}
	fmt.Println("zone cores:", z.Cores())
	// Output:
	// gen3: 10 cores, 64 GB, 592 machines
	// gen4: 24 cores, 192 GB, 2777 machines
	// gen5: 40 cores, 512 GB, 1463 machines
	// gen6: 48 cores, 768 GB, 168 machines
	// zone cores: 139152
}

package datasets

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	store "placelab/sql"
)

// ingestEdgeFormats are the header CSV formats with one good row each;
// every header is the format's own (from its small test).
var ingestEdgeFormats = []struct {
	format, header, row string
	opts                Options
}{
	{"huawei", "vmid,cpu,mem,at,lt", "0,4,16,0,194", Options{}},
	{"azure-cpu", `"vm","step","minute","avg_cpu","max_cpu"`, `"a",1,0,1.5,3`, Options{}},
	{"lumos", strings.TrimSuffix(lumosHdr, "\n"), "aws,5s,x,A,1,spark,a,small,True,10,1", Options{}},
	{"gwa", strings.TrimSuffix(gwaHdr, "\n"), "a,1000000300,2,4000,1000,25,4194304,1048576,0,0,0,0", Options{}},
	{"alibaba-openb", "sn,cpu_milli,memory_mib,gpu,model", "n0,32000,262144,0,", Options{}},
	{"alibaba-openb", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time",
		"p0,4000,8192,0,0,,LS,Running,10,20,10", Options{Inventory: "synthetic:4"}},
}

// warningRows reads a dataset's ingest_warning rows as "code|source|message".
func warningRows(t *testing.T, db *store.DB, dataset string) []string {
	t.Helper()
	rows, err := db.SQL().Query("SELECT code, coalesce(source, ''), message FROM ingest_warning WHERE dataset = ? ORDER BY code", dataset)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c, s, m string
		if err := rows.Scan(&c, &s, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, c+"|"+s+"|"+m)
	}
	return out
}

// TestIngestHeaderOnly is issue 32 item 5: a Huawei CSV with only its header
// loaded 0 VMs as a dataset without a word. It still loads (0 rows is a
// valid, if odd, trace) but says "0 rows" for that file, in the counts and
// in ingest_warning; so does every other header CSV format.
func TestIngestHeaderOnly(t *testing.T) {
	for _, f := range ingestEdgeFormats {
		t.Run(f.format+"/"+strings.SplitN(f.header, ",", 2)[0], func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "only-header.csv", f.header+"\n")
			o := f.opts
			o.Dataset = "d"
			c, err := Ingest(context.Background(), db, f.format, []string{p}, o)
			if err != nil {
				t.Fatalf("header only: %v", err)
			}
			if c.RowsRead != 0 || len(c.Warnings) != 1 || c.Warnings[0].Code != WarnNoRows || c.Warnings[0].Source != p ||
				!strings.Contains(c.Warnings[0].Message, "0 rows") {
				t.Fatalf("counts = %+v, want one %s warning on %s saying 0 rows", c, WarnNoRows, p)
			}
			if got := warningRows(t, db, "d"); len(got) != 1 || !strings.HasPrefix(got[0], WarnNoRows+"|"+p+"|0 rows") {
				t.Errorf("ingest_warning = %q", got)
			}
		})
	}
	t.Run("one good file, one header-only file: the empty one is named", func(t *testing.T) {
		db := openDB(t)
		good := writeFile(t, "good.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,194\n")
		empty := writeFile(t, "empty.csv", "vmid,cpu,mem,at,lt\n")
		c, err := Ingest(context.Background(), db, "huawei", []string{good, empty}, Options{Dataset: "d"})
		if err != nil {
			t.Fatal(err)
		}
		if c.RowsLoaded != 1 || len(c.Warnings) != 1 || c.Warnings[0].Source != empty {
			t.Fatalf("counts = %+v, want 1 row loaded and a warning on %s only", c, empty)
		}
	})
	t.Run("a good file warns nothing", func(t *testing.T) {
		for _, f := range ingestEdgeFormats {
			db := openDB(t)
			p := writeFile(t, "good.csv", f.header+"\n"+f.row+"\n")
			o := f.opts
			o.Dataset = "d"
			c, err := Ingest(context.Background(), db, f.format, []string{p}, o)
			if err != nil || len(c.Warnings) != 0 || c.RowsRead != 1 {
				t.Errorf("%s: good file: %v, counts %+v", f.format, err, c)
			}
		}
	})
}

// TestIngestExtraField is issue 32 item 5: a row with more fields than the
// header names loaded silently (the extra value dropped). It is now a row
// error naming file, row and field, in every header CSV format: the ingest
// fails and the database is as it was (one transaction), or, with
// --max-rejects, the row is skipped and counted.
func TestIngestExtraField(t *testing.T) {
	for _, f := range ingestEdgeFormats {
		t.Run(f.format+"/"+strings.SplitN(f.header, ",", 2)[0], func(t *testing.T) {
			db := openDB(t)
			ctx := context.Background()
			o := f.opts
			o.Dataset = "d"
			good := writeFile(t, "good.csv", f.header+"\n"+f.row+"\n")
			if _, err := Ingest(ctx, db, f.format, []string{good}, o); err != nil {
				t.Fatal(err)
			}
			before := rowCount(t, db, "SELECT count(*) FROM dataset WHERE name = 'd'") + 1000*rowCount(t, db, "SELECT max(load_id) FROM dataset WHERE name = 'd'")
			width := len(strings.Split(f.header, ","))
			bad := writeFile(t, "extra.csv", f.header+"\n"+f.row+"\n"+f.row+",surplus\n")
			_, err := Ingest(ctx, db, f.format, []string{bad}, o)
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrExtraField) {
				t.Fatalf("extra field: err = %v, want a *RowError wrapping ErrExtraField", err)
			}
			wantField := "column " + itoa(width+1)
			if re.File != bad || re.Row != 3 || re.Field != wantField || re.Value != "surplus" {
				t.Errorf("RowError = {%s, row %d, field %q, value %q}, want {%s, row 3, field %q, value \"surplus\"}",
					re.File, re.Row, re.Field, re.Value, bad, wantField)
			}
			for _, want := range []string{filepath.Base(bad), "row 3", wantField} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q: %v", want, err)
				}
			}
			after := rowCount(t, db, "SELECT count(*) FROM dataset WHERE name = 'd'") + 1000*rowCount(t, db, "SELECT max(load_id) FROM dataset WHERE name = 'd'")
			if after != before {
				t.Errorf("the failed ingest changed the dataset (load %d → %d)", before, after)
			}
			o.MaxRejects = 1
			c, err := Ingest(ctx, db, f.format, []string{bad}, o)
			if err != nil || c.RowsRejected != 1 || c.Rejected[wantField+": "+ErrExtraField.Error()+": the header names "+itoa(width)+" columns"] != 1 {
				t.Errorf("--max-rejects 1: %v, counts %+v", err, c)
			}
		})
	}
}

// TestHuaweiUnknownColumn: a header column the huawei format does not
// define (vmid, cpu, mem, at, lt) is not read, and the ingest says so.
func TestHuaweiUnknownColumn(t *testing.T) {
	db := openDB(t)
	p := writeFile(t, "zone.csv", "vmid,cpu,mem,at,lt,zone\n0,4,16,0,194,a\n")
	c, err := Ingest(context.Background(), db, "huawei", []string{p}, Options{Dataset: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 1 || len(c.Warnings) != 1 || c.Warnings[0].Code != WarnUnknownColumn || !strings.Contains(c.Warnings[0].Object, `"zone"`) {
		t.Fatalf("counts = %+v, want 1 row and an %s warning on column zone", c, WarnUnknownColumn)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestTableFileExtraField: the formats read through DuckDB (the placelab
// workload file, inventory and failure files) reported a row wider than
// the header as the header's columns missing (DuckDB's sniffer took the
// wider row for the dialect); they now name the row and the extra field.
func TestTableFileExtraField(t *testing.T) {
	db := openDB(t)
	p := writeFile(t, "wl.csv", "id,tenant,start_s,cores,memory_gb\na,t,0,2,4\nb,t,0,2,4,9\n")
	_, err := Ingest(context.Background(), db, "placelab", []string{p}, Options{Dataset: "d", Inventory: "synthetic:4"})
	var re *RowError
	if !errors.As(err, &re) || !errors.Is(err, ErrExtraField) || re.File != p || re.Row != 3 || re.Field != "column 6" || re.Value != "9" {
		t.Fatalf("err = %v, want %s: row 3: field column 6: extra field (value \"9\")", err, p)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM dataset"); n != 0 {
		t.Errorf("the failed ingest left %d datasets", n)
	}
}

// TestIngestNoRowsFallback: a format that reads no row and names no empty
// file itself (the non-CSV loaders) still gets the "0 rows" warning, once.
func TestIngestNoRowsFallback(t *testing.T) {
	register(Format{Name: "test-nothing", Load: func(context.Context, *store.Writer, []string, Options) error { return nil }})
	defer delete(formats, "test-nothing")
	db := openDB(t)
	p := writeFile(t, "in.txt", "")
	c, err := Ingest(context.Background(), db, "test-nothing", []string{p}, Options{Dataset: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].Code != WarnNoRows || c.Warnings[0].Source != p || !strings.HasPrefix(c.Warnings[0].Message, "0 rows") {
		t.Fatalf("warnings = %+v, want one %s on %s", c.Warnings, WarnNoRows, p)
	}
	if got := warningRows(t, db, "d"); len(got) != 1 {
		t.Errorf("ingest_warning = %q, want one row", got)
	}
}

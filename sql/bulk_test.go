package store

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// bulkVM is a test row: every kind of column InsertFrom writes, NULLs
// included, and a name that needs quoting.
type bulkVM struct {
	id       int64
	tenant   int64
	typ      int16
	start    float64
	end      float64 // NaN: NULL
	category string
}

func bulkVMs(n int) []bulkVM {
	vs := make([]bulkVM, n)
	for i := range vs {
		end := float64(i) + 0.5 + float64(i%7)
		if i%5 == 0 {
			end = math.NaN()
		}
		vs[i] = bulkVM{id: int64(i), tenant: int64(i / 3), typ: int16(i % 3), start: float64(i) + 0.25, end: end,
			category: []string{"Interactive", "it's quoted", ""}[i%3]}
	}
	return vs
}

func bulkSource(vs []bulkVM, fail int) BulkSource {
	return BulkSource{
		Columns: []BulkColumn{{"id", BulkBigint}, {"tenant", BulkBigint}, {"typ", BulkSmallint},
			{"start_s", BulkDouble}, {"end_s", BulkDouble}, {"category", BulkVarchar}},
		Rows: len(vs),
		Fill: func(r BulkRow, i int) error {
			if i == fail {
				return fmt.Errorf("no data for vm %d", vs[i].id)
			}
			v := vs[i]
			r.Int64(0, v.id)
			r.Int64(1, v.tenant)
			r.Int16(2, v.typ)
			r.Float64(3, v.start)
			if math.IsNaN(v.end) {
				r.Null(4)
			} else {
				r.Float64(4, v.end)
			}
			r.String(5, v.category)
			return nil
		},
	}
}

var bulkSelects = []string{"id", "'vm-' || id", "'t' || tenant", "NULL", StringList([]string{"A1", "D'2", "F8"}) + "[typ + 1]",
	"0", "start_s", "end_s", "category", "NULL", "NULL", "NULL", "NULL"}

// InsertFrom writes, from several threads, exactly the rows Fill gives
// (read back and compared one by one with the Go values, NULLs, quoted
// strings and SQL-derived columns included), in a file database so that
// DuckDB's parallel insert and its compression run as in a real ingest.
func TestInsertFromWritesEveryRow(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "b.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vs := bulkVMs(50_000) // about 25 claims of 2048 rows
	c, err := db.Ingest(ctx, IngestInfo{Dataset: "bulk", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", bulkSource(vs, -1), bulkSelects...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tables["vm"] != int64(len(vs)) {
		t.Fatalf("counts: %d vm rows, want %d", c.Tables["vm"], len(vs))
	}
	rows, err := db.SQL().QueryContext(ctx, `SELECT vm_id, name, tenant, vm_type, start_s, end_s, category FROM vm WHERE dataset = 'bulk' ORDER BY vm_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var id int64
		var name, tenant, typ, cat string
		var start float64
		var end *float64
		if err := rows.Scan(&id, &name, &tenant, &typ, &start, &end, &cat); err != nil {
			t.Fatal(err)
		}
		v := vs[i]
		want := []string{fmt.Sprint(v.id), "vm-" + fmt.Sprint(v.id), "t" + fmt.Sprint(v.tenant), []string{"A1", "D'2", "F8"}[v.typ], fmt.Sprint(v.start), v.category}
		got := []string{fmt.Sprint(id), name, tenant, typ, fmt.Sprint(start), cat}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("row %d: got %q, want %q", i, got, want)
		}
		if (end == nil) != math.IsNaN(v.end) || (end != nil && *end != v.end) {
			t.Fatalf("row %d: end_s %v, want %v", i, end, v.end)
		}
	}
	if i != len(vs) {
		t.Fatalf("%d rows read back, want %d", i, len(vs))
	}
}

// A failing Fill, a constraint the rows break, and a setter of the wrong
// type each fail the ingest with the row named, and leave the database as
// it was.
func TestInsertFromFailureLeavesDatabase(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	vs := bulkVMs(10_000)
	if _, err := db.Ingest(ctx, IngestInfo{Dataset: "keep", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", bulkSource(vs[:100], -1), bulkSelects...)
	}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM vm").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()

	_, err := db.Ingest(ctx, IngestInfo{Dataset: "keep", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", bulkSource(vs, 7777), bulkSelects...)
	})
	if err == nil || !strings.Contains(err.Error(), "row 7777: no data for vm 7777") {
		t.Fatalf("failing Fill: err = %v", err)
	}

	bad := append([]bulkVM(nil), vs...)
	bad[4321].end = bad[4321].start - 1 // end before start: the CHECK on vm
	_, err = db.Ingest(ctx, IngestInfo{Dataset: "keep", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", bulkSource(bad, -1), bulkSelects...)
	})
	if err == nil || !strings.Contains(err.Error(), "CHECK") {
		t.Fatalf("constraint: err = %v", err)
	}

	src := bulkSource(vs, -1)
	fill := src.Fill
	src.Fill = func(r BulkRow, i int) error {
		if err := fill(r, i); err != nil {
			return err
		}
		if i == 9000 {
			r.String(0, "not a number") // column 0 is BIGINT
		}
		return nil
	}
	_, err = db.Ingest(ctx, IngestInfo{Dataset: "keep", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", src, bulkSelects...)
	})
	if err == nil || !strings.Contains(err.Error(), "row 9000") {
		t.Fatalf("wrong type: err = %v", err)
	}
	if got := count(); got != before {
		t.Fatalf("vm rows %d after failed ingests, want %d", got, before)
	}

	// An empty source inserts nothing and is no error.
	if _, err := db.Ingest(ctx, IngestInfo{Dataset: "empty", Format: "test"}, func(w *Writer) error {
		return w.InsertFrom("vm", bulkSource(nil, -1), bulkSelects...)
	}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM vm WHERE dataset = 'empty'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("empty source: %d rows, %v", n, err)
	}
}

func TestStringList(t *testing.T) {
	if got := StringList([]string{"a", "b's", ""}); got != `['a', 'b''s', '']` {
		t.Fatalf("StringList = %s", got)
	}
}

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func openMem(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.SQL().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestMigrateFromOlderVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	// Write a database as an older placelab would have: only migration 1.
	db0, err := openAt(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := db0.SchemaVersion(ctx); v != 1 {
		t.Fatalf("version after partial migrate = %d, want 1", v)
	}
	if _, err := db0.SQL().Exec(`INSERT INTO sku (dataset, load_id, sku, cores, memory_gb) VALUES ('x', 1, 'g', 10, 64)`); err != nil {
		t.Fatal(err)
	}
	db0.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, _ := db.SchemaVersion(ctx); v != LatestVersion() {
		t.Fatalf("version = %d, want %d", v, LatestVersion())
	}
	if n := count(t, db, "SELECT count(*) FROM sku"); n != 1 {
		t.Fatalf("rows lost in migration: %d", n)
	}
	if n := count(t, db, "SELECT count(*) FROM run"); n != 0 {
		t.Fatalf("run table: %d", n)
	}
	if n := count(t, db, "SELECT count(*) FROM schema_version"); n != int64(len(Migrations())) {
		t.Fatalf("schema_version rows = %d", n)
	}
}

// openAt opens a file database migrated only up to version upTo, as an
// older placelab would have left it.
func openAt(ctx context.Context, path string, upTo int) (*DB, error) {
	return open(ctx, path, upTo)
}
func loadSKUs(names ...string) func(w *Writer) error {
	return func(w *Writer) error {
		for _, n := range names {
			w.Counts.RowsRead++
			if err := w.Append("sku", n, 4, 24.0, 128.0, 0.0, 0.0, 0.0, 0.0, nil); err != nil {
				return err
			}
			w.Counts.RowsLoaded++
		}
		return nil
	}
}

func TestIngestReplacesAndRollsBack(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	info := IngestInfo{Dataset: "d", Format: "test", Source: "mem"}
	if _, err := db.Ingest(ctx, info, loadSKUs("a", "b")); err != nil {
		t.Fatal(err)
	}
	// Same names again: replaces, never duplicates, and the same keys may reappear.
	c, err := db.Ingest(ctx, info, loadSKUs("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 3 || c.Tables["sku"] != 3 {
		t.Fatalf("counts = %+v", c)
	}
	if n := count(t, db, "SELECT count(*) FROM sku WHERE dataset = 'd'"); n != 3 {
		t.Fatalf("after re-ingest: %d rows, want 3", n)
	}
	if n := count(t, db, "SELECT count(*) FROM dataset"); n != 1 {
		t.Fatalf("dataset rows = %d", n)
	}
	// A loader error after appending rows leaves everything as it was.
	boom := errors.New("boom")
	_, err = db.Ingest(ctx, info, func(w *Writer) error {
		if err := loadSKUs("x", "y", "z", "w")(w); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if n := count(t, db, "SELECT count(*) FROM sku WHERE dataset = 'd'"); n != 3 {
		t.Fatalf("after failed ingest: %d rows, want 3", n)
	}
	if n := count(t, db, "SELECT rows_loaded FROM dataset WHERE name = 'd'"); n != 3 {
		t.Fatalf("dataset row changed: %d", n)
	}
	// A constraint violation (cores <= 0) caught by DuckDB at flush also rolls back.
	_, err = db.Ingest(ctx, info, func(w *Writer) error {
		return w.Append("sku", "bad", 4, 0.0, 128.0, 0.0, 0.0, 0.0, 0.0, nil)
	})
	if err == nil {
		t.Fatal("zero cores accepted")
	}
	if n := count(t, db, "SELECT count(*) FROM sku WHERE dataset = 'd'"); n != 3 {
		t.Fatalf("after constraint failure: %d rows, want 3", n)
	}
	// Another dataset is independent.
	if _, err := db.Ingest(ctx, IngestInfo{Dataset: "e", Format: "test", Source: "mem"}, loadSKUs("a")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT count(*) FROM sku"); n != 4 {
		t.Fatalf("total = %d", n)
	}
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	if _, err := db.Ingest(ctx, IngestInfo{Dataset: "d", Format: "t", Source: "m"}, loadSKUs("a", "b")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"sku.parquet", "sku.csv"} {
		p := filepath.Join(dir, f)
		n, err := db.Export(ctx, "sku", p)
		if err != nil || n != 2 {
			t.Fatalf("export %s: n=%d err=%v", f, n, err)
		}
		got := count(t, db, "SELECT count(*) FROM '"+p+"'")
		if got != 2 {
			t.Fatalf("read back %s: %d", f, got)
		}
	}
	if _, err := db.Export(ctx, "sku; DROP TABLE vm", filepath.Join(dir, "x.csv")); !errors.Is(err, ErrUnknownTable) {
		t.Fatalf("unknown table: %v", err)
	}
	if _, err := db.Export(ctx, "sku", filepath.Join(dir, "x.xlsx")); err == nil {
		t.Fatal("xlsx accepted")
	}
}

func TestViewsRunOnEmptyDatabase(t *testing.T) {
	db := openMem(t)
	for _, v := range ViewNames() {
		if _, err := db.QueryView(context.Background(), v, ""); err != nil {
			t.Errorf("view %s: %v", v, err)
		}
	}
}

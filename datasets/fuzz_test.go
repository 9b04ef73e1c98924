package datasets

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	store "placelab/sql"
)

// fuzzIngest ingests data (written to a file named name) in format into a
// shared in-memory database and checks the loader's contract: no panic, and
// any failure is a *RowError or one of the package's sentinels and leaves
// the database exactly as it was — the same tables with the same row
// counts — while a success replaces the dataset "fuzz".
func fuzzIngest(f *testing.F, format, name string) {
	db := openDB(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := tableCounts(t, db)
		_, err := Ingest(context.Background(), db, format, []string{p}, Options{Dataset: "fuzz"})
		if err == nil {
			return
		}
		var re *RowError
		if !errors.As(err, &re) && !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error is not a RowError: %T %v", err, err)
		}
		if after := tableCounts(t, db); !maps.Equal(before, after) {
			t.Fatalf("a failed ingest (%v) changed the database:\nbefore %v\nafter  %v", err, before, after)
		}
	})
}

// tableCounts maps every table of the database to its row count.
func tableCounts(t testing.TB, db *store.DB) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int64, len(tables))
	for _, tb := range tables {
		var n int64
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM "`+tb+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb] = n
	}
	return out
}

func FuzzHuawei(f *testing.F) {
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,16,0.0,194.0\n1,4,16,2.0,498.0\n"))
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,16,0.0,-1\n"))
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,1e400,0,1\n"))
	f.Add([]byte("vmid,cpu,mem,at\n\"0,4\n"))
	fuzzIngest(f, "huawei", "hw.csv")
}

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestMemoryLimit: a database file gets DefaultMemoryLimit unless told
// otherwise, read-write and read-only; MemoryLimit overrides it, "duckdb"
// keeps DuckDB's own (far larger on any machine that runs the tests); an
// in-memory database keeps DuckDB's; bad sizes are refused before anything
// is opened.
func TestMemoryLimit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.duckdb")
	setting := func(db *DB) string {
		t.Helper()
		var v string
		if err := db.SQL().QueryRow(`SELECT current_setting('memory_limit')`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	check := func(name string, db *DB, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer db.Close()
		if got := setting(db); got != want {
			t.Errorf("%s: memory_limit %q, want %q", name, got, want)
		}
	}
	db, err := Open(ctx, path)
	check("file, default", db, err, "1.8 GiB") // 2GB = 2·10^9 bytes
	db, err = Open(ctx, path, MemoryLimit("512MiB"))
	check("file, 512MiB", db, err, "512.0 MiB")
	db, err = Open(ctx, path, MemoryLimit(" 2.5GB "))
	check("file, 2.5GB", db, err, "2.3 GiB")
	db, err = OpenReadOnly(ctx, path)
	check("read-only, default", db, err, "1.8 GiB")
	db, err = OpenReadOnly(ctx, path, MemoryLimit("256MB"))
	check("read-only, 256MB", db, err, "244.1 MiB")

	mem, err := Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	duck := setting(mem)
	mem.Close()
	if duck == "1.8 GiB" {
		t.Fatalf("in-memory database got the file default")
	}
	db, err = Open(ctx, path, MemoryLimit("duckdb"))
	check("file, duckdb", db, err, duck)

	for _, bad := range []string{"0GB", "1 parsec", "-1GB", "GB", "1GB'; DROP TABLE run; --", "NaN GB", "1e3MB"} {
		if db, err := Open(ctx, path, MemoryLimit(bad)); !errors.Is(err, ErrBadOption) {
			if err == nil {
				db.Close()
			}
			t.Errorf("MemoryLimit(%q): err %v, want ErrBadOption", bad, err)
		}
		if _, err := OpenReadOnly(ctx, path, MemoryLimit(bad)); !errors.Is(err, ErrBadOption) {
			t.Errorf("read-only MemoryLimit(%q): err %v, want ErrBadOption", bad, err)
		}
	}
}

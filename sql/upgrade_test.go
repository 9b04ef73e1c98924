package store

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fixture113 is a database written by placelab before the move to
// duckdb-go/v2 (DuckDB 1.1.3 through marcboeker/go-duckdb v1.8.5, schema
// version 7): placelab generate --machines 20 --vms 200 --days 1 --series 5,
// then replays of protean and bestfit.
const fixture113 = "testdata/placelab-duckdb-1.1.3.duckdb.gz"

// TestOpenDatabaseFromDuckDB113 opens that file with this build's DuckDB:
// it opens, stays at the schema version, its views answer as they did
// under 1.1.3 (figures recorded then), it takes writes and opens again.
func TestOpenDatabaseFromDuckDB113(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	in, err := os.Open(fixture113)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("a database written under DuckDB 1.1.3 does not open: %v", err)
	}
	var lib string
	if err := db.SQL().QueryRowContext(ctx, "SELECT library_version FROM pragma_version()").Scan(&lib); err != nil {
		t.Fatal(err)
	}
	if lib != DuckDBVersion {
		t.Errorf("DuckDB %s, the pinned module embeds %s", lib, DuckDBVersion)
	}
	if v, err := db.SchemaVersion(ctx); err != nil || v != LatestVersion() {
		t.Errorf("schema version %d (%v), want %d", v, err, LatestVersion())
	}
	res, err := db.Query(ctx, "SELECT run_id, policy, placed, rejected, packing_density_pct FROM run_summary ORDER BY run_id")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows); got != "[[1 protean 200 0 88.01] [2 bestfit 200 0 84.09]]" {
		t.Errorf("run_summary on the old file: %s (DuckDB 1.1.3 gave [[1 protean 200 0 88.01] [2 bestfit 200 0 84.09]])", got)
	}
	var vms, placements int
	if err := db.SQL().QueryRowContext(ctx, "SELECT (SELECT count(*) FROM vm), (SELECT count(*) FROM placement)").Scan(&vms, &placements); err != nil {
		t.Fatal(err)
	}
	if vms != 200 || placements != 400 {
		t.Errorf("%d VMs, %d placements; want 200 and 400", vms, placements)
	}
	if _, err := db.SQL().ExecContext(ctx, "INSERT INTO run_metric VALUES (1, 0, 'upgrade_check', 1)"); err != nil {
		t.Fatalf("the old file takes no write: %v", err)
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopening after a write: %v", err)
	}
	defer db.Close()
	var n int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM run_metric WHERE metric = 'upgrade_check'").Scan(&n); err != nil || n != 1 {
		t.Errorf("the write did not persist: %d %v", n, err)
	}
}

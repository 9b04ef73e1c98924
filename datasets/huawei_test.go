package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placelab/internal/shareddata"

	store "placelab/sql"
)

func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func rowCount(t testing.TB, db *store.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.SQL().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// writeFile writes content to a temp file and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHuaweiReal(t *testing.T) {
	p := shareddata.Path(t, "huawei-east-1/Huawei-East-1-lt.csv")
	db := openDB(t)
	c, err := Ingest(context.Background(), db, "huawei", []string{p}, Options{Dataset: "hw"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 116313 || c.RowsRead != 116313 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'hw'"); n != 116313 {
		t.Fatalf("vm rows = %d", n)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm_type WHERE dataset = 'hw'"); n != 15 {
		t.Fatalf("flavors = %d, want 15", n)
	}
}

func TestHuaweiBadInput(t *testing.T) {
	hdr := "vmid,cpu,mem,at,lt\n"
	cases := []struct {
		name, body string
		want       error
		wantIn     string
	}{
		{"non-numeric", hdr + "0,4,16,0,10\n1,four,16,0,10\n", ErrNotNumber, "row 3: field cpu"},
		{"zero size", hdr + "0,4,0,0,10\n", ErrNonPositive, "row 2: field mem"},
		{"negative size", hdr + "0,-4,16,0,10\n", ErrNonPositive, "field cpu"},
		{"end before start", hdr + "0,4,16,100,-5\n", ErrEndBeforeStart, "field lt"},
		{"duplicate id", hdr + "7,4,16,0,10\n7,4,16,1,10\n", ErrDuplicateID, "row 3: field vmid"},
		{"missing column", "vmid,cpu,mem,at\n0,1,2,3\n", ErrMissingField, "lt"},
		{"short record", hdr + "0,4,16\n", ErrMissingField, "row 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "hw.csv", tc.body)
			_, err := Ingest(context.Background(), db, "huawei", []string{p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			if n := rowCount(t, db, "SELECT count(*) FROM vm"); n != 0 {
				t.Fatalf("%d rows left behind", n)
			}
		})
	}
}

// TestHuaweiLastRowFailureLeavesDatabase: a bad last row of the real
// 116,313-row file fails the whole ingest and leaves an earlier dataset of
// the same name exactly as it was.
func TestHuaweiLastRowFailureLeavesDatabase(t *testing.T) {
	p := shareddata.Path(t, "huawei-east-1/Huawei-East-1-lt.csv")
	real, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	ctx := context.Background()
	small := writeFile(t, "small.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,10\n1,2,4,5,10\n")
	if _, err := Ingest(ctx, db, "huawei", []string{small}, Options{Dataset: "hw"}); err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, "bad.csv", string(real)+"999999,4,16,100,-1\n")
	_, err = Ingest(ctx, db, "huawei", []string{bad}, Options{Dataset: "hw"})
	if !errors.Is(err, ErrEndBeforeStart) || !strings.Contains(err.Error(), "row 116315") {
		t.Fatalf("err = %v, want end before start on row 116315", err)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm WHERE dataset = 'hw'"); n != 2 {
		t.Fatalf("dataset hw has %d VMs after the failed ingest, want the 2 from before", n)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM vm"); n != 2 {
		t.Fatalf("%d VMs in the database", n)
	}
	if n := rowCount(t, db, "SELECT rows_loaded FROM dataset WHERE name = 'hw'"); n != 2 {
		t.Fatalf("dataset row changed: %d", n)
	}
}

package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzIngest ingests data (written to a file named name) in format into a
// shared in-memory database and checks the loader's contract: no panic, and
// any failure is a *RowError or one of the package's sentinels, leaving no
// rows behind.
func fuzzIngest(f *testing.F, format, name string) {
	db := openDB(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Ingest(context.Background(), db, format, []string{p}, Options{Dataset: "fuzz"})
		if err == nil {
			return
		}
		var re *RowError
		if !errors.As(err, &re) && !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error is not a RowError: %T %v", err, err)
		}
	})
}

func FuzzHuawei(f *testing.F) {
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,16,0.0,194.0\n1,4,16,2.0,498.0\n"))
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,16,0.0,-1\n"))
	f.Add([]byte("vmid,cpu,mem,at,lt\n0,4,1e400,0,1\n"))
	f.Add([]byte("vmid,cpu,mem,at\n\"0,4\n"))
	fuzzIngest(f, "huawei", "hw.csv")
}

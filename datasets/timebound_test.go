package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceTimeBound: every loader refuses a time beyond ±MaxTraceSeconds
// with a row error naming the file, the row and the field, and loads one
// just inside it. Before, a loader took times up to 1e300 s, after which a
// replay sampled hour by hour toward them and analyses sized arrays by them.
func TestTraceTimeBound(t *testing.T) {
	const inside = "9.4e8"        // 29.8 years in seconds
	const insideMinutes = "1.5e7" // 28.5 years in minutes
	cases := []struct {
		name, format, file, body string
		row                      int64
		field                    string
	}{
		{"huawei arrival", "huawei", "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,10\n1,4,16,1e300,10\n", 3, "at"},
		{"huawei negative arrival", "huawei", "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,-1e12,10\n", 2, "at"},
		{"huawei end", "huawei", "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,10\n1,4,16," + inside + ",1e8\n", 3, "lt"},
		{"alibaba creation", "alibaba-openb", "pods.csv", "name,cpu_milli,memory_mib,num_gpu,creation_time,deletion_time\np0,1000,1024,0,0,10\np1,1000,1024,0,-1e10,\n", 3, "creation_time"},
		{"alibaba deletion", "alibaba-openb", "pods.csv", "name,cpu_milli,memory_mib,num_gpu,creation_time,deletion_time\np0,1000,1024,0,0,1e300\n", 2, "deletion_time"},
		{"azure vmtable deleted", "azure-vmtable", "vmtable.csv", "a,s,d,0,300,10,5,9,Interactive,2,4\nb,s,d,0,1e300,10,5,9,Interactive,2,4\n", 2, "vmdeleted"},
		{"azure vmtable created", "azure-vmtable", "vmtable.csv", "a,s,d,-1e10,300,10,5,9,Interactive,2,4\n", 1, "vmcreated"},
		{"azure readings", "azure-vmtable", "readings.csv", "0,a,1,2,1.5\n1e20,a,1,2,1.5\n", 2, "timestamp"},
		{"azure cpu minute", "azure-cpu", "cpu.csv", `"vm","step","minute","avg_cpu","max_cpu"` + "\nx,1,0,1,2\nx,2,1e20,1,2\n", 3, "minute"},
		{"gwa span", "gwa", "gwa.csv", gwaHdr + "a,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\nb,90000000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n", 3, "ts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Ingest(context.Background(), db, tc.format, []string{p}, Options{Dataset: "x"})
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrTimeRange) || re.File != p || re.Row != tc.row || re.Field != tc.field {
				t.Fatalf("got %v, want a RowError (%s: row %d: field %s) wrapping ErrTimeRange", err, p, tc.row, tc.field)
			}
			if !strings.Contains(err.Error(), "30 years") {
				t.Errorf("the error does not give the bound: %v", err)
			}
		})
	}
	// Just inside the bound loads.
	for _, tc := range []struct{ format, file, body string }{
		{"huawei", "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,-" + inside + ",1\n1,4,16," + inside + ",1\n"},
		{"azure-cpu", "cpu.csv", `"vm","step","minute","avg_cpu","max_cpu"` + "\nx,1,0,1,2\nx,2," + insideMinutes + ",1,2\n"},
		{"gwa", "gwa.csv", gwaHdr + "a,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\nb,1900000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n"},
	} {
		db := openDB(t)
		p := filepath.Join(t.TempDir(), tc.file)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Ingest(context.Background(), db, tc.format, []string{p}, Options{Dataset: "x"}); err != nil {
			t.Errorf("%s within the bound: %v", tc.format, err)
		}
	}
}

// TestPackingTimeBound: the Azure packing trace's times are days; one
// beyond ±MaxTraceSeconds is refused at its rowid.
func TestPackingTimeBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vm    []any
		field string
	}{
		{"start", []any{103, 9, 1, 0, -1e7, 1.0}, "starttime"},
		{"end", []any{103, 9, 1, 0, 0.0, 1e300}, "endtime"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := goodPackingFixture()
			fx.vms = append(fx.vms, tc.vm)
			p := fx.write(t, filepath.Join(t.TempDir(), "trace.sqlite"))
			_, err := Ingest(context.Background(), openDB(t), "azure-packing", []string{p}, Options{Dataset: "x"})
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrTimeRange) || re.File != p || re.Row != int64(len(fx.vms)) || re.Field != tc.field {
				t.Fatalf("got %v, want a RowError (row %d, field %s) wrapping ErrTimeRange", err, len(fx.vms), tc.field)
			}
		})
	}
}

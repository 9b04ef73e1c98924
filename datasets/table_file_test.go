package datasets

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// bigWorkload is a workload file of n good rows (one core, one GB each, no
// machine) with line bad (1-based, the header line 1) replaced by badRow.
func bigWorkload(n, bad int, badRow string) string {
	var b strings.Builder
	b.WriteString("id,tenant,cores,memory_gb,start_s,end_s,machine\n")
	for i := 0; i < n; i++ {
		if i+2 == bad {
			b.WriteString(badRow + "\n")
			continue
		}
		fmt.Fprintf(&b, "vm%05d,web,1,1,%d,,\n", i, i)
	}
	return b.String()
}

// TestTableFileRowErrors: a bad row of a workload file names the file, the
// row as the file's line (header line 1, said in the message) and the
// field, whatever the file's size and wherever the row is. A short row was
// "row 1: field id: missing field: no column "id"" in a small file and
// DuckDB's "Error when sniffing file" in a 5,000-row one (issue 52 item 8).
// Nothing is written.
func TestTableFileRowErrors(t *testing.T) {
	const short = "vm-short,web,4,16"
	for _, c := range []struct {
		name, body, field, text string
		row                     int64
		err                     error
	}{
		{"short row, small file", "id,tenant,cores,memory_gb,start_s,end_s,machine\na,web,4,16,0,,\nb,web,4,16\nc,web,4,16,0,,\n",
			"start_s", "row 3 (its line in the file; the header is line 1): field start_s: missing field: the row has 4 fields, the header names 7 (no start_s, end_s, machine)", 3, ErrMissingField},
		{"short row in the middle of 5,000", bigWorkload(5000, 2502, short), "start_s", "row 2502 (its line in the file; the header is line 1): field start_s", 2502, ErrMissingField},
		{"short row at the end of 5,000", bigWorkload(5000, 5001, short), "start_s", "row 5001 (its line in the file; the header is line 1): field start_s", 5001, ErrMissingField},
		{"one field only", bigWorkload(5000, 300, "lonely"), "tenant", "row 300 (its line in the file; the header is line 1): field tenant: missing field: the row has 1 field, the header names 7 (no tenant, cores, memory_gb, start_s, …)", 300, ErrMissingField},
		{"wide row in the middle of 5,000", bigWorkload(5000, 2502, "x,web,1,1,0,,,surplus"), "column 8", "row 2502 (its line in the file; the header is line 1): field column 8: extra field", 2502, ErrExtraField},
		{"bad value at the end of 5,000", bigWorkload(5000, 5001, "x,web,1,1,soon,,"), "start_s", "row 5001 (its line in the file; the header is line 1): field start_s: not a number", 5001, ErrNotNumber},
		// Blank lines and a quoted field's newline count as lines: the row
		// is the line an editor shows.
		{"after blank lines and a two-line field", "id,tenant,cores,memory_gb,start_s\n\na,\"two\nlines\",1,1,0\n\n\nb,web,1,1,never\n",
			"start_s", "row 7 (its line in the file; the header is line 1): field start_s: not a number", 7, ErrNotNumber},
		{"duplicate id names both lines", "id,tenant,cores,memory_gb,start_s\na,web,1,1,0\n\nb,web,1,1,0\na,web,1,1,0\n",
			"id", "row 5 (its line in the file; the header is line 1): field id: duplicate id: also row 2", 5, ErrDuplicateID},
		{"empty file", "", "", "vms.csv: malformed: empty file, expected a header", 0, ErrMalformed},
		{"header only", "id,tenant,cores,memory_gb,start_s\n", "", "vms.csv: malformed: 0 rows: the file lists no VMs", 0, ErrMalformed},
		{"missing column is the header line", "id,tenant,cores,memory_gb\na,web,1,1\n", "start_s", "row 1 (its line in the file; the header is line 1): field start_s: missing field: no column", 1, ErrMissingField},
		// A semicolon-separated file reads as one column: the error says so.
		{"semicolons", "id;tenant;cores;memory_gb;start_s\na;web;1;1;0\n", "id", "the header looks separated by semicolons; placelab reads comma-separated CSV", 1, ErrMissingField},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"fleet.csv": wlFleet, "vms.csv": c.body})
			db := openDB(t)
			_, err := Ingest(context.Background(), db, "placelab", []string{filepath.Join(dir, "vms.csv")},
				Options{Dataset: "mine", Inventory: filepath.Join(dir, "fleet.csv")})
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, c.err) || re.Row != c.row || re.Field != c.field || re.File != filepath.Join(dir, "vms.csv") {
				t.Fatalf("err = %v, want a row error of vms.csv at row %d field %q wrapping %v", err, c.row, c.field, c.err)
			}
			if !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "sniffing") {
				t.Fatalf("err = %q, want it to contain %q", err, c.text)
			}
			for _, tbl := range []string{"dataset", "vm", "machine", "run", "ingest_warning"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+tbl); n != 0 {
					t.Errorf("%s has %d rows after a refused ingest", tbl, n)
				}
			}
		})
	}
}

// TestTableFileInventoryRowErrors: an inventory file's short row and a row
// after a blank line are named by their line, like a workload file's.
func TestTableFileInventoryRowErrors(t *testing.T) {
	for _, c := range []struct {
		name, body, field string
		row               int64
		err               error
	}{
		{"short row", invHeader + "m0,,,c1,r1,,gen5,48,384,,,,,\nm1,,,c1,r1,,gen5\n", "cores", 3, ErrMissingField},
		{"after a blank line", invHeader + "m0,,,c1,r1,,gen5,48,384,,,,,\n\nm1,,,c1,r1,,gen5,48,lots,,,,,\n", "memory_gb", 4, ErrNotNumber},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "fleet.csv", c.body)
			_, err := loadInventoryFile(t, db, p)
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, c.err) || re.Row != c.row || re.Field != c.field || re.Numbering != NumberingCSV {
				t.Fatalf("err = %v, want row %d field %q wrapping %v, numbered as lines", err, c.row, c.field, c.err)
			}
		})
	}
}

// TestTableFileParquetRows: a Parquet file's bad row is its data row from
// 1, and the message says so.
func TestTableFileParquetRows(t *testing.T) {
	dir := writeFiles(t, map[string]string{"fleet.csv": wlFleet, "vms.csv": "id,tenant,cores,memory_gb,start_s\na,web,1,1,0\nb,web,1,1,0\nc,web,-1,1,0\n"})
	db := openDB(t)
	pq := filepath.Join(dir, "vms.parquet")
	if _, err := db.SQL().Exec("COPY (SELECT * FROM read_csv('" + filepath.Join(dir, "vms.csv") + "', all_varchar = true)) TO '" + pq + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	_, err := Ingest(context.Background(), db, "placelab", []string{pq}, Options{Dataset: "pq", Inventory: filepath.Join(dir, "fleet.csv")})
	var re *RowError
	if !errors.As(err, &re) || re.Row != 3 || re.Field != "cores" || !strings.Contains(err.Error(), "row 3 ("+NumberingParquet+"): field cores") {
		t.Fatalf("err = %v, want row 3 (%s) field cores", err, NumberingParquet)
	}
}

// TestLineIndex: records map to the lines they start on, across jumps.
func TestLineIndex(t *testing.T) {
	var x lineIndex
	lines := []int64{2, 3, 5, 6, 7, 10, 11}
	for i, l := range lines {
		x.add(int64(i), l)
	}
	for i, l := range lines {
		if got := x.of(int64(i)); got != l {
			t.Errorf("record %d: line %d, want %d", i, got, l)
		}
	}
	if len(x.jumps) != 3 {
		t.Errorf("%d jumps kept, want 3 (at records 0, 2, 5)", len(x.jumps))
	}
	var empty lineIndex
	if got := empty.of(0); got != 2 {
		t.Errorf("empty index: record 0 on line %d, want 2", got)
	}
}

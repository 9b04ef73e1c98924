package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	store "placelab/sql"
)

// writeFailureParquet writes the rows of a DuckDB SELECT to a Parquet file.
func writeFailureParquet(t *testing.T, db *store.DB, name, query string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if _, err := db.SQL().Exec("COPY (" + query + ") TO " + store.QuoteString(p) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFailureFileCSV(t *testing.T) {
	db := openDB(t)
	p := writeFile(t, "failures.csv", "t_s,machine,rack,duration_s,kind\n"+
		"3600,c0-r0-m1,,900,reboot\n"+
		"7200.5,,c1/r0,5400,HARD\n"+
		" -10 , m7 ,, 1e3 , Hard \n")
	got, err := ReadFailureFile(context.Background(), db, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []FailureRow{
		{Row: 2, T: 3600, Duration: 900, Machine: "c0-r0-m1", Kind: "reboot"},
		{Row: 3, T: 7200.5, Duration: 5400, Rack: "c1/r0", Kind: "hard"},
		{Row: 4, T: -10, Duration: 1000, Machine: "m7", Kind: "hard"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
}

func TestReadFailureFileParquet(t *testing.T) {
	db := openDB(t)
	for _, tc := range []struct {
		name, query string
		want        []FailureRow
	}{
		{"typed columns", `SELECT * FROM (VALUES (60.0, 'm1', NULL, 30, 'reboot'), (90.25, NULL, 'r2', 7200, 'hard'))
			AS t(t_s, machine, rack, duration_s, kind)`,
			[]FailureRow{{Row: 1, T: 60, Duration: 30, Machine: "m1", Kind: "reboot"}, {Row: 2, T: 90.25, Duration: 7200, Rack: "r2", Kind: "hard"}}},
		{"machine column only, text numbers", `SELECT '5' AS t_s, 'm1' AS machine, '6' AS duration_s, 'reboot' AS kind`,
			[]FailureRow{{Row: 1, T: 5, Duration: 6, Machine: "m1", Kind: "reboot"}}},
		{"rack column only, upper-case names", `SELECT 1.5::DOUBLE AS "T_S", 'c0/r1' AS "Rack", 2.5::FLOAT AS "DURATION_S", 'hard' AS "Kind"`,
			[]FailureRow{{Row: 1, T: 1.5, Duration: 2.5, Rack: "c0/r1", Kind: "hard"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFailureParquet(t, db, "f.parquet", tc.query)
			got, err := ReadFailureFile(context.Background(), db, p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("rows %+v, want %+v", got, tc.want)
			}
		})
	}
	// Parquet is recognized by its magic bytes under any name.
	p := writeFailureParquet(t, db, "f.parquet", "SELECT 1 AS t_s, 'm' AS machine, 2 AS duration_s, 'hard' AS kind")
	q := filepath.Join(t.TempDir(), "incidents.dat")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(q, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFailureFile(context.Background(), db, q); err != nil || len(got) != 1 || got[0].Machine != "m" {
		t.Fatalf("Parquet named .dat: %+v, %v", got, err)
	}
}

// checkFailureErr asserts a *RowError at row and field wrapping sentinel,
// and that the message says so.
func checkFailureErr(t *testing.T, err error, row int64, field string, sentinel error, msg string) {
	t.Helper()
	var re *RowError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T), want a *RowError", err, err)
	}
	if re.Row != row || re.Field != field || (sentinel != nil && !errors.Is(err, sentinel)) {
		t.Fatalf("error %q: row %d, field %q; want row %d, field %q, wrapping %v", err, re.Row, re.Field, row, field, sentinel)
	}
	s := err.Error()
	if row > 0 && !strings.Contains(s, fmt.Sprintf(": row %d", row)) || field != "" && !strings.Contains(s, "field "+field) ||
		!strings.Contains(s, msg) {
		t.Fatalf("error %q does not name row %d, field %q and %q", s, row, field, msg)
	}
}

func TestReadFailureFileBadCSVRows(t *testing.T) {
	const header = "t_s,machine,rack,duration_s,kind\n"
	const good = "10,m1,,60,reboot\n"
	for _, tc := range []struct {
		name, content string
		row           int64
		field         string
		sentinel      error
		msg           string
	}{
		{"missing duration column", "t_s,machine,rack,kind\n10,m1,,reboot\n", 1, "duration_s", ErrMissingField, `no column "duration_s"`},
		{"missing kind column", "t_s,machine,duration_s\n10,m1,60\n", 1, "kind", ErrMissingField, `no column "kind"`},
		{"neither machine nor rack column", "t_s,host,duration_s,kind\n10,m1,60,hard\n", 1, "machine", ErrMissingField, `no column "machine"`},
		{"t_s not a number", header + good + "soon,m1,,60,hard\n", 3, "t_s", ErrNotNumber, `"soon"`},
		{"t_s NaN", header + good + good + "NaN,m2,,60,hard\n", 4, "t_s", ErrNotNumber, `"NaN"`},
		{"t_s infinite", header + "-inf,m2,,60,hard\n", 2, "t_s", ErrNotNumber, `"-inf"`},
		{"t_s empty", header + good + ",m2,,60,hard\n", 3, "t_s", ErrMissingField, "empty"},
		{"t_s beyond the trace bound", header + "1e12,m2,,60,hard\n", 2, "t_s", ErrTimeRange, "time beyond"},
		{"duration negative", header + good + "20,m2,,-5,hard\n", 3, "duration_s", ErrNonPositiveDuration, "duration must be > 0"},
		{"duration zero", header + "20,m2,,0,hard\n", 2, "duration_s", ErrNonPositiveDuration, `(value "0")`},
		{"duration NaN", header + "20,m2,,nan,hard\n", 2, "duration_s", ErrNotNumber, `"nan"`},
		{"duration not a number", header + "20,m2,,1h,hard\n", 2, "duration_s", ErrNotNumber, `"1h"`},
		{"kind unknown", header + good + good + "20,m2,,60,crash\n", 4, "kind", ErrFailureKind, `"crash"`},
		{"kind empty", header + "20,m2,,60,\n", 2, "kind", ErrFailureKind, "kind must be reboot or hard"},
		{"both machine and rack", header + good + "20,m2,r1,60,hard\n", 3, "machine", ErrMachineOrRack, `both are given (rack "r1")`},
		{"neither machine nor rack", header + "20,,,60,hard\n", 2, "machine", ErrMachineOrRack, "neither is given"},
		{"header only", header, 0, "", ErrMalformed, "0 rows"},
		{"empty file", "", 0, "", ErrMalformed, "empty file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			p := writeFile(t, "failures.csv", tc.content)
			rows, err := ReadFailureFile(context.Background(), db, p)
			if rows != nil {
				t.Fatalf("rows %+v returned with the error", rows)
			}
			checkFailureErr(t, err, tc.row, tc.field, tc.sentinel, tc.msg)
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error %q does not start with the file %s", err, p)
			}
		})
	}
}

func TestReadFailureFileBadParquetRows(t *testing.T) {
	db := openDB(t)
	const cols = " AS t(t_s, machine, rack, duration_s, kind)"
	for _, tc := range []struct {
		name, query string
		row         int64
		field       string
		sentinel    error
		msg         string
	}{
		{"t_s NaN", "SELECT * FROM (VALUES (1.0, 'm', NULL, 5.0, 'hard'), ('NaN'::DOUBLE, 'm', NULL, 5.0, 'hard'))" + cols,
			2, "t_s", ErrNotNumber, "not a number"},
		{"t_s infinite", "SELECT * FROM (VALUES ('inf'::DOUBLE, 'm', NULL, 5.0, 'hard'))" + cols, 1, "t_s", ErrNotNumber, "not a number"},
		{"t_s NULL", "SELECT * FROM (VALUES (NULL::DOUBLE, 'm', NULL, 5.0, 'hard'))" + cols, 1, "t_s", ErrMissingField, "empty"},
		{"duration zero", "SELECT * FROM (VALUES (1.0, 'm', NULL, 5.0, 'hard'), (2.0, 'm', NULL, 0.0, 'hard'))" + cols,
			2, "duration_s", ErrNonPositiveDuration, "duration must be > 0"},
		{"duration NaN", "SELECT * FROM (VALUES (2.0, 'm', NULL, 'NaN'::DOUBLE, 'hard'))" + cols, 1, "duration_s", ErrNotNumber, "not a number"},
		{"kind unknown", "SELECT * FROM (VALUES (2.0, 'm', NULL, 3.0, 'maintenance'))" + cols, 1, "kind", ErrFailureKind, `"maintenance"`},
		{"both machine and rack", "SELECT * FROM (VALUES (2.0, 'm', 'r', 3.0, 'hard'))" + cols, 1, "machine", ErrMachineOrRack, "both"},
		{"neither machine nor rack", "SELECT * FROM (VALUES (2.0, NULL, '', 3.0, 'hard'))" + cols, 1, "machine", ErrMachineOrRack, "neither"},
		{"missing t_s column", "SELECT 'm' AS machine, 3.0 AS duration_s, 'hard' AS kind", 0, "t_s", ErrMissingField, `no column "t_s"`},
		{"0 rows", "SELECT * FROM (VALUES (2.0, 'm', 'r', 3.0, 'hard'))" + cols + " WHERE false", 0, "", ErrMalformed, "0 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFailureParquet(t, db, "f.parquet", tc.query)
			_, err := ReadFailureFile(context.Background(), db, p)
			checkFailureErr(t, err, tc.row, tc.field, tc.sentinel, tc.msg)
		})
	}
}

func TestReadFailureFileNotAFile(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	for _, tc := range []struct{ name, path, msg string }{
		{"missing", filepath.Join(dir, "nope.csv"), "no such file"},
		{"directory", dir, "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFailureFile(context.Background(), db, tc.path)
			checkFailureErr(t, err, 0, "", nil, tc.msg)
		})
	}
	// A file that is neither CSV nor Parquet: DuckDB's error, named as the file's.
	p := writeFile(t, "bad.parquet", "not parquet at all")
	_, err := ReadFailureFile(context.Background(), db, p)
	checkFailureErr(t, err, 0, "", ErrMalformed, "duckdb")
}

// TestReadFailureFileRaggedCSV: a ragged CSV is one line naming the file:
// a row wider than the header names its row and first extra field (it
// was a missing-column error listing the wide row as the header, issue 32);
// a row narrower than the header names its row and first missing field (it
// was a missing-column error about the header, issue 52 item 8).
func TestReadFailureFileRaggedCSV(t *testing.T) {
	db := openDB(t)
	for _, content := range []string{
		"t_s,machine,rack,duration_s,kind\n1,m,,2,hard\n3,m,,4\n",
		"t_s,machine,rack,duration_s,kind\n1,m,,2,hard\n3,m,,4,hard,extra\n",
	} {
		p := writeFile(t, "ragged.csv", content)
		_, err := ReadFailureFile(context.Background(), db, p)
		var re *RowError
		if !errors.As(err, &re) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), p) {
			t.Fatalf("%q: error %q, want one line starting with the file", content, err)
		}
		if strings.HasSuffix(content, ",extra\n") {
			if !errors.Is(err, ErrExtraField) || re.Row != 3 || re.Field != "column 6" || re.Value != "extra" {
				t.Fatalf("%q: error %q, want row 3: field column 6: extra field", content, err)
			}
			continue
		}
		if !errors.Is(err, ErrMissingField) || re.Row != 3 || re.Field != "kind" || !strings.Contains(err.Error(), "the row has 4 fields, the header names 5 (no kind)") {
			t.Fatalf("%q: error %q, want row 3: field kind: missing field", content, err)
		}
	}
}

package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver
)

//go:embed queries/*.sql
var queryFS embed.FS

// query is the embedded query queries/name.sql.
func query(name string) string {
	b, err := queryFS.ReadFile("queries/" + name + ".sql")
	if err != nil {
		panic("catalog: no embedded query " + name) // a build without the file: programmer error
	}
	return string(b)
}

// Formats, by the file's extension.
const (
	FormatCSV     = "csv"
	FormatParquet = "parquet"
)

// formatOf is the format a path's extension names (case-insensitive):
// .csv and .csv.gz are CSV, .parquet is Parquet.
func formatOf(path string) (string, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".csv"), strings.HasSuffix(p, ".csv.gz"):
		return FormatCSV, nil
	case strings.HasSuffix(p, ".parquet"):
		return FormatParquet, nil
	}
	return "", because(ErrFormat, "unknown format: want a .csv, .csv.gz or .parquet file")
}

// gzipped reports whether path names a gzip-compressed CSV (.csv.gz).
func gzipped(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".gz") }

// table is a catalog file's cells as text: its header as the file spells
// it, its rows in file order ("" for an empty cell or NULL) and the line
// each row starts on (for Parquet, data row + 1, the line it would have in
// a CSV file).
type table struct {
	header []string
	rows   [][]string
	lines  []int
}

// connSettings: nothing a catalog read does may reach the network.
var connSettings = []string{
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
}

// readTable reads the file through an in-memory DuckDB, every column as
// text. For CSV it also scans data (the file's bytes) with encoding/csv for
// the header as spelled, the line of each row and a row of the wrong width
// (named by its line, before DuckDB would refuse it without one).
func readTable(path, format string, data []byte) (*table, error) {
	var t table
	if format == FormatCSV {
		if err := t.scanCSV(path, data); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("catalog: open duckdb: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one connection: the settings hold on it
	if err != nil {
		return nil, fmt.Errorf("catalog: open duckdb: %w", err)
	}
	defer conn.Close()
	for _, s := range connSettings {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", s, err)
		}
	}
	q, args := query("read_csv"), []any{path, "none"}
	if gzipped(path) {
		args[1] = "gzip"
	}
	if format == FormatParquet {
		q, args = query("read_parquet"), []any{path}
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, dbErr(path, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, dbErr(path, err)
	}
	if format == FormatParquet {
		t.header = cols
	} else if len(cols) != len(t.header) {
		return nil, &RowError{File: path, Err: because(ErrMalformed, "DuckDB reads %d columns, the header names %d", len(cols), len(t.header))}
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, dbErr(path, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = strings.TrimSpace(v.String) // NULL: ""
		}
		t.rows = append(t.rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(path, err)
	}
	if format == FormatParquet {
		t.lines = make([]int, len(t.rows))
		for i := range t.lines {
			t.lines[i] = i + 2
		}
	} else if len(t.rows) != len(t.lines) {
		return nil, &RowError{File: path, Err: because(ErrMalformed, "DuckDB reads %d data rows, placelab's own CSV pass %d", len(t.rows), len(t.lines))}
	}
	return &t, nil
}

// scanCSV reads the header and the line each record starts on, refusing a
// record whose width differs from the header's. Blank lines are skipped,
// as DuckDB skips them in a file of several columns.
func (t *table) scanCSV(path string, data []byte) error {
	var src io.Reader = bytes.NewReader(data)
	if gzipped(path) {
		z, err := gzip.NewReader(src)
		if err != nil {
			return &RowError{File: path, Err: because(ErrMalformed, "not gzip: %v", err)}
		}
		defer z.Close()
		src = z
	}
	r := csv.NewReader(src)
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return &RowError{File: path, Err: because(ErrEmpty, "no header: the file has no rows at all")}
	} else if err != nil {
		return csvErr(path, 0, err)
	}
	t.header = make([]string, len(header))
	for i, h := range header {
		t.header[i] = strings.TrimSpace(h)
	}
	t.header[0] = strings.TrimSpace(strings.TrimPrefix(t.header[0], "\ufeff"))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, csv.ErrFieldCount) {
			line, _ := r.FieldPos(0)
			return &RowError{File: path, Row: len(t.lines) + 1, Line: line,
				Err: because(ErrMalformed, "the row has %s, the header names %d", plural(len(rec), "field"), len(t.header))}
		}
		if err != nil {
			return csvErr(path, len(t.lines)+1, err)
		}
		line, _ := r.FieldPos(0)
		t.lines = append(t.lines, line)
	}
}

// csvErr is a *RowError for encoding/csv's error at data row (0: the header).
func csvErr(path string, row int, err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &RowError{File: path, Row: row, Err: because(ErrMalformed, "%v", err)}
	}
	return &RowError{File: path, Row: row, Line: pe.StartLine,
		Err: because(ErrMalformed, "%v (at line %d, column %d)", pe.Err, pe.Line, pe.Column)}
}

// dbErr is DuckDB's error about the file as a one-line *RowError.
func dbErr(path string, err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n") // the first line; the rest is advice
	return &RowError{File: path, Err: because(ErrMalformed, "duckdb: %s", strings.TrimSpace(msg))}
}

// plural is "1 field", "2 fields".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

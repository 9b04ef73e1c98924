package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	store "placelab/sql"
)

// Numberings of RowError.Row for the files read through DuckDB (workload,
// inventory and failure files), said in the message after the row.
const (
	// NumberingCSV: a CSV row is the line of the file it starts on, as an
	// editor shows it; the header is line 1, blank lines and a quoted
	// field's newlines count.
	NumberingCSV = "its line in the file; the header is line 1"
	// NumberingParquet: a Parquet row is its position among the data rows.
	NumberingParquet = "data rows counted from 1; Parquet has no header row"
)

// tableFile is a CSV or Parquet file read through DuckDB, with the row
// number a user sees for each of its data records.
type tableFile struct {
	path string
	// src is the DuckDB table function that reads it, every column as text
	// so that a bad value is seen rather than coerced.
	src     string
	parquet bool
	// headerLine is the CSV header's line (0 for Parquet); lines maps a
	// CSV data record to its line.
	headerLine int64
	lines      lineIndex
}

// openTableFile checks that path is a non-empty file and opens it as a
// table: Parquet (by name or magic bytes) through read_parquet; CSV through
// read_csv with a header and the dialect pinned (comma, double quotes, no
// comment lines or skipped rows), after a pass of its own that refuses a
// row wider or narrower than the header (naming its line and the first
// extra or missing field; DuckDB's sniffer would otherwise guess the
// dialect from it or fail on it) and records the line each record starts
// on, so that every later error names the row as the user's editor does.
func openTableFile(path string) (*tableFile, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, &RowError{File: path, Err: errors.New("no such file")}
	case err != nil:
		return nil, &RowError{File: path, Err: err}
	case st.IsDir():
		return nil, &RowError{File: path, Err: errors.New("is a directory")}
	case st.Size() == 0:
		return nil, &RowError{File: path, Err: fmt.Errorf("%w: empty file, expected a header", ErrMalformed)}
	}
	parquet, err := isParquet(path)
	if err != nil {
		return nil, &RowError{File: path, Err: err}
	}
	t := &tableFile{path: path, parquet: parquet}
	// Table functions take literal paths; the path is quoted as a string.
	if parquet {
		t.src = "read_parquet(" + store.QuoteString(path) + ")"
		return t, nil
	}
	t.src = "read_csv(" + store.QuoteString(path) + `, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', skip = 0, comment = '')`
	if err := t.scanCSV(); err != nil {
		return nil, err
	}
	return t, nil
}

// scanCSV reads the CSV file once with placelab's own reader: it refuses a
// record whose field count differs from the header's and records the line
// each record starts on.
func (t *tableFile) scanCSV() error {
	src, err := openSource(t.path)
	if err != nil {
		return err
	}
	defer src.Close()
	c, err := newCSV(src, ',', true)
	if err != nil {
		return err
	}
	line, _ := c.r.FieldPos(0)
	t.headerLine = int64(line)
	header := make([]string, len(c.headerNames))
	for i, h := range c.headerNames {
		header[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	}
	for rec := int64(0); ; rec++ {
		fields, err := c.next()
		if err == io.EOF {
			return nil
		} else if err != nil {
			var re *RowError
			if errors.As(err, &re) && re.Row > 0 {
				re.Numbering = NumberingCSV // csv.ParseError's line
			}
			return err
		}
		line, _ := c.r.FieldPos(0)
		t.lines.add(rec, int64(line))
		switch n := len(fields); {
		case n > c.width:
			return &RowError{File: t.path, Row: int64(line), Numbering: NumberingCSV, Field: fmt.Sprintf("column %d", c.width+1),
				Value: fields[c.width], Err: fmt.Errorf("%w: the row has %d fields, the header names %d", ErrExtraField, n, c.width)}
		case n < c.width:
			missing := header[n:]
			if len(missing) > maxNamed {
				missing = append(missing[:maxNamed:maxNamed], "…")
			}
			return &RowError{File: t.path, Row: int64(line), Numbering: NumberingCSV, Field: header[n],
				Err: fmt.Errorf("%w: the row has %s, the header names %d (no %s)", ErrMissingField, plural(int64(n), "field"), c.width, strings.Join(missing, ", "))}
		}
	}
}

// maxNamed is how many missing columns a short row's error names.
const maxNamed = 4

// row is the row number a user sees for data record rec (0-based in file
// order): a CSV file's line, a Parquet file's data row from 1.
func (t *tableFile) row(rec int64) int64 {
	if t.parquet {
		return rec + 1
	}
	return t.lines.of(rec)
}

// numbering says how row counts.
func (t *tableFile) numbering() string {
	if t.parquet {
		return NumberingParquet
	}
	return NumberingCSV
}

// rowErr is a *RowError at data record rec.
func (t *tableFile) rowErr(rec int64, field, value string, err error) *RowError {
	return &RowError{File: t.path, Row: t.row(rec), Numbering: t.numbering(), Field: field, Value: value, Err: err}
}

// headerErr is a *RowError about the header (a CSV file's header line; the
// whole file for Parquet, which has none).
func (t *tableFile) headerErr(field string, err error) *RowError {
	if t.parquet {
		return &RowError{File: t.path, Field: field, Err: err}
	}
	return &RowError{File: t.path, Row: t.headerLine, Numbering: NumberingCSV, Field: field, Err: err}
}

// dbErr turns a DuckDB error about the file into a one-line *RowError
// naming it; a cancelled context stays itself.
func (t *tableFile) dbErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg, _, _ := strings.Cut(err.Error(), "\n") // DuckDB's first line; the rest is advice
	return &RowError{File: t.path, Err: fmt.Errorf("%w: duckdb: %s", ErrMalformed, strings.TrimSpace(msg))}
}

// lineIndex maps a CSV file's data records (0-based, file order) to the
// line each starts on. A record starts on the line after the previous
// record's start unless blank lines or a quoted field's newlines come
// between, so only the records where line − record changes are kept.
type lineIndex struct {
	jumps []lineJump
}

// lineJump: from record rec on, line = record + off.
type lineJump struct{ rec, off int64 }

// add records that record rec starts on line; records are added in order.
func (x *lineIndex) add(rec, line int64) {
	off := line - rec
	if n := len(x.jumps); n == 0 || x.jumps[n-1].off != off {
		x.jumps = append(x.jumps, lineJump{rec, off})
	}
}

// of is record rec's line (a record beyond the last added continues the
// last run of lines).
func (x *lineIndex) of(rec int64) int64 {
	i := sort.Search(len(x.jumps), func(i int) bool { return x.jumps[i].rec > rec }) - 1
	if i < 0 {
		return rec + 2 // no record added: a header on line 1
	}
	return rec + x.jumps[i].off
}

package datasets

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	store "placelab/sql"
)

// Progress receives bytes read so far and the total (0 if unknown).
type Progress func(done, total int64)

// countingReader counts bytes read from the underlying (compressed) file.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// source is an opened input file, transparently gunzipped.
type source struct {
	name   string
	f      *os.File
	gz     *gzip.Reader
	r      io.Reader
	size   int64
	read   atomic.Int64
	report Progress
	base   int64 // bytes of earlier files, for multi-file progress
	total  int64
}

// openSource opens path; a .gz suffix or gzip magic bytes select gunzip.
func openSource(path string) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &RowError{File: path, Err: errors.New("no such file")}
		}
		return nil, &RowError{File: path, Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &RowError{File: path, Err: err}
	}
	if st.IsDir() {
		f.Close()
		return nil, &RowError{File: path, Err: errors.New("is a directory")}
	}
	s := &source{name: path, f: f, size: st.Size()}
	br := bufio.NewReaderSize(countingReader{f, &s.read}, 1<<16)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, &RowError{File: path, Err: fmt.Errorf("%w: gzip: %v", ErrMalformed, err)}
		}
		s.gz = gz
		s.r = bufio.NewReaderSize(gz, 1<<16)
	} else if strings.HasSuffix(path, ".gz") {
		f.Close()
		return nil, &RowError{File: path, Err: fmt.Errorf("%w: .gz file is not gzip data", ErrMalformed)}
	} else {
		s.r = br
	}
	return s, nil
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = &RowError{File: s.name, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
	}
	return n, err
}

func (s *source) Close() error {
	if s.gz != nil {
		s.gz.Close()
	}
	return s.f.Close()
}

// tick reports progress.
func (s *source) tick() {
	if s.report != nil {
		s.report(s.base+s.read.Load(), s.total)
	}
}

// csvFile reads CSV records with physical row numbers and typed field
// accessors that produce *RowError.
type csvFile struct {
	src    *source
	r      *csv.Reader
	row    int64
	rec    []string
	header map[string]int
	// headerNames is the header as written.
	headerNames []string
	// width is the number of fields the format defines for a row: the
	// header's (0: not checked, a header-less file whose loader checks).
	width int
	// rows counts the data records read.
	rows int64
}

// newCSV wraps a source. comma is the separator; header says whether the
// first record names the columns.
func newCSV(src *source, comma rune, header bool) (*csvFile, error) {
	r := csv.NewReader(src)
	r.Comma = comma
	r.ReuseRecord = true
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	c := &csvFile{src: src, r: r}
	if header {
		rec, err := c.next()
		if err == io.EOF {
			return nil, &RowError{File: src.name, Err: fmt.Errorf("%w: empty file, expected a header", ErrMalformed)}
		}
		if err != nil {
			return nil, err
		}
		c.header = map[string]int{}
		for i, h := range rec {
			c.header[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
		}
		c.width = len(rec)
		c.headerNames = append([]string(nil), rec...)
	}
	return c, nil
}

// extra refuses a record with more fields than the format defines (the
// header's columns): the first extra field is named by its position.
func (c *csvFile) extra() error {
	if c.width == 0 || len(c.rec) <= c.width {
		return nil
	}
	return c.errf(fmt.Sprintf("column %d", c.width+1), c.rec[c.width],
		fmt.Errorf("%w: the header names %d columns", ErrExtraField, c.width))
}

// WarnNoRows names an input file that held no data rows (only a header, or
// nothing): it loads, as 0 rows, and the ingest says so.
const WarnNoRows = "no-rows"

// WarnUnknownColumn names a header column that the format does not define
// (the column is not read).
const WarnUnknownColumn = "unknown-column"

// warnIfEmpty records WarnNoRows when the file held no data rows.
func (c *csvFile) warnIfEmpty(w *store.Writer) error {
	if c.rows > 0 {
		return nil
	}
	msg := "0 rows: the file is empty"
	if c.header != nil {
		msg = "0 rows: the file has a header and no data rows"
	}
	return w.Warn(store.Warning{Source: c.src.name, Code: WarnNoRows, Message: msg})
}

// known warns (WarnUnknownColumn) about each header column not in cols,
// the columns a format with a closed list defines.
func (c *csvFile) known(w *store.Writer, format string, cols ...string) error {
	for i, h := range c.headerNames {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if slices.Contains(cols, name) {
			continue
		}
		if err := w.Warn(store.Warning{Source: c.src.name, Object: fmt.Sprintf("column %d %q", i+1, h), Code: WarnUnknownColumn,
			Message: fmt.Sprintf("the %s format defines %s; this column is not read", format, strings.Join(cols, ", "))}); err != nil {
			return err
		}
	}
	return nil
}

// next returns the next record; io.EOF at the end.
func (c *csvFile) next() ([]string, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	c.row++
	if err != nil {
		var re *RowError
		if errors.As(err, &re) {
			re.Row = c.row
			return nil, re
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, &RowError{File: c.src.name, Row: int64(pe.Line), Err: fmt.Errorf("%w: %v", ErrMalformed, pe.Err)}
		}
		return nil, &RowError{File: c.src.name, Row: c.row, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
	}
	if c.row%4096 == 0 {
		c.src.tick()
	}
	c.rec = rec
	return rec, nil
}

// col returns the index of a header column, or an error naming the file.
func (c *csvFile) col(name string) (int, error) {
	i, ok := c.header[name]
	if !ok {
		return 0, &RowError{File: c.src.name, Row: 1, Field: name, Err: fmt.Errorf("%w: header has no column %q", ErrMissingField, name)}
	}
	return i, nil
}

func (c *csvFile) errf(field, value string, err error) *RowError {
	return &RowError{File: c.src.name, Row: c.row, Field: field, Value: value, Err: err}
}

// str returns field i, or an error if the record is too short.
func (c *csvFile) str(i int, field string) (string, error) {
	if i >= len(c.rec) {
		return "", c.errf(field, "", fmt.Errorf("%w: record has %d fields", ErrMissingField, len(c.rec)))
	}
	s := strings.TrimSpace(c.rec[i])
	if !utf8.ValidString(s) {
		return "", c.errf(field, "", fmt.Errorf("%w: not valid UTF-8", ErrMalformed))
	}
	return s, nil
}

// float parses field i as a finite number.
func (c *csvFile) float(i int, field string) (float64, error) {
	s, err := c.str(i, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, c.errf(field, s, ErrNotNumber)
	}
	return v, nil
}

// seconds parses field i as a trace time in units of scale seconds (1 for
// seconds, 60 for minutes) and returns it in seconds, refusing a time
// beyond ±MaxTraceSeconds.
func (c *csvFile) seconds(i int, field string, scale float64) (float64, error) {
	v, err := c.float(i, field)
	if err != nil {
		return 0, err
	}
	return v * scale, c.checkTime(i, field, v*scale)
}

// optSeconds is seconds for an optional field; empty means absent.
func (c *csvFile) optSeconds(i int, field string, scale float64) (float64, bool, error) {
	v, ok, err := c.optFloat(i, field)
	if !ok || err != nil {
		return 0, false, err
	}
	return v * scale, true, c.checkTime(i, field, v*scale)
}

// checkTime refuses t, a time in seconds read or derived from field i,
// beyond ±MaxTraceSeconds.
func (c *csvFile) checkTime(i int, field string, t float64) error {
	if math.Abs(t) <= MaxTraceSeconds {
		return nil
	}
	return c.errf(field, c.rec[i], ErrTimeRange)
}

// optFloat parses field i; empty means absent (ok=false).
func (c *csvFile) optFloat(i int, field string) (v float64, ok bool, err error) {
	s, err := c.str(i, field)
	if err != nil || s == "" || strings.EqualFold(s, "nan") || strings.EqualFold(s, "null") {
		return 0, false, err
	}
	v, err = c.float(i, field)
	return v, err == nil, err
}

// positive parses field i and requires > 0.
func (c *csvFile) positive(i int, field string) (float64, error) {
	v, err := c.float(i, field)
	if err == nil && v <= 0 {
		err = c.errf(field, c.rec[i], ErrNonPositive)
	}
	return v, err
}

// nonNegative parses field i and requires >= 0.
func (c *csvFile) nonNegative(i int, field string) (float64, error) {
	v, err := c.float(i, field)
	if err == nil && v < 0 {
		err = c.errf(field, c.rec[i], ErrNegative)
	}
	return v, err
}

// each calls row for every record: it counts rows read, checks ctx every
// 65,536 records, and hands row errors to rej (skip and count, or stop).
//
// A record with more fields than the header is a row error (ErrExtraField);
// a file without data rows loads as 0 rows with a WarnNoRows warning.
func (c *csvFile) each(ctx context.Context, rej rejecter, row func() error) error {
	for {
		if _, err := c.next(); err == io.EOF {
			return c.warnIfEmpty(rej.w)
		} else if err != nil {
			return err
		}
		if c.row%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rej.w.Counts.RowsRead++
		c.rows++
		err := c.extra()
		if err == nil {
			err = row()
		}
		if err != nil {
			if err := rej.handle(err); err != nil {
				return err
			}
		}
	}
}

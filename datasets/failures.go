package datasets

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	store "placelab/sql"
)

// Sentinel errors of failure files; a *RowError wraps one of them.
var (
	ErrFailureKind         = errors.New("kind must be reboot or hard")
	ErrMachineOrRack       = errors.New("give exactly one of machine and rack")
	ErrNonPositiveDuration = errors.New("duration must be > 0")
)

// FailureRow is one row of a failure file: at T (seconds) the machine or the
// rack named (exactly one is non-empty) went down for Duration seconds, by a
// host reboot (Kind "reboot") or a hardware failure ("hard"). Row is the
// file's row as a user sees it (NumberingCSV: the line it starts on, the
// header line 1; NumberingParquet: the first record is row 1).
type FailureRow struct {
	Row                 int
	T, Duration         float64
	Machine, Rack, Kind string
}

// failureColumns are the columns of a failure file, in select order.
var failureColumns = []string{"t_s", "machine", "rack", "duration_s", "kind"}

// FailureFileHelp documents the failure file for a CLI's --help.
const FailureFileHelp = `A failure file lists a fleet's own incidents, one per row, as CSV (with a header) or Parquet:
  t_s         when it failed, seconds on the trace's clock
  machine     the machine's name, or
  rack        the rack's name (cluster/rack when the name is in several clusters): one of the two per row
  duration_s  how long it was down, seconds > 0
  kind        reboot (VMs stay, down for the outage) or hard (VMs are healed elsewhere)`

// ReadFailureFile reads a failure file (CSV with a header, or Parquet: a
// .parquet or .pq name or Parquet magic bytes) through DuckDB, every column
// read as text so that a bad value is seen rather than coerced. It refuses
// with a *RowError naming the file, the row and the field: a missing column
// (machine or rack may be absent, not both), a t_s that is not a finite
// number within ±MaxTraceSeconds, a duration_s that is not a number or not
// > 0, a kind other than reboot or hard (case-insensitive; returned lower
// case), a row with both or neither of machine and rack, and a file of
// 0 rows.
func ReadFailureFile(ctx context.Context, db *store.DB, path string) ([]FailureRow, error) {
	tf, err := openTableFile(path)
	if err != nil {
		return nil, err
	}
	have, found, err := failureFileColumns(ctx, db, tf.src)
	if err != nil {
		return nil, tf.dbErr(err)
	}
	var sel []string
	for _, c := range failureColumns {
		name, ok := have[c]
		switch {
		case ok:
			sel = append(sel, "CAST("+quoteIdent(name)+" AS VARCHAR)")
		case c == "machine" && have["rack"] != "" || c == "rack" && have["machine"] != "":
			sel = append(sel, "NULL::VARCHAR")
		default:
			return nil, tf.headerErr(c,
				fmt.Errorf("%w: no column %q (a failure file has t_s, machine or rack, duration_s, kind; this one has %s)%s",
					ErrMissingField, c, strings.Join(found, ", "), delimiterHint(found)))
		}
	}
	rows, err := db.SQL().QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+tf.src)
	if err != nil {
		return nil, tf.dbErr(err)
	}
	defer rows.Close()
	var out []FailureRow
	for rec := int64(0); rows.Next(); rec++ {
		var v [5]sql.NullString
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
			return nil, tf.dbErr(err)
		}
		r, err := failureRow(tf, rec, v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, tf.dbErr(err)
	}
	if len(out) == 0 {
		return nil, &RowError{File: path, Err: fmt.Errorf("%w: 0 rows: the file lists no failures", ErrMalformed)}
	}
	return out, nil
}

// failureRow checks one row's values (t_s, machine, rack, duration_s, kind).
func failureRow(tf *tableFile, rec int64, v [5]sql.NullString) (FailureRow, error) {
	s := func(i int) string { return strings.TrimSpace(v[i].String) }
	bad := func(field, value string, err error) error {
		return tf.rowErr(rec, field, value, err)
	}
	r := FailureRow{Row: int(tf.row(rec)), Machine: s(1), Rack: s(2), Kind: strings.ToLower(s(4))}
	num := func(i int, field string) (float64, error) {
		if s(i) == "" {
			return 0, bad(field, "", fmt.Errorf("%w: empty", ErrMissingField))
		}
		x, err := strconv.ParseFloat(s(i), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, bad(field, s(i), ErrNotNumber)
		}
		if math.Abs(x) > MaxTraceSeconds {
			return 0, bad(field, s(i), ErrTimeRange)
		}
		return x, nil
	}
	var err error
	if r.T, err = num(0, "t_s"); err != nil {
		return r, err
	}
	if r.Duration, err = num(3, "duration_s"); err != nil {
		return r, err
	}
	if r.Duration <= 0 {
		return r, bad("duration_s", s(3), ErrNonPositiveDuration)
	}
	if r.Kind != "reboot" && r.Kind != "hard" {
		return r, bad("kind", s(4), ErrFailureKind)
	}
	switch {
	case r.Machine != "" && r.Rack != "":
		return r, bad("machine", r.Machine, fmt.Errorf("%w: both are given (rack %q)", ErrMachineOrRack, r.Rack))
	case r.Machine == "" && r.Rack == "":
		return r, bad("machine", "", fmt.Errorf("%w: neither is given", ErrMachineOrRack))
	}
	return r, nil
}

// failureFileColumns maps the failure columns a source has (matched
// case-insensitively, surrounding spaces ignored) to their names in it, and
// returns all its column names (for an error).
func failureFileColumns(ctx context.Context, db *store.DB, src string) (map[string]string, []string, error) {
	rows, err := db.SQL().QueryContext(ctx, "SELECT * FROM "+src+" LIMIT 0")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	have := map[string]string{}
	for _, c := range cols {
		k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
		for _, want := range failureColumns {
			if k == want {
				have[k] = c
			}
		}
	}
	return have, cols, rows.Err()
}

// isParquet says whether path is Parquet: by its extension (.parquet, .pq)
// or its first four bytes ("PAR1").
func isParquet(path string) (bool, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("PAR1")), nil
}

// quoteIdent quotes a column name for DuckDB.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

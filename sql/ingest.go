package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// ErrBadDatasetName is returned for an empty or unprintable dataset name.
var ErrBadDatasetName = errors.New("store: bad dataset name")

// IngestInfo describes an ingest for the dataset table.
type IngestInfo struct {
	Dataset string // user-facing name; an existing dataset of that name is replaced
	Format  string
	Source  string // files read, for the record
	Params  string // JSON, optional
}

// Counts is what an ingest read, loaded and rejected. Loaders fill it.
type Counts struct {
	RowsRead     int64
	RowsLoaded   int64
	RowsRejected int64
	// Rejected counts rejected rows by reason.
	Rejected map[string]int64
	// Tables counts rows appended per table.
	Tables map[string]int64
	// ObservedRun is the run an ingest recorded from its source's own
	// placements (engine "observed"), 0 when none.
	ObservedRun int64
	// Report is a loader's own account of what it read (the Kubernetes
	// loader's object counts and warnings), printed with the counts; nil
	// for most formats.
	Report any
	// Warnings are what the ingest loaded but a user should know (Writer.Warn).
	Warnings []Warning
}

// Warning is one named warning of an ingest, stored in ingest_warning with
// the load. A warning that many rows or objects raise is one Warning with
// their Count, the first of them in Object and Row and a few more named in
// the message.
type Warning struct {
	Source string `json:"source"` // the file it is about ("" for the whole ingest)
	Object string `json:"object,omitempty"`
	// Row is the file row it names (the first, when it counts several):
	// a CSV file's line, the header line 1; 0 when it names no row.
	Row int64 `json:"row,omitempty"`
	// Count is how many rows or objects it stands for (0: not counted).
	Count   int64  `json:"count,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Warn records a warning: a row of ingest_warning in the ingest's
// transaction, and in Counts.Warnings for the caller to print.
func (w *Writer) Warn(wa Warning) error {
	w.Counts.Warnings = append(w.Counts.Warnings, wa)
	return w.Append("ingest_warning", nullString(wa.Source), nullString(wa.Object), wa.Code, wa.Message,
		nullInt(wa.Row), nullInt(wa.Count))
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Reject records one rejected row under reason.
func (c *Counts) Reject(reason string) {
	if c.Rejected == nil {
		c.Rejected = map[string]int64{}
	}
	c.Rejected[reason]++
	c.RowsRejected++
}

// Writer appends rows for one ingest inside its transaction. Every Append
// prepends the dataset name and load id, so callers pass only the remaining
// columns, in table order.
type Writer struct {
	ctx     context.Context
	conn    driver.Conn
	dataset string
	loadID  int64
	apps    map[string]*duckdb.Appender
	raw     bool // WriteTx: no (dataset, load_id) prefix
	db      *DB
	Counts  Counts
	origin  time.Time
}

// SetTimeOrigin records the wall-clock instant the dataset's t = 0 stands
// for (dataset.time_origin): a Kubernetes cluster's earliest creation.
func (w *Writer) SetTimeOrigin(t time.Time) { w.origin = t.UTC() }

// Dataset is the name rows are written under.
func (w *Writer) Dataset() string { return w.dataset }

// LoadID is this ingest's number.
func (w *Writer) LoadID() int64 { return w.loadID }

// optionalPods are the tables that gained a trailing pods column (migration
// 0010), with their column count before it: a row of that many values gets
// pods NULL, so the loaders of traces that count no pod slots write their
// rows as before.
var optionalPods = map[string]int{"sku": 9, "vm_type": 8, "vm_type_demand": 8}

// optionalTrailing are the tables that gained trailing columns later, with
// their column count before them and how many: a row of that many values
// gets them NULL (ingest_warning's row and count, migration 0015).
var optionalTrailing = map[string][2]int{"ingest_warning": {4, 2}}

// Append adds one row to table (a dataset table); vals are the columns
// after (dataset, load_id).
func (w *Writer) Append(table string, vals ...driver.Value) error {
	return w.appendRow(table, !w.raw, vals)
}

// AppendResult adds one row to a result table (run, placement, …) inside
// an ingest: every column is given, no (dataset, load_id) prefix. An
// ingest that records where its source placed the VMs (an observed run)
// writes that run with it, in the same transaction.
func (w *Writer) AppendResult(table string, vals ...driver.Value) error {
	return w.appendRow(table, false, vals)
}

func (w *Writer) appendRow(table string, prefix bool, vals []driver.Value) error {
	app, ok := w.apps[table]
	if !ok {
		var err error
		app, err = duckdb.NewAppenderFromConn(w.conn, "", table)
		if err != nil {
			return fmt.Errorf("store: appender %s: %w", table, err)
		}
		w.apps[table] = app
	}
	if base, ok := optionalPods[table]; ok && prefix && len(vals) == base {
		vals = append(vals, nil) // pods: NULL, the dataset counts no pod slots
	}
	if t, ok := optionalTrailing[table]; ok && prefix && len(vals) == t[0] {
		vals = append(vals, make([]driver.Value, t[1])...)
	}
	row := vals
	if prefix {
		row = make([]driver.Value, 0, len(vals)+2)
		row = append(row, w.dataset, w.loadID)
		row = append(row, vals...)
	}
	if err := app.AppendRow(row...); err != nil {
		return fmt.Errorf("store: append %s: %w", table, err)
	}
	if w.Counts.Tables == nil {
		w.Counts.Tables = map[string]int64{}
	}
	w.Counts.Tables[table]++
	return nil
}

// Flush makes appended rows visible to queries inside the transaction.
func (w *Writer) Flush() error {
	for t, a := range w.apps {
		if err := a.Close(); err != nil {
			return fmt.Errorf("store: flush %s: %w", t, err)
		}
		delete(w.apps, t)
	}
	return nil
}

// Exec flushes pending rows and runs a statement in the ingest's
// transaction. Positional args ($1, $2, ...) follow the statement.
func (w *Writer) Exec(query string, args ...any) error {
	if err := w.Flush(); err != nil {
		return err
	}
	return execConn(w.ctx, w.conn, query, args...)
}

// QueryRows flushes pending rows and runs a query in the ingest's
// transaction, calling fn with each row's values.
func (w *Writer) QueryRows(query string, fn func(row []driver.Value) error, args ...any) error {
	if err := w.Flush(); err != nil {
		return err
	}
	rows, err := w.conn.(driver.QueryerContext).QueryContext(w.ctx, query, named(args))
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(vals); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
}

func named(args []any) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return nv
}

func execConn(ctx context.Context, conn driver.Conn, query string, args ...any) error {
	_, err := conn.(driver.ExecerContext).ExecContext(ctx, query, named(args))
	return err
}

// Ingest runs load inside one transaction that replaces any dataset of the
// same name: either all of load's rows land and the old rows are gone, or
// (on any error, including a cancelled ctx) the database is left exactly as
// it was.
func (d *DB) Ingest(ctx context.Context, info IngestInfo, load func(w *Writer) error) (Counts, error) {
	if info.Dataset == "" {
		return Counts{}, fmt.Errorf("%w: empty", ErrBadDatasetName)
	}
	conn, err := d.connector.Connect(ctx)
	if err != nil {
		return Counts{}, fmt.Errorf("store: connect: %w", err)
	}
	defer conn.Close()
	if err := execConn(ctx, conn, "BEGIN TRANSACTION"); err != nil {
		return Counts{}, fmt.Errorf("store: begin: %w", err)
	}
	w := &Writer{ctx: ctx, conn: conn, dataset: info.Dataset, apps: map[string]*duckdb.Appender{}, db: d}
	fail := func(err error) (Counts, error) {
		for _, a := range w.apps {
			a.Close()
		}
		execConn(context.Background(), conn, "ROLLBACK")
		return w.Counts, err
	}
	if err := w.QueryRows("SELECT nextval('load_seq')", func(r []driver.Value) error {
		w.loadID = r[0].(int64)
		return nil
	}); err != nil {
		return fail(fmt.Errorf("store: load id: %w", err))
	}
	if err := load(w); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	for _, t := range DatasetTables {
		if err := w.Exec("DELETE FROM "+t+" WHERE dataset = $1 AND load_id <> $2", w.dataset, w.loadID); err != nil {
			return fail(fmt.Errorf("store: replace %s: %w", t, err))
		}
	}
	// Derived results keyed by the old load's vm_ids are stale now.
	if err := w.Exec("DELETE FROM workload_class WHERE dataset = $1", w.dataset); err != nil {
		return fail(fmt.Errorf("store: replace workload_class: %w", err))
	}
	exists := false
	if err := w.QueryRows("SELECT 1 FROM dataset WHERE name = $1", func([]driver.Value) error { exists = true; return nil }, w.dataset); err != nil {
		return fail(err)
	}
	c := w.Counts
	q := `INSERT INTO dataset (load_id, format, source, loaded_at, rows_read, rows_loaded, rows_rejected, params, name, time_origin)
	      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
	if exists {
		// UPDATE touches only non-key columns, so it is done in place.
		q = `UPDATE dataset SET load_id = $1, format = $2, source = $3, loaded_at = $4, rows_read = $5,
		     rows_loaded = $6, rows_rejected = $7, params = $8, time_origin = $10 WHERE name = $9`
	}
	var params any
	if info.Params != "" {
		params = info.Params
	}
	var origin any
	if !w.origin.IsZero() {
		origin = w.origin
	}
	if err := w.Exec(q, w.loadID, info.Format, info.Source, time.Now().UTC(), c.RowsRead, c.RowsLoaded, c.RowsRejected, params, w.dataset, origin); err != nil {
		return fail(fmt.Errorf("store: dataset row: %w", err))
	}
	if err := execConn(ctx, conn, "COMMIT"); err != nil {
		return fail(fmt.Errorf("store: commit: %w", err))
	}
	return w.Counts, nil
}

// WriteTx runs fn in one transaction with a Writer whose Append takes every
// column of the table (no dataset prefix): for result tables (run,
// placement, explain, run_metric). On error nothing is written.
func (d *DB) WriteTx(ctx context.Context, fn func(w *Writer) error) error {
	conn, err := d.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("store: connect: %w", err)
	}
	defer conn.Close()
	if err := execConn(ctx, conn, "BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	w := &Writer{ctx: ctx, conn: conn, apps: map[string]*duckdb.Appender{}, raw: true}
	err = fn(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		for _, a := range w.apps {
			a.Close()
		}
		execConn(context.Background(), conn, "ROLLBACK")
		return err
	}
	if err := execConn(ctx, conn, "COMMIT"); err != nil {
		execConn(context.Background(), conn, "ROLLBACK")
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// NextRunID draws a run id from the run sequence.
func (d *DB) NextRunID(ctx context.Context) (int64, error) {
	var id int64
	err := d.sql.QueryRowContext(ctx, "SELECT nextval('run_seq')").Scan(&id)
	return id, err
}

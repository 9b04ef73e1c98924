package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Result is a query result held in memory: column names and rows of Go
// values (nil for NULL).
type Result struct {
	Columns []string
	Rows    [][]any
}

// Query runs a query and collects its result.
func (d *DB) Query(ctx context.Context, q string, args ...any) (*Result, error) {
	return collect(ctx, d.sql, q, args...)
}

// Querier is satisfied by *sql.DB, *sql.Tx and *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func collect(ctx context.Context, db Querier, q string, args ...any) (*Result, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			vals[i] = normalize(v)
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, rows.Err()
}

// normalize turns driver values into plain printable/JSON-able values.
func normalize(v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
		return x
	}
	return v
}

// ErrNoDatasetColumn is returned for a view filtered to a dataset that it
// does not break down by dataset.
var ErrNoDatasetColumn = errors.New("store: not per dataset")

// QueryView runs SELECT * FROM a named view, optionally filtered to one dataset.
func (d *DB) QueryView(ctx context.Context, view, dataset string) (*Result, error) {
	if !slices.Contains(ViewNames(), view) {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownView, view, strings.Join(ViewNames(), ", "))
	}
	if dataset == "" {
		return d.Query(ctx, "SELECT * FROM "+view)
	}
	var has bool
	if err := d.sql.QueryRowContext(ctx, "SELECT count(*) > 0 FROM duckdb_columns() WHERE table_name = ? AND column_name = 'dataset'", view).Scan(&has); err != nil {
		return nil, err
	}
	if !has {
		return nil, fmt.Errorf("%w: view %s has no dataset column: query it without a dataset", ErrNoDatasetColumn, view)
	}
	return d.Query(ctx, "SELECT * FROM "+view+" WHERE dataset = ?", dataset)
}

// Export writes a table or view to a Parquet or CSV file, chosen by the
// file's extension (.parquet, .csv).
func (d *DB) Export(ctx context.Context, table, file string) (int64, error) {
	tables, err := d.Tables(ctx)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(tables, table) && !slices.Contains(ViewNames(), table) {
		return 0, fmt.Errorf("%w %q (tables: %s; views: %s)", ErrUnknownTable, table,
			strings.Join(tables, ", "), strings.Join(ViewNames(), ", "))
	}
	var format string
	switch strings.ToLower(filepath.Ext(file)) {
	case ".parquet":
		format = "FORMAT parquet"
	case ".csv":
		format = "FORMAT csv, HEADER true"
	default:
		return 0, fmt.Errorf("store: export %s: unknown file type %q (use .parquet or .csv)", file, filepath.Ext(file))
	}
	lit := "'" + strings.ReplaceAll(file, "'", "''") + "'"
	res, err := d.sql.ExecContext(ctx, "COPY (SELECT * FROM "+table+") TO "+lit+" ("+format+")")
	if err != nil {
		return 0, fmt.Errorf("store: export %s to %s: %w", table, file, err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

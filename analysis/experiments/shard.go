package experiments

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	store "placelab/sql"
)

// ErrBadShard marks a shard file that is not an export of placelab
// experiment --shard.
var ErrBadShard = errors.New("experiments: not a shard file")

// quote makes a file name a SQL string literal (DuckDB's COPY and
// read_parquet take literal paths).
func quote(path string) string { return "'" + strings.ReplaceAll(path, "'", "''") + "'" }

// ExportShard writes the figures of the runs with ids in [first, last]
// (one Run of a shard) to a Parquet file, one row per figure.
func ExportShard(ctx context.Context, db *store.DB, first, last int64, file string) error {
	if _, err := db.SQL().ExecContext(ctx, store.MustQuery("experiment_shard"), first, last); err != nil {
		return fmt.Errorf("experiments: export: %w", err)
	}
	if _, err := db.SQL().ExecContext(ctx, "COPY experiment_shard TO "+quote(file)+" (FORMAT parquet)"); err != nil {
		return fmt.Errorf("experiments: export to %s: %w", file, err)
	}
	return nil
}

// MergeSummary counts what Merge loaded.
type MergeSummary struct {
	Files   int `json:"files"`
	Runs    int `json:"runs"`
	Figures int `json:"figures"`
}

// Merge loads shard files into db as runs, all in one transaction: a bad
// file leaves the database as it was.
func Merge(ctx context.Context, db *store.DB, files []string) (MergeSummary, error) {
	var sum MergeSummary
	if len(files) == 0 {
		return sum, errors.New("experiments: merge: no files")
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return sum, fmt.Errorf("experiments: merge: %s: no such file", f)
		}
	}
	err := db.WriteTx(ctx, func(w *store.Writer) error {
		for _, f := range files {
			if err := w.Exec("CREATE OR REPLACE TEMP TABLE experiment_shard_file AS SELECT * FROM read_parquet(" + quote(f) + ")"); err != nil {
				return fmt.Errorf("%s: %w: %v", f, ErrBadShard, err)
			}
			type runRow struct {
				experiment, params, version string
				point                       int64
				seed                        int64
				started                     time.Time
				seconds                     sql.NullFloat64
			}
			var runs []runRow
			err := w.QueryRows(store.MustQuery("experiment_merge_runs"), func(row []driver.Value) error {
				var r runRow
				var ok bool
				if r.experiment, ok = row[0].(string); !ok {
					return fmt.Errorf("%s: %w: column experiment", f, ErrBadShard)
				}
				r.point = toInt(row[1])
				r.params, _ = row[2].(string)
				r.seed = toInt(row[3])
				r.version, _ = row[4].(string)
				r.started, _ = row[5].(time.Time)
				if v, ok := row[6].(float64); ok {
					r.seconds = sql.NullFloat64{Float64: v, Valid: true}
				}
				runs = append(runs, r)
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s: %w: %v", f, ErrBadShard, err)
			}
			for _, r := range runs {
				var id int64
				if err := w.QueryRows("SELECT nextval('run_seq')", func(row []driver.Value) error {
					id = toInt(row[0])
					return nil
				}); err != nil {
					return err
				}
				var secs any
				if r.seconds.Valid {
					secs = r.seconds.Float64
				}
				if err := w.Exec("INSERT INTO run (run_id, engine, policy, params, seed, dataset, version, started_at, seconds, status) VALUES ($1, 'experiment', $2, $3, $4, NULL, $5, $6, $7, 'done')",
					id, r.experiment, r.params, r.seed, r.version, r.started, secs); err != nil {
					return err
				}
				if err := w.Exec("INSERT INTO run_metric (run_id, t_s, metric, value) SELECT $1, t_s, metric, value FROM experiment_shard_file WHERE experiment = $2 AND point = $3 AND seed = $4",
					id, r.experiment, r.point, r.seed); err != nil {
					return err
				}
				sum.Runs++
			}
			var n int64
			if err := w.QueryRows("SELECT count(*) FROM experiment_shard_file", func(row []driver.Value) error {
				n = toInt(row[0])
				return nil
			}); err != nil {
				return err
			}
			sum.Figures += int(n)
			sum.Files++
		}
		return nil
	})
	if err != nil {
		return MergeSummary{}, err
	}
	return sum, nil
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

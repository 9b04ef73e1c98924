package experiments

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	store "placelab/sql"
)

// ErrBadShard marks a shard file that is not an export of placelab
// experiment --shard (or was written by an older placelab).
var ErrBadShard = errors.New("experiments: not a shard file")

// ErrIncomplete marks a merge refused because points of a grid are
// missing (a shard failed or was not run) or appear twice.
var ErrIncomplete = errors.New("experiments: sweep incomplete")

// ErrMerged marks a merge refused because its points are already stored.
var ErrMerged = errors.New("experiments: already merged")

// quote makes a file name a SQL string literal (DuckDB's COPY and
// read_parquet take literal paths).
func quote(path string) string { return "'" + strings.ReplaceAll(path, "'", "''") + "'" }

// ShardLabel names static shard i of n ("i/n"), as the shard column of a
// shard file and placelab experiment --shard write it.
func ShardLabel(i, n int) string { return fmt.Sprintf("%d/%d", i, n) }

// ShardFile is the Parquet file of experiment name's shard i of n in dir.
func ShardFile(dir, name string, i, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-shard-%d-of-%d.parquet", name, i, n))
}

// ExportShard writes the figures of o (the runs one shard stored in db) to
// a Parquet file, one row per figure with the run's parameters, the size of
// the grid and the shard's label. The file appears whole or not at all: it
// is written beside its final name and renamed, so a task killed while
// writing leaves no shard that merge could take for complete.
//
// sweep names every experiment of the sweep the shard belongs to.
func ExportShard(ctx context.Context, db *store.DB, e *Experiment, o *Outcome, gridPoints int, label string, sweep []string, file string) error {
	if len(o.Runs) == 0 {
		return fmt.Errorf("experiments: export %s: no runs", e.Name)
	}
	first, last := o.Runs[0], o.Runs[0]
	for _, id := range o.Runs {
		first, last = min(first, id), max(last, id)
	}
	if _, err := db.SQL().ExecContext(ctx, store.MustQuery("experiment_shard"), first, last, e.Name, gridPoints, label, strings.Join(sweep, ",")); err != nil {
		return fmt.Errorf("experiments: export: %w", err)
	}
	return copyParquet(ctx, db, "experiment_shard", file)
}

// copyParquet writes a (temporary) table of db to a Parquet file beside
// file's name, then renames it: the file appears whole or not at all.
func copyParquet(ctx context.Context, db *store.DB, table, file string) error {
	tmp := file + ".partial"
	if _, err := db.SQL().ExecContext(ctx, "COPY "+table+" TO "+quote(tmp)+" (FORMAT parquet)"); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiments: export to %s: %w", file, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiments: export to %s: %w", file, err)
	}
	return nil
}

// MergeSummary counts what Merge loaded.
type MergeSummary struct {
	Files       int           `json:"files"`
	Runs        int           `json:"runs"`
	Figures     int           `json:"figures"`
	Experiments []MergedGroup `json:"experiments"`
}

// MergedGroup is one experiment's grid as merged: its run ids in point
// order.
type MergedGroup struct {
	Experiment string  `json:"experiment"`
	Grid       Grid    `json:"grid"`
	Points     int     `json:"points"`
	Runs       []int64 `json:"run_ids"`
}

// shardRun is one point of a shard file.
type shardRun struct {
	file, experiment, grid, params, version, shard, sweep string
	point, seed, gridPoints                               int64
	started                                               time.Time
	seconds                                               any
}

type groupKey struct{ experiment, grid string }

// ExpandShardPaths turns merge's arguments into shard files: a directory
// stands for its *.parquet files (and its sweep.json, returned as the
// manifest); a file is taken as it is.
func ExpandShardPaths(paths []string) (files []string, manifests []*Sweep, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("experiments: merge: %s: no such file or directory", p)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		fs, _ := filepath.Glob(filepath.Join(p, "*.parquet"))
		sort.Strings(fs)
		files = append(files, fs...)
		m, err := ReadSweep(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		if m != nil {
			manifests = append(manifests, m)
		}
		if len(fs) == 0 && m == nil {
			return nil, nil, fmt.Errorf("experiments: merge: %s holds no shard files (*.parquet)", p)
		}
	}
	return files, manifests, nil
}

// Merge loads shard files (or directories of them) into db as runs, all in
// one transaction: a bad file, a grid with a missing or doubled point, or a
// point stored before leaves the database as it was. A directory's
// sweep.json (written by placelab experiment --slurm, --k8s and --jobs)
// also names experiments of which no shard at all arrived.
func Merge(ctx context.Context, db *store.DB, paths []string) (MergeSummary, error) {
	var sum MergeSummary
	if len(paths) == 0 {
		return sum, errors.New("experiments: merge: no files")
	}
	files, manifests, err := ExpandShardPaths(paths)
	if err != nil {
		return sum, err
	}
	byFile := map[string][]shardRun{}
	figures := map[string]int{}
	err = db.WriteTx(ctx, func(w *store.Writer) error {
		for _, f := range files {
			if err := w.Exec("CREATE OR REPLACE TEMP TABLE experiment_shard_file AS SELECT * FROM read_parquet(" + quote(f) + ")"); err != nil {
				return fmt.Errorf("%s: %w: %v", f, ErrBadShard, err)
			}
			var runs []shardRun
			err := w.QueryRows(store.MustQuery("experiment_merge_runs"), func(row []driver.Value) error {
				r := shardRun{file: f}
				var ok bool
				if r.experiment, ok = row[0].(string); !ok {
					return fmt.Errorf("column experiment")
				}
				r.grid, _ = row[1].(string)
				r.point = toInt(row[2])
				r.params, _ = row[3].(string)
				r.seed = toInt(row[4])
				r.version, _ = row[5].(string)
				r.started, _ = row[6].(time.Time)
				if v, ok := row[7].(float64); ok {
					r.seconds = v
				}
				r.gridPoints = toInt(row[8])
				r.shard, _ = row[9].(string)
				r.sweep, _ = row[10].(string)
				runs = append(runs, r)
				return nil
			})
			if err != nil {
				if strings.Contains(err.Error(), "grid_points") || strings.Contains(err.Error(), "sweep") {
					return fmt.Errorf("%s: %w (written by an older placelab without the grid's size: rerun its shard): %v", f, ErrBadShard, err)
				}
				return fmt.Errorf("%s: %w: %v", f, ErrBadShard, err)
			}
			if len(runs) == 0 {
				return fmt.Errorf("%s: %w: it holds no figures", f, ErrBadShard)
			}
			byFile[f] = runs
			if err := w.QueryRows("SELECT count(*) FROM experiment_shard_file", func(row []driver.Value) error {
				figures[f] = int(toInt(row[0]))
				return nil
			}); err != nil {
				return err
			}
		}
		groups, err := checkWhole(files, byFile, manifests)
		if err != nil {
			return err
		}
		for _, g := range groups {
			mg := MergedGroup{Experiment: g.key.experiment, Grid: Grid(g.key.grid), Points: len(g.runs)}
			for _, r := range g.runs {
				var prior int64 = -1
				if err := w.QueryRows(store.MustQuery("experiment_merged_already"), func(row []driver.Value) error {
					prior = toInt(row[0])
					return nil
				}, r.experiment, r.point, r.seed, r.started); err != nil {
					return err
				}
				if prior >= 0 {
					return fmt.Errorf("%w: %s point %d (%s) is run %d of this database", ErrMerged, r.experiment, r.point, r.file, prior)
				}
				var id int64
				if err := w.QueryRows("SELECT nextval('run_seq')", func(row []driver.Value) error {
					id = toInt(row[0])
					return nil
				}); err != nil {
					return err
				}
				if err := w.Exec("INSERT INTO run (run_id, engine, policy, params, seed, dataset, version, started_at, seconds, status) VALUES ($1, 'experiment', $2, $3, $4, NULL, $5, $6, $7, 'done')",
					id, r.experiment, r.params, r.seed, r.version, r.started, r.seconds); err != nil {
					return err
				}
				if err := w.Exec("INSERT INTO run_metric (run_id, t_s, metric, value) SELECT $1, t_s, metric, value FROM read_parquet("+quote(r.file)+") WHERE experiment = $2 AND point = $3 AND seed = $4",
					id, r.experiment, r.point, r.seed); err != nil {
					return err
				}
				mg.Runs = append(mg.Runs, id)
				sum.Runs++
			}
			sum.Experiments = append(sum.Experiments, mg)
		}
		for _, f := range files {
			sum.Figures += figures[f]
		}
		sum.Files = len(files)
		return nil
	})
	if err != nil {
		return MergeSummary{}, err
	}
	return sum, nil
}

type mergeGroup struct {
	key  groupKey
	runs []shardRun // in point order
}

// checkWhole groups the shard files' points by experiment and grid and
// checks each grid is whole: one size, one placelab version, every point
// exactly once; and that each experiment a manifest names arrived.
func checkWhole(files []string, byFile map[string][]shardRun, manifests []*Sweep) ([]mergeGroup, error) {
	m := map[groupKey]*mergeGroup{}
	var order []groupKey
	for _, f := range files {
		for _, r := range byFile[f] {
			k := groupKey{r.experiment, r.grid}
			g := m[k]
			if g == nil {
				g = &mergeGroup{key: k}
				m[k] = g
				order = append(order, k)
			}
			g.runs = append(g.runs, r)
		}
	}
	var problems []string
	// Every file names its sweep's experiments: each must have arrived.
	expected := map[groupKey]string{}
	var expOrder []groupKey
	for _, k := range order {
		for _, r := range m[k].runs {
			for _, name := range strings.Split(r.sweep, ",") {
				ek := groupKey{name, r.grid}
				if _, ok := expected[ek]; name != "" && !ok {
					expected[ek] = r.shard + "\x00" + r.file
					expOrder = append(expOrder, ek)
				}
			}
		}
	}
	for _, k := range order {
		g := m[k]
		sort.SliceStable(g.runs, func(i, j int) bool { return g.runs[i].point < g.runs[j].point })
		size, version := g.runs[0].gridPoints, g.runs[0].version
		seen := map[int64]string{}
		labels := map[string]bool{}
		for _, r := range g.runs {
			labels[r.shard] = true
			if r.gridPoints != size {
				return nil, fmt.Errorf("%w: %s (%s grid) has %d points in %s but %d in %s: shards of different grids",
					ErrIncomplete, k.experiment, k.grid, size, g.runs[0].file, r.gridPoints, r.file)
			}
			if r.version != version {
				return nil, fmt.Errorf("%w: %s (%s grid) mixes placelab versions %q (%s) and %q (%s): rerun the sweep with one binary",
					ErrIncomplete, k.experiment, k.grid, version, g.runs[0].file, r.version, r.file)
			}
			if r.point < 0 || r.point >= size {
				return nil, fmt.Errorf("%w: %s has point %d outside its %d-point grid", ErrBadShard, r.file, r.point, size)
			}
			if other, ok := seen[r.point]; ok {
				return nil, fmt.Errorf("%w: %s point %d is in both %s and %s: merge one of them", ErrIncomplete, k.experiment, r.point, other, r.file)
			}
			seen[r.point] = r.file
		}
		var missing []int64
		for p := int64(0); p < size; p++ {
			if _, ok := seen[p]; !ok {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, describeMissing(k, size, missing, labels, filepath.Dir(g.runs[0].file), manifests))
		}
	}
	for _, k := range expOrder {
		if m[k] != nil {
			continue
		}
		label, file, _ := strings.Cut(expected[k], "\x00")
		problems = append(problems, describeAbsent(k, label, filepath.Dir(file), manifests))
	}
	for _, man := range manifests {
		for _, name := range man.Experiments {
			k := groupKey{name, string(man.Grid)}
			if _, ok := expected[k]; m[k] == nil && !ok {
				problems = append(problems, fmt.Sprintf("%s (%s grid): no shard file arrived in %s%s", name, man.Grid, man.Dir, man.rerunHint(name, nil)))
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w, nothing was merged:\n  %s", ErrIncomplete, strings.Join(problems, "\n  "))
	}
	// Runs get their ids in the order a sequential run gives them: the
	// experiments in registry order, each grid's points in order.
	pos := map[string]int{}
	for i, e := range registry {
		pos[e.Name] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		pi, oki := pos[order[i].experiment]
		pj, okj := pos[order[j].experiment]
		if oki != okj {
			return oki
		}
		if pi != pj {
			return pi < pj
		}
		return order[i].grid < order[j].grid
	})
	out := make([]mergeGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *m[k])
	}
	return out, nil
}

// describeMissing says which points of a grid are missing and, when the
// present files are static shards of one n, which shards to rerun and how.
func describeMissing(k groupKey, size int64, missing []int64, labels map[string]bool, dir string, manifests []*Sweep) string {
	pts := make([]string, len(missing))
	for i, p := range missing {
		pts[i] = strconv.FormatInt(p, 10)
	}
	msg := fmt.Sprintf("%s (%s grid): points %s of %d missing", k.experiment, k.grid, strings.Join(pts, ","), size)
	n := 0
	for l := range labels {
		_, b, ok := strings.Cut(l, "/")
		v, err := strconv.Atoi(b)
		if !ok || err != nil || strings.HasPrefix(l, "job") || (n != 0 && v != n) {
			return msg
		}
		n = v
	}
	idx := map[int]bool{}
	var shards []int
	for _, p := range missing {
		i := int(p) % n
		if !idx[i] {
			idx[i] = true
			shards = append(shards, i)
		}
	}
	sort.Ints(shards)
	for _, man := range manifests {
		if man.Dir == dir && man.Shards == n {
			return msg + man.rerunHint(k.experiment, shards)
		}
	}
	var cmds []string
	quick := ""
	if k.grid == string(GridQuick) {
		quick = " --quick"
	}
	for _, i := range shards {
		cmds = append(cmds, fmt.Sprintf("placelab experiment %s%s --shard %d/%d --out %s", k.experiment, quick, i, n, dir))
	}
	return msg + fmt.Sprintf(" (shard %s of %d): rerun %s", joinInts(shards), n, strings.Join(cmds, "; "))
}

// describeAbsent says that no shard of experiment k arrived, though a shard
// (label, in dir) of its sweep did, and how to rerun its shards.
func describeAbsent(k groupKey, label, dir string, manifests []*Sweep) string {
	e, err := Lookup(k.experiment)
	if err != nil {
		return fmt.Sprintf("%s (%s grid): no shard file arrived in %s, though the sweep includes it", k.experiment, k.grid, dir)
	}
	size := len(e.Points(k.grid == string(GridQuick)))
	missing := make([]int64, size)
	for p := range missing {
		missing[p] = int64(p)
	}
	return "no shard file arrived: " + describeMissing(k, int64(size), missing, map[string]bool{label: true}, dir, manifests)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
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

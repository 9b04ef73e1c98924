package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// lpRun stores a run row; the LP views read only run and run_metric.
func lpRun(t *testing.T, db *DB, id int64, engine, policy, status string) {
	t.Helper()
	if _, err := db.SQL().Exec(`INSERT INTO run (run_id, engine, policy, seed, dataset, version, started_at, status)
		VALUES (?, ?, ?, 1, 'hand', 'test', current_timestamp, ?)`, id, engine, policy, status); err != nil {
		t.Fatal(err)
	}
}

// lpMetrics stores one snapshot's figures under the given names.
func lpMetrics(t *testing.T, db *DB, run int64, ts float64, figs map[string]float64) {
	t.Helper()
	for m, v := range figs {
		if _, err := db.SQL().Exec(`INSERT INTO run_metric (run_id, t_s, metric, value) VALUES (?, ?, ?, ?)`, run, ts, m, v); err != nil {
			t.Fatal(err)
		}
	}
}

// interval is one snapshot in the names placelab lpbound writes.
func interval(vms, online, lb, ub, onlineDens, lbDens, ubDens, converged float64) map[string]float64 {
	return map[string]float64{"lp_vms": vms, "lp_online_machines": online, "lp_lb_machines": lb, "lp_ub_machines": ub,
		"lp_emptiable_machines": online - ub, "lp_online_density": onlineDens, "lp_lb_density": lbDens, "lp_ub_density": ubDens,
		"lp_converged": converged,
		// Written too, not shown by the views.
		"lp_allocated_cores": 10 * vms, "lp_online_cores": 24 * online, "lp_lb_cores": 24 * lb, "lp_ub_cores": 24 * ub}
}

// oldBound is one snapshot as placelab lpbound wrote it before the interval
// (a single bound): the views must not read it.
var oldBound = map[string]float64{"lp_bound_cores": 100, "lp_bound_machines": 5, "lp_bound_density": 0.9,
	"lp_density_gap": 0.1, "lp_online_machines": 7}

// TestLPIntervalViewsByHand: lpbound_density shows every snapshot stored
// with the interval's names (an empty one included, its interval gap NULL
// rather than a division by zero), none stored under the old single-bound
// names, even at another time of the same run; lpbound_gap averages over
// the snapshots with VMs only, counts the converged ones, and lists no run
// that has only old rows.
func TestLPIntervalViewsByHand(t *testing.T) {
	db := openMem(t)
	lpRun(t, db, 1, "replay", "protean", "done")
	lpRun(t, db, 2, "replay", "bestfit", "done")
	// Run 1: t=0 exact (lb = ub = 4); t=3600 lb 8, ub 9 (gap 12.5%), not
	// converged; t=7200 old rows only; t=10800 empty.
	lpMetrics(t, db, 1, 0, interval(10, 5, 4, 4, 0.6, 0.75, 0.75, 1))
	lpMetrics(t, db, 1, 3600, interval(20, 10, 8, 9, 0.5, 0.55, 0.625, 0))
	lpMetrics(t, db, 1, 7200, oldBound)
	lpMetrics(t, db, 1, 10800, map[string]float64{"lp_vms": 0, "lp_online_machines": 0, "lp_lb_machines": 0, "lp_ub_machines": 0,
		"lp_emptiable_machines": 0, "lp_converged": 1})
	// Run 2: an old database's rows only.
	lpMetrics(t, db, 2, 0, oldBound)
	// A figure of another kind at a bounded time is not a snapshot figure.
	lpMetrics(t, db, 1, 0, map[string]float64{"packing_density": 0.6})

	got := viewRows(t, db, "lpbound_density", "run_id", "policy", "hour", "vms", "online_machines", "lb_machines", "ub_machines",
		"emptiable_machines", "online_density_pct", "lb_density_pct", "ub_density_pct", "interval_gap_pct", "converged")
	want := []string{
		"1 protean 0 10 5 4 4 1 60 75 75 0 true",
		"1 protean 1 20 10 8 9 1 50 55 62.5 12.5 false",
		"1 protean 3 0 0 0 0 0 <nil> <nil> <nil> <nil> true",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lpbound_density:\n got  %q\n want %q", got, want)
	}
	got = viewRows(t, db, "lpbound_gap", "run_id", "policy", "snapshots", "converged_snapshots",
		"mean_online_density_pct", "mean_lb_density_pct", "mean_ub_density_pct",
		"mean_online_machines", "mean_lb_machines", "mean_ub_machines", "mean_emptiable_machines",
		"mean_interval_gap_pct", "max_interval_gap_pct")
	// Densities weighted by cores: 300 allocated over 120 + 240 online,
	// 96 + 216 UB and 96 + 192 LB cores.
	want = []string{"1 protean 2 1 83.33 96.15 104.17 7.5 6 6.5 1 6.25 12.5"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lpbound_gap:\n got  %q\n want %q", got, want)
	}
	// The columns, exactly: the README and the report name them.
	for view, cols := range map[string]string{
		"lpbound_density": "run_id dataset policy hour vms online_machines lb_machines ub_machines emptiable_machines " +
			"online_density_pct lb_density_pct ub_density_pct interval_gap_pct converged",
		"lpbound_gap": "run_id dataset policy snapshots converged_snapshots mean_online_density_pct mean_lb_density_pct " +
			"mean_ub_density_pct mean_online_machines mean_lb_machines mean_ub_machines mean_emptiable_machines " +
			"mean_interval_gap_pct max_interval_gap_pct",
	} {
		res, err := db.QueryView(context.Background(), view, "")
		if err != nil {
			t.Fatal(err)
		}
		if g := strings.Join(res.Columns, " "); g != cols {
			t.Errorf("%s columns:\n got  %s\n want %s", view, g, cols)
		}
	}
}

// TestRunsUnbounded: a run is unbounded when it has placements, is done,
// is not an offline packing placelab lpbound stored itself, and has no
// lp_lb_machines row — rows of the old single bound do not count.
func TestRunsUnbounded(t *testing.T) {
	db := openMem(t)
	for _, r := range []struct {
		id             int64
		engine, status string
		placed         bool
	}{
		{1, "replay", "done", true},     // bounded with the interval
		{2, "replay", "done", true},     // only old single-bound rows
		{3, "offline", "done", true},    // an offline packing
		{4, "replay", "done", false},    // no placements
		{5, "replay", "failed", true},   // failed
		{6, "experiment", "done", true}, // an experiment's figure named lp_*
		{7, "replay", "done", true},     // read a load since replaced: cannot be bounded
		{8, "replay", "done", true},     // read the dataset's current load
	} {
		lpRun(t, db, r.id, r.engine, "p", r.status)
		if r.placed {
			if _, err := db.SQL().Exec(`INSERT INTO placement (run_id, vm_id, t_s, machine_id, outcome) VALUES (?, 1, 0, 0, 'placed')`, r.id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.SQL().Exec(`INSERT INTO dataset (name, load_id, format, source, loaded_at, rows_read, rows_loaded, rows_rejected)
		VALUES ('hand', 2, 'test', 'hand', now(), 0, 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE run SET load_id = run_id - 6 WHERE run_id IN (7, 8)`); err != nil {
		t.Fatal(err)
	}
	lpMetrics(t, db, 1, 0, interval(10, 5, 4, 4, 0.6, 0.75, 0.75, 1))
	lpMetrics(t, db, 2, 0, oldBound)
	lpMetrics(t, db, 6, 0, map[string]float64{"lp_bound_density_pct": 100})
	rows, err := db.SQL().Query(MustQuery("runs_unbounded"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if fmt.Sprint(ids) != "[2 6 8]" {
		t.Errorf("unbounded runs %v, want [2 6 8]", ids)
	}
}

// TestMigrationDropsSingleBound: a database written before the interval
// loses its single-bound rows (and the lp_online_machines written beside
// them) on opening; every other figure — a replay's samples, an
// experiment's lp_bound_density_pct result, a snapshot already stored with
// the interval — stays.
func TestMigrationDropsSingleBound(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	db0, err := openAt(ctx, path, 5)
	if err != nil {
		t.Fatal(err)
	}
	lpMetrics(t, db0, 1, 0, oldBound)
	lpMetrics(t, db0, 1, 0, map[string]float64{"packing_density": 0.6})
	lpMetrics(t, db0, 1, 600, interval(10, 5, 4, 4, 0.6, 0.75, 0.75, 1))
	lpMetrics(t, db0, 2, 0, map[string]float64{"lp_bound_density_pct": 97, "lp_gap_pct": 3})
	db0.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	left := map[string]int64{}
	rows, err := db.SQL().Query(`SELECT metric, count(*) FROM run_metric GROUP BY metric`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m string
		var n int64
		if err := rows.Scan(&m, &n); err != nil {
			t.Fatal(err)
		}
		left[m] = n
	}
	for _, m := range []string{"lp_bound_cores", "lp_bound_machines", "lp_bound_density", "lp_density_gap"} {
		if left[m] != 0 {
			t.Errorf("%s: %d rows left", m, left[m])
		}
	}
	want := map[string]int64{"lp_online_machines": 1, "lp_lb_machines": 1, "lp_ub_density": 1, "packing_density": 1,
		"lp_bound_density_pct": 1, "lp_gap_pct": 1}
	for m, n := range want {
		if left[m] != n {
			t.Errorf("%s: %d rows, want %d", m, left[m], n)
		}
	}
}

// TestRunSummaryDensityFromLPBound: a run with no interval samples (an
// observed run) takes run_summary's packing density from its lpbound
// snapshots, Σ allocated / Σ online cores (100 + 200 of 120 + 240 cores =
// 83.33%), and says so; a run with samples keeps their mean; a run with
// neither shows NULL with no source.
func TestRunSummaryDensityFromLPBound(t *testing.T) {
	db := openMem(t)
	lpRun(t, db, 1, "observed", "recorded", "done")
	lpRun(t, db, 2, "replay", "protean", "done")
	lpRun(t, db, 3, "observed", "recorded", "done")
	lpMetrics(t, db, 1, 0, interval(10, 5, 4, 4, 0.6, 0.75, 0.75, 1))
	lpMetrics(t, db, 1, 3600, interval(20, 10, 8, 9, 0.5, 0.55, 0.625, 0))
	lpMetrics(t, db, 2, 0, map[string]float64{"packing_density": 0.9})
	lpMetrics(t, db, 2, 60, map[string]float64{"packing_density": 0.7})
	lpMetrics(t, db, 2, 120, interval(20, 10, 8, 9, 0.5, 0.55, 0.625, 0))
	res, err := db.Query(context.Background(), "SELECT run_id, packing_density_pct, packing_density_source FROM run_summary ORDER BY run_id")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(res.Rows), "[[1 83.33 lpbound snapshots] [2 80 samples] [3 <nil> <nil>]]"; got != want {
		t.Errorf("run_summary = %s, want %s", got, want)
	}
}

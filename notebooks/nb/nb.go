// Package nb is placelab's notebook API: one line per idea in a Jupyter
// cell on the GoNB kernel. It opens the database, loads the datasets a
// notebook needs, runs specs through the run pipeline, and shows views,
// runs and report sections as tables and charts (the same sections, with
// the papers' numbers beside ours, that placelab report writes).
//
// A failure is shown as the cell's error (one line on stderr, the cell
// stops) rather than a panic's stack. The first cell of a notebook sets
// Display to GoNB's gonbui.DisplayHTML.
package nb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis"
	"placelab/analysis/characterize"
	"placelab/analysis/cluster"
	"placelab/analysis/experiments"
	"placelab/analysis/lifetime"
	"placelab/analysis/overview"
	"placelab/analysis/replay"
	"placelab/analysis/report"
	"placelab/datasets"
	"placelab/datasets/k8sgen"
	"placelab/datasets/synth"
	store "placelab/sql"
)

// DB is placelab's database (package placelab/sql, imported as store).
type DB = store.DB

// Named is the text of one of placelab's named queries (sql/queries/).
func Named(name string) string {
	q, err := store.Query(name)
	Check(err)
	return q
}

// Ctx is the context of a cell.
var Ctx = context.Background()

// Display shows HTML in the cell's output (set to gonbui.DisplayHTML by a
// notebook's first cell; printing is the fallback outside Jupyter).
var Display = func(html string) { fmt.Println(html) }

// MaxRows is how many rows a table shows.
var MaxRows = 15

// MaxSectionRows is how many rows a report section's table shows in a
// notebook (an experiment's figures can run to hundreds of rows; the
// report and placelab sql have them all).
var MaxSectionRows = 60

// Check shows err as the cell's error and stops the cell.
func Check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "placelab:", strings.TrimSpace(err.Error()))
		os.Exit(1)
	}
}

// Must returns v, or shows err as the cell's error.
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

// Small reports whether PLACELAB_NB_SMALL asks for short runs (tests).
func Small() bool { return os.Getenv("PLACELAB_NB_SMALL") != "" }

// Dir is the notebook's folder ($GONB_DIR, else the working directory).
func Dir() string {
	if d := os.Getenv("GONB_DIR"); d != "" {
		return d
	}
	d, _ := os.Getwd()
	return d
}

// Shared is the path of a file under ../shared/data beside the repository,
// and whether it is there.
func Shared(rel string) (string, bool) {
	p := filepath.Join(Dir(), "..", "..", "shared", "data", rel)
	_, err := os.Stat(p)
	return p, err == nil
}

// Open opens $PLACELAB_DB, else the repository's placelab.duckdb (the one
// make demo fills).
func Open() *store.DB {
	p := os.Getenv("PLACELAB_DB")
	if p == "" {
		p = filepath.Join(Dir(), "..", "placelab.duckdb")
	}
	return Must(store.Open(Ctx, p))
}

// Has reports whether dataset name is loaded.
func Has(db *store.DB, name string) bool {
	var n int
	Check(db.SQL().QueryRowContext(Ctx, "SELECT count(*) FROM dataset WHERE name = ?", name).Scan(&n))
	return n > 0
}

// Zone generates a synthetic zone and trace as dataset name unless it is
// loaded (cfg is synth.DefaultConfig() changed by the caller; Small()
// shrinks it).
func Zone(db *store.DB, name string, cfg synth.Config) {
	if Has(db, name) {
		return
	}
	if Small() {
		cfg.Machines, cfg.VMs, cfg.Days = min(cfg.Machines, 300), min(cfg.VMs, 8000), min(cfg.Days, 3)
		cfg.SeriesVMs = min(cfg.SeriesVMs, 100)
	}
	Check(synth.Ingest(Ctx, db, name, "notebook", cfg))
}

// Ingest loads a file of ../shared/data as dataset name unless it is
// loaded; it reports whether the dataset is there afterwards (false when
// ../shared/data is absent, which the cell says).
func Ingest(db *store.DB, name, format, rel string, o datasets.Options) bool {
	if Has(db, name) {
		return true
	}
	p, ok := Shared(rel)
	if !ok {
		fmt.Printf("%s is not here (../shared/data/%s): skipped\n", name, rel)
		return false
	}
	o.Dataset = name
	Must(datasets.Ingest(Ctx, db, format, []string{p}, o))
	return true
}

// Table shows a result as a table under title.
func Table(title string, r *store.Result) {
	show(Must(report.Fragment(title, nil, r, MaxRows)), false)
}

// Chart shows a go-echarts chart (and, if given, the rows beneath it).
func Chart(title string, ch report.Chart, rows ...*store.Result) {
	var r *store.Result
	if len(rows) > 0 {
		r = rows[0]
	}
	show(Must(report.Fragment(title, ch, r, MaxRows)), ch != nil)
}

// show displays a fragment; the first with a chart in a kernel session
// carries the chart library before it (report.LibraryFragment), so a
// notebook holds ECharts once and its exported page draws on its own.
func show(h string, chart bool) {
	if chart && !libraryShown() {
		h = report.LibraryFragment() + h
		markLibraryShown()
	}
	Display(h)
}

// libraryMarker is the file, in the kernel's temporary folder, that says
// this kernel session has shown the chart library: GoNB runs every cell as
// a new process and gives the session a fresh $GONB_TMP_DIR when the
// kernel (re)starts, so "Restart & Run All" shows it again, once.
const libraryMarker = "placelab-echarts-shown"

// libraryShownHere stands for the marker outside GoNB (one process).
var libraryShownHere bool

func libraryShown() bool {
	if d := os.Getenv("GONB_TMP_DIR"); d != "" {
		_, err := os.Stat(filepath.Join(d, libraryMarker))
		return err == nil
	}
	return libraryShownHere
}

func markLibraryShown() {
	libraryShownHere = true
	if d := os.Getenv("GONB_TMP_DIR"); d != "" {
		// Failing to write it shows the library again with the next
		// chart: a larger notebook, never a chart that cannot draw.
		_ = os.WriteFile(filepath.Join(d, libraryMarker), nil, 0o644)
	}
}

// View runs a view (for one dataset, or all with "") and shows it.
func View(db *store.DB, view, dataset string) *store.Result {
	r := Must(db.QueryView(Ctx, view, dataset))
	Table(view, r)
	return r
}

// SQL runs a query and shows its rows.
func SQL(db *store.DB, q string, args ...any) *store.Result {
	r := Must(db.Query(Ctx, q, args...))
	Table("", r)
	return r
}

// Sections shows the sections of a report page whose titles contain one
// of match (case-insensitive; none given: every section). A match that
// finds no section is an error.
func Sections(p *report.Page, match ...string) {
	for _, m := range append(match, "")[:max(1, len(match))] {
		found := false
		for _, s := range p.Sections {
			if strings.Contains(strings.ToLower(s.Title), strings.ToLower(m)) {
				found = true
				if s.MaxRows <= 0 || s.MaxRows > MaxSectionRows {
					s.MaxRows = MaxSectionRows // a notebook stays small; the report has every row
				}
				show(Must(report.SectionFragment(s)), s.Chart != nil)
			}
		}
		if !found {
			Check(fmt.Errorf("no section of %q matches %q", p.Title, m))
		}
	}
}

// Characterize shows sections of the characterization page (every view,
// the papers' numbers beside): placelab characterize in a cell.
func Characterize(db *store.DB, dataset string, match ...string) {
	page, _, err := characterize.Run(Ctx, db, dataset, nil)
	Check(err)
	Sections(page, match...)
}

// Overview shows sections of the report's overview page (datasets, runs,
// the LP interval, predictions, oversubscription, violations, Paragon).
func Overview(db *store.DB, dataset string, match ...string) {
	Sections(Must(overview.Page(Ctx, db, dataset)), match...)
}

// Run runs spec through the run pipeline (validated, pinned to the load
// it read, stored as engine "notebook") and returns its summary.
func Run(db *store.DB, spec analysis.Spec) replay.Summary {
	res, err := analysis.Run(Ctx, db, spec, analysis.RunOptions{Engine: "notebook", Version: "notebook"})
	Check(err)
	return res.Summary
}

// Availability shows runs' availability figures side by side, named (the
// summary's fields of the same names): failure rates by VMs per buffer,
// heal requests, CFR, downtime, outages, and the means of the healable
// samples, beside utilization and packing density.
func Availability(title string, names []string, runs ...replay.Summary) {
	if len(names) != len(runs) {
		Check(fmt.Errorf("Availability: %d names for %d runs", len(names), len(runs)))
	}
	r := &store.Result{Columns: []string{"setting", "run", "packing_density_pct", "utilization_pct", "new_deployment_failure_rate",
		"scaleout_failure_rate", "heal_vms", "heal_failure_rate", "cfr", "vm_downtime_hours", "machine_failures", "rack_failures",
		"healable_machine_failures_pct_mean", "healable_rack_failures_pct_mean"}}
	for i, s := range runs {
		r.Rows = append(r.Rows, []any{names[i], s.RunID, round(100 * s.PackingDensityMean), round(100 * s.UtilizationMean),
			s.NewDeploymentFailureRate, s.ScaleoutFailureRate, int64(s.HealVMs), s.HealFailureRate, s.CFR, round(s.VMDowntimeHours),
			int64(s.MachineFailures), int64(s.RackFailures), round(s.HealableMachineFailuresPctMean), round(s.HealableRackFailuresPctMean)})
	}
	Table(title, r)
}

// Compare shows runs side by side, named. Decision latency is the engine's
// own time per VM on every row; a multi-agent run's simulated response
// time (queueing and retries, arrival to resolution) is its own column,
// empty for single-agent runs.
func Compare(title string, names []string, runs ...replay.Summary) {
	if len(names) != len(runs) {
		Check(fmt.Errorf("Compare: %d names for %d runs", len(names), len(runs)))
	}
	r := &store.Result{Columns: []string{"setting", "run", "accepted", "rejected", "packing_density_pct", "decision_p50_us", "decision_p99_us",
		"post_bestfit_pct", "agents", "conflicts", "agents_response_p99_s"}}
	for i, s := range runs {
		resp := any(nil)
		if s.Agents > 1 {
			resp = s.ResponseP99S
		}
		r.Rows = append(r.Rows, []any{names[i], s.RunID, int64(s.Accepted), int64(s.Rejected), round(100 * s.PackingDensityMean), round(s.LatencyP50US),
			round(s.LatencyP99US), roundOrNil(s.PostBestFitPct), int64(max(1, s.Agents)), int64(s.Conflicts), resp})
	}
	Chart(title, compareChart(names, runs), r)
}

// compareChart draws runs' packing density and rejections: two units, two
// axes, packing density (%) on the left and rejected VMs on the right.
func compareChart(names []string, runs []replay.Summary) *charts.Bar {
	bar := charts.NewBar()
	var dens, rej []opts.BarData
	for _, s := range runs {
		dens = append(dens, opts.BarData{Value: round(100 * s.PackingDensityMean)})
		rej = append(rej, opts.BarData{Value: s.Rejected})
	}
	axes, axis := report.UnitAxes([]string{"packing_density_pct", "rejected"})
	axes[0].Name, axes[1].Name = report.AxisName("packing density", report.UnitPct), report.AxisName("rejected", "VMs")
	bar.SetGlobalOptions(charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(axes[0]),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20}}))
	bar.ExtendYAxis(axes[1:]...)
	bar.SetXAxis(names).
		AddSeries("packing_density_pct", dens, charts.WithBarChartOpts(opts.BarChart{YAxisIndex: axis["packing_density_pct"]})).
		AddSeries("rejected", rej, charts.WithBarChartOpts(opts.BarChart{YAxisIndex: axis["rejected"]}))
	return bar
}

func round(v float64) float64 { return float64(int64(v*100+0.5*sign(v))) / 100 }

// roundOrNil rounds a figure that may not have been measured (nil: an
// empty cell, never 0).
func roundOrNil(v *float64) any {
	if v == nil {
		return nil
	}
	return round(*v)
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// Rows shows a slice of structs (or pointers to them) as a table, one
// column per exported field that JSON would write, named as JSON names it;
// maps and slices inside are left out.
func Rows(title string, rows any) *store.Result {
	r := rowsResult(rows)
	Table(title, r)
	return r
}

// rowsResult is Rows' table, not shown.
func rowsResult(rows any) *store.Result {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice {
		Check(fmt.Errorf("Rows: want a slice of structs, got %T", rows))
	}
	r := &store.Result{}
	var fields [][]int // index paths: embedded structs are flattened
	for i := 0; i < v.Len(); i++ {
		e := reflect.Indirect(v.Index(i))
		if e.Kind() != reflect.Struct {
			Check(fmt.Errorf("Rows: want a slice of structs, got %T", rows))
		}
		if i == 0 {
			fields, r.Columns = columnsOf(e.Type(), nil)
		}
		row := make([]any, len(fields))
		for k, path := range fields {
			row[k] = e.FieldByIndex(path).Interface()
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// columnsOf lists the columns of struct type t as Rows shows them: each
// exported field that JSON would write, named as JSON names it, with the
// fields of an embedded struct in its place; maps, slices and other nested
// values left out.
func columnsOf(t reflect.Type, prefix []int) (paths [][]int, names []string) {
	for j := 0; j < t.NumField(); j++ {
		f := t.Field(j)
		path := append(append([]int(nil), prefix...), j)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			p, n := columnsOf(f.Type, path)
			paths, names = append(paths, p...), append(names, n...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		k := f.Type.Kind()
		if !f.IsExported() || name == "-" || k == reflect.Map || k == reflect.Slice || k == reflect.Array || k == reflect.Struct || k == reflect.Pointer {
			continue
		}
		if name == "" {
			name = f.Name
		}
		paths, names = append(paths, path), append(names, name)
	}
	return paths, names
}

// Experiment runs a named experiment's grid (the reduced one when quick)
// in this process, stores each point as a run, and shows its section of
// the experiments page: our figures with the paper's beside them.
func Experiment(db *store.DB, name string, quick bool) {
	e := Must(experiments.Lookup(name))
	Must(experiments.Run(Ctx, db, e, experiments.Options{Quick: quick, Version: "notebook"}))
	Sections(Must(experiments.Page(Ctx, db)), e.Name+" — ")
}

// ExperimentSections shows sections of the experiments page, from the
// runs already stored (no grid is run), whose titles contain one of match:
// e.g. one chart of an experiment that nb.Experiment ran earlier.
func ExperimentSections(db *store.DB, match ...string) {
	Sections(Must(experiments.Page(Ctx, db)), match...)
}

// Cluster loads a Kubernetes cluster as dataset name — the folder dir of
// kubectl's JSON (or manifests), or, when dir is "", a generated cluster
// written as kubectl prints it (k8sgen's demo size; smaller under
// PLACELAB_NB_SMALL) — shows the ingest report and returns the observed
// run's id.
func Cluster(db *store.DB, name, dir string) int64 {
	if dir == "" {
		o := k8sgen.DefaultOptions()
		if Small() {
			o.Nodes, o.Pods = 30, 200
		}
		nodes, pods, err := k8sgen.Generate(o)
		Check(err)
		dir = filepath.Join(os.TempDir(), "placelab-nb-"+name)
		Check(k8sgen.WriteDir(dir, nodes, pods))
	}
	c := Must(datasets.Ingest(Ctx, db, "k8s", []string{dir}, datasets.Options{Dataset: name, Version: "notebook"}))
	if r, ok := c.Report.(datasets.K8sReport); ok {
		Table("What was read", &store.Result{Columns: []string{"nodes", "not ready", "cordoned", "SKUs", "running", "pending",
			"bound", "pinned", "succeeded (left out)", "failed (left out)", "observed run"},
			Rows: [][]any{{r.Nodes, r.NodesNotReady, r.NodesUnschedulable, r.SKUs, r.PodsRunning, r.PodsPending, r.PodsBound,
				r.PodsPinned, r.PodsSucceeded, r.PodsFailed, c.ObservedRun}}})
		Rows("Warnings (placement constraints not honoured are listed, never dropped)", r.Warnings)
	}
	return c.ObservedRun
}

// ClusterCompare shows the observed run and the replays of its pods with
// their intervals, as a table and a chart in one unit: nodes.
func ClusterCompare(rep *cluster.CompareReport) {
	r := rowsResult(rep.Rows)
	bar := charts.NewBar()
	var names []string
	var use, lb, ub []opts.BarData
	for _, x := range rep.Rows {
		names = append(names, fmt.Sprintf("%s (run %d)", x.Policy, x.Run))
		use = append(use, opts.BarData{Value: x.NodesInUse})
		lb = append(lb, opts.BarData{Value: x.LBNodes})
		ub = append(ub, opts.BarData{Value: x.UBNodes})
	}
	bar.SetGlobalOptions(charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Name: report.AxisName("nodes", "nodes")}), charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20}}))
	bar.SetXAxis(names).AddSeries("nodes in use", use).AddSeries("LB: fewest nodes possible", lb).AddSeries("UB: a placement exists", ub)
	Chart("Nodes in use against the interval, every run at the same instant", bar, r)
}

// LifetimeShares shows a lifetime comparison (analysis.LifetimeCompare):
// per arm the medians over the seeds, and a chart in one unit — the share
// of its own oracle's gain in empty machines each arm captures.
func LifetimeShares(cmp *lifetime.Comparison) {
	r := &store.Result{Columns: []string{"arm", "empty_machines", "gain_vs_off", "oracle_gain_share", "best_oracle_gain_share",
		"packing_density_pct", "stranded_cores_pct", "stranded_memory_pct", "rejected", "seeds"}}
	bar := charts.NewBar()
	var names []string
	var share []opts.BarData
	nan := func(v float64) any {
		if v != v {
			return nil
		}
		return round(v)
	}
	for _, a := range cmp.Arms {
		r.Rows = append(r.Rows, []any{a.Arm, nan(a.EmptyMachines.Median), nan(a.GainVsOff.Median), nan(a.OracleGainShare.Median),
			nan(a.BestOracleGainShare.Median), nan(a.PackingPct.Median), nan(a.StrandedCores.Median), nan(a.StrandedMem.Median),
			nan(a.Rejected.Median), int64(len(cmp.Seeds))})
		names = append(names, a.Arm)
		share = append(share, opts.BarData{Value: nan(a.OracleGainShare.Median)})
	}
	bar.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: report.AxisName("oracle gain", "share of the oracle's gain")}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20}}))
	bar.SetXAxis(names).AddSeries("oracle_gain_share (median over seeds)", share)
	sample := "out of sample"
	if cmp.InSample {
		sample = "IN SAMPLE"
	}
	Chart(fmt.Sprintf("%s from %.0f s (%s): the share of the oracle's gain in empty machines per arm", cmp.Dataset, cmp.From, sample), bar, r)
}

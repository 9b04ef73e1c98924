package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"placelab/analysis"
	"placelab/analysis/characterize"
	"placelab/analysis/timing"
	"strconv"
	"strings"
	"time"

	"placelab/datasets/synth"
	store "placelab/sql"
)

// BenchViewsOptions configures placelab bench views.
type BenchViewsOptions struct {
	Sizes  []int  // VMs per generated trace, one trace per size
	Reps   int    // repetitions of every timed step (≥ 1)
	Seed   uint64 // generator seed
	Dir    string // work folder for the databases and CSVs ("": a temporary one, removed)
	Pandas string // "auto" (when python has pandas), "off", "require"
	Python string // the interpreter that runs bench/pandas_views.py
	// Progress, if set, is told each step as it starts.
	Progress func(step string)
}

// MachinesPerVM is the zone size bench views generates per VM: the issue's
// 100,000 machines for 10M VMs.
const MachinesPerVM = 0.01

// DefaultBenchViewsOptions are bench views' defaults: 1M and 10M VMs, 3 reps.
func DefaultBenchViewsOptions() BenchViewsOptions {
	return BenchViewsOptions{Sizes: []int{1_000_000, 10_000_000}, Reps: 3, Seed: synth.DefaultConfig().Seed,
		Pandas: "auto", Python: "python3"}
}

// Validate refuses options out of range.
func (o BenchViewsOptions) Validate() error {
	if len(o.Sizes) == 0 {
		return fmt.Errorf("bench views: no sizes")
	}
	for _, n := range o.Sizes {
		if n < 1000 {
			return fmt.Errorf("bench views: size %d VMs: at least 1000", n)
		}
	}
	if o.Reps < 1 {
		return fmt.Errorf("bench views: reps %d: at least 1", o.Reps)
	}
	switch o.Pandas {
	case "auto", "off", "require":
	default:
		return fmt.Errorf("bench views: pandas %q: one of auto, off, require", o.Pandas)
	}
	if o.Pandas != "off" && o.Python == "" {
		return fmt.Errorf("bench views: no python interpreter given")
	}
	return nil
}

// BenchViews is the result of placelab bench views.
type BenchViews struct {
	Reps   int    `json:"reps"`
	Seed   uint64 `json:"seed"`
	DuckDB string `json:"duckdb"`
	// Pandas is the Python side, nil when it did not run (PandasSkipped
	// says why).
	Pandas        *PandasInfo      `json:"pandas"`
	PandasSkipped string           `json:"pandas_skipped,omitempty"`
	Sizes         []BenchViewsSize `json:"sizes"`
	Seconds       float64          `json:"seconds"`
}

// PandasInfo names the versions the comparison ran on.
type PandasInfo struct {
	Interpreter string `json:"interpreter"`
	Python      string `json:"python"`
	Version     string `json:"pandas"`
	NumPy       string `json:"numpy"`
}

// BenchViewsSize is one generated trace's figures.
type BenchViewsSize struct {
	VMs      int `json:"vms"`
	Machines int `json:"machines"`
	// GenerateSeconds: placelab generate's work (generation and load into a
	// new database file, closed), timed once.
	GenerateSeconds float64 `json:"generate_seconds"`
	// CharacterizeSeconds: placelab characterize's page over every view, on
	// a freshly opened database, per rep.
	CharacterizeSeconds timing.Spread `json:"characterize_seconds"`
	// ViewsSeconds: the sum of the views' medians, each run alone.
	ViewsSeconds float64     `json:"views_seconds"`
	SlowestView  string      `json:"slowest_view"`
	Views        []BenchView `json:"views"`
	CSVSeconds   float64     `json:"csv_export_seconds,omitempty"` // untimed in every ratio
}

// BenchView is one view's figures at one size.
type BenchView struct {
	View string `json:"view"`
	// Seconds: open the database read-only, run the view, read every row,
	// close; per rep.
	Seconds timing.Spread `json:"seconds"`
	Rows    int           `json:"rows"`
	// Pandas: the same view in pandas, when it has an equivalent and ran.
	Pandas *PandasView `json:"pandas,omitempty"`
	// PandasNumPy: for interarrival, the figures by a sort and numpy's diff
	// rather than the notebook's groupby idiom, timed beside it.
	PandasNumPy *PandasView `json:"pandas_numpy,omitempty"`
}

// PandasView is a view's pandas figures and the ratios against placelab's
// median, from the same run.
type PandasView struct {
	ReadSeconds        timing.Spread `json:"read_seconds"`
	ComputeSeconds     timing.Spread `json:"compute_seconds"`
	ReadComputeSeconds timing.Spread `json:"read_compute_seconds"`
	ReadComputeRatio   float64       `json:"read_compute_ratio"` // pandas read+compute median / placelab median
	ComputeRatio       float64       `json:"compute_ratio"`      // pandas compute median / placelab median
	// Agree: every number of the view equals pandas' within the view's
	// rounding (the Weibull fit within 2% when both fit a sample).
	Agree    bool   `json:"agree"`
	Mismatch string `json:"mismatch,omitempty"`
}

// pandasViews are the views pandas_views.py computes, with how their
// numbers are compared: key columns, and per compared column its decimals
// in the view (-1: an exact integer).
var pandasViews = map[string]struct {
	key  []string
	cols map[string]int
}{
	"vm_type_share":        {[]string{"vm_type"}, map[string]int{"vms": -1, "pct": 2}},
	"lifetime_cdf":         {[]string{"label"}, map[string]int{"cdf_pct": 3, "completed_vms": -1, "censored_vms": -1}},
	"tenant_size":          {[]string{"size"}, map[string]int{"requests": -1, "pct": 3, "cdf_pct": 3}},
	"deployment_size":      {[]string{"max_size"}, map[string]int{"subscription_days": -1, "pct": 3, "cdf_pct": 3}},
	"vm_size_distribution": {[]string{"metric", "value"}, map[string]int{"vms": -1, "pct": 3, "cdf_pct": 3}},
	"interarrival": {nil, map[string]int{"gaps": -1, "zero_gaps": -1, "mean_gap_s": 3, "median_gap_s": 3,
		"weibull_shape": 4, "weibull_scale_s": 4, "fit_gaps": -2}},
}

// RunBenchViews generates a trace per size and times every
// characterization view on it, then (pandas permitting) the pandas
// equivalents on the same VMs exported to CSV, checking that both give the
// same numbers.
func RunBenchViews(ctx context.Context, o BenchViewsOptions) (*BenchViews, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	step := func(f string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(f, a...))
		}
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "placelab-bench-views-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &BenchViews{Reps: o.Reps, Seed: o.Seed, DuckDB: store.DuckDBVersion}
	script := ""
	if o.Pandas != "off" {
		info, why := pandasAvailable(ctx, o.Python)
		if info == nil && o.Pandas == "require" {
			return nil, fmt.Errorf("bench views: pandas required: %s", why)
		}
		r.Pandas, r.PandasSkipped = info, why
		if info != nil {
			script = filepath.Join(dir, "pandas_views.py")
			if err := os.WriteFile(script, PandasViews, 0o644); err != nil {
				return nil, err
			}
		}
	} else {
		r.PandasSkipped = "--pandas off"
	}
	views := characterize.ViewNames()
	for _, n := range o.Sizes {
		sz := BenchViewsSize{VMs: n, Machines: max(50, int(float64(n)*MachinesPerVM))}
		path := filepath.Join(dir, fmt.Sprintf("views-%d.duckdb", n))
		os.Remove(path)
		os.Remove(path + ".wal")
		step("%d VMs: generating", n)
		cfg := synth.DefaultConfig()
		cfg.VMs, cfg.Machines, cfg.SeriesVMs, cfg.Seed = n, sz.Machines, 0, o.Seed
		t0 := time.Now()
		if err := generateInto(ctx, path, cfg); err != nil {
			return nil, err
		}
		sz.GenerateSeconds = time.Since(t0).Seconds()
		times := make([][]float64, len(views))
		var chars []float64
		for rep := 0; rep < o.Reps; rep++ {
			for i, v := range views {
				step("%d VMs: rep %d/%d: view %s", n, rep+1, o.Reps, v)
				secs, rows, err := timeView(ctx, path, v)
				if err != nil {
					return nil, err
				}
				times[i] = append(times[i], secs)
				if rep == 0 {
					sz.Views = append(sz.Views, BenchView{View: v, Rows: rows})
				}
			}
			step("%d VMs: rep %d/%d: characterize", n, rep+1, o.Reps)
			secs, err := timeCharacterize(ctx, path)
			if err != nil {
				return nil, err
			}
			chars = append(chars, secs)
		}
		sz.CharacterizeSeconds = analysis.RangeOf(chars)
		slowest := -1.0
		for i := range sz.Views {
			sz.Views[i].Seconds = analysis.RangeOf(times[i])
			sz.ViewsSeconds += sz.Views[i].Seconds.Median
			if sz.Views[i].Seconds.Median > slowest {
				slowest, sz.SlowestView = sz.Views[i].Seconds.Median, sz.Views[i].View
			}
		}
		if script != "" {
			if err := benchPandas(ctx, o, r.Pandas.Interpreter, script, path, dir, &sz, step); err != nil {
				return nil, err
			}
		}
		r.Sizes = append(r.Sizes, sz)
		os.Remove(path)
		os.Remove(path + ".wal")
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// generateInto is placelab generate's work: open (create) the database,
// generate and load the trace in one ingest, close.
func generateInto(ctx context.Context, path string, cfg synth.Config) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	if err := synth.Ingest(ctx, db, "bench", "placelab bench views", cfg); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

func timeView(ctx context.Context, path, view string) (float64, int, error) {
	t0 := time.Now()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	res, err := db.QueryView(ctx, view, "")
	db.Close()
	if err != nil {
		return 0, 0, fmt.Errorf("bench views: view %s: %w", view, err)
	}
	return time.Since(t0).Seconds(), len(res.Rows), nil
}

func timeCharacterize(ctx context.Context, path string) (float64, error) {
	t0 := time.Now()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return 0, err
	}
	_, _, err = characterize.Run(ctx, db, "", nil)
	db.Close()
	if err != nil {
		return 0, err
	}
	return time.Since(t0).Seconds(), nil
}

// pandasAvailable asks python for its pandas; nil and the reason when
// there is none. The default "python3" falls back on Debian's
// /usr/bin/python3 (where python3-pandas installs) when the python3 first
// on the PATH (a pyenv or venv, say) has no pandas.
func pandasAvailable(ctx context.Context, python string) (*PandasInfo, string) {
	tries := []string{python}
	if python == "python3" {
		tries = append(tries, "/usr/bin/python3")
	}
	var why []string
	for _, py := range tries {
		out, err := exec.CommandContext(ctx, py, "-c",
			"import json, platform, numpy, pandas; print(json.dumps({'python': platform.python_version(), 'pandas': pandas.__version__, 'numpy': numpy.__version__}))").Output()
		if err != nil {
			why = append(why, fmt.Sprintf("%s cannot import pandas (%v)", py, err))
			continue
		}
		info := PandasInfo{Interpreter: py}
		if err := json.Unmarshal(out, &info); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", py, err))
			continue
		}
		return &info, ""
	}
	return nil, strings.Join(why, "; ") + ": install Debian's python3-pandas"
}

// pandasOut is pandas_views.py's JSON.
type pandasOut struct {
	Rows  int `json:"rows"`
	Views map[string]struct {
		Read    []float64 `json:"read_s"`
		Compute []float64 `json:"compute_s"`
		Result  []struct {
			Key    string              `json:"key"`
			Values map[string]*float64 `json:"values"`
		} `json:"result"`
	} `json:"views"`
}

func benchPandas(ctx context.Context, o BenchViewsOptions, python, script, path, dir string, sz *BenchViewsSize, step func(string, ...any)) error {
	csv := filepath.Join(dir, fmt.Sprintf("views-%d.csv", sz.VMs))
	step("%d VMs: exporting the VMs to CSV for pandas (untimed)", sz.VMs)
	t0 := time.Now()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return err
	}
	_, err = db.SQL().ExecContext(ctx, "COPY ("+store.MustQuery("bench_views_csv")+") TO "+store.QuoteString(csv)+" (HEADER)")
	if err != nil {
		db.Close()
		return fmt.Errorf("bench views: CSV export: %w", err)
	}
	results := map[string]*store.Result{}
	for v := range pandasViews {
		if results[v], err = db.QueryView(ctx, v, ""); err != nil {
			db.Close()
			return err
		}
	}
	db.Close()
	defer os.Remove(csv)
	sz.CSVSeconds = time.Since(t0).Seconds()
	step("%d VMs: pandas (%d reps of every view: read, then compute)", sz.VMs, o.Reps)
	out := filepath.Join(dir, fmt.Sprintf("pandas-%d.json", sz.VMs))
	cmd := exec.CommandContext(ctx, python, script, "--csv", csv, "--reps", strconv.Itoa(o.Reps), "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bench views: %s %s: %w\n%s", python, filepath.Base(script), err, lastLines(stderr.String(), 10))
	}
	defer os.Remove(out)
	b, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	var p pandasOut
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("bench views: pandas output: %w", err)
	}
	if p.Rows != sz.VMs {
		return fmt.Errorf("bench views: pandas read %d rows, the trace has %d VMs", p.Rows, sz.VMs)
	}
	for i := range sz.Views {
		v := &sz.Views[i]
		var err error
		if v.Pandas, err = pandasFigure(p, v.View, v, results[v.View], o.Reps); err != nil {
			return err
		}
		if v.PandasNumPy, err = pandasFigure(p, v.View+"@numpy", v, results[v.View], o.Reps); err != nil {
			return err
		}
	}
	return nil
}

// pandasFigure is the figure of pandas' entry name for view v; nil when
// the script has no such entry.
func pandasFigure(p pandasOut, name string, v *BenchView, res *store.Result, reps int) (*PandasView, error) {
	pv, ok := p.Views[name]
	if !ok {
		return nil, nil
	}
	if len(pv.Read) != reps || len(pv.Compute) != reps {
		return nil, fmt.Errorf("bench views: pandas %s: %d reps, want %d", name, len(pv.Read), reps)
	}
	both := make([]float64, reps)
	for k := range both {
		both[k] = pv.Read[k] + pv.Compute[k]
	}
	fig := &PandasView{ReadSeconds: analysis.RangeOf(pv.Read), ComputeSeconds: analysis.RangeOf(pv.Compute), ReadComputeSeconds: analysis.RangeOf(both)}
	fig.ReadComputeRatio = fig.ReadComputeSeconds.Median / v.Seconds.Median
	fig.ComputeRatio = fig.ComputeSeconds.Median / v.Seconds.Median
	rows := map[string]map[string]*float64{}
	for _, row := range pv.Result {
		rows[row.Key] = row.Values
	}
	fig.Mismatch = comparePandas(v.View, res, rows)
	fig.Agree = fig.Mismatch == ""
	return fig, nil
}

// comparePandas checks a view's result against pandas' rows: the same keys
// and, per column, the same number within half the view's rounding unit
// (exact for counts). The Weibull fit is compared within 2% when the fit
// used a sample: placelab samples gaps by a hash of the arrival time,
// pandas every k-th gap, so the two samples differ. "" when they agree.
func comparePandas(view string, res *store.Result, pandas map[string]map[string]*float64) string {
	spec := pandasViews[view]
	idx := map[string]int{}
	for i, c := range res.Columns {
		idx[c] = i
	}
	var bad []string
	seen := 0
	for _, row := range res.Rows {
		key := "all"
		if spec.key != nil {
			var parts []string
			for _, k := range spec.key {
				x := row[idx[k]]
				if f, ok := analysis.AsFloat(x); ok && k == "value" {
					parts = append(parts, strconv.FormatFloat(f, 'f', -1, 64))
					if !strings.Contains(parts[len(parts)-1], ".") {
						parts[len(parts)-1] += ".0"
					}
					continue
				}
				parts = append(parts, fmt.Sprint(x))
			}
			key = strings.Join(parts, "|")
		}
		want, ok := pandas[key]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: row %s missing in pandas", view, key))
			continue
		}
		seen++
		sampled := false
		if s := want["fit_stride"]; s != nil && *s > 1 {
			sampled = true
		}
		for col, dec := range spec.cols {
			got, gok := analysis.AsFloat(row[idx[col]])
			w := want[col]
			if w == nil || !gok {
				if (w == nil) != !gok {
					bad = append(bad, fmt.Sprintf("%s %s %s: placelab %v, pandas %v", view, key, col, row[idx[col]], w))
				}
				continue
			}
			var tol float64
			switch {
			case dec == -2: // the fit's sample size: only equal without a sample
				if sampled {
					continue
				}
			case dec >= 0:
				tol = 0.5*math.Pow(10, -float64(dec)) + 1e-9*math.Abs(*w)
			}
			if sampled && (col == "weibull_shape" || col == "weibull_scale_s") {
				tol = 0.02 * math.Abs(*w)
			}
			if math.Abs(got-*w) > tol {
				bad = append(bad, fmt.Sprintf("%s %s %s: placelab %g, pandas %g", view, key, col, got, *w))
			}
		}
	}
	if seen != len(pandas) {
		bad = append(bad, fmt.Sprintf("%s: pandas has %d rows, placelab %d", view, len(pandas), len(res.Rows)))
	}
	if len(bad) > 3 {
		bad = append(bad[:3], fmt.Sprintf("and %d more", len(bad)-3))
	}
	return strings.Join(bad, "; ")
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// Disagreements lists the views whose numbers differ from pandas', as
// "size: view: why"; empty when all agree (or pandas did not run).
func (b *BenchViews) Disagreements() []string {
	var out []string
	for _, s := range b.Sizes {
		for _, v := range s.Views {
			for _, p := range []*PandasView{v.Pandas, v.PandasNumPy} {
				if p != nil && !p.Agree {
					out = append(out, fmt.Sprintf("%d VMs: %s", s.VMs, p.Mismatch))
				}
			}
		}
	}
	return out
}

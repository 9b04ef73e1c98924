// Package experiments runs the named, seeded grids that reproduce the
// seeds' headline figures on placelab's data, stores every grid point as a
// run (engine "experiment", policy = the experiment's name, the point's
// parameters as JSON, its figures in run_metric) and splits grids into
// shards that any batch system can run and `placelab merge` can join.
package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"placelab/analysis/replay"
	"strings"
	"time"

	"placelab/analysis"
	store "placelab/sql"
)

// Point is one cell of a grid: its parameters and seed.
type Point struct {
	Index  int            `json:"point"`
	Params map[string]any `json:"params"`
	Seed   uint64         `json:"seed"`
}

// Experiment is a named grid and how to run one of its points.
type Experiment struct {
	Name  string
	Title string
	// Reproduces names the paper's figure or table.
	Reproduces string
	// FullTime is the expected time of the full grid on a 2-core machine.
	FullTime string
	// Points lists the grid (a reduced one when quick).
	Points func(quick bool) []Point
	// Run computes one point's figures. db is the user's database (some
	// experiments read loaded datasets); scratch work goes elsewhere.
	Run func(ctx context.Context, db *store.DB, p Point, quick bool) ([]replay.MetricRow, error)
	// Timings names the figures that are wall-clock measurements (latency,
	// throughput in real time, memory): they differ from run to run, and
	// under placelab experiment --jobs the points of an experiment that has
	// any run alone on the machine, so no other point shares its cores.
	Timings []string
	// Paper holds the published numbers the report sets beside ours: only
	// numbers the paper prints, for figures ours computes as the paper
	// defines them (shares, rates, ratios; never an absolute count from the
	// paper's scale). TestPaperValuesQuoteTheSeeds checks each against the
	// paper's text.
	Paper []PaperValue
}

// PaperValue is one published number and where the paper prints it.
//
// It is set beside one of our figures: Figure at the grid point Point
// ("buckets=1", the point's parameters as the experiments page prints
// them); with Versus, the ratio Figure at Point ÷ Figure at Versus (a paper's
// "N× as many"); with neither, the mean of Figure over every point of one
// grid (a paper's average over its experiments).
type PaperValue struct {
	Figure string  `json:"figure"`
	Point  string  `json:"point,omitempty"`
	Versus string  `json:"versus,omitempty"`
	Value  float64 `json:"value"`
	// Source names the paper and its section, table or figure.
	Source string `json:"source"`
	// Scale is the paper's setting for the number (cluster, trace, length).
	Scale string `json:"scale"`
	// Quote is the paper's text (or table row) that prints Value, verbatim
	// up to whitespace.
	Quote string `json:"quote"`
}

// Grid names the grid a point was run on: the reduced one (--quick) or the
// full one. It is stored with every run (params key "grid", column grid of
// view experiment_results) so that a quick and a full result are never
// taken for one another.
type Grid string

// The grids.
const (
	GridQuick Grid = "quick"
	GridFull  Grid = "full"
)

// GridOf returns the grid run with Options.Quick = quick.
func GridOf(quick bool) Grid {
	if quick {
		return GridQuick
	}
	return GridFull
}

// Keys of a run's params that experiments.Run sets itself; a point's own
// parameters may not use them.
const (
	paramPoint = "point"
	paramGrid  = "grid"
)

// ErrUnknown is returned for an experiment name that does not exist.
var ErrUnknown = errors.New("experiments: unknown experiment")

var registry []*Experiment

func register(e *Experiment) { registry = append(registry, e) }

// All returns every experiment in a fixed order.
func All() []*Experiment { return registry }

// Names lists the experiments.
func Names() []string {
	var n []string
	for _, e := range registry {
		n = append(n, e.Name)
	}
	return n
}

// Lookup finds an experiment by name.
func Lookup(name string) (*Experiment, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%w %q (have: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Options select the part of a grid to run.
type Options struct {
	Quick bool
	// Shard and Shards: run the points whose index ≡ Shard (mod Shards);
	// Shards 0 or 1 runs all.
	Shard, Shards int
	// Points, when set, runs exactly these point indices (in this order)
	// instead of a shard: the points --jobs hands to a worker.
	Points []int
	// Out is where the runs are written (nil: the database the experiment
	// reads). A shard reads the user's database read-only and writes to a
	// scratch one, which it exports to Parquet.
	Out *store.DB
	// Placements, when set, is a folder that receives the placements of
	// the replays inside each point (those an experiment stores, see
	// storedReplay) as NAME-point-P.parquet, with the point's parameters on
	// every row.
	Placements string
	// Version is recorded with each run.
	Version  string
	Progress func(done, total int64)
}

// Timed reports whether the experiment measures wall-clock figures.
func (e *Experiment) Timed() bool { return len(e.Timings) > 0 }

// IsTiming reports whether metric is one of e's wall-clock figures.
func (e *Experiment) IsTiming(metric string) bool {
	for _, t := range e.Timings {
		if t == metric {
			return true
		}
	}
	return false
}

// Select returns the points of e's grid that o runs: o.Points when set
// (an error names an index outside the grid), else the shard's.
func (e *Experiment) Select(o Options) ([]Point, error) {
	all := e.Points(o.Quick)
	if o.Points != nil {
		var pts []Point
		for _, i := range o.Points {
			if i < 0 || i >= len(all) {
				return nil, fmt.Errorf("experiments: %s has no point %d (its %s grid has %d)", e.Name, i, GridOf(o.Quick), len(all))
			}
			pts = append(pts, all[i])
		}
		return pts, nil
	}
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return nil, fmt.Errorf("experiments: shard %d of %d: want 0 ≤ shard < shards", o.Shard, o.Shards)
	}
	var pts []Point
	for _, p := range all {
		if o.Shards <= 1 || p.Index%o.Shards == o.Shard {
			pts = append(pts, p)
		}
	}
	return pts, nil
}

// Outcome is what Run did.
type Outcome struct {
	Experiment string  `json:"experiment"`
	Grid       Grid    `json:"grid"`
	Points     int     `json:"points"`
	Runs       []int64 `json:"run_ids"`
	// Seconds is the time of the points: with Jobs > 1 their sum over the
	// workers, and WallSeconds the whole pool's wall clock.
	Seconds     float64 `json:"seconds"`
	Jobs        int     `json:"jobs"`
	WallSeconds float64 `json:"wall_seconds,omitempty"`
}

// Run runs an experiment's grid, or one shard of it, and stores each point
// as a run.
func Run(ctx context.Context, db *store.DB, e *Experiment, o Options) (*Outcome, error) {
	start := time.Now()
	pts, err := e.Select(o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Experiment: e.Name, Grid: GridOf(o.Quick), Points: len(pts)}
	for i, p := range pts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.Progress != nil {
			o.Progress(int64(i), int64(len(pts)))
		}
		t0 := time.Now()
		var replays []storedRun
		figs, err := e.Run(context.WithValue(ctx, replaysKey{}, &replays), db, p, o.Quick)
		if err != nil {
			return nil, fmt.Errorf("experiments: %s point %d %v: %w", e.Name, p.Index, p.Params, err)
		}
		if len(figs) == 0 {
			return nil, fmt.Errorf("experiments: %s point %d %v: no figures", e.Name, p.Index, p.Params)
		}
		params := map[string]any{paramPoint: p.Index, paramGrid: string(out.Grid)}
		for k, v := range p.Params {
			if _, ok := params[k]; ok {
				return nil, fmt.Errorf("experiments: %s point %d: parameter %q is reserved", e.Name, p.Index, k)
			}
			params[k] = v
		}
		w := o.Out
		if w == nil {
			w = db
		}
		id, err := analysis.WriteFigures(ctx, w, analysis.RunMeta{Engine: "experiment", Policy: e.Name, Version: o.Version,
			Seed: p.Seed, Params: params, Started: t0}, time.Since(t0).Seconds(), figs)
		if err != nil {
			return nil, err
		}
		out.Runs = append(out.Runs, id)
		if o.Placements != "" && len(replays) > 0 {
			if err := exportPlacements(ctx, e, p, params, o, replays); err != nil {
				return nil, err
			}
		}
	}
	if o.Progress != nil {
		o.Progress(int64(len(pts)), int64(len(pts)))
	}
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

// PlacementsDir is the subfolder of a shard folder that holds the
// placements of the replays inside grid points (placelab merge reads only
// the figures, DIR/*.parquet).
const PlacementsDir = "placements"

// storedRun is a replay a grid point stored in a scratch database.
type storedRun struct {
	db    *store.DB
	runID int64
}

type replaysKey struct{}

// storedReplay notes that the point running under ctx stored the
// placements of run runID in db, so that they can be exported with the
// point's figures.
func storedReplay(ctx context.Context, db *store.DB, runID int64) {
	if r, ok := ctx.Value(replaysKey{}).(*[]storedRun); ok {
		*r = append(*r, storedRun{db, runID})
	}
}

// exportPlacements writes the placements of a point's stored replays to
// o.Placements/NAME-point-P.parquet (one file per point; a point with
// several replays gets -2, -3, ...).
func exportPlacements(ctx context.Context, e *Experiment, p Point, params map[string]any, o Options, runs []storedRun) error {
	if err := os.MkdirAll(o.Placements, 0o755); err != nil {
		return err
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return err
	}
	for i, r := range runs {
		name := fmt.Sprintf("%s-point-%d.parquet", e.Name, p.Index)
		if i > 0 {
			name = fmt.Sprintf("%s-point-%d-%d.parquet", e.Name, p.Index, i+1)
		}
		file := filepath.Join(o.Placements, name)
		if _, err := r.db.SQL().ExecContext(ctx, store.MustQuery("experiment_placements"), r.runID, e.Name, p.Index, string(pj), p.Seed, o.Version); err != nil {
			return fmt.Errorf("experiments: placements of %s point %d: %w", e.Name, p.Index, err)
		}
		if err := copyParquet(ctx, r.db, "experiment_placements", file); err != nil {
			return err
		}
	}
	return nil
}

// grid builds points from named axes (the last axis varies fastest) and
// seeds: every combination of values for every seed.
func grid(axes []axis, seeds []uint64) []Point {
	var pts []Point
	var rec func(i int, cur map[string]any)
	rec = func(i int, cur map[string]any) {
		if i == len(axes) {
			for _, s := range seeds {
				m := make(map[string]any, len(cur))
				for k, v := range cur {
					m[k] = v
				}
				pts = append(pts, Point{Index: len(pts), Params: m, Seed: s})
			}
			return
		}
		for _, v := range axes[i].values {
			cur[axes[i].name] = v
			rec(i+1, cur)
		}
		delete(cur, axes[i].name)
	}
	rec(0, map[string]any{})
	return pts
}

type axis struct {
	name   string
	values []any
}

func vals[T any](xs ...T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// fig makes a figure row (t = 0).
func fig(name string, v float64) replay.MetricRow {
	return replay.MetricRow{T: 0, Metric: name, Value: v}
}

package predict

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"

	store "placelab/sql"
)

// ErrNoData says a dataset has no rows a step needs (no VMs, no VM with a
// known bucket of a metric in a window).
var ErrNoData = errors.New("predict: no data")

// idColumns are rc_features' leading columns that identify a row rather
// than describe it; every later column is a feature.
var idColumns = []string{"dataset", "vm_id", "start_s", "entity_kind", "entity"}

// Frame is a dataset's rc_features rows in vm_id order: the feature matrix
// (row-major float32, NaN for NULL, as XGBoost reads it) beside each VM's
// id, creation time and entity.
type Frame struct {
	Dataset    string
	EntityKind string // "subscription", or "tenant" when the trace has none
	Names      []string
	X          []float32
	VMs        []int64
	Start      []float64
	Entity     []string
}

// Rows is the number of VMs.
func (f *Frame) Rows() int { return len(f.VMs) }

// Cols is the number of features.
func (f *Frame) Cols() int { return len(f.Names) }

// Col is the index of a feature, -1 if absent.
func (f *Frame) Col(name string) int { return slices.Index(f.Names, name) }

// LoadFrame reads the rc_features view for one dataset.
func LoadFrame(ctx context.Context, db *store.DB, dataset string) (*Frame, error) {
	rows, err := db.SQL().QueryContext(ctx, "SELECT * FROM rc_features WHERE dataset = ?", dataset)
	if err != nil {
		return nil, fmt.Errorf("predict: features of %q: %w", dataset, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if len(cols) <= len(idColumns) || !slices.Equal(cols[:len(idColumns)], idColumns) {
		return nil, fmt.Errorf("predict: rc_features columns %v: want %v first", cols, idColumns)
	}
	f := &Frame{Dataset: dataset, Names: cols[len(idColumns):]}
	nf := len(f.Names)
	var ds, kind, entity string
	var vm int64
	var start float64
	vals := make([]sql.NullFloat64, nf)
	dest := []any{&ds, &vm, &start, &kind, &entity}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("predict: features of %q: %w", dataset, err)
		}
		f.EntityKind = kind
		f.VMs = append(f.VMs, vm)
		f.Start = append(f.Start, start)
		f.Entity = append(f.Entity, entity)
		for _, v := range vals {
			x := float32(math.NaN())
			if v.Valid {
				x = float32(v.Float64)
			}
			f.X = append(f.X, x)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("predict: features of %q: %w", dataset, err)
	}
	if len(f.VMs) == 0 {
		return nil, fmt.Errorf("%w: dataset %q has no VMs (placelab ingest first)", ErrNoData, dataset)
	}
	return f, nil
}

// Labels are each VM's bucket (1-based; 0 unknown) of every metric as
// known at one time, in the Frame's row order.
type Labels struct {
	At     float64
	Bucket map[Metric][]int8
	// CensoredAge is the observed age of a VM whose lifetime is not known
	// at At (NaN otherwise).
	CensoredAge []float64
}

// LoadLabels runs the rc_labels query for a dataset as known at time at
// (+Inf: everything the trace says). Rows follow vm_id order, as the Frame.
func LoadLabels(ctx context.Context, db *store.DB, dataset string, at float64, f *Frame) (*Labels, error) {
	rows, err := db.SQL().QueryContext(ctx, store.MustQuery("rc_labels"), dataset, at)
	if err != nil {
		return nil, fmt.Errorf("predict: labels of %q: %w", dataset, err)
	}
	defer rows.Close()
	l := &Labels{At: at, Bucket: map[Metric][]int8{}}
	order := []Metric{Lifetime, AvgCPU, P95CPU, DeployVMs, DeployCores, WorkloadClass}
	for _, m := range order {
		l.Bucket[m] = make([]int8, 0, f.Rows())
	}
	var vm int64
	b := make([]sql.NullInt64, len(order))
	var age sql.NullFloat64
	dest := []any{&vm}
	for i := range b {
		dest = append(dest, &b[i])
	}
	dest = append(dest, &age)
	i := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("predict: labels of %q: %w", dataset, err)
		}
		if i >= f.Rows() || f.VMs[i] != vm {
			return nil, fmt.Errorf("predict: labels of %q: row %d is vm %d, features have another order", dataset, i, vm)
		}
		for k, m := range order {
			l.Bucket[m] = append(l.Bucket[m], int8(b[k].Int64)) // NULL scans as 0: unknown
		}
		a := math.NaN()
		if age.Valid {
			a = age.Float64
		}
		l.CensoredAge = append(l.CensoredAge, a)
		i++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("predict: labels of %q: %w", dataset, err)
	}
	if i != f.Rows() {
		return nil, fmt.Errorf("predict: labels of %q: %d rows for %d VMs", dataset, i, f.Rows())
	}
	return l, nil
}

// Split is RC's time split: models learn from the VMs created in the first
// TrainShare of the trace's span of creation times, [From, Cut), and are
// tested on those created in [Cut, To].
type Split struct {
	From, Cut, To float64
}

// DefaultTrainShare is RC §6.1's split: two months of data to train, the
// third to test.
const DefaultTrainShare = 2.0 / 3

// TimeSplit cuts the frame's span of creation times at share of it. VMs
// created before the trace began (start < 0) are left out of both sides:
// only those that survived to the start of collection were recorded, so
// their lifetimes are left-truncated and biased long, and their creation
// time is not when the trace saw them.
//
// Only VMs created at or after from count (from ≤ 0: all): a trace whose
// first creations are outliers far before the rest can start the span
// where its creations do.
func TimeSplit(f *Frame, share, from float64) (Split, error) {
	if !(share > 0 && share < 1) {
		return Split{}, fmt.Errorf("predict: train share %v: want 0 < share < 1", share)
	}
	if math.IsNaN(from) || math.IsInf(from, 0) {
		return Split{}, fmt.Errorf("predict: from %v: want a finite time", from)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range f.Start {
		if s >= 0 && s >= from {
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	if math.IsInf(lo, 1) {
		return Split{}, fmt.Errorf("%w: dataset %q: no VM created at or after max(0, %v) s", ErrNoData, f.Dataset, from)
	}
	if !(hi > lo) {
		return Split{}, fmt.Errorf("%w: dataset %q: every VM is created at %v s, so there is no time to split into training and test VMs (RC trains on the first two thirds of a trace's span and tests on the rest)", ErrNoData, f.Dataset, lo)
	}
	return Split{From: lo, Cut: lo + share*(hi-lo), To: hi}, nil
}

// rowsIn lists the frame's rows created in [from, to) (to = +Inf includes
// the last creation); never one created before the trace began.
func (f *Frame) rowsIn(from, to float64) []int {
	var out []int
	for i, s := range f.Start {
		if s >= 0 && s >= from && s < to {
			out = append(out, i)
		}
	}
	return out
}

// featureCols lists the columns a model of metric m reads: every feature
// but those that restate the label (the trace's category is the workload
// class).
func (f *Frame) featureCols(m Metric) []int {
	var out []int
	for i, n := range f.Names {
		if m == WorkloadClass && n == "category_code" {
			continue
		}
		out = append(out, i)
	}
	return out
}

// matrix gathers rows × cols of the frame into a dense row-major matrix.
func (f *Frame) matrix(rows, cols []int) []float32 {
	nf := f.Cols()
	out := make([]float32, 0, len(rows)*len(cols))
	for _, r := range rows {
		base := r * nf
		for _, c := range cols {
			out = append(out, f.X[base+c])
		}
	}
	return out
}

// Package growlp is a linear program that grows: columns and rows are
// added to a loaded COIN-OR Clp model (its C interface, Debian's
// coinor-libclp-dev; pkg-config clp) and each solve starts from the basis
// the last one left.
//
// Column and row generation (the fleet's assignment relaxation, with
// tens of thousands of columns) re-solve one LP after each round of
// additions. github.com/lanl/clp has no call to add a column or a row to
// a loaded model, so every round there is a solve from the slack basis:
// on bench plan's relaxation the later rounds took 5–13 s each from
// scratch. Here an added column enters at its lower bound (the basis stays
// primal feasible: Primal re-solves), an added row with its slack basic
// (the basis stays dual feasible: Dual re-solves).
//
// An LP is not safe for concurrent use; Close frees it (a finalizer does
// too, for an LP dropped unclosed).
package growlp

/*
#cgo pkg-config: clp
#include <stdlib.h>
#include <coin/Clp_C_Interface.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"
)

// ErrInvalid refuses a malformed column or row; the message names it.
var ErrInvalid = errors.New("growlp: invalid input")

// Status of a solve, as Clp's status() reports it.
type Status int

const (
	Optimal          Status = 0
	PrimalInfeasible Status = 1
	DualInfeasible   Status = 2 // unbounded
	Stopped          Status = 3 // by the iteration or time limit
	Errors           Status = 4
	Event            Status = 5
)

var statusNames = map[Status]string{Optimal: "optimal", PrimalInfeasible: "primal infeasible",
	DualInfeasible: "dual infeasible", Stopped: "stopped on limits", Errors: "stopped on errors", Event: "stopped by an event"}

func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Column is a column to add: its bounds, objective coefficient and its
// nonzeros (Rows[i] holds Values[i]; each row at most once, every row
// already in the LP).
type Column struct {
	Lower, Upper, Obj float64
	Rows              []int
	Values            []float64
}

// Row is a row Lower ≤ Σ Values[i]·x_Cols[i] ≤ Upper to add over columns
// already in the LP.
type Row struct {
	Lower, Upper float64
	Cols         []int
	Values       []float64
}

// LP is a minimization LP held by Clp.
type LP struct {
	m          unsafe.Pointer
	rows, cols int
	solved     bool
}

// New is an LP with the given rows (lower[i] ≤ row i ≤ upper[i]; ±Inf for
// a free side) and no columns.
func New(lower, upper []float64) (*LP, error) {
	if len(lower) != len(upper) {
		return nil, fmt.Errorf("%w: %d lower and %d upper row bounds", ErrInvalid, len(lower), len(upper))
	}
	for i := range lower {
		if err := bounds(lower[i], upper[i]); err != nil {
			return nil, fmt.Errorf("%w: row %d: %v", ErrInvalid, i, err)
		}
	}
	l := &LP{m: C.Clp_newModel()}
	C.Clp_setLogLevel(l.m, 0)
	runtime.SetFinalizer(l, (*LP).Close)
	// A model with rows and no columns: loadProblem with an empty matrix.
	n := len(lower)
	start := []C.CoinBigIndex{0}
	rl, ru := cdoubles(lower), cdoubles(upper)
	C.Clp_loadProblem(l.m, 0, C.int(n), &start[0], nil, nil, nil, nil, nil, ptr(rl), ptr(ru))
	l.rows = n
	runtime.KeepAlive(start)
	return l, nil
}

// Close frees the model; the LP is unusable after it.
func (l *LP) Close() {
	if l.m != nil {
		C.Clp_deleteModel(l.m)
		l.m = nil
		runtime.SetFinalizer(l, nil)
	}
}

// Rows and Cols are the LP's dimensions.
func (l *LP) Rows() int { return l.rows }
func (l *LP) Cols() int { return l.cols }

func bounds(lo, up float64) error {
	switch {
	case math.IsNaN(lo) || math.IsNaN(up):
		return errors.New("NaN bound")
	case lo > up:
		return fmt.Errorf("lower bound %g above upper bound %g", lo, up)
	case math.IsInf(lo, 1) || math.IsInf(up, -1):
		return fmt.Errorf("bounds [%g, %g] hold nothing", lo, up)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// AddColumns appends columns; they enter at their lower bounds (nonbasic),
// so a basis that was primal feasible stays so.
func (l *LP) AddColumns(cs []Column) error {
	if len(cs) == 0 {
		return nil
	}
	nnz := 0
	for j, c := range cs {
		if err := bounds(c.Lower, c.Upper); err != nil {
			return fmt.Errorf("%w: column %d: %v", ErrInvalid, l.cols+j, err)
		}
		if !finite(c.Obj) {
			return fmt.Errorf("%w: column %d: objective %g", ErrInvalid, l.cols+j, c.Obj)
		}
		if len(c.Rows) != len(c.Values) {
			return fmt.Errorf("%w: column %d: %d rows and %d values", ErrInvalid, l.cols+j, len(c.Rows), len(c.Values))
		}
		if err := entries(c.Rows, c.Values, l.rows, "row"); err != nil {
			return fmt.Errorf("%w: column %d: %v", ErrInvalid, l.cols+j, err)
		}
		nnz += len(c.Rows)
	}
	lo, up, obj := make([]C.double, len(cs)), make([]C.double, len(cs)), make([]C.double, len(cs))
	start := make([]C.CoinBigIndex, len(cs)+1)
	idx, val := make([]C.int, max(nnz, 1)), make([]C.double, max(nnz, 1))
	e := 0
	for j, c := range cs {
		lo[j], up[j], obj[j] = cbound(c.Lower), cbound(c.Upper), C.double(c.Obj)
		for i, r := range c.Rows {
			idx[e], val[e] = C.int(r), C.double(c.Values[i])
			e++
		}
		start[j+1] = C.CoinBigIndex(e)
	}
	C.Clp_addColumns(l.m, C.int(len(cs)), &lo[0], &up[0], &obj[0], &start[0], &idx[0], &val[0])
	l.cols += len(cs)
	return nil
}

// AddRows appends rows over existing columns; each enters with its slack
// basic, so a basis that was dual feasible stays so.
func (l *LP) AddRows(rs []Row) error {
	if len(rs) == 0 {
		return nil
	}
	nnz := 0
	for i, r := range rs {
		if err := bounds(r.Lower, r.Upper); err != nil {
			return fmt.Errorf("%w: row %d: %v", ErrInvalid, l.rows+i, err)
		}
		if len(r.Cols) != len(r.Values) {
			return fmt.Errorf("%w: row %d: %d columns and %d values", ErrInvalid, l.rows+i, len(r.Cols), len(r.Values))
		}
		if err := entries(r.Cols, r.Values, l.cols, "column"); err != nil {
			return fmt.Errorf("%w: row %d: %v", ErrInvalid, l.rows+i, err)
		}
		nnz += len(r.Cols)
	}
	lo, up := make([]C.double, len(rs)), make([]C.double, len(rs))
	start := make([]C.CoinBigIndex, len(rs)+1)
	idx, val := make([]C.int, max(nnz, 1)), make([]C.double, max(nnz, 1))
	e := 0
	for i, r := range rs {
		lo[i], up[i] = cbound(r.Lower), cbound(r.Upper)
		for k, c := range r.Cols {
			idx[e], val[e] = C.int(c), C.double(r.Values[k])
			e++
		}
		start[i+1] = C.CoinBigIndex(e)
	}
	C.Clp_addRows(l.m, C.int(len(rs)), &lo[0], &up[0], &start[0], &idx[0], &val[0])
	l.rows += len(rs)
	return nil
}

// entries checks the indices (in [0, n), none twice) and values (finite).
func entries(at []int, vals []float64, n int, what string) error {
	seen := make(map[int]bool, len(at))
	for i, r := range at {
		if r < 0 || r >= n {
			return fmt.Errorf("%s %d out of range [0, %d)", what, r, n)
		}
		if seen[r] {
			return fmt.Errorf("%s %d twice", what, r)
		}
		seen[r] = true
		if !finite(vals[i]) {
			return fmt.Errorf("%s %d: value %g", what, r, vals[i])
		}
	}
	return nil
}

// SetMaxSeconds bounds each following solve's time (≤ 0: no limit).
func (l *LP) SetMaxSeconds(s float64) {
	if s <= 0 {
		s = -1
	}
	C.Clp_setMaximumSeconds(l.m, C.double(s))
}

// Primal re-solves with the primal simplex from the last basis (the slack
// basis on the first solve): after columns were added.
func (l *LP) Primal() Status {
	C.Clp_primal(l.m, 0)
	l.solved = true
	return Status(C.Clp_status(l.m))
}

// Dual re-solves with the dual simplex from the last basis: after rows
// were added, or for the first solve.
func (l *LP) Dual() Status {
	C.Clp_dual(l.m, 0)
	l.solved = true
	return Status(C.Clp_status(l.m))
}

// Objective is the last solve's objective value.
func (l *LP) Objective() float64 { return float64(C.Clp_objectiveValue(l.m)) }

// Iterations is the last solve's simplex iterations.
func (l *LP) Iterations() int { return int(C.Clp_numberIterations(l.m)) }

// ColumnSolution is a copy of the last solve's column values.
func (l *LP) ColumnSolution() []float64 {
	return copied(C.Clp_getColSolution(l.m), l.cols)
}

// RowDuals is a copy of the last solve's row duals (∂objective/∂row
// bound: ≥ 0 on a binding ≥ row of a minimization).
func (l *LP) RowDuals() []float64 {
	return copied(C.Clp_getRowPrice(l.m), l.rows)
}

// ReducedCosts is a copy of the last solve's column reduced costs.
func (l *LP) ReducedCosts() []float64 {
	return copied(C.Clp_getReducedCost(l.m), l.cols)
}

func copied(p *C.double, n int) []float64 {
	if n == 0 || p == nil {
		return []float64{}
	}
	s := unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
	return slices.Clone(s)
}

// Clp reads bounds beyond 1e30 as infinite.
func cbound(v float64) C.double {
	switch {
	case math.IsInf(v, 1):
		return C.double(math.MaxFloat64)
	case math.IsInf(v, -1):
		return C.double(-math.MaxFloat64)
	}
	return C.double(v)
}

func cdoubles(v []float64) []C.double {
	out := make([]C.double, len(v))
	for i, x := range v {
		out[i] = cbound(x)
	}
	return out
}

func ptr(v []C.double) *C.double {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

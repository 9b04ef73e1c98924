package cbc

/*
#cgo pkg-config: cbc
#include <stdlib.h>
#include <coin/Cbc_C_Interface.h>
#include "stop.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

// Sentinel errors. Errors from Solve wrap one of them or the context's
// error.
var (
	// ErrInvalid: the problem or the options are malformed; the message
	// names the column, row or field.
	ErrInvalid = errors.New("cbc: invalid problem")
	// ErrSolver: CBC gave up (numerical difficulties) or returned a
	// status this binding does not know.
	ErrSolver = errors.New("cbc: solver failed")
)

// MaxFinite is the largest magnitude a finite bound or coefficient may
// have. CBC (through Clp) silently treats bounds beyond 1e27 as infinite,
// so a finite value that large would change meaning; pass ±Inf instead.
const MaxFinite = 1e20

// Nonzero is one entry of a column of the constraint matrix: the
// coefficient Value in row Row.
type Nonzero struct {
	Row   int
	Value float64
}

// Problem is the mixed-integer program
//
//	min  Σ_j Obj[j] x_j
//	s.t. RowLower[r] ≤ Σ_j A[r][j] x_j ≤ RowUpper[r]   every row r
//	     ColLower[j] ≤ x_j ≤ ColUpper[j]               every column j
//	     x_j integer                                   where Integer[j]
//
// with the matrix A given by columns (Cols[j] lists the nonzeros of
// column j, each row at most once). Obj, ColLower, ColUpper, Integer and
// Cols have one entry per column; RowLower and RowUpper one per row. Bounds
// may be infinite (ColLower -Inf, ColUpper +Inf, a row bound ±Inf for a
// one-sided or free row); everything else must be finite.
type Problem struct {
	Obj, ColLower, ColUpper []float64
	Integer                 []bool
	RowLower, RowUpper      []float64
	Cols                    [][]Nonzero
}

// NumCols is the number of columns (variables).
func (p *Problem) NumCols() int { return len(p.Obj) }

// NumRows is the number of rows (constraints).
func (p *Problem) NumRows() int { return len(p.RowLower) }

// Options limit a solve. The zero value solves to proven optimality with
// no limit.
type Options struct {
	// TimeLimit is the wall-clock time CBC may spend; 0 means none. A
	// solve stopped by it is not reproducible (how far CBC got depends
	// on the machine's load).
	TimeLimit time.Duration
	// RelGap stops the search once (incumbent − bound)/|incumbent| ≤
	// RelGap (CBC's ratioGap); 0 proves optimality. A solve it stops
	// reports Feasible.
	RelGap float64
	// Start is an optional MIP start: a value per column, which CBC
	// checks and takes as its first incumbent if feasible (and ignores
	// otherwise). Integer columns must hold integers.
	Start []float64
	// MaxNodes stops the search after that many branch-and-bound nodes;
	// 0 means no limit. CBC checks it between the nodes of its main loop;
	// past about 500 nodes CBC 2.10 explores subtrees in Clp's own fast
	// branch and bound, thousands of nodes per main-loop node, so the
	// count can then overshoot the limit a hundredfold (a limit of 1000
	// stopped after 154,544 nodes). Below 500 it is exact. TimeLimit is
	// the firm limit.
	MaxNodes int
}

// Status is how a solve ended.
type Status int

const (
	// Optimal: X is an optimal solution, proven.
	Optimal Status = iota + 1
	// Feasible: a limit (TimeLimit, MaxNodes, RelGap) stopped the search
	// with a feasible X that is not proven optimal.
	Feasible
	// Infeasible: no solution exists, proven.
	Infeasible
	// NoSolution: a limit stopped the search before any feasible solution
	// was found; feasibility is unknown.
	NoSolution
	// Unbounded: the objective has no lower bound (CBC's continuous
	// relaxation is unbounded; the integer program is then unbounded or
	// infeasible).
	Unbounded
)

var statusNames = [...]string{
	Optimal:    "optimal",
	Feasible:   "feasible",
	Infeasible: "infeasible",
	NoSolution: "no_solution",
	Unbounded:  "unbounded",
}

// String is the status's name: optimal, feasible, infeasible, no_solution
// or unbounded.
func (s Status) String() string {
	if s >= Optimal && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the status's name; an unknown status is an error.
func (s Status) MarshalText() ([]byte, error) {
	if s < Optimal || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("cbc: unknown status %d", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	for v := Optimal; int(v) < len(statusNames); v++ {
		if statusNames[v] == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("cbc: unknown status %q", b)
}

// HasSolution reports whether the status comes with a solution X.
func (s Status) HasSolution() bool { return s == Optimal || s == Feasible }

// Result is the outcome of a solve.
type Result struct {
	Status Status
	// Objective is Obj·X; +Inf when there is no X.
	Objective float64
	// BestBound is CBC's lower bound on the optimum: equal to or below
	// Objective (a fractional bound below an integral Objective can still
	// prove it optimal). +Inf when Infeasible, -Inf when Unbounded.
	BestBound float64
	// X is the solution (Optimal or Feasible), one value per column,
	// integer columns rounded to the nearest integer; nil otherwise.
	X []float64
	// Nodes is the number of branch-and-bound nodes CBC explored.
	Nodes int
	// Seconds is the wall-clock time of the solve. Everything else in a
	// Result is deterministic unless a TimeLimit stopped the solve.
	Seconds float64

	// raw is what CBC said, for the tests of the status table (doc.go).
	raw rawStatus
}

// rawStatus is CBC's own account of a solve.
type rawStatus struct {
	status, secondary, provenOptimal, provenInfeasible, unbounded int
	solution                                                      bool
}

// Solve solves p with CBC, quietly (no output), on one thread and
// deterministically: the same problem and options give the same Result,
// byte for byte (Seconds aside) unless TimeLimit stopped the search.
// Solves are serialized process-wide: CbcMain1, behind CBC's C interface,
// parses its parameters through global variables (CbcOrClpRead_mode and
// others), so two concurrent solves would corrupt each other.
//
// The context is checked before the solve and watched during it: once it
// is done, CBC is asked to stop at its next event (after a node, a
// heuristic or a solution; the root LP and root cuts are not interrupted)
// and Solve returns the context's error. For a result that stops in time
// with the best solution so far, use Options.TimeLimit.
//
// A problem without integer columns is solved by the same branch and
// bound: CBC's C interface would hand it to Clp and then report status -1
// and an unbounded LP as infeasible. Solve gives it one fixed integer
// column, left out of the Result.
func Solve(ctx context.Context, p *Problem, opts Options) (*Result, error) {
	res, err := solve(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// solveMu serializes solves (see Solve).
var solveMu sync.Mutex

// solve is Solve, but on a stop by the context it also returns the result
// as CBC left it (with raw set), for the tests.
func solve(ctx context.Context, p *Problem, opts Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := opts.validate(p); err != nil {
		return nil, err
	}
	start := time.Now()
	n, rows := p.NumCols(), p.NumRows()

	// Column-major matrix. A problem with no integer column gets a
	// fixed integer column (no nonzeros) at the end.
	hasInt := false
	for _, b := range p.Integer {
		hasInt = hasInt || b
	}
	nc := n
	if !hasInt {
		nc++
	}
	nnz := 0
	for _, col := range p.Cols {
		nnz += len(col)
	}
	colStart := make([]C.CoinBigIndex, nc+1)
	index := make([]C.int, max(nnz, 1))
	value := make([]C.double, max(nnz, 1))
	collb := make([]C.double, nc)
	colub := make([]C.double, nc)
	obj := make([]C.double, nc)
	k := 0
	for j, col := range p.Cols {
		colStart[j] = C.CoinBigIndex(k)
		for _, e := range col {
			index[k] = C.int(e.Row)
			value[k] = C.double(e.Value)
			k++
		}
		collb[j] = cbound(p.ColLower[j])
		colub[j] = cbound(p.ColUpper[j])
		obj[j] = C.double(p.Obj[j])
	}
	for j := n; j <= nc; j++ {
		colStart[j] = C.CoinBigIndex(k) // the dummy column (if any) and the end
	}
	rowlb := make([]C.double, max(rows, 1))
	rowub := make([]C.double, max(rows, 1))
	for r := range rows {
		rowlb[r] = cbound(p.RowLower[r])
		rowub[r] = cbound(p.RowUpper[r])
	}

	solveMu.Lock()
	defer solveMu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := C.Cbc_newModel()
	defer C.Cbc_deleteModel(m)
	// Cbc_loadProblem copies the arrays (Go memory is fine for the call).
	C.Cbc_loadProblem(m, C.int(nc), C.int(rows), &colStart[0], &index[0], &value[0],
		&collb[0], &colub[0], &obj[0], &rowlb[0], &rowub[0])
	for j, b := range p.Integer {
		if b {
			C.Cbc_setInteger(m, C.int(j))
		}
	}
	if !hasInt {
		C.Cbc_setInteger(m, C.int(n))
	}

	// Parameters go through CbcMain1's command line (Cbc_setParameter),
	// the path Cbc_solve takes, so none is overridden by its defaults.
	params := [][2]string{
		{"log", "0"},  // CBC's log
		{"slog", "0"}, // Clp's log
		{"threads", "0"},
		{"timeMode", "elapsed"},
		// Integer preprocessing (CglPreProcess) is off: in CBC 2.10.8,
		// when a time limit ends the search of the preprocessed model,
		// CglPreProcess::postProcess can crash the process (SIGSEGV) or
		// the MIP start is lost and the problem reported infeasible
		// (TestTimeLimitSweep). It also costs more than it saves on the
		// assignment models of package exact (10–50× slower on small
		// BPPLIB instances).
		{"preprocess", "off"},
	}
	if opts.TimeLimit > 0 {
		params = append(params, [2]string{"sec", strconv.FormatFloat(opts.TimeLimit.Seconds(), 'g', -1, 64)})
	}
	if opts.RelGap > 0 {
		params = append(params, [2]string{"ratioGap", strconv.FormatFloat(opts.RelGap, 'g', -1, 64)})
	}
	if opts.MaxNodes > 0 {
		params = append(params, [2]string{"maxNodes", strconv.Itoa(opts.MaxNodes)})
	}
	for _, kv := range params {
		setParameter(m, kv[0], kv[1])
	}
	if opts.Start != nil {
		idx := make([]C.int, nc)
		val := make([]C.double, nc)
		for j := range nc {
			idx[j] = C.int(j)
			if j < n {
				val[j] = C.double(opts.Start[j])
			}
		}
		C.Cbc_setMIPStartI(m, C.int(nc), &idx[0], &val[0])
	}

	// The stop flag lives in C memory: the event handler keeps a pointer
	// to it for the whole solve.
	flag := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(flag))
	C.placelab_cbc_watch(m, flag)
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			C.placelab_cbc_raise(flag)
		case <-done:
		}
	}()
	C.Cbc_solve(m)
	close(done)
	<-watched
	var stopped error
	if *flag != 0 {
		stopped = fmt.Errorf("cbc: solve stopped: %w", ctx.Err())
	}

	res := &Result{
		Objective: math.Inf(1),
		Nodes:     int(C.Cbc_getNodeCount(m)),
	}
	status, secondary := int(C.Cbc_status(m)), int(C.Cbc_secondaryStatus(m))
	var sol *C.double
	if status != 2 {
		sol = C.Cbc_bestSolution(m)
	}
	res.raw = rawStatus{status: status, secondary: secondary,
		provenOptimal: int(C.Cbc_isProvenOptimal(m)), provenInfeasible: int(C.Cbc_isProvenInfeasible(m)),
		unbounded: int(C.Cbc_isContinuousUnbounded(m)), solution: sol != nil}
	if stopped != nil {
		return res, stopped
	}
	switch {
	case status == 2 || C.Cbc_isAbandoned(m) != 0:
		return nil, fmt.Errorf("%w: CBC abandoned the solve (numerical difficulties)", ErrSolver)
	case C.Cbc_isProvenOptimal(m) != 0 && sol != nil && secondary != secondaryGap:
		res.Status = Optimal
	case C.Cbc_isContinuousUnbounded(m) != 0 || secondary == secondaryUnbounded:
		res.Status = Unbounded
		sol = nil
	case C.Cbc_isProvenInfeasible(m) != 0:
		if opts.Start != nil && p.satisfies(opts.Start, startTol) {
			// CBC declares a problem infeasible when nothing beats its
			// cutoff, which the start sets; it must then keep the start
			// as its solution. It did not.
			return nil, fmt.Errorf("%w: CBC reported infeasible although the MIP start is feasible", ErrSolver)
		}
		res.Status = Infeasible
		sol = nil
	case sol != nil && (status == 1 || secondary == secondaryGap):
		res.Status = Feasible
	case sol == nil && status == 1:
		res.Status = NoSolution
	default:
		return nil, fmt.Errorf("%w: unexpected CBC status %d, secondary status %d", ErrSolver, status, secondary)
	}
	switch res.Status {
	case Infeasible:
		res.BestBound = math.Inf(1)
	case Unbounded:
		res.BestBound = math.Inf(-1)
	default:
		res.BestBound = float64(C.Cbc_getBestPossibleObjValue(m))
	}
	if sol != nil {
		xs := unsafe.Slice(sol, nc)
		res.X = make([]float64, n)
		res.Objective = 0
		for j := range n {
			v := float64(xs[j])
			if p.Integer[j] {
				v = math.Round(v)
			}
			res.X[j] = v
			res.Objective += p.Obj[j] * v
		}
		if res.Status == Optimal && res.BestBound > res.Objective {
			res.BestBound = res.Objective
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// startTol is the absolute violation of a bound or row up to which
// satisfies accepts a MIP start: CBC's primal tolerance (1e-7) with room
// for rounding.
const startTol = 1e-6

// satisfies reports whether x meets p's column bounds, integrality and
// rows within tol.
func (p *Problem) satisfies(x []float64, tol float64) bool {
	act := make([]float64, p.NumRows())
	for j, v := range x {
		if v < p.ColLower[j]-tol || v > p.ColUpper[j]+tol || p.Integer[j] && math.Abs(v-math.Round(v)) > tol {
			return false
		}
		for _, e := range p.Cols[j] {
			act[e.Row] += e.Value * v
		}
	}
	for r, a := range act {
		if a < p.RowLower[r]-tol || a > p.RowUpper[r]+tol {
			return false
		}
	}
	return true
}

// CBC's secondary statuses (Cbc_secondaryStatus) that Solve tells apart.
const (
	secondaryGap       = 2
	secondaryUnbounded = 7
)

func setParameter(m unsafe.Pointer, name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	C.Cbc_setParameter(m, cn, cv)
	C.free(unsafe.Pointer(cn))
	C.free(unsafe.Pointer(cv))
}

// cbound maps ±Inf to ±DBL_MAX, COIN's infinity.
func cbound(v float64) C.double {
	switch {
	case math.IsInf(v, 1):
		return C.double(math.MaxFloat64)
	case math.IsInf(v, -1):
		return C.double(-math.MaxFloat64)
	}
	return C.double(v)
}

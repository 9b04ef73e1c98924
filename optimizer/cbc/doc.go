// Package cbc solves mixed-integer programs with COIN-OR CBC 2.10, through
// its C interface (Debian's coinor-libcbc-dev; pkg-config cbc).
//
// It is deliberately small: a Problem (objective, bounds, integrality and
// a column-major matrix with ranged rows), Options (time, gap and node
// limits, a MIP start) and Solve, which builds a CBC model, solves it and
// frees it before returning. Solves are quiet (CBC's and Clp's logs at
// level 0), single-threaded and deterministic unless a time limit stops
// them.
//
// Statuses are read from CBC as CBC 2.10.8 reports them (checked by the
// tests, not taken from its header):
//
//	                 Cbc_status  secondary  isProvenOptimal  bestSolution
//	optimal               0          0            1             set
//	infeasible            0          1            0             NULL   (isProvenInfeasible 1)
//	time limit            1          4            0             set or NULL
//	node limit            1          3            0             set or NULL
//	ratio gap             0          2            1             set
//	stopped by an event   5          5            0             set or NULL
//	unbounded relaxation  0          7            0             NULL
//
// A ratio-gap stop counts as proven optimal in CBC; Solve reports it as
// Feasible, since the gap was allowed, not closed.
//
// The C interface cannot stop a running solve, so stop.cpp adds CBC's C++
// event handler (about 30 lines) to watch the context.
//
// Quirks of CBC 2.10.8 that this package works around, each pinned by a
// test:
//
//   - A problem without integer columns goes to Clp, after which
//     Cbc_status is -1 and an unbounded LP reads as infeasible; Solve adds
//     a fixed integer column (TestStatusTable, TestLPAgainstGonum).
//   - Integer preprocessing crashes the process (SIGSEGV in
//     CglPreProcess::postProcess) or drops the MIP start and reports
//     "infeasible" when a time limit ends the search; Solve turns it off
//     (TestTimeLimitSweep).
//   - CbcMain1 reads its parameters through global variables; Solve
//     serializes solves (TestDeterministic runs four at once).
//   - The node limit is exact below about 500 nodes and can overshoot a
//     hundredfold above (Options.MaxNodes).
package cbc

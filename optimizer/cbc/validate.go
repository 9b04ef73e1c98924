package cbc

import (
	"fmt"
	"math"
)

// validate checks the lengths of p, that every value is finite (bounds
// may be infinite on the side that allows it), that no lower bound exceeds
// its upper bound and that every nonzero names an existing row once.
func (p *Problem) validate() error {
	if p == nil {
		return fmt.Errorf("%w: nil problem", ErrInvalid)
	}
	n, rows := len(p.Obj), len(p.RowLower)
	if n == 0 {
		return fmt.Errorf("%w: no columns", ErrInvalid)
	}
	for _, f := range []struct {
		name string
		len  int
	}{{"ColLower", len(p.ColLower)}, {"ColUpper", len(p.ColUpper)}, {"Integer", len(p.Integer)}, {"Cols", len(p.Cols)}} {
		if f.len != n {
			return fmt.Errorf("%w: len(%s) = %d, want len(Obj) = %d", ErrInvalid, f.name, f.len, n)
		}
	}
	if len(p.RowUpper) != rows {
		return fmt.Errorf("%w: len(RowUpper) = %d, want len(RowLower) = %d", ErrInvalid, len(p.RowUpper), rows)
	}
	seen := make([]int, rows) // column+1 that last used the row
	for j := range n {
		if err := checkFinite(p.Obj[j]); err != nil {
			return fmt.Errorf("%w: column %d: objective %v", ErrInvalid, j, err)
		}
		if err := checkBounds(p.ColLower[j], p.ColUpper[j]); err != nil {
			return fmt.Errorf("%w: column %d: %v", ErrInvalid, j, err)
		}
		if p.Integer[j] && (!integral(p.ColLower[j]) || !integral(p.ColUpper[j])) {
			return fmt.Errorf("%w: column %d: integer column with bounds [%g, %g]; want integer bounds", ErrInvalid, j, p.ColLower[j], p.ColUpper[j])
		}
		for _, e := range p.Cols[j] {
			if e.Row < 0 || e.Row >= rows {
				return fmt.Errorf("%w: column %d: nonzero in row %d, want 0 <= row < %d", ErrInvalid, j, e.Row, rows)
			}
			if seen[e.Row] == j+1 {
				return fmt.Errorf("%w: column %d: row %d appears twice", ErrInvalid, j, e.Row)
			}
			seen[e.Row] = j + 1
			if err := checkFinite(e.Value); err != nil {
				return fmt.Errorf("%w: column %d: coefficient in row %d %v", ErrInvalid, j, e.Row, err)
			}
		}
	}
	for r := range rows {
		if err := checkBounds(p.RowLower[r], p.RowUpper[r]); err != nil {
			return fmt.Errorf("%w: row %d: %v", ErrInvalid, r, err)
		}
	}
	return nil
}

// validate checks o against p.
func (o *Options) validate(p *Problem) error {
	if o.TimeLimit < 0 {
		return fmt.Errorf("%w: TimeLimit %v < 0", ErrInvalid, o.TimeLimit)
	}
	if math.IsNaN(o.RelGap) || o.RelGap < 0 || math.IsInf(o.RelGap, 0) {
		return fmt.Errorf("%w: RelGap %g, want a finite value >= 0", ErrInvalid, o.RelGap)
	}
	if o.MaxNodes < 0 {
		return fmt.Errorf("%w: MaxNodes %d < 0", ErrInvalid, o.MaxNodes)
	}
	if o.Start == nil {
		return nil
	}
	if len(o.Start) != p.NumCols() {
		return fmt.Errorf("%w: len(Start) = %d, want %d columns", ErrInvalid, len(o.Start), p.NumCols())
	}
	for j, v := range o.Start {
		if err := checkFinite(v); err != nil {
			return fmt.Errorf("%w: Start[%d] %v", ErrInvalid, j, err)
		}
		if v < p.ColLower[j] || v > p.ColUpper[j] {
			return fmt.Errorf("%w: Start[%d] = %g outside the column's bounds [%g, %g]", ErrInvalid, j, v, p.ColLower[j], p.ColUpper[j])
		}
		if p.Integer[j] && v != math.Trunc(v) {
			return fmt.Errorf("%w: Start[%d] = %g on an integer column", ErrInvalid, j, v)
		}
	}
	return nil
}

// checkFinite: a coefficient must be a finite number of magnitude at most
// MaxFinite.
func checkFinite(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxFinite {
		return fmt.Errorf("= %g, want a finite value of magnitude <= %g", v, MaxFinite)
	}
	return nil
}

// checkBounds: lower ≤ upper, lower < +Inf, upper > -Inf, finite bounds of
// magnitude at most MaxFinite, no NaN.
func checkBounds(lo, up float64) error {
	if math.IsNaN(lo) || math.IsInf(lo, 1) || (!math.IsInf(lo, -1) && math.Abs(lo) > MaxFinite) {
		return fmt.Errorf("lower bound %g, want -Inf or a finite value of magnitude <= %g", lo, MaxFinite)
	}
	if math.IsNaN(up) || math.IsInf(up, -1) || (!math.IsInf(up, 1) && math.Abs(up) > MaxFinite) {
		return fmt.Errorf("upper bound %g, want +Inf or a finite value of magnitude <= %g", up, MaxFinite)
	}
	if lo > up {
		return fmt.Errorf("lower bound %g > upper bound %g", lo, up)
	}
	return nil
}

// integral: v is an integer or infinite.
func integral(v float64) bool { return math.IsInf(v, 0) || v == math.Trunc(v) }

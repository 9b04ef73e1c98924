package paragon

import (
	"fmt"
	"sort"
)

// Entry is one known element of a utility matrix: the score of application
// Row on column Col (a server configuration, or a source of interference).
type Entry struct {
	Row, Col int
	Value    float64
}

// Sparse is the sparse utility matrix A of §2.1: one row per application,
// one column per server configuration (heterogeneity) or source of
// interference (tolerated or caused sensitivity), holding only the entries
// that were measured. The zero value is unusable; call NewSparse.
type Sparse struct {
	rows, cols int
	entries    []Entry
	index      map[int]int // row*cols+col → position in entries
}

// NewSparse returns an empty rows × cols utility matrix. It panics if a
// dimension is negative.
func NewSparse(rows, cols int) *Sparse {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("paragon: NewSparse(%d, %d): negative dimension", rows, cols))
	}
	return &Sparse{rows: rows, cols: cols, index: make(map[int]int)}
}

// SparseFromDense returns the matrix holding dense[i][j] wherever keep(i, j)
// is true (every element when keep is nil). All rows must have cols
// elements; it panics otherwise.
func SparseFromDense(dense [][]float64, cols int, keep func(i, j int) bool) *Sparse {
	s := NewSparse(len(dense), cols)
	for i, row := range dense {
		if len(row) != cols {
			panic(fmt.Sprintf("paragon: SparseFromDense: row %d has %d elements, want %d", i, len(row), cols))
		}
		for j, v := range row {
			if keep == nil || keep(i, j) {
				s.Set(i, j, v)
			}
		}
	}
	return s
}

// Dims returns the number of rows (applications) and columns.
func (s *Sparse) Dims() (rows, cols int) { return s.rows, s.cols }

// Len returns the number of known entries.
func (s *Sparse) Len() int { return len(s.entries) }

// Density returns the share of known entries, Len / (rows × cols).
func (s *Sparse) Density() float64 {
	if s.rows == 0 || s.cols == 0 {
		return 0
	}
	return float64(len(s.entries)) / float64(s.rows*s.cols)
}

func (s *Sparse) check(row, col int) {
	if row < 0 || row >= s.rows || col < 0 || col >= s.cols {
		panic(fmt.Sprintf("paragon: index (%d, %d) out of range %d × %d", row, col, s.rows, s.cols))
	}
}

// Set records the score of application row on column col, replacing an
// earlier one. Values are checked by Train, not here, so that the error can
// name the entry. It panics if the index is out of range.
func (s *Sparse) Set(row, col int, v float64) {
	s.check(row, col)
	k := row*s.cols + col
	if p, ok := s.index[k]; ok {
		s.entries[p].Value = v
		return
	}
	s.index[k] = len(s.entries)
	s.entries = append(s.entries, Entry{row, col, v})
}

// At returns the entry at (row, col) and whether it is known.
func (s *Sparse) At(row, col int) (float64, bool) {
	s.check(row, col)
	p, ok := s.index[row*s.cols+col]
	if !ok {
		return 0, false
	}
	return s.entries[p].Value, true
}

// Entries returns the known entries in insertion order. The slice is the
// matrix's own: do not modify it.
func (s *Sparse) Entries() []Entry { return s.entries }

// Row returns the known entries of one row, keyed by column — the form
// FoldIn takes.
func (s *Sparse) Row(row int) map[int]float64 {
	if row < 0 || row >= s.rows {
		panic(fmt.Sprintf("paragon: row %d out of range %d", row, s.rows))
	}
	out := make(map[int]float64)
	for c := 0; c < s.cols; c++ {
		if p, ok := s.index[row*s.cols+c]; ok {
			out[c] = s.entries[p].Value
		}
	}
	return out
}

// sortedKeys returns the columns of a row map in increasing order, so that
// floating-point sums over it are reproducible.
func sortedKeys(m map[int]float64) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

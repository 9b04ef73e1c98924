package paragon

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestTrainRecoversPlanted: SVD + SGD recovers a planted low-rank matrix
// from 10% of its entries. The error is ‖R − A‖_F / ‖A‖_F over the 90%
// hidden entries. For reference, the best rank-1 fit of the positive
// matrix (its mean profile) is off by 7–8%, so the 3% bound needs the weak
// concepts recovered.
func TestTrainRecoversPlanted(t *testing.T) {
	cases := []struct {
		name             string
		rows, cols, rank int
		gauss            bool
		maxErr           float64
		checkRank        bool // over mask seeds the centred case took rank 3–5
	}{
		{"positive scores 1000x100 rank 3", 1000, 100, 3, false, 0.03, true},
		{"centred gaussian 1000x100 rank 3", 1000, 100, 3, true, 0.10, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := planted(tc.rows, tc.cols, tc.rank, 7, tc.gauss)
			m := mask(tc.rows, tc.cols, 0.1, 3)
			s := SparseFromDense(a, tc.cols, func(i, j int) bool { return m[i][j] })
			if d := s.Density(); d < 0.09 || d > 0.11 {
				t.Fatalf("density %v, want 10%%", d)
			}
			model, err := Train(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.checkRank && model.Rank() != tc.rank {
				t.Errorf("rank %d, want %d (held-out RMSE by rank %.4g)", model.Rank(), tc.rank, model.RankErrors)
			}
			e := relError(a, model.Predict, func(i, j int) bool { return !m[i][j] })
			if e > tc.maxErr {
				t.Errorf("hidden-entry relative error %.4f > %.2f", e, tc.maxErr)
			}
			t.Logf("rank %d, epochs %d, train RMSE %.4f, hidden relative error %.4f", model.Rank(), model.Epochs, model.RMSE, e)
		})
	}
}

// TestTrainRankByEnergy: on a dense matrix the energy rule reads the rank
// off the singular values.
func TestTrainRankByEnergy(t *testing.T) {
	a := planted(400, 30, 3, 5, true)
	s := SparseFromDense(a, 30, nil)
	m, err := Train(s, Options{Rule: RankByEnergy, Energy: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	// Centred Gaussian concepts: one for the (near-zero) mean profile plus
	// the three concepts of the centred matrix.
	if m.Rank() != 4 {
		t.Errorf("rank %d, want 4", m.Rank())
	}
	if e := relError(a, m.Predict, func(i, j int) bool { return true }); e > 1e-3 {
		t.Errorf("relative error %v on a dense exact matrix", e)
	}
}

func TestTrainDeterministic(t *testing.T) {
	a := planted(200, 20, 2, 1, false)
	m := mask(200, 20, 0.3, 1)
	s := SparseFromDense(a, 20, func(i, j int) bool { return m[i][j] })
	m1, err1 := Train(s, Options{Seed: 9})
	m2, err2 := Train(s, Options{Seed: 9})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i := 0; i < 200; i++ {
		for j := 0; j < 20; j++ {
			if m1.Predict(i, j) != m2.Predict(i, j) {
				t.Fatalf("same seed, different models at (%d, %d)", i, j)
			}
		}
	}
}

func TestTrainErrors(t *testing.T) {
	nan := NewSparse(3, 3)
	nan.Set(0, 0, 1)
	nan.Set(2, 1, math.NaN())
	ok := NewSparse(3, 3)
	ok.Set(0, 0, 1)
	cases := []struct {
		name string
		a    *Sparse
		opts Options
		want error
		says string
	}{
		{"no entries", NewSparse(3, 3), Options{}, ErrEmpty, "0 entries"},
		{"NaN names its entry", nan, Options{}, ErrBadValue, "row 2, column 1"},
		{"negative rank", ok, Options{Rank: -1}, ErrBadOptions, "Rank"},
		{"energy above one", ok, Options{Energy: 2}, ErrBadOptions, "Energy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Train(tc.a, tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}

func TestSparse(t *testing.T) {
	s := NewSparse(2, 3)
	s.Set(1, 2, 5)
	s.Set(1, 2, 6) // replaces
	s.Set(0, 0, 1)
	if v, ok := s.At(1, 2); !ok || v != 6 || s.Len() != 2 {
		t.Errorf("At(1,2) = %v, %v; Len %d", v, ok, s.Len())
	}
	if _, ok := s.At(0, 1); ok {
		t.Error("At(0,1) known")
	}
	if r := s.Row(1); len(r) != 1 || r[2] != 6 {
		t.Errorf("Row(1) = %v", r)
	}
	defer func() {
		if recover() == nil {
			t.Error("Set out of range did not panic")
		}
	}()
	s.Set(2, 0, 1)
}

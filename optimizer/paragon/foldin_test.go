package paragon

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFoldIn: a held-out row, folded in from two of its entries without
// refactorizing, is predicted within 8% (relative error over its other
// entries, averaged over 200 held-out rows), at most a third of the error
// of predicting every column's mean; confidence grows with the entries
// known.
func TestFoldIn(t *testing.T) {
	const rows, held, cols = 1000, 200, 40
	a := planted(rows+held, cols, 3, 11, false)
	m := mask(rows, cols, 0.3, 4)
	s := NewSparse(rows, cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if m[i][j] {
				s.Set(i, j, a[i][j])
			}
		}
	}
	model, err := Train(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean := columnMeans(s)
	rng := rand.New(rand.NewPCG(5, 5))
	var seFold, seMean, ss, conf2 float64
	for i := rows; i < rows+held; i++ {
		p := rng.Perm(cols)
		known := map[int]float64{p[0]: a[i][p[0]], p[1]: a[i][p[1]]}
		row, c := model.FoldIn(known)
		conf2 += c / held
		for j := 0; j < cols; j++ {
			if _, ok := known[j]; ok {
				continue
			}
			seFold += (row[j] - a[i][j]) * (row[j] - a[i][j])
			seMean += (mean[j] - a[i][j]) * (mean[j] - a[i][j])
			ss += a[i][j] * a[i][j]
		}
	}
	fold, base := math.Sqrt(seFold/ss), math.Sqrt(seMean/ss)
	t.Logf("rank %d: fold-in relative error %.4f, column means %.4f, mean confidence %.3f", model.Rank(), fold, base, conf2)
	if fold > 0.08 || fold > base/3 {
		t.Errorf("fold-in relative error %.4f (column means: %.4f)", fold, base)
	}

	// Confidence: none without entries, more with more.
	row := a[rows]
	_, c0 := model.FoldIn(nil)
	_, c1 := model.FoldIn(map[int]float64{0: row[0]})
	all := map[int]float64{}
	for j := range row {
		all[j] = row[j]
	}
	_, cAll := model.FoldIn(all)
	if !(c0 == 0 && c0 < c1 && c1 < cAll && cAll <= 1) {
		t.Errorf("confidence with 0, 1, all entries: %v, %v, %v", c0, c1, cAll)
	}
}

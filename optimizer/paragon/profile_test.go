package paragon

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// logLowRank returns rows of exp(a_i + μ_j + Σ_k u_ik v_jk): a matrix
// that LogPCA of rank r describes exactly.
func logLowRank(rows, cols, rank int, seed uint64) []map[int]float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	mu := make([]float64, cols)
	v := make([][]float64, cols)
	for j := range mu {
		mu[j] = rng.NormFloat64()
		v[j] = make([]float64, rank)
		for k := range v[j] {
			v[j][k] = rng.NormFloat64() * 0.5
		}
	}
	out := make([]map[int]float64, rows)
	for i := range out {
		a := 3 * rng.NormFloat64()
		u := make([]float64, rank)
		for k := range u {
			u[k] = rng.NormFloat64()
		}
		out[i] = map[int]float64{}
		for j := 0; j < cols; j++ {
			out[i][j] = math.Exp(a + mu[j] + dot(u, v[j]))
		}
	}
	return out
}

// TestLogPCAFoldInRecoversRow: on a matrix of exact log rank 2, a new row
// folded in from 6 of its entries is predicted on every column within a
// few percent, at any scale of the measurements (the scale is one free
// offset in log space), and with missing training cells too.
func TestLogPCAFoldInRecoversRow(t *testing.T) {
	rows := logLowRank(81, 20, 2, 3)
	train, fresh := rows[:80], rows[80]
	for _, holes := range []bool{false, true} {
		tr := train
		if holes {
			tr = make([]map[int]float64, len(train))
			for i, r := range train {
				tr[i] = map[int]float64{}
				for c, v := range r {
					if (i+c)%7 != 0 {
						tr[i][c] = v
					}
				}
			}
		}
		m, err := FitLogPCA(tr, 20, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, scale := range []float64{1, 1e-6, 3e4} {
			known := map[int]float64{}
			for _, c := range []int{0, 3, 7, 11, 15, 19} {
				known[c] = fresh[c] * scale
			}
			pred := m.FoldIn(known)
			for c, v := range fresh {
				if got := math.Exp(pred[c]) / scale; math.Abs(got/v-1) > 0.03 {
					t.Errorf("holes %v, scale %v: column %d predicted %.4g, true %.4g", holes, scale, c, got, v)
				}
			}
		}
	}
	if _, err := FitLogPCA([]map[int]float64{{0: 1, 1: -2}, {0: 1, 1: 2}}, 2, 1); !errors.Is(err, ErrBadValue) {
		t.Errorf("negative value: %v", err)
	}
	if _, err := FitLogPCA([]map[int]float64{{0: 1, 1: 2}}, 2, 1); !errors.Is(err, ErrEmpty) {
		t.Errorf("one row: %v", err)
	}
}

// TestLogPCAFoldInIsRegularized is the ill-conditioning issue 19 reports:
// two profiled platforms that are nearly the same (condition number in
// the hundreds), in training rows measured with 3% noise, whose new
// measurements disagree by 30%. Unregularized least
// squares would fit the difference with a huge component and predict the
// other platforms far off; the prior keeps every prediction within the
// range the training rows span.
func TestLogPCAFoldInIsRegularized(t *testing.T) {
	rows := logLowRank(60, 12, 3, 11)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, r := range rows {
		r[1] = r[0] * math.Exp(0.01*rng.NormFloat64()) // platform 1 is platform 0, give or take 1%
		for c := range r {
			r[c] *= math.Exp(0.03 * rng.NormFloat64()) // run-to-run noise of 3%
		}
	}
	m, err := FitLogPCA(rows, 12, 3)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, v := range r {
			rel := math.Log(v / r[0])
			lo, hi = math.Min(lo, rel), math.Max(hi, rel)
		}
	}
	pred := m.FoldIn(map[int]float64{0: 1, 1: 1.3}) // 30% apart: noise
	for c, v := range pred {
		if rel := v - pred[0]; rel < lo-1 || rel > hi+1 || math.IsNaN(v) {
			t.Errorf("column %d: log ratio to column 0 %.3f outside the training span [%.3f, %.3f] by more than 1", c, rel, lo, hi)
		}
	}
}

// TestSelectProfileCover: with one platform to profile, cover picks the
// platform within 5% of the best for the most rows (brute force); with
// two, the greedy set covers every row of a matrix built so that no single
// platform does.
func TestSelectProfileCover(t *testing.T) {
	scores := []map[int]float64{
		{0: 1, 1: 0.9, 2: 0.5, 3: 0.97},
		{0: 1, 1: 0.5, 2: 0.9, 3: 0.6},
		{0: 0.7, 1: 1, 2: 0.96, 3: 0.6},
		{0: 0.6, 1: 0.98, 2: 1, 3: 0.5},
		{0: 0.5, 1: 0.7, 2: 1, 3: 0.96},
	}
	bestCol, bestN := -1, -1
	for c := 0; c < 4; c++ {
		n := 0
		for _, r := range scores {
			if r[c] >= NearBestFraction {
				n++
			}
		}
		if n > bestN {
			bestCol, bestN = c, n
		}
	}
	if got := selectProfile(scores, 4, 1, SelectCover); len(got) != 1 || got[0] != bestCol {
		t.Errorf("cover, 1: %v, want [%d] (covers %d rows)", got, bestCol, bestN)
	}
	got := selectProfile(scores, 4, 2, SelectCover)
	for i, r := range scores {
		if !(r[got[0]] >= NearBestFraction || r[got[1]] >= NearBestFraction) {
			t.Errorf("cover, 2: %v leaves row %d uncovered", got, i)
		}
	}
	if got := selectProfile(scores, 4, 2, SelectTopMean); got[0] != 2 || got[1] != 1 {
		t.Errorf("top-mean: %v, want [2 1] (means 0.872 and 0.816 lead)", got)
	}
}

// TestDecideMargin: the pick is the fastest profiled platform unless the
// model predicts an unprofiled one more than (1 + margin) times faster.
func TestDecideMargin(t *testing.T) {
	rows := logLowRank(40, 6, 1, 5)
	for _, r := range rows {
		r[5] = r[0] * 2 // platform 5 is always twice as fast as 0
	}
	m, err := FitLogPCA(rows, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	perf := map[int]float64{0: 1, 1: rows[0][1] / rows[0][0] * 0.5}
	if pc := decide(m, perf, math.Inf(1)); pc.Pick != 0 && pc.Pick != 1 {
		t.Errorf("margin +Inf picked unprofiled %d", pc.Pick)
	}
	if pc := decide(m, perf, 0.5); pc.Pick != 5 {
		t.Errorf("margin 0.5: picked %d, want 5 (predicted 2× the best profiled)", pc.Pick)
	}
	if pc := decide(m, perf, 1.5); pc.Pick == 5 {
		t.Errorf("margin 1.5: picked 5, predicted only 2×")
	}
}

// TestChooseCandidateOneSE: shares within one standard error of the best
// are a tie that the row's error decides; a share further below loses
// whatever its error.
func TestChooseCandidateOneSE(t *testing.T) {
	cands := []CVCandidate{
		{Method: SelectTopMean, Within5: 0.80, MeanAbsError: 0.09, Rows: 100},  // best share; SE 0.04
		{Method: SelectCover, Within5: 0.77, MeanAbsError: 0.05, Rows: 100},    // within 1 SE, best error
		{Method: SelectBestMean, Within5: 0.70, MeanAbsError: 0.01, Rows: 100}, // 2.5 SE below
	}
	if got := chooseCandidate(cands, ObjectivePick); got != 1 {
		t.Errorf("pick objective chose %d, want 1", got)
	}
	if got := chooseCandidate(cands, ObjectiveRow); got != 2 {
		t.Errorf("row objective chose %d, want 2", got)
	}
}

// TestTrainPlatformCV: cross-validation holds out whole groups, marks one
// chosen candidate, and is reproducible.
func TestTrainPlatformCV(t *testing.T) {
	rows := logLowRank(30, 8, 2, 9)
	groups := make([]string, len(rows))
	for i := range groups {
		groups[i] = string(rune('a' + i/3))
	}
	o := DefaultPlatformOptions()
	p, err := TrainPlatform(rows, groups, 8, o)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := TrainPlatform(rows, groups, 8, o)
	chosen := 0
	for i, c := range p.CV {
		if c.Chosen {
			chosen++
			if c.Method != p.Method || float64(c.Margin) != p.Margin {
				t.Errorf("chosen %+v, classifier uses %s margin %v", c, p.Method, p.Margin)
			}
		}
		if c != q.CV[i] {
			t.Errorf("not reproducible: %+v vs %+v", c, q.CV[i])
		}
		if c.Rows != 30 {
			t.Errorf("%+v: %d rows scored, want 30", c, c.Rows)
		}
	}
	if chosen != 1 || len(p.Profile) != 2 {
		t.Errorf("%d chosen, profile %v", chosen, p.Profile)
	}
	o.Method = "best"
	if _, err := TrainPlatform(rows, groups, 8, o); !errors.Is(err, ErrUnknownName) {
		t.Errorf("unknown method: %v", err)
	}
	o = DefaultPlatformOptions()
	o.Margin = math.NaN()
	if _, err := TrainPlatform(rows, groups, 8, o); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NaN margin: %v", err)
	}
}

package paragon

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Profiling-set selection methods (PlatformOptions.Method).
const (
	// SelectCV chooses the method and the override margin by
	// cross-validation on the training rows, whole groups (applications)
	// held out at a time. Each candidate is scored by the share of held-out
	// rows whose chosen platform is within 5% of their best. Shares that
	// close are noise, so by the one-standard-error rule every candidate
	// within one binomial standard error of the best share is a contender,
	// and among them the one whose fold-in predicts the unprofiled
	// platforms best (least mean absolute error of the normalized score)
	// wins; then the higher share within 5%, within 10%, the mean score of
	// the choice, and the order of SelectMethods and CVMargins. The row
	// matters beside the pick: a scheduler ranks every platform by it.
	SelectCV = "cv"
	// SelectCover profiles the K platforms that, chosen greedily, put a
	// platform within 5% of the best in the profiled set of the most
	// training rows (a greedy maximum coverage; ties go to the higher mean
	// score, then the lower column).
	SelectCover = "cover"
	// SelectBestMean profiles the K platforms that, chosen greedily,
	// maximize the training rows' mean best profiled score: the expected
	// score of "run on the fastest profiled platform" (ties go to the
	// lower column). Cover counts a row once a platform within 5% is in;
	// this keeps rewarding a closer one, and hedges across rows whose best
	// platforms differ.
	SelectBestMean = "best-mean"
	// SelectTopMean profiles the K platforms of highest mean normalized
	// score over the training rows.
	SelectTopMean = "top-mean"
	// SelectRandom profiles K platforms drawn at random for each
	// application (seeded by the caller): §2.2's "any two server
	// configurations", the paper's setting.
	SelectRandom = "random"
)

// SelectMethods lists the methods in the order the cross-validation tries
// them (the first wins a tie).
var SelectMethods = []string{SelectCV, SelectCover, SelectBestMean, SelectTopMean, SelectRandom}

// CVMargins are the override margins SelectCV tries, the first winning a
// tie: +Inf never overrides the profiled platforms, a finite m lets the
// model's prediction for an unprofiled platform win when it is more than
// (1 + m) times the best measured.
var CVMargins = []float64{math.Inf(1), 0.2, 0.1, 0.05, 0}

// PlatformOptions configure TrainPlatform. DefaultPlatformOptions gives
// the defaults every caller starts from.
type PlatformOptions struct {
	// Known is the number of platforms profiled per application (≥ 1).
	Known int
	// Method is one of SelectMethods.
	Method string
	// Margin is the override margin when Method is not SelectCV (≥ 0,
	// +Inf for never); SelectCV chooses it from CVMargins.
	Margin float64
	// Rank is the LogPCA rank (≥ 0).
	Rank int
	// Objective is what SelectCV optimizes: ObjectivePick (the default)
	// or ObjectiveRow.
	Objective string
}

// SelectCV objectives.
const (
	// ObjectivePick: the share of held-out rows whose pick is within 5% of
	// their best, the row's error breaking near-ties (see SelectCV). For a
	// caller that runs each application where the classifier says.
	ObjectivePick = "pick"
	// ObjectiveRow: the least mean absolute error of the predicted row
	// over the unprofiled platforms, the pick's share breaking ties. For a
	// scheduler that ranks every platform by the row and falls back down
	// it when the best servers are taken (§3's greedy search).
	ObjectiveRow = "row"
)

// DefaultPlatformOptions: profile DefaultKnown platforms chosen by
// cross-validation, LogPCA of DefaultLogRank.
func DefaultPlatformOptions() PlatformOptions {
	return PlatformOptions{Known: DefaultKnown, Method: SelectCV, Margin: math.Inf(1), Rank: DefaultLogRank, Objective: ObjectivePick}
}

// Validate checks the options against a matrix of cols platforms.
func (o PlatformOptions) Validate(cols int) error {
	switch {
	case o.Known < 1 || o.Known >= cols:
		return fmt.Errorf("%w: known = %d, want 1 to %d (fewer than the %d platforms)", ErrBadOptions, o.Known, cols-1, cols)
	case !slices.Contains(SelectMethods, o.Method):
		return fmt.Errorf("%w: profile method %q, want one of %v", ErrUnknownName, o.Method, SelectMethods)
	case math.IsNaN(o.Margin) || o.Margin < 0:
		return fmt.Errorf("%w: margin %v, want ≥ 0 (or +Inf: never override)", ErrBadOptions, o.Margin)
	case o.Rank < 0:
		return fmt.Errorf("%w: rank %d, want ≥ 0", ErrBadOptions, o.Rank)
	case o.Objective != ObjectivePick && o.Objective != ObjectiveRow:
		return fmt.Errorf("%w: objective %q, want %s or %s", ErrUnknownName, o.Objective, ObjectivePick, ObjectiveRow)
	}
	return nil
}

// PlatformClassifier classifies a new application on an app × platform
// matrix from a few profiled platforms (§2.2), in three steps: which
// platforms to profile (Profile, chosen on the training rows), what the
// others would give (LogPCA's regularized fold-in), and which platform to
// run on (the fastest profiled one, unless the model predicts an
// unprofiled one faster by more than Margin).
type PlatformClassifier struct {
	Cols int
	// Method is the selection method in use (never SelectCV: the one the
	// cross-validation chose) and Margin the override margin.
	Method string
	Margin float64
	// Profile lists the platforms to profile, in selection order (nil for
	// SelectRandom, which draws per application).
	Profile []int
	Model   *LogPCA
	// CV is the cross-validation table when Method was chosen by it.
	CV []CVCandidate
	// known is PlatformOptions.Known.
	known int
}

// CVCandidate is one (method, margin) that SelectCV tried, with its
// held-out scores.
type CVCandidate struct {
	Method    string  `json:"method"`
	Margin    Margin  `json:"margin"`
	Within5   float64 `json:"within_5pct_accuracy"`
	Within10  float64 `json:"within_10pct_accuracy"`
	MeanScore float64 `json:"mean_score"`
	// MeanAbsError is the fold-in's mean |predicted − true| normalized
	// score over the held-out rows' unprofiled platforms.
	MeanAbsError float64 `json:"mean_abs_error"`
	// Rows is the number of held-out rows scored.
	Rows   int  `json:"rows"`
	Chosen bool `json:"chosen"`
}

// PlatformClass is one classified application.
type PlatformClass struct {
	// Perf is the predicted normalized performance per platform (best = 1):
	// measured where profiled, the model's elsewhere.
	Perf []float64
	// Pick is the platform the classifier recommends.
	Pick int
	// Known are the profiled platforms.
	Known []int
}

// TrainPlatform learns a classifier from training rows of normalized
// scores (or raw performance; higher is better), keyed by column in
// [0, cols). groups names each row's application (rows of one
// application, at several data sizes say, share it); SelectCV holds out a
// whole group at a time so that no candidate is scored on an application
// it was chosen with. nil groups make every row its own group.
func TrainPlatform(rows []map[int]float64, groups []string, cols int, o PlatformOptions) (*PlatformClassifier, error) {
	if err := o.Validate(cols); err != nil {
		return nil, err
	}
	if groups != nil && len(groups) != len(rows) {
		panic(fmt.Sprintf("paragon: TrainPlatform: %d groups for %d rows", len(groups), len(rows)))
	}
	scores := normalizeRows(rows)
	model, err := FitLogPCA(scores, cols, o.Rank)
	if err != nil {
		return nil, err
	}
	p := &PlatformClassifier{Cols: cols, Method: o.Method, Margin: o.Margin, Model: model, known: o.Known}
	if o.Method == SelectCV {
		cands, err := crossValidate(scores, groups, cols, o)
		if err != nil {
			return nil, err
		}
		best := chooseCandidate(cands, o.Objective)
		cands[best].Chosen = true
		p.CV = cands
		p.Method, p.Margin = cands[best].Method, float64(cands[best].Margin)
	}
	p.Profile = selectProfile(scores, cols, o.Known, p.Method)
	return p, nil
}

// Known is the number of platforms profiled per application.
func (p *PlatformClassifier) Known() int { return p.known }

// ProfileFor returns the platforms to profile for one application: the
// trained Profile, or for SelectRandom Known platforms drawn by rng.
func (p *PlatformClassifier) ProfileFor(rng *rand.Rand) []int {
	if p.Method != SelectRandom {
		return slices.Clone(p.Profile)
	}
	k := rng.Perm(p.Cols)[:p.known]
	sort.Ints(k)
	return k
}

// Classify turns measured performance on the profiled platforms (any
// scale, higher is better: 1 / run time, say) into a PlatformClass.
// Entries that are not finite and > 0 are ignored; with none left the
// prediction is the platform means.
func (p *PlatformClassifier) Classify(perf map[int]float64) PlatformClass {
	return decide(p.Model, perf, p.Margin)
}

// decide is Classify for a given model and margin.
func decide(m *LogPCA, perf map[int]float64, margin float64) PlatformClass {
	pred := m.FoldIn(perf)
	row := make([]float64, len(pred))
	for c, v := range pred {
		row[c] = math.Exp(v)
	}
	var known []int
	measured := make([]bool, len(row))
	bestM := -1
	for _, c := range sortedKeys(perf) {
		v := perf[c]
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		row[c] = v
		measured[c] = true
		known = append(known, c)
		if bestM < 0 || v > perf[bestM] {
			bestM = c
		}
	}
	pick := argmax(row)
	if bestM >= 0 {
		bestU := -1
		for c, v := range row {
			if measured[c] {
				continue
			}
			if bestU < 0 || v > row[bestU] {
				bestU = c
			}
		}
		pick = bestM
		if bestU >= 0 && row[bestU] > row[bestM]*(1+margin) {
			pick = bestU
		}
	}
	normalizeMax(row)
	return PlatformClass{Perf: row, Pick: pick, Known: known}
}

// normalizeRows divides each row by its largest value (rows of raw
// performance become normalized scores; normalized rows are unchanged).
func normalizeRows(rows []map[int]float64) []map[int]float64 {
	out := make([]map[int]float64, len(rows))
	for i, r := range rows {
		mx := 0.0
		for _, v := range r {
			mx = math.Max(mx, v)
		}
		out[i] = make(map[int]float64, len(r))
		for c, v := range r {
			if mx > 0 {
				out[i][c] = v / mx
			} else {
				out[i][c] = v
			}
		}
	}
	return out
}

// RowMeans returns the mean value per column of rows keyed by column in
// [0, cols), over the rows that have the column (0 for none): the
// platform means that predict an app without profiling it.
func RowMeans(rows []map[int]float64, cols int) []float64 {
	mean := make([]float64, cols)
	n := make([]float64, cols)
	for _, r := range rows {
		for c, v := range r {
			mean[c] += v
			n[c]++
		}
	}
	for c := range mean {
		if n[c] > 0 {
			mean[c] /= n[c]
		}
	}
	return mean
}

// selectProfile picks k columns by method from normalized rows (nil for
// SelectRandom).
func selectProfile(scores []map[int]float64, cols, k int, method string) []int {
	mean := RowMeans(scores, cols)
	switch method {
	case SelectRandom:
		return nil
	case SelectTopMean:
		idx := make([]int, cols)
		for c := range idx {
			idx[c] = c
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(mean[b], mean[a]) })
		return slices.Clone(idx[:k])
	}
	if method == SelectBestMean {
		top := make([]float64, len(scores)) // best profiled score per row so far
		var sel []int
		for len(sel) < k {
			best, bestSum := -1, -1.0
			for c := 0; c < cols; c++ {
				if slices.Contains(sel, c) {
					continue
				}
				sum := 0.0
				for i, r := range scores {
					sum += math.Max(top[i], r[c])
				}
				if sum > bestSum+tieTolerance {
					best, bestSum = c, sum
				}
			}
			sel = append(sel, best)
			for i, r := range scores {
				top[i] = math.Max(top[i], r[best])
			}
		}
		return sel
	}
	// SelectCover: greedy maximum coverage of the rows by "a profiled
	// platform within 5% of the row's best".
	covered := make([]bool, len(scores))
	var sel []int
	for len(sel) < k {
		best, bestGain := -1, -1
		for c := 0; c < cols; c++ {
			if slices.Contains(sel, c) {
				continue
			}
			gain := 0
			for i, r := range scores {
				if !covered[i] && r[c] >= NearBestFraction {
					gain++
				}
			}
			if gain > bestGain || (gain == bestGain && mean[c] > mean[best]) {
				best, bestGain = c, gain
			}
		}
		sel = append(sel, best)
		for i, r := range scores {
			if r[best] >= NearBestFraction {
				covered[i] = true
			}
		}
	}
	return sel
}

// crossValidate scores every (method, margin) with whole groups held out.
// Only held-out rows measured on every column are scored (their best is
// known); all rows train.
func crossValidate(scores []map[int]float64, groups []string, cols int, o PlatformOptions) ([]CVCandidate, error) {
	if groups == nil {
		groups = make([]string, len(scores))
		for i := range groups {
			groups[i] = fmt.Sprint(i)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, g := range groups {
			if !seen[g] {
				seen[g] = true
				if !yield(g) {
					return
				}
			}
		}
	})
	methods := []string{SelectCover, SelectBestMean, SelectTopMean}
	type acc struct{ w5, w10, score, n, err, nErr float64 }
	tally := make([][]acc, len(methods))
	for i := range tally {
		tally[i] = make([]acc, len(CVMargins))
	}
	for _, g := range names {
		var train, test []map[int]float64
		for i, r := range scores {
			if groups[i] == g {
				if len(r) == cols {
					test = append(test, r)
				}
			} else {
				train = append(train, r)
			}
		}
		if len(test) == 0 {
			continue
		}
		model, err := FitLogPCA(train, cols, o.Rank)
		if err != nil {
			continue // too few rows left to fit: this group scores nothing
		}
		for mi, method := range methods {
			prof := selectProfile(train, cols, o.Known, method)
			for _, r := range test {
				perf := make(map[int]float64, len(prof))
				for _, c := range prof {
					perf[c] = r[c]
				}
				pred := model.FoldIn(perf)
				var e, ne float64
				for _, c := range sortedKeys(r) {
					if _, measured := perf[c]; !measured {
						e += math.Abs(math.Exp(pred[c]) - r[c])
						ne++
					}
				}
				for ki, margin := range CVMargins {
					cl := decide(model, perf, margin)
					tally[mi][ki].err += e
					tally[mi][ki].nErr += ne
					s := r[cl.Pick] / maxOf(valuesOf(r))
					t := &tally[mi][ki]
					t.n++
					t.score += s
					if s >= NearBestFraction-tieTolerance {
						t.w5++
					}
					if s >= NearBest10Fraction-tieTolerance {
						t.w10++
					}
				}
			}
		}
	}
	var out []CVCandidate
	for mi, method := range methods {
		for ki, margin := range CVMargins {
			t := tally[mi][ki]
			if t.n == 0 {
				return nil, fmt.Errorf("%w: cross-validation has no held-out row measured on every platform", ErrEmpty)
			}
			out = append(out, CVCandidate{Method: method, Margin: Margin(margin), Within5: t.w5 / t.n, Within10: t.w10 / t.n,
				MeanScore: t.score / t.n, MeanAbsError: t.err / math.Max(t.nErr, 1), Rows: int(t.n)})
		}
	}
	return out, nil
}

// chooseCandidate applies SelectCV's rule (see there) and returns the
// index of the winner.
func chooseCandidate(cands []CVCandidate, objective string) int {
	if objective == ObjectiveRow {
		best := 0
		for i, c := range cands {
			b := cands[best]
			if c.MeanAbsError < b.MeanAbsError-tieTolerance ||
				(math.Abs(c.MeanAbsError-b.MeanAbsError) <= tieTolerance && c.Within5 > b.Within5) {
				best = i
			}
		}
		return best
	}
	top := 0
	for i, c := range cands {
		if c.Within5 > cands[top].Within5 {
			top = i
		}
	}
	p := cands[top].Within5
	se := math.Sqrt(p * (1 - p) / float64(max(cands[top].Rows, 1)))
	best := -1
	for i, c := range cands {
		if c.Within5 < p-se-tieTolerance {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := cands[best]
		switch {
		case c.MeanAbsError < b.MeanAbsError-tieTolerance:
			best = i
		case c.MeanAbsError > b.MeanAbsError+tieTolerance:
		case c.Within5 > b.Within5, c.Within5 == b.Within5 && c.Within10 > b.Within10,
			c.Within5 == b.Within5 && c.Within10 == b.Within10 && c.MeanScore > b.MeanScore:
			best = i
		}
	}
	return best
}

func valuesOf(m map[int]float64) []float64 {
	out := make([]float64, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Margin is an override margin; +Inf (never override) is null in JSON.
type Margin float64

// MarshalJSON writes the margin, or null for +Inf.
func (m Margin) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(m), 1) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(m))
}

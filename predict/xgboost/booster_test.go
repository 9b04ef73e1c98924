package xgboost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// smallBoosted and smallForest are the defaults cut to a size the tests
// train in milliseconds.
func smallBoosted(k int) Params {
	p := DefaultBoosted(k)
	p.Rounds = 10
	return p
}

func smallForest(k int) Params {
	p := DefaultForest(k)
	p.NumParallelTree = 10
	return p
}

// separable is a hand-made matrix of three classes, 8 rows each, that
// feature 0 separates (class c lies in [10c, 10c+7]); feature 1 repeats the
// same values in every class, feature 2 is missing in every other row.
func separable() (x, y []float32, rows, cols int) {
	const perClass = 8
	rows, cols = 3*perClass, 3
	for c := range 3 {
		for i := range perClass {
			f2 := float32(i)
			if i%2 == 1 {
				f2 = nan32
			}
			x = append(x, float32(10*c+i), float32(i%4), f2)
			y = append(y, float32(c))
		}
	}
	return x, y, rows, cols
}

func train(t *testing.T, x []float32, rows, cols int, y []float32, p Params) *Booster {
	t.Helper()
	b, err := Train(context.Background(), x, rows, cols, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func argmax(p []float32) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}

func save(t *testing.T, b *Booster) []byte {
	t.Helper()
	buf, err := b.Save()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// bitsEqual reports whether a and b hold the same float32 bit patterns.
func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// Both model kinds learn the separable matrix: every training row and a
// fresh point inside each class's range get their class, with
// probabilities that sum to 1.
func TestTrainSeparable(t *testing.T) {
	x, y, rows, cols := separable()
	for name, p := range map[string]Params{"boosted": smallBoosted(3), "forest": smallForest(3)} {
		t.Run(name, func(t *testing.T) {
			b := train(t, x, rows, cols, y, p)
			if b.NumClass() != 3 || b.NumFeatures() != cols {
				t.Fatalf("NumClass %d, NumFeatures %d; want 3, %d", b.NumClass(), b.NumFeatures(), cols)
			}
			probs, err := b.Predict(x, rows, cols)
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				row := probs[3*i : 3*i+3]
				if got := argmax(row); got != int(y[i]) {
					t.Errorf("row %d (x0=%v): predicted %d %v, want %v", i, x[i*cols], got, row, y[i])
				}
				if s := row[0] + row[1] + row[2]; math.Abs(float64(s)-1) > 1e-5 {
					t.Errorf("row %d: probabilities sum to %v", i, s)
				}
			}
			fresh := []float32{3.5, 2, nan32, 13.5, 0, nan32, 23.5, 3, 5}
			got, err := b.Predict(fresh, 3, cols)
			if err != nil {
				t.Fatal(err)
			}
			for c := range 3 {
				if a := argmax(got[3*c : 3*c+3]); a != c {
					t.Errorf("fresh point x0=%v: predicted %d %v, want %d", fresh[3*c], a, got[3*c:3*c+3], c)
				}
			}
		})
	}
}

// A saved model loads back with its shape and predicts the same
// probabilities bit for bit, and saves to the same bytes again.
func TestSaveLoad(t *testing.T) {
	const rows, cols, k = 600, 8, 4
	x, y := noisyData(rows, cols, k, 1)
	for name, p := range map[string]Params{"boosted": smallBoosted(k), "forest": smallForest(k)} {
		t.Run(name, func(t *testing.T) {
			b := train(t, x, rows, cols, y, p)
			buf := save(t, b)
			l, err := Load(buf)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.NumClass() != k || l.NumFeatures() != cols {
				t.Fatalf("loaded NumClass %d, NumFeatures %d; want %d, %d", l.NumClass(), l.NumFeatures(), k, cols)
			}
			want, err := b.Predict(x, rows, cols)
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.Predict(x, rows, cols)
			if err != nil {
				t.Fatal(err)
			}
			if !bitsEqual(got, want) {
				t.Error("loaded model predicts different probabilities")
			}
			if again := save(t, l); !bytes.Equal(again, buf) {
				t.Errorf("loaded model saves to %d different bytes (first %d)", len(again), len(buf))
			}
			gi, err := l.Importance(ImportanceTotalGain)
			if err != nil {
				t.Fatal(err)
			}
			wi, err := b.Importance(ImportanceTotalGain)
			if err != nil {
				t.Fatal(err)
			}
			for j := range wi {
				if gi[j] != wi[j] {
					t.Errorf("feature %d: importance %v after load, %v before", j, gi[j], wi[j])
				}
			}
		})
	}
}

// The same Params give byte-identical models, also when trainings run at
// once on several goroutines (XGBoost's random generator is per OS
// thread); a different seed gives a different forest.
func TestDeterministic(t *testing.T) {
	const rows, cols, k = 800, 8, 3
	x, y := noisyData(rows, cols, k, 2)
	boosted := smallBoosted(k)
	boosted.Subsample, boosted.ColsampleByNode = 0.7, 0.7 // make rounds draw
	exact := smallForest(k)
	exact.TreeMethod = Exact
	for name, p := range map[string]Params{"boosted": boosted, "forest": smallForest(k), "forest-exact": exact} {
		t.Run(name, func(t *testing.T) {
			ref := save(t, train(t, x, rows, cols, y, p))
			const parallel = 4
			got := make([][]byte, parallel)
			errs := make([]error, parallel)
			var wg sync.WaitGroup
			for i := range parallel {
				wg.Go(func() {
					b, err := Train(context.Background(), x, rows, cols, y, nil, p)
					if err != nil {
						errs[i] = err
						return
					}
					defer b.Close()
					got[i], errs[i] = b.Save()
				})
			}
			wg.Wait()
			for i := range parallel {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if !bytes.Equal(got[i], ref) {
					t.Errorf("concurrent training %d saved different bytes", i)
				}
			}
			q := p
			q.Seed++
			if other := save(t, train(t, x, rows, cols, y, q)); bytes.Equal(other, ref) {
				t.Errorf("seed %d and %d gave the same model", p.Seed, q.Seed)
			}
		})
	}
}

// On this data, 1 and 2 training threads give byte-identical models (the
// claim Params.NThread documents; not a guarantee for every data set).
func TestThreadsSameModel(t *testing.T) {
	const rows, cols, k = 2000, 10, 4
	x, y := noisyData(rows, cols, k, 3)
	p := smallBoosted(k)
	p.Subsample = 0.8
	p.NThread = 1
	one := save(t, train(t, x, rows, cols, y, p))
	p.NThread = 2
	if two := save(t, train(t, x, rows, cols, y, p)); !bytes.Equal(one, two) {
		t.Error("1 and 2 threads trained different models")
	}
}

// modelShape reads the rounds and trees of a model from its JSON form.
func modelShape(t *testing.T, b *Booster) (rounds, trees int) {
	t.Helper()
	rounds, err := b.boostedRounds()
	if err != nil {
		t.Fatal(err)
	}
	buf, err := b.save("json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Learner struct {
			GradientBooster struct {
				Model struct {
					Param struct {
						NumTrees        string `json:"num_trees"`
						NumParallelTree string `json:"num_parallel_tree"`
					} `json:"gbtree_model_param"`
					Trees []json.RawMessage `json:"trees"`
				} `json:"model"`
			} `json:"gradient_booster"`
		} `json:"learner"`
	}
	if err := json.Unmarshal(buf, &m); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(m.Learner.GradientBooster.Model.Param.NumTrees)
	if err != nil || n != len(m.Learner.GradientBooster.Model.Trees) {
		t.Fatalf("num_trees %q, %d trees in the JSON", m.Learner.GradientBooster.Model.Param.NumTrees,
			len(m.Learner.GradientBooster.Model.Trees))
	}
	return rounds, n
}

// A forest is one round of NumParallelTree trees per class; boosting is
// Rounds rounds of one tree per class.
func TestForestShape(t *testing.T) {
	const rows, cols, k = 300, 5, 3
	x, y := noisyData(rows, cols, k, 4)
	f := DefaultForest(k)
	f.NumParallelTree = 7
	if r, n := modelShape(t, train(t, x, rows, cols, y, f)); r != 1 || n != 7*k {
		t.Errorf("forest: %d rounds, %d trees; want 1, %d", r, n, 7*k)
	}
	g := DefaultBoosted(k)
	g.Rounds = 5
	if r, n := modelShape(t, train(t, x, rows, cols, y, g)); r != 5 || n != 5*k {
		t.Errorf("boosted: %d rounds, %d trees; want 5, %d", r, n, 5*k)
	}
}

// Feature 0 carries the class and comes first by gain, total gain and
// split count; a constant feature no split can use scores 0 under every
// kind; an unknown kind is refused.
func TestImportance(t *testing.T) {
	const rows, cols, k = 800, 6, 4
	x, y := noisyData(rows, cols, k, 5)
	const constant = 3
	for i := range rows {
		x[i*cols+constant] = 1
	}
	for name, p := range map[string]Params{"boosted": smallBoosted(k), "forest": smallForest(k)} {
		t.Run(name, func(t *testing.T) {
			b := train(t, x, rows, cols, y, p)
			for _, kind := range []string{ImportanceWeight, ImportanceGain, ImportanceTotalGain, ImportanceCover, ImportanceTotalCover} {
				imp, err := b.Importance(kind)
				if err != nil {
					t.Fatal(err)
				}
				if len(imp) != cols {
					t.Fatalf("%s: %d values for %d features", kind, len(imp), cols)
				}
				if imp[constant] != 0 {
					t.Errorf("%s: constant feature scores %v", kind, imp[constant])
				}
				for j, v := range imp {
					if !(v >= 0) {
						t.Errorf("%s: feature %d scores %v", kind, j, v)
					}
				}
				if kind == ImportanceCover || kind == ImportanceTotalCover {
					continue // cover follows where splits sit, not how useful they are
				}
				best := 0
				for j, v := range imp {
					if v > imp[best] {
						best = j
					}
				}
				if best != 0 {
					t.Errorf("%s: feature %d ranks first (%v), want 0", kind, best, imp)
				}
			}
			if _, err := b.Importance("gini"); !errors.Is(err, ErrInvalid) {
				t.Errorf("kind gini: error %v, want ErrInvalid", err)
			}
		})
	}
}

// PredictRow gives, row by row, the bits Predict gives for the matrix, and
// so does the DMatrix path the benchmarks compare it with.
func TestPredictRowEqualsPredict(t *testing.T) {
	const rows, cols, k = 400, 7, 4
	x, y := noisyData(rows, cols, k, 6)
	b := train(t, x, rows, cols, y, smallBoosted(k))
	all, err := b.Predict(x, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, k)
	for i := range rows {
		if err := b.PredictRow(x[i*cols:(i+1)*cols], out); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(out, all[i*k:(i+1)*k]) {
			t.Fatalf("row %d: PredictRow %v, Predict %v", i, out, all[i*k:(i+1)*k])
		}
		if err := b.predictDMatrix(x[i*cols:(i+1)*cols], 1, out); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(out, all[i*k:(i+1)*k]) {
			t.Fatalf("row %d: DMatrix path %v, in-place %v", i, out, all[i*k:(i+1)*k])
		}
	}
}

// Many goroutines predict rows of one booster at once, while others save
// it and read its importance; every prediction matches the sequential one
// (run with -race).
func TestConcurrentPredictRow(t *testing.T) {
	const rows, cols, k = 300, 6, 3
	x, y := noisyData(rows, cols, k, 7)
	b := train(t, x, rows, cols, y, smallForest(k))
	want, err := b.Predict(x, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	ref := save(t, b)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Go(func() {
			out := make([]float32, k)
			for i := g; i < rows; i += 2 {
				if err := b.PredictRow(x[i*cols:(i+1)*cols], out); err != nil {
					errs <- err
					return
				}
				if !bitsEqual(out, want[i*k:(i+1)*k]) {
					errs <- fmt.Errorf("goroutine %d, row %d: %v, want %v", g, i, out, want[i*k:(i+1)*k])
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 5 {
				buf, err := b.Save()
				if err == nil && !bytes.Equal(buf, ref) {
					err = errors.New("Save gave different bytes under concurrent prediction")
				}
				if err == nil {
					_, err = b.Importance(ImportanceGain)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Weights reach XGBoost: unit weights train the unweighted model, and a
// class whose rows all weigh 0 is never learned.
func TestWeights(t *testing.T) {
	const rows, cols, k = 600, 5, 3
	x, y := noisyData(rows, cols, k, 8)
	p := smallBoosted(k)
	plain := save(t, train(t, x, rows, cols, y, p))
	ones := make([]float32, rows)
	zeroTwo := make([]float32, rows)
	for i := range ones {
		ones[i] = 1
		if y[i] != 2 {
			zeroTwo[i] = 1
		}
	}
	b, err := Train(context.Background(), x, rows, cols, y, ones, p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !bytes.Equal(save(t, b), plain) {
		t.Error("unit weights trained a different model than no weights")
	}
	w, err := Train(context.Background(), x, rows, cols, y, zeroTwo, p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	probs, err := w.Predict(x, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if a := argmax(probs[i*k : (i+1)*k]); a == 2 {
			t.Fatalf("row %d predicted class 2, whose rows all weigh 0 (%v)", i, probs[i*k:(i+1)*k])
		}
	}
}

// countdownCtx reports Canceled from its (n+1)-th Err call on.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n == 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// Train checks its context before it starts and between rounds.
func TestTrainContext(t *testing.T) {
	x, y, rows, cols := separable()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, x, rows, cols, y, nil, smallBoosted(3)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
	// One Err call before training, then one per round: stop after 2 rounds.
	ctx2 := &countdownCtx{Context: context.Background(), n: 3}
	_, err := Train(ctx2, x, rows, cols, y, nil, smallBoosted(3))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 2 of 10 rounds") {
		t.Errorf("cancel after 2 rounds: error %v", err)
	}
}

// Validate refuses every out-of-range field and names it.
func TestValidate(t *testing.T) {
	for name, p := range map[string]Params{"boosted": DefaultBoosted(4), "forest": DefaultForest(2)} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s defaults: %v", name, err)
		}
	}
	nan := math.NaN()
	cases := []struct {
		field string
		edit  func(*Params)
	}{
		{"objective", func(p *Params) { p.Objective = "reg:squarederror" }},
		{"objective", func(p *Params) { p.Objective = "" }},
		{"num_class", func(p *Params) { p.NumClass = 1 }},
		{"num_class", func(p *Params) { p.NumClass = 0 }},
		{"rounds", func(p *Params) { p.Rounds = 0 }},
		{"max_depth", func(p *Params) { p.MaxDepth = 0 }},
		{"num_parallel_tree", func(p *Params) { p.NumParallelTree = 0 }},
		{"tree_method", func(p *Params) { p.TreeMethod = "approx" }},
		{"seed", func(p *Params) { p.Seed = MaxSeed + 1 }},
		{"nthread", func(p *Params) { p.NThread = 0 }},
		{"eta", func(p *Params) { p.Eta = 0 }},
		{"eta", func(p *Params) { p.Eta = 1.5 }},
		{"eta", func(p *Params) { p.Eta = nan }},
		{"subsample", func(p *Params) { p.Subsample = 0 }},
		{"subsample", func(p *Params) { p.Subsample = 1.01 }},
		{"subsample", func(p *Params) { p.Subsample = nan }},
		{"colsample_bynode", func(p *Params) { p.ColsampleByNode = -0.5 }},
		{"colsample_bynode", func(p *Params) { p.ColsampleByNode = nan }},
		{"min_child_weight", func(p *Params) { p.MinChildWeight = -1 }},
		{"min_child_weight", func(p *Params) { p.MinChildWeight = nan }},
		{"lambda", func(p *Params) { p.Lambda = math.Inf(1) }},
		{"lambda", func(p *Params) { p.Lambda = -0.1 }},
	}
	x, y, rows, cols := separable()
	for _, c := range cases {
		p := DefaultBoosted(3)
		c.edit(&p)
		err := p.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: Validate: %v", c.field, err)
		}
		if _, err := Train(context.Background(), x, rows, cols, y, nil, p); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Train accepted invalid params: %v", c.field, err)
		}
	}
	p := DefaultForest(3)
	p.Seed = MaxSeed
	if err := p.Validate(); err != nil {
		t.Errorf("seed MaxSeed: %v", err)
	}
}

// Train refuses bad shapes, labels, weights and values before calling
// XGBoost, naming what is wrong.
func TestTrainInputErrors(t *testing.T) {
	x, y, rows, cols := separable()
	p := smallBoosted(3)
	inf := float32(math.Inf(1))
	with := func(s []float32, i int, v float32) []float32 {
		s = append([]float32(nil), s...)
		s[i] = v
		return s
	}
	ones := make([]float32, rows)
	for i := range ones {
		ones[i] = 1
	}
	cases := []struct {
		name, want string
		x          []float32
		rows, cols int
		y, w       []float32
	}{
		{"short matrix", "matrix has 71 values", x[:len(x)-1], rows, cols, y, nil},
		{"no rows", "no training rows", nil, 0, cols, nil, nil},
		{"no columns", "0 columns", x, rows, 0, y, nil},
		{"negative rows", "-1 rows", x, -1, cols, y, nil},
		{"huge", "too large", x, math.MaxInt / 2, 3, y, nil},
		{"infinite value", "row 2, column 1 is +Inf", with(x, 2*cols+1, inf), rows, cols, y, nil},
		{"label count", "23 labels for 24 rows", x, rows, cols, y[1:], nil},
		{"label too big", "row 5: label 3", x, rows, cols, with(y, 5, 3), nil},
		{"negative label", "row 0: label -1", x, rows, cols, with(y, 0, -1), nil},
		{"fractional label", "row 4: label 0.5", x, rows, cols, with(y, 4, 0.5), nil},
		{"NaN label", "row 1: label NaN", x, rows, cols, with(y, 1, nan32), nil},
		{"weight count", "23 weights for 24 rows", x, rows, cols, y, ones[1:]},
		{"negative weight", "row 3: weight -1", x, rows, cols, y, with(ones, 3, -1)},
		{"NaN weight", "row 3: weight NaN", x, rows, cols, y, with(ones, 3, nan32)},
		{"infinite weight", "row 3: weight +Inf", x, rows, cols, y, with(ones, 3, inf)},
		{"zero weights", "every weight is 0", x, rows, cols, y, make([]float32, rows)},
	}
	for _, c := range cases {
		_, err := Train(context.Background(), c.x, c.rows, c.cols, c.y, c.w, p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInvalid saying %q", c.name, err, c.want)
		}
	}
}

// Predict and PredictRow refuse bad shapes and infinite values, take an
// empty matrix and missing values, and refuse everything once closed.
func TestPredictInputErrors(t *testing.T) {
	x, y, rows, cols := separable()
	b, err := Train(context.Background(), x, rows, cols, y, nil, smallBoosted(3))
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(-1))
	checks := []struct {
		name, want string
		err        error
	}{
		{"wrong columns", "2 columns, the model takes 3", func() error { _, err := b.Predict(x[:4], 2, 2); return err }()},
		{"short matrix", "matrix has 5 values", func() error { _, err := b.Predict(x[:5], 2, 3); return err }()},
		{"infinite value", "row 1, column 0 is -Inf", func() error { _, err := b.Predict([]float32{1, 2, 3, inf, 0, 0}, 2, 3); return err }()},
		{"row length", "row has 2 values", b.PredictRow(x[:2], make([]float32, 3))},
		{"output length", "room for 4 classes", b.PredictRow(x[:3], make([]float32, 4))},
		{"row infinite", "column 2 is -Inf", b.PredictRow([]float32{1, 2, inf}, make([]float32, 3))},
	}
	for _, c := range checks {
		if !errors.Is(c.err, ErrInvalid) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInvalid saying %q", c.name, c.err, c.want)
		}
	}
	if got, err := b.Predict(nil, 0, cols); err != nil || len(got) != 0 {
		t.Errorf("empty matrix: %v, %v", got, err)
	}
	out := make([]float32, 3)
	if err := b.PredictRow([]float32{nan32, nan32, nan32}, out); err != nil || argmax(out) < 0 {
		t.Errorf("all-missing row: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := b.PredictRow(x[:3], out); !errors.Is(err, ErrClosed) {
		t.Errorf("PredictRow after Close: %v", err)
	}
	if _, err := b.Predict(x, rows, cols); !errors.Is(err, ErrClosed) {
		t.Errorf("Predict after Close: %v", err)
	}
	if _, err := b.Save(); !errors.Is(err, ErrClosed) {
		t.Errorf("Save after Close: %v", err)
	}
	if _, err := b.Importance(ImportanceGain); !errors.Is(err, ErrClosed) {
		t.Errorf("Importance after Close: %v", err)
	}
}

// Load refuses an empty buffer, bytes that are no model (with XGBoost's
// own message) and a model whose objective Predict cannot serve.
func TestLoadErrors(t *testing.T) {
	if _, err := Load(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty buffer: %v", err)
	}
	_, err := Load([]byte("not a model"))
	if !errors.Is(err, ErrXGBoost) || len(err.Error()) < len("xgboost: library error: load model: ")+10 ||
		strings.Contains(err.Error(), "Stack trace") {
		t.Errorf("garbage buffer: %v, want ErrXGBoost with XGBoost's message and no stack trace", err)
	}
	x, y, rows, cols := separable()
	js, err := train(t, x, rows, cols, y, smallBoosted(3)).save("json")
	if err != nil {
		t.Fatal(err)
	}
	softmax := bytes.ReplaceAll(js, []byte(`"multi:softprob"`), []byte(`"multi:softmax"`))
	if bytes.Equal(softmax, js) {
		t.Fatal("JSON model does not name its objective")
	}
	if _, err := Load(softmax); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "multi:softmax") {
		t.Errorf("softmax model: %v", err)
	}
	// A linear model with the same objective: XGBoost loads it, Load
	// refuses it (one weight per feature and class, plus the biases).
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	weights := make([]float64, (cols+1)*3)
	for i := range weights {
		weights[i] = 0.25 // not 0: XGBoost wants JSON numbers, not integers
	}
	m["learner"].(map[string]any)["gradient_booster"] = map[string]any{
		"name": "gblinear", "model": map[string]any{"weights": weights}}
	linear, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(linear); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "gblinear") {
		t.Errorf("gblinear model: %v", err)
	}
	l, err := Load(js)
	if err != nil {
		t.Fatalf("JSON model: %v", err)
	}
	l.Close()
}

// A model that found no split (every feature constant) has importance 0
// for every feature under every kind.
func TestImportanceNoSplit(t *testing.T) {
	const rows, cols = 40, 3
	x := make([]float32, rows*cols)
	y := make([]float32, rows)
	for i := range y {
		y[i] = float32(i % 2)
	}
	b := train(t, x, rows, cols, y, smallBoosted(2))
	for _, kind := range []string{ImportanceWeight, ImportanceGain, ImportanceTotalGain, ImportanceCover, ImportanceTotalCover} {
		imp, err := b.Importance(kind)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if len(imp) != cols || imp[0] != 0 || imp[1] != 0 || imp[2] != 0 {
			t.Errorf("%s: %v, want %d zeros", kind, imp, cols)
		}
	}
}

// A Booster dropped without Close has its XGBoost objects freed by the
// garbage collector.
func TestDroppedBoosterFreed(t *testing.T) {
	x, y, rows, cols := separable()
	b, err := Train(context.Background(), x, rows, cols, y, nil, smallForest(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.PredictRow(x[:cols], make([]float32, 3)); err != nil { // makes a proxy
		t.Fatal(err)
	}
	hs := b.hs
	b = nil
	freed := func() bool {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		return hs.booster == nil && hs.proxies == nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for !freed() {
		if time.Now().After(deadline) {
			t.Fatal("dropped booster not freed")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

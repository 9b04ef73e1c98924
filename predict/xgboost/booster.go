package xgboost

/*
#cgo pkg-config: xgboost
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

// Settings of every prediction: transformed output (probabilities, or an
// AFT model's times), all trees, the (rows, outputs) shape, NaN for a
// missing value; and the same for the margin (type 1: the trees' raw sum,
// an AFT model's μ).
static const char xgbl_predict_config[] =
    "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
    "\"strict_shape\":true,\"cache_id\":0,\"missing\":NaN}";
static const char xgbl_margin_config[] =
    "{\"type\":1,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
    "\"strict_shape\":true,\"cache_id\":0,\"missing\":NaN}";

// xgbl_predict_dense runs XGBoost's in-place prediction on the row-major
// rows × cols matrix x through the proxy DMatrix and copies the rows × want
// outputs into out (the margin when margin is not 0). XGBoost returns its
// result in a thread-local buffer and its error text in thread-local
// storage; reading both inside this one call, on the thread that produced
// them, is what makes the result safe to use from Go. It returns NULL, or a
// copy of the error text that the caller frees.
static char *xgbl_predict_dense(BoosterHandle h, DMatrixHandle proxy, const float *x,
                                bst_ulong rows, bst_ulong cols, float *out, bst_ulong want, int margin) {
	char iface[192];
	snprintf(iface, sizeof iface,
	         "{\"data\":[%llu,true],\"shape\":[%llu,%llu],\"typestr\":\"<f4\",\"version\":3}",
	         (unsigned long long)(uintptr_t)x, (unsigned long long)rows, (unsigned long long)cols);
	const bst_ulong *shape;
	bst_ulong dim;
	const float *res;
	if (XGBoosterPredictFromDense(h, iface, margin ? xgbl_margin_config : xgbl_predict_config, proxy,
	                              &shape, &dim, &res) != 0) {
		return strdup(XGBGetLastError());
	}
	if (dim != 2 || shape[0] != rows || shape[0] * shape[1] != want) {
		return strdup("prediction shape is not (rows, outputs)");
	}
	memcpy(out, res, want * sizeof(float));
	return NULL;
}
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Sentinel errors. Every error of the package wraps one of them (or the
// context's error).
var (
	// ErrInvalid: the caller's input is out of range — a parameter, a
	// shape, a label, a weight, an infinite value; the message names it.
	ErrInvalid = errors.New("xgboost: invalid input")
	// ErrXGBoost: the library refused a call; the message carries
	// XGBGetLastError's text.
	ErrXGBoost = errors.New("xgboost: library error")
	// ErrClosed: the Booster was closed.
	ErrClosed = errors.New("xgboost: booster is closed")
)

// Importance kinds accepted by Booster.Importance (XGBoost's names).
const (
	ImportanceWeight     = "weight"      // splits on the feature
	ImportanceGain       = "gain"        // mean loss reduction of those splits
	ImportanceTotalGain  = "total_gain"  // summed loss reduction
	ImportanceCover      = "cover"       // mean hessian sum of those splits
	ImportanceTotalCover = "total_cover" // summed hessian sum
)

// predictThreads is the OpenMP threads a Booster predicts with. One: a row
// is too little work to share. On this shared 2-core machine an OpenMP team
// of two made PredictRow about four times slower (median 83 µs against
// 22 µs; single runs far worse) while batch prediction gained about 6%
// (BenchmarkPredictThreads); callers that want throughput predict from
// several goroutines instead.
const predictThreads = 1

// Booster is a trained tree model: a multi-class classifier (SoftProb) or
// an AFT survival model (AFT). Predict and PredictRow may
// be called from many goroutines at once: XGBoost documents prediction with
// tree models as thread safe since 1.4 "but the safety is only guaranteed
// with prediction" (doc/prediction.rst, Thread Safety), and the Booster
// guarantees that with a read-write lock (predictions share it; Save,
// Importance and Close hold it alone). Close frees the XGBoost objects; a
// Booster dropped without Close is freed by the garbage collector.
type Booster struct {
	mu         sync.RWMutex // read: predictions; write: everything else
	hs         *handles     // hs.booster nil once closed
	numClass   int          // outputs per row: the classes, 1 for AFT
	numFeature int
	objective  string
	aftDist    string  // AFT only
	aftScale   float64 // AFT only
	cleanup    runtime.Cleanup
}

// handles are the XGBoost objects of a Booster, held apart from it so that
// the garbage collector's cleanup can free them once the Booster is gone.
type handles struct {
	booster C.BoosterHandle
	// proxies are idle proxy DMatrices for in-place prediction, one per
	// prediction running at a time, reused: without one XGBoost builds a
	// proxy per call, and each build reads the cgroup CPU quota from
	// /sys (XGBoost's Context constructor).
	mu      sync.Mutex
	proxies []C.DMatrixHandle
}

// free frees the booster and its proxies.
func (hs *handles) free() error {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	rc := C.XGBoosterFree(hs.booster)
	hs.booster = nil
	for _, p := range hs.proxies {
		C.XGDMatrixFree(p)
	}
	hs.proxies = nil
	if rc != 0 {
		return fmt.Errorf("%w: XGBoosterFree failed", ErrXGBoost)
	}
	return nil
}

// proxy takes an idle proxy DMatrix or makes one.
func (hs *handles) proxy() (C.DMatrixHandle, error) {
	hs.mu.Lock()
	if n := len(hs.proxies); n > 0 {
		p := hs.proxies[n-1]
		hs.proxies = hs.proxies[:n-1]
		hs.mu.Unlock()
		return p, nil
	}
	hs.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var p C.DMatrixHandle
	if err := check(C.XGProxyDMatrixCreate(&p), "XGProxyDMatrixCreate"); err != nil {
		return nil, err
	}
	return p, nil
}

// release returns a proxy to the idle list.
func (hs *handles) release(p C.DMatrixHandle) {
	hs.mu.Lock()
	hs.proxies = append(hs.proxies, p)
	hs.mu.Unlock()
}

// lastError wraps ErrXGBoost with XGBGetLastError's text. The text is
// thread-local in XGBoost: call it with the OS thread locked since the
// failing call.
func lastError(what string) error {
	return xgbError(what, C.GoString(C.XGBGetLastError()))
}

// xgbError wraps ErrXGBoost with an XGBoost message, less the native stack
// trace XGBoost appends to it.
func xgbError(what, msg string) error {
	if i := strings.Index(msg, "Stack trace:"); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("%w: %s: %s", ErrXGBoost, what, strings.TrimSpace(msg))
}

// check turns a C return code into an error (see lastError).
func check(rc C.int, what string) error {
	if rc != 0 {
		return lastError(what)
	}
	return nil
}

// newBooster wraps a configured handle whose objective, output and feature
// counts are known (with the AFT distribution and σ for AFT): it sets the
// prediction threads, lets XGBoost finish configuring (so that concurrent
// predictions find nothing left to configure) and registers the garbage
// collector's safety net. The OS thread is locked by the caller. On error h
// is left to the caller.
func newBooster(h C.BoosterHandle, objective string, numClass, numFeature int, aftDist string, aftScale float64) (*Booster, error) {
	if err := setThreads(h, predictThreads); err != nil {
		return nil, err
	}
	hs := &handles{booster: h}
	b := &Booster{hs: hs, numClass: numClass, numFeature: numFeature, objective: objective, aftDist: aftDist, aftScale: aftScale}
	b.cleanup = runtime.AddCleanup(b, func(hs *handles) { hs.free() }, hs)
	return b, nil
}

// Close frees the booster's XGBoost objects. Later Predict, PredictRow,
// Save and Importance calls return ErrClosed; closing twice is harmless.
func (b *Booster) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hs.booster == nil {
		return nil
	}
	b.cleanup.Stop()
	return b.hs.free()
}

// NumClass is the number of values Predict returns per row, the length of
// a PredictRow result: the classes of a SoftProb model, 1 for an AFT model.
func (b *Booster) NumClass() int { return b.numClass }

// Objective is the model's objective, SoftProb or AFT.
func (b *Booster) Objective() string { return b.objective }

// Survival returns an AFT model's distribution of Z and its σ, with ok
// false for a SoftProb model.
func (b *Booster) Survival() (dist string, scale float64, ok bool) {
	return b.aftDist, b.aftScale, b.objective == AFT
}

// NumFeatures is the number of features (columns) the model takes.
func (b *Booster) NumFeatures() int { return b.numFeature }

// matrixLen returns rows*cols, refusing negative sizes and overflow.
func matrixLen(rows, cols int) (int, error) {
	if rows < 0 || cols < 1 {
		return 0, fmt.Errorf("%w: matrix of %d rows × %d columns", ErrInvalid, rows, cols)
	}
	if rows > math.MaxInt/cols || rows*cols > math.MaxInt/4 {
		return 0, fmt.Errorf("%w: matrix of %d rows × %d columns is too large", ErrInvalid, rows, cols)
	}
	return rows * cols, nil
}

// checkMatrix refuses a matrix whose length is not rows*cols or that holds
// an infinite value (NaN is allowed: it marks a missing value).
func checkMatrix(x []float32, rows, cols int) error {
	n, err := matrixLen(rows, cols)
	if err != nil {
		return err
	}
	if len(x) != n {
		return fmt.Errorf("%w: matrix has %d values, want %d rows × %d columns = %d", ErrInvalid, len(x), rows, cols, n)
	}
	for i, v := range x {
		if math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: row %d, column %d is %v (use NaN for a missing value)", ErrInvalid, i/cols, i%cols, v)
		}
	}
	return nil
}

// Train fits a classifier (Objective SoftProb) to the row-major rows × cols
// matrix x (NaN marks a missing value) with class labels y (0 …
// p.NumClass-1, one per row) and optional per-row weights (nil weighs rows
// equally; otherwise finite, non-negative and not all zero). It runs
// p.Rounds boosting rounds and returns ctx's error, wrapped, if ctx ends
// between two rounds. An AFT model is trained by TrainSurvival.
//
// Training is deterministic: the same data and Params give a model whose
// Save bytes are identical. XGBoost keeps its random generator per OS
// thread, so Train runs every round on one locked thread and also reseeds
// the generator each round (XGBoost's seed_per_iteration).
func Train(ctx context.Context, x []float32, rows, cols int, y, weights []float32, p Params) (*Booster, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Objective != SoftProb {
		return nil, fmt.Errorf("%w: objective %q: Train fits %q (TrainSurvival fits %q)", ErrInvalid, p.Objective, SoftProb, AFT)
	}
	if err := checkMatrix(x, rows, cols); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, fmt.Errorf("%w: no training rows", ErrInvalid)
	}
	if len(y) != rows {
		return nil, fmt.Errorf("%w: %d labels for %d rows", ErrInvalid, len(y), rows)
	}
	for i, v := range y {
		if !(v >= 0 && v < float32(p.NumClass)) || v != float32(math.Trunc(float64(v))) {
			return nil, fmt.Errorf("%w: row %d: label %v: want an integer in [0, %d)", ErrInvalid, i, v, p.NumClass)
		}
	}
	if err := checkWeights(weights, rows); err != nil {
		return nil, err
	}
	return fit(ctx, x, rows, cols, p, func(dm C.DMatrixHandle) error {
		if err := setFloatInfo(dm, "label", y); err != nil {
			return err
		}
		if weights != nil {
			return setFloatInfo(dm, "weight", weights)
		}
		return nil
	})
}

// TrainSurvival fits an AFT model (Objective AFT) to the row-major rows ×
// cols matrix x (NaN marks a missing value) with interval-censored
// survival times: row i's time T lies in [lower[i], upper[i]]. lower[i]
// must be finite and > 0 (the model is of ln T; a caller with zero times
// floors them at a small positive value); upper[i] ≥ lower[i], +Inf for a
// right-censored row; lower[i] = upper[i] for an observed time. NaN is
// refused. With p.BaseScore 0 the model starts from the geometric mean of
// the lower bounds. weights are optional per-row weights, checked as for
// Train (nil weighs every row 1). Rounds, context and determinism are as
// for Train.
func TrainSurvival(ctx context.Context, x []float32, rows, cols int, lower, upper, weights []float32, p Params) (*Booster, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Objective != AFT {
		return nil, fmt.Errorf("%w: objective %q: TrainSurvival fits %q (Train fits %q)", ErrInvalid, p.Objective, AFT, SoftProb)
	}
	if err := checkMatrix(x, rows, cols); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, fmt.Errorf("%w: no training rows", ErrInvalid)
	}
	if len(lower) != rows || len(upper) != rows {
		return nil, fmt.Errorf("%w: %d lower and %d upper bounds for %d rows", ErrInvalid, len(lower), len(upper), rows)
	}
	if err := checkWeights(weights, rows); err != nil {
		return nil, err
	}
	var logSum float64
	for i := range lower {
		lo, hi := float64(lower[i]), float64(upper[i])
		switch {
		case !(lo > 0) || math.IsInf(lo, 1):
			return nil, fmt.Errorf("%w: row %d: lower bound %v: want a finite time > 0", ErrInvalid, i, lower[i])
		case math.IsNaN(hi) || hi < lo:
			return nil, fmt.Errorf("%w: row %d: upper bound %v: want ≥ the lower bound %v (+Inf: censored)", ErrInvalid, i, upper[i], lower[i])
		}
		logSum += math.Log(lo)
	}
	if p.BaseScore == 0 {
		p.BaseScore = math.Exp(logSum / float64(rows))
	}
	return fit(ctx, x, rows, cols, p, func(dm C.DMatrixHandle) error {
		if err := setFloatInfo(dm, "label_lower_bound", lower); err != nil {
			return err
		}
		if err := setFloatInfo(dm, "label_upper_bound", upper); err != nil {
			return err
		}
		if weights != nil {
			return setFloatInfo(dm, "weight", weights)
		}
		return nil
	})
}

// fit runs p.Rounds rounds on x with the labels that info sets on the
// DMatrix. x and p are checked by the caller.
func fit(ctx context.Context, x []float32, rows, cols int, p Params, info func(C.DMatrixHandle) error) (*Booster, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("xgboost: train: %w", err)
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var dm C.DMatrixHandle
	if err := check(C.XGDMatrixCreateFromMat_omp((*C.float)(unsafe.Pointer(&x[0])), C.bst_ulong(rows), C.bst_ulong(cols),
		C.float(math.NaN()), &dm, C.int(p.NThread)), "XGDMatrixCreateFromMat_omp"); err != nil {
		return nil, err
	}
	defer C.XGDMatrixFree(dm)
	if err := info(dm); err != nil {
		return nil, err
	}

	var h C.BoosterHandle
	if err := check(C.XGBoosterCreate(&dm, 1, &h), "XGBoosterCreate"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			C.XGBoosterFree(h)
		}
	}()
	for _, kv := range p.xgbParams() {
		if err := setParam(h, kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	for round := 0; round < p.Rounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("xgboost: train: stopped after %d of %d rounds: %w", round, p.Rounds, err)
		}
		if err := check(C.XGBoosterUpdateOneIter(h, C.int(round), dm), fmt.Sprintf("round %d", round)); err != nil {
			return nil, err
		}
	}
	b, err := newBooster(h, p.Objective, p.Outputs(), cols, p.AFTDistribution, p.AFTScale)
	if err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// xgbParams lists p as XGBoost parameters, in the order they are set.
func (p Params) xgbParams() [][2]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	i := strconv.Itoa
	out := [][2]string{
		{"booster", "gbtree"},
		{"objective", p.Objective},
	}
	if p.Survival() {
		out = append(out, [][2]string{
			{"aft_loss_distribution", p.AFTDistribution},
			{"aft_loss_distribution_scale", f(p.AFTScale)},
			{"base_score", f(p.BaseScore)},
		}...)
	} else {
		out = append(out, [2]string{"num_class", i(p.NumClass)})
	}
	return append(out, [][2]string{
		{"max_depth", i(p.MaxDepth)},
		{"eta", f(p.Eta)},
		{"subsample", f(p.Subsample)},
		{"colsample_bynode", f(p.ColsampleByNode)},
		{"num_parallel_tree", i(p.NumParallelTree)},
		{"min_child_weight", f(p.MinChildWeight)},
		{"lambda", f(p.Lambda)},
		{"tree_method", p.TreeMethod},
		{"seed", strconv.FormatUint(p.Seed, 10)},
		{"seed_per_iteration", "true"},
		{"nthread", i(p.NThread)},
		// Warnings and errors only (XGBoost's default); errors also
		// reach the caller through XGBGetLastError.
		{"verbosity", "1"},
	}...)
}

// setThreads sets the OpenMP threads of h's predictions and lets XGBoost
// reconfigure at once (OS thread locked by the caller).
func setThreads(h C.BoosterHandle, n int) error {
	if err := setParam(h, "nthread", strconv.Itoa(n)); err != nil {
		return err
	}
	var nf C.bst_ulong
	return check(C.XGBoosterGetNumFeature(h, &nf), "configure") // configures
}

// setParam sets one booster parameter (OS thread locked by the caller).
func setParam(h C.BoosterHandle, name, value string) error {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	return check(C.XGBoosterSetParam(h, cn, cv), fmt.Sprintf("set %s=%s", name, value))
}

// setFloatInfo sets a per-row float field (OS thread locked by the caller).
func setFloatInfo(dm C.DMatrixHandle, field string, v []float32) error {
	cf := C.CString(field)
	defer C.free(unsafe.Pointer(cf))
	return check(C.XGDMatrixSetFloatInfo(dm, cf, (*C.float)(unsafe.Pointer(&v[0])), C.bst_ulong(len(v))), "set "+field)
}

// Predict returns, for each row of the row-major rows × cols matrix x (NaN
// marks a missing value; cols must be NumFeatures), the model's output: a
// SoftProb model's probability of each class (a rows × NumClass row-major
// slice whose rows sum to 1), an AFT model's predicted time exp(μ) (one
// value per row).
func (b *Booster) Predict(x []float32, rows, cols int) ([]float32, error) {
	return b.predictMatrix(x, rows, cols, false)
}

// PredictMargin is Predict before the objective's transformation: an AFT
// model's μ = ln of the predicted time (the mean of ln T), a SoftProb
// model's raw per-class scores.
func (b *Booster) PredictMargin(x []float32, rows, cols int) ([]float32, error) {
	return b.predictMatrix(x, rows, cols, true)
}

func (b *Booster) predictMatrix(x []float32, rows, cols int, margin bool) ([]float32, error) {
	if cols != b.numFeature {
		return nil, fmt.Errorf("%w: %d columns, the model takes %d features", ErrInvalid, cols, b.numFeature)
	}
	if err := checkMatrix(x, rows, cols); err != nil {
		return nil, err
	}
	out := make([]float32, rows*b.numClass)
	if err := b.predict(x, rows, out, margin); err != nil {
		return nil, err
	}
	return out, nil
}

// PredictRow writes the output of one row x (NumFeatures values, NaN for
// missing) into out (NumClass values): the class probabilities, or an AFT
// model's time. It allocates nothing and is the serving path.
func (b *Booster) PredictRow(x, out []float32) error { return b.predictRow(x, out, false) }

// PredictRowMargin is PredictRow before the objective's transformation (an
// AFT model's μ).
func (b *Booster) PredictRowMargin(x, out []float32) error { return b.predictRow(x, out, true) }

func (b *Booster) predictRow(x, out []float32, margin bool) error {
	if len(x) != b.numFeature {
		return fmt.Errorf("%w: row has %d values, the model takes %d features", ErrInvalid, len(x), b.numFeature)
	}
	if len(out) != b.numClass {
		return fmt.Errorf("%w: output has room for %d classes, the model has %d", ErrInvalid, len(out), b.numClass)
	}
	for j, v := range x {
		if math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: column %d is %v (use NaN for a missing value)", ErrInvalid, j, v)
		}
	}
	return b.predict(x, 1, out, margin)
}

// predict runs in-place prediction of rows rows of x into out, which has
// rows × NumClass room. Shapes are checked by the caller.
func (b *Booster) predict(x []float32, rows int, out []float32, margin bool) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.hs.booster == nil {
		return ErrClosed
	}
	if rows == 0 {
		return nil
	}
	proxy, err := b.hs.proxy()
	if err != nil {
		return err
	}
	defer b.hs.release(proxy)
	m := C.int(0)
	if margin {
		m = 1
	}
	if msg := C.xgbl_predict_dense(b.hs.booster, proxy, (*C.float)(unsafe.Pointer(&x[0])), C.bst_ulong(rows),
		C.bst_ulong(b.numFeature), (*C.float)(unsafe.Pointer(&out[0])), C.bst_ulong(len(out)), m); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return xgbError("predict", C.GoString(msg))
	}
	return nil
}

// Save serializes the model in XGBoost's UBJSON model format (trees and
// objective; not the training settings such as NThread). Load reads it
// back; the same model saves to the same bytes.
func (b *Booster) Save() ([]byte, error) { return b.save("ubj") }

// save serializes the model in XGBoost format "ubj" or "json".
func (b *Booster) save(format string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hs.booster == nil {
		return nil, ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cfg := C.CString(`{"format":"` + format + `"}`)
	defer C.free(unsafe.Pointer(cfg))
	var n C.bst_ulong
	var p *C.char
	if err := check(C.XGBoosterSaveModelToBuffer(b.hs.booster, cfg, &n, &p), "save model"); err != nil {
		return nil, err
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n)), nil
}

// Load reads a model written by Save (or any XGBoost 1.x model buffer in
// UBJSON or JSON) and returns it ready to predict. It refuses a model that
// is not a tree model (gbtree) with objective SoftProb or AFT; a loaded AFT
// model has one output (NumClass 1) and knows its distribution and σ.
func Load(buf []byte) (*Booster, error) {
	if len(buf) == 0 {
		return nil, fmt.Errorf("%w: empty model buffer", ErrInvalid)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var h C.BoosterHandle
	if err := check(C.XGBoosterCreate(nil, 0, &h), "XGBoosterCreate"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			C.XGBoosterFree(h)
		}
	}()
	if err := check(C.XGBoosterLoadModelFromBuffer(h, unsafe.Pointer(&buf[0]), C.bst_ulong(len(buf))), "load model"); err != nil {
		return nil, err
	}
	var nf C.bst_ulong
	if err := check(C.XGBoosterGetNumFeature(h, &nf), "number of features"); err != nil {
		return nil, err
	}
	var n C.bst_ulong
	var p *C.char
	if err := check(C.XGBoosterSaveJsonConfig(h, &n, &p), "read config"); err != nil {
		return nil, err
	}
	var cfg struct {
		Learner struct {
			ModelParam struct {
				NumClass string `json:"num_class"`
			} `json:"learner_model_param"`
			Objective struct {
				Name string `json:"name"`
				AFT  struct {
					Distribution string `json:"aft_loss_distribution"`
					Scale        string `json:"aft_loss_distribution_scale"`
				} `json:"aft_loss_param"`
			} `json:"objective"`
			GradientBooster struct {
				Name string `json:"name"`
			} `json:"gradient_booster"`
		} `json:"learner"`
	}
	if err := json.Unmarshal(C.GoBytes(unsafe.Pointer(p), C.int(n)), &cfg); err != nil {
		return nil, fmt.Errorf("%w: model config: %v", ErrXGBoost, err)
	}
	if g := cfg.Learner.GradientBooster.Name; g != "gbtree" {
		return nil, fmt.Errorf("%w: model booster %q, want %q (trees)", ErrInvalid, g, "gbtree")
	}
	obj := cfg.Learner.Objective.Name
	var k int
	var dist string
	var scale float64
	switch obj {
	case SoftProb:
		var err error
		k, err = strconv.Atoi(cfg.Learner.ModelParam.NumClass)
		if err != nil || k < 2 {
			return nil, fmt.Errorf("%w: model num_class %q, want an integer ≥ 2", ErrInvalid, cfg.Learner.ModelParam.NumClass)
		}
	case AFT:
		k, dist = 1, cfg.Learner.Objective.AFT.Distribution
		var err error
		// XGBoost keeps σ as a float32 and prints it with 9 digits
		// ("0.699999988"); its shortest float32 decimal is what was set.
		scale, err = strconv.ParseFloat(cfg.Learner.Objective.AFT.Scale, 32)
		if err == nil {
			scale, err = strconv.ParseFloat(strconv.FormatFloat(scale, 'g', -1, 32), 64)
		}
		if err != nil || !(scale > 0) {
			return nil, fmt.Errorf("%w: model aft_loss_distribution_scale %q, want a number > 0", ErrInvalid, cfg.Learner.Objective.AFT.Scale)
		}
		if dist != AFTNormal && dist != AFTLogistic && dist != AFTExtreme {
			return nil, fmt.Errorf("%w: model aft_loss_distribution %q", ErrInvalid, dist)
		}
	default:
		return nil, fmt.Errorf("%w: model objective %q, want %q or %q", ErrInvalid, obj, SoftProb, AFT)
	}
	if nf < 1 {
		return nil, fmt.Errorf("%w: model has no features", ErrInvalid)
	}
	b, err := newBooster(h, obj, k, int(nf), dist, scale)
	if err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// Importance returns the importance of each feature under kind (one of the
// Importance constants), indexed by feature; a feature no split uses gets
// 0. With gain and cover (means over a feature's splits) the values of
// different features are comparable per split, with total_gain and
// total_cover they add up over the model.
func (b *Booster) Importance(kind string) ([]float64, error) {
	switch kind {
	case ImportanceWeight, ImportanceGain, ImportanceTotalGain, ImportanceCover, ImportanceTotalCover:
	default:
		return nil, fmt.Errorf("%w: importance kind %q: want %s, %s, %s, %s or %s", ErrInvalid, kind,
			ImportanceWeight, ImportanceGain, ImportanceTotalGain, ImportanceCover, ImportanceTotalCover)
	}
	// Name the features by their index so that XGBoost's answer maps back
	// without relying on its default names.
	names := make([]string, b.numFeature)
	for j := range names {
		names[j] = strconv.Itoa(j)
	}
	cfgJSON, err := json.Marshal(map[string]any{"importance_type": kind, "feature_names": names})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hs.booster == nil {
		return nil, ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cfg := C.CString(string(cfgJSON))
	defer C.free(unsafe.Pointer(cfg))
	var nFeat, dim C.bst_ulong
	var feats **C.char
	var shape *C.bst_ulong
	var scores *C.float
	if err := check(C.XGBoosterFeatureScore(b.hs.booster, cfg, &nFeat, &feats, &dim, &shape, &scores), "feature score"); err != nil {
		return nil, err
	}
	if dim != 1 || (nFeat > 0 && *shape != nFeat) {
		return nil, fmt.Errorf("%w: feature score of %d dimensions for %d features", ErrXGBoost, dim, nFeat)
	}
	out := make([]float64, b.numFeature)
	if nFeat == 0 {
		return out, nil
	}
	fs := unsafe.Slice(feats, nFeat)
	ss := unsafe.Slice(scores, nFeat)
	for i := range fs {
		j, err := strconv.Atoi(C.GoString(fs[i]))
		if err != nil || j < 0 || j >= b.numFeature {
			return nil, fmt.Errorf("%w: feature score names feature %q", ErrXGBoost, C.GoString(fs[i]))
		}
		out[j] = float64(ss[i])
	}
	return out, nil
}

// boostedRounds is XGBoost's count of rounds in the model.
func (b *Booster) boostedRounds() (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hs.booster == nil {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n C.int
	if err := check(C.XGBoosterBoostedRounds(b.hs.booster, &n), "boosted rounds"); err != nil {
		return 0, err
	}
	return int(n), nil
}

// checkWeights refuses per-row weights that XGBoost would misread: a
// length other than rows, a negative, NaN or infinite weight, or all zero.
// nil (every row weighs 1) passes.
func checkWeights(weights []float32, rows int) error {
	if weights == nil {
		return nil
	}
	if len(weights) != rows {
		return fmt.Errorf("%w: %d weights for %d rows", ErrInvalid, len(weights), rows)
	}
	var sum float64
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(float64(w), 1) {
			return fmt.Errorf("%w: row %d: weight %v: want a finite value ≥ 0", ErrInvalid, i, w)
		}
		sum += float64(w)
	}
	if sum == 0 {
		return fmt.Errorf("%w: every weight is 0", ErrInvalid)
	}
	return nil
}

package xgboost

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

static const char xgbl_dmatrix_config[] =
    "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
    "\"strict_shape\":true}";

// xgbl_predict_dmatrix is what in-place prediction was chosen over: copy
// the rows into a new DMatrix, predict from it, free it. Result and error
// as xgbl_predict_dense.
static char *xgbl_predict_dmatrix(BoosterHandle h, const float *x, bst_ulong rows, bst_ulong cols,
                                  float *out, bst_ulong want) {
	DMatrixHandle dm;
	if (XGDMatrixCreateFromMat(x, rows, cols, __builtin_nanf(""), &dm) != 0) {
		return strdup(XGBGetLastError());
	}
	const bst_ulong *shape;
	bst_ulong dim;
	const float *res;
	char *err = NULL;
	if (XGBoosterPredictFromDMatrix(h, dm, xgbl_dmatrix_config, &shape, &dim, &res) != 0) {
		err = strdup(XGBGetLastError());
	} else if (dim != 2 || shape[0] != rows || shape[0] * shape[1] != want) {
		err = strdup("prediction shape is not (rows, classes)");
	} else {
		memcpy(out, res, want * sizeof(float));
	}
	XGDMatrixFree(dm);
	return err;
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// predictDMatrix predicts like predict, through a DMatrix made for the
// call instead of in-place prediction; BenchmarkPredictRow compares the
// two.
func (b *Booster) predictDMatrix(x []float32, rows int, out []float32) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.hs.booster == nil {
		return ErrClosed
	}
	if msg := C.xgbl_predict_dmatrix(b.hs.booster, (*C.float)(unsafe.Pointer(&x[0])), C.bst_ulong(rows),
		C.bst_ulong(b.numFeature), (*C.float)(unsafe.Pointer(&out[0])), C.bst_ulong(len(out))); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return xgbError("predict", C.GoString(msg))
	}
	return nil
}

// setThreads changes the booster's prediction threads (for
// BenchmarkPredictThreads).
func (b *Booster) setThreads(n int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hs.booster == nil {
		return ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return setThreads(b.hs.booster, n)
}

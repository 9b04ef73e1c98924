// The C interface of CBC 2.10 has no way to stop a running solve (its
// message callback is never called at log level 0 and cannot stop CBC
// anyway). CBC's C++ API has one: an event handler, called after every
// node, after heuristics and on every solution, that may answer "stop".
// CbcMain1 (behind Cbc_solve) clones the handler into the model it
// branches on. This file installs such a handler on the CbcModel inside
// the C interface's Cbc_Model, whose layout Coin_C_defines.h declares when
// CBC_EXTERN_C is defined (the same header the library was built with).

#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "CbcEventHandler.hpp"
#include "OsiClpSolverInterface.hpp"
#define CBC_EXTERN_C
#include "Coin_C_defines.h"

#include "stop.h"

namespace {

class stopHandler : public CbcEventHandler {
public:
  explicit stopHandler(int *flag) : CbcEventHandler(), flag_(flag) {}
  stopHandler(const stopHandler &rhs) : CbcEventHandler(rhs), flag_(rhs.flag_) {}
  CbcEventHandler *clone() const override { return new stopHandler(*this); }
  using CbcEventHandler::event;
  CbcAction event(CbcEvent) override {
    return __atomic_load_n(flag_, __ATOMIC_RELAXED) ? stop : noAction;
  }

private:
  int *flag_;
};

} // namespace

extern "C" void placelab_cbc_watch(void *model, int *flag) {
  stopHandler h(flag);
  // passInEventHandler stores a clone.
  static_cast<Cbc_Model *>(model)->model_->passInEventHandler(&h);
}

extern "C" void placelab_cbc_raise(int *flag) {
  __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

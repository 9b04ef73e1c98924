// Stopping a CBC solve from another thread: the one thing the C interface
// of CBC 2.10 lacks. See stop.cpp.
#ifndef PLACELAB_CBC_STOP_H
#define PLACELAB_CBC_STOP_H

#ifdef __cplusplus
extern "C" {
#endif

// placelab_cbc_watch installs on model (a Cbc_Model*) an event handler that
// asks CBC to stop at its next event once *flag is non-zero. flag must
// outlive the solve.
void placelab_cbc_watch(void *model, int *flag);

// placelab_cbc_raise sets *flag (atomically), from any thread.
void placelab_cbc_raise(int *flag);

#ifdef __cplusplus
}
#endif

#endif

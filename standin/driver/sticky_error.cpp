// The sticky asynchronous error. On a GPU, a kernel that faults (an illegal address, say)
// corrupts its context: every later synchronizing call reports the error, forever. The stand-in
// keeps that one code here, process-wide, set by STANDIN_ASYNC_ERROR or by a GEMM that reads or
// writes memory outside any device allocation.
#include <atomic>

#include "driver_state.h"
#include "standin_private.h"

namespace {
std::atomic<int> sticky{0};
}

extern "C" {

STANDIN_EXPORT int standin_sticky_error(void) { return sticky.load(std::memory_order_acquire); }

STANDIN_EXPORT void standin_set_sticky_error(int code) {
  int expected = 0;  // the first error sticks; later ones do not replace it
  sticky.compare_exchange_strong(expected, code, std::memory_order_acq_rel);
}

}  // extern "C"

namespace standin::driver {
void clear_sticky_error() { sticky.store(0, std::memory_order_release); }
}  // namespace standin::driver

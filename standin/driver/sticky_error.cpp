// The sticky asynchronous error. On a GPU, a kernel that faults (an illegal address, say)
// corrupts its context: every later synchronizing call reports the error, forever. The stand-in
// keeps that one code here, process-wide, set by STANDIN_ASYNC_ERROR or by a GEMM that reads or
// writes memory outside any device allocation.
//
// When the host hears of it. A launch returns before its kernel has run, so on a GPU the
// launch and the error check right after it (PyTorch's cudaGetLastError after each of its
// kernels) return success; the kernel faults a few microseconds later, and the host hears of it
// at its next call that waits for the device's work or checks the context: a synchronization
// (device, stream, event), a blocking or device-to-host copy, a stream or event query, an
// allocation, the next launch (its kernel queued behind the dead one: the next GEMM fails with
// CUBLAS_STATUS_EXECUTION_FAILED), and cublasCreate, which allocates device memory for the
// handle and reports NOT_INITIALIZED when that fails. That is where users meet a device-side
// assert: "CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate(handle)" when the next layer
// is the program's first GEMM, "CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm" at
// the next GEMM, "device-side assert triggered" at `.item()` or `.cpu()`.
//
// STANDIN_ASYNC_ERROR faults as if the kernel had run before the launch returned: the error is
// sticky at once, and the launch's own check sees it. STANDIN_DELAYED_ERROR plays the GPU's
// timing: the fault is pending (the kernel is still running) until a call that checks the device
// asks standin_sticky_error(); it lands there, as the sticky error, and that call is the first
// to return it. cudaGetLastError and cudaPeekAtLastError ask standin_landed_error(), which never
// lands a pending fault: right after the launch they return success. The stand-in has no clock,
// so "later" means "at the next call that checks", however long the program waits in between.
#include <atomic>

#include "driver_state.h"
#include "standin_private.h"

namespace {
std::atomic<int> sticky{0};
std::atomic<int> pending{0};  // a fault the host has not seen yet (STANDIN_DELAYED_ERROR)

// The first error sticks; later ones do not replace it.
void stick(int code) {
  int expected = 0;
  sticky.compare_exchange_strong(expected, code, std::memory_order_acq_rel);
}
}  // namespace

extern "C" {

STANDIN_EXPORT int standin_sticky_error(void) {
  if (pending.load(std::memory_order_acquire) != 0) [[unlikely]] {
    if (const int landed = pending.exchange(0, std::memory_order_acq_rel)) stick(landed);
  }
  return sticky.load(std::memory_order_acquire);
}

STANDIN_EXPORT int standin_landed_error(void) { return sticky.load(std::memory_order_acquire); }

STANDIN_EXPORT void standin_set_sticky_error(int code) { stick(code); }

STANDIN_EXPORT void standin_set_pending_error(int code) {
  int expected = 0;  // the first fault lands first; a later one is not seen apart from it
  pending.compare_exchange_strong(expected, code, std::memory_order_acq_rel);
}

}  // extern "C"

namespace standin::driver {
void clear_sticky_error() {
  pending.store(0, std::memory_order_release);
  sticky.store(0, std::memory_order_release);
}
}  // namespace standin::driver

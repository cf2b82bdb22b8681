#include "shim_driver.h"

#include <sched.h>

#include <atomic>

#include "real_functions.h"

namespace cublasspy {
namespace {

enum : int { kUnresolved = 0, kResolving = 1, kResolved = 2 };
constinit DriverApi g_api;
constinit std::atomic<int> g_state{kUnresolved};

template <typename Fn>
void find(Fn& out, const char* name) {
  out = reinterpret_cast<Fn>(find_loaded_symbol(Library::kCuda, name));
}

}  // namespace

const DriverApi* shim_driver_api() {
  int state = g_state.load(std::memory_order_acquire);
  if (state == kResolved) return &g_api;
  int expected = kUnresolved;
  if (g_state.compare_exchange_strong(expected, kResolving, std::memory_order_acq_rel)) {
    DriverApi api;
    // The plain names are the legacy-default-stream entry points; explicit _v2 names where
    // cuda.h maps the API name to one.
    find(api.ctx_get_current, "cuCtxGetCurrent");
    find(api.stream_synchronize, "cuStreamSynchronize");
    find(api.memcpy_dtoh, "cuMemcpyDtoH_v2");
    find(api.stream_is_capturing, "cuStreamIsCapturing");
    find(api.get_error_name, "cuGetErrorName");
    find(api.mem_get_address_range, "cuMemGetAddressRange_v2");
    find(api.module_load_data, "cuModuleLoadData");
    find(api.module_get_function, "cuModuleGetFunction");
    find(api.launch_kernel, "cuLaunchKernel");
    find(api.mem_alloc, "cuMemAlloc_v2");
    find(api.memset_d8_async, "cuMemsetD8Async");
    find(api.memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2");
    bool usable = api.can_copy();
    if (usable) g_api = api;
    g_state.store(usable ? kResolved : kUnresolved, std::memory_order_release);
    return usable ? &g_api : nullptr;
  }
  // Another thread is resolving (a few dlsym calls): wait for it.
  while ((state = g_state.load(std::memory_order_acquire)) == kResolving) sched_yield();
  return state == kResolved ? &g_api : nullptr;
}

}  // namespace cublasspy

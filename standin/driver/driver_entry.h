// The prologue and epilogue every stand-in driver entry point shares.
#pragma once

#include "driver_state.h"

namespace standin::driver {

// Applies STANDIN_ASYNC_ERROR after a call that did its work: report success, poison the context.
inline CUresult finish(CUresult result, const standin_fault_action& fault) {
  if (result == CUDA_SUCCESS && fault.async_error) standin_raise_scripted_fault(fault);
  return result;
}

inline CUresult sticky() { return static_cast<CUresult>(standin_sticky_error()); }

inline bool valid_device(CUdevice dev) { return dev >= 0 && dev < device_count(); }

}  // namespace standin::driver

// Counts the call, applies STANDIN_FAIL / CRASH / HANG, and acts out STANDIN_NO_DRIVER as the
// toolkit's stub libcuda does (CUDA_ERROR_STUB_LIBRARY from every call).
#define STANDIN_DRIVER_ENTRY(name)                                          \
  const standin_fault_action fault = standin_enter(name);                   \
  if (fault.fail) return static_cast<CUresult>(fault.status);               \
  if (::standin::driver::config().no_driver) return CUDA_ERROR_STUB_LIBRARY

#define STANDIN_REQUIRE_INIT() \
  if (!::standin::driver::initialized()) return CUDA_ERROR_NOT_INITIALIZED

#define STANDIN_REQUIRE_CONTEXT()                                                  \
  STANDIN_REQUIRE_INIT();                                                          \
  if (::standin::driver::current_context() == nullptr) return CUDA_ERROR_INVALID_CONTEXT

// The stand-in runtime's plumbing, shared by every file of libcudart: its error conventions and
// its one-time initialization. The runtime is a thin translation onto the driver API, reached the
// way the real runtime reaches it (dlopen + cuGetProcAddress_v2, see driver_link.h). Errors follow
// the runtime's rules: a failing call records its code for cudaGetLastError, a failed
// initialization is returned by every call that needs the device, and a sticky error poisons
// everything after it.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "driver_link.h"
#include "standin_private.h"

namespace standin::runtime {

// The calling thread's last error (cudaGetLastError returns and clears it).
cudaError_t& last_error();

// Remembers a failure for cudaGetLastError; returns `e`.
inline cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) last_error() = e;
  return e;
}

// Since CUDA 10.1 the runtime's error numbers equal the driver's for every code both have.
inline cudaError_t from_driver(CUresult r) { return static_cast<cudaError_t>(r); }

// The end of a call: STANDIN_ASYNC_ERROR poisons the context after a call that did its work.
inline cudaError_t finish(cudaError_t e, const standin_fault_action& fault) {
  if (e == cudaSuccess && fault.async_error) standin_raise_scripted_fault(fault);
  return record(e);
}
inline cudaError_t finish(CUresult r, const standin_fault_action& fault) { return finish(from_driver(r), fault); }

struct Runtime {
  cudaError_t error;      // why initialization failed, or cudaSuccess
  const DriverLink* drv;  // null when the driver could not be loaded
};

// Initialization, once per process: load the driver, check its version, cuInit. Its failure is
// permanent and returned by every call that needs a device, as the real runtime does.
const Runtime& runtime();

// Makes sure the calling thread has a current context (the primary context of device 0 unless
// cudaSetDevice chose another), as the runtime does lazily before any device work.
cudaError_t bind_context(const DriverLink* drv);

// STANDIN_FAIL's outcome of a call that needs the device. The real runtime makes the primary
// context current on the calling thread before such a call does anything else, so a thread whose
// only calls were scripted (launches that "succeed doing nothing", say) has a context all the
// same, and the driver API works there as it would after real calls (without it, cuStreamSynchronize
// from such a thread is CUDA_ERROR_INVALID_CONTEXT). Returns the scripted status.
cudaError_t scripted_device_call(const standin_fault_action& fault);

// The device of the current context (after bind_context).
int current_device(const DriverLink* drv);

// cudaStreamDestroy: the stream's priority (streams_and_events.cpp) goes with it.
void forget_stream(cudaStream_t stream);

// True when the driver's allocation table knows `p` (device, managed or pinned host memory).
bool is_device_memory(const void* p);

// ---- stream capture (the state and the rules are the driver's: driver/capture.cpp) -------------

// While alive, the driver calls this thread makes apply no capture rule: the runtime's
// asynchronous copies, memsets and stream-ordered allocations do their work through the driver's
// synchronous calls after applying their own (asynchronous) rules.
class CaptureRulesApplied {
 public:
  CaptureRulesApplied() { standin_capture_exempt(1); }
  ~CaptureRulesApplied() { standin_capture_exempt(0); }
  CaptureRulesApplied(const CaptureRulesApplied&) = delete;
  CaptureRulesApplied& operator=(const CaptureRulesApplied&) = delete;
};

// One row of a copy recorded by a capture, checked already as the copy itself is checked.
struct CopyRow {
  void* dst;
  const void* src;
  size_t bytes;
};

// Records the rows as one memcpy node of the capture `stream` takes part in. Each launch of the
// graph copies them with the copy engine's checks: an end that was pageable host memory at the
// capture stays acceptable, an end that was allocated must still be (else the launch faults with
// a sticky illegal address). `async_error` (STANDIN_ASYNC_ERROR of the captured call) faults each
// launch after the copy.
cudaError_t capture_copy(cudaStream_t stream, std::vector<CopyRow> rows, int async_error);

// A capture's answer for work enqueued on `stream`: STANDIN_RUN_NOW, STANDIN_RECORD, or an error.
inline int enqueue(cudaStream_t stream) { return standin_capture_enqueue(stream); }

}  // namespace standin::runtime

// Counts the call and applies STANDIN_FAIL / CRASH / HANG.
#define STANDIN_RUNTIME_ENTRY(name)                       \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return ::standin::runtime::record(static_cast<cudaError_t>(fault.status))

// The same for a call that needs the device (one that goes on with STANDIN_RUNTIME_CONTEXT): its
// scripted outcome still leaves the primary context current on the thread, as the real call's
// first step does whatever it returns after (see scripted_device_call).
#define STANDIN_RUNTIME_DEVICE_ENTRY(name)                \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return ::standin::runtime::scripted_device_call(fault)

// Initialization (and, with CONTEXT, a current context) or the error that prevents it.
#define STANDIN_RUNTIME_INIT()                                                \
  const ::standin::runtime::Runtime& rt = ::standin::runtime::runtime();      \
  if (rt.error != cudaSuccess) return ::standin::runtime::record(rt.error);   \
  const ::standin::DriverLink* drv = rt.drv

#define STANDIN_RUNTIME_CONTEXT()                                                                      \
  STANDIN_RUNTIME_INIT();                                                                              \
  if (cudaError_t bind = ::standin::runtime::bind_context(drv); bind != cudaSuccess) {                 \
    return ::standin::runtime::record(bind);                                                           \
  }

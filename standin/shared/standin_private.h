// The stand-in's private ABI: a few functions exported by the stand-in libcuda.so.1 that
// the other stand-in libraries (libcudart, libcublas, libcublasLt) link to.
//
// Why here: the fault plan (its call counters), the allocation table and the sticky
// asynchronous error must exist once per process, however many stand-in libraries are loaded.
// libcuda.so.1 is the bottom of the stack (every other library names it in DT_NEEDED), so the
// state lives there. These names carry the `standin_` prefix, so neither a real program nor the
// shim can mistake them for CUDA API.
#pragma once

#include <cstddef>
#include <cstdint>

#include "export.h"

extern "C" {

// What the fault plan (STANDIN_FAIL, STANDIN_WRONG_RESULT, ...) wants from this call. A crash
// or hang requested for the call happens inside standin_enter and never returns.
struct standin_fault_action {
  int fail;         // nonzero: return `status` at once, without doing any work
  int status;       // the code to return when `fail` is set
  int corrupt;      // nonzero: do the work, then add 1.0 to output element 0
  int async_error;  // nonzero: skip the device work, report success, make this the sticky error
  int delayed;      // with async_error (STANDIN_DELAYED_ERROR): the host sees the error only later
};

// Counts one call of the exported function `fn` (its exact exported name) and returns what the
// fault plan asks of it. Every exported API function of every stand-in library calls this
// first, so the counts match the calls a preloaded shim sees.
STANDIN_EXPORT standin_fault_action standin_enter(const char* fn);

// STANDIN_FAIL_SHAPE: the status to return for a GEMM of this shape, or 0.
STANDIN_EXPORT int standin_shape_fault(int64_t m, int64_t n, int64_t k);

// The process-wide sticky asynchronous error (a cudaError_t / CUresult value; 0 when none), and
// the fault of work still running that the host has not seen yet (driver/sticky_error.cpp).
// standin_sticky_error is what a call that checks the device asks (a wait, a query, a copy, an
// allocation, a launch, a GEMM, cublasCreate): a pending fault becomes the sticky error there.
// standin_landed_error is what cudaGetLastError and cudaPeekAtLastError see: the sticky error
// only, never a fault still pending.
STANDIN_EXPORT int standin_sticky_error(void);
STANDIN_EXPORT int standin_landed_error(void);
STANDIN_EXPORT void standin_set_sticky_error(int code);
STANDIN_EXPORT void standin_set_pending_error(int code);

// The asynchronous fault the plan scripted for a call that did its work: sticky at once
// (STANDIN_ASYNC_ERROR), or pending until the next call that checks the device
// (STANDIN_DELAYED_ERROR).
inline void standin_raise_scripted_fault(const standin_fault_action& fault) {
  if (fault.delayed) standin_set_pending_error(fault.async_error);
  else standin_set_sticky_error(fault.async_error);
}

// Memory kinds in the allocation table; the values are those of CUmemorytype, plus managed.
enum standin_memory_kind {
  STANDIN_MEMORY_UNREGISTERED = 0,  // ordinary (pageable) host memory: not in the table
  STANDIN_MEMORY_HOST = 1,          // pinned host memory (cudaMallocHost, cudaHostAlloc)
  STANDIN_MEMORY_DEVICE = 2,        // "device" memory (cudaMalloc): host memory in disguise
  STANDIN_MEMORY_MANAGED = 3,       // cudaMallocManaged
};

struct standin_allocation {
  void* base;
  size_t size;
  int kind;         // standin_memory_kind
  int device;       // device ordinal it was allocated on
  uint64_t id;      // process-wide unique buffer id
};

// Looks `p` up in the allocation table: 1 and *out filled when p lies inside an allocation.
STANDIN_EXPORT int standin_find_allocation(const void* p, standin_allocation* out);

// 1 when [p, p + bytes) lies inside one allocation a device can access (device, managed or
// pinned host memory). A device kernel touching anything else faults with an illegal address.
STANDIN_EXPORT int standin_device_accessible(const void* p, size_t bytes);

// 1 when `stream` is a stream handle the device would accept: 0 (legacy default stream),
// CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, or a created and not yet destroyed stream.
STANDIN_EXPORT int standin_stream_valid(const void* stream);

// Makes `device`'s primary context current on the calling thread when it has none (once CUDA is
// initialized): what real cuBLAS's statically linked runtime does on a thread that runs work
// through a handle of that device, so the thread can then wait with the driver's calls.
STANDIN_EXPORT void standin_bind_device_context(int device);

// ---- stream capture (driver/capture.cpp) ------------------------------------------------------
// The capture state lives in the driver; the runtime and cuBLAS ask it before enqueuing work and
// record their work as graph nodes through these. Codes are CUresult values, which equal the
// runtime's cudaError_t values (900 cudaErrorStreamCaptureUnsupported, 901 ...Invalidated, 902
// ...Merge, 905 ...Isolation, 906 ...Implicit, 907 cudaErrorCapturedEvent).

enum { STANDIN_RUN_NOW = 0, STANDIN_RECORD = -1 };

// Work about to be enqueued on `stream` (a copy, a memset, a launch, a GEMM): STANDIN_RUN_NOW (do
// it now), STANDIN_RECORD (the stream is capturing: record the work with standin_capture_node
// instead of doing it), or the error to return: 901 (the stream's capture was invalidated) or 906
// (the legacy stream while a blocking stream captures; that capture is invalidated). `stream`
// must be valid. One atomic load when no capture is underway.
STANDIN_EXPORT int standin_capture_enqueue(const void* stream);

// Records work as the next node of the capture `stream` takes part in. At every launch of a graph
// made from the capture, run(data) does the work and returns 0, or the asynchronous error the
// work raised (700 for memory outside every allocation): the launch's work stops there and the
// error sticks. destroy(data) runs when the last graph holding the node is gone, or at once when
// recording fails. `kind` names the node (cudaGraphDebugDotPrint). Returns 0 or the error of
// standin_capture_enqueue (or 401, illegal state, when the stream is no longer capturing).
STANDIN_EXPORT int standin_capture_node(const void* stream, const char* kind, int (*run)(void*), void* data,
                                        void (*destroy)(void*));

// The capture rules for calls the runtime and cuBLAS answer without a driver call; 0 or the
// error to return (the captures that made it so are invalidated).
// A potentially unsafe call (cudaEventQuery, ...): 900 when the thread's capture mode prohibits it.
STANDIN_EXPORT int standin_capture_unsafe_call(void);
// Synchronizing or querying `stream`, or synchronous work on it: 900 when it is capturing, 906 when
// it is the legacy stream and a blocking stream is capturing, otherwise as a potentially unsafe call.
STANDIN_EXPORT int standin_capture_sync_stream(const void* stream);

// The runtime's asynchronous copies, memsets and stream-ordered allocations do their work through
// the driver's synchronous calls (cuMemcpy, cuMemsetD8_v2, cuMemAlloc_v2, cuMemFree_v2) after
// applying the rules of the asynchronous call themselves. standin_capture_exempt(1) ... (0)
// brackets such driver calls (per thread, nesting): the driver applies no capture rule to them.
STANDIN_EXPORT void standin_capture_exempt(int on);

// Events (the runtime's own). cudaEventRecord on a capturing stream makes the event a point of
// that capture: *point is a new point (free it with standin_capture_point_release), or NULL when
// the stream is not capturing. Returns 0 or the error of standin_capture_enqueue.
STANDIN_EXPORT int standin_capture_record_point(const void* stream, void** point);
// cudaStreamWaitEvent on `stream` of an event whose last record made `point` (NULL if none), or
// that was `recorded` outside any capture; `external`: cudaEventWaitExternal. A stream outside the
// point's capture joins it (a fork), a stream inside merges the point's dependencies (a join).
// Returns 0 or the error: 901, 902 (the stream is in another capture), 905 (a capturing stream
// waits on an event recorded outside it without cudaEventWaitExternal), 906.
STANDIN_EXPORT int standin_capture_wait_point(const void* stream, const void* point, int recorded, int external);
// cudaEventQuery / cudaEventSynchronize of an event whose last record made `point` (NULL if none):
// 907 while that capture is underway (invalidating it), otherwise as a potentially unsafe call.
STANDIN_EXPORT int standin_capture_event_use(const void* point);
STANDIN_EXPORT void standin_capture_point_release(void* point);

// The copy engine's checks, for captured copies and memsets: memory the allocation table knows
// must hold the whole range; other memory is acceptable only where `*_host_ok` (pageable host
// memory). 1 when the ranges pass, after copying (or setting `count` elements of `width` bytes to
// the low bytes of `value`) when `act` is set; 0 otherwise, with nothing done.
STANDIN_EXPORT int standin_copy_range(void* dst, int dst_host_ok, const void* src, int src_host_ok, size_t bytes,
                                      int act);
STANDIN_EXPORT int standin_set_range(void* dst, unsigned value, size_t width, size_t count, int act);

// STANDIN_NO_DRIVER: the runtime and cuBLAS act as if libcuda.so.1 could not be loaded.
STANDIN_EXPORT int standin_no_driver(void);

// STANDIN_DEVICE_COUNT_ERROR as a cudaError_t value (0 when unset), so that
// cudaGetDeviceCount returns exactly the code asked for.
STANDIN_EXPORT int standin_device_count_error(void);

}  // extern "C"

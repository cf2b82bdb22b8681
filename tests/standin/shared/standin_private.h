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
};

// Counts one call of the exported function `fn` (its exact exported name) and returns what the
// fault plan asks of it. Every exported API function of every stand-in library calls this
// first, so the counts match the calls a preloaded shim sees.
STANDIN_EXPORT standin_fault_action standin_enter(const char* fn);

// STANDIN_FAIL_SHAPE: the status to return for a GEMM of this shape, or 0.
STANDIN_EXPORT int standin_shape_fault(int64_t m, int64_t n, int64_t k);

// The process-wide sticky asynchronous error (a cudaError_t / CUresult value; 0 when none).
STANDIN_EXPORT int standin_sticky_error(void);
STANDIN_EXPORT void standin_set_sticky_error(int code);

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

// STANDIN_NO_DRIVER: the runtime and cuBLAS act as if libcuda.so.1 could not be loaded.
STANDIN_EXPORT int standin_no_driver(void);

// STANDIN_DEVICE_COUNT_ERROR as a cudaError_t value (0 when unset), so that
// cudaGetDeviceCount returns exactly the code asked for.
STANDIN_EXPORT int standin_device_count_error(void);

}  // extern "C"

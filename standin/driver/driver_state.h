// State of the stand-in driver (libcuda.so.1), shared by its translation units. Everything here
// is created lazily on first use: no constructor runs at load time, so a process that never
// calls CUDA pays nothing and reads its environment when it is actually set up.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "standin_private.h"

struct CUctx_st {
  int device;
};

struct CUstream_st {
  uint64_t magic;
  unsigned int flags;
  int device;
};

namespace standin::driver {

// The machine the stand-in pretends to be, from the environment (see README.md).
struct Config {
  bool no_driver = false;           // STANDIN_NO_DRIVER
  int driver_version = 0;          // STANDIN_DRIVER_VERSION (default: kDriverVersion)
  int physical_devices = 1;         // STANDIN_DEVICE_COUNT
  std::vector<int> visible;         // physical index of each visible device (CUDA_VISIBLE_DEVICES)
  int count_error_runtime = 0;      // STANDIN_DEVICE_COUNT_ERROR, as given (a cudaError_t)
  CUresult count_error = CUDA_SUCCESS;  // the same, as the driver reports it
  size_t memory_per_device = 80ull << 30;  // STANDIN_DEVICE_MEMORY (bytes)
  int cc_major = 9, cc_minor = 0;   // STANDIN_DEVICE_CC ("12.0"): every device's compute capability
};

const Config& config();
inline int device_count() { return static_cast<int>(config().visible.size()); }

// The allocation table.
void* allocate(size_t bytes, int kind, int device);  // nullptr when the device is out of memory
// Frees the allocation starting exactly at `base` if its kind is in `kinds` (a bit mask of
// 1 << standin_memory_kind); false when there is no such allocation.
bool release(void* base, unsigned kinds);
bool find(const void* p, standin_allocation* out);
// cuMemHostRegister: records the caller's own memory [p, p + bytes) as pinned host memory (the
// table does not own it and never unmaps it); false when the range overlaps a known allocation.
bool register_host(void* p, size_t bytes, int device);
bool unregister_host(void* base);
// cuDevicePrimaryCtxReset: forgets (and unmaps) every allocation made on `device`.
void release_device(int device);
size_t bytes_in_use(int device);

// Streams created with cuStreamCreate.
CUstream create_stream(unsigned int flags, int device);
bool destroy_stream(CUstream stream);
bool stream_valid(CUstream stream);

// Contexts: one primary context per device; the current one is per thread.
CUcontext primary_context(int device);  // also marks it active (retained)
bool primary_context_active(int device);
void deactivate_primary_context(int device);  // cuDevicePrimaryCtxReset
bool is_context(CUcontext ctx);
CUcontext current_context();
void set_current_context(CUcontext ctx);

bool initialized();
void mark_initialized();

// The sticky error ends with the context it poisoned (cuDevicePrimaryCtxReset).
void clear_sticky_error();

}  // namespace standin::driver

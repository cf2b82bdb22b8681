// CUBLASSPY_CHECK=1 inside the shim: runs the checks of src/checks/operand_checks.h before a GEMM and
// writes the findings into its record. The driver answers the memory questions
// (cuPointerGetAttributes, cuCtxGetDevice, cuDeviceGetAttribute of src/cuda_driver/driver_api.h); the
// answers are cached, because the same few allocations come back call after call.
#pragma once

#include <atomic>
#include <cstdint>

#include "call_context.h"
#include "checks/operand_checks.h"
#include "cuda_driver/driver_api.h"
#include "runtime.h"

namespace cublasspy {

// The pointer cache is dropped when allocation_generation() moves, and only two calls move it:
// a successful cudaMalloc or cudaFree (the AllocatedPtr and FreedPtr tags of cuda_tags.h bump it
// directly; this helper is for the tests), the only allocation calls the shim hooks. Every other
// way memory changes hands leaves the cache as it is: cudaMallocAsync/cudaFreeAsync,
// cudaMallocManaged, cudaMallocHost/cudaHostAlloc, cudaHostRegister/Unregister,
// cuMemAlloc*/cuMemFree*, VMM map/unmap. A cached answer about a range freed and reused that way
// stays stale until the next cudaMalloc/cudaFree, or until its entry is replaced (the cache
// holds 16 ranges per thread, replaced round-robin). Plain data: usable before set-up.
inline void note_allocation_change() { allocation_generation().fetch_add(1, std::memory_order_release); }

// The driver behind PointerQuery: cuPointerGetAttributes through a per-thread cache of
// kPointerCacheEntries ranges, and the pageable-memory attribute once per device. Each question
// runs with thread_state().internal raised, so the driver's answer is never recorded. A table
// without the function answers "not known" (and "no" for pageable memory).
inline constexpr int kPointerCacheEntries = 16;
class DriverPointerQuery final : public PointerQuery {
 public:
  explicit DriverPointerQuery(const DriverApi& api) : api_(api) {}
  PointerInfo query(uint64_t address) override;
  bool pageable_memory_access(int device) override;
  int compute_capability(int device) override;  // asked once per device

 private:
  const DriverApi& api_;
};

// The device of the current context (cuCtxGetDevice), -1 when there is none or no driver.
int current_device(const DriverApi& api);

// Checks the call in `ctx` when it is a GEMM made by the program (nested calls, such as
// cuBLAS's own cublasLtMatmul, are its implementation and are left alone): sets
// rec.check_bits and rec.check_detail. Returns true when anything was flagged (warnings too;
// check_bits_have_error() tells errors apart). Called before the real call, after the record
// is published as in flight, and before alpha/beta are read from host memory.
bool run_checks(Runtime& rt, CallContext& ctx);

// A grouped GEMM's checks, once its groups are read (gemm_groups.h): every group is checked as
// a call of its own (its shape, its members of the pointer arrays); the bits of all groups are
// kept, the detail of the first group with a finding. Before the input scans.
bool run_group_checks(Runtime& rt, CallContext& ctx);

}  // namespace cublasspy

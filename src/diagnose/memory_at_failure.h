// What a trace says of the device's memory at its failures: the shim's "memory.at_failure"
// entries (docs/FORMAT.md), the allocations that failed for want of memory, and the cuBLAS calls
// that failed while it was exhausted. device-out-of-memory (rule_out_of_memory.cpp) states it;
// execution-failed stays silent about the failures it explains.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/trace_facts.h"

namespace cublasspy::diagnoses {

// The device's memory when call `seq` failed, and the library its return address lies in.
struct MemorySnapshot {
  uint64_t seq = 0;
  std::optional<uint64_t> free_bytes, total_bytes;  // none when no context was current
  std::string caller;                               // the library's path; "" when unknown
};

std::vector<MemorySnapshot> memory_snapshots(const TraceFile& trace);

// Little left: under 512 MiB, or under a twentieth of the device.
bool nearly_full(uint64_t free_bytes, uint64_t total_bytes);

// An allocation (Trait::kAllocatesDevice) that returned cudaErrorMemoryAllocation or
// CUDA_ERROR_OUT_OF_MEMORY (both 2).
bool allocation_out_of_memory(const CallView& call);

// A process's out of memory, when its trace shows one: the first allocation that failed for
// want of memory, the first cuBLAS/cuBLASLt call that failed with ALLOC_FAILED,
// EXECUTION_FAILED or INTERNAL_ERROR while memory was exhausted (an allocation failed during
// it, or its snapshot shows the device nearly full), and the snapshot nearest each.
struct OutOfMemory {
  std::optional<CallView> allocation;
  std::optional<MemorySnapshot> at_allocation;
  std::optional<CallView> library_call;
  std::optional<MemorySnapshot> at_library_call;
};
std::optional<OutOfMemory> out_of_memory(const TraceFacts& facts);

// Whether `call`'s failure is that out of memory's: the allocation, or a cuBLAS call that failed
// with one of those statuses while memory was exhausted.
bool explained_by_out_of_memory(const OutOfMemory& oom, const CallView& call);

}  // namespace cublasspy::diagnoses

// The device's memory at a failure: free and total bytes, and the library the failing call came
// from, into the trace's process section ("memory.at_failure", docs/FORMAT.md). Out of memory
// mid-run is seldom a failed cudaMalloc of the program's own: cuBLAS allocates its workspace
// stream-ordered, outside a framework's caching allocator, and the program sees a cuBLAS status.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime.h"

namespace cublasspy {

// After call `seq` of hook `id` failed: at the first failing cuBLAS or cuBLASLt call, and at the
// first failed allocation, once each per process. `caller` is the call's return address, whose
// library says whose allocation it was (cuBLAS's own come from inside libcublas/libcublasLt).
// The memory is read through the driver table, with no lock held; the entry is appended when
// `process_section_busy` can be taken, else left to the next failure. A call that succeeds
// never comes here.
void record_memory_at_failure(Runtime& rt, uint16_t id, uint64_t seq, const void* caller,
                              std::atomic<bool>& process_section_busy);

// In a forked child, whose trace is its own: its first failures record again.
void memory_at_failure_after_fork();

}  // namespace cublasspy

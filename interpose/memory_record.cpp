#include "memory_record.h"

#include <dlfcn.h>

#include <cstdio>

#include "driver_table.h"
#include "hook_table.h"
#include "machine/machine_evidence.h"

namespace cublasspy {
namespace {

// Once per process each (and again in a forked child): the first failing cuBLAS/cuBLASLt call,
// the first failed allocation.
constinit std::atomic<bool> g_at_library_call{false};
constinit std::atomic<bool> g_at_allocation{false};

}  // namespace

void record_memory_at_failure(Runtime& rt, uint16_t id, uint64_t seq, const void* caller,
                              std::atomic<bool>& process_section_busy) {
  std::atomic<bool>& once = hook_has_trait(id, Trait::kAllocatesDevice) ? g_at_allocation : g_at_library_call;
  if (once.load(std::memory_order_relaxed)) return;
  ThreadState& ts = thread_state();
  ts.internal++;
  // Read first, holding nothing: the driver's own functions, which the shim does not hook.
  char memory[48] = "-\t-";
  DriverApi scratch;
  const DriverApi& d = driver_table(scratch);
  CUcontext context = nullptr;
  size_t free_bytes = 0, total_bytes = 0;
  if (d.ctx_get_current != nullptr && d.mem_get_info != nullptr && d.ctx_get_current(&context) == CUDA_SUCCESS &&
      context != nullptr && d.mem_get_info(&free_bytes, &total_bytes) == CUDA_SUCCESS) {
    std::snprintf(memory, sizeof memory, "%zu\t%zu", free_bytes, total_bytes);
  }
  Dl_info where{};
  const char* library = caller != nullptr && dladdr(caller, &where) != 0 && where.dli_fname != nullptr &&
                                where.dli_fname[0] != '\0'
                            ? where.dli_fname
                            : "-";
  ts.internal--;
  bool expected = false;
  if (!process_section_busy.compare_exchange_strong(expected, true)) return;  // the next failure
  if (!once.exchange(true)) {
    char value[kEvidenceValueMax];
    std::snprintf(value, sizeof value, "%llu\t%s\t%s", static_cast<unsigned long long>(seq), memory, library);
    rt.writer.append_process_entry("memory.at_failure", value);
  }
  process_section_busy.store(false);
}

void memory_at_failure_after_fork() {
  g_at_library_call.store(false);
  g_at_allocation.store(false);
}

}  // namespace cublasspy

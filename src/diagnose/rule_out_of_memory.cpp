// device-out-of-memory: the GPU's memory ran out mid-run. Since CUDA 12.2 cuBLAS allocates its
// workspace stream-ordered (cudaMallocAsync, cuMemAllocAsync), outside PyTorch's caching
// allocator, so the program often sees a cuBLAS status (ALLOC_FAILED, EXECUTION_FAILED) where
// the cause is memory. One finding per process: the failed allocation (its size, and whose it
// was: the program's, or cuBLAS's own from inside the library) or the failing cuBLAS call, with
// the device's free and total memory the shim read at the failure (memory_at_failure.h).
#include <fmt/format.h>

#include "diagnose/memory_at_failure.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

std::string memory_text(const std::optional<MemorySnapshot>& s) {
  if (!s || !s->free_bytes) return "";
  return fmt::format(" When it failed, the device had {} free of {} ({} of {} bytes).", mib(*s->free_bytes),
                     mib(*s->total_bytes), *s->free_bytes, *s->total_bytes);
}

bool inside_cublas(const std::string& library) {
  const std::string name = base_name(library);
  return name.rfind("libcublas", 0) == 0;
}

// "cuMemAllocAsync (call #7) asked for 4194304 bytes (4.0 MiB) and returned CUDA_ERROR_OUT_OF_MEMORY (2),
// called from inside libcublas.so.13, during cublasSgemm_v2 (call #6): ..."
std::string allocation_text(const CallView& a, const std::optional<MemorySnapshot>& s,
                            const std::optional<CallView>& library_call) {
  const uint64_t size = a.arg(format::ArgRole::kByteCount).value_or(0);
  std::string text = fmt::format("{} asked for {} bytes ({}) and returned {}", call_name(a), size, mib(size), status_text(a));
  const bool from_cublas = s && inside_cublas(s->caller);
  if (from_cublas) {
    text += fmt::format(", called from inside {}", base_name(s->caller));
  } else if (s && !s->caller.empty()) {
    text += fmt::format(", called from {}", base_name(s->caller));
  }
  if (library_call && a.rec().depth > library_call->rec().depth) {
    text += fmt::format(" during {}", call_name(*library_call));
  }
  text += ".";
  if (from_cublas) {
    text += " That is cuBLAS's own workspace, allocated stream-ordered outside the framework's caching allocator "
            "(cuBLAS 12.2 and later do so when the handle has no workspace of the program's).";
  }
  return text;
}

constexpr const char* kAdvice =
    "Make room on the device, or need less of it: a smaller batch (or sequence length, or micro-batches with "
    "gradient accumulation); let PyTorch's allocator fragment less with "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or max_split_size_mb:128); shrink cuBLAS's workspace with "
    "CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8, the smallest), or give the handle a workspace of the program's "
    "(cublasSetWorkspace); and free cached memory before the step that fails (del unused tensors, then "
    "torch.cuda.empty_cache()). `nvidia-smi` shows whether other processes hold the GPU; "
    "torch.cuda.memory_summary() what this one holds.";

}  // namespace

void rule_out_of_memory(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, ids::kSetupFailureIds)) continue;  // out-of-memory-at-init and its kin say it
    const std::optional<OutOfMemory> oom = out_of_memory(f);
    if (!oom) continue;
    Diagnosis d = finding(ids::kDeviceOutOfMemory, Severity::kError, f);
    if (oom->allocation) {
      const CallView& a = *oom->allocation;
      d.call = a.seq;
      d.summary = fmt::format("the GPU ran out of memory: {} of {} bytes failed", a.function_name(),
                              a.arg(format::ArgRole::kByteCount).value_or(0));
      d.evidence = allocation_text(a, oom->at_allocation, oom->library_call);
      if (oom->library_call) {
        d.evidence += fmt::format(" {} returned {}: the out of memory, not a fault of the call.",
                                  call_with_shape(*f.trace, *oom->library_call), status_text(*oom->library_call));
      }
      d.evidence += memory_text(oom->at_allocation ? oom->at_allocation : oom->at_library_call);
    } else {
      const CallView& c = *oom->library_call;
      d.call = c.seq;
      d.summary = fmt::format("{} returned {} with the GPU's memory exhausted", c.function_name(), c.status_name());
      d.evidence = fmt::format("{} returned {}.", call_with_shape(*f.trace, c), status_text(c)) +
                   memory_text(oom->at_library_call) +
                   " cuBLAS allocates its workspace stream-ordered, outside the framework's caching allocator: "
                   "out of memory there shows up as a cuBLAS status.";
    }
    d.advice = kAdvice;
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses

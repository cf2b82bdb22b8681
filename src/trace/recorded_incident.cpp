#include <cstdint>
#include <cstdlib>

#include "trace/trace_writer.h"
#include "trace/writer_internal.h"

// What the trace itself holds that makes it worth keeping past a clean exit (docs/CONTRACT.md,
// "Which traces are kept"). The shim adds what only the process knows (its exit status, a fatal
// signal it survived, a check's or scan's finding); this reads the header and its tables only,
// never the ring, which may have wrapped past the call that mattered.

namespace cublasspy {

using namespace format;
using writer_internal::atom;

namespace {

// Whether the process hides every device on purpose: CUDA_VISIBLE_DEVICES empty, or starting
// with a negative index (CUDA stops at the first invalid entry), as read at exit (a program may
// set it before it loads CUDA).
bool devices_hidden() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible != nullptr && (visible[0] == '\0' || visible[0] == '-');
}

// A failure the program is expected to shrug off, as far as the shim can tell at exit: a failed
// load (a probe for an optional library, as PyTorch's for NVML), or a device count or driver
// initialization that found no device where the process hid them all (CUDA_VISIBLE_DEVICES=).
// No device otherwise (a driver without its kernel module, a GPU gone), or any other status of
// those calls (no driver, a driver too old), is a broken set-up: kept.
constexpr int32_t kNoDevice = 100;  // cudaErrorNoDevice and CUDA_ERROR_NO_DEVICE alike
bool is_probe_failure(const FunctionEntry& function, int32_t status, bool hidden) {
  if (function.family == static_cast<uint16_t>(Family::kLibraryLoad)) return true;
  return hidden && has_trait(&function, Trait::kEnumeratesDevices) && status == kNoDevice;
}

}  // namespace

bool TraceWriter::recorded_incident() const {
  if (header_ == nullptr) return false;
  FileHeader& h = *header_;
  // An asynchronous error after a call or at a launch, a failed launch, a graph launch that
  // used freed memory.
  if (atom(h.first_async_seq).load() != 0 || atom(h.first_launch_error).load() != 0 ||
      atom(h.first_failed_launch).load() != 0 || atom(h.stale_replays).load() != 0) {
    return true;
  }
  // Failed calls: every one counts but those whose site says it was a probe. A failure no site
  // could take (the table full, or a path that counts no site) is not known to be a probe.
  uint64_t failed = 0;
  for (uint64_t i = 0; i < uint64_t{kCounterStripes} * function_count_; ++i) {
    failed += atom(counters_[i].failed).load(std::memory_order_relaxed);
  }
  if (failed == 0) return false;
  const auto* functions = reinterpret_cast<const FunctionEntry*>(file_base_ + h.functions_offset);
  const auto* sites = reinterpret_cast<const FailureSite*>(file_base_ + h.failure_sites_offset);
  uint64_t probes = 0;
  const bool hidden = devices_hidden();
  for (uint32_t i = 0; h.failure_sites_offset != 0 && i < h.failure_site_capacity; ++i) {
    FailureSite& site = const_cast<FailureSite&>(sites[i]);
    if (atom(site.state).load() != static_cast<uint32_t>(FailureSiteState::kKeyed)) continue;
    if (site.function_id >= function_count_) continue;
    if (is_probe_failure(functions[site.function_id], site.status, hidden)) {
      probes += atom(site.count).load(std::memory_order_relaxed);
    }
  }
  return failed > probes;
}

}  // namespace cublasspy

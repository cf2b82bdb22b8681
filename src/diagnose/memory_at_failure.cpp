#include "diagnose/memory_at_failure.h"

#include <cstdlib>

namespace cublasspy::diagnoses {
namespace {

constexpr int kOutOfMemory = 2;  // cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY
constexpr int kAllocFailed = 3, kExecutionFailed = 13, kInternalError = 14;  // cublasStatus_t

std::vector<std::string> split_tabs(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t tab; (tab = s.find('\t', at)) != std::string::npos; at = tab + 1) out.push_back(s.substr(at, tab - at));
  out.push_back(s.substr(at));
  return out;
}

std::optional<uint64_t> number(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtoull(s.c_str(), nullptr, 10);
}

const MemorySnapshot* snapshot_of(const std::vector<MemorySnapshot>& all, uint64_t seq) {
  for (const MemorySnapshot& s : all) {
    if (s.seq == seq) return &s;
  }
  return nullptr;
}

bool library_status_of_memory(int status) {
  return status == kAllocFailed || status == kExecutionFailed || status == kInternalError;
}

// An allocation made while `call` ran (cuBLAS's own, from inside it).
bool during(const CallView& allocation, const CallView& call) {
  const uint64_t start = call.rec().start_ns, end = start + call.rec().duration_ns;
  return allocation.rec().start_ns >= start && allocation.rec().start_ns <= end && allocation.rec().depth > call.rec().depth;
}

}  // namespace

std::vector<MemorySnapshot> memory_snapshots(const TraceFile& trace) {
  std::vector<MemorySnapshot> out;
  for (const auto& [key, value] : trace.process().entries) {
    if (key != "memory.at_failure") continue;
    const std::vector<std::string> f = split_tabs(value);
    const std::optional<uint64_t> seq = f.size() == 4 ? number(f[0]) : std::nullopt;
    if (!seq) continue;  // an entry that does not parse is skipped
    MemorySnapshot s;
    s.seq = *seq;
    s.free_bytes = number(f[1]);
    s.total_bytes = number(f[2]);
    if (!s.free_bytes || !s.total_bytes) s.free_bytes = s.total_bytes = std::nullopt;
    s.caller = f[3] == "-" ? "" : f[3];
    out.push_back(std::move(s));
  }
  return out;
}

bool nearly_full(uint64_t free_bytes, uint64_t total_bytes) {
  return free_bytes < (512ull << 20) || free_bytes * 20 < total_bytes;
}

bool allocation_out_of_memory(const CallView& call) {
  return call.function != nullptr && format::has_trait(call.function, format::Trait::kAllocatesDevice) &&
         call.rec().status == kOutOfMemory;
}

std::optional<OutOfMemory> out_of_memory(const TraceFacts& f) {
  const std::vector<MemorySnapshot> snapshots = memory_snapshots(*f.trace);
  OutOfMemory oom;
  for (const CallView& c : f.failed_memory) {
    if (allocation_out_of_memory(c)) {
      oom.allocation = c;
      if (const MemorySnapshot* s = snapshot_of(snapshots, c.seq)) oom.at_allocation = *s;
      break;
    }
  }
  for (const auto& key : f.failure_order) {
    const CallView& c = f.failures.at(key).first;
    if (!is_cublas_call(c) || !library_status_of_memory(c.rec().status)) continue;
    const MemorySnapshot* s = snapshot_of(snapshots, c.seq);
    const bool exhausted = (oom.allocation && during(*oom.allocation, c)) ||
                           (s != nullptr && s->free_bytes && nearly_full(*s->free_bytes, *s->total_bytes));
    if (!exhausted) continue;
    oom.library_call = c;
    if (s != nullptr) oom.at_library_call = *s;
    break;
  }
  if (!oom.allocation && !oom.library_call) return std::nullopt;
  return oom;
}

bool explained_by_out_of_memory(const OutOfMemory& oom, const CallView& call) {
  if (allocation_out_of_memory(call)) return true;
  return oom.library_call && is_cublas_call(call) && library_status_of_memory(call.rec().status) &&
         call.rec().status == oom.library_call->rec().status && call.function == oom.library_call->function;
}

}  // namespace cublasspy::diagnoses

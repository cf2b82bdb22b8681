#include "trace/trace_writer.h"

#include <algorithm>
#include <cstring>

#include "cublasspy_version.h"
#include "trace/writer_internal.h"

// The writer's layout of a new trace, its process section and its end state. Its other parts
// have files of their own: the mapping (trace_mapping.cpp), the record ring with its call
// counters (record_ring_writer.cpp), the launch ring with its kernel and count tables
// (launch_ring_writer.cpp) and the side area (side_area_writer.cpp).

namespace cublasspy {

using namespace format;
using writer_internal::atom;
using writer_internal::round_up;

namespace {

struct Layout {
  uint64_t process_offset, functions_offset, counters_offset, unchanged_offset, first_failure_offset, failure_sites_offset,
      ring_offset, launch_offset, kernels_offset, launch_counts_offset, side_offset, file_bytes;
};

constexpr uint64_t kLaunchCountBytes = uint64_t{kLaunchCountTables} * (kKernelTableEntries + 1) * sizeof(uint64_t);

Layout layout_for(uint32_t function_count, uint64_t capacity, uint64_t launch_capacity,
                  uint64_t side_bytes) {
  Layout l{};
  l.process_offset = kHeaderBytes;
  l.functions_offset = l.process_offset + kProcessSectionBytes;
  l.counters_offset = round_up(l.functions_offset + sizeof(FunctionEntry) * function_count, 64);
  l.unchanged_offset =
      round_up(l.counters_offset + sizeof(FunctionCounters) * function_count * kCounterStripes, 64);
  l.first_failure_offset =
      round_up(l.unchanged_offset + sizeof(uint64_t) * function_count * kCounterStripes, kRecordBytes);
  l.failure_sites_offset = l.first_failure_offset + kRecordBytes;
  l.ring_offset = round_up(l.failure_sites_offset + sizeof(FailureSite) * kFailureSites, kRecordBytes);
  uint64_t end = l.ring_offset + capacity * kRecordBytes;
  if (launch_capacity != 0) {
    l.launch_offset = end;
    l.kernels_offset = round_up(l.launch_offset + launch_capacity * sizeof(LaunchEntry), 64);
    l.launch_counts_offset = l.kernels_offset + uint64_t{kKernelTableEntries} * sizeof(KernelEntry);
    end = l.launch_counts_offset + kLaunchCountBytes;
  }
  l.side_offset = round_up(end, 8);
  l.file_bytes = round_up(l.side_offset + side_bytes, 4096);
  return l;
}

void start_growing(GrowingRegion& region, uint64_t offset, uint64_t bytes) {
  region.offset = offset;
  region.bytes = bytes;
  region.reserved.store(0);
  region.stuck.store(false);
}

}  // namespace

OpenResult TraceWriter::open(const std::string& requested, uint64_t capacity,
                             const FunctionEntry* functions, uint32_t function_count,
                             const std::string& process_section, uint64_t side_bytes,
                             uint64_t launch_capacity) {
  OpenResult result;
  side_bytes = side_bytes / 8 * 8;
  Layout l = layout_for(function_count, capacity, launch_capacity, side_bytes);
  // Reserved now: the header and the tables before the ring, and the kernel and launch count
  // tables after the launch ring. The rings and the side area are reserved as they fill.
  const FileRange fixed[] = {{0, l.ring_offset}, {l.kernels_offset, l.side_offset}};
  char* bytes = mapping_.create(requested, l.file_bytes, fixed, launch_capacity != 0 ? 2 : 1, result);
  if (bytes == nullptr) return result;
  start_growing(ring_space_, l.ring_offset, capacity * kRecordBytes);
  start_growing(launch_space_, l.launch_offset, launch_capacity * sizeof(LaunchEntry));
  start_growing(side_space_, l.side_offset, side_bytes);

  header_ = reinterpret_cast<FileHeader*>(bytes);
  process_ = bytes + l.process_offset;
  counters_ = reinterpret_cast<FunctionCounters*>(bytes + l.counters_offset);
  unchanged_ = reinterpret_cast<uint64_t*>(bytes + l.unchanged_offset);
  function_count_ = function_count;
  first_failure_ = reinterpret_cast<RecordSlot*>(bytes + l.first_failure_offset);
  failure_sites_.attach(reinterpret_cast<FailureSite*>(bytes + l.failure_sites_offset), kFailureSites,
                        &reinterpret_cast<FileHeader*>(bytes)->failures_unsited);
  ring_ = reinterpret_cast<RecordSlot*>(bytes + l.ring_offset);
  file_base_ = bytes;
  capacity_ = capacity;
  index_mask_ = (capacity & (capacity - 1)) == 0 ? capacity - 1 : 0;
  block_ = claim_block_for(capacity);
  lag_ = claim_lag_for(capacity);
  ++generation_;
  atom(stripes_taken_).store(0, std::memory_order_relaxed);

  // The file is fresh (zeroed); fill the parts a reader needs before the header says complete.
  size_t process_bytes = std::min<size_t>(process_section.size(), kProcessSectionBytes - 2);
  std::memcpy(process_, process_section.data(), process_bytes);
  std::memcpy(bytes + l.functions_offset, functions, sizeof(FunctionEntry) * function_count);

  FileHeader& h = *header_;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.endian_mark = kEndianMark;
  h.format_version = kFormatVersion;
  h.header_bytes = kHeaderBytes;
  h.record_bytes = kRecordBytes;
  h.word_bytes = sizeof(void*);
  h.function_count = function_count;
  h.process_offset = l.process_offset;
  h.process_bytes = kProcessSectionBytes;
  h.process_used = process_bytes;
  h.functions_offset = l.functions_offset;
  h.counters_offset = l.counters_offset;
  h.counter_stripes = kCounterStripes;
  h.unchanged_offset = l.unchanged_offset;
  h.claim_block = block_;
  h.claim_lag = lag_;
  h.first_failure_offset = l.first_failure_offset;
  h.failure_sites_offset = l.failure_sites_offset;
  h.failure_site_capacity = kFailureSites;
  h.failure_site_bytes = sizeof(FailureSite);
  h.ring_offset = l.ring_offset;
  h.ring_capacity = capacity;
  h.file_bytes = l.file_bytes;
  if (launch_capacity != 0) {
    h.launch_offset = l.launch_offset;
    h.launch_capacity = launch_capacity;
    h.kernels_offset = l.kernels_offset;
    h.kernel_capacity = kKernelTableEntries;
    h.launch_entry_bytes = sizeof(LaunchEntry);
    h.launch_counts_offset = l.launch_counts_offset;
    h.launch_count_tables = kLaunchCountTables;
    h.launch_block = claim_block_for(launch_capacity);
    h.launch_lag = claim_lag_for(launch_capacity);
  }
  launches_ = launch_capacity != 0 ? reinterpret_cast<LaunchEntry*>(bytes + l.launch_offset) : nullptr;
  kernels_ = launch_capacity != 0 ? reinterpret_cast<KernelEntry*>(bytes + l.kernels_offset) : nullptr;
  launch_capacity_ = launch_capacity;
  launch_mask_ = (launch_capacity & (launch_capacity - 1)) == 0 && launch_capacity != 0 ? launch_capacity - 1 : 0;
  launch_block_ = h.launch_block;
  launch_lag_ = h.launch_lag;
  launch_counts_ = launch_capacity != 0 ? reinterpret_cast<uint64_t*>(bytes + l.launch_counts_offset) : nullptr;
  h.side_offset = side_bytes != 0 ? l.side_offset : 0;
  h.side_bytes = side_bytes;
  h.exit_status = -1;
  h.driver_version = -1;
  h.runtime_version = -1;
  static_assert(sizeof CUBLASSPY_VERSION <= sizeof h.writer_version);
  std::memcpy(h.writer_version, CUBLASSPY_VERSION, sizeof CUBLASSPY_VERSION);
  atom(h.header_complete).store(1, std::memory_order_release);

  result.ok = true;
  return result;
}

void TraceWriter::append_process_entry(const std::string& key, const std::string& value) {
  append_process_entry(key.c_str(), value.c_str());
}

void TraceWriter::append_process_entry(const char* key, const char* value) {
  // One thread at a time: the callers in interpose/post_call.cpp (library refresh, machine
  // evidence) hold its process-section flag, taken by
  // a compare-and-swap on an atomic flag, and a thread that finds the flag taken
  // skips the refresh instead of waiting (no lock). Readers see the entry once process_used,
  // stored last with release, covers it.
  if (header_ == nullptr) return;
  const size_t key_size = std::strlen(key), value_size = std::strlen(value);
  uint64_t used = header_->process_used;
  uint64_t need = key_size + value_size + 2;
  if (used + need + 2 > kProcessSectionBytes) return;
  std::memcpy(process_ + used, key, key_size + 1);
  std::memcpy(process_ + used + key_size + 1, value, value_size + 1);
  atom(header_->process_used).store(used + need, std::memory_order_release);
}

void TraceWriter::mark_signaled(int sig) {
  if (header_ == nullptr) return;
  header_->end_signal = sig;
  atom(header_->end_state).store(static_cast<uint32_t>(EndState::kSignaled));
}

void TraceWriter::unmark_signaled() {
  if (header_ == nullptr) return;
  atom(header_->end_state).store(static_cast<uint32_t>(EndState::kRunning));
  header_->end_signal = 0;
}

void TraceWriter::mark_exited(int status) {
  if (header_ == nullptr) return;
  // The status before the state, so that a reader that sees kExited sees its status; an exit
  // that finds the process already marked signaled (the program's handler called exit after a
  // crash) leaves both alone.
  if (atom(header_->end_state).load() != static_cast<uint32_t>(EndState::kRunning)) return;
  atom(header_->exit_status).store(status < 0 ? -1 : status & 0xff);
  uint32_t running = static_cast<uint32_t>(EndState::kRunning);
  atom(header_->end_state).compare_exchange_strong(running, static_cast<uint32_t>(EndState::kExited));
}

bool TraceWriter::mark_executing() {
  if (header_ == nullptr) return false;
  uint32_t running = static_cast<uint32_t>(EndState::kRunning);
  return atom(header_->end_state).compare_exchange_strong(running, static_cast<uint32_t>(EndState::kExecuted));
}

void TraceWriter::unmark_executing() {
  if (header_ == nullptr) return;
  // A fatal signal during the failed exec has written kSignaled since: that stays.
  uint32_t executing = static_cast<uint32_t>(EndState::kExecuted);
  atom(header_->end_state).compare_exchange_strong(executing, static_cast<uint32_t>(EndState::kRunning));
}

void TraceWriter::abandon_after_fork() {
  mapping_.abandon();
  header_ = nullptr;
  ring_ = first_failure_ = nullptr;
  failure_sites_.attach(nullptr, 0, nullptr);
  file_base_ = nullptr;
  counters_ = nullptr;
  unchanged_ = nullptr;
  launches_ = nullptr;
  kernels_ = nullptr;
  launch_counts_ = nullptr;
  process_ = nullptr;
  ++generation_;
  atom(stripes_taken_).store(0, std::memory_order_relaxed);
  first_failure_taken_.store(false);
}

}  // namespace cublasspy

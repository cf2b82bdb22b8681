#include "trace/trace_reader.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <cxxabi.h>

// The launch ring, read (format version 4): its entries copied under a seqlock and put back
// in launch order, the kernel table's names and totals (summed over the count tables since
// version 6), and the launches the header names.

namespace cublasspy {

using namespace format;

std::string demangle(const std::string& symbol) {
  int status = -1;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : symbol;
}

format::Library LaunchView::library() const {
  return function ? static_cast<format::Library>(function->library) : format::Library::kUnknown;
}

std::string TraceFile::kernel_name(uint16_t index) const {
  const FileHeader& h = header_;
  if (index == kNoKernel || index >= h.kernel_capacity) return "";
  KernelEntry k;
  std::memcpy(&k, base_ + h.kernels_offset + uint64_t{index} * sizeof(KernelEntry), sizeof k);
  if (std::atomic_ref<uint32_t>(k.named).load() != 1) return "";
  k.name[kKernelNameBytes - 1] = '\0';
  return demangle(k.name);
}

bool TraceFile::copy_launch(uint64_t ticket, LaunchView& out) const {
  const FileHeader& h = header_;
  const char* at = base_ + h.launch_offset + (ticket % h.launch_capacity) * sizeof(LaunchEntry);
  // A seqlock: the entry counts only if its word is the same before and after the copy.
  auto word = [&] { return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(at)).load(); };
  const uint64_t before = word();
  std::memcpy(&out.entry, at, sizeof out.entry);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (word() != before || before != pack_word(ticket + 1, RecordState::kCompleted)) return false;
  if (out.entry.function_id >= functions_.size()) return false;
  out.ticket = ticket;
  out.function = &functions_[out.entry.function_id];
  out.kernel = kernel_name(out.entry.kernel);
  return true;
}

void TraceFile::for_each_launch(const std::function<void(const LaunchView&)>& visit) const {
  const FileHeader& h = header_;
  if (h.launch_capacity == 0) return;
  const uint64_t next = std::atomic_ref<const uint64_t>(
                            *reinterpret_cast<const uint64_t*>(base_ + offsetof(FileHeader, launch_next)))
                            .load();
  // Version 6's threads take tickets in blocks: entries lie within launch_lag + launch_block of
  // their launch order (twice that covers a thread preempted between its ticket and its clock),
  // and a heap of that many puts them back in order (launched_before's), as for_each_call does.
  // Older writers took one ticket a launch; a small window still orders a preempted thread's.
  const uint64_t window = std::min<uint64_t>(
      h.launch_capacity,
      h.format_version < 6 ? 64 : std::clamp<uint64_t>(2 * (uint64_t{h.launch_lag} + h.launch_block), 64, 65536));
  auto later = [](const LaunchView& a, const LaunchView& b) { return launched_before(b, a); };
  std::vector<LaunchView> heap;  // a min-heap by launch order
  heap.reserve(window + 1);
  auto emit_first = [&] {
    std::pop_heap(heap.begin(), heap.end(), later);
    visit(heap.back());
    heap.pop_back();
  };
  LaunchView v;
  for (uint64_t t = next > h.launch_capacity ? next - h.launch_capacity : 0; t < next; ++t) {
    if (!copy_launch(t, v)) continue;
    heap.push_back(std::move(v));
    std::push_heap(heap.begin(), heap.end(), later);
    if (heap.size() > window) emit_first();
  }
  while (!heap.empty()) emit_first();
}

uint64_t TraceFile::launch_count(uint32_t table, uint32_t entry) const {
  const FileHeader& h = header_;
  const uint64_t at = h.launch_counts_offset + (uint64_t{table} * (uint64_t{h.kernel_capacity} + 1) + entry) * sizeof(uint64_t);
  return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(base_ + at)).load(std::memory_order_relaxed);
}

uint64_t TraceFile::total_launches() const {
  const FileHeader& h = header_;
  // Version 6: tickets come in blocks, some never used; the count tables say what was made.
  if (h.launch_counts_offset == 0) return h.launch_next;
  uint64_t sum = 0;
  for (uint32_t table = 0; table < h.launch_count_tables; ++table) {
    for (uint32_t entry = 0; entry <= h.kernel_capacity; ++entry) sum += launch_count(table, entry);
  }
  return sum;
}

std::optional<LaunchView> TraceFile::first_launch_error() const {
  const uint64_t first = std::atomic_ref<const uint64_t>(
                             *reinterpret_cast<const uint64_t*>(base_ + offsetof(FileHeader, first_launch_error)))
                             .load();
  if (first == 0) return std::nullopt;
  return launch_at(first - 1);
}

std::optional<LaunchView> TraceFile::launch_at(uint64_t ticket) const {
  if (header_.launch_capacity == 0) return std::nullopt;
  LaunchView v;
  if (!copy_launch(ticket, v)) return std::nullopt;  // the entry's word must be this ticket's
  return v;
}

std::vector<KernelTotal> TraceFile::kernel_totals() const {
  const FileHeader& h = header_;
  std::vector<KernelTotal> out;
  for (uint32_t i = 0; i < h.kernel_capacity; ++i) {
    KernelEntry k;
    std::memcpy(&k, base_ + h.kernels_offset + uint64_t{i} * sizeof(KernelEntry), sizeof k);
    uint64_t launches = k.launches;  // versions 4 and 5; version 6: the count tables'
    if (h.launch_counts_offset != 0) {
      for (uint32_t table = 0; table < h.launch_count_tables; ++table) launches += launch_count(table, i);
    }
    if (k.function == 0 || launches == 0) continue;
    KernelTotal total;
    total.launches = launches;
    if (k.function_id < functions_.size()) total.function = &functions_[k.function_id];
    total.name = kernel_name(static_cast<uint16_t>(i));
    out.push_back(std::move(total));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelTotal& a, const KernelTotal& b) { return a.launches > b.launches; });
  return out;
}

std::optional<uint64_t> TraceFile::first_failed_launch() const {
  if (header_.format_version < 6) return std::nullopt;
  const uint64_t first = load_header_u64(offsetof(FileHeader, first_failed_launch));
  if (first == 0) return std::nullopt;
  return first - 1;
}

}  // namespace cublasspy

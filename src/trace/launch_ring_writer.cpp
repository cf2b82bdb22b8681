#include "trace/trace_writer.h"

#include <algorithm>

#include "trace/writer_internal.h"

// The launch ring (format::LaunchEntry): the threads' blocks of tickets and count tables, the
// kernel table, and the launches the header names (the first error, the first failure, the
// first stale graph replay).

namespace cublasspy {

using namespace format;
using writer_internal::atom;
using writer_internal::take_private_copy;

void TraceWriter::adopt_launch_cursor(LaunchCursor& cursor) {
  const uint32_t table = take_private_copy(header_->launch_tables_taken, kLaunchCountTables);
  cursor.counts = launch_counts_ + uint64_t{table} * (kKernelTableEntries + 1);
  cursor.shared = table == 0;
  cursor.base = cursor.next = 0;
  cursor.size = 0;
  cursor.generation = generation_;
}

bool TraceWriter::refill_launch_cursor(LaunchCursor& cursor) {
  if (cursor.generation != generation_) adopt_launch_cursor(cursor);
  FileHeader& h = *header_;
  // claim()'s rule: a new block when this one is used up or has fallen more than the lag behind
  // the tickets other threads took, so entries stay within launch_lag + launch_block of their
  // launch order (the window the reader sorts in), and a block in use is never one other
  // threads could come round the ring to: they would have to take the other three quarters of
  // the ring's tickets between this check and the stores claim_launch makes.
  const bool used_up = cursor.next == cursor.base + cursor.size;
  if (used_up || atom(h.launch_next).load(std::memory_order_relaxed) - cursor.base > launch_lag_) {
    cursor.size = used_up && cursor.size != 0 ? std::min(cursor.size * 2, launch_block_) : 1;
    cursor.base = atom(h.launch_next).fetch_add(cursor.size, std::memory_order_relaxed);
    cursor.next = cursor.base;
    if (!launch_space_.complete()) [[unlikely]] back_launch_block(cursor);
  }
  return cursor.next != cursor.base + cursor.size;
}

void TraceWriter::back_launch_block(LaunchCursor& cursor) {
  const uint64_t first = launch_index(cursor.base);
  const uint64_t end = std::min<uint64_t>(first + cursor.size, launch_capacity_);
  if (mapping_.reserve(launch_space_, end * sizeof(LaunchEntry))) return;
  const uint64_t reserved = launch_space_.reserved.load(std::memory_order_acquire) / sizeof(LaunchEntry);
  cursor.size = reserved > first ? static_cast<uint32_t>(std::min<uint64_t>(cursor.size, reserved - first)) : 0;
}

void TraceWriter::complete_launch(LaunchEntry* e, uint64_t ticket) {
  atom(e->word).store(pack_word(ticket + 1, RecordState::kCompleted), std::memory_order_release);
}

void TraceWriter::note_launch_error(uint64_t ticket) {
  uint64_t none = 0;
  atom(header_->first_launch_error).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed);
}

void TraceWriter::note_stale_replay(uint64_t ticket, uint64_t gemm_seq, uint64_t address, uint32_t role) {
  if (header_ == nullptr) return;
  uint64_t none = 0;
  if (atom(header_->stale_replay_launch).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed)) {
    header_->stale_replay_gemm = gemm_seq;
    header_->stale_replay_address = address;
    header_->stale_replay_role = role;
  }
  uint32_t n = atom(header_->stale_replays).load(std::memory_order_relaxed);
  while (n != UINT32_MAX &&
         !atom(header_->stale_replays).compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {
  }
}

uint64_t* TraceWriter::claim_first_failed_launch(uint64_t ticket) {
  if (header_ == nullptr) return nullptr;
  uint64_t none = 0;
  if (!atom(header_->first_failed_launch).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed)) {
    return nullptr;
  }
  return &header_->first_failed_launch_side;
}

uint16_t TraceWriter::kernel_index(uint64_t function, uint16_t function_id, NameKernel name, void* context) {
  if (kernels_ == nullptr || function == 0) return kNoKernel;
  // Open addressing on the function's address, lock-free: an entry is claimed once with a
  // compare-and-swap of its key and never moves or goes away, so a lookup is a probe or two.
  uint64_t i = (function >> 4) * 0x9E3779B97F4A7C15ull >> 54;  // 10 bits: kKernelTableEntries
  for (uint32_t probe = 0; probe < kKernelTableEntries; ++probe, i = (i + 1) % kKernelTableEntries) {
    KernelEntry& e = kernels_[i];
    uint64_t key = atom(e.function).load(std::memory_order_acquire);
    if (key == 0 && atom(e.function).compare_exchange_strong(key, function, std::memory_order_acq_rel)) {
      e.function_id = function_id;
      name(context, e.name, sizeof e.name);  // once per function, by the thread that claimed it
      e.name[sizeof e.name - 1] = '\0';
      atom(e.named).store(1, std::memory_order_release);
      key = function;
    }
    if (key == function) return static_cast<uint16_t>(i);  // counted by count_launch
  }
  atom(header_->kernels_unnamed).fetch_add(1, std::memory_order_relaxed);
  return kNoKernel;
}

}  // namespace cublasspy

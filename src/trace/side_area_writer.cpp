#include "trace/trace_writer.h"

#include <cstring>

#include "trace/writer_internal.h"

// The side area (format::SideEntry): variable-length entries attached to a record or a launch,
// allocated lock-free from one bump pointer and chained from newest to oldest.

namespace cublasspy {

using namespace format;
using writer_internal::atom;
using writer_internal::round_up;

bool TraceWriter::attach(uint64_t& head, uint64_t seq, uint32_t kind, const void* data, uint32_t length) {
  if (header_ == nullptr) return false;
  FileHeader& h = *header_;
  if (kind == 0 || length > kMaxSideEntryBytes || h.side_bytes == 0) return false;
  const uint64_t need = round_up(sizeof(SideEntry) + length, 8);
  // Reserve without ever passing the end: a compare-and-swap loop, lock-free (a thread that
  // loses the race retries with the new value; one always wins).
  uint64_t used = atom(h.side_used).load(std::memory_order_relaxed);
  do {
    if (used + need > h.side_bytes) {
      atom(h.side_dropped).fetch_add(1, std::memory_order_relaxed);
      atom(h.side_dropped_bytes).fetch_add(need, std::memory_order_relaxed);
      return false;
    }
  } while (!atom(h.side_used).compare_exchange_weak(used, used + need, std::memory_order_relaxed));
  // The entry's blocks, reserved as the area fills; on a full disk it is dropped (its bytes
  // stay unwritten: no chain names them).
  if (!side_space_.complete() && !mapping_.reserve(side_space_, used + need)) [[unlikely]] {
    atom(h.side_dropped).fetch_add(1, std::memory_order_relaxed);
    atom(h.side_dropped_bytes).fetch_add(need, std::memory_order_relaxed);
    return false;
  }
  const uint64_t at = h.side_offset + used;
  auto* entry = reinterpret_cast<SideEntry*>(file_base_ + at);
  entry->length = length;
  entry->seq = seq;
  entry->prev = atom(head).load(std::memory_order_relaxed);
  std::memcpy(file_base_ + at + sizeof(SideEntry), data, length);
  // The kind last: a reader that sees it sees the rest (the entry's whole life is this store).
  atom(entry->kind).store(kind, std::memory_order_release);
  atom(h.side_entries).fetch_add(1, std::memory_order_relaxed);
  // The record names it last, so a record never names an entry that is not all there.
  atom(head).store(at, std::memory_order_release);
  return true;
}

}  // namespace cublasspy

#include "trace/trace_reader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

#include "trace/trace_upgrade.h"

// The record ring, read: copied in chunks (once, or under a seqlock while a writer may be
// live), put back in call order through a bounded reorder window, with the calls passed over
// in flight merged in; and the records kept apart from the ring (the first failure, the
// failure sites' firsts).

namespace cublasspy {

using namespace format;

void TraceFile::count_records() const {
  held_ = torn_ = 0;
  in_flight_.clear();
  walk_ring([&](uint64_t ticket, uint64_t index, const RecordSlot& slot, bool stable) {
    const uint64_t word = slot.call.word;
    RecordState s = word_state(word);
    if (!stable) {
      ++torn_;  // being rewritten as it was read
    } else if (s == RecordState::kInFlight) {
      ++held_;
      in_flight_.push_back(index);
    } else if (s == RecordState::kCompleted && is_current(word, ticket)) {
      ++held_;
    } else if (s == RecordState::kWriting) {
      ++torn_;
    }
  });
  counted_ = true;
}

uint64_t TraceFile::records_held() const {
  if (!counted_) count_records();
  return held_;
}

uint64_t TraceFile::torn_records() const {
  if (!counted_) count_records();
  return torn_;
}

uint64_t TraceFile::copy_slots(uint64_t index, uint64_t count, RecordSlot* out,
                               std::vector<RecordSlot>& scratch, bool* stable) const {
  auto copy = [&](RecordSlot* to) {
    const uint64_t bytes = count * kRecordBytes;
    uint64_t got = 0;
    while (got < bytes) {
      ssize_t r = ::pread(fd_, reinterpret_cast<char*>(to) + got, bytes - got,
                          static_cast<off_t>(header_.ring_offset + index * kRecordBytes + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<uint64_t>(r);
    }
    return got / kRecordBytes;  // a file cut short since it was opened gives fewer
  };
  if (quiescent_) {
    const uint64_t whole = copy(out);
    std::fill(stable, stable + whole, true);
    return whole;
  }
  // A live trace: copies before and after this one must show each record's word unchanged.
  // Words never repeat (each record has a new seq, and a seq's states only move forward), so
  // equal words mean nobody rewrote the record from before this copy began until after it
  // ended, whatever order the kernel copied its bytes in: the seqlock, for a whole chunk.
  if (scratch.size() < count) scratch.resize(count);
  uint64_t whole = copy(scratch.data());
  whole = std::min(whole, copy(out));
  for (uint64_t i = 0; i < whole; ++i) stable[i] = scratch[i].call.word == out[i].call.word;
  whole = std::min(whole, copy(scratch.data()));
  for (uint64_t i = 0; i < whole; ++i) stable[i] = stable[i] && scratch[i].call.word == out[i].call.word;
  return whole;
}

template <typename Visit>
void TraceFile::walk_ring(Visit&& visit) const {
  const uint64_t cap = header_.ring_capacity;
  const uint64_t tickets = load_header_u64(offsetof(FileHeader, next_ticket));
  // Slots past the tickets handed out were never written; once the ring has wrapped, the oldest
  // ticket is the slot the next claim would take.
  const uint64_t start = tickets > cap ? tickets % cap : 0;
  const uint64_t used = std::min(tickets, cap);
  const uint64_t first = tickets - used;  // the ticket of the oldest slot: slot n has first + n
  // The ring is copied in chunks, never touched through the mapping: on machines where mapping
  // a page costs microseconds (virtual machines that shadow page tables) copying is several
  // times faster, a file cut short meanwhile gives a short read instead of SIGBUS, and memory
  // stays a chunk (or three, for a live trace).
  constexpr uint64_t kChunk = 256;  // records: 256 KiB, stays in the cache
  const uint64_t chunk_records = std::min(kChunk, std::max<uint64_t>(used, 1));
  std::vector<RecordSlot> chunk(chunk_records), scratch;
  std::unique_ptr<bool[]> stable(new bool[chunk_records]);
  for (uint64_t n = 0; n < used;) {
    const uint64_t index = (start + n) % cap;
    const uint64_t count = std::min({chunk_records, used - n, cap - index});
    const uint64_t got = copy_slots(index, count, chunk.data(), scratch, stable.get());
    for (uint64_t i = 0; i < got; ++i) visit(first + n + i, index + i, chunk[i], stable[i]);
    if (got < count) return;  // the file ends early: its last whole record ends the walk
    n += count;
  }
}

bool TraceFile::is_current(uint64_t word, uint64_t ticket) const {
  // Version 2 numbers a record by its ticket. A completed record under an older ticket sits in
  // a slot a newer ticket was handed for (a block whose thread moved on, or exited, before
  // using it): that record belongs to an earlier round of the ring, as overwritten as if the
  // newer call had been written there.
  return header_.format_version < 2 || word_seq(word) == ticket + 1;
}

TraceFile::OrderKey TraceFile::order_key(const CallView& v) const {
  // Version 1 numbered calls in the order they began; version 2's numbers come in per-thread
  // blocks, so the start time orders the calls (the number breaks ties): began_before()'s
  // order, as a key.
  if (header_.format_version < 2) return {v.seq, 0};
  return {v.rec().start_ns, v.seq};
}

uint64_t TraceFile::reorder_window() const {
  // How far apart (in slots) two records out of order can lie. Version 1 had no bound; 4096
  // was always enough there. Version 2's writer keeps records within about claim_lag +
  // claim_block of their place; twice that covers a thread preempted between taking its slot
  // and reading the clock. A corrupt header cannot ask for more than 64 Ki records of memory.
  if (header_.format_version < 2) return 4096;
  const uint64_t needed = 2 * (uint64_t{header_.claim_lag} + header_.claim_block);
  return std::clamp<uint64_t>(needed, 512, 65536);
}

std::vector<uint64_t> TraceFile::passed_over_slots() const {
  // Version 1: every call in flight (found at open). Version 2: the slots claims passed over
  // (the header's list) whose call is still in flight under an older ticket than its slot's.
  std::vector<uint64_t> out;
  if (header_.format_version < 2) {
    out = in_flight_;
  } else {
    const uint64_t cap = header_.ring_capacity;
    const uint64_t tickets = load_header_u64(offsetof(FileHeader, next_ticket));
    const uint64_t used = std::min(tickets, cap), first = tickets - used;
    const uint64_t listed = std::min<uint64_t>(load_header_u64(offsetof(FileHeader, skipped_count)), kSkippedSlots);
    for (uint64_t n = 0; n < listed; ++n) {
      const uint64_t index = load_header_u64(offsetof(FileHeader, skipped) + n * sizeof(uint64_t));
      if (index >= used) continue;  // a corrupt entry, or a slot no ticket reached
      const uint64_t ticket = first + (index + cap - first % cap) % cap;
      CallView v;
      if (fetch_slot(index, v) && v.in_flight() && !is_current(v.slot.call.word, ticket)) out.push_back(index);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void TraceFile::for_each_call(const std::function<void(const CallView&)>& visit) const {
  // Records lie in the ring in ticket order, which is call order up to a bounded displacement
  // (reorder_window()): a heap of that many records, kept by order_key, puts them back in
  // order. Each record is copied once, into a pool the size of the window, and handed to
  // `visit` from there, so memory stays flat however long the ring, and the ring is read once.
  // A call in flight for a whole round of the ring sits among later records; such calls are
  // known before the walk (passed_over_slots) and merged in by the same key.
  if (header_.format_version < 2 && !counted_) count_records();
  const uint64_t window = reorder_window();
  struct Pending {
    OrderKey key;
    uint32_t pool_index;
    bool operator<(const Pending& o) const { return o.key < key; }  // min-heap
  };
  const uint64_t cap = header_.ring_capacity;
  const uint64_t slots = std::max<uint64_t>(std::min(load_header_u64(offsetof(FileHeader, next_ticket)), cap), 1);
  std::vector<CallView> pool(std::min(window + 1, slots));
  std::vector<uint32_t> free_slots(pool.size());
  for (uint32_t i = 0; i < free_slots.size(); ++i) free_slots[i] = static_cast<uint32_t>(pool.size() - 1 - i);
  std::vector<Pending> heap;
  heap.reserve(pool.size());

  const std::vector<uint64_t> passed_over = passed_over_slots();
  std::vector<CallView> flying;
  for (uint64_t index : passed_over) {
    if (auto v = fetch_slot(index); v && v->in_flight()) flying.push_back(*v);
  }
  std::sort(flying.begin(), flying.end(),
            [&](const CallView& a, const CallView& b) { return order_key(a) < order_key(b); });
  size_t next_flying = 0;
  auto emit_first = [&] {
    std::pop_heap(heap.begin(), heap.end());
    const Pending first = heap.back();
    heap.pop_back();
    while (next_flying < flying.size() && order_key(flying[next_flying]) < first.key) {
      visit(flying[next_flying++]);
    }
    visit(pool[first.pool_index]);
    free_slots.push_back(first.pool_index);
  };
  // The walk also counts what records_held() and torn_records() report.
  uint64_t held = 0, torn = 0;
  walk_ring([&](uint64_t ticket, uint64_t index, const RecordSlot& slot, bool stable) {
    const uint64_t word = slot.call.word;
    const RecordState state = word_state(word);
    if (state == RecordState::kWriting || !stable) ++torn;
    if (!stable) return;
    if (state != RecordState::kCompleted && state != RecordState::kInFlight) return;
    if (state == RecordState::kCompleted && !is_current(word, ticket)) return;  // overwritten
    if (std::binary_search(passed_over.begin(), passed_over.end(), index)) return;  // in `flying`
    if (free_slots.empty()) emit_first();  // a ring grown since open: the pool is full
    const uint32_t i = free_slots.back();
    if (!copy_view(slot, pool[i])) {
      ++torn;
      return;
    }
    ++held;
    free_slots.pop_back();
    heap.push_back({order_key(pool[i]), i});
    std::push_heap(heap.begin(), heap.end());
    if (heap.size() > window) emit_first();
  });
  while (!heap.empty()) emit_first();
  while (next_flying < flying.size()) visit(flying[next_flying++]);
  held_ = held + flying.size();
  torn_ = torn;
  counted_ = true;
}

bool TraceFile::copy_view(const RecordSlot& slot, CallView& out) const {
  const uint64_t word = slot.call.word;
  const RecordState state = word_state(word);
  if (state != RecordState::kInFlight && state != RecordState::kCompleted) return false;
  if (slot.call.function_id >= functions_.size()) return false;
  std::memcpy(&out.slot, &slot, offsetof(RecordSlot, pad));  // the padding carries nothing
  upgrade_record(out.slot, header_.format_version);
  out.seq = word_seq(word);
  out.state = state;
  out.function = &functions_[slot.call.function_id];
  // What other families' records leave in these fields is an earlier call's (trace_format.h).
  if (!has_pending_error(out.function->family)) {
    out.slot.pending_error = 0;
    out.slot.capture_id = 0;
  }
  if (!has_plane_offsets(out.function->family)) std::fill(std::begin(out.slot.plane_offset), std::end(out.slot.plane_offset), 0);
  return true;
}

bool TraceFile::fetch_slot(uint64_t index, CallView& out) const {
  RecordSlot slot;
  std::vector<RecordSlot> scratch;
  bool stable = false;
  return copy_slots(index, 1, &slot, scratch, &stable) == 1 && stable && copy_view(slot, out);
}

std::optional<CallView> TraceFile::fetch_slot(uint64_t index) const {
  std::optional<CallView> v(std::in_place);
  if (!fetch_slot(index, *v)) return std::nullopt;
  return v;
}

std::optional<FailureSiteView> TraceFile::failure_site(uint32_t index) const {
  const FileHeader& h = header_;
  if (h.failure_sites_offset == 0 || index >= h.failure_site_capacity) return std::nullopt;
  FailureSite site;
  if (!read_at(h.failure_sites_offset + uint64_t{index} * sizeof(FailureSite), &site, sizeof site)) return std::nullopt;
  if (site.state != static_cast<uint32_t>(FailureSiteState::kKeyed) || site.function_id >= functions_.size()) {
    return std::nullopt;
  }
  FailureSiteView v;
  v.index = index;
  v.function_id = site.function_id;
  v.function = &functions_[site.function_id];
  v.status = site.status;
  v.return_address = site.return_address;
  v.python_line = site.python_line;
  v.count = site.count;
  CallView first;
  // The copy is complete once first_seq is set (the writer stores it last); a copy whose own
  // word disagrees was torn or overwritten.
  if (site.first_seq != 0 && copy_view(site.first, first) && first.seq == site.first_seq &&
      first.rec().function_id == site.function_id) {
    v.first = std::move(first);
  }
  return v;
}

std::vector<FailureSiteView> TraceFile::failure_sites() const {
  std::vector<FailureSiteView> out;
  for (uint32_t i = 0; i < header_.failure_site_capacity; ++i) {
    if (auto site = failure_site(i)) out.push_back(std::move(*site));
  }
  return out;
}

std::optional<CallView> TraceFile::first_failure() const {
  uint64_t seq;
  std::memcpy(&seq, base_ + offsetof(FileHeader, first_failure_seq), sizeof seq);
  if (seq == 0) return std::nullopt;
  RecordSlot copy;
  std::memcpy(&copy, base_ + header_.first_failure_offset, sizeof copy);
  std::optional<CallView> v(std::in_place);
  if (!copy_view(copy, *v) || v->seq != seq) {
    // The copy was not finished: the ring may still hold the record.
    std::optional<CallView> found;
    for_each_call([&](const CallView& c) {
      if (c.seq == seq) found = c;
    });
    return found;
  }
  return v;
}

}  // namespace cublasspy

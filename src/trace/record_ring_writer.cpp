#include "trace/trace_writer.h"

#include <algorithm>
#include <cstring>

#include "trace/writer_internal.h"

// The record ring: claim()'s cold paths (a new block of tickets, a slot passed over, a record
// dropped), the call counters' stripes, and a failed call's bookkeeping.

namespace cublasspy {

using namespace format;
using writer_internal::atom;
using writer_internal::take_private_copy;

bool TraceWriter::refill_claim_cursor(ClaimCursor& cursor) {
  // A new block when this one is used up, was taken for an earlier trace, or has fallen more
  // than the lag behind the tickets other threads took meanwhile: records then stay within
  // claim_lag + claim_block slots of their start-time order, the window a reader sorts in.
  // A thread that uses its blocks up gets longer ones, up to claim_block; one that fell behind
  // starts again from a single slot, so a thread that calls rarely leaves few slots unused
  // behind it.
  const bool current = cursor.generation == generation_;
  const bool used_up = current && cursor.next >= cursor.end;
  const uint32_t last_size = static_cast<uint32_t>(cursor.end - cursor.base);
  const uint32_t size = used_up && last_size != 0 ? std::min(last_size * 2, block_) : 1;
  // The thread counted among the trace's recording threads before it takes a block, so that
  // the first thread sees a second one at its next block at the latest (alone_at).
  if (!current) adopt_counters(cursor);
  cursor.base = atom(header_->next_ticket).fetch_add(size, std::memory_order_relaxed);
  cursor.next = cursor.base;
  cursor.end = cursor.base + size;
  if (!ring_space_.complete()) [[unlikely]] back_claim_block(cursor);
  cursor.lag_limit = index_mask_ != 0 ? cursor.base + lag_ : 0;
  // Only the trace's one recording thread so far (one counter stripe taken) marks slots with a
  // plain store (claim()).
  const bool only_thread = atom(stripes_taken_).load(std::memory_order_relaxed) == 1;
  cursor.alone_at = index_mask_ != 0 && capacity_ >= kPlainClaimRing && only_thread ? cursor.end : 0;
  cursor.generation = generation_;
  return cursor.end != cursor.base;
}

void TraceWriter::back_claim_block(ClaimCursor& cursor) {
  const uint64_t first = slot_index(cursor.base);
  // A block that wraps round the ring's end needs all of it.
  const uint64_t size = cursor.end - cursor.base;
  const uint64_t end = std::min<uint64_t>(first + size, capacity_);
  if (mapping_.reserve(ring_space_, end * kRecordBytes)) return;
  const uint64_t reserved = ring_space_.reserved.load(std::memory_order_acquire) / kRecordBytes;
  cursor.end = cursor.base + (reserved > first ? std::min<uint64_t>(size, reserved - first) : 0);
}

void TraceWriter::note_skipped(uint64_t ticket) {
  // Rare (a call in flight for a whole round of the ring): noted for the reader.
  const uint64_t n = atom(header_->skipped_count).fetch_add(1, std::memory_order_relaxed);
  atom(header_->skipped[n % kSkippedSlots]).store(slot_index(ticket), std::memory_order_relaxed);
}

RecordSlot* TraceWriter::drop_record(uint64_t* seq_out, RecordSlot* scratch) {
  atom(header_->dropped_records).fetch_add(1, std::memory_order_relaxed);
  *seq_out = atom(header_->next_ticket).fetch_add(1, std::memory_order_relaxed) + 1;  // a ticket no slot gets
  return scratch;
}

// The usual case is a straight line of a few instructions: the block's next ticket, a free
// slot, one store (a compare-and-swap once another thread took a block). Everything else is
// out of line (refill_claim_cursor, note_skipped, drop_record): every recorded call runs this,
// and in a program that makes a few short calls per operation the shim's cost follows the
// instructions it runs.
RecordSlot* TraceWriter::claim_slow(ClaimCursor& cursor, uint64_t* seq_out, RecordSlot* scratch) {
  for (uint64_t attempt = 0; attempt < capacity_; ++attempt) {
    // Reading next_ticket costs a cache miss only after another thread took a block.
    // (claim() may have taken one past the end: `>=`.)
    if (cursor.generation != generation_ || cursor.next >= cursor.end ||
        atom(header_->next_ticket).load(std::memory_order_relaxed) - cursor.base > lag_) [[unlikely]] {
      // No slot of the new block could be reserved (a full disk): the record is dropped.
      if (!refill_claim_cursor(cursor)) [[unlikely]] break;
    }
    const uint64_t ticket = take_ticket(cursor.next);
    // Past the block: a signal handler of this thread, recording a call in the middle of this
    // one, took the block's last tickets or a new block (the cursor's fields are not written
    // at once): a new block at the next turn.
    if (ticket >= cursor.end) [[unlikely]] continue;
    RecordSlot* slot = &ring_[slot_index(ticket)];
    uint64_t word = atom(slot->call.word).load(std::memory_order_relaxed);
    // A record with a later ticket (a thread came round the ring while this block waited) is
    // newer than this call would be, and stays.
    if (word_seq(word) > ticket) [[unlikely]] continue;
    // A slot whose call is still in flight is skipped, never overwritten: the call a process
    // was stuck in when it died must survive however many calls other threads made meanwhile.
    const RecordState state = word_state(word);
    if (state == RecordState::kInFlight || state == RecordState::kWriting) [[unlikely]] {
      note_skipped(ticket);
      continue;
    }
    const uint64_t seq = ticket + 1;
    if (atom(slot->call.word).compare_exchange_strong(word, pack_word(seq, RecordState::kWriting),
                                                      std::memory_order_acquire)) [[likely]] {
      std::atomic_thread_fence(std::memory_order_release);
      *seq_out = seq;
      if (ticket + detail::kPrefetchAhead < cursor.end) detail::prefetch_for_writing(&ring_[slot_index(ticket + detail::kPrefetchAhead)]);
      return slot;
    }
  }
  return drop_record(seq_out, scratch);
}

void TraceWriter::adopt_counters(ClaimCursor& cursor) {
  const uint32_t stripe = take_private_copy(stripes_taken_, kCounterStripes);
  cursor.counters = counters_ + uint64_t{stripe} * function_count_;
  cursor.unchanged = unchanged_ + uint64_t{stripe} * function_count_;
  cursor.counters_shared = stripe == 0;
}

uint64_t TraceWriter::calls_made() const {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < uint64_t{kCounterStripes} * function_count_; ++i) {
    sum += atom(counters_[i].calls).load(std::memory_order_relaxed);
    sum += atom(unchanged_[i]).load(std::memory_order_relaxed);
  }
  return sum;
}

uint64_t TraceWriter::last_seq_of(const ClaimCursor& cursor) const {
  // The cursor's next ticket is one past the last it handed out, which is that call's seq.
  if (cursor.generation == generation_ && cursor.next > cursor.base) return std::min(cursor.next, cursor.end);
  return atom(header_->next_ticket).load(std::memory_order_relaxed);
}

void TraceWriter::note_failure(RecordSlot* slot, uint64_t seq, ClaimCursor& cursor) {
  bump(cursor.counters[slot->call.function_id].failed, cursor.counters_shared);
  // The first failure is copied aside so that wrap-around cannot take it. The flag decides
  // which call that is; it sits on its own cache line, so failing calls do not read the
  // header's line, which the other threads' claims keep moving between cores.
  if (!first_failure_taken_.load(std::memory_order_relaxed) &&
      !first_failure_taken_.exchange(true, std::memory_order_relaxed)) {
    atom(header_->first_failure_seq).store(seq, std::memory_order_relaxed);
    std::memcpy(first_failure_, slot, sizeof(RecordSlot));
    atom(first_failure_->call.word).store(pack_word(seq, RecordState::kCompleted),
                                          std::memory_order_release);
  }
}

}  // namespace cublasspy

// TraceWriter: the flight recorder's writing side. One memory-mapped file per process; records
// are claimed from a ring without a lock, written in place, and readable after any death.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/failure_site_table.h"
#include "trace/trace_format.h"
#include "trace/trace_mapping.h"
#include "trace/writer_cursors.h"

namespace cublasspy {

class TraceWriter {
 public:
  // Creates the trace (TraceMapping::create: never follows a symlink, never clobbers an
  // existing file, reserves the blocks of the header and tables up front and those of the rings
  // and the side area as they fill, falls back to $TMPDIR, then to anonymous memory) and lays
  // it out. `functions` has function_count entries.
  // `side_bytes` sizes the side area (format::SideEntry; rounded down to 8 bytes, 0: none).
  // `launch_capacity`: entries of the launch ring (0: the trace has none, nor a kernel table).
  OpenResult open(const std::string& path, uint64_t ring_capacity,
                  const format::FunctionEntry* functions, uint32_t function_count,
                  const std::string& process_section, uint64_t side_bytes = kDefaultSideBytes,
                  uint64_t launch_capacity = 0);
  static constexpr uint64_t kDefaultSideBytes = 4ull << 20;

  bool is_open() const { return header_ != nullptr; }
  format::FileHeader* header() { return header_; }

  // Claims a ring slot for a new call from the thread's `cursor` and marks it kWriting. Never
  // blocks; returns a thread-private scratch slot when the ring is full of calls in flight
  // (counted as dropped). *seq_out is unique in the process either way.
  // The usual case is inline: the thread's block has tickets and is not behind, the ring's
  // capacity is a power of two (else the cursor's lag_limit is 0), and the slot is free.
  // Anything else is claim_slow()'s.
  // The ticket is taken first, by one instruction (take_ticket): a signal handler of this
  // thread that records a call in the middle of this one gets the next ticket, never this one.
  // The slot is then marked with a plain store when the thread is the only one that recorded
  // in this trace so far and holds the latest block of tickets (no other thread took one since
  // its own), in a ring of kPlainClaimRing slots or more: a second thread could reach the slot
  // only by coming round the whole ring, taking the thousands of tickets of its other slots
  // between the first thread's check and its store, the bound the launch ring relies on for
  // every launch, and from its first block on the first thread uses the compare-and-swap too.
  // (Any thread holding the latest block was not enough: with threads that outnumber the
  // cores, one preempted inside a claim was come round on, hardening.Rings/WriterThreads
  // under ThreadSanitizer.) The compare-and-swap also settles a race with a thread that fell
  // behind. A locked instruction waits for the thread's earlier stores to reach the cache: in
  // a loop of small torch.mm it was about a quarter of what the shim added (docs/BENCHMARKS.md,
  // "2026-12-07, d946c80: one locked instruction a GEMM less").
  [[gnu::always_inline]] format::RecordSlot* claim(ClaimCursor& cursor, uint64_t* seq_out, format::RecordSlot* scratch) {
    const uint64_t handed_out = std::atomic_ref<uint64_t>(header_->next_ticket).load(std::memory_order_relaxed);
    const uint64_t ticket = take_ticket(cursor.next);
    if (cursor.generation == generation_ && ticket < cursor.end && handed_out <= cursor.lag_limit) [[likely]] {
      format::RecordSlot* slot = &ring_[ticket & index_mask_];
      std::atomic_ref<uint64_t> slot_word(slot->call.word);
      uint64_t word = slot_word.load(std::memory_order_acquire);
      const format::RecordState state = format::word_state(word);
      const uint64_t writing = format::pack_word(ticket + 1, format::RecordState::kWriting);
      // Not a later ticket's record, nor a call in flight, which is noted as passed over
      // (claim_slow() says why).
      if (format::word_seq(word) > ticket) [[unlikely]] {
      } else if (state == format::RecordState::kInFlight || state == format::RecordState::kWriting) [[unlikely]] {
        note_skipped(ticket);
      } else if (handed_out == cursor.alone_at
                     ? (slot_word.store(writing, std::memory_order_relaxed), true)
                     : slot_word.compare_exchange_strong(word, writing, std::memory_order_acquire)) [[likely]] {
        std::atomic_thread_fence(std::memory_order_release);
        *seq_out = ticket + 1;
        if (ticket + detail::kPrefetchAhead < cursor.end) {
          detail::prefetch_for_writing(&ring_[(ticket + detail::kPrefetchAhead) & index_mask_]);
        }
        return slot;
      }
    }
    // The ticket taken stays unused (as a slot passed over does); claim_slow takes the next.
    return claim_slow(cursor, seq_out, scratch);
  }
  // Attaches `length` bytes of data of `kind` (nonzero: format::SideKind, or a kind of another
  // writer's) to the record in `slot`, made under `seq`, by the thread that owns the record
  // (before complete()). Lock-free, allocation-free and async-signal-safe: it may run in a
  // fatal-signal handler. False when the side area is full (the entry is counted as dropped),
  // absent, or the data is longer than format::kMaxSideEntryBytes.
  bool attach(format::RecordSlot* slot, uint64_t seq, uint32_t kind, const void* data,
              uint32_t length) {
    return attach(slot->side_head, seq, kind, data, length);
  }
  // The same for any chain: `head` (in the mapping) names its newest entry, and entries carry
  // `seq` (a record's, or for a launch its ticket + 1).
  bool attach(uint64_t& head, uint64_t seq, uint32_t kind, const void* data, uint32_t length);
  // Writes the fields every record has into a claimed slot, for a call of `function_id` (of
  // `family`, format::Family) made at nesting `depth` on thread `tid`. A reused slot holds its
  // last call's values: the fields beside the record that only some families use
  // (pending_error and capture_id, plane_offset) are cleared only in those families' records,
  // and the reader shows them only there. Inline: the shim's wrappers call it with constants
  // (call_frame.h), where the family's tests fold away.
  [[gnu::always_inline]] static void start_record(format::RecordSlot* slot, uint16_t function_id, uint16_t family,
                                                  uint32_t depth, uint32_t tid, uint64_t start_ns) {
    format::Record& rec = slot->call;
    rec.function_id = function_id;
    rec.depth = static_cast<uint16_t>(depth);
    rec.flags = depth != 0 ? static_cast<uint32_t>(format::kFlagNested) : 0u;
    rec.tid = tid;
    rec.status = 0;
    rec.start_ns = start_ns;
    rec.duration_ns = 0;
    rec.handle = 0;
    rec.stream = 0;
    rec.pointer_mode = -1;
    rec.math_mode = -1;
    rec.async_status = 0;
    rec.check_bits = 0;
    rec.alpha[0] = rec.alpha[1] = rec.beta[0] = rec.beta[1] = 0;
    rec.check_detail[0] = rec.check_detail[1] = 0;
    if (format::has_pending_error(family)) {
      slot->pending_error = 0;
      slot->capture_id = 0;
    }
    if (format::has_plane_offsets(family)) {
      for (int64_t& offset : slot->plane_offset) offset = 0;
    }
  }
  // Makes a claimed record visible as in flight (all arguments written). Inline, as complete()
  // is: every call makes both, and each is a store or two.
  static void publish_in_flight(format::RecordSlot* slot, uint64_t seq) {
    std::atomic_ref<uint64_t>(slot->call.word)
        .store(format::pack_word(seq, format::RecordState::kInFlight), std::memory_order_release);
  }
  // Makes the record visible as completed and updates the totals and the first failure.
  // `cursor` picks the thread's stripe of the counters (format::FileHeader::counter_stripes).
  void complete(format::RecordSlot* slot, uint64_t seq, bool failed, ClaimCursor& cursor) {
    // The failure's bookkeeping reads the slot, so it comes first: once the slot says completed,
    // another thread may claim it for a new call and start writing.
    if (failed) [[unlikely]] note_failure(slot, seq, cursor);
    std::atomic_ref<uint64_t>(slot->call.word)
        .store(format::pack_word(seq, format::RecordState::kCompleted), std::memory_order_release);
  }
  // Where failed calls come from (format::FailureSite): counted per site, each site's first
  // failure kept with its locations.
  FailureSiteTable& failure_sites() { return failure_sites_; }
  // Counts a call of the thread whose cursor claimed its record.
  void count_call(uint16_t function_id, ClaimCursor& cursor) {
    bump(cursor.counters[function_id].calls, cursor.counters_shared);
  }
  // Counts a handle setter's call that set the value the handle already held and succeeded:
  // a call without a record, counted in FileHeader::unchanged_offset's table alone (not in
  // FunctionCounters::calls: one increment, not two; a reader adds the two). The
  // thread may have claimed no record in this trace yet: its cursor then takes its stripe (and
  // a first block of tickets) here.
  void count_unchanged(uint16_t function_id, ClaimCursor& cursor) {
    if (cursor.generation != generation_) [[unlikely]] refill_claim_cursor(cursor);
    bump(cursor.unchanged[function_id], cursor.counters_shared);
  }
  // The same when the cursor has its stripe in this trace already (it says whether it counted):
  // for a caller that takes no slow path.
  bool count_unchanged_in_current(uint16_t function_id, ClaimCursor& cursor) {
    if (cursor.generation != generation_) [[unlikely]] return false;
    bump(cursor.unchanged[function_id], cursor.counters_shared);
    return true;
  }
  // Takes back a count_unchanged() of the same cursor: the shim counts an unchanged setter
  // before its real call, and one that failed or crashed gets a record instead. Async-signal-safe.
  // (A cursor of another trace, this process's before a fork, counted nothing here.)
  void uncount_unchanged(uint16_t function_id, ClaimCursor& cursor) {
    if (cursor.generation != generation_) return;
    bump(cursor.unchanged[function_id], cursor.counters_shared, ~uint64_t{0});
  }
  // Calls counted so far (the sum of the counters; for the fork record, not the hot path).
  uint64_t calls_made() const;
  // The seq of the last call `cursor`'s thread made into this trace; without one, the tickets
  // handed out (every call so far has a seq no greater). For the fork record.
  uint64_t last_seq_of(const ClaimCursor& cursor) const;

  // The launch ring (format::LaunchEntry). claim_launch: the next entry, marked kWriting, and
  // its ticket; nullptr when the trace has no launch ring. Never blocks, never allocates.
  // Tickets come from the thread's `cursor`, in blocks (FileHeader::launch_block); a ticket
  // whose entry holds a newer launch (another thread came round the ring meanwhile) is passed
  // over, never written.
  // Inline: a launch costs tens of nanoseconds, and the call and the spills around it were a
  // tenth of them; the block's refill (refill_launch_cursor) stays out of line.
  format::LaunchEntry* claim_launch(LaunchCursor& cursor, uint64_t* ticket) {
    if (launches_ == nullptr) return nullptr;
    if (cursor.generation != generation_ || cursor.next == cursor.base + cursor.size ||
        std::atomic_ref<uint64_t>(header_->launch_next).load(std::memory_order_relaxed) - cursor.base >
            launch_lag_) [[unlikely]] {
      // No entry whose blocks could be reserved (a full disk): the launch goes unrecorded.
      if (!refill_launch_cursor(cursor)) return nullptr;
    }
    const uint64_t t = cursor.next++;
    format::LaunchEntry* e = &launches_[launch_index(t)];
    // Entries are written once and never wait: a reader that finds the word changed while it
    // copied drops the entry. (Unlike claim(), the entry is not read first: the ring is larger
    // than the caches, and that read would wait for memory.)
    std::atomic_ref<uint64_t>(e->word).store(format::pack_word(t + 1, format::RecordState::kWriting),
                                             std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    // Ask for the line a few launches ahead now, for writing, so that those launches' stores
    // need not wait for it.
    __builtin_prefetch(&launches_[launch_index(t + 4)], 1);
    *ticket = t;
    return e;
  }
  static void complete_launch(format::LaunchEntry* entry, uint64_t ticket);
  // Counts a launch of kernel table entry `kernel` (kNoKernel: none) for the thread whose
  // `cursor` claimed it (after claim_launch). A plain increment of the thread's own table.
  static void count_launch(const LaunchCursor& cursor, uint16_t kernel) {
    uint64_t& n = cursor.counts[kernel < format::kKernelTableEntries ? kernel : format::kKernelTableEntries];
    std::atomic_ref<uint64_t> count(n);
    if (cursor.shared) [[unlikely]] count.fetch_add(1, std::memory_order_relaxed);
    else count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // The first launch found with an asynchronous error (FileHeader::first_launch_error).
  void note_launch_error(uint64_t ticket);
  // A graph launch found to use memory freed since its capture (FileHeader::stale_replay_*):
  // the first is kept, every one counted.
  void note_stale_replay(uint64_t ticket, uint64_t gemm_seq, uint64_t address, uint32_t role);
  // Makes launch `ticket` the trace's first failed launch (FileHeader::first_failed_launch)
  // unless another launch already is: the head of the chain its locations go in, or nullptr.
  uint64_t* claim_first_failed_launch(uint64_t ticket);
  // The kernel table index of `function`, or format::kNoKernel. The
  // first launch of a function names it: name(context, out, size) writes its symbol into `out`.
  using NameKernel = void (*)(void* context, char* out, size_t size);
  uint16_t kernel_index(uint64_t function, uint16_t function_id, NameKernel name, void* context);

  // Appends "key\0value\0" to the process section if it fits (libraries found later).
  void append_process_entry(const std::string& key, const std::string& value);
  // The same without allocating (machine evidence, interpose/machine_record.cpp).
  void append_process_entry(const char* key, const char* value);

  // Async-signal-safe: record how the process ended.
  void mark_signaled(int sig);
  void unmark_signaled();
  // `status`: what the program passed to exit() (on_exit's argument; the low 8 bits are the
  // exit status its parent sees), or -1 when not known.
  void mark_exited(int status);
  // An exec is about to replace the image (format version 9): the trace ends here unless the
  // exec returns. Lock-free; true when it marked the trace (one already ended is left alone).
  bool mark_executing();
  // The exec returned (it failed) and the image goes on: running again, if still so marked.
  void unmark_executing();

  // The child of a fork must not write its parent's file: forget the mapping (no unmap of
  // shared state is needed beyond the child's own view).
  void abandon_after_fork();

  // Whether the trace holds something that makes it worth keeping past a clean exit: a failed
  // call other than a probe (a failed load; a device count or driver initialization that found
  // no device where CUDA_VISIBLE_DEVICES hides them all), an asynchronous error, a failed
  // launch, a graph launch that used freed memory
  // (recorded_incident.cpp; docs/CONTRACT.md, "Which traces are kept").
  bool recorded_incident() const;
  // Removes the trace's file if its path still names this trace's (TraceMapping::remove_file);
  // recording goes on into the mapping.
  bool remove_file() { return mapping_.remove_file(); }

  // For the SIGBUS handler and after it: TraceMapping's (the file truncated under the process).
  bool detach_on_fault(const void* address) { return mapping_.detach_on_fault(address); }
  bool detached_unreported() const { return mapping_.detached_unreported(); }
  bool take_detach_notice() { return mapping_.take_detach_notice(); }

 private:
  // A counter of the thread's stripe. A locked increment on x86 also waits until the thread's
  // earlier stores (the record's, to cold lines) have reached the cache; a stripe only its
  // thread writes needs none. (A signal handler that makes an intercepted call in the middle of
  // the same thread's increment could lose one count: counts are statistics, records are not.)
  // `delta` wraps: ~0 takes one away.
  // The thread's own stripe is one add to memory on x86: a relaxed load and store of an atomic
  // are three instructions, and nothing else writes the stripe.
  static void bump(uint64_t& counter, bool shared, uint64_t delta = 1) {
    std::atomic_ref<uint64_t> c(counter);
    if (shared) [[unlikely]] {
      c.fetch_add(delta, std::memory_order_relaxed);
    } else {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
      asm("addq %1, %0" : "+m"(counter) : "er"(delta));
#else
      c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
#endif
    }
  }
  // The cursor's next ticket, taken and advanced by one instruction, which a signal handler of
  // the thread cannot come between (the cursor is the thread's own: no other thread writes it,
  // so no lock).
  static uint64_t take_ticket(uint64_t& next) {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    uint64_t ticket = 1;
    asm volatile("xaddq %0, %1" : "+r"(ticket), "+m"(next));
    return ticket;
#else
    return std::atomic_ref<uint64_t>(next).fetch_add(1, std::memory_order_relaxed);
#endif
  }
  // The smallest ring whose slots claim() marks without a lock (see there).
  static constexpr uint64_t kPlainClaimRing = 4096;
  // A cursor's stripe in this trace: one of its own while any is left, else the shared one.
  void adopt_counters(ClaimCursor& cursor);
  // claim()'s cold paths: a new block of tickets for `cursor` (its first in this trace, its
  // block used up, or fallen behind); a slot skipped because its call is in flight; a call
  // that found no slot (written to the thread's scratch slot, counted as dropped).
  // False when no slot of the new block could be reserved (a full disk).
  [[gnu::cold, gnu::noinline]] bool refill_claim_cursor(ClaimCursor& cursor);
  // claim() for every case: refills the block, skips slots in flight, drops the record when the
  // ring is full of them.
  [[gnu::noinline]] format::RecordSlot* claim_slow(ClaimCursor& cursor, uint64_t* seq_out, format::RecordSlot* scratch);
  // complete()'s for a failed call: its count, and the first failure copied aside.
  [[gnu::cold, gnu::noinline]] void note_failure(format::RecordSlot* slot, uint64_t seq, ClaimCursor& cursor);
  [[gnu::cold, gnu::noinline]] void note_skipped(uint64_t ticket);
  [[gnu::cold, gnu::noinline]] format::RecordSlot* drop_record(uint64_t* seq_out, format::RecordSlot* scratch);
  // ticket % capacity, without a division in the usual case.
  uint64_t slot_index(uint64_t ticket) const {
    return index_mask_ != 0 ? ticket & index_mask_ : ticket % capacity_;
  }
  uint64_t launch_index(uint64_t ticket) const {
    return launch_mask_ != 0 ? ticket & launch_mask_ : ticket % launch_capacity_;
  }
  // A cursor from an earlier trace (or none): a count table in this one, and no block.
  void adopt_launch_cursor(LaunchCursor& cursor);
  // claim_launch's cold path: adopts a stale cursor, and takes a new block of tickets when the
  // cursor's is used up or has fallen more than the lag behind. False when the block has no
  // ticket left (back_launch_block found no reserved entry for it).
  bool refill_launch_cursor(LaunchCursor& cursor);
  // While the rings' first round reaches parts of the file not reserved yet: reserves the
  // blocks of a fresh block of tickets' slots (TraceMapping::reserve), or, when that fails,
  // trims the block to the tickets whose slots are reserved (perhaps none; the others are
  // given up, as a dropped record's ticket is).
  [[gnu::cold, gnu::noinline]] void back_claim_block(ClaimCursor& cursor);
  [[gnu::cold, gnu::noinline]] void back_launch_block(LaunchCursor& cursor);

  // What claim()'s inline case reads, on one line: the header (its next ticket), the ring, its
  // mask and the generation a cursor is compared with.
  format::FileHeader* header_ = nullptr;
  format::RecordSlot* ring_ = nullptr;
  uint64_t index_mask_ = 0;  // capacity - 1 when the capacity is a power of two (the default)
  uint32_t generation_ = 0;  // open() calls so far: a cursor from before is stale
  char* file_base_ = nullptr;  // the mapping's start: side entries are at file offsets
  format::RecordSlot* first_failure_ = nullptr;
  FailureSiteTable failure_sites_;
  format::FunctionCounters* counters_ = nullptr;
  uint64_t* unchanged_ = nullptr;  // FileHeader::unchanged_offset
  format::LaunchEntry* launches_ = nullptr;
  format::KernelEntry* kernels_ = nullptr;
  uint64_t launch_capacity_ = 0;
  uint64_t launch_mask_ = 0;  // launch_capacity - 1 when a power of two (the default)
  uint32_t launch_block_ = 1;
  uint32_t launch_lag_ = 0;
  uint64_t* launch_counts_ = nullptr;  // FileHeader::launch_counts_offset
  char* process_ = nullptr;
  uint64_t capacity_ = 0;
  uint32_t function_count_ = 0;
  uint32_t block_ = 1;       // FileHeader::claim_block
  uint32_t lag_ = 0;         // FileHeader::claim_lag
  uint32_t stripes_taken_ = 0;  // counter stripes 1.. handed to threads in this trace (atomic_ref)
  // Where the bytes are (file_base_ is its start). Here, at the end of the line of the fields
  // claim() reads: the shim asks detached_unreported() on every call.
  TraceMapping mapping_;
  alignas(64) std::atomic<bool> first_failure_taken_{false};  // read by every failing call
  char pad_[63];  // nothing written often shares its line
  // The parts of the file whose blocks are reserved as they fill (TraceMapping::reserve): the
  // record ring, the launch ring and the side area. Asked where a block of tickets is taken
  // and where a side entry is placed, never by claim()'s inline case.
  GrowingRegion ring_space_, launch_space_, side_space_;
};

}  // namespace cublasspy

// The cursors a thread of the shim keeps for the writer (trace_writer.h): its block of ring
// tickets with its stripe of the call counters, and its block of launch tickets with its launch
// count table; and the prefetch that readies the ring slots its next calls will use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/trace_format.h"

namespace cublasspy {

// A thread's block of ring tickets: one shared atomic operation per block of calls instead of
// one per call, so threads do not take turns owning one cache line (format::FileHeader's
// claim_block). Zero-initialized; used by one thread, for one writer.
struct ClaimCursor {
  uint64_t base = 0;        // the block's first ticket
  uint64_t next = 0;        // its next (end: used up)
  uint64_t end = 0;         // one past its last
  // claim()'s inline case takes a slot only while the ring's next ticket is at most this: the
  // block's base + FileHeader::claim_lag, computed once per block (0 where that case is never
  // taken, a ring whose capacity is not a power of two).
  uint64_t lag_limit = 0;
  // The ring's next ticket while this block is the latest one taken (no other thread took one
  // since), when the thread was the trace's only recording thread as it took the block:
  // claim() then marks its slot with a plain store. 0, never matched (a block taken leaves the
  // next ticket at 1 or more), otherwise and in a ring too small for that
  // (TraceWriter::kPlainClaimRing).
  uint64_t alone_at = 0;
  uint32_t generation = 0;  // the writer's open() it was taken under (0: none)
  // The thread's copy of the call counters (format::FileHeader::counter_stripes), taken with
  // the cursor's first block in a trace. The first kCounterStripes - 1 threads get a stripe of
  // their own and count with a plain increment; later threads share stripe 0 and count with a
  // locked one.
  format::FunctionCounters* counters = nullptr;
  uint64_t* unchanged = nullptr;  // the same stripe of the unchanged setters' counts
  bool counters_shared = true;
};

// A thread's block of launch tickets and its launch count table (format::FileHeader's
// launch_block, launch_counts_offset): most launches then take no locked instruction, which on
// x86 also waits for the thread's earlier stores to reach the cache. Zero-initialized; used by
// one thread, for one writer.
struct LaunchCursor {
  uint64_t base = 0;
  uint64_t next = 0;
  uint32_t size = 0;
  uint32_t generation = 0;   // the writer's open() it was taken under (0: none)
  uint64_t* counts = nullptr;  // the thread's count table (kKernelTableEntries + 1 entries)
  bool shared = false;       // counts is table 0, which threads without a table of their own share
};

namespace detail {

// prefetchw asks for the line in exclusive state (a plain prefetch would fetch it shared, and
// the first store would ask again); x86 CPUs without it execute it as a no-op.
inline void prefetch_line_for_writing(const char* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*p));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// Asks for the cache lines of a slot one of the thread's next calls will use, for writing. A
// ring slot was last written a whole ring ago (8 MiB by default), so its lines are cold: without
// this, every call's first loads and stores to its record miss, and the store buffer, full of
// them, stalls the rest of the wrapper and the program's own code after it (in a PyTorch loop of
// small torch.mm this was most of the shim's time).
//
// kPrefetchAhead calls ahead, not one: a program's calls come in bursts (PyTorch makes three
// handle setters and a GEMM within half a microsecond, then computes for microseconds), and a
// slot asked for one call ahead has not arrived when that call comes. The lines are the fixed
// fields and the first 25 argument slots (kPrefetchLines: all of a handle setter's, and of any
// GEMM with up to 25 slots, such as cublasSgemm_v2 and cublasGemmEx), pending_error's, which
// every GEMM clears before its real call, and the next line's, where every GEMM clears
// capture_id and every cuBLAS GEMM writes the handle's workspace. Each store to a line of the
// ring not asked for ahead waits for memory (the ring is larger than the caches), and holds the
// stores behind it: with three lines asked for, the fourth, where cublasSgemm_v2's last five
// arguments go, cost about 1% of the PyTorch loop by itself. Chosen by measurement:
// docs/BENCHMARKS.md, the entries "2026-12-02, a924d74", "2026-12-02, 55bf572" and
// "2026-12-02, 1901a5c".
constexpr uint64_t kPrefetchAhead = 4;
constexpr size_t kPrefetchLines = 5;
static_assert(offsetof(format::Record, args) + 25 * sizeof(uint64_t) <= 64 * kPrefetchLines);
inline void prefetch_for_writing(const format::RecordSlot* slot) {
  const char* p = reinterpret_cast<const char*>(slot);
  for (size_t line = 0; line < kPrefetchLines; ++line) prefetch_line_for_writing(p + 64 * line);
  prefetch_line_for_writing(p + offsetof(format::RecordSlot, pending_error));
  prefetch_line_for_writing(p + offsetof(format::RecordSlot, workspace));
}
// pending_error ends one line, and capture_id and the workspace begin the next: two lines.
static_assert((offsetof(format::RecordSlot, pending_error) + sizeof(int32_t) - 1) / 64 !=
              offsetof(format::RecordSlot, workspace) / 64);
static_assert(offsetof(format::RecordSlot, capture_id) / 64 == offsetof(format::RecordSlot, workspace) / 64);
static_assert((offsetof(format::RecordSlot, workspace_bytes) + 7) / 64 == offsetof(format::RecordSlot, workspace) / 64);

}  // namespace detail

}  // namespace cublasspy

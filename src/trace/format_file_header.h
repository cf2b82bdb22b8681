// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): the file header, which
// holds every section's offset, the totals, the ring's claim parameters and how the process
// ended; and the per-function counters it locates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/format_common.h"

namespace cublasspy::format {

// Per-function totals, kept apart from the ring so they survive wrap-around.
inline constexpr uint32_t kCounterStripes = 16;  // what the writer uses (a power of two)
inline constexpr uint32_t kMaxCounterStripes = 256;  // what a reader accepts
// The writer's block and lag for a ring of `capacity` slots (see FileHeader::claim_block): a
// block of up to 128 slots, a 64th of the ring (small rings claim one slot at a time); the lag
// at most a quarter of the ring, so that a block expires long before other threads could come
// round the ring to it. A thread's blocks start at one slot and double while it uses them up.
inline constexpr uint32_t claim_block_for(uint64_t capacity) {
  return capacity >= 64 * 128 ? 128 : capacity >= 64 ? static_cast<uint32_t>(capacity / 64) : 1;
}
inline constexpr uint32_t claim_lag_for(uint64_t capacity) {
  return static_cast<uint32_t>(capacity / 4 < 384 ? capacity / 4 : 384);
}
static_assert(claim_block_for(8192) == 128 && claim_lag_for(8192) == 384);
static_assert(claim_block_for(16) == 1 && claim_lag_for(16) == 4);

struct FunctionCounters {
  uint64_t calls;
  uint64_t failed;
};

inline constexpr uint32_t kSkippedSlots = 64;
// FileHeader::writer_version: the writing shim's version, NUL-terminated (version 4).
inline constexpr uint32_t kWriterVersionBytes = 64;

struct FileHeader {
  char magic[8];
  uint32_t endian_mark;
  uint32_t format_version;
  uint32_t header_bytes;
  uint32_t record_bytes;
  uint32_t word_bytes;          // sizeof(void*) of the traced process
  uint32_t function_count;      // entries in the function table
  uint64_t process_offset;      // ProcessSection: "key\0value\0" pairs, ending with "\0\0"
  uint64_t process_bytes;
  uint64_t functions_offset;    // FunctionEntry[function_count]
  uint64_t counters_offset;     // FunctionCounters[counter_stripes][function_count]
  uint64_t first_failure_offset;  // one RecordSlot, valid when first_failure_seq != 0
  uint64_t ring_offset;         // RecordSlot[ring_capacity]
  uint64_t ring_capacity;
  uint64_t file_bytes;
  // Written while the process runs (atomically):
  uint64_t next_seq;            // version 1: last sequence number handed out; version 2: 0
  uint64_t next_ticket;         // ring tickets handed out (version 2: in blocks)
  uint64_t first_failure_seq;   // 0: no failing call yet
  uint32_t end_state;           // EndState
  int32_t end_signal;           // signal number when kSignaled
  int32_t exit_status;          // when kExited and known, else -1
  uint32_t header_complete;     // 1 once the process section and tables are written
  uint64_t dropped_records;     // records that could not be placed (ring full of calls in flight)
  uint64_t first_async_seq;     // first call after which an asynchronous error was seen
  int32_t first_async_error;
  int32_t driver_version;       // cuDriverGetVersion, -1 until read (read without side effects)
  int32_t runtime_version;      // cudaRuntimeGetVersion, -1 until read
  uint32_t forked_child;        // 1: this process is a fork of a traced process
  uint64_t parent_seq_at_fork;  // every parent call before the fork has seq <= this (0: none)
  uint64_t process_used;        // bytes of the process section in use (it grows: libraries)
  uint64_t parent_pid_at_fork;  // the traced parent, when forked_child
  uint32_t parent_cuda_ready;   // 1: the parent had initialized CUDA/cuBLAS before the fork
  // The counters section holds this many copies of FunctionCounters[function_count], one per
  // group of threads, so that threads calling the same function do not share a cache line;
  // a function's totals are their sum. 0 (older writers) means 1.
  uint32_t counter_stripes;
  // Version 2. A thread takes up to claim_block consecutive ring tickets at once and uses them
  // for its next calls, until the tickets handed out run more than claim_lag past its block;
  // so records lie within about claim_lag + claim_block slots of their start-time order (a
  // reader sorts in a window twice that: a thread may be preempted between taking its slot
  // and reading the clock).
  uint32_t claim_block;
  uint32_t claim_lag;
  uint64_t parent_calls_at_fork;  // calls the parent had made when it forked (version 2)
  // Version 2: ring slots a claim passed over because their call was still in flight, the
  // last kSkippedSlots of them (slot index; entry n % kSkippedSlots is the n-th). Such a call
  // sits among records of a later round of the ring; a reader finds it here and puts it back
  // in order without a pass over the whole ring.
  uint64_t skipped_count;
  uint64_t skipped[kSkippedSlots];
  // Version 4, launches (bytes [736, 800)): the launch ring (LaunchEntry[launch_capacity]) and
  // the kernel table (KernelEntry[kernel_capacity]); all zero when the trace has none.
  uint64_t launch_offset;
  uint64_t launch_capacity;
  uint64_t launch_next;          // launch tickets handed out (entry ticket % capacity)
  uint64_t kernels_offset;
  uint32_t kernel_capacity;
  uint32_t launch_entry_bytes;   // sizeof(LaunchEntry): a reader refuses another size
  uint64_t kernels_unnamed;      // launches of functions the full kernel table could not take
  uint64_t first_launch_error;   // ticket + 1 of the first launch whose own status or
                                 // CUBLASSPY_SYNC=all synchronization was an asynchronous error
  uint8_t reserved_launches[8];
  // Version 4: the side area (SideEntry above); all 0 when the trace has none.
  uint64_t side_offset;       // where it starts in the file (8-byte aligned)
  uint64_t side_bytes;        // its size (CUBLASSPY_SIDE_MB)
  uint64_t side_used;         // bytes reserved so far (atomically advanced; <= side_bytes)
  uint64_t side_entries;      // entries published
  uint64_t side_dropped;      // entries that did not fit
  uint64_t side_dropped_bytes;
  // Version 10: calls of each handle setter that set the value the handle already held and
  // succeeded: uint64_t[counter_stripes][function_count], striped like the counters (a function's
  // count is the sum of its stripes), 64-byte aligned, after the counters. Not in
  // FunctionCounters::calls: a function's calls are both counts together. They have no
  // record. 0: none (older traces).
  uint64_t unchanged_offset;
  uint8_t reserved_side[8];  // [856, 864)
  // Version 4: the version of cublasspy whose shim wrote the trace (CUBLASSPY_VERSION), so a
  // report can say which build recorded it; NUL-terminated, letters, digits and .+~_- only.
  char writer_version[kWriterVersionBytes];
  // Version 5, ends (bytes [928, 992)): how the process ended as `cublasspy run` saw it,
  // written by the launcher after waitpid (the shim leaves them zero). A process that ends by
  // _exit (the dynamic linker's "symbol lookup error" is _exit(127)) or SIGKILL records
  // nothing itself; its launcher still knows.
  uint32_t launcher_wait;       // LauncherWait
  int32_t launcher_status;      // the raw waitpid status (WIFEXITED / WIFSIGNALED)
  uint64_t launcher_pid;        // the command's pid
  // Version 8, graphs (bytes [944, 976)): under CUBLASSPY_CHECK, the first graph launch found,
  // before it ran, to use memory that a GEMM captured into its graph named and that has been
  // freed since (the capture holds the address, not the allocation), and how many launches
  // were found so.
  uint64_t stale_replay_launch;   // ticket + 1 of that graph launch; 0: none
  uint64_t stale_replay_gemm;     // seq of the captured GEMM's record
  uint64_t stale_replay_address;  // the freed address it named
  uint32_t stale_replay_role;     // ArgRole of that operand: kA, kB, kC, kD or kWorkspace
  uint32_t stale_replays;         // graph launches found so (it stops counting at 2^32 - 1)
  uint8_t reserved_ends[16];
  // Version 6, launch totals (bytes [992, 1024)). A thread takes up to launch_block launch
  // tickets at once and gives up the rest once launch_next runs more than launch_lag past its
  // block (FileHeader::claim_block's rule), so that recording a launch needs no locked
  // instruction most of the time; and it counts its launches in a table of its own:
  // uint64_t[launch_count_tables][kernel_capacity + 1], entry k the launches of kernel k, entry
  // kernel_capacity those with no kernel (waits, queries, functions the full kernel table could
  // not take). Table 0 is shared (counted atomically) by threads that found no table free. A
  // kernel's total is KernelEntry::launches (0 from this writer) plus its entries' sum; the
  // launches made, the sum of all entries. All zero when the trace has no launch ring.
  uint64_t launch_counts_offset;  // 8-byte aligned; 0: none
  uint32_t launch_count_tables;
  uint32_t launch_tables_taken;   // tables 1.. handed to threads so far (compare-and-swap)
  uint32_t launch_block;
  uint32_t launch_lag;
  uint8_t reserved_launch_totals[8];
  // Version 6, pinned line (bytes [1024, 1056)): the first launch-ring entry that failed (a
  // launch or its CUBLASSPY_SYNC=all synchronization returned an error, or a wait or query
  // returned an asynchronous one), claimed once by compare-and-swap, and the side-area chain
  // of its Python and native locations (SideEntry::seq is the launch's ticket + 1), so the
  // report can say which line launched the kernel it pins.
  uint64_t first_failed_launch;       // ticket + 1; 0: none
  uint64_t first_failed_launch_side;  // file offset of its newest SideEntry; 0: none
  uint8_t reserved_pinned_line[16];
  // Version 9, failure sites (bytes [1056, 1088)): the table of FailureSite entries (after the
  // first-failure record, before the ring), and the failed calls no entry could count.
  uint64_t failure_sites_offset;   // 0: none
  uint32_t failure_site_capacity;  // entries in the table
  uint32_t failure_site_bytes;     // sizeof(FailureSite): a reader refuses another size
  uint64_t failures_unsited;       // failed calls whose site found the table full
  uint8_t reserved_failure_sites[8];
};
static_assert(offsetof(FileHeader, format_version) == 12);
static_assert(offsetof(FileHeader, process_offset) == 32);
static_assert(offsetof(FileHeader, next_seq) == 96);
static_assert(offsetof(FileHeader, end_state) == 120);
static_assert(offsetof(FileHeader, claim_block) == 200);
static_assert(offsetof(FileHeader, skipped_count) == 216);
static_assert(offsetof(FileHeader, launch_offset) == 736);
static_assert(offsetof(FileHeader, kernels_offset) == 760);
static_assert(offsetof(FileHeader, first_launch_error) == 784);
static_assert(offsetof(FileHeader, side_offset) == 800);
static_assert(offsetof(FileHeader, side_dropped) == 832);
static_assert(offsetof(FileHeader, unchanged_offset) == 848);
static_assert(offsetof(FileHeader, reserved_side) == 856);
static_assert(offsetof(FileHeader, writer_version) == 864);
static_assert(offsetof(FileHeader, launcher_wait) == 928);
static_assert(offsetof(FileHeader, launcher_status) == 932);
static_assert(offsetof(FileHeader, launcher_pid) == 936);
static_assert(offsetof(FileHeader, stale_replay_launch) == 944);
static_assert(offsetof(FileHeader, reserved_ends) == 976);
static_assert(offsetof(FileHeader, launch_counts_offset) == 992);
static_assert(offsetof(FileHeader, launch_count_tables) == 1000);
static_assert(offsetof(FileHeader, launch_tables_taken) == 1004);
static_assert(offsetof(FileHeader, launch_block) == 1008);
static_assert(offsetof(FileHeader, launch_lag) == 1012);
static_assert(offsetof(FileHeader, reserved_launch_totals) == 1016);
static_assert(offsetof(FileHeader, first_failed_launch) == 1024);
static_assert(offsetof(FileHeader, first_failed_launch_side) == 1032);
static_assert(offsetof(FileHeader, reserved_pinned_line) == 1040);
static_assert(offsetof(FileHeader, failure_sites_offset) == 1056);
static_assert(offsetof(FileHeader, failure_site_capacity) == 1064);
static_assert(offsetof(FileHeader, failures_unsited) == 1072);
static_assert(sizeof(FileHeader) == 1088);
static_assert(sizeof(FileHeader) <= kHeaderBytes);

}  // namespace cublasspy::format

// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): what every part of a trace
// relies on. The magic, the version table, the fixed sizes, how a process ended, and the word
// that carries a record's (or a launch's) number and state.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cublasspy::format {

inline constexpr char kMagic[8] = {'C', 'B', 'L', 'S', 'P', 'Y', 'T', 'R'};
inline constexpr uint32_t kEndianMark = 0x01020304;  // reads 0x04030201 on the wrong endian
// Version table (also in docs/FORMAT.md):
//   1  first format: header, process section, function table, counters, first failure, ring.
//   2  threads claim ring slots in blocks (claim_block, claim_lag): a record's seq is its ring
//      ticket + 1, records are ordered by start time, next_seq is no longer kept (the totals
//      are in the counters), parent_calls_at_fork added.
//   3  the function table says what each slot means (ArgDescriptor::role) and which library
//      each function belongs to (FunctionEntry::library); readers of versions 1 and 2 derive
//      both from the names (trace_upgrade.cpp, the one place names are interpreted).
//   4  launches: RecordSlot::pending_error (CUBLASSPY_SYNC's check before each GEMM), in bytes
//      that were padding; the launch ring and its kernel table (FileHeader bytes [736, 800)).
//      Readers of older versions read both as absent.
//   4  side area: variable-length entries attached to a record (SideEntry, FileHeader::side_*,
//      RecordSlot::side_head); readers of versions 1 to 3 find no entries.
//   4  writer version: FileHeader::writer_version, the version of the shim that wrote it.
//   4  samples: ArgRole::kBatchMode, RecordSlot::plane_offset (cuBLASLt planar layouts).
//   5  groups: SideKind::kGemmGroups, a grouped GEMM's per-group table (GemmGroupsHeader);
//      RecordSlot::lt_algo and ArgRole::kLtAlgoId, a cublasLtMatmul's preset algorithm.
//   5  ends: FileHeader::launcher_* (bytes [928, 992)), the wait status `cublasspy run` saw;
//      older traces read as "no launcher".
//   6  launch totals: threads take launch tickets in blocks (FileHeader::launch_block,
//      launch_lag), so the ring is in launch order only up to a bounded displacement; the
//      per-kernel totals are per-thread counts (FileHeader::launch_counts_*, bytes [992, 1024))
//      summed by the reader. Older traces have KernelEntry::launches and one ticket a launch.
//   6  pinned line: FileHeader::first_failed_launch and first_failed_launch_side (bytes
//      [1024, 1040)), the first launch that failed and its Python and native locations;
//      older traces read as having none.
//   7  emulation: RecordSlot::lt_emulation (bytes [888, 920)), the floating-point emulation
//      settings a cuBLASLt matmul ran with; older traces read as none attached.
//   8  graphs: CUDA graph capture, instantiation and launch in the launch ring (Family::kGraph,
//      whose entries hold GraphWords where others hold grid and block), the capture a GEMM was
//      made in (RecordSlot::capture_id, bytes [704, 712)), and the first graph launch found to
//      use memory freed since its capture (FileHeader::stale_replay_*, bytes [944, 976)); older
//      traces read as having no graphs.
//   9  failure sites: the first failure of each site (where in the program, which function,
//      which status) kept apart from the ring with its locations, and every failure counted
//      by its site (FailureSite, FileHeader::failure_sites_*, bytes [1056, 1088));
//      RecordSlot::failure_site names the site a failed call counts in. Older traces read as
//      having no sites.
//      Also ends: an image that replaced itself by exec (EndState::kExecuted, Family::kExec,
//      whose record names the target), and the error codes a program asked the text of
//      (Family::kErrorText, ArgRole::kReportedStatus); older traces read as having neither.
//  10  unchanged setters: a handle setter that sets the value the handle already holds and
//      succeeds has no record, only a count (FileHeader::unchanged_offset, bytes [848, 856), and
//      its section after the counters); a cuBLAS GEMM's record carries the handle's workspace
//      (RecordSlot::workspace, workspace_bytes, bytes [712, 728), kFlagWorkspaceKnown); a
//      setter's record written after a failure or by the fatal-signal handler is flagged
//      kFlagUnchangedSetter. Older traces read as having no such counts and no workspace.
//  11  what a function means: FunctionEntry::traits (Trait, bytes [54, 56) of an entry) and
//      FunctionEntry::element_type (byte 53), from the hook list, so that readers know a
//      set-up call, a wait or a GEMM's element type without its name. Older traces have them
//      derived from their names when read (roles_from_names.h).
inline constexpr uint32_t kFormatVersion = 11;
inline constexpr uint32_t kOldestReadableVersion = 1;

inline constexpr uint32_t kHeaderBytes = 4096;
inline constexpr uint32_t kRecordBytes = 1024;
inline constexpr uint32_t kMaxFunctions = 512;   // function ids are < this
inline constexpr uint32_t kMaxArgs = 48;         // argument slots in one record
inline constexpr uint32_t kArgNameBytes = 24;
inline constexpr uint32_t kFunctionNameBytes = 48;
inline constexpr uint32_t kProcessSectionBytes = 64 * 1024;

// How the process ended, written once by the exit or fatal-signal path; kExecuted (version 9)
// by an exec about to replace the image, and taken back when the exec fails.
enum class EndState : uint32_t { kRunning = 0, kExited = 1, kSignaled = 2, kExecuted = 3 };

// FileHeader::launcher_wait (version 5): whose wait status `cublasspy run` wrote into the trace.
enum class LauncherWait : uint32_t {
  kNone = 0,       // not run by `cublasspy run` (or a launcher older than version 5)
  kOwn = 1,        // this process was the command: launcher_status is its own wait status
  kCommand = 2,    // a descendant of the command: launcher_status is the command's
};

// Record state, kept in the low 2 bits of Record::word with the call's sequence number above.
enum class RecordState : uint32_t { kEmpty = 0, kWriting = 1, kInFlight = 2, kCompleted = 3 };

inline constexpr uint64_t pack_word(uint64_t seq, RecordState s) {
  return (seq << 2) | static_cast<uint64_t>(s);
}
inline constexpr uint64_t word_seq(uint64_t w) { return w >> 2; }
inline constexpr RecordState word_state(uint64_t w) { return static_cast<RecordState>(w & 3u); }

}  // namespace cublasspy::format

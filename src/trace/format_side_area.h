// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): the side area, where data
// of variable length is attached to a record, and the entries of its kinds that are defined
// here (a grouped GEMM's groups).
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/format_common.h"

namespace cublasspy::format {

// The side area (version 4): variable-length data attached to a record (a call's Python and
// native stacks, the groups of a grouped GEMM), in a section of its own at the end of the file.
// Writers reserve space by advancing FileHeader::side_used (compare-and-swap, never past
// side_bytes: when the area is full the entry is dropped and counted in side_dropped), write
// the entry in place, and publish it by storing its kind last, with release order; so a reader
// that sees a kind sees the whole entry, and an entry is never rewritten. Entries are 8-byte
// aligned. A reader trusts an entry only if it lies inside the used part of the area, has a
// known length, a nonzero kind and the seq of the record that names it.
enum class SideKind : uint32_t {
  kNone = 0,         // not (yet) published
  kPythonStack = 1,  // the Python frames of the thread that made the call (stack_codec.h)
  kNativeStack = 2,  // return addresses with their modules (stack_codec.h)
  kGemmGroups = 3,   // version 5: a grouped GEMM's groups (GemmGroupsHeader, then GemmGroup[])
};
struct SideEntry {
  uint32_t kind;    // SideKind, or another writer's kind; 0 until published
  uint32_t length;  // bytes of data after this header, at most kMaxSideEntryBytes
  uint64_t seq;     // the record it belongs to (version 6: or the failed launch's ticket + 1)
  uint64_t prev;    // file offset of the same record's previous entry (0: none), always lower
};
static_assert(sizeof(SideEntry) == 24);
static_assert(offsetof(SideEntry, prev) == 16);
inline constexpr uint32_t kMaxSideEntryBytes = 16 * 1024;
inline constexpr uint32_t kMaxSideEntriesPerRecord = 16;  // a reader follows no more than this

// Version 5 (groups): the data of a SideKind::kGemmGroups entry, attached to a grouped GEMM
// (cublas?gemmGroupedBatched, cublasGemmGroupedBatchedEx, their _64 forms). The shim reads the
// per-group host arrays late, as cuBLAS itself reads them, and keeps the first
// kMaxRecordedGroups groups; problem_count sums the sizes of the first kMaxSummedGroups.
inline constexpr uint32_t kMaxRecordedGroups = 64;
inline constexpr uint32_t kMaxSummedGroups = 65536;
struct GemmGroupsHeader {
  int64_t group_count;    // the call's group_count, as passed
  int64_t problem_count;  // the sum of group_size over the first min(group_count, kMaxSummedGroups)
  uint32_t recorded;      // GemmGroup entries that follow: min(group_count, kMaxRecordedGroups)
  uint32_t entry_bytes;   // sizeof(GemmGroup): a reader refuses another size
};
static_assert(sizeof(GemmGroupsHeader) == 24);
enum GemmGroupFlags : uint32_t {
  kGroupAlphaKnown = 1u << 0,  // alpha holds alpha_array[i] (host pointer mode only)
  kGroupBetaKnown = 1u << 1,
};
struct GemmGroup {
  int64_t m, n, k, lda, ldb, ldc;
  int64_t size;            // group_size[i]: problems in the group
  int32_t transa, transb;  // cublasOperation_t
  uint32_t flags;          // GemmGroupFlags
  uint32_t reserved;
  double alpha, beta;      // alpha_array[i], beta_array[i] when known (real types only)
};
static_assert(offsetof(GemmGroup, size) == 48);
static_assert(offsetof(GemmGroup, flags) == 64);
static_assert(offsetof(GemmGroup, alpha) == 72);
static_assert(sizeof(GemmGroup) == 88);
static_assert(sizeof(GemmGroupsHeader) + kMaxRecordedGroups * sizeof(GemmGroup) <= kMaxSideEntryBytes);

}  // namespace cublasspy::format

// The on-disk layout of a cublasspy trace (.cbt). docs/FORMAT.md is the prose version of this
// file; every struct here is pinned with static_asserts, and tests/unit/format_doc_test.cpp
// checks the page's tables (offsets, sizes, enum values, constants) against this header.
//
// A trace is one memory-mapped file, written in place while the process runs. Nothing is ever
// "flushed": a process killed with SIGKILL leaves a file the reader can open, because every
// byte the shim wrote is already in the page cache. The file is, in this order (docs/FORMAT.md,
// "Layout", gives each section's offset field and size):
//
//   [FileHeader 4 KiB][ProcessSection 64 KiB][FunctionTable][Counters]
//   [unchanged setters' counts][first-failure RecordSlot][FailureSite table][ring of RecordSlots]
//   [launch ring of LaunchEntries][KernelEntry table][launch count tables][side area]
//
// The launch ring, kernel table and launch count tables are there when their offsets are
// nonzero, the side area when its size is, and each only from the version that added it: the
// unchanged setters' counts 10, the failure sites 9, the launch count tables 6, the launch
// ring, kernel table and side area 4.
// Offsets live in the header so a reader never assumes them. Integers are little-endian
// (the header's endian mark says so), all fields are naturally aligned.
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
//      both from the names (trace_reader.cpp, the one place names are interpreted).
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

// Record::flags bits.
enum RecordFlags : uint32_t {
  kFlagNested = 1u << 0,        // made from inside another intercepted call (cuBLAS -> cuBLASLt)
  kFlagAlphaKnown = 1u << 1,    // alpha[] holds the value read from host memory
  kFlagBetaKnown = 1u << 2,
  kFlagCrashed = 1u << 3,       // a fatal signal arrived while this call was in flight
  kFlagSynced = 1u << 4,        // CUBLASSPY_SYNC: the stream was synchronized after the call
  kFlagScanned = 1u << 5,       // scan[] is filled
  kFlagAsyncPinned = 1u << 6,   // async_status was found by synchronizing after this call
  kFlagUnresolved = 1u << 7,    // the real function could not be found; status is the stand-in
  kFlagStampedOnce = 1u << 8,   // a handle setter: stamped at entry only, duration_ns not measured (0)
  // Version 10: RecordSlot::workspace and workspace_bytes hold the handle's workspace (a cuBLAS
  // GEMM on a handle the shim saw created).
  kFlagWorkspaceKnown = 1u << 9,
  // Version 10: a handle setter that set the value the handle already held. Such a call that
  // succeeds has no record (FileHeader::unchanged_offset counts it); this one has, because it
  // failed or crashed, and its record was written after the call, or by the fatal-signal handler.
  kFlagUnchangedSetter = 1u << 10,
};

// How a reader interprets an argument slot. Values are stable: append only.
enum class ArgKind : uint8_t {
  kNone = 0,
  kInt = 1,            // signed integer (int, int64_t, long long)
  kPointer = 2,        // an address, printed in hex
  kOperation = 3,      // cublasOperation_t: N, T, C
  kDataType = 4,       // cudaDataType
  kComputeType = 5,    // cublasComputeType_t
  kGemmAlgo = 6,       // cublasGemmAlgo_t
  kPointerMode = 7,    // cublasPointerMode_t
  kMathMode = 8,       // cublasMath_t
  kStatusOut = 9,      // a value the call wrote back (e.g. device count); kArgUnset if not written
  kText = 10,          // bytes of text starting at this slot, up to the end of args[]
  kCudaError = 11,     // cudaError_t / CUresult
  kLtAttribute = 12,   // a cuBLASLt attribute id (interpreted with the function)
  kUInt = 13,          // unsigned integer
  kLegacyChar = 14,    // 'N'/'T'/'C' character of the v1 API
  kDouble = 15,        // a double stored bit for bit
  kOrder = 16,         // cublasLtOrder_t
  kEpilogue = 17,      // cublasLtEpilogue_t
};

// A slot the call was supposed to write but did not (e.g. cudaGetDeviceCount's count on error).
inline constexpr uint64_t kArgUnset = 0x8000000000000000ull;

// Per-operand NaN/Inf scan summary (CUBLASSPY_SCAN). Operand order: A, B, C (input C), D (output).
struct ScanSummary {
  uint64_t nan_count;
  uint64_t pos_inf_count;
  uint64_t neg_inf_count;
  uint32_t first_row, first_col, first_batch;  // first non-finite element, valid if any count
  uint32_t overflow;                           // 1: fp16/bf16 result beyond the type's range
  double max_abs_finite;
};
static_assert(sizeof(ScanSummary) == 48);

// One intercepted call. Written twice: before the real call (state kInFlight, every argument)
// and after it (status, duration, state kCompleted). The reader trusts a record only if
// `word` reads the same before and after it copies the body (a seqlock), so a record being
// rewritten at the moment of a crash is recognized, not misread.
struct Record {
  uint64_t word;           // pack_word(seq, state); seq is 1-based and unique in the process
                           // (version 2: the ring ticket the record was written under, + 1)
  uint16_t function_id;    // index into the FunctionTable
  uint16_t depth;          // nesting depth (0 = called by the program)
  uint32_t flags;          // RecordFlags
  uint32_t tid;
  int32_t status;          // the value the call returned (cublasStatus_t, cudaError_t, ...)
  uint64_t start_ns;       // CLOCK_MONOTONIC at entry
  uint64_t duration_ns;
  uint64_t handle;         // cublasHandle_t / cublasLtHandle_t, 0 if none
  uint64_t stream;         // the handle's stream at the time of the call
  int32_t pointer_mode;    // the handle's pointer mode, -1 if unknown
  int32_t math_mode;       // the handle's math mode, -1 if unknown
  int32_t async_status;    // CUBLASSPY_SYNC: cudaError_t read after the call; 0 if none
  uint32_t check_bits;     // CUBLASSPY_CHECK findings, one bit per CheckId
  double alpha[2];         // real, imaginary (kFlagAlphaKnown)
  double beta[2];
  uint64_t check_detail[2];  // the numbers behind the first finding (e.g. allocation size)
  uint64_t args[kMaxArgs];   // slots described by the function's FunctionEntry
};
static_assert(offsetof(Record, function_id) == 8);
static_assert(offsetof(Record, status) == 20);
static_assert(offsetof(Record, start_ns) == 24);
static_assert(offsetof(Record, handle) == 40);
static_assert(offsetof(Record, pointer_mode) == 56);
static_assert(offsetof(Record, alpha) == 72);
static_assert(offsetof(Record, check_detail) == 104);
static_assert(offsetof(Record, args) == 120);
static_assert(sizeof(Record) == 120 + 8 * kMaxArgs);

// Version 7 (emulation): the emulation descriptor a cuBLASLt matmul descriptor names
// (CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR), its settings read late, after the call's
// descriptors are final. Unset attributes read as the descriptor's defaults (cublasLt.h).
struct LtEmulation {
  uint32_t flags;                       // LtEmulationFlags; 0: no emulation descriptor attached
  int32_t strategy;                     // cublasEmulationStrategy_t
  int32_t special_values;               // cudaEmulationSpecialValuesSupport (a bit mask)
  int32_t mantissa_control;             // cudaEmulationMantissaControl
  int32_t max_mantissa_bits;            // CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT
  int32_t mantissa_bit_offset;          // CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET
  uint64_t mantissa_bit_count_pointer;  // ..._MANTISSA_BIT_COUNT_POINTER: a device address, 0 none
};
static_assert(sizeof(LtEmulation) == 32);
static_assert(offsetof(LtEmulation, mantissa_bit_count_pointer) == 24);
enum LtEmulationFlags : uint32_t {
  kEmulationAttached = 1u << 0,  // the matmul descriptor named an emulation descriptor
  kEmulationKnown = 1u << 1,     // the shim had seen it created: the other fields are its settings
};

// The record as stored: the call plus its scan summaries, padded to kRecordBytes.
struct RecordSlot {
  Record call;
  ScanSummary scan[4];
  // Version 4, launches (bytes [696, 760)). CUBLASSPY_SYNC synchronizes a GEMM's stream before
  // the call: an error it reports was already pending, left by earlier work, not the GEMM's.
  int32_t pending_error;  // cudaError_t / CUresult found pending before the call; 0 if none
  uint8_t reserved_pending[4];
  // Version 8, graphs: the CUDA graph capture the GEMM was made in (the driver's capture id,
  // as cudaStreamGetCaptureInfo gives it): its work was recorded into a graph, not run, and runs
  // at each launch of that graph. 0: not captured, or captured under an unknown id
  // (kCaptureIdUnknown). Written for the GEMM families alone (has_pending_error).
  uint64_t capture_id;
  // Version 10: the handle's workspace (cublasSetWorkspace_v2's pointer and size) when a cuBLAS
  // GEMM was made, valid with kFlagWorkspaceKnown (else an earlier call's): with the record's
  // stream, pointer mode and math mode, the state the setters gave the handle, which an unchanged
  // setter no longer records itself. {0, 0}: cuBLAS's own workspace.
  uint64_t workspace;
  uint64_t workspace_bytes;
  uint8_t reserved_launches[32];
  // Version 4: the file offset of the record's newest SideEntry (0: none). Each entry names the
  // one before it (SideEntry::prev), so a record has any number of entries of any kinds.
  uint64_t side_head;
  // Version 9: a failed call's site, 1 + its index in the failure-site table (FailureSite); 0:
  // none (not failed, or the table was full). A failure repeating its site's takes no
  // locations of its own: the site's first failure holds them. Meaningful only in a failed
  // record (others may keep an earlier call's value).
  uint32_t failure_site;
  uint8_t reserved_stacks[20];
  // Version 4 (batch mode and plane offsets): a cuBLASLt matmul's CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET of A, B, C, D
  // in bytes (planar complex: the imaginary plane's distance from the real one, either sign);
  // 0 interleaved, and for every other call. Zero in older traces.
  int64_t plane_offset[4];
  // Version 5 (groups): the cublasLtMatmulAlgo_t a cublasLtMatmul was given (`algo` not null),
  // its 64 bytes as the program passed them, read late; meaningful only for a function whose
  // table has an ArgRole::kLtAlgoId slot and a call whose algo slot is not null.
  uint64_t lt_algo[8];
  // Version 7 (emulation): the floating-point emulation settings a cuBLASLt matmul ran with;
  // meaningful only for a function whose table has an ArgRole::kEpilogue slot (the matmul
  // descriptor's settings: cublasLtMatmul, AlgoGetHeuristic, AlgoCheck). Zero in older traces
  // and when no emulation descriptor was attached.
  LtEmulation lt_emulation;
  uint8_t pad[kRecordBytes - 920];
};
static_assert(offsetof(RecordSlot, pending_error) == 696);
static_assert(offsetof(RecordSlot, capture_id) == 704);
static_assert(offsetof(RecordSlot, workspace) == 712);
static_assert(offsetof(RecordSlot, workspace_bytes) == 720);
static_assert(offsetof(RecordSlot, side_head) == 760);
static_assert(offsetof(RecordSlot, failure_site) == 768);
static_assert(offsetof(RecordSlot, plane_offset) == 792);
static_assert(offsetof(RecordSlot, lt_algo) == 824);
static_assert(offsetof(RecordSlot, lt_emulation) == 888);
static_assert(offsetof(RecordSlot, pad) == 920);
static_assert(sizeof(RecordSlot) == kRecordBytes);

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

// What an argument slot means, whatever the function calls it: readers find a call's fields by
// role (the GEMM's m, its A, a device count), and show the names. Version 3; the reader derives
// roles from the names for older traces. Values are stable: append only.
enum class ArgRole : uint8_t {
  kNone = 0,          // nothing a reader looks for: shown by its name only
  kHandle = 1,        // the cuBLAS / cuBLASLt handle
  kTransA = 2, kTransB = 3,  // op(A), op(B): cublasOperation_t, or the v1 API's character
  kM = 4, kN = 5, kK = 6,    // op(A) is m x k, op(B) k x n, C and D m x n
  kAlpha = 7, kBeta = 8,     // the scalars (their address, or the v1 API's value)
  // Per operand, in the order A, B, C, D (operand_role() below): the matrix (for the batched
  // forms its array of pointers), leading dimension, data type, batch stride, cuBLASLt order.
  kA = 9, kB = 10, kC = 11, kD = 12,
  kLda = 13, kLdb = 14, kLdc = 15, kLdd = 16,
  kAType = 17, kBType = 18, kCType = 19, kDType = 20,
  kStrideA = 21, kStrideB = 22, kStrideC = 23, kStrideD = 24,
  kAOrder = 25, kBOrder = 26, kCOrder = 27, kDOrder = 28,
  kBatchCount = 29, kComputeType = 30, kAlgo = 31,
  kXtHandle = 32,     // a cublasXt handle: the GEMM's operands are in host memory
  // Grouped GEMMs: the per-group host arrays; the first group's values are derived slots with
  // the plain roles (kTransA, kM, kLda, ...) and kFirstGroupSize.
  kGroupCount = 33, kFirstGroupSize = 34, kGroupSizeArray = 35,
  kTransAArray = 36, kTransBArray = 37, kMArray = 38, kNArray = 39, kKArray = 40,
  kAlphaArray = 41, kBetaArray = 42, kLdaArray = 43, kLdbArray = 44, kLdcArray = 45,
  // cuBLASLt: what the matmul descriptor says, and the matmul's own arguments.
  kScaleType = 46, kEpilogue = 47, kBias = 48, kAScale = 49, kBScale = 50, kDScale = 51,
  kWorkspace = 52, kWorkspaceBytes = 53, kStream = 54,
  // Devices, memory, library loads.
  kDeviceCount = 55,  // the count a device-enumeration call wrote back
  kDevice = 56,       // a device ordinal passed in
  kByteCount = 57,    // bytes allocated or copied
  kFilename = 58,     // the file dlopen was asked for (text)
  kLoadFlags = 59,    // dlopen's flags
  kLoadResult = 60,   // the path dlopen loaded, or dlerror()'s text
  // Version 4 (batch mode and plane offsets): a cuBLASLt matmul's batch mode (cublasLtBatchMode_t: 0 strided, 1
  // pointer arrays, where A..D are device arrays of batch_count pointers).
  kBatchMode = 61,
  // Version 5 (groups): a cuBLASLt matmul's preset algorithm: its CUBLASLT_ALGO_CONFIG_ID, as
  // the library's cublasLtMatmulAlgoConfigGetAttribute gives it (kArgUnset: not read); the
  // algorithm's bytes are in RecordSlot::lt_algo.
  kLtAlgoId = 62,
  // Version 8 (graphs): the CUDA graphs' objects: the executable graph a graph launch runs, and
  // where an instantiation or a capture's end writes what it made.
  kGraphExec = 63, kGraphExecMade = 64, kGraphMade = 65,
  // Version 9 (ends): the program an exec replaces the image by (text), and the failure code a
  // program asked the text of, in the status words of the function's library.
  kExecTarget = 66, kReportedStatus = 67,
};

// The role of operand `index` (0 A, 1 B, 2 C, 3 D) among the per-operand roles starting at
// `a_role` (kA, kLda, kAType, kStrideA, kAOrder).
constexpr ArgRole operand_role(ArgRole a_role, int index) {
  return static_cast<ArgRole>(static_cast<uint8_t>(a_role) + index);
}
static_assert(operand_role(ArgRole::kA, 3) == ArgRole::kD && operand_role(ArgRole::kLda, 3) == ArgRole::kLdd &&
              operand_role(ArgRole::kAType, 3) == ArgRole::kDType &&
              operand_role(ArgRole::kStrideA, 3) == ArgRole::kStrideD &&
              operand_role(ArgRole::kAOrder, 3) == ArgRole::kDOrder);

// FunctionEntry::library: the library a function belongs to (the hook list's first column), so
// a reader knows whose status codes it returns without guessing from its name. Version 3.
enum class Library : uint8_t {
  kUnknown = 0, kCublas = 1, kCublasLt = 2, kCudart = 3, kCuda = 4, kSystem = 5,
};

// Describes one hooked function so a reader needs no compiled-in list: the trace is
// self-describing, and new hooks need no reader change.
struct ArgDescriptor {
  char name[kArgNameBytes];  // "transa", "m", "lda", ...
  uint8_t kind;              // ArgKind
  uint8_t role;              // ArgRole (version 3)
  uint8_t pad[6];
};
static_assert(sizeof(ArgDescriptor) == 32);
static_assert(offsetof(ArgDescriptor, role) == 25);

// FunctionEntry::traits (version 11): what a function means beyond its family and its slots'
// roles, which readers would otherwise know only from its name. Each hook-list entry names its
// own (the column after the family); kInt32Sizes is derived from the prototype. Stable bits:
// append only.
struct Trait {
  enum Bits : uint16_t {
    kNone = 0,
    kEnumeratesDevices = 1 << 0,  // counts or initializes the devices (cudaGetDeviceCount, cuInit)
    kSetupCall = 1 << 1,          // its outcome says whether the stack is ready: the shim records
                                  // versions, libraries and the machine at its first failure
    kCreatesHandle = 1 << 2,      // creates a cuBLAS or cuBLASLt handle
    kSelectsDevice = 1 << 3,      // makes a device current (cudaSetDevice)
    kAllocatesDevice = 1 << 4,    // allocates device memory (cudaMalloc): its failure is memory
    kWaitsForDevice = 1 << 5,     // waits for all work of the device (cudaDeviceSynchronize)
    kWaitsForStream = 1 << 6,     // waits for the work of one stream (cudaStreamSynchronize)
    kQueriesStream = 1 << 7,      // asks whether a stream's work is done (cudaStreamQuery)
    kConfiguresAlgo = 1 << 8,     // lists, initializes, configures or checks a cuBLASLt algorithm
    kInt32Sizes = 1 << 9,         // its sizes (m, n, k or their arrays) are 32-bit integers
    kQuantized = 1 << 10,         // biases, a multiplier and a shift in place of alpha and beta
                                  // (cublasUint8gemmBias)
    kFixedElementType = 1 << 11,  // the prototype fixes the matrices' type: element_type holds it
  };
};

struct FunctionEntry {
  char name[kFunctionNameBytes];  // exported symbol name, "" for unused ids
  uint16_t arg_count;
  uint16_t family;                // format::Family below (gemm, lt_matmul, ...)
  uint8_t library;                // format::Library (version 3)
  // With Trait::kFixedElementType, the cudaDataType_t of the matrices that the prototype fixes
  // (cublasSgemm: CUDA_R_32F, cublasUint8gemmBias: CUDA_R_8U); else 0, and the arguments say
  // (version 11). A flag, not a reserved value: zero bytes must not read as CUDA_R_32F (0).
  uint8_t element_type;
  uint16_t traits;                // Trait bits (version 11)
  ArgDescriptor args[kMaxArgs];
};
static_assert(offsetof(FunctionEntry, library) == 52);
static_assert(offsetof(FunctionEntry, element_type) == 53 && offsetof(FunctionEntry, traits) == 54);
constexpr bool has_trait(const FunctionEntry* entry, uint16_t trait) {
  return entry != nullptr && (entry->traits & trait) != 0;
}
// The cudaDataType_t the function's prototype fixes for its matrices, -1 where its arguments say.
constexpr int fixed_element_type(const FunctionEntry& entry) {
  return (entry.traits & Trait::kFixedElementType) != 0 ? entry.element_type : -1;
}
static_assert(sizeof(FunctionEntry) == 56 + 32 * kMaxArgs);

// FunctionEntry::family: lets a reader group functions without knowing their names. Stable
// values: append only.
enum class Family : uint16_t {
  kOther = 0, kDevice = 1, kHandle = 2, kGemm = 3, kGemmBatched = 4, kGemmStridedBatched = 5,
  kGemmGrouped = 6, kLtMatmul = 7, kLtDescriptor = 8, kLibraryLoad = 9, kLegacyGemm = 10,
  kSync = 11, kMemory = 12,
  kLaunch = 13,  // version 4: puts work on a stream (kernels, async copies and memsets): the launch ring
  kGraph = 14,   // version 8: CUDA graph capture, instantiation and launch: the launch ring
  kExec = 15,    // version 9: replaces the process image (execve...); a success never returns
  kErrorText = 16,  // version 9: the text of a failure code asked for (cudaGetErrorString...)
};

// The families that compute a GEMM on the device (launch work on a stream).
constexpr bool is_gemm_family(uint16_t family) {
  switch (static_cast<Family>(family)) {
    case Family::kGemm: case Family::kGemmBatched: case Family::kGemmStridedBatched:
    case Family::kGemmGrouped: case Family::kLtMatmul: case Family::kLegacyGemm:
      return true;
    default:
      return false;
  }
}

// The slot's fields beside the record that only some families use: a writer sets them for
// those records alone and a reader ignores them in the others, where a reused slot still holds
// what its last call left (writing them for every call would touch two more cache lines each).
constexpr bool has_pending_error(uint16_t family) { return is_gemm_family(family); }
constexpr bool has_plane_offsets(uint16_t family) {
  return family == static_cast<uint16_t>(Family::kLtMatmul) || family == static_cast<uint16_t>(Family::kLtDescriptor);
}

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

// Version 9: where a program's failing calls come from, and the first failure of each. A
// program that fails a call on purpose and goes on (cuBLASLt heuristics, AlgoCheck probing,
// fallbacks after NOT_SUPPORTED, retry loops) fails it thousands of times from one place: the
// first failure of each site takes its Python and native locations and is copied here, apart
// from the ring, so that neither the ring's wrap-around nor a full side area takes it; the
// later ones only count. A site is the hook's return address in the program, the function, the
// status and, for the program's own calls under Python, the innermost Python frame's code
// object and line. Entries are claimed by compare-and-swap of `state` (kFree to kClaimed), keyed,
// then published (kKeyed, release); `first` is complete once `first_seq` reads nonzero
// (release). Two threads meeting a new site at once may each claim an entry: both count.
inline constexpr uint32_t kFailureSites = 128;        // what the writer makes (a power of two)
inline constexpr uint32_t kMaxFailureSites = 65536;   // the most a reader accepts
enum class FailureSiteState : uint32_t { kFree = 0, kClaimed = 1, kKeyed = 2 };
struct FailureSite {
  uint32_t state;           // FailureSiteState
  uint16_t function_id;
  uint16_t reserved_key;
  int32_t status;           // the status returned (or the asynchronous error found after the call)
  int32_t python_line;      // the innermost Python frame's line; -1: none taken
  uint64_t return_address;  // where in the program the hooked function was called from
  uint64_t python_code;     // that Python frame's code object (its address); 0: none
  uint64_t count;           // failed calls from this site, the first included
  uint64_t first_seq;       // the first one's seq; 0 until `first` is complete
  uint8_t reserved[16];
  RecordSlot first;         // the first one's record, completed; its side_head names its locations
};
static_assert(offsetof(FailureSite, return_address) == 16);
static_assert(offsetof(FailureSite, count) == 32);
static_assert(offsetof(FailureSite, first) == 64);
static_assert(sizeof(FailureSite) == 64 + kRecordBytes);
static_assert((kFailureSites & (kFailureSites - 1)) == 0);

// Version 4: one launch of GPU work the program made outside the GEMMs (a kernel, an
// asynchronous copy or memset), in a ring of its own so that a program launching thousands of
// kernels per GEMM does not push its GEMMs out of the flight recorder. Written once, by the
// launching thread: kWriting while written, kCompleted after (the reader keeps an entry only if
// `word` reads the same before and after its copy).
struct LaunchEntry {
  uint64_t word;          // pack_word(ticket + 1, state)
  uint16_t function_id;   // the hook (function table): cudaLaunchKernel, cudaMemsetAsync, ...
  uint16_t kernel;        // index into the kernel table; kNoKernel when none
  uint32_t tid;
  uint64_t start_ns;      // CLOCK_MONOTONIC, the clock of Record::start_ns
  uint64_t stream;
  uint64_t bytes;         // copies and memsets: the byte count; kernels: 0
  uint32_t grid[3];       // kernels: grid and block dimensions, dynamic shared memory
  uint32_t block[3];
  uint32_t shared_mem;
  int32_t status;         // what the launch call returned
  int32_t async_status;   // CUBLASSPY_SYNC=all: the error synchronizing after it reported; 0 none
  uint32_t flags;         // LaunchFlags
};
static_assert(offsetof(LaunchEntry, stream) == 24);
static_assert(offsetof(LaunchEntry, grid) == 40);
static_assert(offsetof(LaunchEntry, status) == 68);
static_assert(sizeof(LaunchEntry) == 80);

inline constexpr uint16_t kNoKernel = 0xffff;
inline constexpr uint32_t kKernelNameBytes = 232;
inline constexpr uint32_t kMaxKernels = 0xfffe;  // kernel indices are < this (a reader refuses more)
inline constexpr uint32_t kKernelTableEntries = 1024;  // what the writer uses
// Version 6: the per-thread launch count tables (FileHeader::launch_count_tables): what the
// writer makes, and the most a reader accepts.
inline constexpr uint32_t kLaunchCountTables = 32;
inline constexpr uint32_t kMaxLaunchCountTables = 1024;

enum LaunchFlags : uint32_t {
  kLaunchSynced = 1u << 0,  // CUBLASSPY_SYNC=all: the stream was synchronized after the launch
  // Version 8, a graph launch: CUBLASSPY_CHECK found, before it ran, that memory a GEMM captured
  // into its graph named had been freed since the capture (FileHeader::stale_replay_*).
  kLaunchStaleOperands = 1u << 1,
};

// Version 8: a Family::kGraph entry of the launch ring holds these three words in place of
// grid and block (bytes [40, 64)), its capture's id in `bytes`, and for a capture's beginning
// the capture mode (cudaStreamCaptureMode) in `shared_mem`. Each word is 0 where the function
// has none or the shim does not know it:
//   cudaStreamBeginCapture (cu*):       stream, bytes = the new capture's id
//   cudaStreamEndCapture (cu*):         stream, bytes = the capture's id, graph = the graph made
//   cudaGraphInstantiate(WithFlags):    graph, exec = the executable graph made, bytes = graph's capture
//   cudaGraphLaunch (cu*):              stream, graph, exec, bytes = graph's capture,
//                                       launch = this executable graph's launches so far, this one too
struct GraphWords {
  uint64_t graph;   // cudaGraph_t
  uint64_t exec;    // cudaGraphExec_t
  uint64_t launch;  // a launch: its number among the executable graph's launches, from 1
};
static_assert(sizeof(GraphWords) == 24);
// A GEMM made on a capturing stream whose capture's id the driver would not give.
inline constexpr uint64_t kCaptureIdUnknown = ~uint64_t{0};

// Version 4: one launched function, named once, with its totals (so they survive the ring's
// wrap-around). `function` is the key the writer claims the entry with (the host stub's or the
// CUfunction's address, or for copies and memsets the hook's id + 1); the name is valid once
// `named` is 1: the symbol as the shim found it (mangled; the reader demangles), "" if unknown.
struct KernelEntry {
  uint64_t function;
  uint64_t launches;     // versions 4 and 5: its launches; version 6: 0 (the count tables have them)
  uint32_t named;
  uint16_t function_id;  // the hook it was first launched through
  uint16_t reserved;
  char name[kKernelNameBytes];
};
static_assert(offsetof(KernelEntry, name) == 24);
static_assert(sizeof(KernelEntry) == 256);
static_assert(sizeof(FileHeader) <= kHeaderBytes);

}  // namespace cublasspy::format

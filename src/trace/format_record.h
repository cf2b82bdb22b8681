// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): one call's record, its slot
// in the ring, and the failure-site table, which keeps each site's first failed record apart
// from the ring.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/format_common.h"

namespace cublasspy::format {

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

}  // namespace cublasspy::format

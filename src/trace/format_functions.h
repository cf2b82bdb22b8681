// The trace format (trace_format.h, the umbrella; docs/FORMAT.md): the function table, which
// makes a trace self-describing. Each hooked function's name, library and family, and each
// argument slot's kind and role.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/format_common.h"

namespace cublasspy::format {

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
// own (the column after the family); kInt32Sizes and kFixedElementType come from the prototype. Stable bits:
// append only. A namespace, not a struct: Trait::kSetupCall reads the same, and the format has
// no struct without fields.
namespace Trait {
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
}  // namespace Trait

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

}  // namespace cublasspy::format

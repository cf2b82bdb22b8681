// The argument checks of CUBLASSPY_CHECK=1, as pure functions over a normalized GEMM call
// (gemm_call.h) and, for the checks that need it, what the driver says about each address.
// Each check is one function that returns its first finding; check_gemm() runs them all and
// fills the record's check_bits/check_detail (layout in check_ids.h). The shim feeds the driver
// through PointerQuery (interpose/live_checks.cpp); the tests feed a fake. docs/CHECKS.md
// states each rule.
//
// Nothing here allocates: the checks run before every GEMM in check mode (budget: < 1 us).
#pragma once

#include <cstdint>

#include "checks/check_ids.h"
#include "gemm/gemm_call.h"

namespace cublasspy {

// What the driver says about one address (cuPointerGetAttributes).
struct PointerInfo {
  bool known = false;  // the driver answered; false: nothing can be said, no check uses it
  MemoryKind kind = MemoryKind::kUnknown;
  int device = -1;     // kDevice: the device that owns it
  uint64_t base = 0;   // the allocation holding the address; size 0 when the driver gave none
  uint64_t size = 0;
};

// The allocation query behind the driver-based checks.
class PointerQuery {
 public:
  virtual PointerInfo query(uint64_t address) = 0;
  // True when `device` reads pageable host memory directly (HMM or ATS systems): host memory
  // unknown to the driver is then fine as an operand and as a device-mode scalar.
  virtual bool pageable_memory_access(int device) = 0;
  // The device's compute capability as major * 10 + minor (90 for sm_90), -1 when unknown.
  virtual int compute_capability(int /*device*/) { return -1; }

 protected:
  ~PointerQuery() = default;
};

// One check's first finding. value_a/value_b as in check_ids.h's table.
struct Finding {
  bool flagged = false;
  CheckOperand operand = CheckOperand::kNone;
  bool pointer_array = false;
  uint64_t value_a = 0;
  uint64_t value_b = 0;
};

// --- The shape of a call ---------------------------------------------------------------------

// False for an operand the call never touches: every operand when m, n or batch_count is 0;
// A and B when k is 0 (C is still scaled by beta). Index: Operand (A 0, B 1, C 2, D 3).
bool operand_used(const GemmCall& call, int operand);

// True when D is checked on its own: cuBLASLt with a D that is not C (another address, or the
// same address with another layout). When false, C is the output and D mirrors it.
bool output_is_separate_d(const GemmCall& call);

// Wide enough for address + ld * cols * element size on garbage input without overflow.
__extension__ typedef __int128 ByteOffset;

// The bytes an operand's elements occupy, over all batch members (negative strides included):
// [begin, end) as absolute addresses. For pointer arrays: the array of batch_count pointers.
// valid is false when the element size or the shape is unknown.
struct ByteSpan {
  bool valid = false;
  ByteOffset begin = 0;
  ByteOffset end = 0;
};
ByteSpan operand_span(const GemmCall& call, int operand);

// True when two batched, pitched byte layouts share a byte (element-exact: sub-blocks of one
// matrix that interleave without sharing elements do not overlap). Bounded work: beyond
// kOverlapBudget steps it answers false (no finding rather than a guess).
inline constexpr int kOverlapBudget = 1024;
bool matrices_overlap(const GemmCall& call, int x, int y);
// Batch members i < j of one operand that share elements; false when none do.
bool batch_members_overlap(const Matrix& mat, int64_t batch_count, int64_t* i, int64_t* j);

// --- Checks that need only the call ---------------------------------------------------------

// lda >= max(1, rows of A as stored) (m for transa=N, k otherwise), ldb likewise (k or n),
// ldc >= max(1, m), ldd >= max(1, m): cuBLAS's own rule, even for empty matrices.
Finding check_leading_dimensions(const GemmCall& call);
// Batch members of one operand that share elements: any stride for outputs (0 included), a
// non-zero stride for inputs (0 broadcasts one matrix: valid).
Finding check_batch_strides(const GemmCall& call);
// The output (C, or a separate D) shares elements with an input (A, B, or C when D is
// separate). D == C with the same layout is cuBLASLt's in-place form: valid.
Finding check_output_aliasing(const GemmCall& call);
// An operand's address is not a multiple of its element size (pointer arrays: of 8).
Finding check_alignment(const GemmCall& call);
// Through an entry point with 32-bit sizes (GemmCall::index32), one matrix of an operand spans
// more than 2^31 - 1 elements ((cols - 1) * ld + rows): cuBLAS indexes it in 32 bits there, and
// the call fails with INVALID_VALUE or reads and writes out of bounds. value_a: the extent.
Finding check_size_overflow(const GemmCall& call);
inline constexpr int64_t kMax32BitElements = 0x7fffffff;

// --- cuBLASLt's own rules --------------------------------------------------------------------

// What a cuBLASLt matmul adds to its GEMM, for the checks of its epilogue and batches: the matmul
// descriptor's epilogue, bias and auxiliary buffer, and each layout's batch count. The shim reads
// them from its shadow of the descriptors (interpose/lt_descriptors.h); a cuBLAS call has none.
struct LtMatmulExtras {
  bool present = false;
  uint32_t epilogue = 1;      // cublasLtEpilogue_t; 1 is CUBLASLT_EPILOGUE_DEFAULT
  uint64_t bias = 0;          // CUBLASLT_MATMUL_DESC_BIAS_POINTER
  int32_t bias_type = -1;     // CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE; -1: not set (D's type)
  uint64_t aux = 0;           // CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER
  int64_t aux_ld = 0;         // CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD
  int64_t batch_count[4] = {1, 1, 1, 1};  // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT of A, B, C, D
};

// A layout's batch count differs from D's: cuBLASLt refuses it ("Input matrices batch counts
// mismatch", INVALID_VALUE). value_a: the operand's count, value_b: D's.
Finding check_batch_counts(const GemmCall& call, const LtMatmulExtras& lt);

// What is wrong with an epilogue's vector or buffer (check_detail's value_a, bits 0..7; bits
// 8..39 hold the epilogue). Stored in traces: append only.
enum class EpilogueProblem : uint8_t {
  kBiasMissing = 1,    // the epilogue reads or writes a bias (gradient) and the pointer is NULL
  kBiasMisaligned = 2, // value_b: the bias pointer, not a multiple of its element size
  kAuxMissing = 3,     // the epilogue reads or writes its auxiliary buffer and the pointer is NULL
  kAuxLd = 4,          // value_b: the aux ld, below m or not the multiple its kind needs
  kAuxMisaligned = 5,  // value_b: the aux pointer, not a multiple of its element size
};
// The epilogue's needs (cublasLt.h, CUBLASLT_MATMUL_DESC_BIAS_POINTER, _EPILOGUE_AUX_POINTER,
// _EPILOGUE_AUX_LD): a bias for the BIAS epilogues and the bias gradients (BGRAD, BGRADA,
// BGRADB); an aux buffer for the AUX epilogues and their backward forms (DRELU, DGELU), with an
// ld of at least m that is a multiple of 128 for ReLU's bit-mask and of 8 for GELU's input.
bool epilogue_needs_bias(uint32_t epilogue);
bool epilogue_needs_aux(uint32_t epilogue);
int64_t aux_ld_multiple(uint32_t epilogue);  // 128 (ReLU bit-mask), 8 (GELU input), 0 (no aux)
Finding check_epilogue_operands(const GemmCall& call, const LtMatmulExtras& lt);
inline uint64_t epilogue_detail(EpilogueProblem problem, uint32_t epilogue) {
  return static_cast<uint64_t>(problem) | uint64_t{epilogue} << 8;
}

// What breaks fp8's rules (check_detail's value_a). Stored in traces: append only.
enum class Fp8Problem : uint8_t {
  kPointer = 1,  // value_b: 16; the operand's address is not a multiple of 16 bytes
  kLd = 2,       // value_b: the elements 16 bytes hold; the operand's ld is not a multiple of them
  kNotTn = 3,    // value_b: the compute capability (89, 90): A not transposed or B transposed
};
// An fp8 matmul (A or B in CUDA_R_8F_E4M3/E5M2) breaks what cuBLASLt's fp8 kernels require
// (cublasLtMatmul, "FP8" requirements, and "Tensor Core Usage"): every matrix 16-byte aligned,
// its ld a multiple of 16 bytes (16 fp8 elements), and on Ada and Hopper (compute capability
// 8.9 and 9.x; -1: unknown, not checked) the "TN" layout, A transposed and B not.
Finding check_fp8_layout(const GemmCall& call, int compute_capability);
bool is_fp8(DataType type);

// --- Checks that need the driver ------------------------------------------------------------

// The driver's answer for each address the call uses, asked once per distinct address.
// Index: A 0, B 1, C 2, D 3, alpha 4, beta 5. address 0: not used / not asked.
struct OperandMemory {
  uint64_t address[6] = {};
  PointerInfo info[6] = {};
  bool read_by_device[6] = {};  // matrices always; alpha/beta when the pointer mode says device
};
OperandMemory query_operand_memory(const GemmCall& call, int pointer_mode, PointerQuery& query);

// Whether the pointer mode wants alpha/beta on the device (1), on the host (0), or says
// nothing about it (-1). cuBLAS modes 0/1, cuBLASLt modes 0..4 (cublasLtPointerMode_t).
int scalar_on_device(int pointer_mode, bool beta);

// alpha/beta live in the other memory space than the pointer mode says.
Finding check_pointer_mode(const GemmCall& call, const OperandMemory& mem, int pointer_mode,
                           bool pageable_access);
// An operand is a null pointer, or memory the driver does not know (pageable host memory,
// freed memory) while the device cannot read pageable memory.
Finding check_host_operands(const GemmCall& call, const OperandMemory& mem, bool pageable_access);
// An operand's span runs outside the allocation that holds its first element.
Finding check_out_of_bounds(const GemmCall& call, const OperandMemory& mem);
// An operand is device memory of another device than the one the call runs on.
Finding check_device_mismatch(const GemmCall& call, const OperandMemory& mem, int call_device);

// --- All of them -----------------------------------------------------------------------------

struct CheckFindings {
  uint32_t bits = 0;           // check_bit(CheckId) of each check that flagged
  uint64_t detail[2] = {0, 0};  // the first finding, packed as check_ids.h describes
};

// Runs every check. pointer_mode: the handle's (or matmul descriptor's), -1 unknown;
// call_device: the device current for the call, -1 unknown (skips device-mismatch and fp8's
// layout rule); lt: a cuBLASLt matmul's extras, nullptr for other calls (which skip cuBLASLt's
// own rules).
// A call with negative sizes is left alone: cuBLAS rejects it with INVALID_VALUE itself.
CheckFindings check_gemm(const GemmCall& call, int pointer_mode, int call_device, PointerQuery& query,
                         const LtMatmulExtras* lt = nullptr);

// The checks that need no driver nor descriptor, for tools that rerun them on a trace
// (cuBLASLt's own rules need the descriptors, which a trace does not keep whole).
CheckFindings check_gemm_shape(const GemmCall& call);

}  // namespace cublasspy

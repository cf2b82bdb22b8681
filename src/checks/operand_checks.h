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
// call_device: the device current for the call, -1 unknown (skips device-mismatch).
// A call with negative sizes is left alone: cuBLAS rejects it with INVALID_VALUE itself.
CheckFindings check_gemm(const GemmCall& call, int pointer_mode, int call_device, PointerQuery& query);

// The checks that need no driver, for tools that rerun them on a trace.
CheckFindings check_gemm_shape(const GemmCall& call);

}  // namespace cublasspy

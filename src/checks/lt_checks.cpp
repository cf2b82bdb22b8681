// The checks of cuBLASLt's own rules (operand_checks.h, "cuBLASLt's own rules"): the layouts'
// batch counts, the epilogue's bias and auxiliary buffer, and what fp8 kernels require. Each rule
// is the library's documentation's:
// - batch counts: CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT (cublasLt.h), "Batch count must be equal for
//   all the matrices" (NVIDIA's answer in github.com/NVIDIA/CUDALibrarySamples/issues/185, with
//   the library's log line "Input matrices batch counts mismatch");
// - the epilogue: cublasLt.h's CUBLASLT_MATMUL_DESC_BIAS_POINTER ("Bias vector length must match
//   matrix D rows count"), CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER ("Requires setting
//   CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD") and CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD (ReLU bit-mask:
//   "Must be divisible by 128 and be no less than the number of rows in the output matrix"; GELU
//   input: "Must be divisible by 8 and be no less than the number of rows in the output matrix");
// - fp8: the cuBLAS documentation of cublasLtMatmul, "To use FP8 kernels, the following set of
//   requirements must be satisfied": the matrices meet the Tensor Core Usage requirements
//   (pointers and leading dimensions in multiples of 16 bytes), and "A must be transposed and B
//   non-transposed (The "TN" format)" on Ada (8.9) and Hopper (9.0); Blackwell lifts the layout rule.
#include "checks/operand_checks.h"

namespace cublasspy {
namespace {

constexpr int kA = 0, kB = 1, kC = 2, kD = 3;
constexpr uint64_t kFp8Bytes = 16;

// cublasLtEpilogue_t's bits (cublasLt.h): each epilogue is an or of them.
constexpr uint32_t kBias = 4, kBgrad = 16, kGelu = 32, kDgelu = 64, kAux = 128, kBgradA = 256, kBgradB = 512;

Finding flag(CheckOperand op, uint64_t a, uint64_t b) {
  Finding f;
  f.flagged = true;
  f.operand = op;
  f.value_a = a;
  f.value_b = b;
  return f;
}

// The bias vector's element: its own type when set, else D's (C's when D is fp8, whose bias is
// of the wider output type).
int bias_element_bytes(const GemmCall& g, const LtMatmulExtras& lt) {
  if (lt.bias_type >= 0) return element_bytes(static_cast<DataType>(lt.bias_type));
  const Matrix& out = g.op[kD].present ? g.op[kD] : g.op[kC];
  return element_bytes(is_fp8(out.type) ? g.op[kC].type : out.type);
}

}  // namespace

bool is_fp8(DataType type) { return type == DataType::kR8F_E4M3 || type == DataType::kR8F_E5M2; }

bool epilogue_needs_bias(uint32_t e) {
  return (e & (kBias | kBgrad | kBgradA | kBgradB)) != 0;
}

bool epilogue_needs_aux(uint32_t e) { return (e & kAux) != 0; }  // DRELU and DGELU carry it too

int64_t aux_ld_multiple(uint32_t e) {
  if (!epilogue_needs_aux(e)) return 0;
  // GELU's input is a matrix; the other AUX epilogues (RELU_AUX, DRELU) keep ReLU's bit-mask, its ld in bits.
  return (e & (kGelu | kDgelu)) != 0 ? 8 : 128;
}

Finding check_batch_counts(const GemmCall& g, const LtMatmulExtras& lt) {
  if (!lt.present || g.pointer_arrays) return {};
  const int64_t d = lt.batch_count[kD];
  for (int op : {kA, kB, kC}) {
    if (lt.batch_count[op] != d) {
      return flag(static_cast<CheckOperand>(op), static_cast<uint64_t>(lt.batch_count[op]) & kCheckDetailValueMask,
                  static_cast<uint64_t>(d));
    }
  }
  return {};
}

Finding check_epilogue_operands(const GemmCall& g, const LtMatmulExtras& lt) {
  if (!lt.present || g.m <= 0 || g.n <= 0) return {};
  const uint32_t e = lt.epilogue;
  if (epilogue_needs_bias(e)) {
    if (lt.bias == 0) return flag(CheckOperand::kNone, epilogue_detail(EpilogueProblem::kBiasMissing, e), 0);
    const int bytes = bias_element_bytes(g, lt);
    if (bytes > 1 && lt.bias % static_cast<uint64_t>(bytes) != 0) {
      return flag(CheckOperand::kNone, epilogue_detail(EpilogueProblem::kBiasMisaligned, e), lt.bias);
    }
  }
  if (epilogue_needs_aux(e)) {
    if (lt.aux == 0) return flag(CheckOperand::kNone, epilogue_detail(EpilogueProblem::kAuxMissing, e), 0);
    const int64_t multiple = aux_ld_multiple(e);
    if (lt.aux_ld < g.m || lt.aux_ld % multiple != 0) {
      return flag(CheckOperand::kNone, epilogue_detail(EpilogueProblem::kAuxLd, e), static_cast<uint64_t>(lt.aux_ld));
    }
    // GELU's input is kept in the output's type; ReLU's bit-mask is bytes.
    const int bytes = multiple == 8 ? element_bytes(g.op[kD].present ? g.op[kD].type : g.op[kC].type) : 1;
    if (bytes > 1 && lt.aux % static_cast<uint64_t>(bytes) != 0) {
      return flag(CheckOperand::kNone, epilogue_detail(EpilogueProblem::kAuxMisaligned, e), lt.aux);
    }
  }
  return {};
}

Finding check_fp8_layout(const GemmCall& g, int compute_capability) {
  if (!is_fp8(g.op[kA].type) && !is_fp8(g.op[kB].type)) return {};
  if (g.pointer_arrays || g.m <= 0 || g.n <= 0 || g.k <= 0) return {};
  const bool separate_d = output_is_separate_d(g);
  for (int op : {kA, kB, kC, kD}) {
    if (op == kD && !separate_d) continue;
    if (!operand_used(g, op)) continue;
    const Matrix& m = g.op[op];
    if (m.ptr % kFp8Bytes != 0) {
      return flag(static_cast<CheckOperand>(op), static_cast<uint64_t>(Fp8Problem::kPointer), kFp8Bytes);
    }
    const int bytes = element_bytes(m.type);
    // Only the column-major and row-major orders have a plain ld; a packed matrix's ld is not its own.
    const bool plain_ld = m.order == 0 || m.order == 1;  // COL, ROW
    // Unsigned: a garbage ld wraps instead of overflowing, and 16 divides 2^64, so the rest holds.
    const uint64_t ld_bytes = static_cast<uint64_t>(m.ld) * static_cast<uint64_t>(bytes);
    if (bytes > 0 && plain_ld && !m.packed_fp4 && m.cols > 1 && ld_bytes % kFp8Bytes != 0) {
      return flag(static_cast<CheckOperand>(op), static_cast<uint64_t>(Fp8Problem::kLd), kFp8Bytes / bytes);
    }
  }
  const bool ada_or_hopper = compute_capability == 89 || (compute_capability >= 90 && compute_capability < 100);
  if (ada_or_hopper && (g.trans_a == 0 || g.trans_b != 0)) {
    return flag(CheckOperand::kNone, static_cast<uint64_t>(Fp8Problem::kNotTn),
                static_cast<uint64_t>(compute_capability));
  }
  return {};
}

}  // namespace cublasspy

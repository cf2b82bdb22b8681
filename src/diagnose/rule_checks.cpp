// The argument checks of CUBLASSPY_CHECK=1 (`run --check`), one finding per check and process:
// the first call it flagged, with the shim's own sentence (check_message, rebuilt from the
// record), and how many calls it flagged in all. The check ids are the contract's diagnosis ids.
// From the EXECUTION_FAILED field report (docs/DIAGNOSES.md): a pointer mode that does not match
// where alpha/beta live, and cuBLAS validating nothing (wrong arguments surface as
// EXECUTION_FAILED or garbage).
#include <fmt/format.h>

#include "checks/check_ids.h"
#include "gemm/gemm_call.h"
#include "diagnose/rule.h"

namespace cublasspy::diagnoses {
namespace {

const char* summary_of(CheckId id) {
  switch (id) {
    case CheckId::kInvalidLeadingDimension: return "a leading dimension is smaller than the rows it must span";
    case CheckId::kInvalidStride: return "a batch stride makes batch members overlap";
    case CheckId::kOutputAliasesInput: return "the output matrix overlaps an input";
    case CheckId::kPointerModeMismatch: return "alpha/beta live in another memory space than the pointer mode says";
    case CheckId::kHostPointerOperand: return "an operand is host memory the GPU cannot read";
    case CheckId::kOperandOutOfBounds: return "an operand runs past the end of its allocation";
    case CheckId::kDeviceMismatch: return "an operand lives on another GPU than the call runs on";
    case CheckId::kMisalignedOperand: return "an operand is not aligned for its data type";
    case CheckId::kSizeOverflow: return "an operand is larger than a 32-bit cuBLAS entry point can index";
    case CheckId::kBatchCountMismatch: return "the matrix layouts have different batch counts";
    case CheckId::kEpilogueOperand: return "the epilogue's bias or auxiliary buffer breaks its rules";
    case CheckId::kFp8Layout: return "the fp8 matmul breaks the fp8 kernels' alignment or layout rules";
  }
  return "an argument check failed";
}

const char* advice_of(CheckId id) {
  switch (id) {
    case CheckId::kInvalidLeadingDimension:
      return "In column-major cuBLAS, lda must be at least the rows of A as stored (m for "
             "transa=N, k for T/C), and likewise ldb and ldc. From row-major (C/NumPy/PyTorch) "
             "data, either pass the transposes or swap A and B and compute C^T = B^T A^T; make "
             "non-contiguous tensors .contiguous() first.";
    case CheckId::kInvalidStride:
      return "strideA/B/C must be at least one matrix (ld * columns) apart, or 0 to broadcast an "
             "input; an output stride of 0 or one that overlaps makes batch members overwrite each "
             "other.";
    case CheckId::kOutputAliasesInput:
      return "cuBLAS does not support C (or D) overlapping A or B: the result is undefined. Write "
             "the result to a separate buffer and copy it back (in PyTorch: avoid out= or in-place "
             "matmul on a view of an input).";
    case CheckId::kPointerModeMismatch:
      return "With CUBLAS_POINTER_MODE_HOST alpha and beta must point to host memory; with "
             "CUBLAS_POINTER_MODE_DEVICE, to device memory. Set the mode that matches "
             "(cublasSetPointerMode) right before the call, and restore the handle's previous "
             "mode when sharing a handle with a framework (PyTorch's handles expect HOST).";
    case CheckId::kHostPointerOperand:
      return "Copy the operand to the GPU first (cudaMalloc + cudaMemcpy, or tensor.cuda()); "
             "pageable host memory cannot be read by a kernel. Pinned (cudaHostAlloc) or managed "
             "(cudaMallocManaged) memory can.";
    case CheckId::kOperandOutOfBounds:
      return "The operand's extent (ld * columns elements, plus stride * (batch - 1) for batches) "
             "is larger than its allocation: check the shape, ld and stride against the buffer's "
             "size, and that the buffer was not freed and reallocated smaller.";
    case CheckId::kDeviceMismatch:
      return "Make the operand's device current (cudaSetDevice / torch.cuda.set_device) or move "
             "the data to the device the handle's stream belongs to; with several GPUs create one "
             "handle per device.";
    case CheckId::kMisalignedOperand:
      return "Misaligned operands work but are slow (cuBLAS falls back to slower kernels). Start "
             "operands at the allocation (cudaMalloc returns 256-byte alignment) or at offsets "
             "that are multiples of 16 bytes.";
    case CheckId::kSizeOverflow:
      return "The 32-bit entry points (cublasSgemm, cublasGemmEx, ...) index an operand's elements "
             "in 32 bits: past 2^31 - 1 elements they fail with INVALID_VALUE or read and write out "
             "of bounds (an illegal address). Call the _64 form (cublasSgemm_64, cublasGemmEx_64, "
             "cuBLAS 12 and later) with 64-bit sizes, or split the GEMM into pieces below 2^31 "
             "elements each (in PyTorch: chunk the batch or the rows).";
    case CheckId::kBatchCountMismatch:
      return "Set CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT to the same value on all four layouts (A, B, C and D), with "
             "each one's CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET; to use one matrix for every batch member, "
             "give it the batch count too and a stride of 0 (NVIDIA's LtHSHgemmStridedBatchSimple sample).";
    case CheckId::kEpilogueOperand:
      return "An epilogue with a bias (the *_BIAS epilogues, and the bias gradients BGRADA, BGRADB, *_BGRAD) "
             "needs CUBLASLT_MATMUL_DESC_BIAS_POINTER set to a device vector of D's rows, aligned to its "
             "elements; one with an auxiliary buffer (*_AUX*, DRELU, DGELU) needs "
             "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER and CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, at least m and "
             "a multiple of 128 for ReLU's bit-mask or of 8 for GELU's input (cublasLt.h). Set them on the "
             "descriptor before the heuristic query, whose choice depends on their alignment.";
    case CheckId::kFp8Layout:
      return "cuBLASLt's fp8 kernels need every matrix 16-byte aligned and each ld a multiple of 16 bytes (16 "
             "fp8 elements, 8 bf16/fp16 ones): pad the inner dimension (in PyTorch, torch._scaled_mm wants "
             "dimensions divisible by 16). On Ada and Hopper they also take only A transposed and B not (\"TN\"): "
             "store A row-major, or compute the transposed product with A and B swapped.";
  }
  return "";
}

}  // namespace

void rule_checks(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    for (int bit = 0; bit < kCheckCount; ++bit) {
      const auto id = static_cast<CheckId>(bit);
      const CallView* first = nullptr;
      uint64_t flagged = 0;
      for (const CallView& c : f.checked) {
        if ((c.rec().check_bits & check_bit(id)) == 0) continue;
        if (first == nullptr) first = &c;
        flagged++;
      }
      if (first == nullptr) continue;
      const GemmCall g = first->gemm();
      Diagnosis d = finding(check_id_name(id), check_is_warning(id) ? Severity::kWarning : Severity::kError, f);
      d.call = first->seq;
      d.summary = fmt::format("{}: {}", call_name(*first), summary_of(id));
      d.evidence = fmt::format("{}: {}.", call_with_shape(*f.trace, *first),
                               check_message(id, g, first->rec(), first->function_name()));
      if (first->state == format::RecordState::kCompleted) {
        d.evidence += fmt::format(" The call returned {}.", status_text(*first));
      }
      if (flagged > 1 || f.checked_total > f.checked.size()) {
        d.evidence += fmt::format(" The check flagged {}{} call{} in this process.",
                                  f.checked_total > f.checked.size() ? "at least " : "", flagged, plural(flagged));
      }
      d.advice = advice_of(id);
      ctx.add(std::move(d));
    }
  }
}

}  // namespace cublasspy::diagnoses

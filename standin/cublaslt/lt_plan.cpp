// Planning a cublasLtMatmul problem (lt_plan.h).
#include "lt_plan.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "lt_algorithms.h"
#include "lt_block_scales.h"
#include "lt_log.h"
#include "standin_private.h"

namespace standin {
namespace {
bool is_fp8(cudaDataType t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

bool valid_op(int32_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

Op to_op(int32_t op) { return op == CUBLAS_OP_N ? Op::N : (op == CUBLAS_OP_T ? Op::T : Op::C); }

}  // namespace

// The type combinations of the cublasLtMatmul documentation that the stand-in computes.
bool types_supported(int32_t compute, cudaDataType scale, cudaDataType a, cudaDataType b, cudaDataType c,
                     cudaDataType d) {
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return scale == CUDA_R_16F && a == CUDA_R_16F && b == CUDA_R_16F && c == CUDA_R_16F && d == CUDA_R_16F;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      if (scale == CUDA_C_32F) return a == b && (a == CUDA_C_32F || a == CUDA_C_8I) && c == CUDA_C_32F && d == CUDA_C_32F;
      if (scale != CUDA_R_32F) return false;
      if (a == CUDA_R_4F_E2M1 || b == CUDA_R_4F_E2M1) {  // NVFP4: both E2M1, D of C's type or E2M1
        return a == b && (c == CUDA_R_16F || c == CUDA_R_16BF || c == CUDA_R_32F) && (d == c || d == CUDA_R_4F_E2M1);
      }
      if (is_fp8(a) && is_fp8(b)) {  // FP8: any pair but E5M2 x E5M2, wider C, D possibly fp8
        return !(a == CUDA_R_8F_E5M2 && b == CUDA_R_8F_E5M2) &&
               (c == CUDA_R_16F || c == CUDA_R_16BF || c == CUDA_R_32F) &&
               (d == c || is_fp8(d));
      }
      if (a != b || c != d) return false;
      if (a == CUDA_R_32F) return c == CUDA_R_32F;
      if (a == CUDA_R_16F || a == CUDA_R_16BF) return c == a || c == CUDA_R_32F;
      if (a == CUDA_R_8I) return c == CUDA_R_32F;
      return false;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      return (scale == CUDA_R_64F && a == CUDA_R_64F && b == a && c == a && d == a) ||
             (scale == CUDA_C_64F && a == CUDA_C_64F && b == a && c == a && d == a);
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      return a == CUDA_R_8I && b == CUDA_R_8I && c == d &&
             ((scale == CUDA_R_32I && c == CUDA_R_32I) || (scale == CUDA_R_32F && (c == CUDA_R_8I || c == CUDA_R_32I)));
  }
  return false;
}

// `function`: the entry point whose refusal the log names (lt_log.h).
cublasStatus_t make_plan(const char* function, const LtMatmulDesc& desc, const LtLayout& la, const LtLayout& lb,
                         const LtLayout& lc, const LtLayout& ld, Plan* p) {
  if (desc.magic != kLtMatmulDescMagic || la.magic != kLtLayoutMagic || lb.magic != kLtLayoutMagic ||
      lc.magic != kLtLayoutMagic || ld.magic != kLtLayoutMagic) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (!valid_op(desc.transa) || !valid_op(desc.transb)) return CUBLAS_STATUS_INVALID_VALUE;
  if (desc.transc != CUBLAS_OP_N) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (desc.pointer_mode < CUBLASLT_POINTER_MODE_HOST || desc.pointer_mode > CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  for (const LtLayout* l : {&la, &lb, &lc, &ld})
    if (cublasStatus_t s = check_layout(*l, /*packed_fp4=*/true); s != CUBLAS_STATUS_SUCCESS) return s;
  // The IMMA orders only as cuBLASLt's integer kernels take them: int8 A in COL32, B in
  // COL4_4R2_8C or COL32_2R_4R4, C and D in COL32, op(A) = A and op(B) = B^T.
  const bool tiled = la.order > CUBLASLT_ORDER_ROW || lb.order > CUBLASLT_ORDER_ROW || lc.order > CUBLASLT_ORDER_ROW ||
                     ld.order > CUBLASLT_ORDER_ROW;
  if (tiled && !(la.order == CUBLASLT_ORDER_COL32 &&
                 (lb.order == CUBLASLT_ORDER_COL4_4R2_8C || lb.order == CUBLASLT_ORDER_COL32_2R_4R4) &&
                 lc.order == CUBLASLT_ORDER_COL32 && ld.order == CUBLASLT_ORDER_COL32 && la.type == CUDA_R_8I &&
                 lb.type == CUDA_R_8I && desc.transa == CUBLAS_OP_N && desc.transb == CUBLAS_OP_T)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }

  // The shape: op(A) is m x k, op(B) is k x n, C and D are m x n.
  p->a_rows = static_cast<int64_t>(la.rows);
  p->a_cols = static_cast<int64_t>(la.cols);
  p->b_rows = static_cast<int64_t>(lb.rows);
  p->b_cols = static_cast<int64_t>(lb.cols);
  p->op_a = to_op(desc.transa);
  p->op_b = to_op(desc.transb);
  p->m = p->op_a == Op::N ? p->a_rows : p->a_cols;
  p->k = p->op_a == Op::N ? p->a_cols : p->a_rows;
  const int64_t kb = p->op_b == Op::N ? p->b_rows : p->b_cols;
  p->n = p->op_b == Op::N ? p->b_cols : p->b_rows;
  if (kb != p->k) return CUBLAS_STATUS_INVALID_VALUE;
  for (const LtLayout* l : {&lc, &ld})
    if (static_cast<int64_t>(l->rows) != p->m || static_cast<int64_t>(l->cols) != p->n) return CUBLAS_STATUS_INVALID_VALUE;
  p->batch = ld.batch_count;
  // The real library's words for this refusal, the first matrix whose count differs from A's
  // (github.com/NVIDIA/CUDALibrarySamples/issues/185, CUBLASLT_LOG_LEVEL=1).
  const LtLayout* const others[3] = {&lb, &lc, &ld};
  const char* const other_names[3] = {"input B", "input C", "output D"};
  for (int i = 0; i < 3; ++i) {
    if (others[i]->batch_count == la.batch_count) continue;
    lt_log_error(function,
                 "Input matrices batch counts mismatch: %s matrix batchCount (%d) must be equal to all other "
                 "matrices batch counts, expected (%d).",
                 other_names[i], others[i]->batch_count, la.batch_count);
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const LtLayout* const layouts[4] = {&la, &lb, &lc, &ld};
  if (cublasStatus_t s = plan_planes(desc, layouts, &p->planes); s != CUBLAS_STATUS_SUCCESS) return s;
  // Pointer arrays for all four operands or for none (mixing is not a layout cuBLASLt documents).
  p->pointer_arrays = ld.batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY;
  for (const LtLayout* l : {&la, &lb, &lc})
    if ((l->batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY) != p->pointer_arrays) return CUBLAS_STATUS_NOT_SUPPORTED;

  p->scale_type = static_cast<cudaDataType>(desc.scale_type);
  const cudaDataType types[4] = {static_cast<cudaDataType>(la.type), static_cast<cudaDataType>(lb.type),
                                 static_cast<cudaDataType>(lc.type), static_cast<cudaDataType>(ld.type)};
  if (!types_supported(desc.compute_type, p->scale_type, types[0], types[1], types[2], types[3]) &&
      !(p->planes.any && planar_types_supported(desc.compute_type, p->scale_type, types[0], types[1], types[2], types[3]))) {
    lt_log_error(function,
                 "Unsupported combination of types: computeType=%d scaleType=%d Atype=%d Btype=%d Ctype=%d Dtype=%d.",
                 desc.compute_type, p->scale_type, types[0], types[1], types[2], types[3]);
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (cublasStatus_t s = lt_check_scale_modes(desc, la, lb, lc, ld); s != CUBLAS_STATUS_SUCCESS) return s;
  p->block_scaled = lt_block_scaled(desc, static_cast<cudaDataType>(la.type), static_cast<cudaDataType>(ld.type));

  switch (desc.epilogue) {
    case CUBLASLT_EPILOGUE_DEFAULT: break;
    case CUBLASLT_EPILOGUE_RELU: p->activation = Activation::Relu; break;
    case CUBLASLT_EPILOGUE_GELU: p->activation = Activation::Gelu; break;
    case CUBLASLT_EPILOGUE_BIAS: p->bias = true; break;
    case CUBLASLT_EPILOGUE_RELU_BIAS: p->bias = true; p->activation = Activation::Relu; break;
    case CUBLASLT_EPILOGUE_GELU_BIAS: p->bias = true; p->activation = Activation::Gelu; break;
    default:  // aux outputs and gradients are not modelled
      lt_log_error(function, "Unsupported epilogue (%u).", desc.epilogue);
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const cudaDataType d_type = static_cast<cudaDataType>(ld.type);
  p->bias_type = desc.bias_data_type >= 0 ? static_cast<cudaDataType>(desc.bias_data_type)
                                          : (is_fp8(d_type) ? static_cast<cudaDataType>(lc.type) : d_type);
  if (p->bias && !is_supported_type(p->bias_type)) return CUBLAS_STATUS_NOT_SUPPORTED;

  switch (desc.compute_type) {
    case CUBLAS_COMPUTE_32F_FAST_TF32: p->rounding = InputRounding::TF32; break;
    case CUBLAS_COMPUTE_32F_FAST_16F: p->rounding = InputRounding::Half; break;
    case CUBLAS_COMPUTE_32F_FAST_16BF: p->rounding = InputRounding::BF16; break;
    default: break;
  }
  p->a = view_of(la);
  p->b = view_of(lb);
  p->c = view_of(lc);
  p->d = view_of(ld);
  if (p->planes.any)
    for (MatrixView* v : {&p->a, &p->b, &p->c, &p->d}) v->type = plane_type(v->type);
  p->a_stride = la.batch_stride;
  p->b_stride = lb.batch_stride;
  p->c_stride = lc.batch_stride;
  p->d_stride = ld.batch_stride;
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace standin

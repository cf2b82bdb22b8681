// A cuBLASLt matrix layout as the stand-in's GEMM core reads it, and the checks every call that
// takes layouts applies (cublasLtMatmul, the heuristic, cublasLtMatrixTransform).
#pragma once

#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "gemm_core.h"
#include "lt_descriptors.h"

namespace standin {

inline Tiling tiling_of(int32_t order) {
  switch (order) {
    case CUBLASLT_ORDER_COL32: return Tiling::Col32;
    case CUBLASLT_ORDER_COL4_4R2_8C: return Tiling::Col4_4R2_8C;
    case CUBLASLT_ORDER_COL32_2R_4R4: return Tiling::Col32_2R_4R4;
    default: return Tiling::None;
  }
}

// Element (r, c) of a layout: column order r + c * ld, row order r * ld + c, the tiled orders as
// element_index places them.
inline MatrixView view_of(const LtLayout& l) {
  MatrixView v;
  v.type = static_cast<cudaDataType>(l.type);
  v.row_stride = l.order == CUBLASLT_ORDER_ROW ? l.ld : 1;
  v.col_stride = l.order == CUBLASLT_ORDER_ROW ? 1 : l.ld;
  v.tiling = tiling_of(l.order);
  return v;
}

// The smallest ld of a layout's order: rows (COL), cols (ROW), 32 * rows (COL32), 32 * rows
// rounded up to 8 (COL4_4R2_8C) or to 32 (COL32_2R_4R4), as cublasLt.h documents them.
inline int64_t minimal_ld(const LtLayout& l) {
  const int64_t rows = static_cast<int64_t>(l.rows), cols = static_cast<int64_t>(l.cols);
  switch (l.order) {
    case CUBLASLT_ORDER_ROW: return std::max<int64_t>(1, cols);
    case CUBLASLT_ORDER_COL32: return 32 * rows;
    case CUBLASLT_ORDER_COL4_4R2_8C: return 32 * ((rows + 7) / 8 * 8);
    case CUBLASLT_ORDER_COL32_2R_4R4: return 32 * ((rows + 31) / 32 * 32);
    default: return std::max<int64_t>(1, rows);
  }
}

// packed_fp4: the caller (cublasLtMatmul) reads CUDA_R_4F_E2M1, two elements a byte, itself.
inline cublasStatus_t check_layout(const LtLayout& l, bool packed_fp4 = false) {
  if (l.order < CUBLASLT_ORDER_COL || l.order > CUBLASLT_ORDER_COL32_2R_4R4) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (l.rows > static_cast<uint64_t>(INT64_MAX) || l.cols > static_cast<uint64_t>(INT64_MAX)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (l.ld < minimal_ld(l) || l.batch_count < 1) return CUBLAS_STATUS_INVALID_VALUE;
  if (!is_supported_type(static_cast<cudaDataType>(l.type)) && !(packed_fp4 && l.type == CUDA_R_4F_E2M1)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace standin

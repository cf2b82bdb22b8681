// A cublasLtMatmul problem checked and planned: its shape from the layouts, its types, its
// epilogue. cublasLtMatmul, the heuristic in front of it and cublasLtMatmulAlgoCheck all plan first
// (lt_plan.cpp), so an unsupported problem is refused the same way by each.
#pragma once

#include <cublasLt.h>

#include <cstdint>

#include "gemm_core.h"
#include "lt_descriptors.h"
#include "lt_layouts.h"
#include "lt_planar.h"

namespace standin {

struct Plan {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  MatrixView a, b, c, d;  // data pointers filled per call
  int64_t a_stride = 0, b_stride = 0, c_stride = 0, d_stride = 0;
  bool pointer_arrays = false;  // BATCH_MODE POINTER_ARRAY: A..D are device arrays of pointers
  LtPlanes planes;              // planar complex: a..d are views of the real planes (lt_planar.h)
  int64_t a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;  // as stored
  Op op_a = Op::N, op_b = Op::N;
  cudaDataType scale_type = CUDA_R_32F;
  cudaDataType bias_type = CUDA_R_32F;
  Activation activation = Activation::None;
  bool bias = false;
  InputRounding rounding = InputRounding::None;
  bool block_scaled = false;  // scale modes or FP4 types beyond the core's scalars (lt_block_scales.h)
};

// Whether the stand-in computes this combination of the cublasLtMatmul documentation's types.
bool types_supported(int32_t compute, cudaDataType scale, cudaDataType a, cudaDataType b, cudaDataType c,
                     cudaDataType d);

// The plan of a matmul, or the status that refuses it. `function`: the entry point whose refusal
// the log names (lt_log.h).
cublasStatus_t make_plan(const char* function, const LtMatmulDesc& desc, const LtLayout& la, const LtLayout& lb,
                         const LtLayout& lc, const LtLayout& ld, Plan* p);

}  // namespace standin

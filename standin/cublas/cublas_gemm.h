// The one generic cuBLAS GEMM behind every GEMM entry point of libcublas (v2, _64, batched,
// strided, grouped, Ex, 3m) and of the legacy v1 API. An entry point only describes its call
// (types, addressing, scalars) in a GemmCall; this engine validates it with the status codes
// cuBLAS documents, applies the fault plan, checks that the device could reach every operand,
// and computes through gemm_core (or, for cublasGemmEx with 16-bit inputs, through the
// exported cublasLtMatmul, as the real libcublas does).
//
// Header for the cuBLAS front end only; includes cublas_api.h, not cublas_v2.h, so the legacy
// v1 file (which must include cublas.h) can use it too.
#pragma once

#include <cublas_api.h>

#include <cstdint>
#include <vector>

#include "standin_private.h"

namespace standin::blas {

struct Operand {
  const void* ptr = nullptr;           // strided addressing: the first matrix
  const void* const* array = nullptr;  // pointer-array addressing: device array of matrices
  int64_t ld = 0;
  int64_t stride = 0;                  // strided addressing: elements from one matrix to the next
  cudaDataType type = CUDA_R_32F;
};

struct GemmCall {
  const char* name = nullptr;  // the exported name that was called
  standin_fault_action fault{};
  cublasHandle_t handle = nullptr;
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0;
  const void* alpha = nullptr;
  const void* beta = nullptr;
  cudaDataType scale_type = CUDA_R_32F;  // what alpha and beta point to
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  Operand a, b, c;
  bool pointer_arrays = false;
  int64_t batch = 1;
  bool scalars_on_host = false;  // v1 API: alpha/beta are host values whatever the pointer mode
  bool via_lt = false;           // route through cublasLtMatmul (cublasGemmEx-style entry points)
  bool algo_supported = true;    // cublasGemmEx's algo argument named an existing algorithm
};

// A complete GEMM call (one problem, a strided batch or a pointer-array batch).
cublasStatus_t gemm(const GemmCall& call);

// A grouped-batched call: one GemmCall per group (pointer arrays already offset to the group,
// `batch` = group size); the fault action of groups[0] applies to the whole call.
cublasStatus_t gemm_grouped(cublasHandle_t handle, const std::vector<GemmCall>& groups);

// The scale type cuBLAS expects for a compute type and A/B/C types, or the status it returns
// for an unsupported (NOT_SUPPORTED) or unknown (INVALID_VALUE) combination.
cublasStatus_t scale_type_for(cublasComputeType_t compute, cudaDataType a, cudaDataType b, cudaDataType c,
                              cudaDataType* scale);

}  // namespace standin::blas

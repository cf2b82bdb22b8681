// Every GEMM entry point libcublas.so.13 exports (v2 API, cublas_v2.h), each one line over the
// generic engine in cublas_gemm.cpp; the 12 build leaves out the two cuBLAS 12.4 lacks. The real header declares all of them, so a definition whose
// signature drifts from the header fails to compile ("conflicting declaration of C function").
//
// 56 symbols: {S,D,C,Z}gemm_v2, Hgemm, {S,C}gemmEx, GemmEx, Cgemm3m, Cgemm3mEx, Zgemm3m,
// {S,D,C,Z,H}gemmBatched, Cgemm3mBatched, GemmBatchedEx, {S,D,C,Z,H}gemmStridedBatched,
// Cgemm3mStridedBatched, GemmStridedBatchedEx, {S,D}gemmGroupedBatched, GemmGroupedBatchedEx,
// and the _64 variant of each (int64_t sizes, leading dimensions and counts); 54 in the 12 build.
#include <cublas_v2.h>

#include "blas_handles.h"
#include "cublas_gemm.h"
#include "gemm_core.h"

using namespace standin::blas;

namespace {

Operand strided(const void* p, int64_t ld, long long stride, cudaDataType type) {
  return Operand{p, nullptr, ld, stride, type};
}

Operand arrayed(const void* const* array, int64_t ld, cudaDataType type) {
  return Operand{nullptr, array, ld, 0, type};
}

GemmCall call(const char* name, cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
              int64_t n, int64_t k, const void* alpha, const void* beta, cudaDataType scale,
              cublasComputeType_t compute, Operand a, Operand b, Operand c, int64_t batch, bool arrays) {
  GemmCall g;
  g.name = name;
  g.fault = standin_enter(name);  // first: counts the call, may crash or hang right here
  g.handle = handle;
  g.transa = transa;
  g.transb = transb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.alpha = alpha;
  g.beta = beta;
  g.scale_type = scale;
  g.compute = compute;
  g.a = a;
  g.b = b;
  g.c = c;
  g.batch = batch;
  g.pointer_arrays = arrays;
  return g;
}

// cublasGemmEx-style calls: alpha/beta types follow the compute type; 16-bit inputs go
// through cublasLtMatmul like in the real library (only for one matrix or a strided batch).
GemmCall ex_call(GemmCall g, cublasGemmAlgo_t algo) {
  cudaDataType scale = CUDA_R_32F;
  if (scale_type_for(g.compute, g.a.type, g.b.type, g.c.type, &scale) == CUBLAS_STATUS_SUCCESS) g.scale_type = scale;
  // Every cublasGemmAlgo_t value the headers list (CUBLAS_GEMM_AUTOTUNE too: the stand-in has
  // nothing to tune, every algorithm computes the same way).
  g.algo_supported = (algo >= CUBLAS_GEMM_DEFAULT && algo <= CUBLAS_GEMM_ALGO23) ||
                     (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP) ||
                     algo == CUBLAS_GEMM_AUTOTUNE;
  g.via_lt = !g.pointer_arrays && (g.a.type == CUDA_R_16F || g.a.type == CUDA_R_16BF);
  return g;
}

template <class Int>
cublasStatus_t grouped(const char* name, cublasHandle_t handle, const cublasOperation_t* transa,
                       const cublasOperation_t* transb, const Int* m, const Int* n, const Int* k, const void* alpha,
                       const void* const* a, cudaDataType a_type, const Int* lda, const void* const* b,
                       cudaDataType b_type, const Int* ldb, const void* beta, const void* const* c,
                       cudaDataType c_type, const Int* ldc, Int group_count, const Int* group_size,
                       cudaDataType scale, cublasComputeType_t compute) {
  const standin_fault_action fault = standin_enter(name);
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  standin::checked_cublas_handle(handle);
  if (group_count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (group_count > 0 && (transa == nullptr || transb == nullptr || m == nullptr || n == nullptr || k == nullptr ||
                          alpha == nullptr || beta == nullptr || lda == nullptr || ldb == nullptr ||
                          ldc == nullptr || group_size == nullptr)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const size_t scalar = standin::element_size(scale);
  std::vector<GemmCall> groups;
  int64_t offset = 0;
  for (Int i = 0; i < group_count; ++i) {
    if (group_size[i] < 0) return CUBLAS_STATUS_INVALID_VALUE;
    GemmCall g;
    g.name = name;
    g.fault = fault;
    g.handle = handle;
    g.transa = transa[i];
    g.transb = transb[i];
    g.m = m[i];
    g.n = n[i];
    g.k = k[i];
    g.alpha = static_cast<const char*>(alpha) + i * scalar;
    g.beta = static_cast<const char*>(beta) + i * scalar;
    g.scale_type = scale;
    g.compute = compute;
    g.a = arrayed(a ? a + offset : nullptr, lda[i], a_type);
    g.b = arrayed(b ? b + offset : nullptr, ldb[i], b_type);
    g.c = arrayed(c ? c + offset : nullptr, ldc[i], c_type);
    g.pointer_arrays = true;
    g.batch = group_size[i];
    groups.push_back(g);
    offset += group_size[i];
  }
  return gemm_grouped(handle, groups);
}

template <class T>
const void* const* as_array(T array) {
  return reinterpret_cast<const void* const*>(array);
}

}  // namespace

// ---- typed single GEMMs ------------------------------------------------------------------------

#define STANDIN_TYPED_GEMM(NAME, INT, T, TYPE, COMPUTE)                                                        \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,              \
                                                cublasOperation_t transb, INT m, INT n, INT k, const T* alpha, \
                                                const T* A, INT lda, const T* B, INT ldb, const T* beta, T* C,  \
                                                INT ldc) {                                                      \
    return gemm(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, TYPE, COMPUTE,                       \
                     strided(A, lda, 0, TYPE), strided(B, ldb, 0, TYPE), strided(C, ldc, 0, TYPE), 1, false)); \
  }

STANDIN_TYPED_GEMM(cublasSgemm_v2, int, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasSgemm_v2_64, int64_t, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasDgemm_v2, int, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GEMM(cublasDgemm_v2_64, int64_t, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GEMM(cublasCgemm_v2, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasCgemm_v2_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasZgemm_v2, int, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GEMM(cublasZgemm_v2_64, int64_t, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GEMM(cublasHgemm, int, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
STANDIN_TYPED_GEMM(cublasHgemm_64, int64_t, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
// The 3M (Gauss) complex algorithm changes rounding only: the stand-in computes them exactly.
STANDIN_TYPED_GEMM(cublasCgemm3m, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasCgemm3m_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GEMM(cublasZgemm3m, int, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GEMM(cublasZgemm3m_64, int64_t, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)

// ---- typed strided batches ---------------------------------------------------------------------

#define STANDIN_TYPED_STRIDED(NAME, INT, T, TYPE, COMPUTE)                                                        \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                 \
                                                cublasOperation_t transb, INT m, INT n, INT k, const T* alpha,    \
                                                const T* A, INT lda, long long int strideA, const T* B, INT ldb,  \
                                                long long int strideB, const T* beta, T* C, INT ldc,              \
                                                long long int strideC, INT batchCount) {                          \
    return gemm(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, TYPE, COMPUTE,                          \
                     strided(A, lda, strideA, TYPE), strided(B, ldb, strideB, TYPE),                              \
                     strided(C, ldc, strideC, TYPE), batchCount, false));                                         \
  }

STANDIN_TYPED_STRIDED(cublasSgemmStridedBatched, int, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_STRIDED(cublasSgemmStridedBatched_64, int64_t, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_STRIDED(cublasDgemmStridedBatched, int, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_STRIDED(cublasDgemmStridedBatched_64, int64_t, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_STRIDED(cublasCgemmStridedBatched, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_STRIDED(cublasCgemmStridedBatched_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_STRIDED(cublasZgemmStridedBatched, int, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_STRIDED(cublasZgemmStridedBatched_64, int64_t, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_STRIDED(cublasHgemmStridedBatched, int, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
STANDIN_TYPED_STRIDED(cublasHgemmStridedBatched_64, int64_t, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
STANDIN_TYPED_STRIDED(cublasCgemm3mStridedBatched, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_STRIDED(cublasCgemm3mStridedBatched_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)

// ---- typed pointer-array batches ---------------------------------------------------------------

#define STANDIN_TYPED_BATCHED(NAME, INT, T, TYPE, COMPUTE)                                                         \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                  \
                                                cublasOperation_t transb, INT m, INT n, INT k, const T* alpha,     \
                                                const T* const Aarray[], INT lda, const T* const Barray[], INT ldb, \
                                                const T* beta, T* const Carray[], INT ldc, INT batchCount) {       \
    return gemm(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, TYPE, COMPUTE,                           \
                     arrayed(as_array(Aarray), lda, TYPE), arrayed(as_array(Barray), ldb, TYPE),                   \
                     arrayed(as_array(Carray), ldc, TYPE), batchCount, true));                                     \
  }

STANDIN_TYPED_BATCHED(cublasSgemmBatched, int, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_BATCHED(cublasSgemmBatched_64, int64_t, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_BATCHED(cublasDgemmBatched, int, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_BATCHED(cublasDgemmBatched_64, int64_t, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_BATCHED(cublasCgemmBatched, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_BATCHED(cublasCgemmBatched_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_BATCHED(cublasZgemmBatched, int, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_BATCHED(cublasZgemmBatched_64, int64_t, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_BATCHED(cublasHgemmBatched, int, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
STANDIN_TYPED_BATCHED(cublasHgemmBatched_64, int64_t, __half, CUDA_R_16F, CUBLAS_COMPUTE_16F)
STANDIN_TYPED_BATCHED(cublasCgemm3mBatched, int, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_BATCHED(cublasCgemm3mBatched_64, int64_t, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)

// ---- mixed-type GEMMs with a fixed scale type: SgemmEx (float), CgemmEx / Cgemm3mEx (cuComplex) --

#define STANDIN_MIXED_GEMM(NAME, INT, T, SCALE)                                                                 \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                               \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, INT m, INT n, INT k,          \
      const T* alpha, const void* A, cudaDataType Atype, INT lda, const void* B, cudaDataType Btype, INT ldb,  \
      const T* beta, void* C, cudaDataType Ctype, INT ldc) {                                                   \
    return gemm(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, SCALE, CUBLAS_COMPUTE_32F,          \
                     strided(A, lda, 0, Atype), strided(B, ldb, 0, Btype), strided(C, ldc, 0, Ctype), 1, false)); \
  }

STANDIN_MIXED_GEMM(cublasSgemmEx, int, float, CUDA_R_32F)
STANDIN_MIXED_GEMM(cublasSgemmEx_64, int64_t, float, CUDA_R_32F)
STANDIN_MIXED_GEMM(cublasCgemmEx, int, cuComplex, CUDA_C_32F)
STANDIN_MIXED_GEMM(cublasCgemmEx_64, int64_t, cuComplex, CUDA_C_32F)
STANDIN_MIXED_GEMM(cublasCgemm3mEx, int, cuComplex, CUDA_C_32F)
STANDIN_MIXED_GEMM(cublasCgemm3mEx_64, int64_t, cuComplex, CUDA_C_32F)

// ---- cublasGemmEx family: compute type chosen by the caller ------------------------------------

#define STANDIN_GEMM_EX(NAME, INT)                                                                                  \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                                   \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, INT m, INT n, INT k,              \
      const void* alpha, const void* A, cudaDataType Atype, INT lda, const void* B, cudaDataType Btype, INT ldb,   \
      const void* beta, void* C, cudaDataType Ctype, INT ldc, cublasComputeType_t computeType,                     \
      cublasGemmAlgo_t algo) {                                                                                     \
    return gemm(ex_call(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, CUDA_R_32F, computeType,         \
                             strided(A, lda, 0, Atype), strided(B, ldb, 0, Btype), strided(C, ldc, 0, Ctype), 1,   \
                             false),                                                                               \
                        algo));                                                                                    \
  }

STANDIN_GEMM_EX(cublasGemmEx, int)
STANDIN_GEMM_EX(cublasGemmEx_64, int64_t)

#define STANDIN_GEMM_STRIDED_EX(NAME, INT)                                                                        \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                                 \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, INT m, INT n, INT k,            \
      const void* alpha, const void* A, cudaDataType Atype, INT lda, long long int strideA, const void* B,       \
      cudaDataType Btype, INT ldb, long long int strideB, const void* beta, void* C, cudaDataType Ctype, INT ldc, \
      long long int strideC, INT batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {           \
    return gemm(ex_call(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, CUDA_R_32F, computeType,       \
                             strided(A, lda, strideA, Atype), strided(B, ldb, strideB, Btype),                   \
                             strided(C, ldc, strideC, Ctype), batchCount, false),                                \
                        algo));                                                                                  \
  }

STANDIN_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
STANDIN_GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

#define STANDIN_GEMM_BATCHED_EX(NAME, INT)                                                                     \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                              \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, INT m, INT n, INT k,         \
      const void* alpha, const void* const Aarray[], cudaDataType Atype, INT lda, const void* const Barray[], \
      cudaDataType Btype, INT ldb, const void* beta, void* const Carray[], cudaDataType Ctype, INT ldc,       \
      INT batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {                               \
    return gemm(ex_call(call(#NAME, handle, transa, transb, m, n, k, alpha, beta, CUDA_R_32F, computeType,    \
                             arrayed(Aarray, lda, Atype), arrayed(Barray, ldb, Btype),                        \
                             arrayed(as_array(Carray), ldc, Ctype), batchCount, true),                        \
                        algo));                                                                               \
  }

STANDIN_GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
STANDIN_GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)

// ---- grouped batches ---------------------------------------------------------------------------

#define STANDIN_TYPED_GROUPED(NAME, INT, T, TYPE, COMPUTE)                                                            \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                                     \
      cublasHandle_t handle, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],         \
      const INT m_array[], const INT n_array[], const INT k_array[], const T alpha_array[], const T* const Aarray[], \
      const INT lda_array[], const T* const Barray[], const INT ldb_array[], const T beta_array[],                  \
      T* const Carray[], const INT ldc_array[], INT group_count, const INT group_size[]) {                          \
    return grouped<INT>(#NAME, handle, transa_array, transb_array, m_array, n_array, k_array, alpha_array,          \
                        as_array(Aarray), TYPE, lda_array, as_array(Barray), TYPE, ldb_array, beta_array,          \
                        as_array(Carray), TYPE, ldc_array, group_count, group_size, TYPE, COMPUTE);                 \
  }

STANDIN_TYPED_GROUPED(cublasSgemmGroupedBatched, int, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GROUPED(cublasSgemmGroupedBatched_64, int64_t, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
STANDIN_TYPED_GROUPED(cublasDgemmGroupedBatched, int, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)
STANDIN_TYPED_GROUPED(cublasDgemmGroupedBatched_64, int64_t, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)

#define STANDIN_GROUPED_EX(NAME, INT)                                                                                 \
  extern "C" STANDIN_EXPORT cublasStatus_t NAME(                                                                     \
      cublasHandle_t handle, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],         \
      const INT m_array[], const INT n_array[], const INT k_array[], const void* alpha_array,                       \
      const void* const Aarray[], cudaDataType_t Atype, const INT lda_array[], const void* const Barray[],           \
      cudaDataType_t Btype, const INT ldb_array[], const void* beta_array, void* const Carray[],                    \
      cudaDataType_t Ctype, const INT ldc_array[], INT group_count, const INT group_size[],                         \
      cublasComputeType_t computeType) {                                                                             \
    cudaDataType scale = CUDA_R_32F;                                                                                 \
    scale_type_for(computeType, Atype, Btype, Ctype, &scale);                                                        \
    return grouped<INT>(#NAME, handle, transa_array, transb_array, m_array, n_array, k_array, alpha_array, Aarray,  \
                        Atype, lda_array, Barray, Btype, ldb_array, beta_array, as_array(Carray), Ctype, ldc_array, \
                        group_count, group_size, scale, computeType);                                                \
  }

#if STANDIN_CUDA_MAJOR >= 13  // cublasGemmGroupedBatchedEx is new in cuBLAS 12.5: the 12.4 library lacks it
STANDIN_GROUPED_EX(cublasGemmGroupedBatchedEx, int)
STANDIN_GROUPED_EX(cublasGemmGroupedBatchedEx_64, int64_t)
#endif

// The legacy v1 API (cublas.h): no handle, scalars by value, void GEMMs whose status is read
// later with cublasGetError. cublas.h and cublas_v2.h cannot be included together (the v2
// header renames cublasSgemm to cublasSgemm_v2), hence this file of its own.
#include <cublas.h>
#include <cuda.h>

#include <atomic>
#include <mutex>

#include "cublas_gemm.h"
#include "cublas_handles.h"
#include "driver_link.h"

using namespace standin::blas;

namespace {

// The process-wide handle cublasInit creates and the v1 functions share.
std::mutex init_mutex;
std::atomic<standin::CublasHandle*> legacy_handle{nullptr};
std::atomic<int> legacy_error{CUBLAS_STATUS_SUCCESS};

void set_error(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) legacy_error.store(s);
}

bool to_op(char c, cublasOperation_t* op) {
  switch (c) {
    case 'N': case 'n': *op = CUBLAS_OP_N; return true;
    case 'T': case 't': *op = CUBLAS_OP_T; return true;
    case 'C': case 'c': *op = CUBLAS_OP_C; return true;
  }
  return false;
}

template <class T>
void legacy_gemm(const char* name, char transa, char transb, int m, int n, int k, T alpha, const T* A, int lda,
                 const T* B, int ldb, T beta, T* C, int ldc, cudaDataType type, cublasComputeType_t compute) {
  GemmCall g;
  g.name = name;
  g.fault = standin_enter(name);
  if (g.fault.fail) return set_error(static_cast<cublasStatus_t>(g.fault.status));
  standin::CublasHandle* h = legacy_handle.load();
  if (h == nullptr) return set_error(CUBLAS_STATUS_NOT_INITIALIZED);
  if (!to_op(transa, &g.transa) || !to_op(transb, &g.transb)) return set_error(CUBLAS_STATUS_INVALID_VALUE);
  g.handle = reinterpret_cast<cublasHandle_t>(h);
  g.m = m;
  g.n = n;
  g.k = k;
  g.alpha = &alpha;
  g.beta = &beta;
  g.scale_type = type;
  g.compute = compute;
  g.a = Operand{A, nullptr, lda, 0, type};
  g.b = Operand{B, nullptr, ldb, 0, type};
  g.c = Operand{C, nullptr, ldc, 0, type};
  g.scalars_on_host = true;
  set_error(gemm(g));
}

#define STANDIN_LEGACY_ENTRY(name)                        \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return static_cast<cublasStatus>(fault.status)

}  // namespace

extern "C" {

STANDIN_EXPORT cublasStatus cublasInit(void) {
  STANDIN_LEGACY_ENTRY("cublasInit");
  std::lock_guard lock(init_mutex);
  if (legacy_handle.load() != nullptr) return CUBLAS_STATUS_SUCCESS;
  standin::CublasHandle* h = nullptr;
  if (cublasStatus_t s = create_handle(&h); s != CUBLAS_STATUS_SUCCESS) return s;
  legacy_handle.store(h);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus cublasShutdown(void) {
  STANDIN_LEGACY_ENTRY("cublasShutdown");
  std::lock_guard lock(init_mutex);
  standin::CublasHandle* h = legacy_handle.exchange(nullptr);
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  destroy_handle(h);
  return CUBLAS_STATUS_SUCCESS;
}

// Returns and clears the error of the last v1 call that failed.
STANDIN_EXPORT cublasStatus cublasGetError(void) {
  STANDIN_LEGACY_ENTRY("cublasGetError");
  return static_cast<cublasStatus>(legacy_error.exchange(CUBLAS_STATUS_SUCCESS));
}

STANDIN_EXPORT cublasStatus cublasAlloc(int n, int elemSize, void** devicePtr) {
  STANDIN_LEGACY_ENTRY("cublasAlloc");
  if (legacy_handle.load() == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0 || elemSize <= 0 || devicePtr == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  CUdeviceptr p = 0;
  if (standin::driver_link()->cuMemAlloc(&p, static_cast<size_t>(n) * static_cast<size_t>(elemSize)) != CUDA_SUCCESS) {
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  *devicePtr = reinterpret_cast<void*>(p);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus cublasFree(void* devicePtr) {
  STANDIN_LEGACY_ENTRY("cublasFree");
  if (legacy_handle.load() == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (standin::driver_link()->cuMemFree(reinterpret_cast<CUdeviceptr>(devicePtr)) != CUDA_SUCCESS) {
    return CUBLAS_STATUS_INTERNAL_ERROR;
  }
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus cublasSetKernelStream(cudaStream_t stream) {
  STANDIN_LEGACY_ENTRY("cublasSetKernelStream");
  standin::CublasHandle* h = legacy_handle.load();
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT void cublasSgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda,
                                const float* B, int ldb, float beta, float* C, int ldc) {
  legacy_gemm("cublasSgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_R_32F,
              CUBLAS_COMPUTE_32F);
}

STANDIN_EXPORT void cublasDgemm(char transa, char transb, int m, int n, int k, double alpha, const double* A, int lda,
                                const double* B, int ldb, double beta, double* C, int ldc) {
  legacy_gemm("cublasDgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_R_64F,
              CUBLAS_COMPUTE_64F);
}

STANDIN_EXPORT void cublasCgemm(char transa, char transb, int m, int n, int k, cuComplex alpha, const cuComplex* A,
                                int lda, const cuComplex* B, int ldb, cuComplex beta, cuComplex* C, int ldc) {
  legacy_gemm("cublasCgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_C_32F,
              CUBLAS_COMPUTE_32F);
}

STANDIN_EXPORT void cublasZgemm(char transa, char transb, int m, int n, int k, cuDoubleComplex alpha,
                                const cuDoubleComplex* A, int lda, const cuDoubleComplex* B, int ldb,
                                cuDoubleComplex beta, cuDoubleComplex* C, int ldc) {
  legacy_gemm("cublasZgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_C_64F,
              CUBLAS_COMPUTE_64F);
}

}  // extern "C"

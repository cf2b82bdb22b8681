// The stand-in's stream-ordered allocations and cuBLAS's own workspace: STANDIN_CUBLAS_WORKSPACE
// makes a handle without a workspace of the program's allocate one at its first GEMM, with
// cuMemAllocAsync on its stream, counted in the device's memory (STANDIN_DEVICE_MEMORY), and
// ALLOC_FAILED when it does not fit.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdlib>

#include "selftest_check.h"

namespace {

void set(const char* variable, const char* value) { CHECK_EQ(setenv(variable, value, 1), 0); }

cublasStatus_t small_gemm(cublasHandle_t h, const float* a, const float* b, float* c) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2, b, 2, &beta, c, 2);
}

size_t free_memory() {
  size_t free_bytes = 0, total_bytes = 0;
  CHECK_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  CHECK_EQ(total_bytes, 1048576);
  return free_bytes;
}

}  // namespace

void run_library_workspace_case() {
  set("STANDIN_DEVICE_MEMORY", "1048576");
  set("STANDIN_CUBLAS_WORKSPACE", "524288");
  void *a = nullptr, *b = nullptr, *c = nullptr;
  for (void** p : {&a, &b, &c}) CHECK_EQ(cudaMalloc(p, 4 * sizeof(float)), cudaSuccess);
  const auto* fa = static_cast<const float*>(a);
  const auto* fb = static_cast<const float*>(b);
  auto* fc = static_cast<float*>(c);

  cublasHandle_t first = nullptr, second = nullptr;
  CHECK_EQ(cublasCreate(&first), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasCreate(&second), CUBLAS_STATUS_SUCCESS);
  const size_t before = free_memory();
  CHECK_EQ(small_gemm(first, fa, fb, fc), CUBLAS_STATUS_SUCCESS);
  CHECK(before - free_memory() >= 524288);  // the first GEMM allocated the workspace
  const size_t after = free_memory();
  CHECK_EQ(small_gemm(first, fa, fb, fc), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(free_memory(), after);  // once per handle
  // The second handle's does not fit in what is left.
  CHECK_EQ(small_gemm(second, fa, fb, fc), CUBLAS_STATUS_ALLOC_FAILED);
  // With a workspace of the program's, the library allocates none.
  void* workspace = nullptr;
  CHECK_EQ(cudaMalloc(&workspace, 4096), cudaSuccess);
  CHECK_EQ(cublasSetWorkspace(second, workspace, 4096), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(small_gemm(second, fa, fb, fc), CUBLAS_STATUS_SUCCESS);
  // Destroying the first handle gives its workspace back.
  const size_t held = free_memory();
  CHECK_EQ(cublasDestroy(first), CUBLAS_STATUS_SUCCESS);
  CHECK(free_memory() - held >= 524288);

  // The driver's and the pools' stream-ordered allocations.
  CUdeviceptr d = 0;
  CHECK_EQ(cuMemAllocAsync(&d, 2 << 20, nullptr), CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_EQ(cuMemAllocAsync(&d, 4096, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemFree(d), CUDA_SUCCESS);
  cudaMemPool_t pool = nullptr;
  CHECK_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  void* q = nullptr;
  CHECK_EQ(cudaMallocFromPoolAsync(&q, 4096, pool, nullptr), cudaSuccess);
  CHECK_EQ(cudaMallocFromPoolAsync(&q, 2 << 20, pool, nullptr), cudaErrorMemoryAllocation);
  CHECK_EQ(cublasDestroy(second), CUBLAS_STATUS_SUCCESS);
}

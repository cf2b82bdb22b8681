// One fp16 cublasGemmEx (fp32 compute), as PyTorch calls it for half matmuls. The stand-in's
// libcublas, like NVIDIA's, runs it through cublasLtMatmul called across the PLT, so a
// preloaded shim sees a cublasLtMatmul nested inside the cublasGemmEx.
// Prints the status and C[0] (expected 2: k = 2, all ones).
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace {

void* device_halves(size_t count, float value) {
  std::vector<__half> host(count, __float2half(value));
  void* p = nullptr;
  if (cudaMalloc(&p, count * sizeof(__half)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), count * sizeof(__half), cudaMemcpyHostToDevice);
  return p;
}

}  // namespace

int main() {
  constexpr int m = 4, n = 3, k = 2;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  void* a = device_halves(k * m, 1.0f);  // op(A) = A^T: stored k x m
  void* b = device_halves(k * n, 1.0f);
  void* c = device_halves(m * n, 0.0f);
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, a, CUDA_R_16F, k,
                                   b, CUDA_R_16F, k, &zero, c, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  __half c0 = __float2half(-1.0f);
  cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
  std::printf("cublasGemmEx %d c[0] %g\n", static_cast<int>(st), static_cast<double>(__half2float(c0)));
  cublasDestroy(handle);
  return st == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

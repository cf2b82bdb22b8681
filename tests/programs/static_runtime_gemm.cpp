// A cuBLAS program linked with the static CUDA runtime (libcudart_static.a, what nvcc's default
// -cudart static links): its cudaMalloc, cudaMemcpy and cudaFree run inside the executable,
// where an LD_PRELOAD shim cannot see them; only the cuBLAS calls reach libcublas.so and the
// shim. Built against the real CUDA 13 libraries; without a driver every call fails for real.
// Exit status 0 whatever the calls returned.
#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

int main() {
  float* d = nullptr;
  std::printf("cudaMalloc %d\n", static_cast<int>(cudaMalloc(reinterpret_cast<void**>(&d), 64 * sizeof(float))));
  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));
  const float one = 1.0f, zero = 0.0f;
  std::printf("cublasSgemm_v2 %d\n",
              static_cast<int>(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &zero, d, 4)));
  if (handle != nullptr) cublasDestroy(handle);
  if (d != nullptr) cudaFree(d);
  return 0;
}

// A subject for the handle setters that change nothing: CALLS rounds of what PyTorch does before
// each GEMM (set the stream, the workspace, the math mode, the pointer mode), then a
// cublasSgemm_v2 whose ldc = 4 + round tells the rounds apart. The values change now and then:
//   stream:       s1 in rounds 0-3, s2 in 4-7, s1 in 8-11, ... (a change every 4 rounds)
//   workspace:    the same buffer and size in every round (a change in round 0 only)
//   math mode:    CUBLAS_DEFAULT_MATH (the handle's own) before round CALLS/2, then
//                 CUBLAS_TF32_TENSOR_OP_MATH (one change)
//   pointer mode: CUBLAS_POINTER_MODE_HOST (the handle's own) in every round (no change)
// Prints the stream and workspace addresses ("s1 0x... s2 0x... ws 0x... bytes N") and a summary
// that does not depend on the shim.
//
//   setter_loop CALLS
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

namespace {

constexpr int kM = 4, kN = 3, kK = 2;
constexpr size_t kWorkspaceBytes = 1 << 20;

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 16;
  cublasHandle_t handle = nullptr;
  cudaStream_t s1 = nullptr, s2 = nullptr;
  void* workspace = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cudaStreamCreate(&s1) != cudaSuccess ||
      cudaStreamCreate(&s2) != cudaSuccess || cudaMalloc(&workspace, kWorkspaceBytes) != cudaSuccess) {
    std::printf("set-up failed\n");
    return 3;
  }
  std::printf("s1 %p s2 %p ws %p bytes %zu\n", static_cast<void*>(s1), static_cast<void*>(s2), workspace,
              kWorkspaceBytes);
  std::fflush(stdout);
  float* a = device_copy(std::vector<float>(kM * kK, 1.0f));
  float* b = device_copy(std::vector<float>(kK * kN, 1.0f));
  float* c = device_copy(std::vector<float>(static_cast<size_t>(kM + calls) * kN, 1.0f));
  const float alpha = 1.0f, beta = 0.0f;
  int failed = 0;
  for (int i = 0; i < calls; ++i) {
    failed += cublasSetStream(handle, (i / 4) % 2 == 0 ? s1 : s2) != CUBLAS_STATUS_SUCCESS;
    failed += cublasSetWorkspace(handle, workspace, kWorkspaceBytes) != CUBLAS_STATUS_SUCCESS;
    failed += cublasSetMathMode(handle, i < calls / 2 ? CUBLAS_DEFAULT_MATH : CUBLAS_TF32_TENSOR_OP_MATH) !=
              CUBLAS_STATUS_SUCCESS;
    failed += cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST) != CUBLAS_STATUS_SUCCESS;
    failed += cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c, kM + i) !=
              CUBLAS_STATUS_SUCCESS;
  }
  cudaDeviceSynchronize();
  std::printf("rounds %d failed %d\n", calls, failed);
  cublasDestroy(handle);
  return 0;
}

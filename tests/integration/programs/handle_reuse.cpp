// A subject for the shim's per-thread memory of the last handle it looked up: two handles used
// in turn, each with its own stream (set again before each GEMM), then the first destroyed and
// a new handle created. Each
// GEMM (ldc = 4 + its number) must carry its own handle's stream: A's s1, B's s2, and the new
// handle's default stream (0). (Whether the new handle lands at the destroyed one's address is
// the allocator's choice; unit.HandleLookUp covers that case.) Prints the addresses, then a
// summary that does not depend on the shim.
//
//   handle_reuse ROUNDS
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 4;
  cublasHandle_t a_handle = nullptr, b_handle = nullptr, c_handle = nullptr;
  cudaStream_t s1 = nullptr, s2 = nullptr;
  if (cublasCreate(&a_handle) != CUBLAS_STATUS_SUCCESS || cublasCreate(&b_handle) != CUBLAS_STATUS_SUCCESS ||
      cudaStreamCreate(&s1) != cudaSuccess || cudaStreamCreate(&s2) != cudaSuccess) {
    std::printf("set-up failed\n");
    return 3;
  }
  float* a = device_copy(std::vector<float>(kM * kK, 1.0f));
  float* b = device_copy(std::vector<float>(kK * kN, 1.0f));
  float* c = device_copy(std::vector<float>(static_cast<size_t>(kM + 2 * rounds + 1) * kN, 1.0f));
  const float alpha = 1.0f, beta = 0.0f;
  int failed = 0, gemm = 0;
  // Each GEMM is preceded by its handle's stream, set again (as PyTorch does): a setter on the
  // handle the thread did not use last.
  auto sgemm = [&](cublasHandle_t h, cudaStream_t stream) {
    failed += cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS;
    failed += cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c, kM + gemm++) !=
              CUBLAS_STATUS_SUCCESS;
  };
  failed += cublasSetStream(a_handle, s1) != CUBLAS_STATUS_SUCCESS;
  failed += cublasSetStream(b_handle, s2) != CUBLAS_STATUS_SUCCESS;
  for (int i = 0; i < rounds; ++i) {
    sgemm(a_handle, s1);
    sgemm(b_handle, s2);
  }
  failed += cublasDestroy(a_handle) != CUBLAS_STATUS_SUCCESS;
  failed += cublasCreate(&c_handle) != CUBLAS_STATUS_SUCCESS;
  sgemm(c_handle, nullptr);
  std::printf("a %p b %p c %p s1 %p s2 %p\n", static_cast<void*>(a_handle), static_cast<void*>(b_handle),
              static_cast<void*>(c_handle), static_cast<void*>(s1), static_cast<void*>(s2));
  cudaDeviceSynchronize();
  std::printf("gemms %d failed %d\n", gemm, failed);
  cublasDestroy(b_handle);
  cublasDestroy(c_handle);
  return 0;
}

// A program that fails the same call many times from one place and goes on, as programs that
// probe do (cuBLASLt heuristics, fallbacks after NOT_SUPPORTED, retry loops), then fails it
// once more from another place. With the stand-in's fault script failing every Sgemm
// (STANDIN_FAIL=cublasSgemm_v2:*:13). Linked with -rdynamic: dladdr names its functions.
//   diag_failure_storm [REPEATS]   (default 5000)
#include <cstdio>
#include <cstdlib>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace {
const float kAlpha = 1, kBeta = 0;
}

extern "C" __attribute__((noinline)) int probe_in_a_loop(cublasHandle_t handle, const float* a, float* c, int repeats) {
  int failed = 0;
  for (int i = 0; i < repeats; ++i) {
    failed += cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &kAlpha, a, 2, a, 2, &kBeta, c, 2) != 0;
  }
  return failed;
}

extern "C" __attribute__((noinline)) int multiply_once_more(cublasHandle_t handle, const float* a, float* c) {
  const int s = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &kAlpha, a, 2, a, 2, &kBeta, c, 2);
  asm volatile("");  // not a tail call
  return s;
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 5000;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  float *a = nullptr, *c = nullptr;
  if (cudaMalloc(&a, 16) != cudaSuccess || cudaMalloc(&c, 16) != cudaSuccess) return 4;
  const int failed = probe_in_a_loop(handle, a, c, repeats);
  const int last = multiply_once_more(handle, a, c);
  std::printf("failed %d of %d, then %d\n", failed, repeats, last);
  cublasDestroy(handle);
  return 0;
}

// The subject for the tests of other interposers beside the shim: three cudaMalloc, three
// cublasSgemm_v2 and one cudaDeviceSynchronize; with "events", CUDA events timed around them;
// with "xt", a cublasXtSgemm on host memory. Prints what it got, with nothing that depends on
// the shim (the tests compare the output with and without it).
//
//   interposed_calls [events] [xt]
#include <cstdio>
#include <cstring>
#include <vector>

#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

namespace {

bool has_arg(int argc, char** argv, const char* word) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], word) == 0) return true;
  }
  return false;
}

void timed_events() {
  cudaEvent_t start = nullptr, end = nullptr;
  const int created = static_cast<int>(cudaEventCreate(&start)) + static_cast<int>(cudaEventCreate(&end));
  const int recorded = static_cast<int>(cudaEventRecord(start, nullptr)) + static_cast<int>(cudaEventRecord(end, nullptr));
  const int synced = static_cast<int>(cudaEventSynchronize(end));
  const int queried = static_cast<int>(cudaEventQuery(end));
  float ms = -1;
  const int timed = static_cast<int>(cudaEventElapsedTime(&ms, start, end));
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  std::printf("events created %d recorded %d synchronized %d queried %d timed %d ms %s\n", created, recorded,
              synced, queried, timed, ms >= 0 ? "measured" : "none");
}

void xt_gemm() {
  cublasXtHandle_t xt = nullptr;
  const int created = static_cast<int>(cublasXtCreate(&xt));
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 0, 2};
  float c[4] = {0, 0, 0, 0};
  const float alpha = 1, beta = 0;
  const int status = static_cast<int>(cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2, b, 2, &beta, c, 2));
  cublasXtDestroy(xt);
  std::printf("xt created %d sgemm %d c %g %g %g %g\n", created, status, static_cast<double>(c[0]),
              static_cast<double>(c[1]), static_cast<double>(c[2]), static_cast<double>(c[3]));
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kM = 4, kN = 3, kK = 2;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 3;
  }
  float* a = device_copy(std::vector<float>(kM * kK, 1.0f));
  float* b = device_copy(std::vector<float>(kK * kN, 2.0f));
  float* c = device_copy(std::vector<float>(kM * kN, 0.0f));
  const float alpha = 1, beta = 1;
  int failed = 0;
  for (int i = 0; i < 3; ++i) {
    failed += cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c, kM) !=
              CUBLAS_STATUS_SUCCESS;
  }
  const int synced = static_cast<int>(cudaDeviceSynchronize());
  float c0 = 0;
  cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
  std::printf("gemms failed %d synchronized %d c[0] %g\n", failed, synced, static_cast<double>(c0));
  if (has_arg(argc, argv, "events")) timed_events();
  if (has_arg(argc, argv, "xt")) xt_gemm();
  cublasDestroy(handle);
  return 0;
}

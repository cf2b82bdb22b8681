// The workhorse subject: one handle, device operands, CALLS cublasSgemm_v2 of shape 4x3x2. The
// i-th call (from 0) passes ldc = 4 + i, so a test can tell from a record which call it is.
// Faults come from the stand-in's environment (STANDIN_FAIL, STANDIN_CRASH, STANDIN_HANG).
//
//   sgemm_loop CALLS [host|device] [abort]
//
// With SGEMM_LOOP_CHDIR=DIR in its environment, it changes its working directory to DIR after
// creating its handle (the shim has opened its trace by then).
// host (default): alpha = 2, beta = 0.5 in host memory; device: CUBLAS_POINTER_MODE_DEVICE with
// alpha/beta in device memory. abort: the program calls abort() itself after the loop.
// Prints a summary that does not depend on the shim (tests compare it with and without).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

}  // namespace

int main(int argc, char** argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 1;
  bool device_scalars = argc > 2 && std::strcmp(argv[2], "device") == 0;
  bool abort_at_end = argc > 3 && std::strcmp(argv[3], "abort") == 0;

  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 3;
  }
  if (const char* dir = std::getenv("SGEMM_LOOP_CHDIR"); dir != nullptr && chdir(dir) != 0) {
    std::printf("chdir %s failed\n", dir);
    return 3;
  }
  int max_ldc = kM + calls;
  float* a = device_copy(std::vector<float>(kM * kK, 1.0f));
  float* b = device_copy(std::vector<float>(kK * kN, 1.0f));
  float* c = device_copy(std::vector<float>(static_cast<size_t>(max_ldc) * kN, 1.0f));
  const float host_alpha = 2.0f, host_beta = 0.5f;
  const float* alpha = &host_alpha;
  const float* beta = &host_beta;
  if (device_scalars) {
    alpha = device_copy({host_alpha});
    beta = device_copy({host_beta});
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
  }

  int failed = 0;
  for (int i = 0; i < calls; ++i) {
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, alpha, a, kM, b,
                                    kK, beta, c, kM + i);
    if (st != CUBLAS_STATUS_SUCCESS) {
      ++failed;
      std::printf("call %d status %d\n", i, static_cast<int>(st));
    }
  }
  float c0 = 0;
  cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
  std::printf("calls %d failed %d c[0] %g\n", calls, failed, static_cast<double>(c0));
  std::fflush(stdout);
  if (abort_at_end) std::abort();
  cublasDestroy(handle);
  return 0;
}

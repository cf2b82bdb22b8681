// GEMMs in two phases with a pause between them, so a test can act on the trace file while the
// process runs (truncate it, delete it) and then let the program go on. The i-th GEMM passes
// ldc = 4 + i.
//
//   phased_calls CALLS_BEFORE GO_FILE CALLS_AFTER
//
// Between the phases it waits (at most 60 s) for GO_FILE to exist. Prints "phase 1 done", then
// "calls N failed F" at the end: the same with and without the shim.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

float* device_ones(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> ones(floats, 1.0f);
  cudaMemcpy(p, ones.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const int before = std::atoi(argv[1]), after = std::atoi(argv[3]);
  const char* go = argv[2];
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  const int total = before + after;
  float* a = device_ones(kM * kK);
  float* b = device_ones(kK * kN);
  float* c = device_ones(static_cast<size_t>(kM + total) * kN);
  const float alpha = 1.0f, beta = 0.0f;
  int failed = 0;
  auto gemm = [&](int i) {
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c,
                    kM + i) != CUBLAS_STATUS_SUCCESS) {
      ++failed;
    }
  };
  for (int i = 0; i < before; ++i) gemm(i);
  std::printf("phase 1 done\n");
  std::fflush(stdout);
  for (int waited = 0; access(go, F_OK) != 0 && waited < 60000; ++waited) usleep(1000);
  for (int i = before; i < total; ++i) gemm(i);
  float c0 = 0;
  cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
  std::printf("calls %d failed %d c[0] %g\n", total, failed, static_cast<double>(c0));
  cublasDestroy(handle);
  return failed == 0 ? 0 : 1;
}

// The parent initializes cuBLAS (a handle and one GEMM with m = 5), then forks. The child makes
// its own calls (device count, a handle, a GEMM with m = 7) and exits; the parent waits, then
// makes one more GEMM with m = 5. Each process's trace must hold its own calls only.
// Prints "parent PID child PID".
//
//   fork_after_init [exit STATUS]
//
// The child ends with _exit(0) (no exit handler runs, as a forked worker usually ends); with
// `exit STATUS`, with exit(STATUS) once its calls succeeded (its exit handlers run).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kMaxM = 8, kN = 2, kK = 2;

float* device_ones(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> ones(floats, 1.0f);
  cudaMemcpy(p, ones.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

cublasStatus_t gemm(cublasHandle_t h, int m, float* a, float* b, float* c) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, kN, kK, &alpha, a, m, b, kK, &beta, c, m);
}

}  // namespace

int main(int argc, char** argv) {
  const bool by_exit = argc == 3 && std::strcmp(argv[1], "exit") == 0;
  const int child_status = by_exit ? std::atoi(argv[2]) : 0;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  float* a = device_ones(kMaxM * kK);
  float* b = device_ones(kK * kN);
  float* c = device_ones(kMaxM * kN);
  if (gemm(handle, 5, a, b, c) != CUBLAS_STATUS_SUCCESS) return 4;
  std::fflush(stdout);

  pid_t child = fork();
  if (child == 0) {
    int count = 0;
    cudaGetDeviceCount(&count);
    cublasHandle_t mine = nullptr;
    if (cublasCreate(&mine) != CUBLAS_STATUS_SUCCESS) _exit(5);
    if (gemm(mine, 7, a, b, c) != CUBLAS_STATUS_SUCCESS) _exit(6);
    if (by_exit) std::exit(child_status);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  cublasStatus_t again = gemm(handle, 5, a, b, c);
  std::printf("parent %d child %d\n", static_cast<int>(getpid()), static_cast<int>(child));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != child_status) return 7;
  return again == CUBLAS_STATUS_SUCCESS ? 0 : 8;
}

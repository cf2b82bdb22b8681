// A traced process that starts another program with fork + exec: the new program runs under
// the shim too (it inherits LD_PRELOAD) and must write its own trace, as a process of its own,
// while the parent's trace keeps only the parent's calls.
//
//   exec_child PROGRAM [ARGS...]
//
// The parent makes one GEMM (m = 1) before and one after. Prints "parent P child C exit S".
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

bool gemm(cublasHandle_t h, float* a, float* b, float* c) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, a, 1, b, 1, &beta, c, 1) ==
         CUBLAS_STATUS_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, 4);
  cudaMalloc(&b, 4);
  cudaMalloc(&c, 4);
  float *fa = static_cast<float*>(a), *fb = static_cast<float*>(b), *fc = static_cast<float*>(c);
  if (!gemm(handle, fa, fb, fc)) return 4;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  bool again = gemm(handle, fa, fb, fc);
  std::printf("parent %d child %d exit %d\n", static_cast<int>(getpid()), static_cast<int>(pid),
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  cublasDestroy(handle);
  return again && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

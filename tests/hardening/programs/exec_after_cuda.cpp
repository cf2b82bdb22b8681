// A traced process that uses CUDA and then execs, in the ways a program does:
//
//   exec_after_cuda execl TARGET       one GEMM, then execl(TARGET, TARGET, "from-execl", NULL)
//   exec_after_cuda execvp FILE        one GEMM, then execvp(FILE, {FILE, NULL}) (a PATH search)
//   exec_after_cuda failed PATH        one GEMM, execv(PATH) fails, one more GEMM, exit 0
//   exec_after_cuda vfork TARGET       one GEMM, a vfork child execs TARGET, one more GEMM, exit 0
//
// Prints "pid P" first; "exec failed E" after a failed exec; "vfork child C exit S".
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
  if (argc != 3) return 2;
  const char* mode = argv[1];
  const char* target = argv[2];
  std::printf("pid %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, 4);
  cudaMalloc(&b, 4);
  cudaMalloc(&c, 4);
  float *fa = static_cast<float*>(a), *fb = static_cast<float*>(b), *fc = static_cast<float*>(c);
  if (!gemm(handle, fa, fb, fc)) return 4;

  if (std::strcmp(mode, "execl") == 0) {
    execl(target, target, "from-execl", static_cast<char*>(nullptr));
    return 5;
  }
  if (std::strcmp(mode, "execvp") == 0) {
    char* const args[] = {const_cast<char*>(target), nullptr};
    execvp(target, args);
    return 5;
  }
  if (std::strcmp(mode, "failed") == 0) {
    char* const args[] = {const_cast<char*>(target), nullptr};
    execv(target, args);
    std::printf("exec failed %d\n", errno);
    return gemm(handle, fa, fb, fc) ? 0 : 6;
  }
  if (std::strcmp(mode, "vfork") == 0) {
    pid_t pid = vfork();
    if (pid == 0) {
      execl(target, target, static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("vfork child %d exit %d\n", static_cast<int>(pid), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    const bool again = gemm(handle, fa, fb, fc);
    cublasDestroy(handle);
    return again ? 0 : 6;
  }
  return 2;
}

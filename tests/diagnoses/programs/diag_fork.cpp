// What a PyTorch DataLoader worker does when a dataset touches CUDA: the process forks, and the
// child makes cuBLAS calls of its own.
//
//   diag_fork after-init    the parent initializes CUDA and cuBLAS, then forks; the child
//                           creates a handle and runs a GEMM (the unsafe pattern)
//   diag_fork before-init   the parent forks first; child and parent then each initialize
//                           CUDA on their own (the safe pattern)
//   diag_fork loaded-only   the parent loads libcublas (as `import torch` loads the CUDA
//                           libraries) but initializes nothing before forking; then as before-init
//
// The parent waits for the child and exits 0; the child's statuses are printed with "child".
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

void use_cublas(const char* who) {
  int count = -1;
  std::printf("%s cudaGetDeviceCount %d\n", who, static_cast<int>(cudaGetDeviceCount(&count)));
  cublasHandle_t handle = nullptr;
  std::printf("%s cublasCreate_v2 %d\n", who, static_cast<int>(cublasCreate(&handle)));
  // A, B and C: three 2 x 2 matrices in one allocation.
  std::vector<float> host(12, 1.0f);
  float* d = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&d), host.size() * sizeof(float)) == cudaSuccess) {
    cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  }
  const float one = 1.0f, zero = 0.0f;
  float* a = d;
  float* b = d ? d + 4 : nullptr;
  float* c = d ? d + 8 : nullptr;
  std::printf("%s cublasSgemm_v2 %d\n", who,
              static_cast<int>(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a, 2, b,
                                           2, &zero, c, 2)));
  cublasDestroy(handle);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool after_init = argc > 1 && std::strcmp(argv[1], "after-init") == 0;
  const bool loaded_only = argc > 1 && std::strcmp(argv[1], "loaded-only") == 0;
  if (after_init) use_cublas("parent");
  if (loaded_only) std::printf("parent dlopen %s\n", dlopen("libcublas.so.13", RTLD_NOW) ? "loaded" : dlerror());
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    use_cublas("child");
    _exit(0);
  }
  if (!after_init) use_cublas("parent");
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return 0;
}

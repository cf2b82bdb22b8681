// Loads a second libcublas into a process that already has one (linked at start): what happens
// when a framework's wheel brings its own cuBLAS while LD_LIBRARY_PATH or the system provides
// another. The second copy is dlopen'ed by path, as frameworks' loaders do.
//
//   diag_second_cublas [PATH]   PATH: the second libcublas (omit it: nothing extra is loaded)
//
// Then it creates a handle through the linked library, so the shim records the loaded set.
#include <dlfcn.h>

#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

int main(int argc, char** argv) {
  int count = -1;
  std::printf("cudaGetDeviceCount %d\n", static_cast<int>(cudaGetDeviceCount(&count)));
  if (argc > 1) {
    void* second = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    std::printf("dlopen %s: %s\n", argv[1], second ? "loaded" : dlerror());
  }
  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));
  if (handle != nullptr) cublasDestroy(handle);
  return 0;
}

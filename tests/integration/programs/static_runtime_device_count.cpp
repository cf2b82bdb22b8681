// Linked with the STATIC CUDA runtime (libcudart_static.a, nvcc's default): cudaGetDeviceCount
// is a local symbol here, and the runtime reaches the driver only through
// dlopen("libcuda.so.1") + cuGetProcAddress_v2.
#include <cstdio>

#include <cuda_runtime_api.h>

int main() {
  int count = -1;
  cudaError_t status = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount %d count %d\n", static_cast<int>(status), count);
  return 0;
}

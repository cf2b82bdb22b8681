// A kernel of the program's own, launched once: what the build carries for the GPU decides
// whether it can run. Built by nvcc three ways (tests/diagnoses/diagnoses.cmake): for sm_80 with
// compute_100 PTX, nothing a GPU of compute capability 9.0 runs; for sm_80 with compute_90 PTX,
// which it runs once the driver compiles the PTX; for sm_80 and sm_90, which it runs. On the
// stand-in (a 9.0 device that runs no device code) the launch fails every way with
// cudaErrorNoKernelImageForDevice, as on a GPU the build has no code for; the program reports it
// as PyTorch does, asking for its text.
// Also the unit tests' real fatbins (nvcc -fatbin of this file). Prints the status; exit 1 on
// a failed launch.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void double_all(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}

int main() {
  float* x = nullptr;
  if (cudaMalloc(&x, 4 * sizeof(float)) != cudaSuccess) return 2;
  double_all<<<1, 4>>>(x, 4);
  const cudaError_t e = cudaGetLastError();
  std::printf("launch: %s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  cudaFree(x);
  return e == cudaSuccess ? 0 : 1;
}

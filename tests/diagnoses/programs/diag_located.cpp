// A failing (or, with the stand-in's fault script, crashing) cublasSgemm made two functions
// below main, so that a trace's native location can name its caller. Linked with -rdynamic:
// dladdr names only exported symbols. Prints the Sgemm's status.
#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime.h>

extern "C" __attribute__((noinline)) int multiply_in_layer(cublasHandle_t handle, const float* a, float* c) {
  const float alpha = 1, beta = 0;
  cublasStatus_t s = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2, a, 2, &beta, c, 2);
  std::printf("cublasSgemm_v2 %d\n", static_cast<int>(s));
  return static_cast<int>(s);
}

extern "C" __attribute__((noinline)) int run_model(cublasHandle_t handle, const float* a, float* c) {
  int s = multiply_in_layer(handle, a, c);
  asm volatile("");  // not a tail call: run_model stays on the stack
  return s;
}

int main() {
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  float *a = nullptr, *c = nullptr;
  if (cudaMalloc(&a, 16) != cudaSuccess || cudaMalloc(&c, 16) != cudaSuccess) return 4;
  const int s = run_model(handle, a, c);
  cublasDestroy(handle);
  return s == 0 ? 0 : 1;
}

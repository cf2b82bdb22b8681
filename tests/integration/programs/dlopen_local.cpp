// Uses cuBLAS the way Python ctypes, TensorFlow and JAX do: no link to any CUDA library, a
// dlopen with RTLD_LOCAL and calls through dlsym'd pointers, which a preloaded definition
// alone never sees. Runs on the stand-in; prints C, which must be the same with the shim.
#include <dlfcn.h>

#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

int main() {
  void* cublas = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
  void* cudart = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  if (cublas == nullptr || cudart == nullptr) {
    std::printf("dlopen failed: %s\n", dlerror());
    return 2;
  }
  auto create = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t*)>(dlsym(cublas, "cublasCreate_v2"));
  auto sgemm = reinterpret_cast<decltype(&cublasSgemm_v2)>(dlsym(cublas, "cublasSgemm_v2"));
  auto destroy = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t)>(dlsym(cublas, "cublasDestroy_v2"));
  auto device_malloc = reinterpret_cast<cudaError_t (*)(void**, size_t)>(dlsym(cudart, "cudaMalloc"));
  auto copy = reinterpret_cast<decltype(&cudaMemcpy)>(dlsym(cudart, "cudaMemcpy"));
  if (!create || !sgemm || !destroy || !device_malloc || !copy) return 3;

  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(create(&handle)));
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1};
  float c[4] = {};
  void *da = nullptr, *db = nullptr, *dc = nullptr;
  device_malloc(&da, sizeof a);
  device_malloc(&db, sizeof b);
  device_malloc(&dc, sizeof c);
  copy(da, a, sizeof a, cudaMemcpyHostToDevice);
  copy(db, b, sizeof b, cudaMemcpyHostToDevice);
  copy(dc, c, sizeof c, cudaMemcpyHostToDevice);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, static_cast<float*>(da), 2,
                            static_cast<float*>(db), 2, &beta, static_cast<float*>(dc), 2);
  copy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  std::printf("cublasSgemm_v2 %d c %g %g %g %g\n", static_cast<int>(st), static_cast<double>(c[0]),
              static_cast<double>(c[1]), static_cast<double>(c[2]), static_cast<double>(c[3]));
  destroy(handle);
  return 0;
}

// One GEMM whose input matrices hold a recognizable byte pattern ("cublasspy-secret", repeated),
// so a test can search every file the shim wrote for the program's data: the trace records
// arguments and addresses, never operand contents unless dumps are asked for.
//
//   secret_operands
//
// Prints "status S".
#include <cstdio>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr char kPattern[] = "cublasspy-secret";  // 16 bytes: four floats, all finite
constexpr int kM = 8, kN = 8, kK = 8;

float* device_pattern(size_t floats) {
  std::vector<float> host(floats);
  for (size_t i = 0; i < floats; ++i) std::memcpy(&host[i], kPattern + (i % 4) * 4, 4);
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

}  // namespace

int main() {
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  float* a = device_pattern(kM * kK);
  float* b = device_pattern(kK * kN);
  void* c = nullptr;
  cudaMalloc(&c, kM * kN * sizeof(float));
  cudaMemset(c, 0, kM * kN * sizeof(float));
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b,
                                  kK, &beta, static_cast<float*>(c), kM);
  std::printf("status %d\n", static_cast<int>(st));
  cublasDestroy(handle);
  return st == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

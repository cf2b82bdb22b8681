// Uses the handle that create_in_constructor's constructor made before main: one Sgemm with
// host scalars, so the record shows whether the shim registered the handle made that early.
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

extern "C" cublasHandle_t early_handle();
extern "C" int early_status();

int main() {
  std::printf("constructor cublasCreate_v2 %d\n", early_status());
  if (early_status() != 0) return 2;
  std::vector<float> ones(4, 1.0f);
  void *a = nullptr, *c = nullptr;
  cudaMalloc(&a, 4 * sizeof(float));
  cudaMalloc(&c, 4 * sizeof(float));
  cudaMemcpy(a, ones.data(), 4 * sizeof(float), cudaMemcpyHostToDevice);
  const float alpha = 3.0f, beta = 0.0f;
  cublasStatus_t st = cublasSgemm(early_handle(), CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, static_cast<float*>(a),
                                  2, static_cast<float*>(a), 2, &beta, static_cast<float*>(c), 2);
  float c0 = 0;
  cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
  std::printf("cublasSgemm_v2 %d c[0] %g\n", static_cast<int>(st), static_cast<double>(c0));
  return st == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

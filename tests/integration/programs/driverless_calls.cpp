// Runs against the REAL CUDA 13 libraries on a machine without a driver, where every call
// fails for real: device enumeration (35, count unwritten), the driver version, handle
// creation (1) and a GEMM on the null handle that creation left (1). With the argument
// `garbage` it then passes a made-up handle to the real cublasSgemm_v2, which dereferences it
// and dies of SIGSEGV inside cuBLAS: the crash a post-mortem must pin on that call.
// Prints what each call returned, so a test can compare with the trace.
#include <cstdio>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

int main(int argc, char** argv) {
  int count = -7;
  cudaError_t count_status = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount %d count %d\n", static_cast<int>(count_status), count);

  int driver = -7;
  cudaError_t driver_status = cudaDriverGetVersion(&driver);
  std::printf("cudaDriverGetVersion %d version %d\n", static_cast<int>(driver_status), driver);

  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));

  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t null_handle = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2,
                                           b, 2, &beta, c, 2);
  std::printf("cublasSgemm_v2 %d\n", static_cast<int>(null_handle));
  std::fflush(stdout);

  if (argc > 1 && std::strcmp(argv[1], "garbage") == 0) {
    auto garbage = reinterpret_cast<cublasHandle_t>(0x1234);
    cublasStatus_t st = cublasSgemm(garbage, CUBLAS_OP_N, CUBLAS_OP_N, 3, 5, 7, &alpha, a, 3, b, 7,
                                    &beta, c, 3);
    std::printf("garbage handle returned %d\n", static_cast<int>(st));  // not reached on cuBLAS
  }
  return 0;
}

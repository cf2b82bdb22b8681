// A program that reports the CUDA and cuBLAS errors it meets, as frameworks do: it asks for the
// code's text (cudaGetErrorString, cudaGetErrorName, cublasGetStatusString) and prints it.
//
//   diag_reported event      cudaEventRecord fails (STANDIN_FAIL): a call the shim does not hook
//   diag_reported handled    the same, and the program goes on and exits 0
//   diag_reported capture    cudaStreamBeginCapture fails (STANDIN_FAIL): a launch-ring entry
//   diag_reported attribute  cudaFuncSetAttribute fails (STANDIN_FAIL): a call the shim records
//   diag_reported cublas     reports CUBLAS_STATUS_EXECUTION_FAILED that no recorded call returned
//   diag_reported success    asks for the texts of success only, then exits 0
//
// Exits 1 after reporting an error (but `handled`), 0 when there was none.
#include <cstdio>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

// Exported (-rdynamic): the report names where the error was reported.
extern "C" __attribute__((noinline)) int report_cuda_error(const char* what, cudaError_t err) {
  std::fprintf(stderr, "%s failed: %s (%s)\n", what, cudaGetErrorString(err), cudaGetErrorName(err));
  return 1;
}

extern "C" __attribute__((noinline)) int report_cublas_error(const char* what, cublasStatus_t status) {
  std::fprintf(stderr, "%s failed: %s (%s)\n", what, cublasGetStatusString(status), cublasGetStatusName(status));
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* mode = argv[1];
  void* buffer = nullptr;
  if (cudaError_t err = cudaMalloc(&buffer, 64); err != cudaSuccess) return report_cuda_error("cudaMalloc", err);
  if (std::strcmp(mode, "event") == 0) {
    cudaEvent_t event = nullptr;
    if (cudaError_t err = cudaEventCreate(&event); err != cudaSuccess) return report_cuda_error("cudaEventCreate", err);
    if (cudaError_t err = cudaEventRecord(event, nullptr); err != cudaSuccess) return report_cuda_error("cudaEventRecord", err);
    return 0;
  }
  if (std::strcmp(mode, "handled") == 0) {
    cudaEvent_t event = nullptr;
    if (cudaError_t err = cudaEventCreate(&event); err != cudaSuccess) return report_cuda_error("cudaEventCreate", err);
    if (cudaError_t err = cudaEventRecord(event, nullptr); err != cudaSuccess) {
      report_cuda_error("cudaEventRecord (going on without the event)", err);
    }
    return 0;
  }
  if (std::strcmp(mode, "capture") == 0) {
    cudaStream_t stream = nullptr;
    if (cudaError_t err = cudaStreamCreate(&stream); err != cudaSuccess) return report_cuda_error("cudaStreamCreate", err);
    if (cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal); err != cudaSuccess) {
      return report_cuda_error("cudaStreamBeginCapture", err);
    }
    return 0;
  }
  if (std::strcmp(mode, "attribute") == 0) {
    cudaError_t err = cudaFuncSetAttribute(reinterpret_cast<const void*>(&report_cuda_error),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    return err != cudaSuccess ? report_cuda_error("cudaFuncSetAttribute", err) : 0;
  }
  if (std::strcmp(mode, "cublas") == 0) return report_cublas_error("the library", CUBLAS_STATUS_EXECUTION_FAILED);
  if (std::strcmp(mode, "success") == 0) {
    std::printf("%s / %s / %s\n", cudaGetErrorString(cudaSuccess), cudaGetErrorName(cudaSuccess),
                cublasGetStatusString(CUBLAS_STATUS_SUCCESS));
    return 0;
  }
  return 2;
}

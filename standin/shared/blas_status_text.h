// cublasStatus_t names and strings, as the real cuBLAS and cuBLASLt print them (checked against
// cublasGetStatusName / cublasGetStatusString of the CUDA 13 libraries, which work driverless).
// The names are cublas_api.h's (cuda_enum_names.h); the strings are the libraries' own, which
// no header holds.
#pragma once

#include <cublas_api.h>

#include "cuda_enum_names.h"

namespace standin {

inline const char* blas_status_name(cublasStatus_t status) {
  const char* name = blas_status_enum_name(status);
  return name ? name : "unrecognized status";
}

inline const char* blas_status_string(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an unsupported value or parameter was passed to the function";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "the function requires an architectural feature absent from the device";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the function failed to launch on the GPU";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the requested functionality is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "the license check failed";
  }
  return "unrecognized status";
}

}  // namespace standin

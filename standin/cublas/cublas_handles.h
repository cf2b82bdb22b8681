// Creating and destroying the stand-in's cuBLAS handles, shared by the v2 API (cublasCreate_v2)
// and the legacy v1 API (cublasInit keeps one handle for the process).
#pragma once

#include <cublas_api.h>

#include "blas_handles.h"

namespace standin::blas {

// Initializes the driver the way libcublas's static runtime does (cuInit, a current context)
// and allocates a handle bound to the current device; NOT_INITIALIZED without a usable driver.
cublasStatus_t create_handle(CublasHandle** out);
void destroy_handle(CublasHandle* handle);

// cuBLAS 12.2 and later, given no workspace of the program's (cublasSetWorkspace), allocate
// their own at a handle's first GEMM, stream-ordered (cuMemAllocAsync through the driver, outside
// any framework's allocator). The stand-in does so when STANDIN_CUBLAS_WORKSPACE gives a size
// in bytes (none by default); ALLOC_FAILED when the device has no room for it.
// Inline, so that a GEMM without it pays a compare.
cublasStatus_t allocate_library_workspace(CublasHandle& handle);
inline cublasStatus_t ensure_library_workspace(CublasHandle& handle) {
  if (handle.library_workspace_bytes == 0 || handle.workspace != nullptr || handle.library_workspace != nullptr) {
    return CUBLAS_STATUS_SUCCESS;
  }
  return allocate_library_workspace(handle);
}

}  // namespace standin::blas

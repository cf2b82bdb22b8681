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

}  // namespace standin::blas

// The null stack's v2 cuBLAS, cuBLASLt, runtime and driver functions (null_functions.h); built
// once per library with NULL_CUDA_<LIB> set.
#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "launch_tags.h"
#include "null_functions.h"

CUBLASSPY_HOOKS(NULL_DEFINE)
// The launch ring's 2D, 3D, peer, symbol, array and batched copies and memsets, for a program
// that calls the driver's with no driver here (programs/async_copies_driver.cpp).
CBS_ASYNC_COPY_HOOKS(NULL_DEFINE)

#if defined(NULL_CUDA_CUBLASLT)
// Not hooked, but the shim asks them about descriptors it never saw being made (the made-up
// ones of the round trip): "nothing known", without touching the descriptor. Without them the
// shim would search for them in every loaded library on each such call.
extern "C" __attribute__((visibility("default"))) cublasStatus_t cublasLtMatmulDescGetAttribute(
    cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, void*, size_t, size_t*) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
extern "C" __attribute__((visibility("default"))) cublasStatus_t cublasLtMatrixLayoutGetAttribute(
    cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, void*, size_t, size_t*) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
#endif

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
CBS_RUNTIME_BATCH_HOOKS(NULL_DEFINE)  // CUDA 13's prototype: this is libcudart.so.13

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

#if defined(NULL_CUDA_DRIVER)
#include <cstring>
// cuGetProcAddress for those copies and memsets only, as the driver answers their unversioned
// names: from CUDA 13 on the _v2 functions, and the _ptsz forms for the per-thread flag; for an
// older version asked, the batches' CUDA 12.8 functions of those names, with failIdx. Any other
// name is not found (a null function, success, as cuGetProcAddress_v2 reports a miss).
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int cuda_version, cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  struct Entry {
    const char* name;
    void* fn;
    void* per_thread;
    void* before_13 = nullptr;  // what an older version gets, where that differs
    void* before_13_per_thread = nullptr;
  };
  const auto a = [](auto f) { return reinterpret_cast<void*>(f); };
  const Entry table[] = {
      {"cuMemcpy2DAsync", a(&cuMemcpy2DAsync_v2), a(&cuMemcpy2DAsync_v2_ptsz)},
      {"cuMemcpy3DAsync", a(&cuMemcpy3DAsync_v2), a(&cuMemcpy3DAsync_v2_ptsz)},
      {"cuMemcpyPeerAsync", a(&cuMemcpyPeerAsync), a(&cuMemcpyPeerAsync_ptsz)},
      {"cuMemsetD2D8Async", a(&cuMemsetD2D8Async), a(&cuMemsetD2D8Async_ptsz)},
      {"cuMemsetD2D16Async", a(&cuMemsetD2D16Async), a(&cuMemsetD2D16Async_ptsz)},
      {"cuMemsetD2D32Async", a(&cuMemsetD2D32Async), a(&cuMemsetD2D32Async_ptsz)},
      {"cuMemcpyBatchAsync", a(&cuMemcpyBatchAsync_v2), a(&cuMemcpyBatchAsync_v2_ptsz), a(&cuMemcpyBatchAsync),
       a(&cuMemcpyBatchAsync_ptsz)},
      {"cuMemcpy3DPeerAsync", a(&cuMemcpy3DPeerAsync), a(&cuMemcpy3DPeerAsync_ptsz)},
      {"cuMemcpy3DBatchAsync", a(&cuMemcpy3DBatchAsync_v2), a(&cuMemcpy3DBatchAsync_v2_ptsz),
       a(&cuMemcpy3DBatchAsync), a(&cuMemcpy3DBatchAsync_ptsz)},
  };
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  for (const Entry& e : table) {
    if (std::strcmp(e.name, symbol) != 0) continue;
    const bool older = cuda_version < 13000 && e.before_13 != nullptr;
    *pfn = older ? (per_thread ? e.before_13_per_thread : e.before_13) : (per_thread ? e.per_thread : e.fn);
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  }
  return CUDA_SUCCESS;
}
#endif

// libcublas's non-GEMM v2 API: handles and their settings, versions, status strings.
#include <cublas_v2.h>

#include <cstdlib>

#include "blas_handles.h"
#include "blas_status_text.h"
#include "cublas_handles.h"
#include "driver_link.h"
#include "stack_version.h"
#include "standin_private.h"

using standin::CublasHandle;

cublasStatus_t standin::blas::create_handle(CublasHandle** out) {
  int device = 0;
  if (!bind_library_context(&device)) return CUBLAS_STATUS_NOT_INITIALIZED;
  // cuBLAS allocates device memory for the handle; on a context an earlier kernel's fault has
  // poisoned, that fails with the sticky error, which cuBLAS reports as NOT_INITIALIZED.
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_NOT_INITIALIZED;
  static const size_t library_workspace_bytes = [] {
    const char* v = std::getenv("STANDIN_CUBLAS_WORKSPACE");
    return v != nullptr ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : size_t{0};
  }();
  auto* h = new CublasHandle;
  h->device = device;
  h->library_workspace_bytes = library_workspace_bytes;
  *out = h;
  return CUBLAS_STATUS_SUCCESS;
}

void standin::blas::destroy_handle(CublasHandle* h) {
  if (h->library_workspace != nullptr) {
    standin::driver_link()->cuMemFree(reinterpret_cast<CUdeviceptr>(h->library_workspace));
  }
  h->magic = kDeadMagic;  // a later use of the handle crashes instead of working by accident
  delete h;
}

cublasStatus_t standin::blas::allocate_library_workspace(CublasHandle& h) {
  CUdeviceptr p = 0;
  if (standin::driver_link()->cuMemAllocAsync(&p, h.library_workspace_bytes, reinterpret_cast<CUstream>(h.stream)) !=
      CUDA_SUCCESS) {
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  h.library_workspace = reinterpret_cast<void*>(p);
  return CUBLAS_STATUS_SUCCESS;
}

namespace {

// Counts the call and applies STANDIN_FAIL / CRASH / HANG.
#define STANDIN_BLAS_ENTRY(name)                          \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status)

// A null handle is NOT_INITIALIZED; anything else is dereferenced (garbage crashes).
#define STANDIN_BLAS_HANDLE(handle)                                      \
  if ((handle) == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;         \
  CublasHandle* h = standin::checked_cublas_handle(handle)

cublasStatus_t finish(const standin_fault_action& fault) {
  if (fault.async_error) standin_raise_scripted_fault(fault);
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

STANDIN_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  STANDIN_BLAS_ENTRY("cublasCreate_v2");
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  CublasHandle* h = nullptr;
  if (cublasStatus_t s = standin::blas::create_handle(&h); s != CUBLAS_STATUS_SUCCESS) return s;
  *handle = reinterpret_cast<cublasHandle_t>(h);
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  STANDIN_BLAS_ENTRY("cublasDestroy_v2");
  STANDIN_BLAS_HANDLE(handle);
  standin::blas::destroy_handle(h);
  return finish(fault);
}

// Works without a handle (the real one does not look at it either).
STANDIN_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int* version) {
  STANDIN_BLAS_ENTRY("cublasGetVersion_v2");
  if (version == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *version = standin::kCublasVersion;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  STANDIN_BLAS_ENTRY("cublasGetProperty");
  if (value == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = standin::kCublasMajor; break;
    case MINOR_VERSION: *value = standin::kCublasMinor; break;
    case PATCH_LEVEL: *value = standin::kCublasPatch; break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  return finish(fault);
}

STANDIN_EXPORT size_t cublasGetCudartVersion(void) {
  standin_enter("cublasGetCudartVersion");
  return standin::kCudaVersion;
}

// Like cuBLAS, the workspace must be aligned to 256 bytes.
STANDIN_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t workspaceSizeInBytes) {
  STANDIN_BLAS_ENTRY("cublasSetWorkspace_v2");
  STANDIN_BLAS_HANDLE(handle);
  if ((reinterpret_cast<uintptr_t>(workspace) % 256) != 0 || (workspace == nullptr && workspaceSizeInBytes != 0)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  h->workspace = workspace;
  h->workspace_size = workspaceSizeInBytes;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  STANDIN_BLAS_ENTRY("cublasSetStream_v2");
  STANDIN_BLAS_HANDLE(handle);
  h->stream = streamId;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* streamId) {
  STANDIN_BLAS_ENTRY("cublasGetStream_v2");
  STANDIN_BLAS_HANDLE(handle);
  if (streamId == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *streamId = h->stream;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode) {
  STANDIN_BLAS_ENTRY("cublasGetPointerMode_v2");
  STANDIN_BLAS_HANDLE(handle);
  if (mode == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->pointer_mode;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  STANDIN_BLAS_ENTRY("cublasSetPointerMode_v2");
  STANDIN_BLAS_HANDLE(handle);
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  h->pointer_mode = mode;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t* mode) {
  STANDIN_BLAS_ENTRY("cublasGetAtomicsMode");
  STANDIN_BLAS_HANDLE(handle);
  if (mode == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->atomics_mode;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode) {
  STANDIN_BLAS_ENTRY("cublasSetAtomicsMode");
  STANDIN_BLAS_HANDLE(handle);
  if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED) return CUBLAS_STATUS_INVALID_VALUE;
  h->atomics_mode = mode;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  STANDIN_BLAS_ENTRY("cublasGetMathMode");
  STANDIN_BLAS_HANDLE(handle);
  if (mode == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->math_mode;
  return finish(fault);
}

// The mode (DEFAULT, TENSOR_OP, PEDANTIC or TF32), optionally with the flag that disallows
// reduced-precision reductions.
STANDIN_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  STANDIN_BLAS_ENTRY("cublasSetMathMode");
  STANDIN_BLAS_HANDLE(handle);
  const unsigned base = static_cast<unsigned>(mode) & ~static_cast<unsigned>(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  if (base > CUBLAS_TF32_TENSOR_OP_MATH) return CUBLAS_STATUS_INVALID_VALUE;
  h->math_mode = mode;
  return finish(fault);
}

STANDIN_EXPORT const char* cublasGetStatusName(cublasStatus_t status) {
  standin_enter("cublasGetStatusName");
  return standin::blas_status_name(status);
}

STANDIN_EXPORT const char* cublasGetStatusString(cublasStatus_t status) {
  standin_enter("cublasGetStatusString");
  return standin::blas_status_string(status);
}

}  // extern "C"

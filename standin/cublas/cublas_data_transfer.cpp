// cublasSetMatrix / GetMatrix / SetVector / GetVector (and _64): strided copies between host
// and device memory that need no handle. A device end outside every allocation is
// CUBLAS_STATUS_MAPPING_ERROR, as when the real copy fails.
#include <cublas_api.h>

#include <cstring>

#include "export.h"
#include "standin_private.h"

namespace {

// Copies `count` runs of `run` bytes, `src_step` / `dst_step` bytes apart.
void copy_runs(const void* src, int64_t src_step, void* dst, int64_t dst_step, int64_t count, int64_t run) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(static_cast<char*>(dst) + i * dst_step, static_cast<const char*>(src) + i * src_step,
                static_cast<size_t>(run));
  }
}

bool device_span_ok(const void* p, int64_t count, int64_t step, int64_t run) {
  if (count == 0) return true;
  if (standin_sticky_error() != 0) return false;
  return standin_device_accessible(p, static_cast<size_t>((count - 1) * step + run)) != 0;
}

// The copies are synchronous ones on the legacy stream (cudaMemcpy2D in the real library), with
// the capture rules of such a copy: prohibited where the thread's capture mode says so, in
// conflict with the capture of a blocking stream (the capture is invalidated, the copy fails).
bool synchronous_copy_allowed() { return standin_capture_sync_stream(nullptr) == 0; }

// Matrix: `cols` columns of `rows * elem` bytes; `to_device` says which end is device memory.
cublasStatus_t matrix(const char* name, int64_t rows, int64_t cols, int64_t elem, const void* a, int64_t lda, void* b,
                      int64_t ldb, bool to_device) {
  const standin_fault_action fault = standin_enter(name);
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
  if (lda < rows || ldb < rows) return CUBLAS_STATUS_INVALID_VALUE;
  if (!synchronous_copy_allowed()) return CUBLAS_STATUS_MAPPING_ERROR;
  const void* device = to_device ? static_cast<const void*>(b) : a;
  const int64_t device_ld = to_device ? ldb : lda;
  if (!device_span_ok(device, cols, device_ld * elem, rows * elem)) return CUBLAS_STATUS_MAPPING_ERROR;
  copy_runs(a, lda * elem, b, ldb * elem, cols, rows * elem);
  if (fault.async_error) standin_raise_scripted_fault(fault);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t vector(const char* name, int64_t n, int64_t elem, const void* x, int64_t incx, void* y, int64_t incy,
                      bool to_device) {
  const standin_fault_action fault = standin_enter(name);
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  if (!synchronous_copy_allowed()) return CUBLAS_STATUS_MAPPING_ERROR;
  const void* device = to_device ? static_cast<const void*>(y) : x;
  const int64_t device_inc = to_device ? incy : incx;
  if (!device_span_ok(device, n, device_inc * elem, elem)) return CUBLAS_STATUS_MAPPING_ERROR;
  copy_runs(x, incx * elem, y, incy * elem, n, elem);
  if (fault.async_error) standin_raise_scripted_fault(fault);
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

STANDIN_EXPORT cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb) {
  return matrix("cublasSetMatrix", rows, cols, elemSize, A, lda, B, ldb, true);
}

STANDIN_EXPORT cublasStatus_t cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A,
                                                 int64_t lda, void* B, int64_t ldb) {
  return matrix("cublasSetMatrix_64", rows, cols, elemSize, A, lda, B, ldb, true);
}

STANDIN_EXPORT cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb) {
  return matrix("cublasGetMatrix", rows, cols, elemSize, A, lda, B, ldb, false);
}

STANDIN_EXPORT cublasStatus_t cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A,
                                                 int64_t lda, void* B, int64_t ldb) {
  return matrix("cublasGetMatrix_64", rows, cols, elemSize, A, lda, B, ldb, false);
}

STANDIN_EXPORT cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* devicePtr, int incy) {
  return vector("cublasSetVector", n, elemSize, x, incx, devicePtr, incy, true);
}

STANDIN_EXPORT cublasStatus_t cublasSetVector_64(int64_t n, int64_t elemSize, const void* x, int64_t incx,
                                                 void* devicePtr, int64_t incy) {
  return vector("cublasSetVector_64", n, elemSize, x, incx, devicePtr, incy, true);
}

STANDIN_EXPORT cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  return vector("cublasGetVector", n, elemSize, x, incx, y, incy, false);
}

STANDIN_EXPORT cublasStatus_t cublasGetVector_64(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y,
                                                 int64_t incy) {
  return vector("cublasGetVector_64", n, elemSize, x, incx, y, incy, false);
}

}  // extern "C"

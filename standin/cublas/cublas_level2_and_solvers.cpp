// libcublas beyond GEMMs, as far as PyTorch 2.6 imports it: gemv and dot (computed, in double,
// rounded once, like the GEMM core), and the triangular solves and batched factorizations
// (trsm, getrf, getrs, geqrf, gels), which the stand-in does not compute: they validate their
// handle and fail with CUBLAS_STATUS_NOT_SUPPORTED, so a program that needs them learns it
// instead of reading garbage.
#include <cublas_v2.h>

#include <cstring>

#include "blas_handles.h"
#include "capture_work.h"
#include "gemm_core.h"
#include "standin_private.h"

using standin::complex;

namespace {

constexpr int kIllegalAddress = 700;

// BLAS vector addressing: element i of an n-vector with increment inc (negative: from the end).
int64_t vector_index(int64_t i, int64_t n, int64_t inc) { return inc >= 0 ? i * inc : (n - 1 - i) * -inc; }

bool vector_reachable(const void* p, int64_t n, int64_t inc, cudaDataType type) {
  if (n <= 0) return true;
  const int64_t span = (n - 1) * (inc < 0 ? -inc : inc) + 1;
  return standin_device_accessible(p, static_cast<size_t>(span) * standin::element_size(type)) != 0;
}

struct Vector {
  const void* data;
  int64_t n, inc;
  cudaDataType type;
  complex at(int64_t i) const { return standin::load_element(data, type, vector_index(i, n, inc)); }
};

// The shared prologue: fault plan, handle, sticky error. `status` is set when the call must end.
struct Entry {
  standin_fault_action fault;
  const standin::CublasHandle* handle = nullptr;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  bool done = false;
};

Entry enter(const char* name, cublasHandle_t handle) {
  Entry e{standin_enter(name)};
  if (e.fault.fail) return e.status = static_cast<cublasStatus_t>(e.fault.status), e.done = true, e;
  if (handle == nullptr) return e.status = CUBLAS_STATUS_NOT_INITIALIZED, e.done = true, e;
  e.handle = standin::checked_cublas_handle(handle);  // garbage faults here, as in cuBLAS
  return e;
}

bool scalar_reachable(bool on_device, const void* p, cudaDataType type) {
  return !on_device || standin_device_accessible(p, standin::element_size(type));
}

// A validated call's work, as a function of the call: run now, or recorded by a capture of the
// handle's stream and run at each launch of the graph. Host scalars are read at the call (a
// capture copies them), device ones and every operand when the work runs. `run` returns 0 or the
// asynchronous error it raised (700 for an operand outside device memory: nothing is written).
template <class Work>
cublasStatus_t enqueue(const Entry& e, Work work) {
  const int how = standin_capture_enqueue(e.handle->stream);
  if (how > 0) return CUBLAS_STATUS_EXECUTION_FAILED;  // the launch fails: the capture was invalidated
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  const int async_error = e.fault.async_error;
  const bool corrupt = e.fault.corrupt != 0;
  if (how == STANDIN_RECORD) {
    const int r = standin::capture_work(e.handle->stream, "blas", [work, async_error, corrupt] {
      return async_error ? async_error : work.run(corrupt);
    });
    return r == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
  }
  if (async_error) return standin_raise_scripted_fault(e.fault), CUBLAS_STATUS_SUCCESS;
  if (const int r = work.run(corrupt)) standin_set_sticky_error(r);
  return CUBLAS_STATUS_SUCCESS;
}

// alpha or beta: where it points, or (host pointer mode) its value, read at the call.
struct Scalar {
  const void* device = nullptr;
  alignas(16) unsigned char value[16] = {};
  Scalar(const void* p, bool on_device, cudaDataType type) {
    if (on_device) device = p;
    else std::memcpy(value, p, standin::element_size(type));
  }
  const void* get() const { return device != nullptr ? device : value; }
};

// y = alpha op(A) x + beta y, A m x n (column-major, lda).
struct Gemv {
  cublasOperation_t trans;
  int64_t m, n, lda, incx, incy;
  Scalar alpha, beta;
  const void* A;
  const void* x;
  void* y;
  cudaDataType type;
  bool scalars_on_device;

  int run(bool corrupt) const {
    const int64_t rows = trans == CUBLAS_OP_N ? m : n;  // length of y
    const int64_t cols = trans == CUBLAS_OP_N ? n : m;  // length of x
    const size_t a_bytes = standin::element_size(type) * static_cast<size_t>(lda * (n - 1) + m);
    if (!scalar_reachable(scalars_on_device, alpha.get(), type) ||
        !scalar_reachable(scalars_on_device, beta.get(), type) || !standin_device_accessible(A, a_bytes) ||
        !vector_reachable(x, cols, incx, type) || !vector_reachable(y, rows, incy, type)) {
      return kIllegalAddress;
    }
    const complex a = standin::load_scalar(alpha.get(), type), b = standin::load_scalar(beta.get(), type);
    const Vector xv{x, cols, incx, type};
    for (int64_t i = 0; i < rows; ++i) {
      complex sum = 0.0;
      for (int64_t j = 0; j < cols; ++j) {
        complex aij = trans == CUBLAS_OP_N ? standin::load_element(A, type, i + j * lda)
                                           : standin::load_element(A, type, j + i * lda);
        if (trans == CUBLAS_OP_C) aij = std::conj(aij);
        sum += aij * xv.at(j);
      }
      const int64_t at = vector_index(i, rows, incy);
      const complex old = b == 0.0 ? complex(0.0) : standin::load_element(y, type, at);  // beta 0: y is not read
      standin::store_element(y, type, at, a * sum + b * old);
    }
    if (corrupt) standin::corrupt_first_element(y, type);
    return 0;
  }
};

cublasStatus_t gemv(const char* name, cublasHandle_t handle, cublasOperation_t trans, int64_t m, int64_t n,
                    const void* alpha, const void* A, int64_t lda, const void* x, int64_t incx, const void* beta,
                    void* y, int64_t incy, cudaDataType type) {
  const Entry e = enter(name, handle);
  if (e.done) return e.status;
  if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) || m < 0 || n < 0 ||
      lda < (m > 1 ? m : 1) || incx == 0 || incy == 0 || alpha == nullptr || beta == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const bool on_device = e.handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
  return enqueue(e, Gemv{trans, m, n, lda, incx, incy, Scalar(alpha, on_device, type), Scalar(beta, on_device, type), A,
                         x, y, type, on_device});
}

// result = sum x_i y_i (conjugate: sum conj(x_i) y_i), in host or device memory per pointer mode.
struct Dot {
  int64_t n;
  const void* x;
  cudaDataType x_type;
  int64_t incx;
  const void* y;
  cudaDataType y_type;
  int64_t incy;
  void* result;
  cudaDataType result_type;
  bool conjugate, result_on_device;

  int run(bool corrupt) const {
    if (!vector_reachable(x, n, incx, x_type) || !vector_reachable(y, n, incy, y_type) ||
        !scalar_reachable(result_on_device, result, result_type)) {
      return kIllegalAddress;
    }
    complex sum = 0.0;
    const Vector xv{x, n, incx, x_type}, yv{y, n, incy, y_type};
    for (int64_t i = 0; i < n; ++i) sum += (conjugate ? std::conj(xv.at(i)) : xv.at(i)) * yv.at(i);
    standin::store_element(result, result_type, 0, sum);
    if (corrupt) standin::corrupt_first_element(result, result_type);
    return 0;
  }
};

cublasStatus_t dot(const char* name, cublasHandle_t handle, int64_t n, const void* x, cudaDataType x_type, int64_t incx,
                   const void* y, cudaDataType y_type, int64_t incy, void* result, cudaDataType result_type,
                   bool conjugate) {
  const Entry e = enter(name, handle);
  if (e.done) return e.status;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const bool on_device = e.handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
  // A host result makes cuBLAS wait for the stream: that conflicts with a capture of it.
  if (!on_device && standin_capture_sync_stream(e.handle->stream) != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  return enqueue(e, Dot{n, x, x_type, incx, y, y_type, incy, result, result_type, conjugate, on_device});
}

// The entry points the stand-in exports for linking but does not compute.
cublasStatus_t not_computed(const char* name, cublasHandle_t handle) {
  const Entry e = enter(name, handle);
  return e.done ? e.status : CUBLAS_STATUS_NOT_SUPPORTED;
}

}  // namespace

extern "C" {

#define STANDIN_GEMV(NAME, T, TYPE)                                                                              \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T* alpha, \
                                     const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy) {  \
    return gemv(#NAME, handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, TYPE);                        \
  }
STANDIN_GEMV(cublasSgemv_v2, float, CUDA_R_32F)
STANDIN_GEMV(cublasDgemv_v2, double, CUDA_R_64F)
STANDIN_GEMV(cublasCgemv_v2, cuComplex, CUDA_C_32F)
STANDIN_GEMV(cublasZgemv_v2, cuDoubleComplex, CUDA_C_64F)

#define STANDIN_DOT(NAME, T, TYPE, CONJUGATE)                                                                   \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, int n, const T* x, int incx, const T* y, int incy,  \
                                     T* result) {                                                               \
    return dot(#NAME, handle, n, x, TYPE, incx, y, TYPE, incy, result, TYPE, CONJUGATE);                        \
  }
STANDIN_DOT(cublasSdot_v2, float, CUDA_R_32F, false)
STANDIN_DOT(cublasDdot_v2, double, CUDA_R_64F, false)
STANDIN_DOT(cublasCdotu_v2, cuComplex, CUDA_C_32F, false)
STANDIN_DOT(cublasCdotc_v2, cuComplex, CUDA_C_32F, true)
STANDIN_DOT(cublasZdotu_v2, cuDoubleComplex, CUDA_C_64F, false)
STANDIN_DOT(cublasZdotc_v2, cuDoubleComplex, CUDA_C_64F, true)

// Any element types the core can load and store; cuBLAS would refuse some mixes, the stand-in
// computes them (in double) rather than guess which.
STANDIN_EXPORT cublasStatus_t cublasDotEx(cublasHandle_t handle, int n, const void* x, cudaDataType xType, int incx,
                                          const void* y, cudaDataType yType, int incy, void* result,
                                          cudaDataType resultType, cudaDataType executionType) {
  if (!standin::is_supported_type(xType) || !standin::is_supported_type(yType) ||
      !standin::is_supported_type(resultType) || !standin::is_supported_type(executionType)) {
    return not_computed("cublasDotEx", handle);
  }
  return dot("cublasDotEx", handle, n, x, xType, incx, y, yType, incy, result, resultType, false);
}

#define STANDIN_TRSM(NAME, T)                                                                                   \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, \
                                     cublasDiagType_t, int, int, const T*, const T*, int, T*, int) {            \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_TRSM(cublasStrsm_v2, float)
STANDIN_TRSM(cublasDtrsm_v2, double)
STANDIN_TRSM(cublasCtrsm_v2, cuComplex)
STANDIN_TRSM(cublasZtrsm_v2, cuDoubleComplex)

#define STANDIN_TRSM_BATCHED(NAME, T)                                                                           \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, \
                                     cublasDiagType_t, int, int, const T*, const T* const[], int, T* const[],   \
                                     int, int) {                                                                \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_TRSM_BATCHED(cublasStrsmBatched, float)
STANDIN_TRSM_BATCHED(cublasDtrsmBatched, double)
STANDIN_TRSM_BATCHED(cublasCtrsmBatched, cuComplex)
STANDIN_TRSM_BATCHED(cublasZtrsmBatched, cuDoubleComplex)

#define STANDIN_GETRF_BATCHED(NAME, T)                                                                          \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, int, T* const[], int, int*, int*, int) {            \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_GETRF_BATCHED(cublasSgetrfBatched, float)
STANDIN_GETRF_BATCHED(cublasDgetrfBatched, double)
STANDIN_GETRF_BATCHED(cublasCgetrfBatched, cuComplex)
STANDIN_GETRF_BATCHED(cublasZgetrfBatched, cuDoubleComplex)

#define STANDIN_GETRS_BATCHED(NAME, T)                                                                          \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t, int, int, const T* const[], int, \
                                     const int*, T* const[], int, int*, int) {                                  \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_GETRS_BATCHED(cublasSgetrsBatched, float)
STANDIN_GETRS_BATCHED(cublasDgetrsBatched, double)
STANDIN_GETRS_BATCHED(cublasCgetrsBatched, cuComplex)
STANDIN_GETRS_BATCHED(cublasZgetrsBatched, cuDoubleComplex)

#define STANDIN_GEQRF_BATCHED(NAME, T)                                                                          \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, int, int, T* const[], int, T* const[], int*, int) { \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_GEQRF_BATCHED(cublasSgeqrfBatched, float)
STANDIN_GEQRF_BATCHED(cublasDgeqrfBatched, double)
STANDIN_GEQRF_BATCHED(cublasCgeqrfBatched, cuComplex)
STANDIN_GEQRF_BATCHED(cublasZgeqrfBatched, cuDoubleComplex)

#define STANDIN_GELS_BATCHED(NAME, T)                                                                           \
  STANDIN_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t, int, int, int, T* const[], int,  \
                                     T* const[], int, int*, int*, int) {                                        \
    return not_computed(#NAME, handle);                                                                         \
  }
STANDIN_GELS_BATCHED(cublasSgelsBatched, float)
STANDIN_GELS_BATCHED(cublasDgelsBatched, double)
STANDIN_GELS_BATCHED(cublasCgelsBatched, cuComplex)
STANDIN_GELS_BATCHED(cublasZgelsBatched, cuDoubleComplex)

}  // extern "C"

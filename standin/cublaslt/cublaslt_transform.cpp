// cublasLtMatrixTransform: C = alpha * op(A) + beta * op(B), element by element, each operand in
// its own layout (any order, the tiled IMMA orders included), so programs can convert matrices to
// and from the orders cuBLASLt's integer kernels take (NVIDIA's LtIgemmTensor sample does).
// Computed in double and rounded once into C's type (integers saturate), like the GEMM core. On a
// capturing stream it is recorded and computed at each launch of the graph.
#include <cublasLt.h>

#include <cstring>

#include "blas_handles.h"
#include "capture_work.h"
#include "gemm_core.h"
#include "lt_descriptors.h"
#include "lt_layouts.h"
#include "standin_private.h"

using namespace standin;

namespace {

constexpr int kIllegalAddress = 700;

bool reachable(const void* p, size_t bytes) { return bytes == 0 || standin_device_accessible(p, bytes); }

// rows x cols of op(X) from X's layout.
bool op_shape_matches(const LtLayout& x, int32_t op, uint64_t rows, uint64_t cols) {
  return op == CUBLAS_OP_N ? (x.rows == rows && x.cols == cols) : (x.rows == cols && x.cols == rows);
}

// One validated transform: everything it reads when it runs, copied (layouts, host scales), so
// that a capture can run it at each launch of its graph.
struct Transform {
  cudaDataType scale_type = CUDA_R_32F;
  bool scales_on_device = false;
  bool present[2] = {false, false};  // A, B
  LtLayout layout[2] = {};
  int32_t op[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  const void* data[2] = {nullptr, nullptr};
  const void* scale[2] = {nullptr, nullptr};        // device scales
  alignas(16) unsigned char scale_value[2][16] = {};  // host scales, read at the call
  LtLayout lc = {};
  void* c = nullptr;
  bool corrupt = false;

  // Reads device scales, checks every operand is device memory (a fault otherwise: 700, nothing
  // written), computes. Returns 0 or the asynchronous error.
  int run() const {
    const size_t scalar = element_size(scale_type);
    complex factor[2] = {0.0, 0.0};
    MatrixView view[2];
    for (int x = 0; x < 2; ++x) {
      if (!present[x]) continue;
      const void* p = scales_on_device ? scale[x] : scale_value[x];
      if (scales_on_device && !reachable(p, scalar)) return kIllegalAddress;
      factor[x] = load_scalar(p, scale_type);
      view[x] = view_of(layout[x]);
    }
    const bool used[2] = {present[0] && factor[0] != 0.0, present[1] && factor[1] != 0.0};
    const int64_t rows = static_cast<int64_t>(lc.rows), cols = static_cast<int64_t>(lc.cols);
    MatrixView out = view_of(lc);
    const size_t c_bytes = matrix_extent_bytes(rows, cols, out);
    const auto member = [&](int x, int64_t b) {
      return static_cast<const char*>(data[x]) +
             b * layout[x].batch_stride * static_cast<int64_t>(element_size(view[x].type));
    };
    const auto output = [&](int64_t b) {
      return static_cast<char*>(c) + b * lc.batch_stride * static_cast<int64_t>(element_size(out.type));
    };
    for (int64_t b = 0; b < lc.batch_count; ++b) {  // the kernel reads every operand before writing
      for (int x = 0; x < 2; ++x) {
        if (!used[x]) continue;
        const int64_t r = op[x] == CUBLAS_OP_N ? rows : cols, k = op[x] == CUBLAS_OP_N ? cols : rows;
        if (!reachable(member(x, b), matrix_extent_bytes(r, k, view[x]))) return kIllegalAddress;
      }
      if (!reachable(output(b), c_bytes)) return kIllegalAddress;
    }
    for (int64_t b = 0; b < lc.batch_count; ++b) {
      for (int x = 0; x < 2; ++x)
        if (used[x]) view[x].data = member(x, b);
      out.data = output(b);
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
          complex v = 0.0;
          for (int x = 0; x < 2; ++x) {
            if (!used[x]) continue;
            const int64_t at = op[x] == CUBLAS_OP_N ? element_index(view[x], i, j) : element_index(view[x], j, i);
            complex e = load_element(view[x].data, view[x].type, at);
            if (op[x] == CUBLAS_OP_C) e = std::conj(e);
            v += factor[x] * e;
          }
          store_element(const_cast<void*>(out.data), out.type, element_index(out, i, j), v);
        }
    }
    if (corrupt) corrupt_first_element(c, out.type);
    return 0;
  }
};

}  // namespace

extern "C" {

// Validated at the call; on a capturing stream recorded (host scales read now), otherwise run now.
STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle,
                                                      cublasLtMatrixTransformDesc_t transformDesc, const void* alpha,
                                                      const void* A, cublasLtMatrixLayout_t Adesc, const void* beta,
                                                      const void* B, cublasLtMatrixLayout_t Bdesc, void* C,
                                                      cublasLtMatrixLayout_t Cdesc, cudaStream_t stream) {
  const standin_fault_action fault = standin_enter("cublasLtMatrixTransform");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (lightHandle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  checked_lt_handle_device(lightHandle);
  const auto* desc = reinterpret_cast<const LtTransformDesc*>(transformDesc);
  if (desc == nullptr || desc->magic != kLtTransformDescMagic || C == nullptr || Cdesc == nullptr ||
      (A != nullptr && (Adesc == nullptr || alpha == nullptr)) || (B != nullptr && (Bdesc == nullptr || beta == nullptr))) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  Transform t;
  t.scale_type = static_cast<cudaDataType>(desc->scale_type);
  if (!is_supported_type(t.scale_type) || desc->pointer_mode != CUBLASLT_POINTER_MODE_HOST &&
                                              desc->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  for (int32_t op : {desc->transa, desc->transb})
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T && op != CUBLAS_OP_C) return CUBLAS_STATUS_INVALID_VALUE;

  const LtLayout& lc = *as_layout(Cdesc);
  if (lc.magic != kLtLayoutMagic) return CUBLAS_STATUS_INVALID_VALUE;
  if (cublasStatus_t s = check_layout(lc); s != CUBLAS_STATUS_SUCCESS) return s;
  t.lc = lc;
  t.c = C;
  t.scales_on_device = desc->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
  const void* data[2] = {A, B};
  const cublasLtMatrixLayout_t layouts[2] = {Adesc, Bdesc};
  const void* scales[2] = {alpha, beta};
  const int32_t ops[2] = {desc->transa, desc->transb};
  for (int x = 0; x < 2; ++x) {
    if (data[x] == nullptr) continue;
    const LtLayout& l = *as_layout(layouts[x]);
    if (l.magic != kLtLayoutMagic || !op_shape_matches(l, ops[x], lc.rows, lc.cols) ||
        l.batch_count != lc.batch_count) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (cublasStatus_t s = check_layout(l); s != CUBLAS_STATUS_SUCCESS) return s;
    t.present[x] = true;
    t.layout[x] = l;
    t.op[x] = ops[x];
    t.data[x] = data[x];
    if (t.scales_on_device) t.scale[x] = scales[x];
    else std::memcpy(t.scale_value[x], scales[x], element_size(t.scale_type));
  }
  // Planar complex and pointer-array batches are not modelled.
  for (int x = 0; x < 3; ++x) {
    const LtLayout* l = x < 2 ? (t.present[x] ? &t.layout[x] : nullptr) : &lc;
    if (l != nullptr && (l->plane_offset != 0 || l->batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY)) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  }
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  const int how = standin_capture_enqueue(stream);
  if (how > 0) return CUBLAS_STATUS_EXECUTION_FAILED;  // the stream's capture was invalidated
  t.corrupt = fault.corrupt != 0;
  if (how == STANDIN_RECORD) {
    const int async_error = fault.async_error;
    const int r = capture_work(stream, "transform", [t, async_error] { return async_error ? async_error : t.run(); });
    return r == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
  }
  if (fault.async_error) {
    standin_raise_scripted_fault(fault);
    return CUBLAS_STATUS_SUCCESS;
  }
  if (const int e = t.run()) standin_set_sticky_error(e);
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"

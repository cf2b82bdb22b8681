// cublasLtMatrixTransform: C = alpha * op(A) + beta * op(B), element by element, each operand in
// its own layout (any order, the tiled IMMA orders included), so programs can convert matrices to
// and from the orders cuBLASLt's integer kernels take (NVIDIA's LtIgemmTensor sample does).
// Computed in double and rounded once into C's type (integers saturate), like the GEMM core.
#include <cublasLt.h>

#include "blas_handles.h"
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

struct Operand {
  const LtLayout* layout = nullptr;
  MatrixView view;
  int32_t op = CUBLAS_OP_N;
  complex scale = 0.0;
  bool used = false;  // present and scaled by a non-zero factor
};

}  // namespace

extern "C" {

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle,
                                                      cublasLtMatrixTransformDesc_t transformDesc, const void* alpha,
                                                      const void* A, cublasLtMatrixLayout_t Adesc, const void* beta,
                                                      const void* B, cublasLtMatrixLayout_t Bdesc, void* C,
                                                      cublasLtMatrixLayout_t Cdesc, cudaStream_t /*stream*/) {
  const standin_fault_action fault = standin_enter("cublasLtMatrixTransform");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (lightHandle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  checked_lt_handle_device(lightHandle);
  const auto* desc = reinterpret_cast<const LtTransformDesc*>(transformDesc);
  if (desc == nullptr || desc->magic != kLtTransformDescMagic || C == nullptr || Cdesc == nullptr ||
      (A != nullptr && (Adesc == nullptr || alpha == nullptr)) || (B != nullptr && (Bdesc == nullptr || beta == nullptr))) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const cudaDataType scale_type = static_cast<cudaDataType>(desc->scale_type);
  if (!is_supported_type(scale_type) || desc->pointer_mode != CUBLASLT_POINTER_MODE_HOST &&
                                            desc->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  for (int32_t op : {desc->transa, desc->transb})
    if (op != CUBLAS_OP_N && op != CUBLAS_OP_T && op != CUBLAS_OP_C) return CUBLAS_STATUS_INVALID_VALUE;

  const LtLayout& lc = *as_layout(Cdesc);
  if (lc.magic != kLtLayoutMagic) return CUBLAS_STATUS_INVALID_VALUE;
  if (cublasStatus_t s = check_layout(lc); s != CUBLAS_STATUS_SUCCESS) return s;
  const bool on_device = desc->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
  const size_t scalar = element_size(scale_type);
  Operand in[2];
  const void* data[2] = {A, B};
  const cublasLtMatrixLayout_t layouts[2] = {Adesc, Bdesc};
  const void* scales[2] = {alpha, beta};
  const int32_t ops[2] = {desc->transa, desc->transb};
  for (int x = 0; x < 2; ++x) {
    if (data[x] == nullptr) continue;
    Operand& o = in[x];
    o.layout = as_layout(layouts[x]);
    if (o.layout->magic != kLtLayoutMagic || !op_shape_matches(*o.layout, ops[x], lc.rows, lc.cols) ||
        o.layout->batch_count != lc.batch_count) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (cublasStatus_t s = check_layout(*o.layout); s != CUBLAS_STATUS_SUCCESS) return s;
    if (on_device && !reachable(scales[x], scalar)) {
      standin_set_sticky_error(kIllegalAddress);
      return CUBLAS_STATUS_SUCCESS;
    }
    o.view = view_of(*o.layout);
    o.op = ops[x];
    o.scale = load_scalar(scales[x], scale_type);
    o.used = o.scale != 0.0;
  }
  // Planar complex and pointer-array batches are not modelled.
  for (const LtLayout* l : {in[0].layout, in[1].layout, &lc})
    if (l != nullptr && (l->plane_offset != 0 || l->batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY)) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (fault.async_error) {
    standin_set_sticky_error(fault.async_error);
    return CUBLAS_STATUS_SUCCESS;
  }

  const int64_t rows = static_cast<int64_t>(lc.rows), cols = static_cast<int64_t>(lc.cols);
  MatrixView out = view_of(lc);
  const size_t c_bytes = matrix_extent_bytes(rows, cols, out);
  for (int64_t b = 0; b < lc.batch_count; ++b) {  // the kernel reads every operand before writing
    for (int x = 0; x < 2; ++x) {
      if (!in[x].used) continue;
      const int64_t r = in[x].op == CUBLAS_OP_N ? rows : cols, c = in[x].op == CUBLAS_OP_N ? cols : rows;
      const char* base = static_cast<const char*>(data[x]) +
                         b * in[x].layout->batch_stride * static_cast<int64_t>(element_size(in[x].view.type));
      if (!reachable(base, matrix_extent_bytes(r, c, in[x].view))) {
        standin_set_sticky_error(kIllegalAddress);
        return CUBLAS_STATUS_SUCCESS;
      }
    }
    if (!reachable(static_cast<char*>(C) + b * lc.batch_stride * static_cast<int64_t>(element_size(out.type)), c_bytes)) {
      standin_set_sticky_error(kIllegalAddress);
      return CUBLAS_STATUS_SUCCESS;
    }
  }
  for (int64_t b = 0; b < lc.batch_count; ++b) {
    for (int x = 0; x < 2; ++x)
      if (in[x].used) {
        in[x].view.data = static_cast<const char*>(data[x]) +
                          b * in[x].layout->batch_stride * static_cast<int64_t>(element_size(in[x].view.type));
      }
    out.data = static_cast<char*>(C) + b * lc.batch_stride * static_cast<int64_t>(element_size(out.type));
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < rows; ++i) {
        complex v = 0.0;
        for (const Operand& o : in) {
          if (!o.used) continue;
          complex e = load_element(o.view.data, o.view.type,
                                   o.op == CUBLAS_OP_N ? element_index(o.view, i, j) : element_index(o.view, j, i));
          if (o.op == CUBLAS_OP_C) e = std::conj(e);
          v += o.scale * e;
        }
        store_element(const_cast<void*>(out.data), out.type, element_index(out, i, j), v);
      }
  }
  if (fault.corrupt) corrupt_first_element(C, out.type);
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"

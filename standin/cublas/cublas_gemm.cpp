#include "cublas_gemm.h"

#include <cublasLt.h>

#include <algorithm>
#include <cstring>

#include "blas_handles.h"
#include "capture_work.h"
#include "cublas_handles.h"
#include "gemm_core.h"
#include "lt_descriptors.h"

namespace standin::blas {

namespace {

constexpr int kIllegalAddress = 700;  // cudaErrorIllegalAddress / CUDA_ERROR_ILLEGAL_ADDRESS

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

Op to_op(cublasOperation_t op) { return op == CUBLAS_OP_N ? Op::N : (op == CUBLAS_OP_T ? Op::T : Op::C); }

// Rows of A and B as stored (before op).
int64_t stored_rows_a(const GemmCall& c) { return c.transa == CUBLAS_OP_N ? c.m : c.k; }
int64_t stored_cols_a(const GemmCall& c) { return c.transa == CUBLAS_OP_N ? c.k : c.m; }
int64_t stored_rows_b(const GemmCall& c) { return c.transb == CUBLAS_OP_N ? c.k : c.n; }
int64_t stored_cols_b(const GemmCall& c) { return c.transb == CUBLAS_OP_N ? c.n : c.k; }

// What a kernel touching memory outside every device allocation does on a GPU: the launch
// succeeds, the kernel faults, the context carries a sticky illegal-address error.
cublasStatus_t device_fault() {
  standin_set_sticky_error(kIllegalAddress);
  return CUBLAS_STATUS_SUCCESS;
}

bool reachable(const void* p, size_t bytes) { return bytes == 0 || standin_device_accessible(p, bytes); }

InputRounding rounding_for(const CublasHandle& h, const GemmCall& c) {
  switch (c.compute) {
    case CUBLAS_COMPUTE_32F_FAST_TF32: return InputRounding::TF32;
    case CUBLAS_COMPUTE_32F_FAST_16F: return InputRounding::Half;
    case CUBLAS_COMPUTE_32F_FAST_16BF: return InputRounding::BF16;
    case CUBLAS_COMPUTE_32F:
      // CUBLAS_TF32_TENSOR_OP_MATH lets single-precision GEMMs read their inputs as TF32.
      if ((h.math_mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH && (c.a.type == CUDA_R_32F || c.a.type == CUDA_C_32F)) {
        return InputRounding::TF32;
      }
      return InputRounding::None;
    default: return InputRounding::None;
  }
}

cublasStatus_t validate(const GemmCall& c) {
  if (!valid_op(c.transa) || !valid_op(c.transb)) return CUBLAS_STATUS_INVALID_VALUE;
  if (c.m < 0 || c.n < 0 || c.k < 0 || c.batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (c.a.ld < std::max<int64_t>(1, stored_rows_a(c)) || c.b.ld < std::max<int64_t>(1, stored_rows_b(c)) ||
      c.c.ld < std::max<int64_t>(1, c.m)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (c.alpha == nullptr || c.beta == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  cudaDataType scale = CUDA_R_32F;
  if (cublasStatus_t s = scale_type_for(c.compute, c.a.type, c.b.type, c.c.type, &scale); s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (scale != c.scale_type || !c.algo_supported) return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}

const void* matrix_at(const Operand& o, bool arrays, int64_t i) {
  if (arrays) return o.array[i];
  return static_cast<const char*>(o.ptr) + i * o.stride * static_cast<int64_t>(element_size(o.type));
}

// cublasGemmEx and friends with 16-bit inputs: describe the problem in cuBLASLt descriptors
// built on the stack (as the real libcublas does internally) and call the exported
// cublasLtMatmul through the PLT, where a preloaded tracer sees it as a nested call.
cublasStatus_t via_lt(const CublasHandle& h, const GemmCall& c) {
  cublasLtMatmulDescOpaque_t desc_storage;
  cublasLtMatrixLayoutOpaque_t a_storage, b_storage, c_storage;
  LtMatmulDesc* desc = as_desc(&desc_storage);
  init_matmul_desc(desc, c.compute, c.scale_type);
  desc->transa = c.transa;
  desc->transb = c.transb;
  desc->pointer_mode = h.pointer_mode == CUBLAS_POINTER_MODE_DEVICE ? CUBLASLT_POINTER_MODE_DEVICE
                                                                   : CUBLASLT_POINTER_MODE_HOST;
  LtLayout* la = as_layout(&a_storage);
  LtLayout* lb = as_layout(&b_storage);
  LtLayout* lc = as_layout(&c_storage);
  init_layout(la, c.a.type, static_cast<uint64_t>(stored_rows_a(c)), static_cast<uint64_t>(stored_cols_a(c)), c.a.ld);
  init_layout(lb, c.b.type, static_cast<uint64_t>(stored_rows_b(c)), static_cast<uint64_t>(stored_cols_b(c)), c.b.ld);
  init_layout(lc, c.c.type, static_cast<uint64_t>(c.m), static_cast<uint64_t>(c.n), c.c.ld);
  for (LtLayout* l : {la, lb, lc}) l->batch_count = static_cast<int32_t>(c.batch);
  la->batch_stride = c.a.stride;
  lb->batch_stride = c.b.stride;
  lc->batch_stride = c.c.stride;
  void* d = const_cast<void*>(c.c.ptr);
  return cublasLtMatmul(reinterpret_cast<cublasLtHandle_t>(const_cast<CublasHandle*>(&h)), &desc_storage, c.alpha,
                        c.a.ptr, &a_storage, c.b.ptr, &b_storage, c.beta, d, &c_storage, d, &c_storage, nullptr,
                        h.workspace, h.workspace_size, h.stream);
}

// Runs a validated call whose shape is not empty.
cublasStatus_t execute(const CublasHandle& h, const GemmCall& c) {
  const size_t scalar_bytes = element_size(c.scale_type);
  if (!c.scalars_on_host && h.pointer_mode == CUBLAS_POINTER_MODE_DEVICE &&
      (!reachable(c.alpha, scalar_bytes) || !reachable(c.beta, scalar_bytes))) {
    return device_fault();
  }
  if (c.via_lt) return via_lt(h, c);

  GemmProblem p;
  p.op_a = to_op(c.transa);
  p.op_b = to_op(c.transb);
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = load_scalar(c.alpha, c.scale_type);
  p.beta = load_scalar(c.beta, c.scale_type);
  p.scale_type = c.scale_type;
  p.rounding = rounding_for(h, c);
  p.a = MatrixView{nullptr, c.a.type, 1, c.a.ld};
  p.b = MatrixView{nullptr, c.b.type, 1, c.b.ld};
  p.c = MatrixView{nullptr, c.c.type, 1, c.c.ld};
  p.d = p.c;

  // The device reads every pointer array and matrix before anything is written.
  if (c.pointer_arrays) {
    const size_t bytes = static_cast<size_t>(c.batch) * sizeof(void*);
    if (!reachable(c.a.array, bytes) || !reachable(c.b.array, bytes) || !reachable(c.c.array, bytes)) {
      return device_fault();
    }
  }
  const bool reads_ab = c.k > 0 && p.alpha != 0.0;
  const size_t a_bytes = reads_ab ? matrix_extent_bytes(stored_rows_a(c), stored_cols_a(c), p.a) : 0;
  const size_t b_bytes = reads_ab ? matrix_extent_bytes(stored_rows_b(c), stored_cols_b(c), p.b) : 0;
  const size_t c_bytes = matrix_extent_bytes(c.m, c.n, p.c);
  for (int64_t i = 0; i < c.batch; ++i) {
    if (!reachable(matrix_at(c.a, c.pointer_arrays, i), a_bytes) ||
        !reachable(matrix_at(c.b, c.pointer_arrays, i), b_bytes) ||
        !reachable(matrix_at(c.c, c.pointer_arrays, i), c_bytes)) {
      return device_fault();
    }
  }
  for (int64_t i = 0; i < c.batch; ++i) {
    p.a.data = matrix_at(c.a, c.pointer_arrays, i);
    p.b.data = matrix_at(c.b, c.pointer_arrays, i);
    p.c.data = p.d.data = matrix_at(c.c, c.pointer_arrays, i);
    run_gemm(p);
  }
  return CUBLAS_STATUS_SUCCESS;
}

// STANDIN_WRONG_RESULT: silently damage element 0 of the first output matrix.
void corrupt(const GemmCall& c) {
  corrupt_first_element(const_cast<void*>(matrix_at(c.c, c.pointer_arrays, 0)), c.c.type);
}

bool empty(const GemmCall& c) { return c.m == 0 || c.n == 0 || c.batch == 0; }

// ---- stream capture ------------------------------------------------------------------------------

// One captured GEMM: the call and the handle's settings as they were at the capture (math mode,
// pointer mode), with alpha and beta read then when they are host values, as cuBLAS reads them at
// the launch it records; device scalars, operands and pointer arrays stay pointers, read at each
// launch of the graph.
struct CapturedGemm {
  GemmCall call;
  alignas(16) unsigned char alpha[16] = {};
  alignas(16) unsigned char beta[16] = {};
  bool host_scalars = false;

  CapturedGemm(const CublasHandle& h, const GemmCall& c) : call(c) {
    host_scalars = c.scalars_on_host || h.pointer_mode == CUBLAS_POINTER_MODE_HOST;
    if (host_scalars) {
      std::memcpy(alpha, c.alpha, element_size(c.scale_type));
      std::memcpy(beta, c.beta, element_size(c.scale_type));
    }
  }
  GemmCall at_launch() const {
    GemmCall c = call;
    if (host_scalars) c.alpha = alpha, c.beta = beta;
    return c;
  }
};

// The work of captured GEMMs at a launch: what gemm() and gemm_grouped() do after their checks.
int run_captured(const CublasHandle& h, const std::vector<CapturedGemm>& groups, const standin_fault_action& fault) {
  if (fault.async_error) return fault.async_error;  // the "kernel" faults: nothing is computed
  const int sticky_before = standin_sticky_error();
  const GemmCall* first_output = nullptr;
  std::vector<GemmCall> calls;
  for (const CapturedGemm& g : groups) calls.push_back(g.at_launch());
  for (const GemmCall& c : calls) {
    if (empty(c)) continue;
    execute(h, c);  // an operand no longer allocated: sticky illegal address
    if (standin_sticky_error() != sticky_before) return 0;
    if (first_output == nullptr) first_output = &c;
  }
  if (fault.corrupt && first_output != nullptr) corrupt(*first_output);
  return 0;
}

// Records the GEMM (or the groups of a grouped call) on the capturing stream of the handle.
cublasStatus_t capture(const CublasHandle& h, const std::vector<GemmCall>& groups, const standin_fault_action& fault) {
  std::vector<CapturedGemm> captured;
  for (const GemmCall& g : groups) captured.emplace_back(h, g);
  const CublasHandle settings = h;  // as set now: later cublasSet*Mode calls do not change the graph
  const int r = capture_work(h.stream, "gemm",
                             [settings, captured, fault] { return run_captured(settings, captured, fault); });
  return r == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace

cublasStatus_t scale_type_for(cublasComputeType_t compute, cudaDataType a, cudaDataType b, cudaDataType c,
                              cudaDataType* scale) {
  if (a != b) return CUBLAS_STATUS_NOT_SUPPORTED;
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      if (a == CUDA_R_16F && c == CUDA_R_16F) return *scale = CUDA_R_16F, CUBLAS_STATUS_SUCCESS;
      return CUBLAS_STATUS_NOT_SUPPORTED;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      if ((a == CUDA_R_16BF && (c == CUDA_R_16BF || c == CUDA_R_32F)) ||
          (a == CUDA_R_16F && (c == CUDA_R_16F || c == CUDA_R_32F)) || (a == CUDA_R_8I && c == CUDA_R_32F) ||
          (a == CUDA_R_32F && c == CUDA_R_32F)) {
        return *scale = CUDA_R_32F, CUBLAS_STATUS_SUCCESS;
      }
      if ((a == CUDA_C_8I || a == CUDA_C_32F) && c == CUDA_C_32F) return *scale = CUDA_C_32F, CUBLAS_STATUS_SUCCESS;
      return CUBLAS_STATUS_NOT_SUPPORTED;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
      if (a == CUDA_R_64F && c == CUDA_R_64F) return *scale = CUDA_R_64F, CUBLAS_STATUS_SUCCESS;
      if (a == CUDA_C_64F && c == CUDA_C_64F) return *scale = CUDA_C_64F, CUBLAS_STATUS_SUCCESS;
      return CUBLAS_STATUS_NOT_SUPPORTED;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      if (a == CUDA_R_8I && c == CUDA_R_32I) return *scale = CUDA_R_32I, CUBLAS_STATUS_SUCCESS;
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t gemm(const GemmCall& c) {
  if (c.fault.fail) return static_cast<cublasStatus_t>(c.fault.status);
  if (c.handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const CublasHandle& h = *checked_cublas_handle(c.handle);  // a garbage handle faults here
  if (cublasStatus_t s = validate(c); s != CUBLAS_STATUS_SUCCESS) return s;
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (int s = standin_shape_fault(c.m, c.n, c.k); s != 0) return static_cast<cublasStatus_t>(s);
  if (empty(c)) return CUBLAS_STATUS_SUCCESS;
  if (cublasStatus_t s = ensure_library_workspace(const_cast<CublasHandle&>(h)); s != CUBLAS_STATUS_SUCCESS) return s;
  // On a capturing stream the GEMM is recorded, to run at each launch of the graph; the launch
  // cuBLAS makes fails on a stream whose capture was invalidated.
  const int how = standin_capture_enqueue(h.stream);
  if (how > 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (how == STANDIN_RECORD && (!c.via_lt || c.fault.async_error)) return capture(h, {c}, c.fault);
  if (c.fault.async_error) {  // the "kernel" faults: nothing is computed, the launch succeeded
    standin_raise_scripted_fault(c.fault);
    return CUBLAS_STATUS_SUCCESS;
  }
  const int sticky_before = standin_sticky_error();
  // Captured through cuBLASLt, cublasLtMatmul records the node (and reads the operands at launches).
  const cublasStatus_t s = how == STANDIN_RECORD ? via_lt(h, c) : execute(h, c);
  if (s == CUBLAS_STATUS_SUCCESS && c.fault.corrupt && standin_sticky_error() == sticky_before) {
    if (how != STANDIN_RECORD) {
      corrupt(c);
    } else if (capture_work(h.stream, "gemm", [c] {  // after cuBLASLt's node, at each launch
                 corrupt(c);
                 return 0;
               }) != 0) {
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  }
  return s;
}

cublasStatus_t gemm_grouped(cublasHandle_t handle, const std::vector<GemmCall>& groups) {
  const standin_fault_action fault = groups.empty() ? standin_fault_action{} : groups[0].fault;
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const CublasHandle& h = *checked_cublas_handle(handle);
  for (const GemmCall& g : groups)
    if (cublasStatus_t s = validate(g); s != CUBLAS_STATUS_SUCCESS) return s;
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  for (const GemmCall& g : groups)
    if (int s = standin_shape_fault(g.m, g.n, g.k); s != 0) return static_cast<cublasStatus_t>(s);
  if (cublasStatus_t s = ensure_library_workspace(const_cast<CublasHandle&>(h)); s != CUBLAS_STATUS_SUCCESS) return s;
  const int how = standin_capture_enqueue(h.stream);
  if (how > 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (how == STANDIN_RECORD) return capture(h, groups, fault);
  if (fault.async_error) {
    standin_raise_scripted_fault(fault);
    return CUBLAS_STATUS_SUCCESS;
  }
  const int sticky_before = standin_sticky_error();
  const GemmCall* first_output = nullptr;
  for (const GemmCall& g : groups) {
    if (empty(g)) continue;
    if (cublasStatus_t s = execute(h, g); s != CUBLAS_STATUS_SUCCESS) return s;
    if (standin_sticky_error() != sticky_before) return CUBLAS_STATUS_SUCCESS;  // a group faulted
    if (first_output == nullptr) first_output = &g;
  }
  if (fault.corrupt && first_output) corrupt(*first_output);
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace standin::blas

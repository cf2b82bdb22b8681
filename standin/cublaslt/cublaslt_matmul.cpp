// cublasLtMatmul and the heuristic in front of it. Both first turn the descriptors into a
// checked plan (shape from the layouts, types, epilogue), so an unsupported problem is refused
// the same way by cublasLtMatmulAlgoGetHeuristic (no algorithm) and by cublasLtMatmul. On a
// capturing stream cublasLtMatmul records the plan, to compute it at each launch of the graph.
#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "blas_handles.h"
#include "capture_work.h"
#include "gemm_core.h"
#include "lt_algorithms.h"
#include "lt_block_scales.h"
#include "lt_descriptors.h"
#include "lt_layouts.h"
#include "lt_log.h"
#include "lt_plan.h"
#include "lt_planar.h"
#include "standin_private.h"

using namespace standin;

namespace {

constexpr int kIllegalAddress = 700;


// The handle check shared by every call that takes one: null is NOT_INITIALIZED, anything
// that is neither a cuBLASLt nor a cuBLAS handle (PyTorch passes the latter) crashes.
bool handle_ok(cublasLtHandle_t h) {
  if (h == nullptr) return false;
  checked_lt_handle_device(h);
  return true;
}


// A known algorithm (checked by the caller) configured within its capabilities, serving the
// descriptor's compute type.
bool algo_runs(const LtAlgo& algo, const LtMatmulDesc& desc) {
  return lt_algo_config_ok(algo) && lt_algo_serves(*find_lt_algo(algo.id), desc.compute_type);
}

void init_algo(cublasLtMatmulAlgo_t* algo, int id) {
  std::memset(algo, 0, sizeof *algo);
  LtAlgo& a = *reinterpret_cast<LtAlgo*>(algo);
  a.magic = kLtAlgoMagic;
  a.id = id;
  a.tile_id = CUBLASLT_MATMUL_TILE_UNDEFINED;
  a.splitk_num = 1;
  a.reduction_scheme = CUBLASLT_REDUCTION_SCHEME_NONE;
  a.stages_id = CUBLASLT_MATMUL_STAGES_UNDEFINED;
}

// The field of a CUBLASLT_ALGO_CONFIG_* attribute and its size; *field nullptr if unknown.
size_t config_field(LtAlgo& a, cublasLtMatmulAlgoConfigAttributes_t attr, void** field) {
  switch (attr) {
    case CUBLASLT_ALGO_CONFIG_ID: *field = &a.id; return sizeof a.id;
    case CUBLASLT_ALGO_CONFIG_TILE_ID: *field = &a.tile_id; return sizeof a.tile_id;
    case CUBLASLT_ALGO_CONFIG_SPLITK_NUM: *field = &a.splitk_num; return sizeof a.splitk_num;
    case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME: *field = &a.reduction_scheme; return sizeof a.reduction_scheme;
    case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING: *field = &a.cta_swizzling; return sizeof a.cta_swizzling;
    case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION: *field = &a.custom_option; return sizeof a.custom_option;
    case CUBLASLT_ALGO_CONFIG_STAGES_ID: *field = &a.stages_id; return sizeof a.stages_id;
    case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID: *field = &a.inner_shape_id; return sizeof a.inner_shape_id;
    case CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID: *field = &a.cluster_shape_id; return sizeof a.cluster_shape_id;
    default: *field = nullptr; return 0;
  }
}

// The *GetAttribute contract: sizeInBytes 0 asks for the size; otherwise it must match (an
// array attribute takes any size and gets as much as fits).
cublasStatus_t copy_out(const void* value, size_t size, void* buf, size_t sizeInBytes, size_t* written,
                        bool array = false) {
  if (sizeInBytes == 0) {
    if (written == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
    *written = size;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (buf == nullptr || (!array && sizeInBytes != size)) return CUBLAS_STATUS_INVALID_VALUE;
  const size_t n = sizeInBytes < size ? sizeInBytes : size;
  std::memcpy(buf, value, n);
  if (written) *written = size;
  return CUBLAS_STATUS_SUCCESS;
}

void fill_result(cublasLtMatmulHeuristicResult_t* r) {
  std::memset(r, 0, sizeof *r);
  init_algo(&r->algo, kLtAlgos[0].id);
  r->workspaceSize = 0;
  r->state = CUBLAS_STATUS_SUCCESS;
  r->wavesCount = 1.0f;
}

const void* at(const void* base, int64_t index, cudaDataType type) {
  return static_cast<const char*>(base) + index * static_cast<int64_t>(element_size(type));
}

// `plane`: a planar operand's imaginary plane, that many bytes away, must be device memory too.
bool reachable(const void* p, size_t bytes, int64_t plane = 0) {
  return bytes == 0 || (standin_device_accessible(p, bytes) &&
                        (plane == 0 || standin_device_accessible(static_cast<const char*>(p) + plane, bytes)));
}

cublasStatus_t device_fault() {
  standin_set_sticky_error(kIllegalAddress);
  return CUBLAS_STATUS_SUCCESS;
}

double load_scale(const void* p) {
  float f = 1.0f;
  if (p) std::memcpy(&f, p, sizeof f);
  return f;
}

// Validated, non-empty problem: read the scalars, check every operand is device memory, compute.
cublasStatus_t execute(const LtMatmulDesc& desc, const Plan& plan, const void* alpha, const void* beta, const void* A,
                       const void* B, const void* C, void* D) {
  const size_t scalar = element_size(plan.scale_type);
  const size_t vector = scalar * static_cast<size_t>(plan.m);
  const int32_t mode = desc.pointer_mode;
  const bool alpha_vector = mode >= CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
  const bool beta_vector = mode == CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
  const bool beta_zero = mode == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO;
  const bool beta_on_device = mode == CUBLASLT_POINTER_MODE_DEVICE || beta_vector;
  const bool alpha_on_device = mode != CUBLASLT_POINTER_MODE_HOST;
  if ((alpha_on_device && !reachable(alpha, alpha_vector ? vector : scalar)) ||
      (beta_on_device && !reachable(beta, beta_vector ? vector : scalar))) {
    return device_fault();
  }

  GemmProblem p;
  p.op_a = plan.op_a;
  p.op_b = plan.op_b;
  p.m = plan.m;
  p.n = plan.n;
  p.k = plan.k;
  p.scale_type = plan.scale_type;
  p.rounding = plan.rounding;
  p.alpha = alpha_vector ? 1.0 : load_scalar(alpha, plan.scale_type);
  p.beta = beta_zero ? 0.0 : (beta_vector ? 1.0 : load_scalar(beta, plan.scale_type));
  p.activation = plan.activation;
  p.bias_type = plan.bias_type;
  p.a = plan.a;
  p.b = plan.b;
  p.c = plan.c;
  p.d = plan.d;
  for (const void* s : {desc.a_scale_pointer, desc.b_scale_pointer, desc.c_scale_pointer, desc.d_scale_pointer})
    if (s != nullptr && !reachable(s, sizeof(float))) return device_fault();
  if (desc.amax_d_pointer != nullptr && !reachable(desc.amax_d_pointer, sizeof(float))) return device_fault();
  p.scale_a = load_scale(desc.a_scale_pointer);
  p.scale_b = load_scale(desc.b_scale_pointer);
  p.scale_c = load_scale(desc.c_scale_pointer);
  p.scale_d = load_scale(desc.d_scale_pointer);

  const bool reads_ab = plan.k > 0 && (alpha_vector || p.alpha != 0.0);
  const bool reads_c = beta_vector || p.beta != 0.0;
  const size_t a_bytes = reads_ab ? matrix_extent_bytes(plan.a_rows, plan.a_cols, plan.a) : 0;
  const size_t b_bytes = reads_ab ? matrix_extent_bytes(plan.b_rows, plan.b_cols, plan.b) : 0;
  const size_t c_bytes = reads_c ? matrix_extent_bytes(plan.m, plan.n, plan.c) : 0;
  const size_t d_bytes = matrix_extent_bytes(plan.m, plan.n, plan.d);
  const size_t bias_bytes = plan.bias ? element_size(plan.bias_type) * static_cast<size_t>(plan.m) : 0;
  if (plan.bias && desc.bias_pointer == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  // Member i of an operand: strided from its address, or read from its pointer array (which
  // the kernel reads from device memory: an unreachable array is a device fault).
  const size_t array_bytes = sizeof(void*) * static_cast<size_t>(plan.batch);
  if (plan.pointer_arrays && (!reachable(A, array_bytes) || !reachable(B, array_bytes) ||
                              !reachable(C, array_bytes) || !reachable(D, array_bytes))) {
    return device_fault();
  }
  auto member = [&](const void* base, int64_t i, int64_t stride, cudaDataType type) -> const void* {
    return plan.pointer_arrays ? static_cast<const void* const*>(base)[i] : at(base, i * stride, type);
  };
  for (int64_t i = 0; i < plan.batch; ++i) {
    const int64_t* plane = plan.planes.offset;
    if (!reachable(member(A, i, plan.a_stride, plan.a.type), a_bytes, plane[0]) ||
        !reachable(member(B, i, plan.b_stride, plan.b.type), b_bytes, plane[1]) ||
        !reachable(member(C, i, plan.c_stride, plan.c.type), c_bytes, plane[2]) ||
        !reachable(member(D, i, plan.d_stride, plan.d.type), d_bytes, plane[3]) ||
        (plan.bias && !reachable(at(desc.bias_pointer, i * desc.bias_batch_stride, plan.bias_type), bias_bytes))) {
      return device_fault();
    }
  }

  for (int64_t i = 0; i < plan.batch; ++i) {
    p.a.data = member(A, i, plan.a_stride, plan.a.type);
    p.b.data = member(B, i, plan.b_stride, plan.b.type);
    p.c.data = member(C, i, plan.c_stride, plan.c.type);
    p.d.data = member(D, i, plan.d_stride, plan.d.type);
    p.bias = plan.bias ? at(desc.bias_pointer, i * desc.bias_batch_stride, plan.bias_type) : nullptr;
    if (alpha_vector) p.alpha_vector = at(alpha, i * desc.alpha_vector_batch_stride, plan.scale_type);
    if (beta_vector) p.beta_vector = at(beta, i * desc.alpha_vector_batch_stride, plan.scale_type);
    p.amax_d = (i == 0) ? static_cast<float*>(desc.amax_d_pointer) : nullptr;
    if (plan.block_scaled) {
      bool fault = false;
      const cublasStatus_t s = lt_run_block_scaled(desc, p, plan.a_rows, plan.a_cols, plan.b_rows, plan.b_cols,
                                                   plan.a.col_stride, plan.b.col_stride, plan.d.col_stride, &fault);
      if (fault) return device_fault();
      if (s != CUBLAS_STATUS_SUCCESS) return s;
      continue;
    }
    if (plan.planes.any) run_planar_gemm(p, plan.planes);
    else run_gemm(p);
  }
  return CUBLAS_STATUS_SUCCESS;
}

// A matmul a capture records: the descriptor's settings and the plan as they were at the call,
// alpha and beta read then where they are host values (the pointer mode says which), everything
// else (operands, device scalars and vectors, bias, scale pointers) pointers read at each launch.
struct CapturedMatmul {
  LtMatmulDesc desc;
  Plan plan;
  const void* alpha;
  const void* beta;
  bool alpha_on_host, beta_on_host;
  alignas(16) unsigned char alpha_value[16] = {};
  alignas(16) unsigned char beta_value[16] = {};
  const void *a, *b, *c;
  void* d;
  standin_fault_action fault;

  CapturedMatmul(const LtMatmulDesc& de, const Plan& p, const void* al, const void* be, const void* A, const void* B,
                 const void* C, void* D, const standin_fault_action& f)
      : desc(de), plan(p), alpha(al), beta(be), a(A), b(B), c(C), d(D), fault(f) {
    alpha_on_host = desc.pointer_mode == CUBLASLT_POINTER_MODE_HOST;
    beta_on_host = alpha_on_host || desc.pointer_mode == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
    if (alpha_on_host) std::memcpy(alpha_value, alpha, element_size(plan.scale_type));
    if (beta_on_host) std::memcpy(beta_value, beta, element_size(plan.scale_type));
  }
  int run() const {
    if (fault.async_error) return fault.async_error;  // the "kernel" faults: nothing is computed
    const int sticky_before = standin_sticky_error();
    execute(desc, plan, alpha_on_host ? alpha_value : alpha, beta_on_host ? beta_value : beta, a, b, c, d);
    if (fault.corrupt && standin_sticky_error() == sticky_before) corrupt_first_element(d, plan.d.type);
    return 0;  // a fault of execute() is sticky already
  }
};

}  // namespace

extern "C" {

// One algorithm for every supported problem, needing no workspace.
STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
                                                             cublasLtMatmulDesc_t operationDesc,
                                                             cublasLtMatrixLayout_t Adesc,
                                                             cublasLtMatrixLayout_t Bdesc,
                                                             cublasLtMatrixLayout_t Cdesc,
                                                             cublasLtMatrixLayout_t Ddesc,
                                                             cublasLtMatmulPreference_t preference,
                                                             int requestedAlgoCount,
                                                             cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                                             int* returnAlgoCount) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoGetHeuristic");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (!handle_ok(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (operationDesc == nullptr || Adesc == nullptr || Bdesc == nullptr || Cdesc == nullptr || Ddesc == nullptr ||
      preference == nullptr || requestedAlgoCount < 1 || heuristicResultsArray == nullptr || returnAlgoCount == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  *returnAlgoCount = 0;
  Plan plan;
  if (cublasStatus_t s = make_plan("cublasLtMatmulAlgoGetHeuristic", *as_desc(operationDesc), *as_layout(Adesc),
                                   *as_layout(Bdesc), *as_layout(Cdesc),
                                   *as_layout(Ddesc), &plan);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  fill_result(&heuristicResultsArray[0]);
  *returnAlgoCount = 1;
  if (fault.async_error) standin_raise_scripted_fault(fault);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                       cudaDataType_t scaleType, cudaDataType_t Atype,
                                                       cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype,
                                                       int requestedAlgoCount, int algoIdsArray[],
                                                       int* returnAlgoCount) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoGetIds");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (!handle_ok(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (requestedAlgoCount < 1 || algoIdsArray == nullptr || returnAlgoCount == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *returnAlgoCount = 0;
  if (!types_supported(computeType, scaleType, Atype, Btype, Ctype, Dtype) &&
      !planar_types_supported(computeType, scaleType, Atype, Btype, Ctype, Dtype)) {
    return CUBLAS_STATUS_SUCCESS;  // (the types alone cannot say whether the layouts will be planar)
  }
  for (const LtAlgoInfo& a : kLtAlgos) {
    if (*returnAlgoCount == requestedAlgoCount) break;
    if (lt_algo_serves(a, computeType)) algoIdsArray[(*returnAlgoCount)++] = a.id;
  }
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                     cudaDataType_t scaleType, cudaDataType_t Atype,
                                                     cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype,
                                                     int algoId, cublasLtMatmulAlgo_t* algo) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoInit");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (!handle_ok(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  const LtAlgoInfo* info = find_lt_algo(algoId);
  if (algo == nullptr || info == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if ((!types_supported(computeType, scaleType, Atype, Btype, Ctype, Dtype) &&
       !planar_types_supported(computeType, scaleType, Atype, Btype, Ctype, Dtype)) ||
      !lt_algo_serves(*info, computeType)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  init_algo(algo, algoId);
  return CUBLAS_STATUS_SUCCESS;
}

// CUBLASLT_ALGO_CONFIG_*: each of the size cublasLt.h gives it; the id is read-only.
STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t* algo,
                                                                   cublasLtMatmulAlgoConfigAttributes_t attr,
                                                                   const void* buf, size_t sizeInBytes) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoConfigSetAttribute");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (algo == nullptr || algo->data[0] != kLtAlgoMagic || buf == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  void* field = nullptr;
  const size_t size = config_field(*reinterpret_cast<LtAlgo*>(algo), attr, &field);
  if (field == nullptr || attr == CUBLASLT_ALGO_CONFIG_ID || sizeInBytes != size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(field, buf, size);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                                   cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                                                                   size_t sizeInBytes, size_t* sizeWritten) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoConfigGetAttribute");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (algo == nullptr || algo->data[0] != kLtAlgoMagic) return CUBLAS_STATUS_INVALID_VALUE;
  LtAlgo copy = *reinterpret_cast<const LtAlgo*>(algo);
  void* field = nullptr;
  const size_t size = config_field(copy, attr, &field);
  if (field == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  return copy_out(field, size, buf, sizeInBytes, sizeWritten);
}

// CUBLASLT_ALGO_CAP_*: what a stand-in algorithm supports (its tiles, split-K and reduction
// schemes from lt_algorithms.h; one stage count, strided batches, out-of-place results, any
// epilogue it implements, both pointer modes).
STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                                cublasLtMatmulAlgoCapAttributes_t attr, void* buf,
                                                                size_t sizeInBytes, size_t* sizeWritten) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoCapGetAttribute");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (algo == nullptr || algo->data[0] != kLtAlgoMagic) return CUBLAS_STATUS_INVALID_VALUE;
  const LtAlgoInfo* info = find_lt_algo(reinterpret_cast<const LtAlgo*>(algo)->id);
  if (info == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  int32_t i32 = 0;
  uint32_t u32 = 0;
  uint64_t u64 = 0;
  const uint32_t kStages[] = {CUBLASLT_MATMUL_STAGES_UNDEFINED};
  switch (attr) {
    case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT: case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT:
      i32 = 1;
      return copy_out(&i32, sizeof i32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_SPLITK_SUPPORT:
      i32 = info->splitk ? 1 : 0;
      return copy_out(&i32, sizeof i32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_UPLO_SUPPORT:
    case CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX: case CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER:
    case CUBLASLT_ALGO_CAP_LD_NEGATIVE:
      return copy_out(&i32, sizeof i32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK:
      u32 = info->reduction_mask;
      return copy_out(&u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT:
      u32 = 1;
      return copy_out(&u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK:
      u32 = CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE;
      return copy_out(&u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_EPILOGUE_MASK:
      u32 = CUBLASLT_EPILOGUE_DEFAULT | CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS;
      return copy_out(&u32, sizeof u32, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS:
      u64 = CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA;
      return copy_out(&u64, sizeof u64, buf, sizeInBytes, sizeWritten);
    case CUBLASLT_ALGO_CAP_TILE_IDS:
      return copy_out(info->tiles.data(), info->tiles.size_bytes(), buf, sizeInBytes, sizeWritten, /*array=*/true);
    case CUBLASLT_ALGO_CAP_STAGES_IDS:
      return copy_out(kStages, sizeof kStages, buf, sizeInBytes, sizeWritten, /*array=*/true);
    default:
      return CUBLAS_STATUS_INVALID_VALUE;
  }
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                                      cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                                      cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                                      const cublasLtMatmulAlgo_t* algo,
                                                      cublasLtMatmulHeuristicResult_t* result) {
  const standin_fault_action fault = standin_enter("cublasLtMatmulAlgoCheck");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (!handle_ok(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (operationDesc == nullptr || Adesc == nullptr || Bdesc == nullptr || Cdesc == nullptr || Ddesc == nullptr ||
      algo == nullptr || result == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (algo->data[0] != kLtAlgoMagic) return CUBLAS_STATUS_INVALID_VALUE;
  Plan plan;
  if (cublasStatus_t s = make_plan("cublasLtMatmulAlgoCheck", *as_desc(operationDesc), *as_layout(Adesc), *as_layout(Bdesc),
                                   *as_layout(Cdesc),
                                   *as_layout(Ddesc), &plan);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (!algo_runs(*reinterpret_cast<const LtAlgo*>(algo), *as_desc(operationDesc))) return CUBLAS_STATUS_NOT_SUPPORTED;
  fill_result(result);
  return CUBLAS_STATUS_SUCCESS;
}

// D = epilogue(alpha * op(A) op(B) + beta * C), with the layouts' batches and the descriptor's
// scale pointers. `algo` may be null (the library then picks one); otherwise it must be a valid
// algorithm of a listed id (every one computes the same way).
STANDIN_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                             const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                                             const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                                             const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
                                             cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo,
                                             void* /*workspace*/, size_t /*workspaceSizeInBytes*/,
                                             cudaStream_t stream) {
  const standin_fault_action fault = standin_enter("cublasLtMatmul");
  if (fault.fail) return static_cast<cublasStatus_t>(fault.status);
  if (!handle_ok(lightHandle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (computeDesc == nullptr || Adesc == nullptr || Bdesc == nullptr || Cdesc == nullptr || Ddesc == nullptr ||
      alpha == nullptr || beta == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // A preset algorithm must be one AlgoInit or the heuristics made, of a listed id, configured
  // within its capabilities, for this compute type.
  const LtAlgo* preset = reinterpret_cast<const LtAlgo*>(algo);
  if (algo != nullptr && (algo->data[0] != kLtAlgoMagic || find_lt_algo(preset->id) == nullptr)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const LtMatmulDesc& desc = *as_desc(computeDesc);
  Plan plan;
  if (cublasStatus_t s = make_plan("cublasLtMatmul", desc, *as_layout(Adesc), *as_layout(Bdesc), *as_layout(Cdesc),
                                   *as_layout(Ddesc), &plan);
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (algo != nullptr && !algo_runs(*preset, desc)) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (standin_sticky_error() != 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (int s = standin_shape_fault(plan.m, plan.n, plan.k); s != 0) return static_cast<cublasStatus_t>(s);
  if (plan.m == 0 || plan.n == 0) return CUBLAS_STATUS_SUCCESS;
  if (plan.bias && desc.bias_pointer == nullptr) {
    lt_log_error("cublasLtMatmul", "The epilogue needs a bias vector: CUBLASLT_MATMUL_DESC_BIAS_POINTER is NULL.");
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // On a capturing stream the matmul is recorded, to run at each launch of the graph; the launch
  // cuBLASLt makes fails on a stream whose capture was invalidated.
  const int how = standin_capture_enqueue(stream);
  if (how > 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (how == STANDIN_RECORD) {
    const CapturedMatmul captured(desc, plan, alpha, beta, A, B, C, D, fault);
    return capture_work(stream, "matmul", [captured] { return captured.run(); }) == 0 ? CUBLAS_STATUS_SUCCESS
                                                                                      : CUBLAS_STATUS_EXECUTION_FAILED;
  }
  if (fault.async_error) {
    standin_raise_scripted_fault(fault);
    return CUBLAS_STATUS_SUCCESS;
  }
  const int sticky_before = standin_sticky_error();
  const cublasStatus_t s = execute(desc, plan, alpha, beta, A, B, C, D);
  if (s == CUBLAS_STATUS_SUCCESS && fault.corrupt && standin_sticky_error() == sticky_before) {
    corrupt_first_element(D, plan.d.type);
  }
  return s;
}

}  // extern "C"

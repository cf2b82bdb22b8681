// The replay tests' subject: a program that makes GEMM calls for the shim to record, so the tests
// can replay the records. Run with one mode:
//
//   every    each GEMM entry point of the hook list once (generated from the list, except the
//            cublasXt ones and cublasUint8gemmBias, which the stand-in lacks), cublasLtMatmul
//            with several descriptor sets, and the v1 API (replay_subjects_legacy.cpp)
//   shapes   cublasSgemm_v2 on three shapes: 8x8x8, 16x8x4, 5x4x3 (for STANDIN_FAIL_SHAPE)
//   async    cublasSgemm_v2 twice on the same operands (STANDIN_ASYNC_ERROR on the first fails
//            the second)
//   async-allocations  cublasSgemm_v2 twice, each on fresh operands (after an asynchronous
//            error on the first, the second's allocations fail and it gets null pointers)
//   nan      cublasSgemm_v2 with a NaN in A (for scans and dumps)
//   modes    cublasSgemm_v2 on a handle with its own stream, a workspace, device pointer mode and
//            TF32 math mode
//   invalid  cublasSgemm_v2 with lda below m (the library rejects it)
//   huge     cublasSgemm_v2 claiming 65536 x 65536 x 65536 on small buffers
//   grouped  cublasSgemmGroupedBatched (fp32), then cublasGemmGroupedBatchedEx (fp16): two groups
//            of different shapes and transposes, of 2 and 3 problems, beta 0 (for the dumps)
//
// Prints "<function> <status>" for each call. Exit status 0 unless set-up fails.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "spec/foreach.h"
#include "gemm_arguments.h"
#include "spec/hook_list.h"

void call_legacy_gemms();  // replay_subjects_legacy.cpp

namespace {

subjects::Memory g_memory;

// Entry points the CPU stand-in does not export: taking their address would fail to load there.
constexpr bool stand_in_lacks(std::string_view fn) {
  return fn.substr(0, 8) == "cublasXt" || fn == "cublasUint8gemmBias";
}

}  // namespace

#define SUBJECT_TYPE(type, name, tag) type
#define SUBJECT_ARG(type, name, tag) args.get<type>(#name)
#define SUBJECT_DEFINE(ret_, fn_, ...)                                                      \
  template <int = 0>                                                                       \
  void call_##fn_(void* handle) {                                                          \
    if constexpr (!stand_in_lacks(#fn_)) {                                                 \
      subjects::Arguments args(#fn_, handle, g_memory);                                    \
      using Real = ret_ (*)(CBS_MAP_COMMA(SUBJECT_TYPE, __VA_ARGS__));                     \
      ret_ status = static_cast<Real>(&::fn_)(CBS_MAP_COMMA(SUBJECT_ARG, __VA_ARGS__));    \
      std::printf("%s %d\n", #fn_, static_cast<int>(status));                              \
    }                                                                                      \
  }
#define SUBJECT_INVOKE(ret_, fn_, ...) call_##fn_(handle);
#define SUBJECT_YES(...) __VA_ARGS__
#define SUBJECT_NO(...)
#define SUBJECT_IF_kGemm SUBJECT_YES
#define SUBJECT_IF_kGemmBatched SUBJECT_YES
#define SUBJECT_IF_kGemmStridedBatched SUBJECT_YES
#define SUBJECT_IF_kGemmGrouped SUBJECT_YES
#define SUBJECT_IF_kLtMatmul SUBJECT_NO  // cublasLtMatmul needs descriptors: lt_matmuls() below
#define SUBJECT_IF_kLegacyGemm SUBJECT_NO
#define SUBJECT_IF_kOther SUBJECT_NO
#define SUBJECT_IF_kDevice SUBJECT_NO
#define SUBJECT_IF_kHandle SUBJECT_NO
#define SUBJECT_IF_kLtDescriptor SUBJECT_NO
#define SUBJECT_IF_kLibraryLoad SUBJECT_NO
#define SUBJECT_IF_kSync SUBJECT_NO
#define SUBJECT_IF_kMemory SUBJECT_NO
#define SUBJECT_DEFINE_ENTRY(lib_, ret_, fn_, fail_, family_, traits_, ...) SUBJECT_IF_##family_(SUBJECT_DEFINE(ret_, fn_, __VA_ARGS__))
#define SUBJECT_INVOKE_ENTRY(lib_, ret_, fn_, fail_, family_, traits_, ...) SUBJECT_IF_##family_(SUBJECT_INVOKE(ret_, fn_, __VA_ARGS__))

CUBLASSPY_HOOKS(SUBJECT_DEFINE_ENTRY)

namespace {

using cublasspy::DataType;

void* device_values(DataType type, int64_t elements, uint64_t seed) { return g_memory.device(type, elements, seed); }

struct LtCase {
  const char* what;
  cudaDataType ab, cd;
  cublasComputeType_t compute;
  cudaDataType scale;
  cublasOperation_t transa;
  bool row_order;
  int batch;
  uint32_t epilogue;
  bool separate_d;
  size_t workspace;
};

int lt_layout(cublasLtMatrixLayout_t* l, cudaDataType type, uint64_t rows, uint64_t cols, bool row_order, int batch,
              int64_t stride) {
  int failures = cublasLtMatrixLayoutCreate(l, type, rows, cols, static_cast<int64_t>(row_order ? cols : rows)) != 0;
  if (row_order) {
    cublasLtOrder_t order = CUBLASLT_ORDER_ROW;
    failures += cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order) != 0;
  }
  if (batch > 1) {
    failures += cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch) != 0;
    failures += cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride) != 0;
  }
  return failures;
}

// cublasLtMatmul on descriptors built through the API (so the shim shadows them).
void lt_matmul(cublasLtHandle_t lt, const LtCase& c) {
  constexpr uint64_t m = 5, n = 4, k = 3;
  const uint64_t a_rows = c.transa == CUBLAS_OP_N ? m : k, a_cols = c.transa == CUBLAS_OP_N ? k : m;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatmulDescCreate(&desc, c.compute, c.scale);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &c.transa, sizeof c.transa);
  const int64_t a_elems = static_cast<int64_t>(a_rows * a_cols), b_elems = static_cast<int64_t>(k * n),
                d_elems = static_cast<int64_t>(m * n);
  void* bias = nullptr;
  if (c.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &c.epilogue, sizeof c.epilogue);
    bias = device_values(static_cast<DataType>(c.cd), m, 77);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  }
  cublasLtMatrixLayout_t la, lb, lc, ld;
  lt_layout(&la, c.ab, a_rows, a_cols, c.row_order, c.batch, a_elems);
  lt_layout(&lb, c.ab, k, n, c.row_order, c.batch, b_elems);
  lt_layout(&lc, c.cd, m, n, c.row_order, c.batch, d_elems);
  lt_layout(&ld, c.cd, m, n, c.row_order, c.batch, d_elems);
  void* a = device_values(static_cast<DataType>(c.ab), a_elems * c.batch, 1);
  void* b = device_values(static_cast<DataType>(c.ab), b_elems * c.batch, 2);
  void* cm = device_values(static_cast<DataType>(c.cd), d_elems * c.batch, 3);
  void* d = c.separate_d ? device_values(static_cast<DataType>(c.cd), d_elems * c.batch, 4) : cm;
  void* workspace = nullptr;
  if (c.workspace) cudaMalloc(&workspace, c.workspace);
  const float alpha = 1.5f, beta = 0.5f;
  cublasStatus_t st = cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, cm, lc, d, ld, nullptr, workspace, c.workspace,
                                     nullptr);
  std::printf("cublasLtMatmul %d  # %s\n", static_cast<int>(st), c.what);
  for (auto l : {la, lb, lc, ld}) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
}

void lt_matmuls() {
  cublasLtHandle_t lt = nullptr;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasLtCreate failed\n");
    return;
  }
  const LtCase cases[] = {
      {"fp32, A transposed, in place, workspace", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T,
       false, 1, CUBLASLT_EPILOGUE_DEFAULT, false, 1 << 20},
      {"fp16, bias epilogue, separate D, batch 2", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,
       false, 2, CUBLASLT_EPILOGUE_BIAS, true, 0},
      {"bf16 to fp32, relu + bias", CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, false, 1,
       CUBLASLT_EPILOGUE_RELU_BIAS, true, 0},
      {"fp32, row order, A transposed, batch 3", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T,
       true, 3, CUBLASLT_EPILOGUE_DEFAULT, true, 0},
  };
  for (const LtCase& c : cases) lt_matmul(lt, c);
  cublasLtDestroy(lt);
}

// cublasSgemm_v2, m x n x k, column-major, no transposes, alpha 1.5, beta 0.5.
cublasStatus_t sgemm(cublasHandle_t h, int m, int n, int k, int lda, const void* a = nullptr) {
  const float alpha = 1.5f, beta = 0.5f;
  const int64_t a_elems = static_cast<int64_t>(lda) * k;
  void* A = a ? const_cast<void*>(a) : device_values(DataType::kR32F, a_elems, 11);
  void* B = device_values(DataType::kR32F, static_cast<int64_t>(k) * n, 12);
  void* C = device_values(DataType::kR32F, static_cast<int64_t>(m) * n, 13);
  cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, static_cast<float*>(A), lda,
                                  static_cast<float*>(B), k, &beta, static_cast<float*>(C), m);
  std::printf("cublasSgemm_v2 %d  # %d x %d x %d\n", static_cast<int>(st), m, n, k);
  return st;
}

// Grouped GEMMs as NVIDIA's samples make them: group 0 is 5 x 4 x 3 (N/N) of two problems,
// group 1 is 3 x 2 x 4 (T/T, a gap below C's rows) of three; alpha 1.5 and -0.75, beta 0, so the
// operand dumps (taken after the call) say all that went into the result.
void grouped_gemms(cublasHandle_t h) {
  const cublasOperation_t ta[2] = {CUBLAS_OP_N, CUBLAS_OP_T}, tb[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  const int m[2] = {5, 3}, n[2] = {4, 2}, k[2] = {3, 4}, lda[2] = {6, 4}, ldb[2] = {3, 2}, ldc[2] = {5, 4};
  const int size[2] = {2, 3};
  const float alpha[2] = {1.5f, -0.75f}, beta[2] = {0.0f, 0.0f};
  uint64_t seed = 100;
  for (DataType type : {DataType::kR32F, DataType::kR16F}) {
    std::vector<void*> a, b, c;
    for (int g = 0; g < 2; ++g) {
      for (int i = 0; i < size[g]; ++i) {
        a.push_back(device_values(type, int64_t{lda[g]} * (ta[g] == CUBLAS_OP_N ? k[g] : m[g]), seed++));
        b.push_back(device_values(type, int64_t{ldb[g]} * (tb[g] == CUBLAS_OP_N ? n[g] : k[g]), seed++));
        c.push_back(device_values(type, int64_t{ldc[g]} * n[g], seed++));
      }
    }
    void* da = g_memory.device_copy(a.data(), a.size() * sizeof(void*));
    void* db = g_memory.device_copy(b.data(), b.size() * sizeof(void*));
    void* dc = g_memory.device_copy(c.data(), c.size() * sizeof(void*));
    if (type == DataType::kR32F) {
      cublasStatus_t st = cublasSgemmGroupedBatched(h, ta, tb, m, n, k, alpha, static_cast<const float* const*>(da), lda,
                                                    static_cast<const float* const*>(db), ldb, beta,
                                                    static_cast<float* const*>(dc), ldc, 2, size);
      std::printf("cublasSgemmGroupedBatched %d\n", static_cast<int>(st));
    } else {
      cublasStatus_t st = cublasGemmGroupedBatchedEx(h, ta, tb, m, n, k, alpha, static_cast<const void* const*>(da),
                                                     CUDA_R_16F, lda, static_cast<const void* const*>(db), CUDA_R_16F, ldb,
                                                     beta, static_cast<void* const*>(dc), CUDA_R_16F, ldc, 2, size,
                                                     CUBLAS_COMPUTE_32F);
      std::printf("cublasGemmGroupedBatchedEx %d\n", static_cast<int>(st));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  if (mode == "every") {
    CUBLASSPY_HOOKS(SUBJECT_INVOKE_ENTRY)
    lt_matmuls();
    call_legacy_gemms();
  } else if (mode == "shapes") {
    sgemm(handle, 8, 8, 8, 8);
    sgemm(handle, 16, 8, 4, 16);
    sgemm(handle, 5, 4, 3, 5);
  } else if (mode == "async") {
    const float alpha = 1.5f, beta = 0.5f;
    float* A = static_cast<float*>(device_values(DataType::kR32F, 64, 11));
    float* B = static_cast<float*>(device_values(DataType::kR32F, 64, 12));
    float* C = static_cast<float*>(device_values(DataType::kR32F, 64, 13));
    for (int i = 0; i < 2; ++i) {
      cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A, 8, B, 8, &beta, C, 8);
      std::printf("cublasSgemm_v2 %d  # 8 x 8 x 8, the same operands\n", static_cast<int>(st));
    }
  } else if (mode == "async-allocations") {
    sgemm(handle, 8, 8, 8, 8);
    sgemm(handle, 8, 8, 8, 8);
  } else if (mode == "nan") {
    std::vector<float> a(5 * 3, 0.25f);
    a[4] = std::nanf("");
    sgemm(handle, 5, 4, 3, 5, g_memory.device_copy(a.data(), a.size() * sizeof(float)));
  } else if (mode == "modes") {
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    cublasSetStream(handle, stream);
    void* workspace = nullptr;
    cudaMalloc(&workspace, 1 << 20);
    cublasSetWorkspace(handle, workspace, 1 << 20);
    cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
    const float host_scalars[2] = {1.5f, 0.5f};
    float* scalars = static_cast<float*>(g_memory.device_copy(host_scalars, sizeof host_scalars));
    void* A = device_values(DataType::kR32F, 6 * 3, 21);
    void* B = device_values(DataType::kR32F, 3 * 4, 22);
    void* C = device_values(DataType::kR32F, 6 * 4, 23);
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 5, 4, 3, scalars, static_cast<float*>(A), 6,
                                    static_cast<float*>(B), 3, scalars + 1, static_cast<float*>(C), 6);
    std::printf("cublasSgemm_v2 %d  # modes\n", static_cast<int>(st));
    cudaStreamSynchronize(stream);
  } else if (mode == "invalid") {
    sgemm(handle, 8, 8, 8, 4);
  } else if (mode == "huge") {
    const float alpha = 1, beta = 0;
    void* small = device_values(DataType::kR32F, 16, 1);
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 65536, 65536, 65536, &alpha, static_cast<float*>(small),
                                    65536, static_cast<float*>(small), 65536, &beta, static_cast<float*>(small), 65536);
    std::printf("cublasSgemm_v2 %d  # huge\n", static_cast<int>(st));
  } else if (mode == "grouped") {
    grouped_gemms(handle);
  } else {
    std::fprintf(stderr, "usage: replay_subjects every|shapes|async|async-allocations|nan|modes|invalid|huge|grouped\n");
    return 2;
  }
  cudaDeviceSynchronize();
  cublasDestroy(handle);
  return 0;
}

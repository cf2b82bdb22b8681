// Correct programs shaped like NVIDIA's CUDALibrarySamples GEMMs (written for these tests, not
// copied): each passes its operands the way a sample does, so that the tests can require no
// finding under CUBLASSPY_CHECK/SCAN/DUMP and complete records. One mode per run:
//
//     --grouped-fp32   cublasSgemmGroupedBatched: 2 groups (2 problems of 2x2x2 with alpha 1,
//                      1 of 3x3x3 with alpha 2), A's largest element 9 (in the second group),
//                      C full of NaN and beta 0 in every group (as the samples do: beta 0
//                      leaves C unread, so the NaN is no input)
//     --grouped-fp16   cublasGemmGroupedBatchedEx, fp16 operands all 1.0, fp32 compute, 2 groups
//                      (2 problems of 4x4x4, 1 of 2x2x2), C full of NaN, beta 0
//     --lt-preset-algo LtDgemmPresetAlgo's pattern on fp32: AlgoGetIds, AlgoInit with the last id
//                      listed, AlgoConfigSetAttribute (CTA swizzling, splits), GetAttribute of the
//                      id, AlgoCheck, then cublasLtMatmul with that algorithm
//     --lt-dgemm-preset-algo  LtDgemmPresetAlgo itself: fp64, transa T, 4x4 with k 20000,
//                      descriptors initialized in caller storage (cublasLt*Init), AlgoInit with
//                      id 10 (not looked up with AlgoGetIds), tile 16x16, in-place reduction,
//                      split-K 256, cublasLtMatmul in place (C is D)
//     --lt-igemm-tensor  LtIgemmTensor's pattern: int8 A (4x4) and B (4x4) transformed with
//                      cublasLtMatrixTransform to COL32 and (B^T) COL4_4R2_8C, each into its own
//                      allocation of exactly the documented size, an int32 matmul N/T into COL32,
//                      the result transformed back to column order
//     --gemm-autotune  cublasGemmEx fp32 with CUBLAS_GEMM_AUTOTUNE (GemmExAutoTuning)
//     --lt-autotune    LtSgemmSimpleAutoTuning's pattern: AlgoGetHeuristic for up to 4
//                      algorithms, each run a few times and timed, the fastest run once more
//     --lt-bad-algo    AlgoInit with an id AlgoGetIds did not list: INVALID_VALUE, and the
//                      program aborts, as the samples' status checks do
//     --lt-c-is-d-beta-zero  LtFp8CustomFind's in-place call: D is C's memory but C's layout is
//                      another (there its type, here its leading dimension, 2x D's, so C's
//                      extent would pass its allocation), and beta is 0: cuBLASLt reads no C
//     --lt-pointer-array  cublasLtMatmul fp16, batch 2, every layout in
//                      CUBLASLT_BATCH_MODE_POINTER_ARRAY (A..D are device arrays of pointers)
//     --lt-emulated    LtDgemmEmulated's pattern: the library's version checked first
//                      (cublasLtGetVersion, GetProperty, as LtFp8Matmul does), an emulation
//                      descriptor on the stack (EmulationDescInit, five SetAttribute: EAGER,
//                      default special values, FIXED mantissa, 55 bits, offset 0, one
//                      GetAttribute back), attached to an fp64 matmul descriptor of compute type
//                      CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, the heuristic's algorithm, a
//                      16x16x64 DGEMM with alpha 2, beta 0
//     --lt-planar      LtPlanarComplex's pattern: cublasLtMatmul planar complex fp16 (4x4x4), fp32
//                      compute with a complex fp32 scale, alpha 1, beta 0, C is D, each operand
//                      one allocation with the imaginary plane first (plane offsets of -32
//                      bytes). A is 1+2i, B is 1-1i everywhere: D is 12+4i everywhere
//     --lt-planar-nan  the same with a NaN at (1, 2) of A's imaginary plane (a wrong program:
//                      the scan must find it; D's row 1 is NaN)
//     --lt-refused-algo  a preset algorithm cuBLASLt refuses: AlgoInit with id 0 (listed by
//                      AlgoGetIds), split-K 4 set through AlgoConfigSetAttribute although the
//                      algorithm has no split-K (CUBLASLT_ALGO_CAP_SPLITK_SUPPORT 0), then
//                      cublasLtMatmul: NOT_SUPPORTED is the expected status here
//     --lt-emulated-defaults  an emulation descriptor from cublasLtEmulationDescCreate with only
//                      the mantissa bit offset (3) and the bit count pointer set, attached to
//                      an fp64 matmul (compute CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, algo
//                      NULL), then detached (NULL) for a second matmul
//     --lt-nvfp4       LtNvfp4Matmul's call: A^T and B in CUDA_R_4F_E2M1 (64x128x256, two
//                      elements a byte), VEC16_UE4M3 block scales (2 for A, 0.5 for B) in
//                      allocations of the sample's size (getScaleTensorSize: the 128x4 tiles),
//                      C bf16, alpha 2, beta 1, D in E2M1 with D_SCALE 1 (scalar) and the block
//                      scales the matmul computes (D_OUT_SCALE, VEC16_UE4M3), read back
//     --lt-mxfp8       LtMxfp8Matmul's call: the same with e4m3 A^T and B, VEC32_UE8M0 scales
//                      (2 and 0.5), D e4m3 with computed VEC32_UE8M0 D_OUT_SCALE
//     --lt-nvfp4-short-a  the NVFP4 call with A's allocation half the bytes A needs (k * m / 4,
//                      as if a byte held four E2M1 elements): the bug the bounds check must
//                      catch; the stand-in faults and the program fails
//
// Linked against the real toolkit; run on the CPU stand-in (LD_LIBRARY_PATH=<build>/standin).
// Prints each status and the first output element of each problem; exit status 0 when every
// call succeeded and every result is right, 1 otherwise.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

template <typename T>
T* to_device(const std::vector<T>& host) {
  void* p = nullptr;
  expect(cudaMalloc(&p, host.size() * sizeof(T)) == cudaSuccess, "cudaMalloc");
  expect(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy");
  return static_cast<T*>(p);
}

template <typename T>
std::vector<T> to_host(const T* device, size_t count) {
  std::vector<T> host(count);
  expect(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy back");
  return host;
}

// Column-major reference product of one problem (m x k times k x n, no transposes).
std::vector<float> reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  std::vector<float> c(static_cast<size_t>(m) * n, 0.0f);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) c[i + j * m] += a[i + p * m] * b[p + j * k];
  return c;
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();

int grouped_fp32(cublasHandle_t handle) {
  constexpr int kGroups = 2;
  const int m[kGroups] = {2, 3}, n[kGroups] = {2, 3}, k[kGroups] = {2, 3}, size[kGroups] = {2, 1};
  const float alpha[kGroups] = {1.0f, 2.0f}, beta[kGroups] = {0.0f, 0.0f};
  const cublasOperation_t trans[kGroups] = {CUBLAS_OP_N, CUBLAS_OP_N};
  // Three problems: group 0 has two, group 1 one. A's largest element (in the last) is 9.
  const std::vector<std::vector<float>> a = {{2, 1, 4, 3}, {6, 5, 8, 7}, {9, 8, 7, 6, 5, 4, 3, 2, 1}};
  const std::vector<std::vector<float>> b = {{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 1, 0, 1, 0, 0, 0, 1}};
  const std::vector<int> dims = {2, 2, 3};
  std::vector<float*> da, db, dc;
  for (size_t p = 0; p < a.size(); ++p) {
    da.push_back(to_device(a[p]));
    db.push_back(to_device(b[p]));
    dc.push_back(to_device(std::vector<float>(a[p].size(), kNaN)));
  }
  float** a_array = to_device(da);
  float** b_array = to_device(db);
  float** c_array = to_device(dc);
  cublasStatus_t s = cublasSgemmGroupedBatched(handle, trans, trans, m, n, k, alpha, a_array, m, b_array, k, beta,
                                               c_array, m, kGroups, size);
  std::printf("cublasSgemmGroupedBatched %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasSgemmGroupedBatched");
  for (size_t p = 0; p < a.size(); ++p) {
    const int d = dims[p];
    std::vector<float> got = to_host(dc[p], static_cast<size_t>(d) * d);
    std::vector<float> want = reference(a[p], b[p], d, d, d);
    for (float& x : want) x *= alpha[p < 2 ? 0 : 1];
    std::printf("problem %zu: C[0] %g\n", p, got[0]);
    expect(got == want, "a grouped problem's result");
  }
  return s;
}

int grouped_fp16(cublasHandle_t handle) {
  constexpr int kGroups = 2, kProblems = 3;
  const int m[kGroups] = {4, 2}, size[kGroups] = {2, 1};
  const int dims[kProblems] = {4, 4, 2};
  const float alpha[kGroups] = {1.0f, 1.0f}, beta[kGroups] = {0.0f, 0.0f};
  const cublasOperation_t trans[kGroups] = {CUBLAS_OP_N, CUBLAS_OP_N};
  std::vector<__half*> da, db, dc;
  for (int p = 0; p < kProblems; ++p) {
    const size_t count = static_cast<size_t>(dims[p]) * dims[p];
    da.push_back(to_device(std::vector<__half>(count, __float2half(1.0f))));
    db.push_back(to_device(std::vector<__half>(count, __float2half(1.0f))));
    dc.push_back(to_device(std::vector<__half>(count, __float2half(kNaN))));
  }
  __half** a_array = to_device(da);
  __half** b_array = to_device(db);
  __half** c_array = to_device(dc);
  cublasStatus_t s = cublasGemmGroupedBatchedEx(
      handle, trans, trans, m, m, m, alpha, reinterpret_cast<const void* const*>(a_array), CUDA_R_16F, m,
      reinterpret_cast<const void* const*>(b_array), CUDA_R_16F, m, beta, reinterpret_cast<void* const*>(c_array),
      CUDA_R_16F, m, kGroups, size, CUBLAS_COMPUTE_32F);
  std::printf("cublasGemmGroupedBatchedEx %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasGemmGroupedBatchedEx");
  for (int p = 0; p < kProblems; ++p) {
    std::vector<__half> got = to_host(dc[p], static_cast<size_t>(dims[p]) * dims[p]);
    std::printf("problem %d: C[0] %g\n", p, __half2float(got[0]));
    for (const __half& x : got) expect(__half2float(x) == static_cast<float>(dims[p]), "a grouped fp16 result");
  }
  return s;
}

int lt_pointer_array() {
  constexpr int kDim = 4, kBatch = 2;
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  cublasLtMatmulDesc_t desc = nullptr;
  expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS, "desc");
  cublasLtMatrixLayout_t layout[4] = {};
  const int32_t batch = kBatch;
  const cublasLtBatchMode_t mode = CUBLASLT_BATCH_MODE_POINTER_ARRAY;
  for (auto& l : layout) {
    expect(cublasLtMatrixLayoutCreate(&l, CUDA_R_16F, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "layout");
    expect(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch) ==
               CUBLAS_STATUS_SUCCESS, "batch count");
    expect(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof mode) ==
               CUBLAS_STATUS_SUCCESS, "batch mode");
  }
  // Member p: A all (p + 1), B all 1.0, so D is k * (p + 1) everywhere.
  std::vector<__half*> da, db, dd;
  for (int p = 0; p < kBatch; ++p) {
    da.push_back(to_device(std::vector<__half>(kDim * kDim, __float2half(static_cast<float>(p + 1)))));
    db.push_back(to_device(std::vector<__half>(kDim * kDim, __float2half(1.0f))));
    dd.push_back(to_device(std::vector<__half>(kDim * kDim, __float2half(0.0f))));
  }
  __half** a_array = to_device(da);
  __half** b_array = to_device(db);
  __half** d_array = to_device(dd);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, a_array, layout[0], b_array, layout[1], &beta, d_array,
                                    layout[2], d_array, layout[3], nullptr, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  for (int p = 0; p < kBatch; ++p) {
    std::vector<__half> got = to_host(dd[p], kDim * kDim);
    std::printf("member %d: D[0] %g\n", p, __half2float(got[0]));
    for (const __half& x : got) expect(__half2float(x) == static_cast<float>(kDim * (p + 1)), "a member's result");
  }
  for (auto& l : layout) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  return s;
}

int lt_planar(bool plant_nan) {
  constexpr int kDim = 4;
  constexpr int64_t kPlane = kDim * kDim * sizeof(__half);  // bytes of one plane
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  cublasLtMatmulDesc_t desc = nullptr;
  expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_C_32F) == CUBLAS_STATUS_SUCCESS, "desc");
  cublasLtMatrixLayout_t layout[3] = {};
  const int64_t offset = -kPlane;  // imaginary plane first, then the real plane
  for (auto& l : layout) {
    expect(cublasLtMatrixLayoutCreate(&l, CUDA_C_16F, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "layout");
    expect(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &offset, sizeof offset) ==
               CUBLAS_STATUS_SUCCESS, "plane offset");
  }
  // Each allocation: the imaginary plane (kDim * kDim halves), then the real plane.
  auto planes = [&](float re, float im) {
    std::vector<__half> host(2 * kDim * kDim, __float2half(im));
    for (int i = kDim * kDim; i < 2 * kDim * kDim; ++i) host[i] = __float2half(re);
    return host;
  };
  std::vector<__half> a = planes(1.0f, 2.0f);
  if (plant_nan) a[1 + 2 * kDim] = __float2half(std::numeric_limits<float>::quiet_NaN());
  char* dev[3] = {reinterpret_cast<char*>(to_device(a)), reinterpret_cast<char*>(to_device(planes(1.0f, -1.0f))),
                  reinterpret_cast<char*>(to_device(planes(0.0f, 0.0f)))};
  const float alpha[2] = {1.0f, 0.0f}, beta[2] = {0.0f, 0.0f};
  // Each operand's address is its real plane, kPlane bytes into the allocation; C is D.
  cublasStatus_t s = cublasLtMatmul(lt, desc, alpha, dev[0] + kPlane, layout[0], dev[1] + kPlane, layout[1], beta,
                                    dev[2] + kPlane, layout[2], dev[2] + kPlane, layout[2], nullptr, nullptr, 0,
                                    nullptr);
  std::printf("cublasLtMatmul %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul (planar)");
  // D = sum over 4 of (1+2i)(1-i) = 4 (3+i): 12 in the real plane, 4 in the imaginary one.
  const std::vector<__half> d = to_host(reinterpret_cast<const __half*>(dev[2]), 2 * kDim * kDim);
  std::printf("D[0] %g%+gi\n", __half2float(d[kDim * kDim]), __half2float(d[0]));
  for (int i = 0; i < kDim * kDim; ++i) {
    if (plant_nan && i % kDim == 1) continue;  // row 1 holds the NaN's products
    expect(__half2float(d[i]) == 4.0f && __half2float(d[kDim * kDim + i]) == 12.0f, "a planar result");
  }
  for (auto& l : layout) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  return s;
}


// One fp32 cublasLtMatmul of 4x4 matrices (A all 1, B all 2, C zero): D is 8 everywhere.
struct LtProblem {
  static constexpr int kDim = 4;
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  LtProblem() {
    expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
    expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS, "desc");
    expect(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "layout");
    // The defaults, set explicitly as the samples do.
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    expect(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue) ==
               CUBLAS_STATUS_SUCCESS, "EPILOGUE");
    const cublasLtOrder_t order = CUBLASLT_ORDER_COL;
    expect(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order) ==
               CUBLAS_STATUS_SUCCESS, "ORDER");
    a = to_device(std::vector<float>(kDim * kDim, 1.0f));
    b = to_device(std::vector<float>(kDim * kDim, 2.0f));
    c = to_device(std::vector<float>(kDim * kDim, 0.0f));
  }
  ~LtProblem() {
    cublasLtMatrixLayoutDestroy(layout);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(lt);
  }
  cublasStatus_t run(const cublasLtMatmulAlgo_t* algo) {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasLtMatmul(lt, desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, algo, nullptr, 0,
                          nullptr);
  }
  void check_result() {
    std::vector<float> got = to_host(c, kDim * kDim);
    std::printf("D[0] %g\n", got[0]);
    for (float x : got) expect(x == 2.0f * kDim, "the matmul's result");
  }
};

int lt_preset_algo() {
  LtProblem p;
  int ids[8] = {};
  int count = 0;
  expect(cublasLtMatmulAlgoGetIds(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                  CUDA_R_32F, 8, ids, &count) == CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoGetIds");
  expect(count > 0, "an algorithm id");
  if (count == 0) return 1;
  cublasLtMatmulAlgo_t algo;
  expect(cublasLtMatmulAlgoInit(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                ids[count - 1], &algo) == CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoInit");
  const uint32_t swizzle = 1;
  const int32_t splits = 1;
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle) ==
             CUBLAS_STATUS_SUCCESS, "CTA_SWIZZLING");
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits) ==
             CUBLAS_STATUS_SUCCESS, "SPLITK_NUM");
  int32_t id = -1;
  size_t written = 0;
  expect(cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written) ==
             CUBLAS_STATUS_SUCCESS, "CONFIG_ID");
  expect(id == ids[count - 1], "the algorithm's id");
  uint32_t tiles[4] = {};
  expect(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, tiles, sizeof tiles, &written) ==
             CUBLAS_STATUS_SUCCESS, "CAP_TILE_IDS");
  cublasLtMatmulHeuristicResult_t result = {};
  expect(cublasLtMatmulAlgoCheck(p.lt, p.desc, p.layout, p.layout, p.layout, p.layout, &algo, &result) ==
             CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoCheck");
  cublasStatus_t s = p.run(&algo);
  std::printf("algo %d: cublasLtMatmul %d\n", id, static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  p.check_result();
  return s;
}

int lt_dgemm_preset_algo() {
  constexpr int kM = 4, kN = 4, kK = 20000;
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  // A (k x m, transposed) all 0.5, B (k x n) all 0.25: every element of D is 2 * k / 8.
  double* a = to_device(std::vector<double>(kK * kM, 0.5));
  double* b = to_device(std::vector<double>(kK * kN, 0.25));
  double* c = to_device(std::vector<double>(kM * kN, 0.0));
  cublasLtMatmulDescOpaque_t desc = {};
  cublasLtMatrixLayoutOpaque_t a_layout = {}, b_layout = {}, c_layout = {};
  cublasLtMatmulAlgo_t algo = {};
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  expect(cublasLtMatmulDescInit(&desc, CUBLAS_COMPUTE_64F, CUDA_R_64F) == CUBLAS_STATUS_SUCCESS, "DescInit");
  expect(cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa) ==
             CUBLAS_STATUS_SUCCESS, "TRANSA");
  expect(cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb) ==
             CUBLAS_STATUS_SUCCESS, "TRANSB");
  expect(cublasLtMatrixLayoutInit(&a_layout, CUDA_R_64F, kK, kM, kK) == CUBLAS_STATUS_SUCCESS, "A layout");
  expect(cublasLtMatrixLayoutInit(&b_layout, CUDA_R_64F, kK, kN, kK) == CUBLAS_STATUS_SUCCESS, "B layout");
  expect(cublasLtMatrixLayoutInit(&c_layout, CUDA_R_64F, kM, kN, kM) == CUBLAS_STATUS_SUCCESS, "C layout");
  const cublasStatus_t init = cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F,
                                                     CUDA_R_64F, CUDA_R_64F, 10, &algo);
  std::printf("cublasLtMatmulAlgoInit %d\n", static_cast<int>(init));
  expect(init == CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoInit");
  const cublasLtMatmulTile_t tile = CUBLASLT_MATMUL_TILE_16x16;
  const cublasLtReductionScheme_t reduction = CUBLASLT_REDUCTION_SCHEME_INPLACE;
  const int32_t splits = 256;
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile) ==
             CUBLAS_STATUS_SUCCESS, "TILE_ID");
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction,
                                              sizeof reduction) == CUBLAS_STATUS_SUCCESS, "REDUCTION_SCHEME");
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits) ==
             CUBLAS_STATUS_SUCCESS, "SPLITK_NUM");
  const double alpha = 2.0, beta = 0.0;
  const cublasStatus_t s = cublasLtMatmul(lt, &desc, &alpha, a, &a_layout, b, &b_layout, &beta, c, &c_layout, c,
                                          &c_layout, &algo, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul (algo 10, split-K 256) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  std::vector<double> got = to_host(c, kM * kN);
  std::printf("D[0] %g\n", got[0]);
  for (double x : got) expect(x == 2.0 * kK / 8, "the matmul's result");
  cublasLtDestroy(lt);
  return s;
}

int lt_igemm_tensor() {
  constexpr int kDim = 4;
  auto round_up = [](int v, int d) { return (v + d - 1) / d * d; };
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  std::vector<int8_t> a(kDim * kDim), b(kDim * kDim);
  for (int i = 0; i < kDim * kDim; ++i) a[i] = static_cast<int8_t>(i % 5 - 2), b[i] = static_cast<int8_t>(i % 3 - 1);
  int8_t* da = to_device(a);
  int8_t* db = to_device(b);
  int32_t* dc = to_device(std::vector<int32_t>(kDim * kDim, 0));
  const int lda_t = 32 * kDim, ldb_t = 32 * round_up(kDim, 8), ldc_t = 32 * kDim;
  int8_t* a_t = to_device(std::vector<int8_t>(round_up(kDim, 32) / 32 * lda_t, 0));
  int8_t* b_t = to_device(std::vector<int8_t>(round_up(kDim, 32) / 32 * ldb_t, 0));
  int32_t* c_t = to_device(std::vector<int32_t>(round_up(kDim, 32) / 32 * ldc_t, 0));
  cublasLtMatrixTransformDesc_t transform = nullptr;
  expect(cublasLtMatrixTransformDescCreate(&transform, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS, "TransformDescCreate");
  cublasLtMatmulDesc_t desc = nullptr;
  expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I) == CUBLAS_STATUS_SUCCESS, "desc");
  const cublasOperation_t op_n = CUBLAS_OP_N, op_t = CUBLAS_OP_T;
  expect(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_t, sizeof op_t) == CUBLAS_STATUS_SUCCESS,
         "TRANSB");
  cublasLtMatrixLayout_t la, lb, lc, la_t, lb_t, lc_t;
  const cublasLtOrder_t col32 = CUBLASLT_ORDER_COL32, col4 = CUBLASLT_ORDER_COL4_4R2_8C;
  expect(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "A layout");
  expect(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "B layout");
  expect(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "C layout");
  expect(cublasLtMatrixLayoutCreate(&la_t, CUDA_R_8I, kDim, kDim, lda_t) == CUBLAS_STATUS_SUCCESS, "A COL32");
  expect(cublasLtMatrixLayoutSetAttribute(la_t, CUBLASLT_MATRIX_LAYOUT_ORDER, &col32, sizeof col32) ==
             CUBLAS_STATUS_SUCCESS, "ORDER");
  expect(cublasLtMatrixLayoutCreate(&lb_t, CUDA_R_8I, kDim, kDim, ldb_t) == CUBLAS_STATUS_SUCCESS, "B^T COL4_4R2_8C");
  expect(cublasLtMatrixLayoutSetAttribute(lb_t, CUBLASLT_MATRIX_LAYOUT_ORDER, &col4, sizeof col4) ==
             CUBLAS_STATUS_SUCCESS, "ORDER");
  expect(cublasLtMatrixLayoutCreate(&lc_t, CUDA_R_32I, kDim, kDim, ldc_t) == CUBLAS_STATUS_SUCCESS, "C COL32");
  expect(cublasLtMatrixLayoutSetAttribute(lc_t, CUBLASLT_MATRIX_LAYOUT_ORDER, &col32, sizeof col32) ==
             CUBLAS_STATUS_SUCCESS, "ORDER");
  const float one = 1.0f, zero = 0.0f;
  expect(cublasLtMatrixTransform(lt, transform, &one, da, la, &zero, nullptr, nullptr, a_t, la_t, nullptr) ==
             CUBLAS_STATUS_SUCCESS, "cublasLtMatrixTransform A");
  expect(cublasLtMatrixTransformDescSetAttribute(transform, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &op_t, sizeof op_t) ==
             CUBLAS_STATUS_SUCCESS, "TRANSFORM_DESC_TRANSA");
  expect(cublasLtMatrixTransform(lt, transform, &one, db, lb, &zero, nullptr, nullptr, b_t, lb_t, nullptr) ==
             CUBLAS_STATUS_SUCCESS, "cublasLtMatrixTransform B");
  const int32_t alpha = 1, beta = 0;
  const cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, a_t, la_t, b_t, lb_t, &beta, c_t, lc_t, c_t, lc_t, nullptr,
                                          nullptr, 0, nullptr);
  std::printf("cublasLtMatmul (int8, COL32 x COL4_4R2_8C) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  expect(cublasLtMatrixTransformDescSetAttribute(transform, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &op_n, sizeof op_n) ==
             CUBLAS_STATUS_SUCCESS, "TRANSFORM_DESC_TRANSA");
  expect(cublasLtMatrixTransform(lt, transform, &one, c_t, lc_t, &zero, nullptr, nullptr, dc, lc, nullptr) ==
             CUBLAS_STATUS_SUCCESS, "cublasLtMatrixTransform C");
  std::vector<int32_t> got = to_host(dc, kDim * kDim);
  std::printf("D[0] %d\n", got[0]);
  for (int j = 0; j < kDim; ++j)
    for (int i = 0; i < kDim; ++i) {
      int32_t want = 0;
      for (int q = 0; q < kDim; ++q) want += a[i + q * kDim] * b[q + j * kDim];
      expect(got[i + j * kDim] == want, "the matmul's result");
    }
  for (cublasLtMatrixLayout_t l : {la, lb, lc, la_t, lb_t, lc_t}) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
  cublasLtMatrixTransformDescDestroy(transform);
  cublasLtDestroy(lt);
  return s;
}

int gemm_autotune(cublasHandle_t handle) {
  constexpr int kDim = 4;
  float* a = to_device(std::vector<float>(kDim * kDim, 1.0f));
  float* b = to_device(std::vector<float>(kDim * kDim, 2.0f));
  float* c = to_device(std::vector<float>(kDim * kDim, 0.0f));
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kDim, kDim, kDim, &alpha, a, CUDA_R_32F, kDim, b,
                                  CUDA_R_32F, kDim, &beta, c, CUDA_R_32F, kDim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_AUTOTUNE);
  std::printf("cublasGemmEx (autotune) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasGemmEx with CUBLAS_GEMM_AUTOTUNE");
  std::vector<float> got = to_host(c, kDim * kDim);
  for (float x : got) expect(x == 2.0f * kDim, "the GEMM's result");
  return s;
}

int lt_autotune() {
  LtProblem p;
  cublasLtMatmulPreference_t preference = nullptr;
  expect(cublasLtMatmulPreferenceCreate(&preference) == CUBLAS_STATUS_SUCCESS, "preference");
  cublasLtMatmulHeuristicResult_t results[4] = {};
  int count = 0;
  expect(cublasLtMatmulAlgoGetHeuristic(p.lt, p.desc, p.layout, p.layout, p.layout, p.layout, preference, 4, results,
                                        &count) == CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoGetHeuristic");
  expect(count > 0, "a heuristic result");
  int best = 0;
  double best_time = 1e30;
  for (int i = 0; i < count; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < 3; ++r) expect(p.run(&results[i].algo) == CUBLAS_STATUS_SUCCESS, "a timed matmul");
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t < best_time) best_time = t, best = i;
  }
  cublasStatus_t s = p.run(&results[best].algo);
  std::printf("best of %d: cublasLtMatmul %d\n", count, static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  p.check_result();
  cublasLtMatmulPreferenceDestroy(preference);
  return s;
}

int lt_c_is_d_beta_zero() {
  LtProblem p;
  cublasLtMatrixLayout_t c_layout = nullptr;
  expect(cublasLtMatrixLayoutCreate(&c_layout, CUDA_R_32F, LtProblem::kDim, LtProblem::kDim, 2 * LtProblem::kDim) ==
             CUBLAS_STATUS_SUCCESS, "C's layout");
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasLtMatmul(p.lt, p.desc, &alpha, p.a, p.layout, p.b, p.layout, &beta, p.c, c_layout, p.c,
                                    p.layout, nullptr, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul (C is D, beta 0) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  p.check_result();
  cublasLtMatrixLayoutDestroy(c_layout);
  return s;
}

int lt_emulated() {
  const size_t version = cublasLtGetVersion();
  int major = 0;
  expect(cublasLtGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS, "cublasLtGetProperty");
  expect(major >= 13 && static_cast<int>(version / 10000) == major, "the version, read two ways");
  std::printf("cublasLt %zu (runtime %zu)\n", version, cublasLtGetCudartVersion());
  constexpr int m = 16, n = 16, k = 64;
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  double* a = to_device(std::vector<double>(static_cast<size_t>(m) * k, 1.0));
  double* b = to_device(std::vector<double>(static_cast<size_t>(k) * n, 0.5));
  double* c = to_device(std::vector<double>(static_cast<size_t>(m) * n, 0.0));
  const size_t workspace_size = size_t{1} << 20;
  void* workspace = nullptr;
  expect(cudaMalloc(&workspace, workspace_size) == cudaSuccess, "the workspace");

  cublasLtEmulationDescOpaque_t emulation_storage = {};
  cublasLtEmulationDesc_t emulation = &emulation_storage;
  expect(cublasLtEmulationDescInit(emulation) == CUBLAS_STATUS_SUCCESS, "cublasLtEmulationDescInit");
  const cublasEmulationStrategy_t strategy = CUBLAS_EMULATION_STRATEGY_EAGER;
  const cudaEmulationSpecialValuesSupport special = CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT;
  const cudaEmulationMantissaControl control = CUDA_EMULATION_MANTISSA_CONTROL_FIXED;
  const int max_bits = 55, offset = 0;
  auto set = [&](cublasLtEmulationDescAttributes_t attr, const void* value, size_t size) {
    expect(cublasLtEmulationDescSetAttribute(emulation, attr, value, size) == CUBLAS_STATUS_SUCCESS,
           "cublasLtEmulationDescSetAttribute");
  };
  set(CUBLASLT_EMULATION_DESC_STRATEGY, &strategy, sizeof strategy);
  set(CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT, &special, sizeof special);
  set(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL, &control, sizeof control);
  set(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT, &max_bits, sizeof max_bits);
  set(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET, &offset, sizeof offset);
  int bits_back = 0;
  size_t written = 0;
  expect(cublasLtEmulationDescGetAttribute(emulation, CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT,
                                           &bits_back, sizeof bits_back, &written) == CUBLAS_STATUS_SUCCESS &&
             bits_back == 55 && written == sizeof bits_back,
         "cublasLtEmulationDescGetAttribute gives the bits back");

  cublasLtMatmulDescOpaque_t desc_storage = {};
  cublasLtMatmulDesc_t desc = &desc_storage;
  expect(cublasLtMatmulDescInit(desc, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, CUDA_R_64F) == CUBLAS_STATUS_SUCCESS,
         "cublasLtMatmulDescInit");
  expect(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, &emulation,
                                        sizeof emulation) == CUBLAS_STATUS_SUCCESS, "EMULATION_DESCRIPTOR");
  cublasLtMatrixLayoutOpaque_t la = {}, lb = {}, lc = {};
  expect(cublasLtMatrixLayoutInit(&la, CUDA_R_64F, m, k, m) == CUBLAS_STATUS_SUCCESS, "A's layout");
  expect(cublasLtMatrixLayoutInit(&lb, CUDA_R_64F, k, n, k) == CUBLAS_STATUS_SUCCESS, "B's layout");
  expect(cublasLtMatrixLayoutInit(&lc, CUDA_R_64F, m, n, m) == CUBLAS_STATUS_SUCCESS, "C's layout");
  cublasLtMatmulPreferenceOpaque_t preference = {};
  expect(cublasLtMatmulPreferenceInit(&preference) == CUBLAS_STATUS_SUCCESS, "preference");
  expect(cublasLtMatmulPreferenceSetAttribute(&preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_size,
                                              sizeof workspace_size) == CUBLAS_STATUS_SUCCESS, "MAX_WORKSPACE_BYTES");
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int returned = 0;
  expect(cublasLtMatmulAlgoGetHeuristic(lt, desc, &la, &lb, &lc, &lc, &preference, 1, &heuristic, &returned) ==
             CUBLAS_STATUS_SUCCESS && returned == 1, "cublasLtMatmulAlgoGetHeuristic");
  const double alpha = 2.0, beta = 0.0;
  const cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, a, &la, b, &lb, &beta, c, &lc, c, &lc, &heuristic.algo,
                                          workspace, workspace_size, nullptr);
  std::printf("cublasLtMatmul (emulated fp64) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  for (double x : to_host(c, static_cast<size_t>(m) * n)) expect(x == 2.0 * 0.5 * k, "the emulated DGEMM's result");
  cublasLtDestroy(lt);
  return s;
}

int lt_refused_algo() {
  LtProblem p;
  cublasLtMatmulAlgo_t algo;
  expect(cublasLtMatmulAlgoInit(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                0, &algo) == CUBLAS_STATUS_SUCCESS, "cublasLtMatmulAlgoInit");
  const int32_t splits = 4;
  expect(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits) ==
             CUBLAS_STATUS_SUCCESS, "SPLITK_NUM");
  const cublasStatus_t s = p.run(&algo);
  std::printf("cublasLtMatmul (algo 0, split-K 4) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul refuses the configuration");
  return s;
}

int lt_emulated_defaults() {
  constexpr int kDim = 8;
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  double* a = to_device(std::vector<double>(kDim * kDim, 1.0));
  double* b = to_device(std::vector<double>(kDim * kDim, 2.0));
  double* c = to_device(std::vector<double>(kDim * kDim, 0.0));
  int32_t* bits = to_device(std::vector<int32_t>(1, 0));
  cublasLtEmulationDesc_t emulation = nullptr;
  expect(cublasLtEmulationDescCreate(&emulation) == CUBLAS_STATUS_SUCCESS, "cublasLtEmulationDescCreate");
  const int32_t offset = 3;
  expect(cublasLtEmulationDescSetAttribute(emulation, CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET, &offset,
                                           sizeof offset) == CUBLAS_STATUS_SUCCESS, "MANTISSA_BIT_OFFSET");
  expect(cublasLtEmulationDescSetAttribute(emulation, CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER,
                                           &bits, sizeof bits) == CUBLAS_STATUS_SUCCESS, "MANTISSA_BIT_COUNT_POINTER");
  cublasLtMatmulDesc_t desc = nullptr;
  expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, CUDA_R_64F) == CUBLAS_STATUS_SUCCESS,
         "desc");
  expect(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, &emulation,
                                        sizeof emulation) == CUBLAS_STATUS_SUCCESS, "EMULATION_DESCRIPTOR");
  cublasLtMatrixLayout_t layout = nullptr;
  expect(cublasLtMatrixLayoutCreate(&layout, CUDA_R_64F, kDim, kDim, kDim) == CUBLAS_STATUS_SUCCESS, "layout");
  const double alpha = 1.0, beta = 0.0;
  cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, nullptr,
                                    nullptr, 0, nullptr);
  std::printf("cublasLtMatmul (emulation defaults) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  const cublasLtEmulationDesc_t none = nullptr;
  expect(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, &none, sizeof none) ==
             CUBLAS_STATUS_SUCCESS, "EMULATION_DESCRIPTOR NULL");
  s = cublasLtMatmul(lt, desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, nullptr, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul (no emulation descriptor) %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");
  for (double x : to_host(c, kDim * kDim)) expect(x == 2.0 * kDim, "the matmul's result");
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(desc);
  cublasLtEmulationDescDestroy(emulation);
  cublasLtDestroy(lt);
  return s;
}

// The narrow formats, decoded from their definitions, for checking results.
double e2m1_value(unsigned nibble) {
  const unsigned e = (nibble >> 1) & 3, m = nibble & 1;
  const double v = e == 0 ? 0.5 * m : std::ldexp(1.0 + 0.5 * m, static_cast<int>(e) - 1);
  return (nibble & 8) ? -v : v;
}
double e4m3_value(unsigned code) {
  const unsigned e = (code >> 3) & 15, m = code & 7;
  const double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, static_cast<int>(e) - 7);
  return (code & 0x80) ? -v : v;
}
double bf16_value(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

// Bytes of a VEC16/VEC32 scale tensor for a matrix stored inner x outer (the samples'
// getScaleTensorSize: 4 blocks along inner, 128 along outer per tile).
size_t block_scale_bytes(int inner, int outer, int vec) {
  return static_cast<size_t>((inner + 4 * vec - 1) / (4 * vec) * 4) * ((outer + 127) / 128 * 128);
}
size_t block_scale_offset(int outer, int block, int blocks) {
  return static_cast<size_t>((outer / 128 * ((blocks + 3) / 4) + block / 4) * 512 + (outer % 32) * 16 +
                             (outer % 128 / 32) * 4 + block % 4);
}

// LtNvfp4Matmul's and LtMxfp8Matmul's matmul: TN, 64x128x256, block-scaled A and B, bf16 C, a
// narrow D whose block scales the matmul computes. Checks D * its block scale against the
// product computed here, within half the format's largest step at that scale.
int lt_block_scaled(bool fp4, bool short_a = false) {
  constexpr int m = 64, n = 128, k = 256;
  const int vec = fp4 ? 16 : 32;
  const cudaDataType ab_type = fp4 ? CUDA_R_4F_E2M1 : CUDA_R_8F_E4M3;
  const cublasLtMatmulMatrixScale_t block_mode =
      fp4 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 : CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  const cublasLtMatmulMatrixScale_t scalar = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  cublasLtHandle_t lt = nullptr;
  expect(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
  cublasLtMatmulDesc_t desc = nullptr;
  expect(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS, "desc");
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* value, size_t size, const char* what) {
    expect(cublasLtMatmulDescSetAttribute(desc, attr, value, size) == CUBLAS_STATUS_SUCCESS, what);
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta, "TRANSA");
  set(CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb, "TRANSB");
  set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &block_mode, sizeof block_mode, "A_SCALE_MODE");
  set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &block_mode, sizeof block_mode, "B_SCALE_MODE");
  set(CUBLASLT_MATMUL_DESC_D_SCALE_MODE, &scalar, sizeof scalar, "D_SCALE_MODE");
  set(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, &block_mode, sizeof block_mode, "D_OUT_SCALE_MODE");

  // A (k x m stored) and B (k x n): bytes of a pattern (two E2M1 values a byte, or e4m3 below 8).
  const size_t a_bytes = fp4 ? size_t(k) * m / 2 : size_t(k) * m, b_bytes = fp4 ? size_t(k) * n / 2 : size_t(k) * n;
  std::vector<uint8_t> a(a_bytes), b(b_bytes);
  for (size_t i = 0; i < a.size(); ++i) a[i] = fp4 ? uint8_t((i * 37 + 3) % 256) : uint8_t((i * 7 % 0x50) | (i % 3 ? 0 : 0x80));
  for (size_t i = 0; i < b.size(); ++i) b[i] = fp4 ? uint8_t((i * 11 + 1) % 256) : uint8_t((i * 5 % 0x48) | (i % 4 ? 0 : 0x80));
  // Scales 2 and 0.5 (UE4M3 0x40 and 0x30, UE8M0 128 and 126) in every block, as the samples fill them.
  const uint8_t two = fp4 ? 0x40 : 128, half = fp4 ? 0x30 : 126;
  const size_t out_scale_bytes = block_scale_bytes(m, n, vec);
  uint8_t* da = to_device(short_a ? std::vector<uint8_t>(a.begin(), a.begin() + a.size() / 2) : a);
  uint8_t* db = to_device(b);
  uint8_t* a_scale = to_device(std::vector<uint8_t>(block_scale_bytes(k, m, vec), two));
  uint8_t* b_scale = to_device(std::vector<uint8_t>(block_scale_bytes(k, n, vec), half));
  std::vector<uint16_t> c(size_t(m) * n);
  for (size_t i = 0; i < c.size(); ++i) c[i] = uint16_t(0x3f80 + (i % 5) * 0x20);  // bf16 1, 1.25, 1.5, 1.75, 2
  uint16_t* dc = to_device(c);
  const size_t d_bytes = fp4 ? size_t(m) * n / 2 : size_t(m) * n;
  uint8_t* dd = to_device(std::vector<uint8_t>(d_bytes, 0));
  float* d_scale = to_device(std::vector<float>{1.0f});
  uint8_t* d_out_scale = to_device(std::vector<uint8_t>(out_scale_bytes, 0));
  set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale, "A_SCALE_POINTER");
  set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale, "B_SCALE_POINTER");
  if (fp4) set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale, sizeof d_scale, "D_SCALE_POINTER");
  set(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, &d_out_scale, sizeof d_out_scale, "D_OUT_SCALE_POINTER");

  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr, ld = nullptr;
  expect(cublasLtMatrixLayoutCreate(&la, ab_type, k, m, k) == CUBLAS_STATUS_SUCCESS, "A layout");
  expect(cublasLtMatrixLayoutCreate(&lb, ab_type, k, n, k) == CUBLAS_STATUS_SUCCESS, "B layout");
  expect(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m) == CUBLAS_STATUS_SUCCESS, "C layout");
  expect(cublasLtMatrixLayoutCreate(&ld, ab_type, m, n, m) == CUBLAS_STATUS_SUCCESS, "D layout");
  cublasLtMatmulPreference_t pref = nullptr;
  expect(cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS, "preference");
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ld, pref, 1, &result, &found);
  std::printf("cublasLtMatmulAlgoGetHeuristic %d (%d found)\n", static_cast<int>(s), found);
  expect(s == CUBLAS_STATUS_SUCCESS && found == 1, "heuristic");
  const float alpha = 2.0f, beta = 1.0f;
  s = cublasLtMatmul(lt, desc, &alpha, da, la, db, lb, &beta, dc, lc, dd, ld, &result.algo, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul %d\n", static_cast<int>(s));
  expect(s == CUBLAS_STATUS_SUCCESS, "cublasLtMatmul");

  const std::vector<uint8_t> d = to_host(dd, d_bytes), out_scale = to_host(d_out_scale, out_scale_bytes);
  auto element = [&](const std::vector<uint8_t>& v, size_t i) {
    return fp4 ? e2m1_value(i % 2 ? v[i / 2] >> 4 : v[i / 2] & 0xf) : e4m3_value(v[i]);
  };
  double worst = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += element(a, p + size_t(i) * k) * 2.0 * element(b, p + size_t(j) * k) * 0.5;
      const double want = 2.0 * acc + bf16_value(c[i + size_t(j) * m]);
      const uint8_t code = out_scale[block_scale_offset(j, i / vec, m / vec)];
      const double block_scale = fp4 ? e4m3_value(code) : std::ldexp(1.0, int(code) - 127);
      const double got = element(d, i + size_t(j) * m) * block_scale;
      // Half of E2M1's step from 4 to 6, or e4m3's relative half step: the largest rounding.
      const double bound = fp4 ? block_scale * 1.0 : std::fabs(want) / 16 + block_scale / 512;
      worst = std::max(worst, std::fabs(got - want) - bound);
      if (i == 0 && j == 0) std::printf("D[0] %g x %g (want %g)\n", element(d, 0), block_scale, want);
    }
  expect(worst <= 1e-6 * 1024, "D times its block scales");
  cublasLtMatmulPreferenceDestroy(pref);
  for (cublasLtMatrixLayout_t l : {la, lb, lc, ld}) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  return s;
}

[[noreturn]] void lt_bad_algo() {
  LtProblem p;
  cublasLtMatmulAlgo_t algo;
  const cublasStatus_t s = cublasLtMatmulAlgoInit(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                                  CUDA_R_32F, CUDA_R_32F, 12345, &algo);
  std::printf("cublasLtMatmulAlgoInit %d\n", static_cast<int>(s));
  std::fflush(stdout);
  std::abort();  // the samples' checkCublasStatus throws, and nothing catches it
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  cublasHandle_t handle = nullptr;
  expect(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  if (mode == "--grouped-fp32") grouped_fp32(handle);
  else if (mode == "--grouped-fp16") grouped_fp16(handle);
  else if (mode == "--lt-pointer-array") lt_pointer_array();
  else if (mode == "--lt-planar") lt_planar(false);
  else if (mode == "--lt-planar-nan") lt_planar(true);
  else if (mode == "--lt-preset-algo") lt_preset_algo();
  else if (mode == "--lt-dgemm-preset-algo") lt_dgemm_preset_algo();
  else if (mode == "--lt-igemm-tensor") lt_igemm_tensor();
  else if (mode == "--gemm-autotune") gemm_autotune(handle);
  else if (mode == "--lt-autotune") lt_autotune();
  else if (mode == "--lt-bad-algo") lt_bad_algo();
  else if (mode == "--lt-refused-algo") lt_refused_algo();
  else if (mode == "--lt-emulated-defaults") lt_emulated_defaults();
  else if (mode == "--lt-c-is-d-beta-zero") lt_c_is_d_beta_zero();
  else if (mode == "--lt-emulated") lt_emulated();
  else if (mode == "--lt-nvfp4") lt_block_scaled(/*fp4=*/true);
  else if (mode == "--lt-mxfp8") lt_block_scaled(/*fp4=*/false);
  else if (mode == "--lt-nvfp4-short-a") lt_block_scaled(/*fp4=*/true, /*short_a=*/true);
  else {
    std::printf("unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  expect(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
  cublasDestroy(handle);
  std::printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}

// Selftest of the CPU stand-in for the CUDA stack. Linked against the REAL toolkit libraries
// (so it references their versioned symbols) and run with LD_LIBRARY_PATH pointing at the
// stand-in: if it loads at all, the stand-in's sonames and symbol versions are right.
//
// Usage: standin_selftest <case>. Each case is one ctest entry (standin.<case>), most with the
// environment that sets up a fault; the fault plan is read once per process, so a case never
// changes it. Cases that must watch a crash or a hang fork a child and set the environment in
// the child before its first CUDA call.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "selftest_check.h"

void run_legacy_case();  // standin_selftest_legacy.cpp
void run_lt_planar_case();  // standin_selftest_planar.cpp
void run_library_workspace_case();  // standin_selftest_memory.cpp
void run_block_scales_case();  // standin_selftest_block_scales.cpp
// standin_selftest_graphs.cpp
void case_graph_capture();
void case_graph_blas();
void case_graph_rules();
void case_graph_fork_join();
void case_graph_illegal_address();
void case_graph_async_error();
void case_graph_driver();
void case_delayed_fault();  // standin_selftest_delayed.cpp

namespace {

using cd = std::complex<double>;

// ---- helpers -------------------------------------------------------------------------------

template <class T>
T* device_copy(const std::vector<T>& host) {
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, host.size() * sizeof(T)), cudaSuccess);
  CHECK_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return static_cast<T*>(p);
}

template <class T>
std::vector<T> host_copy(const T* device, size_t n) {
  std::vector<T> host(n);
  CHECK_EQ(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// Small values that are exact in every format the tests use (fp16, bf16, int8).
double value(size_t i, int salt) { return static_cast<double>(static_cast<int>((i * 7 + salt * 3) % 11) - 5) / 4.0; }

template <class T>
std::vector<T> filled(size_t n, int salt);

template <>
std::vector<float> filled<float>(size_t n, int salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(value(i, salt));
  return v;
}

template <>
std::vector<double> filled<double>(size_t n, int salt) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = value(i, salt);
  return v;
}

template <>
std::vector<cuComplex> filled<cuComplex>(size_t n, int salt) {
  std::vector<cuComplex> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = make_cuComplex(static_cast<float>(value(i, salt)), static_cast<float>(value(i, salt + 5)));
  return v;
}

template <>
std::vector<cuDoubleComplex> filled<cuDoubleComplex>(size_t n, int salt) {
  std::vector<cuDoubleComplex> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = make_cuDoubleComplex(value(i, salt), value(i, salt + 5));
  return v;
}

cd to_cd(float x) { return x; }
cd to_cd(double x) { return x; }
cd to_cd(cuComplex x) { return {x.x, x.y}; }
cd to_cd(cuDoubleComplex x) { return {x.x, x.y}; }
cd to_cd(__half x) { return static_cast<double>(__half2float(x)); }
cd to_cd(__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); }
cd to_cd(int32_t x) { return x; }
cd to_cd(int8_t x) { return x; }

// Column-major reference: C = alpha op(A) op(B) + beta C, in complex double.
struct Ref {
  char ta = 'N', tb = 'N';
  int64_t m, n, k, lda, ldb, ldc;
  cd alpha = 1.0, beta = 0.0;
};

template <class TA, class TB, class TC>
std::vector<cd> reference(const Ref& r, const std::vector<TA>& a, const std::vector<TB>& b, const std::vector<TC>& c) {
  std::vector<cd> out(c.size());
  for (size_t i = 0; i < c.size(); ++i) out[i] = to_cd(c[i]);
  auto op = [](char t, const auto& x, int64_t ld, int64_t i, int64_t j) {
    if (t == 'N') return to_cd(x[i + j * ld]);
    cd v = to_cd(x[j + i * ld]);
    return t == 'C' ? std::conj(v) : v;
  };
  for (int64_t j = 0; j < r.n; ++j)
    for (int64_t i = 0; i < r.m; ++i) {
      cd acc = 0.0;
      for (int64_t p = 0; p < r.k; ++p) acc += op(r.ta, a, r.lda, i, p) * op(r.tb, b, r.ldb, p, j);
      out[i + j * r.ldc] = r.alpha * acc + (r.beta == 0.0 ? cd(0.0) : r.beta * to_cd(c[i + j * r.ldc]));
    }
  return out;
}

template <class T>
void check_close(const std::vector<T>& got, const std::vector<cd>& want, double tol, const char* what) {
  CHECK_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const cd g = to_cd(got[i]);
    if (std::abs(g - want[i]) > tol * (1.0 + std::abs(want[i]))) {
      std::fprintf(stderr, "%s: element %zu is (%g,%g), expected (%g,%g)\n", what, i, g.real(), g.imag(),
                   want[i].real(), want[i].imag());
      std::exit(1);
    }
  }
}

cublasOperation_t op_of(char t) { return t == 'N' ? CUBLAS_OP_N : (t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C); }

// Stored rows of A / B for a reference problem.
int64_t rows_a(const Ref& r) { return r.ta == 'N' ? r.m : r.k; }
int64_t cols_a(const Ref& r) { return r.ta == 'N' ? r.k : r.m; }
int64_t rows_b(const Ref& r) { return r.tb == 'N' ? r.k : r.n; }
int64_t cols_b(const Ref& r) { return r.tb == 'N' ? r.n : r.k; }

// A problem with leading dimensions larger than the rows, so ld mistakes show.
Ref problem(char ta, char tb, int64_t m, int64_t n, int64_t k) {
  Ref r;
  r.ta = ta;
  r.tb = tb;
  r.m = m;
  r.n = n;
  r.k = k;
  r.lda = rows_a(r) + 2;
  r.ldb = rows_b(r) + 1;
  r.ldc = m + 3;
  return r;
}

cublasHandle_t make_handle() {
  cublasHandle_t h = nullptr;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  return h;
}

// One typed GEMM through a v2 entry point, checked against the reference.
template <class T, class Fn>
void typed_gemm_case(cublasHandle_t h, Fn fn, const Ref& r, T alpha, T beta, double tol, const char* what) {
  auto a = filled<T>(r.lda * cols_a(r), 1);
  auto b = filled<T>(r.ldb * cols_b(r), 2);
  auto c = filled<T>(r.ldc * r.n, 3);
  T* da = device_copy(a);
  T* db = device_copy(b);
  T* dc = device_copy(c);
  CHECK_EQ(fn(h, op_of(r.ta), op_of(r.tb), r.m, r.n, r.k, &alpha, da, r.lda, db, r.ldb, &beta, dc, r.ldc),
           CUBLAS_STATUS_SUCCESS);
  Ref rr = r;
  rr.alpha = to_cd(alpha);
  rr.beta = to_cd(beta);
  check_close(host_copy(dc, c.size()), reference(rr, a, b, c), tol, what);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

// Sgemm of a fixed small problem; returns the status and the result (C starts at zero).
struct SgemmRun {
  cublasStatus_t status;
  std::vector<float> c;
  std::vector<cd> expected;
};

SgemmRun run_sgemm(cublasHandle_t h, int m, int n, int k) {
  Ref r = problem('N', 'N', m, n, k);
  auto a = filled<float>(r.lda * k, 1);
  auto b = filled<float>(r.ldb * n, 2);
  std::vector<float> c(r.ldc * n, 0.0f);
  float* da = device_copy(a);
  float* db = device_copy(b);
  float* dc = device_copy(c);
  const float alpha = 1.0f, beta = 0.0f;
  SgemmRun run;
  run.status = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, r.lda, db, r.ldb, &beta, dc, r.ldc);
  run.c = host_copy(dc, c.size());
  run.expected = reference(r, a, b, c);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return run;
}

bool same(const std::vector<float>& got, const std::vector<cd>& want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (std::abs(to_cd(got[i]) - want[i]) > 1e-5) return false;
  return true;
}

// A cuBLASLt matmul of fp32 column-major matrices; returns its status.
cublasStatus_t lt_sgemm(cublasLtHandle_t lt, const Ref& r, const float* da, const float* db, float* dc,
                        cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT, const float* bias = nullptr) {
  cublasLtMatmulDesc_t desc;
  CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  int32_t ta = op_of(r.ta), tb = op_of(r.tb);
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
           CUBLAS_STATUS_SUCCESS);
  if (bias) {
    CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
             CUBLAS_STATUS_SUCCESS);
  }
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, rows_a(r), cols_a(r), r.lda), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, rows_b(r), cols_b(r), r.ldb), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, r.m, r.n, r.ldc), CUBLAS_STATUS_SUCCESS);
  const float alpha = static_cast<float>(r.alpha.real()), beta = static_cast<float>(r.beta.real());
  cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, da, la, db, lb, &beta, dc, lc, dc, lc, nullptr, nullptr, 0, nullptr);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  return s;
}

// Runs fn in a child process; returns the raw wait status.
int in_child(const std::function<void()>& fn) {
  std::fflush(nullptr);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fn();
    std::_Exit(0);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

bool died_of(int status, int sig) { return WIFSIGNALED(status) && WTERMSIG(status) == sig; }

// ---- cases: GEMM results ------------------------------------------------------------------

void case_gemm() {
  cublasHandle_t h = make_handle();
  int version = 0;
  CHECK_EQ(cublasGetVersion(h, &version), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(version, CUBLAS_VERSION);

  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      typed_gemm_case<float>(h, cublasSgemm_v2, problem(ta, tb, 5, 4, 3), 1.5f, -0.5f, 1e-5, "Sgemm");
  typed_gemm_case<double>(h, cublasDgemm_v2, problem('N', 'T', 6, 3, 5), 2.0, 0.25, 1e-12, "Dgemm");
  typed_gemm_case<cuComplex>(h, cublasCgemm_v2, problem('C', 'N', 4, 3, 5), make_cuComplex(1, 2),
                             make_cuComplex(0.5f, -1), 1e-5, "Cgemm");
  typed_gemm_case<cuDoubleComplex>(h, cublasZgemm_v2, problem('T', 'C', 3, 4, 2), make_cuDoubleComplex(-1, 0.5),
                                   make_cuDoubleComplex(0, 1), 1e-12, "Zgemm");
  typed_gemm_case<cuComplex>(h, cublasCgemm3m, problem('N', 'N', 3, 3, 3), make_cuComplex(1, 0),
                             make_cuComplex(0, 0), 1e-5, "Cgemm3m");

  // _64 entry points take int64_t everything.
  {
    Ref r = problem('T', 'N', 7, 2, 4);
    auto a = filled<float>(r.lda * cols_a(r), 1), b = filled<float>(r.ldb * cols_b(r), 2), c = filled<float>(r.ldc * r.n, 3);
    float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const float alpha = 1, beta = 1;
    CHECK_EQ(cublasSgemm_v2_64(h, CUBLAS_OP_T, CUBLAS_OP_N, int64_t{7}, int64_t{2}, int64_t{4}, &alpha, da, r.lda, db,
                               r.ldb, &beta, dc, r.ldc),
             CUBLAS_STATUS_SUCCESS);
    r.beta = 1;
    check_close(host_copy(dc, c.size()), reference(r, a, b, c), 1e-5, "Sgemm_v2_64");
  }

  // Hgemm: fp16 in and out (tolerance of fp16 rounding).
  {
    Ref r = problem('N', 'T', 4, 5, 6);
    std::vector<__half> a(r.lda * cols_a(r)), b(r.ldb * cols_b(r)), c(r.ldc * r.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = __float2half(static_cast<float>(value(i, 1)));
    for (size_t i = 0; i < b.size(); ++i) b[i] = __float2half(static_cast<float>(value(i, 2)));
    for (size_t i = 0; i < c.size(); ++i) c[i] = __float2half(static_cast<float>(value(i, 3)));
    __half *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const __half alpha = __float2half(0.5f), beta = __float2half(2.0f);
    CHECK_EQ(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 5, 6, &alpha, da, r.lda, db, r.ldb, &beta, dc, r.ldc),
             CUBLAS_STATUS_SUCCESS);
    r.alpha = 0.5;
    r.beta = 2.0;
    check_close(host_copy(dc, c.size()), reference(r, a, b, c), 2e-3, "Hgemm");
  }

  // GemmEx: fp16 and bf16 in/out with fp32 compute (these go through cublasLtMatmul), fp16 in
  // with fp32 out, int8 in with int32 out.
  auto gemm_ex = [&](auto a_tag, auto c_tag, cudaDataType at, cudaDataType ct, cublasComputeType_t compute, auto alpha,
                     auto beta, double tol, const char* what) {
    using TA = decltype(a_tag);
    using TC = decltype(c_tag);
    Ref r = problem('T', 'N', 5, 3, 8);
    std::vector<TA> a(r.lda * cols_a(r)), b(r.ldb * cols_b(r));
    std::vector<TC> c(r.ldc * r.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = TA(static_cast<float>(value(i, 1) * 4));
    for (size_t i = 0; i < b.size(); ++i) b[i] = TA(static_cast<float>(value(i, 2) * 4));
    for (size_t i = 0; i < c.size(); ++i) c[i] = TC(static_cast<float>(value(i, 3) * 4));
    TA *da = device_copy(a), *db = device_copy(b);
    TC* dc = device_copy(c);
    CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 5, 3, 8, &alpha, da, at, r.lda, db, at, r.ldb, &beta, dc, ct,
                          r.ldc, compute, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
             CUBLAS_STATUS_SUCCESS);
    r.alpha = static_cast<double>(alpha);
    r.beta = static_cast<double>(beta);
    check_close(host_copy(dc, c.size()), reference(r, a, b, c), tol, what);
  };
  gemm_ex(__half(), __half(), CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 1.0f, 0.5f, 2e-3, "GemmEx fp16");
  gemm_ex(__nv_bfloat16(), __nv_bfloat16(), CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1.0f, 0.5f, 1e-2,
          "GemmEx bf16");
  gemm_ex(__half(), float(), CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2.0f, -1.0f, 1e-5, "GemmEx fp16->fp32");
  gemm_ex(int8_t(), int32_t(), CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, int32_t{1}, int32_t{1}, 0.0, "GemmEx int8");
  gemm_ex(__half(), __half(), CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, __float2half(1.0f), __float2half(0.0f), 2e-3,
          "GemmEx fp16 compute 16F");

  // Strided batches, with strides larger than a matrix.
  {
    const int batch = 3;
    Ref r = problem('N', 'T', 4, 3, 5);
    const long long sa = r.lda * cols_a(r) + 7, sb = r.ldb * cols_b(r) + 3, sc = r.ldc * r.n + 5;
    auto a = filled<float>(sa * batch, 1), b = filled<float>(sb * batch, 2), c = filled<float>(sc * batch, 3);
    float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const float alpha = 1.25f, beta = -1.0f;
    CHECK_EQ(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 3, 5, &alpha, da, r.lda, sa, db, r.ldb, sb,
                                       &beta, dc, r.ldc, sc, batch),
             CUBLAS_STATUS_SUCCESS);
    auto got = host_copy(dc, c.size());
    r.alpha = 1.25;
    r.beta = -1.0;
    for (int i = 0; i < batch; ++i) {
      std::vector<float> ai(a.begin() + i * sa, a.begin() + (i + 1) * sa), bi(b.begin() + i * sb, b.begin() + (i + 1) * sb);
      std::vector<float> ci(c.begin() + i * sc, c.begin() + i * sc + r.ldc * r.n);
      std::vector<float> gi(got.begin() + i * sc, got.begin() + i * sc + r.ldc * r.n);
      check_close(gi, reference(r, ai, bi, ci), 1e-5, "SgemmStridedBatched");
    }
  }
  // GemmStridedBatchedEx with bf16 (through cuBLASLt, batch in the layouts).
  {
    const int batch = 2;
    Ref r = problem('N', 'N', 3, 2, 4);
    const long long sa = r.lda * cols_a(r), sb = r.ldb * cols_b(r), sc = r.ldc * r.n;
    std::vector<__nv_bfloat16> a(sa * batch), b(sb * batch), c(sc * batch);
    for (size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16(static_cast<float>(value(i, 1)));
    for (size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(static_cast<float>(value(i, 2)));
    for (size_t i = 0; i < c.size(); ++i) c[i] = __float2bfloat16(static_cast<float>(value(i, 3)));
    auto *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const float alpha = 1.0f, beta = 1.0f;
    CHECK_EQ(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 4, &alpha, da, CUDA_R_16BF, r.lda, sa, db,
                                        CUDA_R_16BF, r.ldb, sb, &beta, dc, CUDA_R_16BF, r.ldc, sc, batch,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             CUBLAS_STATUS_SUCCESS);
    auto got = host_copy(dc, c.size());
    r.beta = 1.0;
    for (int i = 0; i < batch; ++i) {
      std::vector<__nv_bfloat16> ai(a.begin() + i * sa, a.begin() + (i + 1) * sa);
      std::vector<__nv_bfloat16> bi(b.begin() + i * sb, b.begin() + (i + 1) * sb);
      std::vector<__nv_bfloat16> ci(c.begin() + i * sc, c.begin() + (i + 1) * sc);
      std::vector<__nv_bfloat16> gi(got.begin() + i * sc, got.begin() + (i + 1) * sc);
      check_close(gi, reference(r, ai, bi, ci), 1e-2, "GemmStridedBatchedEx bf16");
    }
  }

  // Pointer-array batches: the arrays themselves live in device memory.
  {
    const int batch = 2;
    Ref r = problem('T', 'T', 3, 4, 2);
    std::vector<std::vector<double>> a, b, c;
    std::vector<double*> pa, pb, pc;
    for (int i = 0; i < batch; ++i) {
      a.push_back(filled<double>(r.lda * cols_a(r), 1 + i));
      b.push_back(filled<double>(r.ldb * cols_b(r), 2 + i));
      c.push_back(filled<double>(r.ldc * r.n, 3 + i));
      pa.push_back(device_copy(a[i]));
      pb.push_back(device_copy(b[i]));
      pc.push_back(device_copy(c[i]));
    }
    double** dpa = device_copy(pa);
    double** dpb = device_copy(pb);
    double** dpc = device_copy(pc);
    const double alpha = 3.0, beta = 0.5;
    CHECK_EQ(cublasDgemmBatched(h, CUBLAS_OP_T, CUBLAS_OP_T, 3, 4, 2, &alpha, dpa, r.lda, dpb, r.ldb, &beta, dpc, r.ldc,
                                batch),
             CUBLAS_STATUS_SUCCESS);
    r.alpha = 3.0;
    r.beta = 0.5;
    for (int i = 0; i < batch; ++i)
      check_close(host_copy(pc[i], c[i].size()), reference(r, a[i], b[i], c[i]), 1e-12, "DgemmBatched");

    // The same arrays in host memory: the device cannot read them, the "kernel" faults.
    // (Checked in case illegal_address, which may poison its process.)
  }

  // Grouped batches: two groups with different shapes and sizes.
  {
    Ref g0 = problem('N', 'N', 3, 2, 4), g1 = problem('T', 'N', 2, 5, 3);
    std::vector<Ref> groups = {g0, g1};
    const int sizes[] = {1, 2};
    std::vector<std::vector<float>> a, b, c;
    std::vector<float*> pa, pb, pc;
    std::vector<const Ref*> owner;
    for (int g = 0; g < 2; ++g)
      for (int i = 0; i < sizes[g]; ++i) {
        const Ref& r = groups[g];
        a.push_back(filled<float>(r.lda * cols_a(r), 1 + i + g));
        b.push_back(filled<float>(r.ldb * cols_b(r), 2 + i));
        c.push_back(filled<float>(r.ldc * r.n, 3 + g));
        pa.push_back(device_copy(a.back()));
        pb.push_back(device_copy(b.back()));
        pc.push_back(device_copy(c.back()));
        owner.push_back(&groups[g]);
      }
    float** dpa = device_copy(pa);
    float** dpb = device_copy(pb);
    float** dpc = device_copy(pc);
    const cublasOperation_t ta[] = {CUBLAS_OP_N, CUBLAS_OP_T}, tb[] = {CUBLAS_OP_N, CUBLAS_OP_N};
    const int m[] = {3, 2}, n[] = {2, 5}, k[] = {4, 3};
    const int lda[] = {int(g0.lda), int(g1.lda)}, ldb[] = {int(g0.ldb), int(g1.ldb)}, ldc[] = {int(g0.ldc), int(g1.ldc)};
    const float alpha[] = {1.0f, 2.0f}, beta[] = {0.0f, 1.0f};
    CHECK_EQ(cublasSgemmGroupedBatched(h, ta, tb, m, n, k, alpha, dpa, lda, dpb, ldb, beta, dpc, ldc, 2, sizes),
             CUBLAS_STATUS_SUCCESS);
    groups[0].alpha = 1.0;
    groups[0].beta = 0.0;
    groups[1].alpha = 2.0;
    groups[1].beta = 1.0;
    for (size_t i = 0; i < pc.size(); ++i)
      check_close(host_copy(pc[i], c[i].size()), reference(*owner[i], a[i], b[i], c[i]), 1e-5, "SgemmGroupedBatched");

    // The Ex flavour: same problem again on the results (alpha/beta arrays of the scale type).
    std::vector<std::vector<float>> before;
    for (size_t i = 0; i < pc.size(); ++i) before.push_back(host_copy(pc[i], c[i].size()));
    CHECK_EQ(cublasGemmGroupedBatchedEx(h, ta, tb, m, n, k, alpha, reinterpret_cast<const void* const*>(dpa),
                                        CUDA_R_32F, lda, reinterpret_cast<const void* const*>(dpb), CUDA_R_32F, ldb,
                                        beta, reinterpret_cast<void* const*>(dpc), CUDA_R_32F, ldc, 2, sizes,
                                        CUBLAS_COMPUTE_32F),
             CUBLAS_STATUS_SUCCESS);
    for (size_t i = 0; i < pc.size(); ++i)
      check_close(host_copy(pc[i], c[i].size()), reference(*owner[i], a[i], b[i], before[i]), 1e-5,
                  "GemmGroupedBatchedEx");
  }

  // Pointer mode device: alpha and beta are read from device memory.
  {
    CHECK_EQ(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    cublasPointerMode_t mode;
    CHECK_EQ(cublasGetPointerMode(h, &mode), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(mode, CUBLAS_POINTER_MODE_DEVICE);
    Ref r = problem('N', 'N', 3, 3, 3);
    auto a = filled<float>(r.lda * 3, 1), b = filled<float>(r.ldb * 3, 2), c = filled<float>(r.ldc * 3, 3);
    float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    float* scalars = device_copy(std::vector<float>{-2.0f, 0.5f});
    CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 3, 3, scalars, da, r.lda, db, r.ldb, scalars + 1, dc, r.ldc),
             CUBLAS_STATUS_SUCCESS);
    r.alpha = -2.0;
    r.beta = 0.5;
    check_close(host_copy(dc, c.size()), reference(r, a, b, c), 1e-5, "Sgemm device scalars");
    CHECK_EQ(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
  }

  // beta == 0: C is not read, so NaN in C does not leak into the result.
  {
    Ref r = problem('N', 'N', 2, 2, 2);
    auto a = filled<float>(r.lda * 2, 1), b = filled<float>(r.ldb * 2, 2);
    std::vector<float> c(r.ldc * 2, NAN);
    float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const float alpha = 1, beta = 0;
    CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, da, r.lda, db, r.ldb, &beta, dc, r.ldc),
             CUBLAS_STATUS_SUCCESS);
    auto got = host_copy(dc, c.size());
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) CHECK(!std::isnan(got[i + j * r.ldc]));
  }

  // TF32 math: single-precision inputs lose their low mantissa bits; default math keeps them.
  {
    std::vector<float> a = {1.0f + 1.0f / 4096.0f}, b = {1.0f}, c = {0.0f};
    float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
    const float alpha = 1, beta = 0;
    CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, da, 1, db, 1, &beta, dc, 1), CUBLAS_STATUS_SUCCESS);
    CHECK(host_copy(dc, 1)[0] == a[0]);
    CHECK_EQ(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
    cublasMath_t math;
    CHECK_EQ(cublasGetMathMode(h, &math), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(math, CUBLAS_TF32_TENSOR_OP_MATH);
    CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, da, 1, db, 1, &beta, dc, 1), CUBLAS_STATUS_SUCCESS);
    CHECK(host_copy(dc, 1)[0] == 1.0f);
    CHECK_EQ(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_SUCCESS);
  }

  // Handle settings.
  {
    cudaStream_t s;
    CHECK_EQ(cudaStreamCreate(&s), cudaSuccess);
    CHECK_EQ(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
    cudaStream_t got = nullptr;
    CHECK_EQ(cublasGetStream(h, &got), CUBLAS_STATUS_SUCCESS);
    CHECK(got == s);
    void* ws = nullptr;
    CHECK_EQ(cudaMalloc(&ws, 1 << 20), cudaSuccess);
    CHECK_EQ(cublasSetWorkspace(h, ws, 1 << 20), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasSetWorkspace(h, static_cast<char*>(ws) + 4, 1024), CUBLAS_STATUS_INVALID_VALUE);  // misaligned
    CHECK_EQ(cublasSetMathMode(h, static_cast<cublasMath_t>(9)), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ(cublasSetPointerMode(h, static_cast<cublasPointerMode_t>(5)), CUBLAS_STATUS_INVALID_VALUE);
  }

  CHECK(std::strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
  CHECK(std::strcmp(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED), "the library was not initialized") == 0);
  CHECK_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);  // nothing above faulted
}

// ---- case: argument validation -------------------------------------------------------------

void case_validation() {
  cublasHandle_t h = make_handle();
  float* d = device_copy(std::vector<float>(64, 1.0f));
  const float one = 1.0f;
  auto sgemm = [&](cublasHandle_t hh, cublasOperation_t ta, int m, int n, int k, int lda, int ldb, int ldc) {
    return cublasSgemm(hh, ta, CUBLAS_OP_N, m, n, k, &one, d, lda, d, ldb, &one, d, ldc);
  };
  CHECK_EQ(sgemm(nullptr, CUBLAS_OP_N, 2, 2, 2, 2, 2, 2), CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, -1, 2, 2, 2, 2, 2), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, 2, 2, -3, 2, 2, 2), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, 4, 2, 2, 3, 2, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  CHECK_EQ(sgemm(h, CUBLAS_OP_T, 4, 2, 3, 3, 3, 4), CUBLAS_STATUS_SUCCESS);        // lda >= k for op T
  CHECK_EQ(sgemm(h, CUBLAS_OP_T, 4, 2, 3, 2, 3, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < k
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, 2, 2, 4, 2, 3, 2), CUBLAS_STATUS_INVALID_VALUE);  // ldb < k
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, 4, 2, 2, 4, 2, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  CHECK_EQ(sgemm(h, static_cast<cublasOperation_t>(7), 2, 2, 2, 2, 2, 2), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(sgemm(h, CUBLAS_OP_N, 0, 0, 0, 1, 1, 1), CUBLAS_STATUS_SUCCESS);  // empty, lds of 1 are fine
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, nullptr, d, 2, d, 2, &one, d, 2), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, 4, d, 2, 4, &one, d, 2, 4, -1),
           CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_64F, 2, d, CUDA_R_64F, 2, &one, d,
                        CUDA_R_64F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_NOT_SUPPORTED);  // fp64 data with fp32 compute
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d,
                        CUDA_R_32F, 2, static_cast<cublasComputeType_t>(12), CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_INVALID_VALUE);  // not a compute type
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d,
                        CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, static_cast<cublasGemmAlgo_t>(50)),
           CUBLAS_STATUS_NOT_SUPPORTED);  // not an algorithm
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d,
                        CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetStream(nullptr, nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_EQ(cublasDestroy(nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// ---- case: cuBLASLt --------------------------------------------------------------------------

void case_lt() {
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtGetVersion(), CUBLAS_VERSION);

  // Plain matmul, transposed A, in place (C == D).
  Ref r = problem('T', 'N', 5, 4, 3);
  r.alpha = 2.0;
  r.beta = 1.0;
  auto a = filled<float>(r.lda * cols_a(r), 1), b = filled<float>(r.ldb * cols_b(r), 2), c = filled<float>(r.ldc * r.n, 3);
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
  CHECK_EQ(lt_sgemm(lt, r, da, db, dc), CUBLAS_STATUS_SUCCESS);
  check_close(host_copy(dc, c.size()), reference(r, a, b, c), 1e-5, "LtMatmul");

  // Epilogues: bias (per row of D), relu, gelu.
  std::vector<float> bias = {1.0f, -2.0f, 0.5f, 3.0f, -1.0f};
  float* dbias = device_copy(bias);
  auto epilogue_case = [&](cublasLtEpilogue_t e, const float* bias_ptr, auto activation, const char* what) {
    CHECK_EQ(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    CHECK_EQ(lt_sgemm(lt, r, da, db, dc, e, bias_ptr), CUBLAS_STATUS_SUCCESS);
    auto want = reference(r, a, b, c);
    for (int64_t j = 0; j < r.n; ++j)
      for (int64_t i = 0; i < r.m; ++i) {
        double v = want[i + j * r.ldc].real() + (bias_ptr ? bias[i] : 0.0);
        want[i + j * r.ldc] = activation(v);
      }
    check_close(host_copy(dc, c.size()), want, 1e-5, what);
  };
  epilogue_case(CUBLASLT_EPILOGUE_BIAS, dbias, [](double v) { return v; }, "Lt BIAS");
  epilogue_case(CUBLASLT_EPILOGUE_RELU_BIAS, dbias, [](double v) { return v > 0 ? v : 0.0; }, "Lt RELU_BIAS");
  epilogue_case(CUBLASLT_EPILOGUE_RELU, nullptr, [](double v) { return v > 0 ? v : 0.0; }, "Lt RELU");
  epilogue_case(CUBLASLT_EPILOGUE_GELU, nullptr,
                [](double v) { return 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))); },
                "Lt GELU");
  CHECK_EQ(lt_sgemm(lt, r, da, db, dc, CUBLASLT_EPILOGUE_BIAS, nullptr), CUBLAS_STATUS_INVALID_VALUE);  // no bias
  CHECK_EQ(lt_sgemm(lt, r, da, db, dc, CUBLASLT_EPILOGUE_DRELU, nullptr), CUBLAS_STATUS_NOT_SUPPORTED);

  // A cuBLAS handle cast to cublasLtHandle_t is accepted (PyTorch does this).
  cublasHandle_t blas = make_handle();
  CHECK_EQ(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  CHECK_EQ(lt_sgemm(reinterpret_cast<cublasLtHandle_t>(blas), r, da, db, dc), CUBLAS_STATUS_SUCCESS);
  check_close(host_copy(dc, c.size()), reference(r, a, b, c), 1e-5, "LtMatmul with a cuBLAS handle");
  CHECK_EQ(lt_sgemm(nullptr, r, da, db, dc), CUBLAS_STATUS_NOT_INITIALIZED);

  // Row-major layouts and a strided batch of 2, with the heuristic in front.
  {
    const int64_t m = 3, n = 4, k = 2, batch = 2;
    // Row-major A (m x k, ld k+1), B (k x n, ld n), D (m x n, ld n+2).
    const int64_t lda = k + 1, ldb = n, ldd = n + 2;
    const int64_t sa = m * lda, sb = k * ldb, sd = m * ldd;
    auto ra = filled<float>(sa * batch, 4), rb = filled<float>(sb * batch, 5);
    std::vector<float> rd(sd * batch, 0.0f);
    float *dra = device_copy(ra), *drb = device_copy(rb), *drd = device_copy(rd);
    cublasLtMatmulDesc_t desc;
    CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    cublasLtMatrixLayout_t la, lb, ld;
    CHECK_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, lda), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, ldb), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, ldd), CUBLAS_STATUS_SUCCESS);
    const int32_t row = CUBLASLT_ORDER_ROW, count = batch;
    const int64_t strides[] = {sa, sb, sd};
    cublasLtMatrixLayout_t layouts[] = {la, lb, ld};
    for (int i = 0; i < 3; ++i) {
      CHECK_EQ(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row), CUBLAS_STATUS_SUCCESS);
      CHECK_EQ(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
               CUBLAS_STATUS_SUCCESS);
      CHECK_EQ(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                                sizeof strides[i]),
               CUBLAS_STATUS_SUCCESS);
    }
    // Attribute round trip and the documented size query.
    int64_t got_ld = 0;
    size_t written = 0;
    CHECK_EQ(cublasLtMatrixLayoutGetAttribute(ld, CUBLASLT_MATRIX_LAYOUT_LD, &got_ld, sizeof got_ld, &written),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(got_ld, ldd);
    CHECK_EQ(written, sizeof(int64_t));
    CHECK_EQ(cublasLtMatrixLayoutGetAttribute(ld, CUBLASLT_MATRIX_LAYOUT_ROWS, nullptr, 0, &written), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(written, sizeof(uint64_t));
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(ld, CUBLASLT_MATRIX_LAYOUT_LD, &got_ld, 4), CUBLAS_STATUS_INVALID_VALUE);

    cublasLtMatmulPreference_t pref;
    CHECK_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
    const uint64_t workspace = 1 << 20;
    CHECK_EQ(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace),
             CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t result[4];
    int found = 0;
    CHECK_EQ(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 4, result, &found), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(found, 1);
    CHECK_EQ(result[0].workspaceSize, 0);
    CHECK_EQ(result[0].state, CUBLAS_STATUS_SUCCESS);
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_EQ(cublasLtMatmul(lt, desc, &alpha, dra, la, drb, lb, &beta, drd, ld, drd, ld, &result[0].algo, nullptr, 0, nullptr),
             CUBLAS_STATUS_SUCCESS);
    auto got = host_copy(drd, rd.size());
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) acc += ra[bi * sa + i * lda + p] * rb[bi * sb + p * ldb + j];
          CHECK(std::fabs(got[bi * sd + i * ldd + j] - acc) < 1e-5);
        }
    // A shape that does not fit: k of A (2) against rows of B (3).
    cublasLtMatrixLayout_t bad;
    CHECK_EQ(cublasLtMatrixLayoutCreate(&bad, CUDA_R_32F, 3, n, n), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmul(lt, desc, &alpha, dra, la, drb, bad, &beta, drd, ld, drd, ld, nullptr, nullptr, 0, nullptr),
             CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, bad, ld, ld, pref, 1, result, &found), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ(found, 0);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(bad);
  }

  // fp16 inputs, fp32 output, with the descriptor initialized in caller storage; then fp8 with
  // scale factors: D = scale_d * (alpha * scale_a * scale_b * A B).
  {
    const int64_t m = 4, n = 3, k = 5;
    std::vector<__half> ha(m * k), hb(k * n);
    for (size_t i = 0; i < ha.size(); ++i) ha[i] = __float2half(static_cast<float>(value(i, 1)));
    for (size_t i = 0; i < hb.size(); ++i) hb[i] = __float2half(static_cast<float>(value(i, 2)));
    __half *dha = device_copy(ha), *dhb = device_copy(hb);
    float* dd = device_copy(std::vector<float>(m * n, 0.0f));
    cublasLtMatmulDescOpaque_t desc_storage;
    CHECK_EQ(cublasLtMatmulDescInit(&desc_storage, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    cublasLtMatrixLayoutOpaque_t la, lb, ld;
    CHECK_EQ(cublasLtMatrixLayoutInit(&la, CUDA_R_16F, m, k, m), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutInit(&lb, CUDA_R_16F, k, n, k), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutInit(&ld, CUDA_R_32F, m, n, m), CUBLAS_STATUS_SUCCESS);
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_EQ(cublasLtMatmul(lt, &desc_storage, &alpha, dha, &la, dhb, &lb, &beta, dd, &ld, dd, &ld, nullptr, nullptr, 0,
                            nullptr),
             CUBLAS_STATUS_SUCCESS);
    Ref rr;
    rr.m = m; rr.n = n; rr.k = k; rr.lda = m; rr.ldb = k; rr.ldc = m;
    check_close(host_copy(dd, m * n), reference(rr, ha, hb, std::vector<float>(m * n, 0.0f)), 1e-5, "Lt fp16->fp32");

    // fp8 (E4M3): 0.25 steps in [-1.25, 1.25] are exact.
    std::vector<uint8_t> fa(m * k), fb(k * n);
    auto e4m3 = [](double x) {  // encode the small exact values used here
      for (int code = 0; code < 0x7f; ++code) {
        int exp = (code >> 3) & 0xf, mant = code & 7;
        double v = exp == 0 ? std::ldexp(mant, -9) : std::ldexp(1.0 + mant / 8.0, exp - 7);
        if (v == std::fabs(x)) return static_cast<uint8_t>(code | (x < 0 ? 0x80 : 0));
      }
      return uint8_t{0};
    };
    for (size_t i = 0; i < fa.size(); ++i) fa[i] = e4m3(value(i, 1));
    for (size_t i = 0; i < fb.size(); ++i) fb[i] = e4m3(value(i, 2));
    uint8_t *dfa = device_copy(fa), *dfb = device_copy(fb);
    float* scales = device_copy(std::vector<float>{2.0f, 0.5f, 3.0f});
    const float* a_scale = scales;
    const float* b_scale = scales + 1;
    const float* d_scale = scales + 2;
    CHECK_EQ(cublasLtMatmulDescSetAttribute(&desc_storage, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmulDescSetAttribute(&desc_storage, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmulDescSetAttribute(&desc_storage, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale, sizeof d_scale),
             CUBLAS_STATUS_SUCCESS);
    const int32_t trans_t = CUBLAS_OP_T;  // fp8 GEMMs are "TN" in cuBLASLt: A stored k x m
    CHECK_EQ(cublasLtMatmulDescSetAttribute(&desc_storage, CUBLASLT_MATMUL_DESC_TRANSA, &trans_t, sizeof trans_t),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutInit(&la, CUDA_R_8F_E4M3, k, m, k), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutInit(&lb, CUDA_R_8F_E4M3, k, n, k), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmul(lt, &desc_storage, &alpha, dfa, &la, dfb, &lb, &beta, dd, &ld, dd, &ld, nullptr, nullptr, 0,
                            nullptr),
             CUBLAS_STATUS_SUCCESS);
    auto got = host_copy(dd, m * n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += value(p + i * k, 1) * value(p + j * k, 2);
        CHECK(std::fabs(got[i + j * m] - 3.0 * (2.0 * 0.5 * acc)) < 1e-5);
      }
  }

  CHECK_EQ(cublasLtMatmulDescCreate(nullptr, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasLtDestroy(nullptr), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// ---- case: the runtime and the driver ------------------------------------------------------

void case_runtime() {
  int count = -1, version = 0;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  CHECK_EQ(count, 1);
  CHECK_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 13000);
  CHECK_EQ(cudaDriverGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 13000);
  int dev = -1;
  CHECK_EQ(cudaGetDevice(&dev), cudaSuccess);
  CHECK_EQ(dev, 0);
  CHECK_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidDevice);  // recorded, then cleared
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
  cudaDeviceProp prop;
  CHECK_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  CHECK_EQ(prop.major, 9);
  CHECK(prop.totalGlobalMem > 0 && prop.multiProcessorCount > 0 && prop.warpSize == 32);
  CHECK(std::strlen(prop.name) > 0);
  int attr = 0;
  CHECK_EQ(cudaDeviceGetAttribute(&attr, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  CHECK_EQ(attr, 9);

  // Memory: allocation, copies in every direction, the checks on directions and ranges.
  CHECK_EQ(cudaFree(nullptr), cudaSuccess);
  void* zero = reinterpret_cast<void*>(1);
  CHECK_EQ(cudaMalloc(&zero, 0), cudaSuccess);
  CHECK(zero == nullptr);
  std::vector<int> host(256), back(256, 0);
  for (int i = 0; i < 256; ++i) host[i] = i * 3;
  int *d1 = nullptr, *d2 = nullptr;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&d1), 1024), cudaSuccess);
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&d2), 1024), cudaSuccess);
  CHECK_EQ(cudaMemcpy(d1, host.data(), 1024, cudaMemcpyHostToDevice), cudaSuccess);
  CHECK_EQ(cudaMemcpy(d2, d1, 1024, cudaMemcpyDeviceToDevice), cudaSuccess);
  CHECK_EQ(cudaMemcpy(back.data(), d2, 1024, cudaMemcpyDefault), cudaSuccess);
  CHECK(back == host);
  CHECK_EQ(cudaMemcpy(back.data(), host.data(), 1024, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // dst is host
  CHECK_EQ(cudaMemcpy(back.data(), host.data(), 1024, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  // src is host
  CHECK_EQ(cudaMemcpy(d1, d2, 2048, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);                   // past the end
  CHECK_EQ(cudaMemcpy(d1, d2, 16, static_cast<cudaMemcpyKind>(9)), cudaErrorInvalidMemcpyDirection);
  CHECK_EQ(cudaMemset(d1 + 1, 0xff, 8), cudaSuccess);
  CHECK_EQ(cudaMemcpy(back.data(), d1, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  CHECK(back[0] == 0 && back[1] == -1 && back[2] == -1 && back[3] == 9);
  CHECK_EQ(cudaMemset(host.data(), 0, 8), cudaErrorInvalidValue);
  CHECK_EQ(cudaFree(host.data()), cudaErrorInvalidValue);
  CHECK_EQ(cudaFree(d1 + 1), cudaErrorInvalidValue);  // not the start of an allocation

  // Pointer attributes through the runtime and the driver.
  void* pinned = nullptr;
  CHECK_EQ(cudaMallocHost(&pinned, 100), cudaSuccess);
  cudaPointerAttributes pa;
  CHECK_EQ(cudaPointerGetAttributes(&pa, d1 + 5), cudaSuccess);
  CHECK(pa.type == cudaMemoryTypeDevice && pa.device == 0 && pa.devicePointer == d1 + 5 && pa.hostPointer == nullptr);
  CHECK_EQ(cudaPointerGetAttributes(&pa, pinned), cudaSuccess);
  CHECK(pa.type == cudaMemoryTypeHost && pa.hostPointer == pinned);
  CHECK_EQ(cudaPointerGetAttributes(&pa, host.data()), cudaSuccess);
  CHECK(pa.type == cudaMemoryTypeUnregistered && pa.device == -2);
  CHECK_EQ(cudaFreeHost(d2), cudaErrorInvalidValue);
  CHECK_EQ(cudaFreeHost(pinned), cudaSuccess);

  CUdeviceptr inner = reinterpret_cast<CUdeviceptr>(d1 + 10);
  unsigned int type = 0;
  CHECK_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, inner), CUDA_SUCCESS);
  CHECK_EQ(type, CU_MEMORYTYPE_DEVICE);
  CUdeviceptr start = 0;
  size_t size = 0;
  int ordinal = -1;
  CUdeviceptr devptr = 0;
  CHECK_EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, inner), CUDA_SUCCESS);
  CHECK_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, inner), CUDA_SUCCESS);
  CHECK_EQ(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, inner), CUDA_SUCCESS);
  CHECK_EQ(cuPointerGetAttribute(&devptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, inner), CUDA_SUCCESS);
  CHECK(start == reinterpret_cast<CUdeviceptr>(d1) && size == 1024 && ordinal == 0 && devptr == inner);
  CHECK_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(host.data())),
           CUDA_ERROR_INVALID_VALUE);
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void* data[] = {&type, &ordinal};
  CHECK_EQ(cuPointerGetAttributes(2, which, data, reinterpret_cast<CUdeviceptr>(host.data())), CUDA_SUCCESS);
  CHECK(type == 0 && ordinal == -2);
  CUdeviceptr base = 0;
  CHECK_EQ(cuMemGetAddressRange(&base, &size, inner), CUDA_SUCCESS);
  CHECK(base == reinterpret_cast<CUdeviceptr>(d1) && size == 1024);
  CHECK_EQ(cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(host.data())), CUDA_ERROR_NOT_FOUND);

  // Driver copies, modules, private tables, error names.
  CHECK_EQ(cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(d2), host.data(), 64), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyDtoH(back.data(), reinterpret_cast<CUdeviceptr>(d2), 64), CUDA_SUCCESS);
  CHECK(std::equal(back.begin(), back.begin() + 16, host.begin()));
  CHECK_EQ(cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(back.data()), host.data(), 64), CUDA_ERROR_INVALID_VALUE);
  // The asynchronous copies and memsets (done before they return), on a stream that must exist.
  const auto dev2 = reinterpret_cast<CUdeviceptr>(d2);
  CHECK_EQ(cuMemsetD32Async(dev2, 0x01020304u, 4, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemsetD16Async(dev2 + 16, 0x0506, 2, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemsetD8Async(dev2 + 20, 0x07, 1, nullptr), CUDA_SUCCESS);
  unsigned char bytes[21] = {};
  CHECK_EQ(cuMemcpyDtoHAsync(bytes, dev2, sizeof bytes, nullptr), CUDA_SUCCESS);
  CHECK(bytes[0] == 0x04 && bytes[3] == 0x01 && bytes[12] == 0x04 && bytes[16] == 0x06 && bytes[19] == 0x05 &&
        bytes[20] == 0x07);
  CHECK_EQ(cuMemsetD16Async(dev2 + 1, 0, 1, nullptr), CUDA_ERROR_INVALID_VALUE);  // misaligned
  CHECK_EQ(cuMemsetD32Async(dev2 + 1020, 0, 2, nullptr), CUDA_ERROR_INVALID_VALUE);  // past the end
  CHECK_EQ(cuMemcpyHtoDAsync(dev2, host.data(), 8, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyDtoDAsync(dev2 + 8, dev2, 8, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyAsync(dev2 + 16, dev2 + 8, 8, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyDtoHAsync(back.data(), dev2 + 16, 8, nullptr), CUDA_SUCCESS);
  CHECK(std::equal(back.begin(), back.begin() + 2, host.begin()));
  CHECK_EQ(cuMemcpyAsync(dev2, dev2, 8, reinterpret_cast<CUstream>(0x1234)), CUDA_ERROR_INVALID_HANDLE);
  CHECK_EQ(cuStreamQuery(nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuStreamQuery(reinterpret_cast<CUstream>(0x1234)), CUDA_ERROR_INVALID_HANDLE);
  CUmodule module = nullptr;
  const char image[] = "not a cubin";
  CHECK_EQ(cuModuleLoadData(&module, image), CUDA_ERROR_NO_BINARY_FOR_GPU);
  const void* table = reinterpret_cast<const void*>(1);
  CUuuid id{};
  CHECK_EQ(cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
  CHECK(table == nullptr);
  const char* text = nullptr;
  CHECK_EQ(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &text), CUDA_SUCCESS);
  CHECK(std::strcmp(text, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
  CHECK_EQ(cuGetErrorString(CUDA_ERROR_NO_DEVICE, &text), CUDA_SUCCESS);
  CHECK(std::strcmp(text, "no CUDA-capable device is detected") == 0);
  CHECK_EQ(cuGetErrorName(static_cast<CUresult>(12345), &text), CUDA_ERROR_INVALID_VALUE);
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorInsufficientDriver), "cudaErrorInsufficientDriver") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered") == 0);

  // Entry points: versioned resolution, per-thread flavours, unknown names, the legacy form.
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  CHECK(libcuda != nullptr);
  void* fn = nullptr;
  CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CHECK_EQ(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuMemAlloc_v2") && st == CU_GET_PROC_ADDRESS_SUCCESS);
  CHECK_EQ(cuGetProcAddress("cuMemAlloc", &fn, 3000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
  CHECK(fn == nullptr && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK_EQ(cuGetProcAddress("cuNoSuchThing", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
  CHECK(fn == nullptr && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK_EQ(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuMemcpyHtoD_v2_ptds"));
  CHECK_EQ(cuGetProcAddress("cuMemcpyHtoDAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st),
           CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuMemcpyHtoDAsync_v2_ptsz"));
  CHECK_EQ(cuGetProcAddress("cuStreamQuery", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuStreamQuery"));
  CHECK_EQ(cuGetProcAddress("cuCtxGetDevice", &fn, 12080, 0, &st), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuCtxGetDevice"));
  CHECK_EQ(cuGetProcAddress("cuCtxGetDevice", &fn, 13000, 0, &st), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuCtxGetDevice_v2"));
  CHECK_EQ(cuGetProcAddress("cuInit", &fn, 99000, 0, &st), CUDA_ERROR_INVALID_VALUE);  // newer than the driver
  using LegacyGetProc = CUresult (*)(const char*, void**, int, cuuint64_t);
  auto legacy = reinterpret_cast<LegacyGetProc>(dlsym(libcuda, "cuGetProcAddress"));
  CHECK(legacy != nullptr);
  CHECK_EQ(legacy("cuInit", &fn, 11030, 0), CUDA_SUCCESS);
  CHECK(fn == dlsym(libcuda, "cuInit"));
  CHECK_EQ(legacy("cuNoSuchThing", &fn, 11030, 0), CUDA_ERROR_NOT_FOUND);
  cudaDriverEntryPointQueryResult rst;
  CHECK_EQ(cudaGetDriverEntryPointByVersion("cuDeviceGetCount", &fn, 12000, cudaEnableDefault, &rst), cudaSuccess);
  CHECK(fn == dlsym(libcuda, "cuDeviceGetCount") && rst == cudaDriverEntryPointSuccess);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // deprecated in 13.0, still exported
  CHECK_EQ(cudaGetDriverEntryPoint("cuMemFree", &fn, cudaEnableDefault, &rst), cudaSuccess);
#pragma GCC diagnostic pop
  CHECK(fn == dlsym(libcuda, "cuMemFree_v2"));

  // Streams.
  cudaStream_t s1, s2;
  CHECK_EQ(cudaStreamCreate(&s1), cudaSuccess);
  CHECK_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  CHECK_EQ(cudaMemcpyAsync(d1, host.data(), 64, cudaMemcpyHostToDevice, s1), cudaSuccess);
  CHECK_EQ(cudaMemsetAsync(d1, 0, 64, s2), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  CHECK_EQ(cudaStreamDestroy(s1), cudaSuccess);
  CHECK_EQ(cudaStreamDestroy(s1), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaMemcpyAsync(d1, host.data(), 64, cudaMemcpyHostToDevice, s1), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaStreamDestroy(s2), cudaSuccess);
  CHECK_EQ(cudaPeekAtLastError(), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);

  size_t free_bytes = 0, total = 0;
  CHECK_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  CHECK(total > free_bytes && total - free_bytes == 2048);
  CHECK_EQ(cudaFree(d1), cudaSuccess);
  CHECK_EQ(cudaFree(d2), cudaSuccess);
  CHECK_EQ(cudaFree(d2), cudaErrorInvalidValue);  // twice
}

// ---- case: nested cuBLASLt calls, seen by a preloaded library --------------------------------

void case_preload() {
  auto* calls = static_cast<std::atomic<int>*>(dlsym(RTLD_DEFAULT, "probe_lt_matmul_calls"));
  CHECK(calls != nullptr);  // run with LD_PRELOAD=libstandin_preload_probe.so
  cublasHandle_t h = make_handle();
  std::vector<__half> a(16, __float2half(1.0f));
  __half *da = device_copy(a), *dc = device_copy(a);
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, da, CUDA_R_16F, 4, da, CUDA_R_16F, 4, &beta, dc,
                        CUDA_R_16F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(calls->load(), 1);  // cublasGemmEx -> cublasLtMatmul through the PLT
  CHECK(__half2float(host_copy(dc, 16)[0]) == 4.0f);
  std::vector<float> f(16, 1.0f);
  float *fa = device_copy(f), *fc = device_copy(f);
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fa, 4, fa, 4, &beta, fc, 4), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(calls->load(), 1);  // fp32 GEMMs do not go through cuBLASLt
}

// ---- cases: the fault plan -----------------------------------------------------------------

// Sets a fault-plan variable; the plan is read at the first CUDA call, which comes after.
void plan(const char* variable, const char* value) { CHECK_EQ(setenv(variable, value, 1), 0); }

void case_fault_fail() {
  plan("STANDIN_FAIL", "cublasSgemm_v2:2:13;cudaMalloc:1:2");
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, 64), cudaErrorMemoryAllocation);
  CHECK_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  CHECK_EQ(cudaMalloc(&p, 64), cudaSuccess);
  cublasHandle_t h = make_handle();
  CHECK_EQ(run_sgemm(h, 3, 3, 3).status, CUBLAS_STATUS_SUCCESS);
  SgemmRun second = run_sgemm(h, 3, 3, 3);
  CHECK_EQ(second.status, CUBLAS_STATUS_EXECUTION_FAILED);
  CHECK(std::all_of(second.c.begin(), second.c.end(), [](float x) { return x == 0.0f; }));  // nothing computed
  SgemmRun third = run_sgemm(h, 3, 3, 3);
  CHECK_EQ(third.status, CUBLAS_STATUS_SUCCESS);
  CHECK(same(third.c, third.expected));
}

void case_fault_fail_every() {
  plan("STANDIN_FAIL", "cublasDgemm_v2:*:14");
  cublasHandle_t h = make_handle();
  double* d = device_copy(std::vector<double>(16, 1.0));
  const double one = 1.0;
  for (int i = 0; i < 3; ++i)
    CHECK_EQ(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), CUBLAS_STATUS_INTERNAL_ERROR);
  CHECK_EQ(run_sgemm(h, 2, 2, 2).status, CUBLAS_STATUS_SUCCESS);
}

void case_fault_shape() {
  plan("STANDIN_FAIL_SHAPE", "3,5,7:15");
  cublasHandle_t h = make_handle();
  CHECK_EQ(run_sgemm(h, 3, 5, 7).status, CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(run_sgemm(h, 3, 5, 8).status, CUBLAS_STATUS_SUCCESS);
  cublasLtHandle_t lt;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  Ref r = problem('N', 'N', 3, 5, 7);
  float* d = device_copy(std::vector<float>(256, 1.0f));
  CHECK_EQ(lt_sgemm(lt, r, d, d, d), CUBLAS_STATUS_NOT_SUPPORTED);
  std::vector<__half> a(64, __float2half(1.0f));
  __half* da = device_copy(a);
  const float one = 1.0f;
  CHECK_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 5, 7, &one, da, CUDA_R_16F, 3, da, CUDA_R_16F, 7, &one, da,
                        CUDA_R_16F, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
           CUBLAS_STATUS_NOT_SUPPORTED);
}

void case_fault_wrong_result() {
  plan("STANDIN_WRONG_RESULT", "cublasSgemm_v2:2;cublasLtMatmul:1");
  cublasHandle_t h = make_handle();
  SgemmRun first = run_sgemm(h, 4, 4, 4);
  CHECK(same(first.c, first.expected));
  SgemmRun second = run_sgemm(h, 4, 4, 4);  // silently wrong: element 0 is off by one
  CHECK_EQ(second.status, CUBLAS_STATUS_SUCCESS);
  CHECK(std::fabs(second.c[0] - (second.expected[0].real() + 1.0)) < 1e-5);
  second.c[0] -= 1.0f;
  CHECK(same(second.c, second.expected));
  SgemmRun third = run_sgemm(h, 4, 4, 4);
  CHECK(same(third.c, third.expected));

  cublasLtHandle_t lt;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  Ref r = problem('N', 'N', 2, 2, 2);
  auto a = filled<float>(r.lda * 2, 1), b = filled<float>(r.ldb * 2, 2);
  std::vector<float> c(r.ldc * 2, 0.0f);
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
  CHECK_EQ(lt_sgemm(lt, r, da, db, dc), CUBLAS_STATUS_SUCCESS);
  auto want = reference(r, a, b, c);
  want[0] += 1.0;
  check_close(host_copy(dc, c.size()), want, 1e-5, "wrong result of cublasLtMatmul");
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);  // a wrong result is silent
}

void case_fault_async() {
  plan("STANDIN_ASYNC_ERROR", "cublasSgemm_v2:1:700");
  cublasHandle_t h = make_handle();
  cublasLtHandle_t lt;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  float* d = device_copy(std::vector<float>(16, 1.0f));
  const float one = 1.0f;
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d + 4, 2, &one, d + 8, 2),
           CUBLAS_STATUS_SUCCESS);  // "launched"; its kernel faults
  CHECK(d[8] == 1.0f);              // not computed (device memory is host memory in the stand-in)
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);  // sticky
  CHECK_EQ(cudaStreamSynchronize(nullptr), cudaErrorIllegalAddress);
  CHECK_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_EQ(cudaPeekAtLastError(), cudaErrorIllegalAddress);
  int x = 0;
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
  CHECK_EQ(cudaMemcpy(&x, &x, sizeof x, cudaMemcpyHostToHost), cudaErrorIllegalAddress);
  CHECK_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cuStreamSynchronize(nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cuStreamQuery(nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(d), 0, 4, nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d + 4, 2, &one, d + 8, 2),
           CUBLAS_STATUS_EXECUTION_FAILED);
  CHECK_EQ(lt_sgemm(lt, problem('N', 'N', 2, 2, 2), d, d, d), CUBLAS_STATUS_EXECUTION_FAILED);
}

// A GEMM on memory no device allocation holds: the launch succeeds, the context is poisoned.
void case_illegal_address() {
  cublasHandle_t h = make_handle();
  std::vector<float> a(16, 1.0f), c(16, 0.0f);
  float* d = device_copy(a);
  const float one = 1.0f;
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a.data(), 4, a.data(), 4, &one, c.data(), 4),
           CUBLAS_STATUS_SUCCESS);
  CHECK(c[0] == 0.0f);  // not computed
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &one, d + 4, 2),
           CUBLAS_STATUS_EXECUTION_FAILED);
}

// Pointer arrays kept in host memory: the device cannot read them either.
void case_illegal_pointer_array() {
  cublasHandle_t h = make_handle();
  float* d = device_copy(std::vector<float>(16, 1.0f));
  float* host_array[] = {d};
  const float one = 1.0f;
  CHECK_EQ(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, host_array, 2, host_array, 2, &one,
                              host_array, 2, 1),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

void case_crash() {
  // Each child sets its plan before its first CUDA call; the parent never calls CUDA.
  auto crash_in = [](const char* plan, const std::function<void()>& fn) {
    return in_child([&] {
      setenv("STANDIN_CRASH", plan, 1);
      fn();
    });
  };
  auto sgemm_twice = [] {
    cublasHandle_t h = make_handle();
    run_sgemm(h, 2, 2, 2);
    run_sgemm(h, 2, 2, 2);
  };
  CHECK(died_of(crash_in("cublasSgemm_v2:2", sgemm_twice), SIGSEGV));
  CHECK(died_of(crash_in("cublasSgemm_v2:2:SIGSEGV", sgemm_twice), SIGSEGV));
  CHECK(died_of(crash_in("cublasSgemm_v2:1:SIGABRT", sgemm_twice), SIGABRT));
  CHECK(died_of(crash_in("cudaMalloc:2:SIGBUS", sgemm_twice), SIGBUS));
  CHECK(died_of(crash_in("cuInit:1:ABRT", [] {
                  int n;
                  cudaGetDeviceCount(&n);
                }),
                SIGABRT));
  // A crash at a call that never comes: normal exit.
  const int fine = crash_in("cublasSgemm_v2:3", sgemm_twice);
  CHECK(WIFEXITED(fine) && WEXITSTATUS(fine) == 0);

  // STANDIN_HANG: the child blocks inside the call until killed.
  std::fflush(nullptr);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    setenv("STANDIN_HANG", "cudaDeviceSynchronize:1", 1);
    cudaDeviceSynchronize();
    std::_Exit(0);
  }
  usleep(300 * 1000);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, WNOHANG), 0);  // still inside the call
  kill(pid, SIGKILL);
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(died_of(status, SIGKILL));
}

// A handle cuBLAS never created crashes like on a GPU machine; a null one is an error code.
void case_garbage_handle() {
  const float one = 1.0f;
  float* none = nullptr;
  CHECK_EQ(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, none, 1, none, 1, &one, none, 1),
           CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK(died_of(in_child([&] {
                  cublasSgemm(reinterpret_cast<cublasHandle_t>(0x1234), CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, none,
                              1, none, 1, &one, none, 1);
                }),
                SIGSEGV));
  CHECK(died_of(in_child([&] {
                  static uint64_t junk[16] = {42};  // readable memory, but not a handle
                  cublasSetStream(reinterpret_cast<cublasHandle_t>(junk), nullptr);
                }),
                SIGSEGV));
  CHECK(died_of(in_child([&] {
                  static uint64_t junk[16] = {7};
                  lt_sgemm(reinterpret_cast<cublasLtHandle_t>(junk), problem('N', 'N', 1, 1, 1), none, none, none);
                }),
                SIGSEGV));
}

// The Nth call is counted across threads: exactly one of 800 concurrent calls fails.
void case_threads() {
  plan("STANDIN_FAIL", "cublasSgemm_v2:500:7");
  cublasHandle_t h = make_handle();
  float* d = device_copy(std::vector<float>(2 + 8, 1.0f));
  std::atomic<int> failures{0}, successes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const float one = 1.0f, zero = 0.0f;
      for (int i = 0; i < 100; ++i) {
        cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, d, 1, d + 1, 1, &zero, d + 2 + t, 1);
        (s == CUBLAS_STATUS_INVALID_VALUE ? failures : successes)++;
      }
    });
  for (auto& t : threads) t.join();
  CHECK_EQ(failures.load(), 1);
  CHECK_EQ(successes.load(), 799);
}

// ---- cases: the machine as the environment describes it --------------------------------------

void case_no_driver() {  // what this machine's real stack does
  plan("STANDIN_NO_DRIVER", "1");
  int count = -7, version = -1;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaErrorInsufficientDriver);
  CHECK_EQ(count, -7);
  CHECK_EQ(cudaGetLastError(), cudaErrorInsufficientDriver);
  CHECK_EQ(cudaGetLastError(), cudaErrorInsufficientDriver);  // initialization failures stay
  CHECK_EQ(cudaDriverGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 0);
  CHECK_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 13000);
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, 16), cudaErrorInsufficientDriver);
  CHECK_EQ(cudaFree(nullptr), cudaErrorInsufficientDriver);
  cublasHandle_t h;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_NOT_INITIALIZED);
  cublasLtHandle_t lt;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_NOT_INITIALIZED);
  cublasLtMatmulDesc_t desc;
  CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayout_t layout;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, 4, 4, 4), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutDestroy(layout), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescDestroy(desc), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cuInit(0), CUDA_ERROR_STUB_LIBRARY);  // the driver library itself acts as the toolkit's stub
}

void case_count_error() {  // STANDIN_DEVICE_COUNT_ERROR=<code>, the code in STANDIN_EXPECT
  const int expected = std::atoi(std::getenv("STANDIN_EXPECT"));
  int count = -7;
  CHECK_EQ(cudaGetDeviceCount(&count), expected);
  CHECK_EQ(count, -7);
  CHECK_EQ(cuInit(0), expected);
  CHECK_EQ(cuDeviceGetCount(&count), expected);
  cublasHandle_t h;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_NOT_INITIALIZED);
}

void case_no_device() {  // CUDA_VISIBLE_DEVICES hides every device
  CHECK(std::getenv("CUDA_VISIBLE_DEVICES") != nullptr);
  int count = -7;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  CHECK_EQ(count, -7);
  CHECK_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
}

void case_visible_devices() {
  plan("STANDIN_DEVICE_COUNT", "4");
  plan("CUDA_VISIBLE_DEVICES", "2,0,9,1");
  int count = 0;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  CHECK_EQ(count, 2);  // parsing stops at the invalid index 9
  cudaDeviceProp prop;
  CHECK_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  CHECK_EQ(prop.pciBusID, 3);  // physical device 2
  CHECK_EQ(cudaGetDeviceProperties(&prop, 1), cudaSuccess);
  CHECK_EQ(prop.pciBusID, 1);  // physical device 0
  CHECK_EQ(cudaGetDeviceProperties(&prop, 2), cudaErrorInvalidDevice);
  CHECK_EQ(cudaSetDevice(1), cudaSuccess);
  int dev = -1;
  CHECK_EQ(cudaGetDevice(&dev), cudaSuccess);
  CHECK_EQ(dev, 1);
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, 64), cudaSuccess);
  cudaPointerAttributes pa;
  CHECK_EQ(cudaPointerGetAttributes(&pa, p), cudaSuccess);
  CHECK_EQ(pa.device, 1);
  cublasHandle_t h = make_handle();  // on device 1 now
  CHECK_EQ(run_sgemm(h, 2, 2, 2).status, CUBLAS_STATUS_SUCCESS);
}

void case_old_driver() {  // a driver older than the 13.0 runtime
  plan("STANDIN_DRIVER_VERSION", "12080");
  int count = -7, version = 0;
  CHECK_EQ(cudaDriverGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 12080);
  CHECK_EQ(cudaGetDeviceCount(&count), cudaErrorInsufficientDriver);
  CHECK_EQ(count, -7);
  cublasHandle_t h;
  CHECK_EQ(cublasCreate(&h), CUBLAS_STATUS_NOT_INITIALIZED);
}

// ---- case: preset cuBLASLt algorithms -------------------------------------------------------
// LtDgemmPresetAlgo's configuration (id 10, tile 16x16, split-K 256, in-place reduction) runs on
// fp64, and what the algorithms' capabilities do not allow is refused.
void case_lt_algorithms() {
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  int ids[16] = {};
  int count = 0;
  CHECK_EQ(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F,
                                    16, ids, &count), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(count, 4);
  CHECK_EQ(ids[3], 10);
  CHECK_EQ(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                    16, ids, &count), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(count, 3);  // 0, 1, 6: no 10 for single precision
  cublasLtMatmulAlgo_t algo;
  CHECK_EQ(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 10,
                                  &algo), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 12345,
                                  &algo), CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 10,
                                  &algo), CUBLAS_STATUS_SUCCESS);
  int32_t splitk_support = 0;
  uint32_t reduction_mask = 0;
  size_t written = 0;
  CHECK_EQ(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk_support,
                                             sizeof splitk_support, &written), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(splitk_support, 1);
  CHECK_EQ(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &reduction_mask,
                                             sizeof reduction_mask, &written), CUBLAS_STATUS_SUCCESS);
  CHECK((reduction_mask & CUBLASLT_REDUCTION_SCHEME_INPLACE) != 0);
  CHECK_EQ(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, nullptr, 0, &written),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(written, 3 * sizeof(uint32_t));

  // The sample's problem: transa T, m = n = 4, k = 20000 (shortened to 2000), C is D.
  const int m = 4, n = 4, k = 2000;
  auto a = filled<double>(size_t(k) * m, 1), b = filled<double>(size_t(k) * n, 2);
  double *da = device_copy(a), *db = device_copy(b), *dc = device_copy(std::vector<double>(m * n, 0.0));
  cublasLtMatmulDescOpaque_t desc;
  CHECK_EQ(cublasLtMatmulDescInit(&desc, CUBLAS_COMPUTE_64F, CUDA_R_64F), CUBLAS_STATUS_SUCCESS);
  const cublasOperation_t t = CUBLAS_OP_T;
  CHECK_EQ(cublasLtMatmulDescSetAttribute(&desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayoutOpaque_t la, lb, lc;
  CHECK_EQ(cublasLtMatrixLayoutInit(&la, CUDA_R_64F, k, m, k), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutInit(&lb, CUDA_R_64F, k, n, k), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutInit(&lc, CUDA_R_64F, m, n, m), CUBLAS_STATUS_SUCCESS);
  auto set = [&](cublasLtMatmulAlgoConfigAttributes_t attr, auto v) {
    return cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &v, sizeof v);
  };
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_TILE_ID, uint32_t{CUBLASLT_MATMUL_TILE_16x16}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, uint32_t{CUBLASLT_REDUCTION_SCHEME_INPLACE}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, int32_t{256}), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t result;
  auto check = [&] { return cublasLtMatmulAlgoCheck(lt, &desc, &la, &lb, &lc, &lc, &algo, &result); };
  const double alpha = 2.0, beta = 0.0;
  auto run = [&] { return cublasLtMatmul(lt, &desc, &alpha, da, &la, db, &lb, &beta, dc, &lc, dc, &lc, &algo, nullptr, 0, 0); };
  CHECK_EQ(check(), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(run(), CUBLAS_STATUS_SUCCESS);
  auto got = host_copy(dc, m * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double want = 0;
      for (int q = 0; q < k; ++q) want += a[q + size_t(i) * k] * b[q + size_t(j) * k];
      CHECK(std::fabs(got[i + j * m] - alpha * want) <= 1e-9 * (1 + std::fabs(alpha * want)));
    }

  // Outside the capabilities: a tile the algorithm does not list, swizzling 2, a custom option.
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_TILE_ID, uint32_t{CUBLASLT_MATMUL_TILE_8x8}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(check(), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(run(), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_TILE_ID, uint32_t{CUBLASLT_MATMUL_TILE_16x16}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, uint32_t{2}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(check(), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, uint32_t{1}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, uint32_t{1}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(check(), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, uint32_t{0}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(check(), CUBLAS_STATUS_SUCCESS);

  // Split-K on an algorithm without it, and algorithm 10 (made for fp64) on an fp32 problem.
  CHECK_EQ(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 0,
                                  &algo), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, int32_t{4}), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(check(), CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 10,
                                  &algo), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulDescOpaque_t desc32;
  cublasLtMatrixLayoutOpaque_t l32;
  CHECK_EQ(cublasLtMatmulDescInit(&desc32, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutInit(&l32, CUDA_R_32F, 4, 4, 4), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulAlgoCheck(lt, &desc32, &l32, &l32, &l32, &l32, &algo, &result), CUBLAS_STATUS_NOT_SUPPORTED);
  cublasLtDestroy(lt);
}

// ---- case: IMMA orders and cublasLtMatrixTransform -------------------------------------------
// LtIgemmTensor's pattern: int8 A and B transformed to COL32 and (B^T) COL4_4R2_8C or
// COL32_2R_4R4, an int32 matmul N/T into a COL32 C, C transformed back to column order. The tiled
// positions are checked against cublasLt.h's descriptions, written out here a second way.
void case_lt_imma() {
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  const int m = 37, n = 11, k = 40;  // beyond one 32-column group and one 8- or 32-row tile
  std::vector<int8_t> a(size_t(m) * k), b(size_t(k) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(int(i * 7 % 23) - 11);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(int(i * 5 % 19) - 9);
  int8_t *da = device_copy(a), *db = device_copy(b);
  int32_t* dc = device_copy(std::vector<int32_t>(size_t(m) * n, -1));
  auto round_up = [](int v, int d) { return (v + d - 1) / d * d; };
  cublasLtMatrixTransformDesc_t transform;
  CHECK_EQ(cublasLtMatrixTransformDescCreate(&transform, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  int32_t got_scale = -1;
  size_t written = 0;
  CHECK_EQ(cublasLtMatrixTransformDescGetAttribute(transform, CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, &got_scale,
                                                   sizeof got_scale, &written), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(got_scale, CUDA_R_32F);
  const float one = 1.0f, zero = 0.0f;
  cublasLtMatrixLayout_t la, lb, lc, la32, lc32;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_8I, m, k, m), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8I, k, n, k), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32I, m, n, m), CUBLAS_STATUS_SUCCESS);
  const int32_t col32 = CUBLASLT_ORDER_COL32;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&la32, CUDA_R_8I, m, k, 32 * m), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutSetAttribute(la32, CUBLASLT_MATRIX_LAYOUT_ORDER, &col32, sizeof col32), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutCreate(&lc32, CUDA_R_32I, m, n, 32 * m), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutSetAttribute(lc32, CUBLASLT_MATRIX_LAYOUT_ORDER, &col32, sizeof col32), CUBLAS_STATUS_SUCCESS);
  int8_t* da32 = device_copy(std::vector<int8_t>(size_t(round_up(k, 32) / 32) * 32 * m, 0));
  int32_t* dc32 = device_copy(std::vector<int32_t>(size_t(round_up(n, 32) / 32) * 32 * m, 0));
  CHECK_EQ(cublasLtMatrixTransform(lt, transform, &one, da, la, &zero, nullptr, nullptr, da32, la32, 0), CUBLAS_STATUS_SUCCESS);
  const auto a32 = host_copy(da32, size_t(round_up(k, 32) / 32) * 32 * m);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c) CHECK(a32[size_t(c / 32) * 32 * m + r * 32 + c % 32] == a[r + size_t(c) * m]);

  cublasLtMatmulDesc_t mm;
  CHECK_EQ(cublasLtMatmulDescCreate(&mm, CUBLAS_COMPUTE_32I, CUDA_R_32I), CUBLAS_STATUS_SUCCESS);
  const int32_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
  CHECK_EQ(cublasLtMatmulDescSetAttribute(mm, CUBLASLT_MATMUL_DESC_TRANSB, &op_t, sizeof op_t), CUBLAS_STATUS_SUCCESS);
  for (int32_t order : {int32_t{CUBLASLT_ORDER_COL4_4R2_8C}, int32_t{CUBLASLT_ORDER_COL32_2R_4R4}}) {
    const int tile = order == CUBLASLT_ORDER_COL4_4R2_8C ? 8 : 32;
    const int ldb = 32 * round_up(n, tile);
    cublasLtMatrixLayout_t lbt;  // B^T: n x k
    CHECK_EQ(cublasLtMatrixLayoutCreate(&lbt, CUDA_R_8I, n, k, ldb), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(lbt, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order), CUBLAS_STATUS_SUCCESS);
    const size_t bt_size = size_t(round_up(k, 32) / 32) * ldb;
    int8_t* dbt = device_copy(std::vector<int8_t>(bt_size, 0));
    CHECK_EQ(cublasLtMatrixTransformDescSetAttribute(transform, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &op_t, sizeof op_t),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixTransform(lt, transform, &one, db, lb, &zero, nullptr, nullptr, dbt, lbt, 0), CUBLAS_STATUS_SUCCESS);
    const auto bt = host_copy(dbt, bt_size);
    for (int r = 0; r < n; ++r)  // element (r, c) of B^T is B(c, r)
      for (int c = 0; c < k; ++c) {
        const int col = c % 32;
        size_t at = size_t(c / 32) * ldb;
        if (tile == 8) {  // 8 x 32 tiles: the 4 even rows, then the 4 odd rows, each as 8 pieces of 4 columns
          at += size_t(r / 8) * 256 + (r % 2) * 128 + (col / 4) * 16 + (r % 8 / 2) * 4 + col % 4;
        } else {  // (((row%8)/2*4+row/8)*2+row%2)*32+col within a 32 x 32 tile
          const int t = r % 32;
          at += size_t(r / 32) * 1024 + (((t % 8) / 2 * 4 + t / 8) * 2 + t % 2) * 32 + col;
        }
        CHECK(bt[at] == b[c + size_t(r) * k]);
      }
    CHECK_EQ(cublasLtMatrixTransformDescSetAttribute(transform, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &op_n, sizeof op_n),
             CUBLAS_STATUS_SUCCESS);
    const int32_t alpha = 1, beta = 0;
    CHECK_EQ(cublasLtMatmul(lt, mm, &alpha, da32, la32, dbt, lbt, &beta, dc32, lc32, dc32, lc32, nullptr, nullptr, 0, 0),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixTransform(lt, transform, &one, dc32, lc32, &zero, nullptr, nullptr, dc, lc, 0), CUBLAS_STATUS_SUCCESS);
    const auto c = host_copy(dc, size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        int32_t want = 0;
        for (int q = 0; q < k; ++q) want += int32_t(a[i + size_t(q) * m]) * b[q + size_t(j) * k];
        CHECK_EQ(c[i + size_t(j) * m], want);
      }
    // The IMMA orders only as the integer kernels take them: B^T in a tiled order with op(B) = B
    // (transb N) is refused, and an ld below the order's minimum is invalid.
    CHECK_EQ(cublasLtMatmul(lt, mm, &alpha, da32, la32, dbt, lbt, &beta, dc32, lc32, dc32, lc32, nullptr, nullptr, 0, 0),
             CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulDesc_t mm_nn;
    CHECK_EQ(cublasLtMatmulDescCreate(&mm_nn, CUBLAS_COMPUTE_32I, CUDA_R_32I), CUBLAS_STATUS_SUCCESS);
    cublasLtMatrixLayout_t lb_kn;
    CHECK_EQ(cublasLtMatrixLayoutCreate(&lb_kn, CUDA_R_8I, k, n, 32 * round_up(k, tile)), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(lb_kn, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmul(lt, mm_nn, &alpha, da32, la32, dbt, lb_kn, &beta, dc32, lc32, dc32, lc32, nullptr, nullptr, 0, 0),
             CUBLAS_STATUS_NOT_SUPPORTED);
    cublasLtMatmulDescDestroy(mm_nn);
    cublasLtMatrixLayoutDestroy(lb_kn);
    const int64_t short_ld = ldb - 32;
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(lbt, CUBLASLT_MATRIX_LAYOUT_LD, &short_ld, sizeof short_ld), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatmul(lt, mm, &alpha, da32, la32, dbt, lbt, &beta, dc32, lc32, dc32, lc32, nullptr, nullptr, 0, 0),
             CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatrixLayoutDestroy(lbt);
  }
  // fp32 in COL32 is no kernel's order.
  cublasLtMatmulDesc_t mm32;
  CHECK_EQ(cublasLtMatmulDescCreate(&mm32, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayout_t f32;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&f32, CUDA_R_32F, 4, 4, 128), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutSetAttribute(f32, CUBLASLT_MATRIX_LAYOUT_ORDER, &col32, sizeof col32), CUBLAS_STATUS_SUCCESS);
  const float fone = 1.0f;
  CHECK_EQ(cublasLtMatmul(lt, mm32, &fone, dc32, f32, dc32, f32, &zero, dc32, f32, dc32, f32, nullptr, nullptr, 0, 0),
           CUBLAS_STATUS_NOT_SUPPORTED);
  // Transform argument checks: A without its layout, no C.
  CHECK_EQ(cublasLtMatrixTransform(lt, transform, &one, da, nullptr, &zero, nullptr, nullptr, da32, la32, 0),
           CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasLtMatrixTransform(lt, transform, &one, da, la, &zero, nullptr, nullptr, nullptr, la32, 0),
           CUBLAS_STATUS_INVALID_VALUE);
  CHECK_EQ(cublasLtMatrixTransform(nullptr, transform, &one, da, la, &zero, nullptr, nullptr, da32, la32, 0),
           CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_EQ(cublasLtMatrixTransformDescDestroy(transform), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulDescDestroy(mm32);
  cublasLtMatmulDescDestroy(mm);
  cublasLtDestroy(lt);
}

// ---- case: a repeated GEMM -----------------------------------------------------------------
// A large GEMM repeated with the same inputs gives the same D (from the stored result); a changed
// byte of A, a changed beta with C read, and in-place accumulation (C is D) are computed anew.
void case_gemm_memo() {
  cublasHandle_t h = make_handle();
  const int m = 96, n = 80, k = 300;  // above the size the stand-in remembers
  auto a = filled<float>(size_t(m) * k, 1), b = filled<float>(size_t(k) * n, 2);
  float *da = device_copy(a), *db = device_copy(b), *dd = device_copy(std::vector<float>(m * n, 0.0f));
  float alpha = 1.0f, beta = 0.0f;
  auto sgemm = [&] { return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dd, m); };
  auto want = [&](double add) {
    std::vector<double> w(size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int q = 0; q < k; ++q) s += double(a[i + size_t(q) * m]) * b[q + size_t(j) * k];
        w[i + size_t(j) * m] = alpha * s + add;
      }
    return w;
  };
  auto check = [&](const std::vector<double>& w, const char* what) {
    auto got = host_copy(dd, w.size());
    for (size_t i = 0; i < w.size(); ++i)
      if (std::fabs(got[i] - w[i]) > 1e-3 * (1 + std::fabs(w[i]))) {
        std::fprintf(stderr, "FAIL %s: D[%zu] = %g, want %g\n", what, i, got[i], w[i]);
        std::exit(1);
      }
  };
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);
  const auto first = host_copy(dd, size_t(m) * n);
  check(want(0), "first");
  CHECK_EQ(cudaMemset(dd, 0, sizeof(float) * m * n), cudaSuccess);
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);  // repeated: the same bytes
  CHECK(host_copy(dd, size_t(m) * n) == first);
  a[5 * m + 7] += 1.0f;  // one element of A
  CHECK_EQ(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);
  check(want(0), "A changed");
  alpha = 0.5f;
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);
  check(want(0), "alpha changed");
  // In place, beta 1: each call adds A B once more (D is C, so the inputs differ every time).
  beta = 1.0f;
  CHECK_EQ(cudaMemset(dd, 0, sizeof(float) * m * n), cudaSuccess);
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(sgemm(), CUBLAS_STATUS_SUCCESS);
  auto twice = want(0);
  for (double& v : twice) v *= 2;
  check(twice, "accumulated in place");
  cublasDestroy(h);
}

// A thread whose only runtime calls are scripted launches ("succeed doing nothing") has the primary
// context current all the same, as the real runtime binds it before a launch does anything else:
// the driver API works there (cuStreamSynchronize is not CUDA_ERROR_INVALID_CONTEXT), whether the
// thread called cudaSetDevice or, as PyTorch's worker threads do, only asked cudaGetDevice (whose
// answer, 0, makes c10's SetDevice skip cudaSetDevice).
void case_thread_context() {
  plan("STANDIN_FAIL", "cudaLaunchKernel:*:0");
  cudaStream_t s = nullptr;
  CHECK_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (const bool set_device : {false, true}) {
    std::thread([&] {
      if (set_device) {
        CHECK_EQ(cudaSetDevice(0), cudaSuccess);
      } else {
        int device = -1;
        CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
        CHECK_EQ(device, 0);
      }
      CHECK_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&case_thread_context), dim3(1), dim3(1), nullptr, 0, s),
               cudaSuccess);
      CUcontext ctx = nullptr;
      CHECK_EQ(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
      CHECK(ctx != nullptr);
      CUdevice device = -1;
      CHECK_EQ(cuCtxGetDevice(&device), CUDA_SUCCESS);
      CHECK_EQ(device, 0);
      CHECK_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
    }).join();
  }
  CHECK_EQ(cudaStreamDestroy(s), cudaSuccess);
}

void case_out_of_memory() {
  plan("STANDIN_DEVICE_MEMORY", "1048576");
  void *a = nullptr, *b = nullptr;
  CHECK_EQ(cudaMalloc(&a, 600 * 1024), cudaSuccess);
  CHECK_EQ(cudaMalloc(&b, 600 * 1024), cudaErrorMemoryAllocation);
  CHECK_EQ(cudaFree(a), cudaSuccess);
  CHECK_EQ(cudaMalloc(&b, 600 * 1024), cudaSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, void (*)()> cases = {
      {"gemm", case_gemm},
      {"validation", case_validation},
      {"lt", case_lt},
      {"lt_algorithms", case_lt_algorithms},
      {"lt_block_scales", run_block_scales_case},
      {"gemm_memo", case_gemm_memo},
      {"lt_imma", case_lt_imma},
      {"lt_planar", run_lt_planar_case},
      {"legacy", run_legacy_case},
      {"runtime", case_runtime},
      {"preload", case_preload},
      {"fault_fail", case_fault_fail},
      {"fault_fail_every", case_fault_fail_every},
      {"fault_shape", case_fault_shape},
      {"fault_wrong_result", case_fault_wrong_result},
      {"fault_async", case_fault_async},
      {"delayed_fault", case_delayed_fault},
      {"illegal_address", case_illegal_address},
      {"illegal_pointer_array", case_illegal_pointer_array},
      {"crash", case_crash},
      {"garbage_handle", case_garbage_handle},
      {"threads", case_threads},
      {"no_driver", case_no_driver},
      {"count_error", case_count_error},
      {"no_device", case_no_device},
      {"visible_devices", case_visible_devices},
      {"old_driver", case_old_driver},
      {"out_of_memory", case_out_of_memory},
      {"library_workspace", run_library_workspace_case},
      {"thread_context", case_thread_context},
      {"graph_capture", case_graph_capture},
      {"graph_blas", case_graph_blas},
      {"graph_rules", case_graph_rules},
      {"graph_fork_join", case_graph_fork_join},
      {"graph_illegal_address", case_graph_illegal_address},
      {"graph_async_error", case_graph_async_error},
      {"graph_driver", case_graph_driver},
  };
  if (argc != 2 || cases.count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: %s <case>; cases:", argv[0]);
    for (const auto& c : cases) std::fprintf(stderr, " %s", c.first.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  cases.at(argv[1])();
  std::printf("standin selftest %s: ok\n", argv[1]);
  return 0;
}

// cuBLASLt planar complex on the stand-in (standin.lt_planar): results checked against a
// complex<double> product computed here from the planes, for the layouts NVIDIA's
// LtPlanarComplex sample uses (fp16 planes, the imaginary plane first: negative offsets) and a
// strided batch whose STRIDED_BATCH_OFFSET counts real sub-elements (cublasLt.h), with complex
// alpha and beta; and the planar calls the stand-in refuses.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "selftest_check.h"

namespace {

using cd = std::complex<double>;

// One planar operand in host memory: `planes` holds each batch member as its real plane
// (`plane` values) then its imaginary plane, or (imag_first) the other way round.
struct Planar {
  int64_t rows, cols, ld, batch, plane;
  bool imag_first;
  std::vector<cd> values;  // column-major, ld, member after member
  cd at(int64_t r, int64_t c, int64_t b) const { return values[size_t(b * ld * cols + c * ld + r)]; }
  // Elements (real sub-elements) from one member's real plane to the next one's.
  int64_t stride() const { return 2 * plane; }
};

Planar make(int64_t rows, int64_t cols, int64_t batch, bool imag_first, int salt) {
  Planar p{rows, cols, rows + 1, batch, 0, imag_first, {}};
  p.plane = p.ld * cols;
  p.values.resize(size_t(p.plane * batch));
  // Multiples of 1/4 in [-1.25, 1.25]: exact in fp16, and so are the products summed below.
  for (size_t i = 0; i < p.values.size(); ++i)
    p.values[i] = {double(int((i * 7 + salt) % 11) - 5) / 4.0, double(int((i * 5 + salt * 3) % 9) - 4) / 4.0};
  return p;
}

template <class T>
T to(double v);
template <>
__half to<__half>(double v) { return __float2half(float(v)); }
template <>
float to<float>(double v) { return float(v); }
double from(__half v) { return __half2float(v); }
double from(float v) { return v; }

template <class T>
std::vector<T> host_planes(const Planar& p) {
  std::vector<T> out(size_t(2 * p.plane * p.batch));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.plane; ++i) {
      const cd v = p.values[size_t(b * p.plane + i)];
      const size_t re = size_t(b * 2 * p.plane + (p.imag_first ? p.plane : 0) + i);
      const size_t im = size_t(b * 2 * p.plane + (p.imag_first ? 0 : p.plane) + i);
      out[re] = to<T>(v.real());
      out[im] = to<T>(v.imag());
    }
  return out;
}

template <class T>
struct DevicePlanar {
  T* base = nullptr;
  T* real = nullptr;
  int64_t offset_bytes = 0;  // real plane to imaginary plane
};

template <class T>
DevicePlanar<T> upload(const Planar& p) {
  const std::vector<T> host = host_planes<T>(p);
  DevicePlanar<T> d;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&d.base), host.size() * sizeof(T)), cudaSuccess);
  CHECK_EQ(cudaMemcpy(d.base, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  d.real = p.imag_first ? d.base + p.plane : d.base;
  d.offset_bytes = (p.imag_first ? -1 : 1) * p.plane * int64_t(sizeof(T));
  return d;
}

cublasLtMatrixLayout_t layout(cudaDataType type, const Planar& p, int64_t offset_bytes) {
  cublasLtMatrixLayout_t l = nullptr;
  CHECK_EQ(cublasLtMatrixLayoutCreate(&l, type, uint64_t(p.rows), uint64_t(p.cols), p.ld), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &offset_bytes, sizeof offset_bytes),
           CUBLAS_STATUS_SUCCESS);
  if (p.batch > 1) {
    const int32_t count = int32_t(p.batch);
    const int64_t stride = p.stride();
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
             CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
             CUBLAS_STATUS_SUCCESS);
  }
  return l;
}

cd op(char t, const Planar& x, int64_t i, int64_t j, int64_t b) {
  if (t == 'N') return x.at(i, j, b);
  const cd v = x.at(j, i, b);
  return t == 'C' ? std::conj(v) : v;
}

cublasOperation_t op_of(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

// D = alpha op(A) op(B) + beta C, D in place of C, checked element by element (both planes of
// every member) against the product computed here, and the planes' gaps left untouched.
template <class TC>
void planar_case(cublasLtHandle_t lt, char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t batch,
                 bool imag_first, cd alpha, cd beta, cudaDataType c_type, const char* what, bool c_null = false) {
  const Planar a = ta == 'N' ? make(m, k, batch, imag_first, 1) : make(k, m, batch, imag_first, 1);
  const Planar b = tb == 'N' ? make(k, n, batch, !imag_first, 2) : make(n, k, batch, !imag_first, 2);
  Planar c = make(m, n, batch, imag_first, 3);
  const DevicePlanar<__half> da = upload<__half>(a), db = upload<__half>(b);
  const DevicePlanar<TC> dc = upload<TC>(c);
  cublasLtMatmulDesc_t desc = nullptr;
  CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_C_32F), CUBLAS_STATUS_SUCCESS);
  const cublasOperation_t opa = op_of(ta), opb = op_of(tb);
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb), CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayout_t la = layout(CUDA_C_16F, a, da.offset_bytes), lb = layout(CUDA_C_16F, b, db.offset_bytes);
  cublasLtMatrixLayout_t lc = layout(c_type, c, dc.offset_bytes);
  // The heuristic serves the planar problem, and the matmul runs with what it returned.
  cublasLtMatmulPreference_t pref = nullptr;
  CHECK_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  CHECK_EQ(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &result, &found), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(found, 1);
  const cuComplex al = make_cuComplex(float(alpha.real()), float(alpha.imag()));
  const cuComplex be = make_cuComplex(float(beta.real()), float(beta.imag()));
  // c_null (beta 0): C is passed as nullptr; cuBLASLt reads no C then, nor may the stand-in.
  const void* c_arg = c_null ? nullptr : static_cast<const void*>(dc.real);
  CHECK_EQ(cublasLtMatmul(lt, desc, &al, da.real, la, db.real, lb, &be, c_arg, lc, dc.real, lc, &result.algo,
                          nullptr, 0, nullptr),
           CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<TC> got(size_t(2 * c.plane * batch));
  CHECK_EQ(cudaMemcpy(got.data(), dc.base, got.size() * sizeof(TC), cudaMemcpyDeviceToHost), cudaSuccess);
  const std::vector<TC> before = host_planes<TC>(c);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < c.ld; ++i) {
        const size_t re = size_t(bi * 2 * c.plane + (imag_first ? c.plane : 0) + j * c.ld + i);
        const size_t im = size_t(bi * 2 * c.plane + (imag_first ? 0 : c.plane) + j * c.ld + i);
        cd want = {from(before[re]), from(before[im])};  // rows m..ld-1: the gap, never written
        if (i < m) {
          cd acc = 0.0;
          for (int64_t p = 0; p < k; ++p) acc += op(ta, a, i, p, bi) * op(tb, b, p, j, bi);
          want = alpha * acc + beta * c.at(i, j, bi);
        }
        const cd g = {from(got[re]), from(got[im])};
        if (std::abs(g - want) > 1e-3 * (1.0 + std::abs(want))) {
          std::fprintf(stderr, "%s: D(%lld, %lld) of member %lld is (%g,%g), expected (%g,%g)\n", what, (long long)i,
                       (long long)j, (long long)bi, g.real(), g.imag(), want.real(), want.imag());
          std::exit(1);
        }
      }
  for (cublasLtMatrixLayout_t l : {la, lb, lc}) CHECK_EQ(cublasLtMatrixLayoutDestroy(l), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulPreferenceDestroy(pref), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescDestroy(desc), CUBLAS_STATUS_SUCCESS);
  for (void* p : {static_cast<void*>(da.base), static_cast<void*>(db.base), static_cast<void*>(dc.base)})
    CHECK_EQ(cudaFree(p), cudaSuccess);
}

// Planar calls the stand-in does not model are refused with NOT_SUPPORTED, by the heuristic
// (no algorithm) and by the matmul, never computed as something else.
void refusals(cublasLtHandle_t lt) {
  const Planar p = make(4, 4, 1, false, 0);
  const DevicePlanar<__half> d = upload<__half>(p);
  cublasLtMatmulDesc_t desc = nullptr;
  CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_C_32F), CUBLAS_STATUS_SUCCESS);
  cublasLtMatrixLayout_t planar = layout(CUDA_C_16F, p, d.offset_bytes), interleaved = layout(CUDA_C_16F, p, 0);
  cublasLtMatrixLayout_t real = layout(CUDA_R_16F, p, d.offset_bytes);
  const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
  auto run = [&](cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lc) {
    return cublasLtMatmul(lt, desc, &one, d.real, la, d.real, la, &zero, d.real, lc, d.real, lc, nullptr, nullptr, 0,
                          nullptr);
  };
  CHECK_EQ(run(planar, interleaved), CUBLAS_STATUS_NOT_SUPPORTED);  // planar and interleaved mixed
  CHECK_EQ(run(interleaved, interleaved), CUBLAS_STATUS_NOT_SUPPORTED);  // interleaved fp16 complex: none
  cublasLtMatmulDesc_t real_desc = nullptr;
  CHECK_EQ(cublasLtMatmulDescCreate(&real_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  const float fone = 1, fzero = 0;
  CHECK_EQ(cublasLtMatmul(lt, real_desc, &fone, d.real, real, d.real, real, &fzero, d.real, real, d.real, real, nullptr,
                          nullptr, 0, nullptr),
           CUBLAS_STATUS_NOT_SUPPORTED);  // a plane offset on a real layout
  const cublasLtEpilogue_t relu = CUBLASLT_EPILOGUE_RELU;
  CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &relu, sizeof relu), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(run(planar, planar), CUBLAS_STATUS_NOT_SUPPORTED);  // epilogues are not modelled on planar operands
  cublasLtMatmulPreference_t pref = nullptr;
  CHECK_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
  cublasLtMatmulHeuristicResult_t result{};
  int found = -1;
  CHECK_EQ(cublasLtMatmulAlgoGetHeuristic(lt, desc, planar, planar, planar, planar, pref, 1, &result, &found),
           CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK_EQ(found, 0);
  for (cublasLtMatrixLayout_t l : {planar, interleaved, real}) CHECK_EQ(cublasLtMatrixLayoutDestroy(l), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulPreferenceDestroy(pref), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescDestroy(desc), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasLtMatmulDescDestroy(real_desc), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaFree(d.base), cudaSuccess);
}

}  // namespace

void run_lt_planar_case() {
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  // LtPlanarComplex's shape: fp16 planes, imaginary first, C is D; here with complex scalars.
  planar_case<__half>(lt, 'N', 'N', 5, 4, 3, 1, true, {1.5, -0.5}, {0.5, 0.25}, CUDA_C_16F, "planar fp16");
  // A strided batch of 3 (stride in real sub-elements), positive offsets, transposed and
  // conjugated inputs, a complex fp32 result.
  planar_case<float>(lt, 'T', 'C', 3, 5, 4, 3, false, {0.5, 1.0}, {-1.0, 0.5}, CUDA_C_32F, "planar batched");
  planar_case<float>(lt, 'C', 'N', 4, 2, 6, 2, true, {1.0, 0.0}, {0.0, 0.0}, CUDA_C_32F, "planar batched beta 0",
                     /*c_null=*/true);
  refusals(lt);
  CHECK_EQ(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
}

// cublasLtMatmul's block scale modes on the stand-in (case "lt_block_scales"): NVFP4, MXFP8 and
// fp8 with 1x128 / 128x128 fp32 blocks, each against a result computed here from the formats'
// definitions (E2M1, UE4M3, UE8M0) and the documented scale layouts, with scales that differ
// from block to block; then the combinations the stand-in refuses.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "selftest_check.h"

namespace {

template <class T>
T* to_device(const std::vector<T>& host) {
  void* p = nullptr;
  CHECK_EQ(cudaMalloc(&p, host.size() * sizeof(T)), cudaSuccess);
  CHECK_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return static_cast<T*>(p);
}

template <class T>
std::vector<T> to_host(const T* device, size_t n) {
  std::vector<T> host(n);
  CHECK_EQ(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// The formats, from their definitions.
double e2m1(unsigned nibble) {  // s.ee.m, bias 1; exponent 0 is subnormal (0, 0.5)
  const unsigned e = (nibble >> 1) & 3, m = nibble & 1;
  const double v = e == 0 ? 0.5 * m : std::ldexp(1.0 + 0.5 * m, int(e) - 1);
  return (nibble & 8) ? -v : v;
}
double e4m3_magnitude(unsigned code) {  // e.eee.mmm, bias 7 (the sign ignored: UE4M3)
  const unsigned e = (code >> 3) & 15, m = code & 7;
  return e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, int(e) - 7);
}
double e4m3(unsigned code) { return (code & 0x80) ? -e4m3_magnitude(code) : e4m3_magnitude(code); }
double ue8m0(unsigned code) { return std::ldexp(1.0, int(code) - 127); }
float bf16(uint16_t b) {
  const uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// The documented block-scale layout: 128 x 4 tiles of 512 bytes, for a matrix stored
// inner x outer with `blocks` scale blocks along inner.
size_t scale_offset(int outer, int block, int blocks) {
  const int tiles_inner = (blocks + 3) / 4;
  const int tile = outer / 128 * tiles_inner + block / 4;
  return size_t(tile) * 512 + size_t(outer % 32) * 16 + size_t(outer % 128 / 32) * 4 + block % 4;
}
size_t scale_bytes(int inner, int outer, int vec) {
  return size_t((inner / vec + 3) / 4 * 4) * size_t((outer + 127) / 128 * 128);
}

struct Matmul {
  cudaDataType ab = CUDA_R_4F_E2M1, c = CUDA_R_16BF, d = CUDA_R_16BF;
  int m = 0, n = 0, k = 0;
  int32_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  int32_t a_mode = 0, b_mode = 0, d_out_mode = 0;
  const void *a_scale = nullptr, *b_scale = nullptr, *d_scale = nullptr;
  void* d_out_scale = nullptr;
  int batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  const void *A = nullptr, *B = nullptr, *C = nullptr;
  void* D = nullptr;

  // Heuristic then matmul (when the heuristic gives an algorithm); the first failing status.
  cublasStatus_t run(cublasLtHandle_t lt) const {
    cublasLtMatmulDesc_t desc;
    CHECK_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* v, size_t size) {
      CHECK_EQ(cublasLtMatmulDescSetAttribute(desc, attr, v, size), CUBLAS_STATUS_SUCCESS);
    };
    set(CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
    set(CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode, sizeof a_mode);
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode, sizeof b_mode);
    set(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, &d_out_mode, sizeof d_out_mode);
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale);
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale);
    if (d_scale) set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale, sizeof d_scale);
    if (d_out_scale) set(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, &d_out_scale, sizeof d_out_scale);
    const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    CHECK_EQ(cublasLtMatrixLayoutCreate(&la, ab, ta ? k : m, ta ? m : k, ta ? k : m), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutCreate(&lb, ab, tb ? n : k, tb ? k : n, tb ? n : k), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutCreate(&lc, c, m, n, m), CUBLAS_STATUS_SUCCESS);
    CHECK_EQ(cublasLtMatrixLayoutCreate(&ld, d, m, n, m), CUBLAS_STATUS_SUCCESS);
    for (cublasLtMatrixLayout_t l : {la, lb, lc, ld}) {
      CHECK_EQ(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch),
               CUBLAS_STATUS_SUCCESS);
    }
    cublasLtMatmulPreference_t pref;
    CHECK_EQ(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ld, pref, 1, &result, &found);
    if (s == CUBLAS_STATUS_SUCCESS) {
      CHECK_EQ(found, 1);
      s = cublasLtMatmul(lt, desc, &alpha, A, la, B, lb, &beta, C, lc, D, ld, &result.algo, nullptr, 0, 0);
    }
    for (cublasLtMatrixLayout_t l : {la, lb, lc, ld}) cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatmulDescDestroy(desc);
    return s;
  }
};

// NVFP4: A^T (k x m stored), B (k x n), 16-element UE4M3 blocks along k; D bf16, then D E2M1 with
// the block scales the matmul computes.
void nvfp4(cublasLtHandle_t lt) {
  const int m = 40, n = 36, k = 80;  // outer beyond 32 (the tile's second row group), 5 blocks (two tiles)
  std::vector<uint8_t> a(size_t(k) * m / 2), b(size_t(k) * n / 2);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t((i * 37 + 11) % 256);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t((i * 53 + 5) % 256);
  const int blocks = k / 16;
  std::vector<uint8_t> sa(scale_bytes(k, m, 16), 0x7f), sb(scale_bytes(k, n, 16), 0x7f);  // NaN in padding
  auto scale_code = [](int outer, int block, int salt) { return uint8_t(0x30 + (outer * 3 + block * 5 + salt) % 17); };
  for (int i = 0; i < m; ++i)
    for (int q = 0; q < blocks; ++q) sa[scale_offset(i, q, blocks)] = scale_code(i, q, 0);
  for (int j = 0; j < n; ++j)
    for (int q = 0; q < blocks; ++q) sb[scale_offset(j, q, blocks)] = scale_code(j, q, 7);
  std::vector<uint16_t> c(size_t(m) * n);
  for (size_t i = 0; i < c.size(); ++i) c[i] = uint16_t(0x3f80 + (i % 9) * 0x10);  // 1.0 .. 1.56
  auto value = [](const std::vector<uint8_t>& v, size_t index) {
    return e2m1(index % 2 ? v[index / 2] >> 4 : v[index / 2] & 0xf);
  };
  std::vector<double> want(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int p = 0; p < k; ++p) {
        acc += value(a, size_t(p) + size_t(i) * k) * e4m3_magnitude(scale_code(i, p / 16, 0)) *
               value(b, size_t(p) + size_t(j) * k) * e4m3_magnitude(scale_code(j, p / 16, 7));
      }
      want[i + size_t(j) * m] = 1.5 * acc + 0.5 * bf16(c[i + size_t(j) * m]);
    }

  Matmul mm;
  mm.m = m, mm.n = n, mm.k = k, mm.alpha = 1.5f, mm.beta = 0.5f;
  mm.a_mode = mm.b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  mm.A = to_device(a), mm.B = to_device(b), mm.C = to_device(c);
  mm.a_scale = to_device(sa), mm.b_scale = to_device(sb);
  uint16_t* d16 = to_device(std::vector<uint16_t>(size_t(m) * n, 0));
  mm.D = d16;
  CHECK_EQ(mm.run(lt), CUBLAS_STATUS_SUCCESS);
  const auto got = to_host(d16, size_t(m) * n);
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::fabs(bf16(got[i]) - want[i]) <= std::fabs(want[i]) / 128 + 1e-6);

  // D in E2M1 with computed VEC16 scales over 16 rows of a column, D_SCALE 2.
  const float d_scale = 2.0f;
  mm.d = CUDA_R_4F_E2M1;
  mm.d_out_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  mm.d_scale = to_device(std::vector<float>{d_scale});
  const int d_blocks = (m + 15) / 16;
  uint8_t* d_out = to_device(std::vector<uint8_t>(scale_bytes(m, n, 16), 0xee));
  uint8_t* d4 = to_device(std::vector<uint8_t>(size_t(m) * n / 2, 0));
  mm.d_out_scale = d_out, mm.D = d4;
  CHECK_EQ(mm.run(lt), CUBLAS_STATUS_SUCCESS);
  const auto q = to_host(d4, size_t(m) * n / 2);
  const auto qs = to_host(d_out, scale_bytes(m, n, 16));
  int nonzero = 0;
  for (int j = 0; j < n; ++j)
    for (int blk = 0; blk < d_blocks; ++blk) {
      double amax = 0;
      for (int i = blk * 16; i < std::min(m, blk * 16 + 16); ++i) amax = std::max(amax, std::fabs(d_scale * want[i + size_t(j) * m]));
      const unsigned code = qs[scale_offset(j, blk, d_blocks)];
      const double s = e4m3_magnitude(code);
      // The smallest UE4M3 not below amax / 6: no element of the block saturates.
      CHECK(code <= 0x7e && s >= amax / 6 * (1 - 1e-6) && (code == 0 || e4m3_magnitude(code - 1) < amax / 6));
      for (int i = blk * 16; i < std::min(m, blk * 16 + 16); ++i) {
        const size_t at = i + size_t(j) * m;
        const double x = d_scale * want[at], got_v = e2m1(at % 2 ? q[at / 2] >> 4 : q[at / 2] & 0xf) * s;
        double best = INFINITY;  // the nearest E2M1 multiple of s (the bf16-free fp32 result can round either way at a tie)
        for (unsigned c4 = 0; c4 < 16; ++c4) best = std::min(best, std::fabs(e2m1(c4) * s - x));
        CHECK(std::fabs(got_v - x) <= best + std::fabs(x) * 1e-5 + 1e-9);
        nonzero += got_v != 0;
      }
    }
  CHECK(nonzero > m * n / 2);
  for (const void* p : {mm.A, mm.B, mm.C, mm.a_scale, mm.b_scale, mm.d_scale}) cudaFree(const_cast<void*>(p));
  cudaFree(d16), cudaFree(d_out), cudaFree(d4);
}

// MXFP8: e4m3 A^T and B with 32-element UE8M0 blocks; D bf16, then D e4m3 with computed VEC32 scales.
void mxfp8(cublasLtHandle_t lt) {
  const int m = 36, n = 20, k = 160;  // 5 blocks along k
  std::vector<uint8_t> a(size_t(k) * m), b(size_t(k) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t((i * 29 % 0x70) | (i % 3 == 0 ? 0x80 : 0));  // no NaN
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t((i * 31 % 0x68) | (i % 5 == 0 ? 0x80 : 0));
  const int blocks = k / 32;
  std::vector<uint8_t> sa(scale_bytes(k, m, 32), 0xff), sb(scale_bytes(k, n, 32), 0xff);
  auto scale_code = [](int outer, int block, int salt) { return uint8_t(124 + (outer + 2 * block + salt) % 7); };
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < blocks; ++p) sa[scale_offset(i, p, blocks)] = scale_code(i, p, 0);
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < blocks; ++p) sb[scale_offset(j, p, blocks)] = scale_code(j, p, 3);
  std::vector<double> want(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int p = 0; p < k; ++p) {
        acc += e4m3(a[p + size_t(i) * k]) * ue8m0(scale_code(i, p / 32, 0)) * e4m3(b[p + size_t(j) * k]) *
               ue8m0(scale_code(j, p / 32, 3));
      }
      want[i + size_t(j) * m] = 0.25 * acc;
    }
  Matmul mm;
  mm.ab = CUDA_R_8F_E4M3, mm.m = m, mm.n = n, mm.k = k, mm.alpha = 0.25f;
  mm.a_mode = mm.b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  mm.A = to_device(a), mm.B = to_device(b), mm.C = to_device(std::vector<uint16_t>(size_t(m) * n, 0x7fc0));  // NaN: beta 0
  mm.a_scale = to_device(sa), mm.b_scale = to_device(sb);
  uint16_t* d16 = to_device(std::vector<uint16_t>(size_t(m) * n, 0));
  mm.D = d16;
  CHECK_EQ(mm.run(lt), CUBLAS_STATUS_SUCCESS);
  const auto got = to_host(d16, size_t(m) * n);
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::fabs(bf16(got[i]) - want[i]) <= std::fabs(want[i]) / 128 + 1e-6);

  mm.d = CUDA_R_8F_E4M3, mm.d_out_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  const int d_blocks = (m + 31) / 32;
  uint8_t* d_out = to_device(std::vector<uint8_t>(scale_bytes(m, n, 32), 0));
  uint8_t* d8 = to_device(std::vector<uint8_t>(size_t(m) * n, 0));
  mm.d_out_scale = d_out, mm.D = d8;
  CHECK_EQ(mm.run(lt), CUBLAS_STATUS_SUCCESS);
  const auto q = to_host(d8, size_t(m) * n);
  const auto qs = to_host(d_out, scale_bytes(m, n, 32));
  for (int j = 0; j < n; ++j)
    for (int blk = 0; blk < d_blocks; ++blk) {
      double amax = 0;
      for (int i = blk * 32; i < std::min(m, blk * 32 + 32); ++i) amax = std::max(amax, std::fabs(want[i + size_t(j) * m]));
      const double s = ue8m0(qs[scale_offset(j, blk, d_blocks)]);
      CHECK(s >= amax / 448 * (1 - 1e-6) && s / 2 < amax / 448);  // the smallest power of two not below amax / 448
      for (int i = blk * 32; i < std::min(m, blk * 32 + 32); ++i) {
        const double x = want[i + size_t(j) * m], v = e4m3(q[i + size_t(j) * m]) * s;
        CHECK(std::fabs(v - x) <= std::fabs(x) / 16 + s * std::ldexp(1.0, -9));  // 3 mantissa bits, subnormals
      }
    }
  for (const void* p : {mm.A, mm.B, mm.C, mm.a_scale, mm.b_scale}) cudaFree(const_cast<void*>(p));
  cudaFree(d16), cudaFree(d_out), cudaFree(d8);
}

// fp8 with A in 1x128 blocks (VEC128_32F) and B in 128x128 blocks (BLK128x128_32F); then outer vectors.
void fp8_fp32_blocks(cublasLtHandle_t lt) {
  const int m = 6, n = 130, k = 260;  // 3 blocks along k, 2 along n
  std::vector<uint8_t> a(size_t(k) * m), b(size_t(k) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t((i * 13 % 0x60) | (i % 4 == 0 ? 0x80 : 0));
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t((i * 17 % 0x58) | (i % 7 == 0 ? 0x80 : 0));
  const int kb = (k + 127) / 128, kb_padded = (kb + 3) / 4 * 4, nb = (n + 127) / 128;
  std::vector<float> sa(size_t(kb) * m), sb(size_t(kb_padded) * nb, NAN);
  for (int p = 0; p < kb; ++p)
    for (int i = 0; i < m; ++i) sa[size_t(p) * m + i] = 0.5f + 0.25f * float((i + p) % 5);  // outer contiguous
  for (int jb = 0; jb < nb; ++jb)
    for (int p = 0; p < kb; ++p) sb[size_t(jb) * kb_padded + p] = 1.0f + float(jb * 3 + p);  // k blocks contiguous
  std::vector<float> ov_a(m), ov_b(n);
  for (int i = 0; i < m; ++i) ov_a[i] = 0.5f * float(i + 1);
  for (int j = 0; j < n; ++j) ov_b[j] = 2.0f - 0.01f * float(j);
  for (int outer = 0; outer < 2; ++outer) {
    std::vector<double> want(size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double acc = 0;
        for (int p = 0; p < k; ++p) {
          const double s = outer ? double(ov_a[i]) * ov_b[j]
                                 : double(sa[size_t(p / 128) * m + i]) * sb[size_t(j / 128) * kb_padded + p / 128];
          acc += e4m3(a[p + size_t(i) * k]) * e4m3(b[p + size_t(j) * k]) * s;
        }
        want[i + size_t(j) * m] = acc;
      }
    Matmul mm;
    mm.ab = CUDA_R_8F_E4M3, mm.m = m, mm.n = n, mm.k = k;
    mm.a_mode = outer ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    mm.b_mode = outer ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    mm.A = to_device(a), mm.B = to_device(b), mm.C = to_device(std::vector<uint16_t>(size_t(m) * n, 0));
    mm.a_scale = to_device(outer ? ov_a : sa), mm.b_scale = to_device(outer ? ov_b : sb);
    uint16_t* d16 = to_device(std::vector<uint16_t>(size_t(m) * n, 0));
    mm.D = d16;
    CHECK_EQ(mm.run(lt), CUBLAS_STATUS_SUCCESS);
    const auto got = to_host(d16, size_t(m) * n);
    for (size_t i = 0; i < got.size(); ++i) CHECK(std::fabs(bf16(got[i]) - want[i]) <= std::fabs(want[i]) / 128 + 1e-6);
    for (const void* p : {mm.A, mm.B, mm.C, mm.a_scale, mm.b_scale}) cudaFree(const_cast<void*>(p));
    cudaFree(d16);
  }
}

// What the stand-in does not model is refused, not computed some other way.
void refusals(cublasLtHandle_t lt) {
  const int m = 32, n = 32, k = 64;
  void* a = to_device(std::vector<uint8_t>(size_t(k) * m, 0));
  void* b = to_device(std::vector<uint8_t>(size_t(k) * n, 0));
  void* c = to_device(std::vector<uint16_t>(size_t(m) * n * 2, 0));
  void* d = to_device(std::vector<uint16_t>(size_t(m) * n * 2, 0));
  void* scales = to_device(std::vector<uint8_t>(scale_bytes(k, 128, 16) * 2, 0x38));
  Matmul base;
  base.m = m, base.n = n, base.k = k, base.A = a, base.B = b, base.C = c, base.D = d;
  base.a_mode = base.b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  base.a_scale = base.b_scale = scales;
  CHECK_EQ(base.run(lt), CUBLAS_STATUS_SUCCESS);
  Matmul x = base;
  x.transa = CUBLAS_OP_N;  // K would not be the blocks' dimension of A
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.a_mode = x.b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;  // E2M1 needs its block scales
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.ab = CUDA_R_8F_E4M3;  // UE4M3 blocks of 16 are FP4's
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.batch = 2;  // no batch stride for scale tensors
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.d = CUDA_R_4F_E2M1;  // an FP4 D needs its computed block scales
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.d = CUDA_R_4F_E2M1, x.d_out_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.d_out_mode = CUBLASLT_MATMUL_MATRIX_SCALE_END;
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_NOT_SUPPORTED);
  x = base, x.a_scale = nullptr;  // a block mode without its scales
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_INVALID_VALUE);
  // A scale tensor that ends before its documented size is a device fault, as on a GPU.
  void* short_scales = to_device(std::vector<uint8_t>(scale_bytes(k, m, 16) / 2, 0x38));
  x = base, x.a_scale = short_scales;
  CHECK_EQ(x.run(lt), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  for (void* p : {a, b, c, d, scales, short_scales}) cudaFree(p);
}

}  // namespace

void run_block_scales_case() {
  cublasLtHandle_t lt = nullptr;
  CHECK_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
  nvfp4(lt);
  mxfp8(lt);
  fp8_fp32_blocks(lt);
  refusals(lt);  // last: its device fault is sticky
  cublasLtDestroy(lt);
}

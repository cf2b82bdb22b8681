#include "gemm_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <vector>

#include "gemm_memo.h"
#include "numeric_formats.h"

namespace standin {

size_t element_size(cudaDataType type) {
  switch (type) {
    case CUDA_R_8I: case CUDA_R_8U: case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: case CUDA_C_8I: return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
  }
}

bool is_supported_type(cudaDataType type) { return element_size(type) != 0; }

bool is_complex(cudaDataType type) {
  return type == CUDA_C_32F || type == CUDA_C_64F || type == CUDA_C_8I || type == CUDA_C_16F ||
         type == CUDA_C_16BF;
}

namespace {

template <class T>
T read_as(const void* base, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + index * static_cast<int64_t>(sizeof(T)), sizeof v);
  return v;
}

template <class T>
void write_as(void* base, int64_t index, T v) {
  std::memcpy(static_cast<char*>(base) + index * static_cast<int64_t>(sizeof(T)), &v, sizeof v);
}

template <class Int>
Int saturate(double x) {
  if (std::isnan(x)) return 0;
  double r = std::nearbyint(x);
  if (r <= static_cast<double>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  if (r >= static_cast<double>(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
  return static_cast<Int>(r);
}

}  // namespace

complex load_element(const void* base, cudaDataType type, int64_t i) {
  switch (type) {
    case CUDA_R_32F: return read_as<float>(base, i);
    case CUDA_R_64F: return read_as<double>(base, i);
    case CUDA_R_16F: return half_to_float(read_as<uint16_t>(base, i));
    case CUDA_R_16BF: return bf16_to_float(read_as<uint16_t>(base, i));
    case CUDA_R_8I: return read_as<int8_t>(base, i);
    case CUDA_R_8U: return read_as<uint8_t>(base, i);
    case CUDA_R_32I: return read_as<int32_t>(base, i);
    case CUDA_R_8F_E4M3: return fp8_e4m3_to_double(read_as<uint8_t>(base, i));
    case CUDA_R_8F_E5M2: return fp8_e5m2_to_double(read_as<uint8_t>(base, i));
    case CUDA_C_32F: return {read_as<float>(base, 2 * i), read_as<float>(base, 2 * i + 1)};
    case CUDA_C_64F: return {read_as<double>(base, 2 * i), read_as<double>(base, 2 * i + 1)};
    case CUDA_C_8I: return {double(read_as<int8_t>(base, 2 * i)), double(read_as<int8_t>(base, 2 * i + 1))};
    case CUDA_C_16F:
      return {half_to_float(read_as<uint16_t>(base, 2 * i)), half_to_float(read_as<uint16_t>(base, 2 * i + 1))};
    case CUDA_C_16BF:
      return {bf16_to_float(read_as<uint16_t>(base, 2 * i)), bf16_to_float(read_as<uint16_t>(base, 2 * i + 1))};
    default: return 0.0;
  }
}

void store_element(void* base, cudaDataType type, int64_t i, complex v) {
  const double re = v.real(), im = v.imag();
  switch (type) {
    case CUDA_R_32F: write_as<float>(base, i, static_cast<float>(re)); break;
    case CUDA_R_64F: write_as<double>(base, i, re); break;
    case CUDA_R_16F: write_as<uint16_t>(base, i, float_to_half(static_cast<float>(re))); break;
    case CUDA_R_16BF: write_as<uint16_t>(base, i, float_to_bf16(static_cast<float>(re))); break;
    case CUDA_R_8I: write_as<int8_t>(base, i, saturate<int8_t>(re)); break;
    case CUDA_R_8U: write_as<uint8_t>(base, i, saturate<uint8_t>(re)); break;
    case CUDA_R_32I: write_as<int32_t>(base, i, saturate<int32_t>(re)); break;
    case CUDA_R_8F_E4M3: write_as<uint8_t>(base, i, double_to_fp8_e4m3(re)); break;
    case CUDA_R_8F_E5M2: write_as<uint8_t>(base, i, double_to_fp8_e5m2(re)); break;
    case CUDA_C_32F:
      write_as<float>(base, 2 * i, static_cast<float>(re));
      write_as<float>(base, 2 * i + 1, static_cast<float>(im));
      break;
    case CUDA_C_64F:
      write_as<double>(base, 2 * i, re);
      write_as<double>(base, 2 * i + 1, im);
      break;
    case CUDA_C_8I:
      write_as<int8_t>(base, 2 * i, saturate<int8_t>(re));
      write_as<int8_t>(base, 2 * i + 1, saturate<int8_t>(im));
      break;
    case CUDA_C_16F:
      write_as<uint16_t>(base, 2 * i, float_to_half(static_cast<float>(re)));
      write_as<uint16_t>(base, 2 * i + 1, float_to_half(static_cast<float>(im)));
      break;
    case CUDA_C_16BF:
      write_as<uint16_t>(base, 2 * i, float_to_bf16(static_cast<float>(re)));
      write_as<uint16_t>(base, 2 * i + 1, float_to_bf16(static_cast<float>(im)));
      break;
    default: break;
  }
}

complex load_scalar(const void* p, cudaDataType type) { return load_element(p, type, 0); }

size_t matrix_extent_bytes(int64_t rows, int64_t cols, const MatrixView& v) {
  if (rows <= 0 || cols <= 0) return 0;
  // A tiled view spans whole tiles of its last group of columns.
  const int64_t tile_rows = v.tiling == Tiling::Col32 ? 1 : (v.tiling == Tiling::Col4_4R2_8C ? 8 : 32);
  const int64_t last = v.tiling == Tiling::None
                           ? (rows - 1) * v.row_stride + (cols - 1) * v.col_stride
                           : ((cols - 1) / 32) * v.col_stride + (rows + tile_rows - 1) / tile_rows * tile_rows * 32 - 1;
  return static_cast<size_t>(last + 1) * element_size(v.type);
}

void corrupt_first_element(void* data, cudaDataType type) {
  store_element(data, type, 0, load_element(data, type, 0) + 1.0);
}

namespace {

double round_input(double x, InputRounding r) {
  switch (r) {
    case InputRounding::TF32: return round_to_tf32(static_cast<float>(x));
    case InputRounding::Half: return half_to_float(float_to_half(static_cast<float>(x)));
    case InputRounding::BF16: return bf16_to_float(float_to_bf16(static_cast<float>(x)));
    case InputRounding::None: break;
  }
  return x;
}

template <class T>
T to_work(complex v, InputRounding r);

template <>
double to_work<double>(complex v, InputRounding r) {
  return round_input(v.real(), r);
}

template <>
complex to_work<complex>(complex v, InputRounding r) {
  return {round_input(v.real(), r), round_input(v.imag(), r)};
}

// op(X)(i, j) of a stored matrix X: X(i, j), X(j, i) or conj(X(j, i)).
template <class T>
T op_element(const MatrixView& x, Op op, int64_t i, int64_t j, InputRounding r) {
  complex v = (op == Op::N) ? load_element(x.data, x.type, element_index(x, i, j))
                            : load_element(x.data, x.type, element_index(x, j, i));
  if (op == Op::C) v = std::conj(v);
  return to_work<T>(v, r);
}

double activate(double x, Activation a) {
  switch (a) {
    case Activation::Relu: return x > 0.0 ? x : 0.0;
    case Activation::Gelu: {
      const double kSqrt2OverPi = 0.7978845608028654;
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    }
    case Activation::None: break;
  }
  return x;
}

// D(i, j) from the sum op(A) op(B) (i, j): alpha and scale factors, beta C, bias, activation,
// amax, scale_d, rounding once into D's type. One copy of this arithmetic for both kernels.
void finish_element(const GemmProblem& p, int64_t i, int64_t j, complex acc, float& amax) {
  const complex alpha = p.alpha_vector ? load_element(p.alpha_vector, p.scale_type, i) : p.alpha;
  const complex beta = p.beta_vector ? load_element(p.beta_vector, p.scale_type, i) : p.beta;
  complex v = alpha * (acc * (p.scale_a * p.scale_b));
  if (beta != 0.0) {
    v += beta * p.scale_c * load_element(p.c.data, p.c.type, element_index(p.c, i, j));
  }
  if (p.bias) v += load_element(p.bias, p.bias_type, i);
  if (p.activation != Activation::None) v = activate(v.real(), p.activation);
  amax = std::max(amax, static_cast<float>(std::abs(v)));
  v *= p.scale_d;
  store_element(const_cast<void*>(p.d.data), p.d.type, element_index(p.d, i, j), v);
}

bool uses_ab(const GemmProblem& p) { return p.k > 0 && (p.alpha != 0.0 || p.alpha_vector != nullptr); }

// Four independent partial sums: the compiler may not reorder a floating-point reduction by
// itself, and one dependency chain would leave most of the FPU idle. Partial sum l adds the
// products of the indices q = l (mod 4) in increasing order, the remainder goes to the first, and
// the result is (s0 + s1) + (s2 + s3): the real kernel below keeps exactly this order.
template <class T>
T dot(const T* a, const T* b, int64_t k) {
  T s0{}, s1{}, s2{}, s3{};
  int64_t q = 0;
  for (; q + 4 <= k; q += 4) {
    s0 += a[q] * b[q];
    s1 += a[q + 1] * b[q + 1];
    s2 += a[q + 2] * b[q + 2];
    s3 += a[q + 3] * b[q + 3];
  }
  for (; q < k; ++q) s0 += a[q] * b[q];
  return (s0 + s1) + (s2 + s3);
}

// Complex GEMMs: packs panels of op(A) (rows i0.., k contiguous) and op(B) (columns j0.., k
// contiguous) so the innermost loop is a contiguous dot product; 64 x 64 blocks.
void complex_kernel(const GemmProblem& p) {
  constexpr int64_t kBlock = 64;
  const int64_t k = uses_ab(p) ? p.k : 0;
  std::vector<complex> a_panel(static_cast<size_t>(kBlock * k));
  std::vector<complex> b_panel(static_cast<size_t>(kBlock * k));
  float amax = 0.0f;

  for (int64_t j0 = 0; j0 < p.n; j0 += kBlock) {
    const int64_t jn = std::min(kBlock, p.n - j0);
    for (int64_t jj = 0; jj < jn; ++jj)
      for (int64_t q = 0; q < k; ++q)
        b_panel[jj * k + q] = op_element<complex>(p.b, p.op_b, q, j0 + jj, p.rounding);

    for (int64_t i0 = 0; i0 < p.m; i0 += kBlock) {
      const int64_t in = std::min(kBlock, p.m - i0);
      for (int64_t ii = 0; ii < in; ++ii)
        for (int64_t q = 0; q < k; ++q)
          a_panel[ii * k + q] = op_element<complex>(p.a, p.op_a, i0 + ii, q, p.rounding);

      for (int64_t jj = 0; jj < jn; ++jj)
        for (int64_t ii = 0; ii < in; ++ii)
          finish_element(p, i0 + ii, j0 + jj, dot(a_panel.data() + ii * k, b_panel.data() + jj * k, k), amax);
    }
  }
  if (p.amax_d) *p.amax_d = amax;
}

// ---- The real kernel ------------------------------------------------------------------------
// The same sums as dot() (four partial sums, the same order, separate multiply and add), laid out
// so that the compiler keeps them in vector registers: lane l of a 4-double vector is partial sum
// l, and a 4 x 2 tile of outputs shares its loads. op(A) is converted to double once, op(B) once
// per block of columns, and the k loop is cut into cache-sized pieces whose partial sums wait in
// a buffer. Built twice, for AVX2 and for the baseline ISA, chosen at run time.
using v4d = double __attribute__((vector_size(32)));

constexpr int64_t kTileRows = 4, kTileCols = 2;
constexpr int64_t kPanelCols = 64;  // columns of op(B) per packed panel
constexpr int64_t kDepth = 256;     // k per pass, a multiple of 4

// (Through a reference: returning a 32-byte vector would depend on the ISA's calling convention.)
// The same vector, allowed at any address: the buffers come from std::vector<double>.
using v4d_unaligned = double __attribute__((vector_size(32), aligned(8), may_alias));

// The 4 lanes at acc + 4 * (r * acc_stride + c) += rows r of a (stride k) times columns c of b
// (stride k) over [0, len). The sums stay in registers for the whole pass.
template <int R, int C>
__attribute__((always_inline)) inline void tile(const double* a, const double* b, int64_t k, int64_t len, double* acc,
                                                int64_t acc_stride) {
  v4d s[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) s[r][c] = *reinterpret_cast<const v4d_unaligned*>(acc + 4 * (r * acc_stride + c));
  for (int64_t q = 0; q < len; q += 4) {
    v4d av[R], bv[C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) av[r] = *reinterpret_cast<const v4d_unaligned*>(a + r * k + q);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) bv[c] = *reinterpret_cast<const v4d_unaligned*>(b + c * k + q);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) s[r][c] += av[r] * bv[c];
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) *reinterpret_cast<v4d_unaligned*>(acc + 4 * (r * acc_stride + c)) = s[r][c];
}

// One pass over k in [q0, q0 + len) for all m rows and the nb columns of a panel.
__attribute__((always_inline)) inline void pass_body(const double* a, const double* b, int64_t m, int64_t nb,
                                                     int64_t k, int64_t q0, int64_t len, double* acc) {
  int64_t i = 0;
  for (; i + kTileRows <= m; i += kTileRows) {
    int64_t j = 0;
    for (; j + kTileCols <= nb; j += kTileCols)
      tile<kTileRows, kTileCols>(a + i * k + q0, b + j * k + q0, k, len, acc + 4 * (i * nb + j), nb);
    for (; j < nb; ++j) tile<kTileRows, 1>(a + i * k + q0, b + j * k + q0, k, len, acc + 4 * (i * nb + j), nb);
  }
  for (; i < m; ++i)
    for (int64_t j = 0; j < nb; ++j) tile<1, 1>(a + i * k + q0, b + j * k + q0, k, len, acc + 4 * (i * nb + j), nb);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void pass_avx2(const double* a, const double* b, int64_t m, int64_t nb, int64_t k,
                                               int64_t q0, int64_t len, double* acc) {
  pass_body(a, b, m, nb, k, q0, len, acc);
}
#endif

void pass_baseline(const double* a, const double* b, int64_t m, int64_t nb, int64_t k, int64_t q0, int64_t len,
                   double* acc) {
  pass_body(a, b, m, nb, k, q0, len, acc);
}

using PassFn = void (*)(const double*, const double*, int64_t, int64_t, int64_t, int64_t, int64_t, double*);

PassFn pick_pass() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) return pass_avx2;
#endif
  return pass_baseline;
}

// op(X)(i, q) for all i < rows, q < k into out[i * k + q], walking X's memory in order.
void pack(const MatrixView& x, Op op, int64_t rows, int64_t k, InputRounding r, double* out) {
  const int64_t i_stride = op == Op::N ? x.row_stride : x.col_stride;
  const int64_t q_stride = op == Op::N ? x.col_stride : x.row_stride;
  auto at = [&](int64_t i, int64_t q) {
    return round_input(load_element(x.data, x.type, i * i_stride + q * q_stride).real(), r);
  };
  if (x.tiling != Tiling::None) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t q = 0; q < k; ++q) {
        const int64_t index = op == Op::N ? element_index(x, i, q) : element_index(x, q, i);
        out[i * k + q] = round_input(load_element(x.data, x.type, index).real(), r);
      }
  } else if (std::abs(q_stride) <= std::abs(i_stride)) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t q = 0; q < k; ++q) out[i * k + q] = at(i, q);
  } else {
    for (int64_t q = 0; q < k; ++q)
      for (int64_t i = 0; i < rows; ++i) out[i * k + q] = at(i, q);
  }
}

// Columns j0 .. j0 + nb of op(B) as rows of a k-wide panel: out[j * k + q] = op(B)(q, j0 + j).
void pack_panel(const GemmProblem& p, int64_t j0, int64_t nb, int64_t k, double* out) {
  if (p.b.tiling != Tiling::None) {  // a tiled B has no column to start a view at
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t q = 0; q < k; ++q) {
        const int64_t index = p.op_b == Op::N ? element_index(p.b, q, j0 + j) : element_index(p.b, j0 + j, q);
        out[j * k + q] = round_input(load_element(p.b.data, p.b.type, index).real(), p.rounding);
      }
    return;
  }
  MatrixView bt = p.b;
  bt.data = static_cast<const char*>(p.b.data) +
            (p.op_b == Op::N ? j0 * p.b.col_stride : j0 * p.b.row_stride) * static_cast<int64_t>(element_size(p.b.type));
  pack(bt, p.op_b == Op::N ? Op::T : Op::N, nb, k, p.rounding, out);
}

// Column panels [first, first + step, ...) of D; returns max |D| before scale_d.
float real_panels(const GemmProblem& p, const double* a, int64_t k, int64_t first, int64_t step) {
  const int64_t k4 = k - k % 4;
  const PassFn pass = pick_pass();
  std::vector<double> b(static_cast<size_t>(kPanelCols * k));
  std::vector<double> acc(static_cast<size_t>(4 * p.m * kPanelCols));  // 4 partial sums per output
  float amax = 0.0f;
  for (int64_t j0 = first * kPanelCols; j0 < p.n; j0 += step * kPanelCols) {
    const int64_t nb = std::min(kPanelCols, p.n - j0);
    pack_panel(p, j0, nb, k, b.data());
    std::fill(acc.begin(), acc.begin() + 4 * p.m * nb, 0.0);
    for (int64_t q0 = 0; q0 < k4; q0 += kDepth) pass(a, b.data(), p.m, nb, k, q0, std::min(kDepth, k4 - q0), acc.data());
    for (int64_t j = 0; j < nb; ++j) {
      for (int64_t i = 0; i < p.m; ++i) {
        const double* s = acc.data() + 4 * (i * nb + j);
        double s0 = s[0];
        for (int64_t q = k4; q < k; ++q) s0 += a[i * k + q] * b[j * k + q];
        finish_element(p, i, j0 + j, (s0 + s[1]) + (s[2] + s[3]), amax);
      }
    }
  }
  return amax;
}

// Below this many multiply-adds a second thread costs more than it saves.
constexpr int64_t kThreadedWork = int64_t{1} << 24;

void real_kernel(const GemmProblem& p) {
  const int64_t k = uses_ab(p) ? p.k : 0;
  std::vector<double> a(static_cast<size_t>(p.m * k));
  pack(p.a, p.op_a, p.m, k, p.rounding, a.data());
  float amax = 0.0f;
  bool done = false;
  if (p.m * p.n * k >= kThreadedWork && p.n > kPanelCols && std::thread::hardware_concurrency() > 1) {
    // Two threads take alternate column panels: each output is computed by one thread, in the
    // same order, so the result does not depend on the split.
    float other = 0.0f;
    try {
      std::thread helper([&] { other = real_panels(p, a.data(), k, 1, 2); });
      amax = real_panels(p, a.data(), k, 0, 2);
      helper.join();
      amax = std::max(amax, other);
      done = true;
    } catch (const std::system_error&) {  // no thread to be had: compute alone
    }
  }
  if (!done) amax = real_panels(p, a.data(), k, 0, 1);
  if (p.amax_d) *p.amax_d = amax;
}

}  // namespace

void run_gemm(const GemmProblem& p) {
  if (p.m <= 0 || p.n <= 0) return;
  const bool complex_math = is_complex(p.a.type) || is_complex(p.b.type) || is_complex(p.c.type) ||
                            is_complex(p.d.type) || p.alpha.imag() != 0.0 || p.beta.imag() != 0.0 ||
                            is_complex(p.scale_type);
  if (gemm_memo_replay(p)) return;
  if (complex_math) complex_kernel(p);
  else real_kernel(p);
  gemm_memo_store(p);
}

}  // namespace standin

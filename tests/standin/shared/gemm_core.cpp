#include "gemm_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

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
  const int64_t last = (rows - 1) * v.row_stride + (cols - 1) * v.col_stride;
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
  complex v = (op == Op::N) ? load_element(x.data, x.type, i * x.row_stride + j * x.col_stride)
                            : load_element(x.data, x.type, j * x.row_stride + i * x.col_stride);
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

// Four independent partial sums: the compiler may not reorder a floating-point reduction by
// itself, and one dependency chain would leave most of the FPU idle.
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

// Packs panels of op(A) (rows i0.., k contiguous) and op(B) (columns j0.., k contiguous) so the
// innermost loop is a contiguous dot product; 64 x 64 blocks keep the panels small.
template <class T>
void gemm_kernel(const GemmProblem& p) {
  constexpr int64_t kBlock = 64;
  const bool use_ab = p.k > 0 && (p.alpha != 0.0 || p.alpha_vector != nullptr);
  const int64_t k = use_ab ? p.k : 0;
  std::vector<T> a_panel(static_cast<size_t>(kBlock * k));
  std::vector<T> b_panel(static_cast<size_t>(kBlock * k));
  float amax = 0.0f;

  for (int64_t j0 = 0; j0 < p.n; j0 += kBlock) {
    const int64_t jn = std::min(kBlock, p.n - j0);
    for (int64_t jj = 0; jj < jn; ++jj)
      for (int64_t q = 0; q < k; ++q)
        b_panel[jj * k + q] = op_element<T>(p.b, p.op_b, q, j0 + jj, p.rounding);

    for (int64_t i0 = 0; i0 < p.m; i0 += kBlock) {
      const int64_t in = std::min(kBlock, p.m - i0);
      for (int64_t ii = 0; ii < in; ++ii)
        for (int64_t q = 0; q < k; ++q)
          a_panel[ii * k + q] = op_element<T>(p.a, p.op_a, i0 + ii, q, p.rounding);

      for (int64_t jj = 0; jj < jn; ++jj) {
        const int64_t j = j0 + jj;
        for (int64_t ii = 0; ii < in; ++ii) {
          const int64_t i = i0 + ii;
          const T acc = dot(a_panel.data() + ii * k, b_panel.data() + jj * k, k);

          const complex alpha = p.alpha_vector ? load_element(p.alpha_vector, p.scale_type, i) : p.alpha;
          const complex beta = p.beta_vector ? load_element(p.beta_vector, p.scale_type, i) : p.beta;
          complex v = alpha * (complex(acc) * (p.scale_a * p.scale_b));
          if (beta != 0.0) {
            v += beta * p.scale_c *
                 load_element(p.c.data, p.c.type, i * p.c.row_stride + j * p.c.col_stride);
          }
          if (p.bias) v += load_element(p.bias, p.bias_type, i);
          if (p.activation != Activation::None) v = activate(v.real(), p.activation);
          amax = std::max(amax, static_cast<float>(std::abs(v)));
          v *= p.scale_d;
          store_element(const_cast<void*>(p.d.data), p.d.type, i * p.d.row_stride + j * p.d.col_stride, v);
        }
      }
    }
  }
  if (p.amax_d) *p.amax_d = amax;
}

}  // namespace

void run_gemm(const GemmProblem& p) {
  if (p.m <= 0 || p.n <= 0) return;
  const bool complex_math = is_complex(p.a.type) || is_complex(p.b.type) || is_complex(p.c.type) ||
                            is_complex(p.d.type) || p.alpha.imag() != 0.0 || p.beta.imag() != 0.0 ||
                            is_complex(p.scale_type);
  if (complex_math) gemm_kernel<complex>(p);
  else gemm_kernel<double>(p);
}

}  // namespace standin

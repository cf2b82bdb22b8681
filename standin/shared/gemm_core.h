// The one GEMM every stand-in entry point ends in: D = epilogue(alpha * op(A) op(B) + beta * C),
// computed on the host. It is typed at run time (cudaDataType per operand) so that ~60 cuBLAS
// entry points and cublasLtMatmul share it without a template explosion: operands are packed
// into double (or complex<double>) panels first, so the O(m n k) inner loop is plain arithmetic.
//
// It neither validates arguments nor checks pointers: callers (the cuBLAS and cuBLASLt front
// ends) do that first, with the status codes their API documents.
#pragma once

#include <library_types.h>

#include <complex>
#include <cstddef>
#include <cstdint>

namespace standin {

using complex = std::complex<double>;

// cuBLASLt's tiled memory orders for IMMA kernels (cublasLtOrder_t, documented in cublasLt.h):
// groups of 32 columns, col_stride (the layout's ld) elements apart, each holding its rows in
// tiles of 1 row (COL32), 8 rows (COL4_4R2_8C) or 32 rows (COL32_2R_4R4) with the element order
// inside a tile that the order names.
enum class Tiling { None, Col32, Col4_4R2_8C, Col32_2R_4R4 };

// One matrix operand: element (r, c) sits at data + (r * row_stride + c * col_stride) elements.
// Column-major with leading dimension ld: row_stride 1, col_stride ld; row-major: the reverse.
// A tiled view uses col_stride as the distance between groups of 32 columns (see element_index).
struct MatrixView {
  const void* data = nullptr;
  cudaDataType type = CUDA_R_32F;
  int64_t row_stride = 1;
  int64_t col_stride = 1;
  Tiling tiling = Tiling::None;
};

// Index (in elements) of element (r, c) of a view.
inline int64_t element_index(const MatrixView& v, int64_t r, int64_t c) {
  const int64_t group = (c / 32) * v.col_stride, col = c % 32;
  switch (v.tiling) {
    case Tiling::None: break;
    case Tiling::Col32: return group + r * 32 + col;
    case Tiling::Col4_4R2_8C:  // 8 x 32 tiles: even rows, then odd rows, in 4-column pieces
      return group + (r / 8) * 256 + (r % 2) * 128 + (col / 4) * 16 + (r % 8 / 2) * 4 + col % 4;
    case Tiling::Col32_2R_4R4: {  // 32 x 32 tiles; the offset formula of cublasLt.h
      const int64_t t = r % 32;
      return group + (r / 32) * 1024 + (((t % 8) / 2 * 4 + t / 8) * 2 + t % 2) * 32 + col;
    }
  }
  return r * v.row_stride + c * v.col_stride;
}

enum class Op { N, T, C };  // op(X) = X, X^T, X^H

// How inputs are rounded before the multiply, as the "fast" compute types and TF32 math do.
enum class InputRounding { None, TF32, Half, BF16 };

enum class Activation { None, Relu, Gelu };

struct GemmProblem {
  Op op_a = Op::N, op_b = Op::N;
  int64_t m = 0, n = 0, k = 0;
  MatrixView a, b, c;
  MatrixView d;  // written; d.data may equal c.data (in place)
  // alpha and beta, already read from host or device memory. When alpha_vector is set,
  // row i uses alpha_vector[i] (cuBLASLt's DEVICE_VECTOR pointer modes), likewise beta.
  complex alpha = 1.0, beta = 0.0;
  const void* alpha_vector = nullptr;
  const void* beta_vector = nullptr;
  cudaDataType scale_type = CUDA_R_32F;  // type of the vector elements
  InputRounding rounding = InputRounding::None;
  // Epilogue (cuBLASLt): bias has m elements, added to every column before the activation.
  const void* bias = nullptr;
  cudaDataType bias_type = CUDA_R_32F;
  Activation activation = Activation::None;
  // cuBLASLt scale factors: D = scale_d * epilogue(alpha * scale_a * scale_b * AB + beta * scale_c * C)
  double scale_a = 1.0, scale_b = 1.0, scale_c = 1.0, scale_d = 1.0;
  float* amax_d = nullptr;  // when set, receives max |D| before scale_d
};

size_t element_size(cudaDataType type);
bool is_complex(cudaDataType type);
// True for the element types the core can load and store.
bool is_supported_type(cudaDataType type);

complex load_element(const void* base, cudaDataType type, int64_t index);
void store_element(void* base, cudaDataType type, int64_t index, complex value);

// Reads one alpha/beta-like scalar of `type` (host memory; device memory is host memory here).
complex load_scalar(const void* p, cudaDataType type);

// Bytes spanned by a rows x cols matrix with the given strides (0 when empty).
size_t matrix_extent_bytes(int64_t rows, int64_t cols, const MatrixView& view);

void run_gemm(const GemmProblem& problem);

// STANDIN_WRONG_RESULT: adds 1.0 to element 0 of an output matrix.
void corrupt_first_element(void* data, cudaDataType type);

}  // namespace standin

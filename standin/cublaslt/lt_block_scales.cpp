// Block-scaled cublasLtMatmul (see lt_block_scales.h). What is modelled, from cublasLt.h's
// cublasLtMatmulMatrixScale_t and the cuBLAS documentation's scale layouts:
//
//   NVFP4  A, B CUDA_R_4F_E2M1 (two elements a byte, the first in the low nibble), both
//          VEC16_UE4M3; D of C's type, or CUDA_R_4F_E2M1 with D_OUT_SCALE_MODE VEC16_UE4M3.
//   MXFP8  A, B fp8, both VEC32_UE8M0; D of C's type, or fp8 with D_OUT_SCALE_MODE VEC32_UE8M0.
//   fp8    A, B each SCALAR_32F, OUTER_VEC_32F (M or N fp32 values), VEC128_32F (one fp32 per 128
//          elements along K) or BLK128x128_32F (one fp32 per 128 x 128 block).
//
// Every block mode needs op(A) = A^T and op(B) = B (K is then the contiguous dimension of both,
// the only form cuBLAS's block-scaled kernels take), column-major layouts, one matrix (no batch)
// and SCALAR_32F for C and D; the rest is refused with NOT_SUPPORTED.
//
// Scale tensor layouts, for a matrix stored inner x outer (inner the contiguous dimension):
//   VEC16/VEC32  one byte per block of 16/32 inner elements, in tiles of 128 outer x 4 blocks,
//                each tile 512 bytes: (outer % 32) * 16 + (outer % 128 / 32) * 4 + block % 4,
//                tiles inner-block-major within a row of 128 outer indices (the documented
//                "block scaling factors layout"; the sample's getScaleTensorSize pads likewise).
//   VEC128_32F   ceil(inner / 128) x outer fp32, outer contiguous: (block * outer + o).
//   BLK128x128   ceil(outer / 128) rows of ceil(inner / 128) rounded up to 4 fp32, inner-block
//                contiguous: (o / 128) * padded + block.
//
// A block-scaled output: D_tmp = scale_d * (alpha * A B + beta * scale_c * C) in fp32; for every
// block of 16 (FP4) or 32 (fp8) elements down a column of D, the block scale is amax / max(D type)
// rounded up to the scale type (so no element saturates: cublasLt.h does not say how cuBLAS
// rounds it), written to D_OUT_SCALE_POINTER in the layout above, and D = D_tmp / scale, rounded
// to nearest. AMAX_D receives max |alpha A B + beta C| as for any fp8 output.
#include "lt_block_scales.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "numeric_formats.h"
#include "standin_private.h"

namespace standin {

namespace {

constexpr int32_t kScalar = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
constexpr int32_t kVec16 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
constexpr int32_t kVec32 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
constexpr int32_t kOuterVec = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
constexpr int32_t kVec128 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
constexpr int32_t kBlk128 = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;

bool is_fp8(cudaDataType t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

int64_t ceil_div(int64_t x, int64_t d) { return (x + d - 1) / d; }
int64_t round_up(int64_t x, int64_t d) { return ceil_div(x, d) * d; }

// E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit; no infinities or NaN.
constexpr double kE2M1Values[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

double e2m1_value(uint8_t nibble) {
  const double v = kE2M1Values[nibble & 7];
  return (nibble & 8) ? -v : v;
}

// Nearest E2M1 (ties to the even code), saturating at 6 (cvt.rn.satfinite).
uint8_t e2m1_code(double x) {
  const uint8_t sign = std::signbit(x) ? 8 : 0;
  const double a = std::isnan(x) ? 6.0 : std::fabs(x);
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    const double dc = std::fabs(kE2M1Values[c] - a), db = std::fabs(kE2M1Values[best] - a);
    if (dc < db || (dc == db && (c & 1) == 0)) best = c;
  }
  return static_cast<uint8_t>(sign | best);
}

// UE4M3 is E4M3 with the sign bit ignored; UE8M0 is 2^(code - 127), 0xff NaN.
double ue4m3_value(uint8_t code) { return fp8_e4m3_to_double(code & 0x7f); }
double ue8m0_value(uint8_t code) { return code == 0xff ? std::nan("") : std::ldexp(1.0, int(code) - 127); }

uint8_t ue4m3_round_up(double target) {
  for (int c = 0; c <= 0x7e; ++c)
    if (fp8_e4m3_to_double(static_cast<uint8_t>(c)) >= target) return static_cast<uint8_t>(c);
  return 0x7e;  // 448, the largest
}

uint8_t ue8m0_round_up(double target) {
  if (!(target > std::ldexp(1.0, -127))) return 0;
  int e = 0;
  const double f = std::frexp(target, &e);  // target = f * 2^e, f in [0.5, 1)
  const int exponent = f == 0.5 ? e - 1 : e;
  return static_cast<uint8_t>(std::clamp(exponent + 127, 0, 254));
}

// The byte of block `block` (along inner) of outer index `outer` in a VEC16/VEC32 scale tensor.
uint64_t block_scale_index(int64_t outer, int64_t block, int64_t blocks) {
  const int64_t tiles_inner = ceil_div(blocks, 4);
  return static_cast<uint64_t>(((outer / 128) * tiles_inner + block / 4) * 512 + (outer % 32) * 16 +
                               (outer % 128 / 32) * 4 + block % 4);
}

// The scale of element (r along inner, c along outer) of a matrix stored inner x outer.
double scale_at(int32_t mode, const void* scales, int64_t r, int64_t c, int64_t inner, int64_t outer) {
  const auto* bytes = static_cast<const uint8_t*>(scales);
  auto f32 = [&](int64_t i) {
    float f;
    std::memcpy(&f, bytes + i * 4, 4);
    return static_cast<double>(f);
  };
  switch (mode) {
    case kScalar: return scales ? f32(0) : 1.0;
    case kVec16: return ue4m3_value(bytes[block_scale_index(c, r / 16, ceil_div(inner, 16))]);
    case kVec32: return ue8m0_value(bytes[block_scale_index(c, r / 32, ceil_div(inner, 32))]);
    case kOuterVec: return f32(c);
    case kVec128: return f32((r / 128) * outer + c);
    case kBlk128: return f32((c / 128) * round_up(ceil_div(inner, 128), 4) + r / 128);
  }
  return 1.0;
}

double load_value(const void* data, cudaDataType type, int64_t index) {
  if (type == CUDA_R_4F_E2M1) {
    const uint8_t byte = static_cast<const uint8_t*>(data)[index / 2];
    return e2m1_value(index % 2 ? byte >> 4 : byte & 0xf);
  }
  return load_element(data, type, index).real();
}

void store_e2m1(void* data, int64_t index, double value) {
  uint8_t& byte = static_cast<uint8_t*>(data)[index / 2];
  const uint8_t code = e2m1_code(value);
  byte = index % 2 ? static_cast<uint8_t>((byte & 0x0f) | (code << 4)) : static_cast<uint8_t>((byte & 0xf0) | code);
}

// A stored inner x outer operand, dequantized with its scales into a column-major fp32 panel.
std::vector<float> dequantize(const MatrixView& v, int32_t mode, const void* scales, int64_t inner, int64_t outer) {
  std::vector<float> out(static_cast<size_t>(inner * outer));
  for (int64_t c = 0; c < outer; ++c)
    for (int64_t r = 0; r < inner; ++r)
      out[static_cast<size_t>(r + c * inner)] = static_cast<float>(
          load_value(v.data, v.type, r + c * v.col_stride) * scale_at(mode, scales, r, c, inner, outer));
  return out;
}

bool reachable(const void* p, uint64_t bytes) { return bytes == 0 || standin_device_accessible(p, bytes); }

}  // namespace

bool lt_block_scaled(const LtMatmulDesc& desc, cudaDataType a, cudaDataType d) {
  return a == CUDA_R_4F_E2M1 || d == CUDA_R_4F_E2M1 || desc.a_scale_mode != kScalar ||
         desc.b_scale_mode != kScalar || desc.d_out_scale_mode != kScalar;
}

cublasStatus_t lt_check_scale_modes(const LtMatmulDesc& desc, const LtLayout& la, const LtLayout& lb,
                                    const LtLayout& lc, const LtLayout& ld) {
  const auto a = static_cast<cudaDataType>(la.type), b = static_cast<cudaDataType>(lb.type),
             d = static_cast<cudaDataType>(ld.type);
  for (int32_t mode : {desc.a_scale_mode, desc.b_scale_mode, desc.c_scale_mode, desc.d_scale_mode,
                       desc.d_out_scale_mode, desc.epilogue_aux_scale_mode}) {
    if (mode < kScalar || mode >= CUBLASLT_MATMUL_MATRIX_SCALE_END) return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (!lt_block_scaled(desc, a, d)) return CUBLAS_STATUS_SUCCESS;
  if (desc.c_scale_mode != kScalar || desc.d_scale_mode != kScalar || desc.epilogue_aux_scale_mode != kScalar) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const int32_t am = desc.a_scale_mode, bm = desc.b_scale_mode;
  bool inputs_ok = false;
  if (a == CUDA_R_4F_E2M1 && b == CUDA_R_4F_E2M1) {
    inputs_ok = am == kVec16 && bm == kVec16;
  } else if (is_fp8(a) && is_fp8(b)) {
    auto fp32_mode = [](int32_t m) { return m == kScalar || m == kOuterVec || m == kVec128 || m == kBlk128; };
    inputs_ok = (am == kVec32 && bm == kVec32) || (fp32_mode(am) && fp32_mode(bm));
  }
  if (!inputs_ok) return CUBLAS_STATUS_NOT_SUPPORTED;
  // The output: of C's type with no block scales, or quantized with computed block scales.
  const int32_t om = desc.d_out_scale_mode;
  if (om == kVec16 ? d != CUDA_R_4F_E2M1 || am != kVec16
                   : om == kVec32 ? !is_fp8(d) || am != kVec32 : om != kScalar || d == CUDA_R_4F_E2M1) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const bool any_block = am != kScalar || bm != kScalar || om != kScalar;
  if (any_block && (desc.transa != CUBLAS_OP_T || desc.transb != CUBLAS_OP_N)) return CUBLAS_STATUS_NOT_SUPPORTED;
  for (const LtLayout* l : {&la, &lb, &lc, &ld}) {
    if (l->order != CUBLASLT_ORDER_COL || l->batch_count != 1) return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  return CUBLAS_STATUS_SUCCESS;
}

uint64_t lt_scale_tensor_bytes(int32_t mode, int64_t inner, int64_t outer) {
  if (inner <= 0 || outer <= 0) return 0;
  switch (mode) {
    case kScalar: return 4;
    case kVec16: return static_cast<uint64_t>(round_up(ceil_div(inner, 16), 4) * round_up(outer, 128));
    case kVec32: return static_cast<uint64_t>(round_up(ceil_div(inner, 32), 4) * round_up(outer, 128));
    case kOuterVec: return static_cast<uint64_t>(outer) * 4;
    case kVec128: return static_cast<uint64_t>(ceil_div(inner, 128) * outer) * 4;
    case kBlk128: return static_cast<uint64_t>(round_up(ceil_div(inner, 128), 4) * ceil_div(outer, 128)) * 4;
  }
  return 0;
}

uint64_t lt_matrix_bytes(cudaDataType type, int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0) return 0;
  const uint64_t elements = static_cast<uint64_t>((cols - 1) * ld + rows);
  return type == CUDA_R_4F_E2M1 ? (elements + 1) / 2 : elements * element_size(type);
}

cublasStatus_t lt_run_block_scaled(const LtMatmulDesc& desc, GemmProblem p, int64_t a_rows, int64_t a_cols,
                                   int64_t b_rows, int64_t b_cols, int64_t a_ld, int64_t b_ld, int64_t d_ld,
                                   bool* fault) {
  *fault = false;
  const int32_t am = desc.a_scale_mode, bm = desc.b_scale_mode, om = desc.d_out_scale_mode;
  if ((am != kScalar && desc.a_scale_pointer == nullptr) || (bm != kScalar && desc.b_scale_pointer == nullptr) ||
      (om != kScalar && desc.d_out_scale_pointer == nullptr)) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // A, B stored inner x outer with K inner (op(A) = A^T, op(B) = B) in the block modes; the
  // scalar modes do not care which dimension is which.
  const uint64_t a_scale_bytes = desc.a_scale_pointer ? lt_scale_tensor_bytes(am, a_rows, a_cols) : 0;
  const uint64_t b_scale_bytes = desc.b_scale_pointer ? lt_scale_tensor_bytes(bm, b_rows, b_cols) : 0;
  const uint64_t out_scale_bytes = om != kScalar ? lt_scale_tensor_bytes(om, p.m, p.n) : 0;
  if ((p.k > 0 && (!reachable(p.a.data, lt_matrix_bytes(p.a.type, a_rows, a_cols, a_ld)) ||
                   !reachable(p.b.data, lt_matrix_bytes(p.b.type, b_rows, b_cols, b_ld)) ||
                   !reachable(desc.a_scale_pointer, a_scale_bytes) ||
                   !reachable(desc.b_scale_pointer, b_scale_bytes))) ||
      !reachable(p.d.data, lt_matrix_bytes(p.d.type, p.m, p.n, d_ld)) ||
      !reachable(desc.d_out_scale_pointer, out_scale_bytes)) {
    *fault = true;
    return CUBLAS_STATUS_SUCCESS;
  }

  const std::vector<float> qa = dequantize(p.a, am, desc.a_scale_pointer, a_rows, a_cols);
  const std::vector<float> qb = dequantize(p.b, bm, desc.b_scale_pointer, b_rows, b_cols);
  p.a = MatrixView{qa.data(), CUDA_R_32F, 1, a_rows, Tiling::None};
  p.b = MatrixView{qb.data(), CUDA_R_32F, 1, b_rows, Tiling::None};
  p.scale_a = p.scale_b = 1.0;
  if (om == kScalar) {  // D of C's type (or plain fp8): the core stores it
    run_gemm(p);
    return CUBLAS_STATUS_SUCCESS;
  }

  void* d = const_cast<void*>(p.d.data);
  const cudaDataType d_type = p.d.type;
  const double scale_d = p.scale_d;
  std::vector<float> tmp(static_cast<size_t>(p.m * p.n));
  p.d = MatrixView{tmp.data(), CUDA_R_32F, 1, p.m, Tiling::None};
  p.scale_d = 1.0;
  run_gemm(p);

  const int64_t block = om == kVec16 ? 16 : 32;
  const double max_value = d_type == CUDA_R_4F_E2M1 ? 6.0 : d_type == CUDA_R_8F_E4M3 ? 448.0 : 57344.0;
  auto* out_scales = static_cast<uint8_t*>(desc.d_out_scale_pointer);
  const int64_t blocks = ceil_div(p.m, block);
  for (int64_t j = 0; j < p.n; ++j) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * block, r1 = std::min(p.m, r0 + block);
      double amax = 0.0;
      for (int64_t r = r0; r < r1; ++r) amax = std::max(amax, std::fabs(scale_d * tmp[size_t(r + j * p.m)]));
      const uint8_t code = om == kVec16 ? ue4m3_round_up(amax / max_value) : ue8m0_round_up(amax / max_value);
      const double s = om == kVec16 ? ue4m3_value(code) : ue8m0_value(code);
      out_scales[block_scale_index(j, b, blocks)] = code;
      for (int64_t r = r0; r < r1; ++r) {
        const double x = s > 0 ? scale_d * tmp[size_t(r + j * p.m)] / s : 0.0;
        if (d_type == CUDA_R_4F_E2M1) {
          store_e2m1(d, r + j * d_ld, x);
        } else {
          store_element(d, d_type, r + j * d_ld, x);
        }
      }
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace standin
